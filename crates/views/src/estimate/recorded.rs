//! The estimate a recorded snapshot carries, as text for `explain` on a replay (the model file
//! is on the machine the snapshot was taken on, not here): its parts as recorded, beside the
//! measurement.

use super::measured_vs_estimated;
use gpuledger_model::units::human_opt;
use gpuledger_model::EstimatedMemory;
use std::fmt::Write;

/// The recorded parts and total, measured − estimated when the driver measured the process,
/// then what the recipe did not model.
pub fn render_recorded(r: &EstimatedMemory, measured: Option<u64>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "recorded in the snapshot when it was taken ({}, model {}{}):",
        r.recipe,
        r.model,
        r.n_ctx
            .map(|n| format!(", context {n}"))
            .unwrap_or_default()
    );
    let compute = r.compute_label.as_deref().unwrap_or("compute buffers");
    for (what, v) in [
        ("weights", Some(r.weights_gpu_bytes)),
        ("KV cache", r.kv_cache_gpu_bytes),
        (compute, r.compute_gpu_bytes),
        ("overhead", r.overhead_gpu_bytes),
        ("total GPU", Some(r.total_gpu_bytes)),
    ] {
        let _ = writeln!(out, "  {what:<16} {:>10}", human_opt(v));
    }
    if let Some(m) = measured {
        let _ = writeln!(out, "{}", measured_vs_estimated(m, "", r.total_gpu_bytes));
    }
    for n in &r.not_modelled {
        let _ = writeln!(out, "  not modelled: {n}");
    }
    out
}
