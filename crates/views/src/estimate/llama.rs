//! The llama.cpp recipe's estimate as text (`gpuledger estimate`, `explain`): a header, one row
//! per ledger line (GPU, host, what it depends on), the totals, every input with its source, then
//! the notes; and the estimate beside llama.cpp's own log.

use super::input_source;
use crate::columns::{Align, Columns};
use gpuledger_model::llama_estimate::{Comparison, Estimate, FitStage, TensorPlace};
use gpuledger_model::units::human_bytes;
use gpuledger_model::{term_safe, words};
use std::fmt::Write;

/// Render the estimate: a header, one row per line (GPU, host, what it depends on), the totals,
/// then every input with its source, then the notes.
pub fn render_text(e: &Estimate) -> String {
    let mut o = header(e);
    o.push_str(&guesses(e));
    o.push_str(
        &Columns::new(&[Align::Left, Align::Right, Align::Right])
            .indent("  ")
            .render(&safe_cells(ledger_rows(e))),
    );
    o.push_str(&devices(e));
    o.push_str(&fit(e));
    o.push_str("inputs:\n");
    let inputs: Vec<Vec<String>> = e
        .inputs
        .iter()
        .map(|i| {
            // Values and GGUF keys come from the model file: one field, one line.
            [i.name.as_str(), &i.value, &input_source(&i.source)]
                .map(|x| term_safe(x).into_owned())
                .to_vec()
        })
        .collect();
    // A long value (a path) overflows its own line rather than pushing every source right.
    o.push_str(
        &Columns::new(&[])
            .indent("  ")
            .max_width(1, 24)
            .render(&inputs),
    );
    if !e.notes.is_empty() {
        o.push_str("notes:\n");
        for n in &e.notes {
            let _ = writeln!(o, "  - {}", term_safe(n));
        }
    }
    o
}

/// The estimate beside the runtime's own figures (from `compare_with_log`).
pub fn render_comparison(rows: &[Comparison]) -> String {
    let mut o = String::from("estimate vs llama.cpp's own log (the log is the runtime's word):\n");
    for r in rows {
        let rep = r
            .reported_bytes
            .map(human_bytes)
            .unwrap_or_else(|| "not in log".into());
        let est = r
            .estimated_bytes
            .map(human_bytes)
            .unwrap_or_else(|| "not modelled".into());
        let _ = writeln!(
            o,
            "  {:<9} {:<4}  estimated {:>10}  logged {:>10}",
            r.line, r.place, est, rep
        );
        if let Some(why) = r.why_not_estimated {
            let _ = writeln!(o, "      ({why})");
        }
    }
    o
}

/// What the model is and the context it gets.
fn header(e: &Estimate) -> String {
    let m = &e.model;
    let c = &e.context;
    format!(
        "ESTIMATE ({}) for {}: {}, {} layers, {} in {} file{}\n\
         context: n_ctx {} ({} per slot), {} slot{}, {} cache, n_ubatch {}, flash attention {}\n",
        e.recipe,
        term_safe(&m.path),
        term_safe(&m.architecture),
        m.n_layer,
        human_bytes(m.file_bytes),
        m.files,
        plural(m.files as u64),
        c.n_ctx,
        c.n_ctx_seq,
        c.n_seq_max,
        plural(c.n_seq_max),
        if c.kv_unified { "unified" } else { "per-slot" },
        c.n_ubatch,
        if c.flash_attn { "on" } else { "off" }
    )
}

/// Where the estimate falls back on a generic rule: said before any figure, in words.
fn guesses(e: &Estimate) -> String {
    if e.guesses.is_empty() {
        return String::new();
    }
    let mut o = String::from("APPROXIMATE: part of this model is estimated with a generic rule:\n");
    for g in &e.guesses {
        let _ = writeln!(o, "  - {}", term_safe(g));
    }
    o
}

