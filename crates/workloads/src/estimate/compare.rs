//! The estimate beside what llama.cpp itself logged (`--log`), line by line and device/host. The
//! log's buffers are summed only where one estimated line covers several of them: the KV cache
//! line holds the KV and the recurrent-state buffers, the output line the device and host
//! output buffers (the estimate keeps the output on the host). Weights the CPU backend repacked
//! (`CPU_REPACK`, `AMX`) are a row of their own that the recipe does not estimate.

use super::{Estimate, MIB};

pub use gpuledger_model::llama_estimate::Comparison;

/// Put the estimate beside the figures llama.cpp itself logged (`parse_llama_log`), per line and
/// device/host. The runtime's figure is the one to trust where both exist.
pub fn compare_with_log(e: &Estimate, log: &crate::llama_log::LlamaLog) -> Vec<Comparison> {
    use crate::llama_log::BufferKind;
    let mib = |x: f64| (x * MIB as f64).round() as u64;
    let pick = |kind: &BufferKind| {
        let any = log.buffers.iter().any(|b| &b.kind == kind);
        let (g, h) = log.sum_mib(kind);
        (any.then(|| mib(g)), any.then(|| mib(h)))
    };
    let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    };
    let row = |line, place, estimated: u64, reported| Comparison {
        line,
        place,
        estimated_bytes: Some(estimated),
        reported_bytes: reported,
        why_not_estimated: None,
    };
    let (wg, wh) = pick(&BufferKind::Model);
    let (kg, kh) = pick(&BufferKind::Kv);
    let (rg, rh) = pick(&BufferKind::Rs);
    let (og, oh) = pick(&BufferKind::Output);
    let (cg, ch) = pick(&BufferKind::Compute);
    let mut rows = vec![
        row("weights", "gpu", e.weights.gpu_bytes, wg),
        row("weights", "host", e.weights.host_bytes, wh),
        row("KV cache", "gpu", e.kv_cache.gpu_bytes, add(kg, rg)),
        row("KV cache", "host", e.kv_cache.host_bytes, add(kh, rh)),
        row("output", "host", e.output.host_bytes, add(og, oh)),
        row("compute", "gpu", e.compute.gpu_bytes, cg),
        row("compute", "host", e.compute.host_bytes, ch),
    ];
    let repacked = log.repacked_mib(&BufferKind::Model);
    if repacked > 0.0 {
        rows.push(Comparison {
            line: "weights",
            place: "host, repacked",
            estimated_bytes: None,
            reported_bytes: Some(mib(repacked)),
            why_not_estimated: Some(
                "host copies re-laid out for this CPU's kernels (CPU_REPACK, AMX, CPU_KLEIDIAI): \
                 which weights go there depends on the CPU the server was built for, and the \
                 mapped host buffer then spans only the weights left in place",
            ),
        });
    }
    rows
}
