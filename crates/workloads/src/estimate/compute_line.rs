//! The compute line of the estimate: llama.cpp's worst-case graph replayed (`compute`'s graph,
//! `galloc`'s allocator and scheduler) for the placement the estimate resolved, how the figure was
//! reached, and the scheduler's reserve passes one by one ([`sched_passes`]).

use super::context::Offload;
use super::galloc::DeviceBuffer;
use super::Plan;
use super::{
    Backend, ComputeEstimate, EstimateError, GgufModel, KvEstimate, LlamaSettings, ModelParams,
    Resolved, Rules, MIB, RULES,
};
use gpuledger_lang::Said;
use gpuledger_model::Confidence;

/// The compute buffers: llama.cpp's worst-case graph for one micro-batch, allocated the way
/// ggml-alloc allocates it (see `compute`), split between the device and the host the way the
/// backend scheduler splits it.
pub(super) fn compute(plan: &Plan, kv: &KvEstimate) -> (ComputeEstimate, Vec<u64>) {
    let (model, p, r, off, rules) = (plan.model, &plan.p, &plan.r, &plan.off, plan.rules);
    let (backend, build) = (plan.s.backend.value, plan.s.llama_build.value);
    let (reserve, place) = graph_for(plan, kv);
    let g = super::compute::reserve(model, p, &reserve, rules, &place);
    let mut approx: Vec<Said> = g
        .approximate_parts
        .iter()
        .map(|k| Said::new(k, vec![]))
        .collect();
    approx.extend(super::graph_gaps::missing_parts(model, p));
    approx.extend(super::backend_gaps::missing_parts(plan));
    let gpu_bytes = g
        .device_bytes
        .iter()
        .fold(0u64, |a, &x| a.saturating_add(x));
    let host_bytes = g.host_bytes;
    if backend == Backend::Vulkan {
        // ggml_vk_graph_optimize (ggml-vulkan.cpp) reorders each split's nodes for parallelism
        // before ggml-alloc places them; the replay keeps the graph's order, which is what
        // Vulkan allocates with GGML_VK_DISABLE_GRAPH_OPTIMIZE=1 and what CUDA allocates.
        approx.push(Said::new("recipe-approx-vulkan-reorder", vec![]));
    }
    let exact = approx.is_empty();
    let mut exact_parts = exact_parts();
    if !off.effects.is_empty() {
        exact_parts.push(
            "the weights buffer-type overrides place (-ot, --cpu-moe, --n-cpu-moe): read where \
             they are, and host weights copied into the device's compute buffer for the ops \
             the device takes over (32+ rows), as the scheduler copies them"
                .into(),
        );
    }
    let c = ComputeEstimate {
        gpu_bytes,
        host_bytes,
        approximate: !exact,
        confidence: if exact {
            Confidence::High
        } else {
            Confidence::Medium
        },
        method: compute_method(&g, r, &place, build),
        exact_parts,
        approximate_parts: approx,
        rules: rule_lines(build),
        inputs: vec![
            "-ub".into(),
            "-np".into(),
            "n_ctx".into(),
            "kv cells".into(),
            "-fa".into(),
            "tensor shapes".into(),
            "n_vocab".into(),
            "llama build".into(),
        ],
    };
    (c, g.device_bytes)
}

/// What the compute graph is reserved for and where its weights and caches are: the prompt
/// pass's micro-batch and the placement the backend scheduler sees.
pub(super) fn graph_for(
    plan: &Plan,
    kv: &KvEstimate,
) -> (super::compute::Reserve, super::compute::Placement) {
    let r = &plan.r;
    let reserve = super::compute::Reserve {
        n_ctx: r.n_ctx,
        n_ubatch: r.n_ubatch,
        n_seq: r.n_seq,
        fa: r.fa,
        unified: r.unified,
        cells_full: kv.cells_full,
        cells_swa: kv.cells_swa,
    };
    let (backend, off) = (plan.s.backend.value, &plan.off);
    let mut place = compute_placement(&plan.p, kv, backend, off, plan.rules);
    place.keeps_pins = plan.how == super::Sizing::Load;
    (reserve, place)
}

