//! Graph choices of the estimated backend that the compute replay does not make. The replay
//! follows the CUDA backend's graph and scheduler; each effect below was seen in a public log of
//! a real run of another backend (gpuledger issue #35 measured the gap: the estimate against the
//! printed buffer) and is named with that size, so the compute line says it is approximate for
//! that backend instead of passing CUDA's graph off as every backend's. Only the backend being
//! estimated is named (`--backend`, or the library the process loaded).

use gpuledger_model::llama_estimate::TensorPlace;

use super::{Backend, GgmlType, Plan};

/// Where the sizes below come from.
const SEEN: &str = "estimate against a public log of a real run, as gpuledger issue #35 \
                    measured it; the log's address is not recorded here";

/// One sentence per backend choice that changes the compute buffers and is not replayed.
pub(super) fn missing_parts(plan: &Plan) -> Vec<String> {
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
        out.push(format!(
            "Metal with experts on the host (--cpu-moe, --n-cpu-moe, -ot exps=CPU): Metal \
             offloads only the matrix products on host weights (ggml_backend_metal_device_\
             offload_op), so the experts' bias additions and their activations stay in the host \
             compute buffer; replayed so, but not checked against a Metal log here (host \
             compute −34 % before this rule, {SEEN})"
        ));
    }
    if backend == Backend::Metal && !plan.r.fa {
        out.push(format!(
            "Metal without flash attention (-fa off): ggml-metal's attention path is not \
             replayed, the CUDA one's is: not modelled (gpt-oss-120b: compute −32 %, {SEEN})"
        ));
    }
    if backend == Backend::Rocm {
        // ollama/ollama#16416 (Ollama 0.30 starting llama-server, ROCm, Radeon 8060S):
        // gpt-oss-120b, -c 262144 -np 2 -fa on -ub 1024; crates/workloads/tests/backends.rs.
        out.push(
            "ROCm (the HIP build of ggml-cuda): the replay makes the CUDA build's graph \
             choices, not the HIP build's own: not modelled (gpt-oss-120b at -c 262144 -np 2 \
             -ub 1024: the device compute buffer 796 MiB in the log of ollama/ollama#16416, \
             the replay 439 MiB, −45 %; the host's 281 MiB within 8 %)"
                .into(),
        );
    }
    let quant = |t: GgmlType| t.is_quantized();
    let (k, v) = (s.cache_type_k.value, s.cache_type_v.value);
    if backend == Backend::Vulkan && quant(k) {
        out.push(format!(
            "Vulkan with a quantised K cache (-ctk {}): ggml-vulkan's attention over a \
             quantised K is not replayed, the CUDA one's is: not modelled (compute −44 %, \
             {SEEN})",
            k.lower_name()
        ));
    }
    let local = off.devices.iter().filter(|d| d.endpoint.is_none()).count();
    if local > 1 && (quant(k) || quant(v)) {
        out.push(format!(
            "several devices (-ts) with a quantised KV cache: the host's part of the \
             scheduler's copies between devices is not replayed for quantised cache views: not \
             modelled (two GPUs, q8_0 KV: host compute 37 vs 133 MiB, {SEEN})"
        ));
    }
    out
}