/// Every cell through the one escaping path: a line's details quote the model file (its
/// architecture's name in a graph-gap sentence), which must forge no line of output.
fn safe_cells(rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    rows.into_iter()
        .map(|r| r.iter().map(|c| term_safe(c).to_string()).collect())
        .collect()
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The ledger's rows under their heading: line, GPU, host, details.
fn ledger_rows(e: &Estimate) -> Vec<Vec<String>> {
    let (w, kv, c) = (&e.weights, &e.kv_cache, &e.compute);
    let tilde = if c.approximate { "~" } else { "" };
    // A generic rule in the memory's layout (an unknown architecture, an unsized module).
    let kv_tilde = if e.guesses.is_empty() { "" } else { "~" };
    vec![
        row("line", "GPU".into(), "host".into(), "details".into()),
        row(
            "weights",
            b(w.gpu_bytes),
            b(w.host_bytes),
            weights_detail(e),
        ),
        row(
            "KV cache",
            format!("{kv_tilde}{}", b(kv.gpu_bytes)),
            format!("{kv_tilde}{}", b(kv.host_bytes)),
            kv_detail(e),
        ),
        row(
            "output",
            words::NOTHING.into(),
            b(e.output.host_bytes),
            "logits for one token per slot (host)".into(),
        ),
        row(
            "compute",
            format!("{tilde}{}", b(c.gpu_bytes)),
            format!("{tilde}{}", b(c.host_bytes)),
            compute_detail(e),
        ),
        overhead_row(e),
        total_row(e),
    ]
}

/// What llama.cpp's `--fit` would choose, replayed: its outcome, the flags that pin it (one per
/// line, each runnable), and the steps that chose them in llama.cpp's words. The projection of
/// the settings as given is left out: the fit check below is for the settings chosen, and two
/// verdicts a few lines apart read as a contradiction.
fn fit(e: &Estimate) -> String {
    let Some(f) = &e.fit else {
        return String::new();
    };
    let free: Vec<String> = f.free_bytes.iter().map(|&b| human_bytes(b)).collect();
    let margin: Vec<String> = f.margin_bytes.iter().map(|&b| human_bytes(b)).collect();
    let mut o = format!(
        "--fit replayed ({}): for {} free, leaving {}; llama-server would load with:\n",
        f.outcome.word(),
        free.join(", "),
        margin.join(", "),
    );
    for flag in &f.flags {
        let _ = writeln!(o, "    {}", term_safe(flag));
    }
    if let Some(r) = f.outcome.reason() {
        let _ = writeln!(o, "  {}", term_safe(r));
    }
    for s in f.steps.iter().filter(|s| s.stage != FitStage::Project) {
        let _ = writeln!(o, "  {}", term_safe(&s.text));
    }
    o
}

/// The model cut over several devices: each device's layers and its part of the GPU lines,
/// which add up to the GPU column above.
fn devices(e: &Estimate) -> String {
    if e.devices.is_empty() {
        return String::new();
    }
    let tilde = if e.compute.approximate { "~" } else { "" };
    let mut rows = vec![[
        "device", "layers", "weights", "KV cache", "compute", "total",
    ]
    .map(String::from)
    .to_vec()];
    for d in &e.devices {
        let name = match &d.endpoint {
            Some(ep) => format!("{} ({})", d.name, term_safe(ep)),
            None => d.name.clone(),
        };
        let layers = format!(
            "{}{}",
            d.layers,
            if d.output_layer { " + output" } else { "" }
        );
        let total = d
            .weights_bytes
            .saturating_add(d.kv_bytes)
            .saturating_add(d.compute_bytes);
        rows.push(vec![
            name,
            layers,
            b(d.weights_bytes),
            b(d.kv_bytes),
            format!("{tilde}{}", b(d.compute_bytes)),
            format!("{tilde}{}", human_bytes(total)),
        ]);
    }
    let mut o = String::from("per device (llama.cpp's device order; overhead not included):\n");
    o.push_str(
        &Columns::new(&[
            Align::Left,
            Align::Right,
            Align::Right,
            Align::Right,
            Align::Right,
            Align::Right,
        ])
        .indent("  ")
        .render(&rows),
    );
    o
}

fn row(line: &str, gpu: String, host: String, details: String) -> Vec<String> {
    vec![line.into(), gpu, host, details]
}

/// Bytes, or [`words::NOTHING`] for none (nothing of it there, not a failure to read).
fn b(x: u64) -> String {
    if x == 0 {
        words::NOTHING.into()
    } else {
        human_bytes(x)
    }
}

fn weights_detail(e: &Estimate) -> String {
    let w = &e.weights;
    let mut wd = format!(
        "{}/{} repeating layers on GPU, output layer on {}",
        w.gpu_layers,
        w.n_layer,
        if w.output_on_gpu { "GPU" } else { "host" }
    );
    if w.tied_output_copy_bytes > 0 {
        let _ = write!(
            wd,
            ", incl. {} tied-output copy of token_embd",
            human_bytes(w.tied_output_copy_bytes)
        );
    }
    // Each buffer-type override with what it placed (the first that matches a tensor wins).
    for o in &w.overrides {
        let _ = write!(
            wd,
            "; {}: {} tensor{} ({}) on {}",
            o.given,
            o.tensors,
            plural(o.tensors as u64),
            human_bytes(o.bytes),
            match o.place {
                TensorPlace::Gpu => "GPU",
                TensorPlace::Host => "host",
            }
        );
    }
    wd
}

fn kv_detail(e: &Estimate) -> String {
    let kv = &e.kv_cache;
    let mut kd = format!(
        "{} cells x {} stream{} x {} full layers",
        kv.cells_full,
        kv.streams,
        plural(kv.streams),
        kv.layers_full
    );
    if let Some(sw) = kv.cells_swa {
        let _ = write!(kd, " + {sw} cells x {} SWA layers", kv.layers_swa);
    }
    let _ = write!(kd, ", K {} / V {}", kv.type_k, kv.type_v);
    if let Some(r) = kv.recurrent_bytes {
        let _ = write!(kd, ", recurrent state {}", human_bytes(r));
    }
    if let Some(ix) = &kv.indexer {
        // llama.cpp's sparse-attention indexer: its own cache beside the attention's.
        let _ = write!(
            kd,
            ", incl. {} indexer cache ({} layers, {} per key)",
            human_bytes(ix.bytes),
            ix.layers,
            ix.head_size
        );
    }
    kd
}

fn compute_detail(e: &Estimate) -> String {
    let c = &e.compute;
    let word = super::compute_precision(!c.approximate);
    if c.approximate {
        format!(
            "confidence {}; {word}: {}",
            c.confidence,
            c.approximate_parts.join("; ")
        )
    } else {
        format!("{word}: llama.cpp's graph reservation replayed for this model's layers")
    }
}

fn overhead_row(e: &Estimate) -> Vec<String> {
    let oh = &e.overhead;
    let gpu = match oh.gpu_bytes {
        Some(0) => words::NOTHING.into(),
        Some(x) => format!("~{}", human_bytes(x)),
        None => words::UNKNOWN.into(),
    };
    row("overhead", gpu, words::NOTHING.into(), oh.what.clone())
}

fn total_row(e: &Estimate) -> Vec<String> {
    let details = if e.overhead.gpu_bytes.is_none() {
        "GPU total excludes the unknown overhead".into()
    } else {
        format!(
            "{} without overhead",
            human_bytes(e.total_gpu_bytes_without_overhead)
        )
    };
    row(
        "total",
        human_bytes(e.total_gpu_bytes),
        human_bytes(e.total_host_bytes),
        details,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line with nothing on a side says "—", as every view does.
    #[test]
    fn nothing_there_is_the_views_word() {
        assert_eq!(b(0), "—");
        assert_eq!(b(2048), "2 KiB");
    }
}