/// Where the graph's weights and caches are, per device, for the scheduler's replay.
fn compute_placement(
    p: &ModelParams,
    kv: &KvEstimate,
    backend: Backend,
    off: &Offload,
    rules: Rules,
) -> super::compute::Placement {
    let rpc = off.devices.iter().any(|d| d.endpoint.is_some());
    let pipeline = off.pipeline && (!rpc || rules.rpc_pipeline);
    super::compute::Placement {
        devices: off
            .devices
            .iter()
            .map(|d| DeviceBuffer {
                align: compute_align(d.kind)[0],
                offloads: d.offloads,
                offloads_matmul_only: d.kind == Backend::Metal,
            })
            .collect(),
        layer_device: (0..p.n_layer).map(|il| off.layer_device(il)).collect(),
        output_device: off.layer_device(p.n_layer),
        overridden: off.overrides.all_devices(&off.devices),
        kv: kv
            .per_layer
            .iter()
            .enumerate()
            .map(|(il, &(k, v, on))| (k, v, on.then(|| off.layer_device(il as u32)).flatten()))
            .collect(),
        host_align: compute_align(backend)[1],
        n_copies: if pipeline { 4 } else { 1 },
        full_offload: off.layer_dev.iter().all(Option::is_some),
        keeps_pins: true,
        dsv4: dsv4_caches(kv),
    }
}

