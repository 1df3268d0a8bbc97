//! The estimate as a small text table (pure: returns a String).

use std::fmt::Write;

use gpuledger_model::units::human_bytes;

use super::{Comparison, Estimate, InputSource};

fn src(s: &InputSource) -> String {
    match s {
        InputSource::Gguf { key } => format!("gguf {key}"),
        InputSource::Tensors { detail } => format!("tensors: {detail}"),
        InputSource::Flag { flag } => format!("flag {flag}"),
        InputSource::Env { var } => format!("env {var}"),
        InputSource::Runtime { detail } => format!("server: {detail}"),
        InputSource::Default { detail } => format!("default ({detail})"),
        InputSource::Derived { rule } => format!("derived: {rule}"),
        InputSource::Assumed { why } => format!("assumed: {why}"),
    }
}

fn b(x: u64) -> String {
    if x == 0 {
        "-".into()
    } else {
        human_bytes(x)
    }
}

/// Render the estimate: a header, one row per line (GPU, host, what it depends on), the totals,
/// then every input with its source, then the notes.
pub fn render_text(e: &Estimate) -> String {
    let mut o = String::new();
    let m = &e.model;
    let c = &e.context;
    let _ = writeln!(
        o,
        "ESTIMATE ({}) for {}: {}, {} layers, {} in {} file{}",
        e.recipe,
        m.path,
        m.architecture,
        m.n_layer,
        human_bytes(m.file_bytes),
        m.files,
        if m.files == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        o,
        "context: n_ctx {} ({} per slot), {} slot{}, {} cache, n_ubatch {}, flash attention {}",
        c.n_ctx,
        c.n_ctx_seq,
        c.n_seq_max,
        if c.n_seq_max == 1 { "" } else { "s" },
        if c.kv_unified { "unified" } else { "per-slot" },
        c.n_ubatch,
        if c.flash_attn { "on" } else { "off" }
    );
    let w = &e.weights;
    let kv = &e.kv_cache;
    let mut rows: Vec<[String; 4]> =
        vec![["line".into(), "GPU".into(), "host".into(), "details".into()]];
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
    rows.push(["weights".into(), b(w.gpu_bytes), b(w.host_bytes), wd]);
    let mut kd = format!(
        "{} cells x {} stream{} x {} full layers",
        kv.cells_full,
        kv.streams,
        if kv.streams == 1 { "" } else { "s" },
        kv.layers_full
    );
    if let Some(sw) = kv.cells_swa {
        let _ = write!(kd, " + {sw} cells x {} SWA layers", kv.layers_swa);
    }
    let _ = write!(kd, ", K {} / V {}", kv.type_k, kv.type_v);
    if let Some(r) = kv.recurrent_bytes {
        let _ = write!(kd, ", recurrent state {}", human_bytes(r));
    }
    rows.push(["KV cache".into(), b(kv.gpu_bytes), b(kv.host_bytes), kd]);
    rows.push([
        "output".into(),
        "-".into(),
        b(e.output.host_bytes),
        "logits for one token per slot (host)".into(),
    ]);
    let c = &e.compute;
    let tilde = if c.approximate { "~" } else { "" };
    rows.push([
        "compute".into(),
        format!("{tilde}{}", b(c.gpu_bytes)),
        format!("{tilde}{}", b(c.host_bytes)),
        if c.approximate {
            format!(
                "confidence {}; approximate: {}",
                c.confidence,
                c.approximate_parts.join("; ")
            )
        } else {
            "llama.cpp's graph reservation replayed (exact for this model's layers)".into()
        },
    ]);
    let oh = &e.overhead;
    rows.push([
        "overhead".into(),
        match oh.gpu_bytes {
            Some(0) => "-".into(),
            Some(x) => format!("~{}", human_bytes(x)),
            None => "n/a".into(),
        },
        "-".into(),
        oh.what.clone(),
    ]);
    rows.push([
        "total".into(),
        human_bytes(e.total_gpu_bytes),
        human_bytes(e.total_host_bytes),
        if oh.gpu_bytes.is_none() {
            "GPU total excludes the unknown overhead".into()
        } else {
            format!(
                "{} without overhead",
                human_bytes(e.total_gpu_bytes_without_overhead)
            )
        },
    ]);
    let widths: Vec<usize> = (0..3)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        let _ = writeln!(
            o,
            "  {:<w0$}  {:>w1$}  {:>w2$}  {}",
            r[0],
            r[1],
            r[2],
            r[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        );
    }
    let _ = writeln!(o, "inputs:");
    let nw = e.inputs.iter().map(|i| i.name.len()).max().unwrap_or(0);
    let vw = e
        .inputs
        .iter()
        .map(|i| i.value.chars().count().min(24))
        .max()
        .unwrap_or(0);
    for i in &e.inputs {
        let _ = writeln!(o, "  {:<nw$}  {:<vw$}  {}", i.name, i.value, src(&i.source));
    }
    if !e.notes.is_empty() {
        let _ = writeln!(o, "notes:");
        for n in &e.notes {
            let _ = writeln!(o, "  - {n}");
        }
    }
    o
}

/// The estimate beside the runtime's own figures (from [`super::compare_with_log`]).
pub fn render_comparison(rows: &[Comparison]) -> String {
    let mut o = String::from("estimate vs llama.cpp's own log (the log is the runtime's word):\n");
    for r in rows {
        let rep = r
            .reported_bytes
            .map(human_bytes)
            .unwrap_or_else(|| "not in log".into());
        let _ = writeln!(
            o,
            "  {:<9} {:<4}  estimated {:>10}  logged {:>10}",
            r.line,
            r.place,
            human_bytes(r.estimated_bytes),
            rep
        );
    }
    o
}
