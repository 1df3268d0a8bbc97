//! Graph choices of the estimated backend that the compute replay does not make. The replay
//! follows the CUDA backend's graph and scheduler; each effect below was seen in a public log of
//! a real run of another backend (gpuledger issue #35 measured the gap: the estimate against the
//! printed buffer) and is named with that size, so the compute line says it is approximate for
//! that backend instead of passing CUDA's graph off as every backend's. Only the backend being
//! estimated is named (`--backend`, or the library the process loaded).

use gpuledger_lang::Said;
use gpuledger_model::llama_estimate::TensorPlace;

use super::{Backend, GgmlType, Plan};

/// One sentence per backend choice that changes the compute buffers and is not replayed.
pub(super) fn missing_parts(plan: &Plan) -> Vec<Said> {
    let (s, off) = (plan.s, &plan.off);
    let backend = s.backend.value;
    let mut out = Vec::new();
    let host_experts = off
        .effects
        .iter()
        .any(|e| e.place == TensorPlace::Host && e.tensors > 0 && e.pattern.contains("exps"));
    if backend == Backend::Metal && host_experts {
        // ggml_backend_metal_device_offload_op (ggml-metal.cpp) offloads only MUL_MAT and
        // MUL_MAT_ID: the replay follows it (galloc/sched.rs); no Metal log here checks it.
        out.push(Said::new("recipe-approx-metal-host-experts", vec![]));
    }
    if backend == Backend::Metal && !plan.r.fa {
        out.push(Said::new("recipe-approx-metal-no-fa", vec![]));
    }
    if backend == Backend::Rocm {
        // ollama/ollama#16416 (Ollama 0.30 starting llama-server, ROCm, Radeon 8060S):
        // gpt-oss-120b, -c 262144 -np 2 -fa on -ub 1024; crates/workloads/tests/backends.rs.
        out.push(Said::new("recipe-approx-rocm", vec![]));
    }
    let quant = |t: GgmlType| t.is_quantized();
    let (k, v) = (s.cache_type_k.value, s.cache_type_v.value);
    if backend == Backend::Vulkan && quant(k) {
        out.push(Said::new(
            "recipe-approx-vulkan-quant-k",
            vec![("type", k.lower_name().into())],
        ));
    }
    let local = off.devices.iter().filter(|d| d.endpoint.is_none()).count();
    if local > 1 && (quant(k) || quant(v)) {
        out.push(Said::new("recipe-approx-devices-quant-kv", vec![]));
    }
    out
}