/// DeepSeek V4's compressed caches and states, with its lightning indexer's as `lid`.
fn dsv4_caches(kv: &KvEstimate) -> Option<super::compute::Dsv4Caches> {
    let lid = kv.indexer.as_ref().filter(|i| i.kind == "dsv4")?;
    let csa_cells = kv
        .compressed
        .iter()
        .find(|c| c.name == "csa")
        .map(|c| c.cells);
    let mut parts: Vec<(&'static str, u64, Vec<u64>)> = kv
        .compressed
        .iter()
        .map(|c| (c.name, c.cells, c.per_layer.clone()))
        .collect();
    parts.push(("lid", csa_cells.unwrap_or(0), lid.per_layer.clone()));
    let quantized = !matches!(kv.type_k.as_str(), "f16" | "f32" | "bf16");
    Some(super::compute::Dsv4Caches { parts, quantized })
}

/// Buffer alignment of each backend's compute buffer types, device and host
/// (ggml_backend_buft_get_alignment): CUDA_Host takes the CPU's 32; Vulkan_Host the device's
/// minMemoryMapAlignment (64 on common GPUs and lavapipe's grid: not distinguishable there).
fn compute_align(backend: Backend) -> [u64; 2] {
    match backend {
        Backend::Cpu | Backend::Metal => [32, 32],
        Backend::Cuda | Backend::Rocm => [128, 32],
        Backend::Vulkan => [64, 64],
    }
}

/// What the compute figure always gets exactly as llama.cpp does.
fn exact_parts() -> Vec<String> {
    vec![
        "the graph's tensor sizes for the llama family (norms, Q/K/V, RoPE, attention with \
         and without flash attention, masks, dense FFN, logits)"
            .into(),
        "ggml-alloc's placement (best fit, in-place reuse, frees), one buffer per backend".into(),
        "the backend scheduler's assignment, splits and input copies on a GPU build \
         (full, partial and no offload, -nkvo)"
            .into(),
    ]
}

/// How the compute figure was reached: the graph's size, the split, the build's rules.
fn compute_method(
    g: &super::compute::ComputeGraph,
    r: &Resolved,
    place: &super::compute::Placement,
    build: Option<u64>,
) -> String {
    let mut split = if !place.device() {
        "one CPU buffer holds the whole graph".to_string()
    } else {
        "the backend scheduler's split replayed: ops on a device's weights (and host \
         weights' ops over 32+ rows, offloaded) on that device, the token lookup and what \
         writes host caches on the host, a copy of each tensor read across"
            .to_string()
    };
    if place.n_copies > 1 {
        split.push_str(&format!(
            "; pipeline parallelism (several devices, the whole model offloaded): {} copies \
             of every input, kept for the whole graph",
            place.n_copies
        ));
    }
    let mut method = format!(
        "ggml-alloc replayed over the worst-case graph: {} tokens ({} sequences), {} output \
         rows (logits {:.2} MiB), attention masks {:.2} MiB; {split}",
        g.n_tokens,
        r.n_seq,
        g.n_outputs,
        g.logits_bytes as f64 / MIB as f64,
        g.mask_bytes as f64 / MIB as f64,
    );
    method.push_str(&match build {
        Some(b) => format!("; rules of llama.cpp build b{b}"),
        None => "; newest rules (no llama.cpp build given)".into(),
    });
    method
}

/// Each build-dependent rule: whether it applies to `build`, what it is, where it came from.
fn rule_lines(build: Option<u64>) -> Vec<String> {
    RULES
        .iter()
        .map(|ru| {
            let on = build.is_none_or(|b| b >= ru.since_build);
            format!(
                "{} {}: {} (since b{}{}, {})",
                if on { "applies" } else { "not yet" },
                ru.name.split(':').next().unwrap_or(ru.name),
                ru.name.split_once(": ").map(|x| x.1).unwrap_or(""),
                ru.since_build,
                if ru.build_verified { "" } else { ", bracketed" },
                ru.change
            )
        })
        .collect()
}

/// One split of a reserve pass: its backend (`galloc::HOST`, the host, or a device in
/// llama.cpp's order) and the bytes of each input it copies from another backend.
pub use super::galloc::Split as SchedSplit;

/// One of the graph reserves llama.cpp makes when it creates a context
/// (`llama_context::sched_reserve`): the prompt pass (`min(n_ctx, n_ubatch)` tokens) and the
/// generation pass (one token per sequence), each split by the backend scheduler and placed by
/// ggml-alloc. llama.cpp keeps each backend's largest buffer over the passes.
#[derive(Debug, Clone)]
pub struct SchedPass {
    pub n_tokens: u64,
    pub n_outputs: u64,
    /// The scheduler's splits, in order (`GGML_SCHED_DEBUG`'s `## SPLIT` lines).
    pub splits: Vec<SchedSplit>,
    /// This pass's compute buffer per device, and the host's.
    pub device_bytes: Vec<u64>,
    pub host_bytes: u64,
    /// Copies of every input the scheduler keeps: 4 with pipeline parallelism, else 1.
    pub copies: u64,
}

/// The reserve passes of the context `settings` load, prompt pass first: what the compute line
/// of [`estimate`](super::estimate) rests on (its figure is the prompt pass's), pass by pass.
pub fn sched_passes(
    model: &GgufModel,
    settings: &LlamaSettings,
) -> Result<Vec<SchedPass>, EstimateError> {
    let (plan, _) = super::plan(model, settings, super::Sizing::Load)?;
    let kv = super::kv_cache(&plan)?;
    let (pp, place) = graph_for(&plan, &kv);
    let tg = super::compute::Reserve {
        n_ubatch: pp.n_seq.max(1),
        ..pp.clone()
    };
    let pass = |r: &super::compute::Reserve| {
        let g = super::compute::reserve(model, &plan.p, r, plan.rules, &place);
        SchedPass {
            n_tokens: g.n_tokens,
            n_outputs: g.n_outputs,
            splits: g.splits,
            device_bytes: g.device_bytes,
            host_bytes: g.host_bytes,
            copies: place.n_copies,
        }
    };
    Ok(vec![pass(&pp), pass(&tg)])
}
