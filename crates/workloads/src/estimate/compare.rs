//! The estimate beside what llama.cpp itself logged (`--log`), line by line and device/host. The
//! log's buffers are summed only where one estimated line covers several of them: the KV cache
//! line holds the KV and the recurrent-state buffers, the output line the device and host
//! output buffers (the estimate keeps the output on the host).

use super::*;

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
    let (wg, wh) = pick(&BufferKind::Model);
    let (kg, kh) = pick(&BufferKind::Kv);
    let (rg, rh) = pick(&BufferKind::Rs);
    let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    };
    let (og, oh) = pick(&BufferKind::Output);
    let (cg, ch) = pick(&BufferKind::Compute);
    vec![
        Comparison {
            line: "weights",
            place: "gpu",
            estimated_bytes: e.weights.gpu_bytes,
            reported_bytes: wg,
        },
        Comparison {
            line: "weights",
            place: "host",
            estimated_bytes: e.weights.host_bytes,
            reported_bytes: wh,
        },
        Comparison {
            line: "KV cache",
            place: "gpu",
            estimated_bytes: e.kv_cache.gpu_bytes,
            reported_bytes: add(kg, rg),
        },
        Comparison {
            line: "KV cache",
            place: "host",
            estimated_bytes: e.kv_cache.host_bytes,
            reported_bytes: add(kh, rh),
        },
        Comparison {
            line: "output",
            place: "host",
            estimated_bytes: e.output.host_bytes,
            reported_bytes: add(og, oh),
        },
        Comparison {
            line: "compute",
            place: "gpu",
            estimated_bytes: e.compute.gpu_bytes,
            reported_bytes: cg,
        },
        Comparison {
            line: "compute",
            place: "host",
            estimated_bytes: e.compute.host_bytes,
            reported_bytes: ch,
        },
    ]
}
