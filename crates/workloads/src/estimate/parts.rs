//! The lines of the estimate, one function each: weights (which tensors `-ngl` puts on the
//! device), the KV cache (cells, streams, layers, types), compute buffers (the replayed graph) and
//! the runtime overhead.

use super::*;

pub(super) fn weights(
    model: &GgufModel,
    backend: Backend,
    mmap: bool,
    output_on_gpu: bool,
    layer_on_gpu: &dyn Fn(u32) -> bool,
    gpu_layers: u32,
    nl: u32,
) -> WeightsEstimate {
    let mut gpu = 0u64;
    let mut host = 0u64;
    let tied = model.tensor("output.weight").is_none();
    let mut tied_copy = 0;
    for part in &model.parts {
        // With mmap the host buffer is a view of the mapping: from the first to the last host
        // tensor of the file ("CPU_Mapped model buffer size").
        let mut lo = u64::MAX;
        let mut hi = 0u64;
        for t in &part.tensors {
            let on_gpu = match place_of(t) {
                Place::Input => false,
                Place::Layer(il) => layer_on_gpu(il),
                Place::Output => output_on_gpu,
            };
            if on_gpu {
                gpu += device_bytes(t, backend);
            } else if mmap {
                lo = lo.min(t.offset);
                hi = hi.max(t.offset + t.n_bytes);
            } else {
                host += pad(t.n_bytes, 32);
            }
            if tied && output_on_gpu && t.name == "token_embd.weight" {
                // TENSOR_DUPLICATED: the output layer gets its own copy of the embeddings.
                tied_copy = device_bytes(t, backend);
                gpu += tied_copy;
            }
        }
        if mmap && hi > lo {
            host += hi - lo;
        }
    }
    WeightsEstimate {
        gpu_bytes: gpu,
        host_bytes: host,
        gpu_layers,
        n_layer: nl,
        output_on_gpu,
        tied_output_copy_bytes: tied_copy,
        inputs: vec![
            "-ngl".into(),
            "n_layer".into(),
            "backend".into(),
            "tensor table".into(),
        ],
    }
}

// The loops index several per-layer arrays of ModelParams together.
#[allow(clippy::needless_range_loop)]
pub(super) fn kv_cache(
    p: &ModelParams,
    r: &Resolved,
    s: &LlamaSettings,
    layer_on_gpu: &dyn Fn(u32) -> bool,
    type_k: GgmlType,
    type_v: GgmlType,
) -> KvEstimate {
    let streams = if r.unified { 1 } else { r.n_seq };
    let cells_full = r.n_ctx_seq;
    let any_swa = p.cache == CacheKind::Iswa
        || (p.cache == CacheKind::Hybrid && p.swa_layers.iter().any(|&b| b));
    let cells_swa = any_swa.then(|| {
        if s.swa_full.value {
            cells_full
        } else {
            let window = p.n_swa * if r.unified { r.n_seq } else { 1 } + r.n_ubatch;
            pad(cells_full.min(window), 256)
        }
    });
    // V is stored transposed without flash attention; then every layer uses the widest V.
    let v_max = (0..p.n_layer as usize)
        .filter(|&il| p.has_kv[il])
        .map(|il| p.head_v[il] * p.n_head_kv[il])
        .max()
        .unwrap_or(0);
    let (mut k_bytes, mut v_bytes, mut gpu, mut host) = (0u64, 0u64, 0u64, 0u64);
    let (mut layers_full, mut layers_swa) = (0u32, 0u32);
    let (mut full_bytes, mut swa_bytes) = (0u64, 0u64);
    let mut per_layer = vec![(0u64, 0u64, false); p.n_layer as usize];
    for il in 0..p.n_layer as usize {
        if !p.has_kv[il] {
            continue;
        }
        let swa = p.swa_layers[il] && any_swa;
        let cells = if swa {
            cells_swa.unwrap_or(cells_full)
        } else {
            cells_full
        } * streams;
        if swa {
            layers_swa += 1;
        } else {
            layers_full += 1;
        }
        let k_el = p.head_k[il] * p.n_head_kv[il];
        let v_el = if r.fa {
            p.head_v[il] * p.n_head_kv[il]
        } else {
            v_max
        };
        let k = type_k.row_bytes(k_el).unwrap_or(0) * cells;
        let v = if p.is_mla {
            0
        } else {
            type_v.row_bytes(v_el).unwrap_or(0) * cells
        };
        k_bytes += k;
        v_bytes += v;
        if swa {
            swa_bytes += k + v;
        } else {
            full_bytes += k + v;
        }
        let on_gpu = s.kv_offload.value && layer_on_gpu(il as u32);
        per_layer[il] = (k, v, on_gpu);
        if on_gpu {
            gpu += k + v;
        } else {
            host += k + v;
        }
    }
    let recurrent_bytes = p.rs_elems_per_layer.map(|e| {
        let layers = p.recurrent.iter().filter(|&&b| b).count() as u64;
        e * 4 * r.n_seq.max(1) * layers
    });
    if let Some(rb) = recurrent_bytes {
        // Recurrent state lives with its layer like the KV.
        let per_layer_rs = rb / (p.recurrent.iter().filter(|&&b| b).count() as u64).max(1);
        for il in 0..p.n_layer as usize {
            if p.recurrent[il] {
                let on_gpu = s.kv_offload.value && layer_on_gpu(il as u32);
                per_layer[il] = (per_layer_rs, 0, on_gpu);
                if on_gpu {
                    gpu += per_layer_rs;
                } else {
                    host += per_layer_rs;
                }
            }
        }
    }
    KvEstimate {
        bytes: k_bytes + v_bytes + recurrent_bytes.unwrap_or(0),
        gpu_bytes: gpu,
        host_bytes: host,
        k_bytes,
        v_bytes,
        full_bytes,
        swa_bytes,
        cells_full,
        cells_swa,
        streams,
        layers_full,
        layers_swa,
        recurrent_bytes,
        type_k: type_k.lower_name(),
        type_v: type_v.lower_name(),
        per_layer,
        inputs: vec![
            "n_ctx".into(),
            "-np".into(),
            "kv_unified".into(),
            "n_head_kv".into(),
            "key_length".into(),
            "value_length".into(),
            "n_swa".into(),
            "swa_pattern".into(),
            "-ctk".into(),
            "-ctv".into(),
            "-ub".into(),
        ],
    }
}

