//! The llama.cpp recipe's estimate as text (`gpuledger estimate`, `explain`): a header, one row
//! per ledger line (GPU, host, what it depends on), the totals, every input with its source, then
//! the notes; and the estimate beside llama.cpp's own log. The words come from the language's
//! catalogue; the figures, flags and GGUF keys are the same in every language.

use super::input_source_in;
use crate::columns::{Align, Columns};
use gpuledger_lang::{Lang, Said};
use gpuledger_model::llama_estimate::{Comparison, Estimate, FitOutcome, FitStage, TensorPlace};
use gpuledger_model::units::human_bytes;
use gpuledger_model::{term_safe, words};
use std::fmt::Write;

/// Render the estimate: a header, one row per line (GPU, host, what it depends on), the totals,
/// then every input with its source, then the notes.
pub fn render_text(e: &Estimate) -> String {
    render_text_in(e, Lang::En)
}

/// [`render_text`] in `lang`.
pub fn render_text_in(e: &Estimate, lang: Lang) -> String {
    let mut o = header(e, lang);
    o.push_str(&guesses(e, lang));
    o.push_str(
        &Columns::new(&[Align::Left, Align::Right, Align::Right])
            .indent("  ")
            .render(&safe_cells(ledger_rows(e, lang))),
    );
    o.push_str(&devices(e, lang));
    o.push_str(&fit(e, lang));
    let _ = writeln!(o, "{}", lang.t("report-est-inputs"));
    let inputs: Vec<Vec<String>> = e
        .inputs
        .iter()
        .map(|i| {
            // Values and GGUF keys come from the model file: one field, one line.
            [
                &i.name.in_lang(lang),
                &i.value.in_lang(lang),
                &input_source_in(&i.source, lang),
            ]
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
        let _ = writeln!(o, "{}", lang.t("report-est-notes"));
        for n in &e.notes {
            let _ = writeln!(o, "  - {}", term_safe(&n.in_lang(lang)));
        }
    }
    o
}

/// The estimate beside the runtime's own figures (from `compare_with_log`).
pub fn render_comparison(rows: &[Comparison]) -> String {
    render_comparison_in(rows, Lang::En)
}

/// [`render_comparison`] in `lang`.
pub fn render_comparison_in(rows: &[Comparison], lang: Lang) -> String {
    let mut o = format!("{}\n", lang.t("report-cmp-heading"));
    let (estimated, logged) = (lang.t("report-cmp-estimated"), lang.t("report-cmp-logged"));
    for r in rows {
        let rep = r
            .reported_bytes
            .map(human_bytes)
            .unwrap_or_else(|| lang.t("report-cmp-not-in-log"));
        let est = r
            .estimated_bytes
            .map(human_bytes)
            .unwrap_or_else(|| lang.t("report-cmp-not-modelled"));
        let _ = writeln!(
            o,
            "  {:<9} {:<4}  {estimated} {:>10}  {logged} {:>10}",
            r.line, r.place, est, rep
        );
        if let Some(why) = r.why_not_estimated {
            let _ = writeln!(o, "      ({why})");
        }
    }
    o
}

/// What the model is and the context it gets.
fn header(e: &Estimate, lang: Lang) -> String {
    let m = &e.model;
    let c = &e.context;
    let model = [
        ("recipe", e.recipe.to_string().into()),
        ("path", term_safe(&m.path).into_owned().into()),
        ("arch", term_safe(&m.architecture).into_owned().into()),
        ("layers", m.n_layer.to_string().into()),
        ("size", human_bytes(m.file_bytes).into()),
        ("files", (m.files as u64).into()),
    ];
    let on_off = |on: bool| {
        lang.t(if on {
            "report-est-on"
        } else {
            "report-est-off"
        })
    };
    let cache = if c.kv_unified {
        "report-est-cache-unified"
    } else {
        "report-est-cache-per-slot"
    };
    let context = [
        ("n_ctx", c.n_ctx.to_string().into()),
        ("per_slot", c.n_ctx_seq.to_string().into()),
        ("slots", c.n_seq_max.into()),
        ("cache", lang.t(cache).into()),
        ("ubatch", c.n_ubatch.to_string().into()),
        ("flash", on_off(c.flash_attn).into()),
    ];
    format!(
        "{}\n{}\n",
        lang.t_args("report-est-header", &model),
        lang.t_args("report-est-context", &context)
    )
}

/// Where the estimate falls back on a generic rule: said before any figure, in words.
fn guesses(e: &Estimate, lang: Lang) -> String {
    if e.guesses.is_empty() {
        return String::new();
    }
    let mut o = format!("{}\n", lang.t("report-est-approximate"));
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

fn ledger_rows(e: &Estimate, lang: Lang) -> Vec<Vec<String>> {
    let (w, kv, c) = (&e.weights, &e.kv_cache, &e.compute);
    let tilde = if c.approximate { "~" } else { "" };
    let kv_tilde = if e.guesses.is_empty() { "" } else { "~" };
    let t = |k: &str| lang.t(k);
    vec![
        vec![
            t("report-est-col-line"),
            t("report-col-gpu"),
            t("report-est-col-host"),
            t("report-est-col-details"),
        ],
        vec![
            t("report-est-weights"),
            b(w.gpu_bytes),
            b(w.host_bytes),
            weights_detail(e, lang),
        ],
        vec![
            t("report-est-kv-cache"),
            format!("{kv_tilde}{}", b(kv.gpu_bytes)),
            format!("{kv_tilde}{}", b(kv.host_bytes)),
            kv_detail(e, lang),
        ],
        vec![
            t("report-est-output"),
            words::NOTHING.into(),
            b(e.output.host_bytes),
            t("report-est-output-detail"),
        ],
        vec![
            t("report-est-compute"),
            format!("{tilde}{}", b(c.gpu_bytes)),
            format!("{tilde}{}", b(c.host_bytes)),
            compute_detail(e, lang),
        ],
        overhead_row(e, lang),
        total_row(e, lang),
    ]
}

/// `fitted`, `failed`...: the `--fit` outcome in words.
fn outcome_word(f: &FitOutcome, lang: Lang) -> String {
    lang.t(f.key())
}

fn fit(e: &Estimate, lang: Lang) -> String {
    let Some(f) = &e.fit else {
        return String::new();
    };
    let free: Vec<String> = f.free_bytes.iter().map(|&b| human_bytes(b)).collect();
    let margin: Vec<String> = f.margin_bytes.iter().map(|&b| human_bytes(b)).collect();
    let args = [
        ("outcome", outcome_word(&f.outcome, lang).into()),
        ("free", free.join(", ").into()),
        ("margin", margin.join(", ").into()),
    ];
    let mut o = format!("{}\n", lang.t_args("report-est-fit", &args));
    for flag in &f.flags {
        let _ = writeln!(o, "    {}", term_safe(flag));
    }
    if let FitOutcome::Stopped(why) = &f.outcome {
        let _ = writeln!(o, "  {}", term_safe(&why.in_lang(lang)));
    }
    // llama.cpp's own log lines (its steps, then why it gave up), in its words: said to be so
    // above them.
    let mut log: Vec<&str> = f
        .steps
        .iter()
        .filter(|s| s.stage != FitStage::Project)
        .map(|s| s.text.as_str())
        .collect();
    if let FitOutcome::Failed(why) = &f.outcome {
        log.push(why);
    }
    if !log.is_empty() {
        let _ = writeln!(o, "  {}", lang.t("report-est-fit-log"));
        for line in log {
            let _ = writeln!(o, "    {}", term_safe(line));
        }
    }
    o
}

fn devices(e: &Estimate, lang: Lang) -> String {
    if e.devices.is_empty() {
        return String::new();
    }
    let tilde = if e.compute.approximate { "~" } else { "" };
    let mut rows = vec![[
        "report-est-col-device",
        "report-est-col-layers",
        "report-est-weights",
        "report-est-kv-cache",
        "report-est-compute",
        "report-est-total",
    ]
    .map(|k| lang.t(k))
    .to_vec()];
    let plus_output = format!(" {}", lang.t("report-est-plus-output"));
    for d in &e.devices {
        let name = match &d.endpoint {
            Some(ep) => format!("{} ({})", d.name, term_safe(ep)),
            None => d.name.clone(),
        };
        let output = if d.output_layer { &plus_output[..] } else { "" };
        let total = d
            .weights_bytes
            .saturating_add(d.kv_bytes)
            .saturating_add(d.compute_bytes);
        rows.push(vec![
            name,
            format!("{}{output}", d.layers),
            b(d.weights_bytes),
            b(d.kv_bytes),
            format!("{tilde}{}", b(d.compute_bytes)),
            format!("{tilde}{}", human_bytes(total)),
        ]);
    }
    let mut o = format!("{}\n", lang.t("report-est-per-device"));
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

fn b(x: u64) -> String {
    if x == 0 {
        words::NOTHING.into()
    } else {
        human_bytes(x)
    }
}

/// A tensor's place as the catalogue's selectors name it (`gpu`, `host`).
fn place(p: TensorPlace) -> &'static str {
    match p {
        TensorPlace::Gpu => "gpu",
        TensorPlace::Host => "host",
    }
}

fn weights_detail(e: &Estimate, lang: Lang) -> String {
    let w = &e.weights;
    let output = if w.output_on_gpu {
        TensorPlace::Gpu
    } else {
        TensorPlace::Host
    };
    let args = [
        ("gpu_layers", w.gpu_layers.to_string().into()),
        ("layers", w.n_layer.to_string().into()),
        ("place", place(output).into()),
    ];
    let mut wd = lang.t_args("report-est-weights-detail", &args);
    if w.tied_output_copy_bytes > 0 {
        let size = human_bytes(w.tied_output_copy_bytes);
        wd.push_str(&lang.t_args("report-est-tied-copy", &[("size", size.into())]));
    }
    for o in &w.overrides {
        let args = [
            ("given", o.given.as_str().into()),
            ("count", (o.tensors as u64).into()),
            ("size", human_bytes(o.bytes).into()),
            ("place", place(o.place).into()),
        ];
        wd.push_str(&lang.t_args("report-est-override", &args));
    }
    wd
}

fn kv_detail(e: &Estimate, lang: Lang) -> String {
    let kv = &e.kv_cache;
    let args = [
        ("cells", kv.cells_full.to_string().into()),
        ("streams", kv.streams.into()),
        ("layers", kv.layers_full.to_string().into()),
    ];
    let mut kd = lang.t_args("report-est-kv-detail", &args);
    if let Some(sw) = kv.cells_swa {
        let args = [
            ("cells", sw.to_string().into()),
            ("layers", kv.layers_swa.to_string().into()),
        ];
        let _ = write!(kd, " {}", lang.t_args("report-est-kv-swa", &args));
    }
    let _ = write!(kd, ", K {} / V {}", kv.type_k, kv.type_v);
    if let Some(r) = kv.recurrent_bytes {
        let args = [("size", human_bytes(r).into())];
        kd.push_str(&lang.t_args("report-est-kv-recurrent", &args));
    }
    if let Some(ix) = &kv.indexer {
        let args = [
            ("size", human_bytes(ix.bytes).into()),
            ("layers", ix.layers.to_string().into()),
            ("head", ix.head_size.to_string().into()),
        ];
        kd.push_str(&lang.t_args("report-est-kv-indexer", &args));
    }
    if !kv.compressed.is_empty() {
        let size: u64 = kv.compressed.iter().map(|c| c.bytes).sum();
        let args = [
            ("size", human_bytes(size).into()),
            ("count", kv.compressed.len().to_string().into()),
        ];
        kd.push_str(&lang.t_args("report-est-kv-compressed", &args));
    }
    kd
}

fn compute_detail(e: &Estimate, lang: Lang) -> String {
    let c = &e.compute;
    let word = super::compute_precision_in(!c.approximate, lang);
    if c.approximate {
        let confidence = crate::labels::confidence_label(c.confidence, lang);
        let parts = Said::joined("report-said-list", c.approximate_parts.clone());
        let args = [
            ("confidence", confidence.into()),
            ("word", word.into()),
            (
                "parts",
                parts.map(|p| p.in_lang(lang)).unwrap_or_default().into(),
            ),
        ];
        lang.t_args("report-est-compute-approximate", &args)
    } else {
        lang.t_args("report-est-compute-exact", &[("word", word.into())])
    }
}

fn overhead_row(e: &Estimate, lang: Lang) -> Vec<String> {
    let oh = &e.overhead;
    let gpu = match oh.gpu_bytes {
        Some(0) => words::NOTHING.into(),
        Some(x) => format!("~{}", human_bytes(x)),
        None => words::UNKNOWN.into(),
    };
    vec![
        lang.t("report-est-overhead"),
        gpu,
        words::NOTHING.into(),
        oh.what.in_lang(lang),
    ]
}

fn total_row(e: &Estimate, lang: Lang) -> Vec<String> {
    let details = if e.overhead.gpu_bytes.is_none() {
        lang.t("report-est-total-no-overhead")
    } else {
        let size = human_bytes(e.total_gpu_bytes_without_overhead);
        lang.t_args(
            "report-est-total-without-overhead",
            &[("size", size.into())],
        )
    };
    vec![
        lang.t("report-est-total"),
        human_bytes(e.total_gpu_bytes),
        human_bytes(e.total_host_bytes),
        details,
    ]
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
