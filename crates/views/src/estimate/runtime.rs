//! A runtime recipe's estimate (vLLM, SGLang, PyTorch) as text for `explain`: the why sentence,
//! the parts (unknown ones said so), the runtime's own figures, what is not modelled, and the
//! inputs with their sources.

use super::measured_vs_estimated;
use gpuledger_model::runtime_estimate::{gib, thousands, RuntimeEstimate};
use gpuledger_model::words;
use gpuledger_model::ReportedFigure;
use std::fmt::Write;

/// Text for `explain`: the why sentence, the parts (unknown ones said so), the runtime's own
/// figures, what is not modelled, and the inputs with their sources.
pub fn render_text(r: &RuntimeEstimate) -> String {
    let s = &r.summary;
    let mut out = String::new();
    if let Some(why) = &s.why {
        let _ = writeln!(out, "{why}");
    }
    let _ = writeln!(out, "recipe {} · model {}", s.recipe, s.model);
    let part = |b: Option<u64>| match b {
        Some(b) => gib(b),
        None => format!("{} (not modelled)", words::UNKNOWN),
    };
    let compute = s.compute_label.as_deref().unwrap_or("compute");
    let overhead = match s.overhead_gpu_bytes {
        Some(b) => format!("{} ({})", gib(b), s.overhead_source),
        None => format!("{} ({})", words::UNKNOWN, s.overhead_source),
    };
    for (what, value) in [
        ("weights", gib(s.weights_gpu_bytes)),
        ("KV cache", part(s.kv_cache_gpu_bytes)),
        (compute, part(s.compute_gpu_bytes)),
        ("overhead", overhead),
        ("total", gib(s.total_gpu_bytes)),
    ] {
        let _ = writeln!(out, "  {what:<18} {value}");
    }
    if let Some(c) = s.n_ctx {
        let _ = writeln!(out, "  KV cache holds     {} tokens", thousands(c));
    }
    if !s.reported.is_empty() {
        out.push_str("runtime reports (its own figures, not added to either ledger):\n");
        for f in &s.reported {
            let _ = writeln!(out, "  {}: {}  — {}", f.what, reported_value(f), f.source);
        }
    }
    for n in &s.not_modelled {
        let _ = writeln!(out, "not modelled: {n}");
    }
    out.push_str("inputs:\n");
    for i in &r.inputs {
        let _ = writeln!(out, "  {} = {}  ({})", i.name, i.value, i.source);
    }
    out
}

/// A figure the runtime reported: bytes, its own words, or both.
fn reported_value(f: &ReportedFigure) -> String {
    match (&f.bytes, &f.text) {
        (Some(b), Some(t)) => format!("{} ({t})", gib(*b)),
        (Some(b), None) => gib(*b),
        (None, Some(t)) => t.clone(),
        (None, None) => "?".into(),
    }
}

/// [`render_text`], then measured − estimated where the driver measured the process and every
/// part of the estimate is known (a difference with a floor would mean nothing).
pub fn render_beside_measured(r: &RuntimeEstimate, measured: Option<u64>) -> String {
    let mut out = render_text(r);
    if let (Some(m), false) = (measured, r.summary.is_partial()) {
        out.push_str(&measured_vs_estimated(
            m,
            "(driver) ",
            r.summary.total_gpu_bytes,
        ));
        out.push('\n');
    }
    out
}