/// The compute buffers: llama.cpp's worst-case graph for one micro-batch, allocated the way
/// ggml-alloc allocates it (see `compute.rs`), split between the device and the host the way the
/// backend scheduler splits it.
#[allow(clippy::too_many_arguments)]
pub(super) fn compute(
    model: &GgufModel,
    p: &ModelParams,
    r: &Resolved,
    kv: &KvEstimate,
    backend: Backend,
    rules: Rules,
    (layer_on_gpu, output_on_gpu): (&dyn Fn(u32) -> bool, bool),
    build: Option<u64>,
) -> ComputeEstimate {
    let reserve = compute::Reserve {
        n_ctx: r.n_ctx,
        n_ubatch: r.n_ubatch,
        n_seq: r.n_seq,
        fa: r.fa,
        cells_full: kv.cells_full,
        cells_swa: kv.cells_swa,
    };
    // Buffer alignment of each backend's compute buffer types, device and host
    // (ggml_backend_buft_get_alignment): CUDA_Host takes the CPU's 32; Vulkan_Host the device's
    // minMemoryMapAlignment (64 on common GPUs and lavapipe's grid: not distinguishable there).
    let align = match backend {
        Backend::Cpu | Backend::Metal => [32, 32],
        Backend::Cuda => [128, 32],
        Backend::Vulkan => [64, 64],
    };
    let place = compute::Placement {
        device: backend != Backend::Cpu,
        layer_on_device: (0..p.n_layer).map(layer_on_gpu).collect(),
        output_on_device: output_on_gpu,
        kv: kv.per_layer.clone(),
        align,
    };
    let g = compute::reserve(model, p, &reserve, rules, &place);
    let mut approx: Vec<String> = g.approximate_parts.iter().map(|s| s.to_string()).collect();
    let (gpu_bytes, host_bytes, split) = if backend == Backend::Cpu {
        (0, g.host_bytes, "one CPU buffer holds the whole graph")
    } else {
        (
            g.device_bytes,
            g.host_bytes,
            "the backend scheduler's split replayed: ops on the device's weights (and host \
             weights' ops over 32+ rows, offloaded) on the device, the token lookup and what \
             writes host caches on the host, a copy of each tensor read across",
        )
    };
    if backend == Backend::Vulkan {
        // ggml_vk_graph_optimize (ggml-vulkan.cpp) reorders each split's nodes for parallelism
        // before ggml-alloc places them; the replay keeps the graph's order, which is what
        // Vulkan allocates with GGML_VK_DISABLE_GRAPH_OPTIMIZE=1 and what CUDA allocates.
        approx.push(
            "the Vulkan device buffer: Vulkan reorders each split's nodes for parallelism \
             (ggml_vk_graph_optimize), which changes which tensors are alive together; the \
             replay keeps the graph's order (exact with GGML_VK_DISABLE_GRAPH_OPTIMIZE=1; \
             with the reordering up to one n_embd × n_ubatch activation over, within 10 % \
             on the test grid)"
                .into(),
        );
    }
    let exact = approx.is_empty();
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
    ComputeEstimate {
        gpu_bytes,
        host_bytes,
        approximate: !exact,
        confidence: if exact { "high" } else { "medium" },
        method,
        exact_parts: vec![
            "the graph's tensor sizes for the llama family (norms, Q/K/V, RoPE, attention with \
             and without flash attention, masks, dense FFN, logits)"
                .into(),
            "ggml-alloc's placement (best fit, in-place reuse, frees), one buffer per backend"
                .into(),
            "the backend scheduler's assignment, splits and input copies on a GPU build \
             (full, partial and no offload, -nkvo)"
                .into(),
        ],
        approximate_parts: approx,
        rules: RULES
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
            .collect(),
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
    }
}

pub(super) fn overhead(backend: Backend) -> OverheadEstimate {
    match backend {
        Backend::Cuda => OverheadEstimate {
            gpu_bytes: Some(300 * MIB),
            approximate: true,
            what: "CUDA context, kernels and cuBLAS workspace of the process (not a llama.cpp \
                   buffer; typically 128–512 MiB by GPU, driver and CUDA_MODULE_LOADING)"
                .into(),
            range: Some((128 * MIB, 512 * MIB)),
        },
        Backend::Metal => OverheadEstimate {
            gpu_bytes: None,
            approximate: true,
            what: "Metal device overhead: no figure (unified memory)".into(),
            range: None,
        },
        Backend::Vulkan => OverheadEstimate {
            gpu_bytes: None,
            approximate: true,
            what: "Vulkan driver overhead: no figure for this backend".into(),
            range: None,
        },
        Backend::Cpu => OverheadEstimate {
            gpu_bytes: Some(0),
            approximate: false,
            what: "no GPU device".into(),
            range: None,
        },
    }
}
