//! vLLM: a reservation by design. At start-up vLLM loads the weights, profiles one dummy forward
//! pass (the activation peak), captures CUDA graphs (unless `--enforce-eager`), and turns what is
//! left of `total × --gpu-memory-utilization` into KV-cache blocks. So nvidia-smi shows about
//! that fraction of the GPU whatever the load.
//!
//! What the recipe knows and how:
//! - the reservation: `--gpu-memory-utilization` (or `/metrics` `vllm:cache_config_info`) × the
//!   device total the driver measured;
//! - the weights: the safetensors headers of the model folder, split evenly over the tensor- and
//!   pipeline-parallel ranks (each rank is its own process on its own GPU);
//! - one KV block per rank: `layers × block_size × kv_heads_per_rank × (K + V head size) × dtype
//!   bytes`, as vLLM's `AttentionSpec.page_size_bytes` sums it per layer (KV heads are split over
//!   the TP ranks, at least one per rank); MLA models store one latent vector of
//!   `kv_lora_rank + qk_rope_head_dim` values per token and layer, replicated on every rank;
//!   a model that mixes full-attention and sliding-window layers spans one KV group's layers per
//!   block, not all of them ([`KvGroups`], `groups`);
//! - the block count: only vLLM knows it (it comes from the profiled activation peak), so it is
//!   read from `/metrics` (`num_gpu_blocks`) or the start-up log; without it the KV cache stays
//!   `None` and the sentence says what the rest of the reservation holds;
//! - the tokens those blocks hold, counted as the release that runs prints them (`GPU KV cache
//!   size`, `capacity`), with the rules of that release (`version`): the newest rules, said to
//!   be assumed, when the version is not known.
//!
//! Where each part lives: `args` reads the command line, `reports` the server's `/metrics`
//! and start-up log, `estimate` is the recipe; what SGLang shares with it is in
//! [`super::reservation`].

mod args;
mod capacity;
pub mod config;
mod estimate;
mod gguf;
mod groups;
mod kv_block;
mod live;
pub mod moe_quant;
mod parallel;
mod reports;
pub mod rope;
mod runtime;
mod version;

pub use super::reservation::{kv_bytes_per_token, ModelFacts, Src};
pub use args::{parse_size, VllmSettings, DEFAULT_BLOCK_SIZE, DEFAULT_GPU_MEMORY_UTILIZATION};
pub use estimate::estimate;
pub use gguf::{facts as gguf_facts, serves_gguf};
pub use groups::KvGroups;
pub use reports::{labels, parse_log, parse_metrics, VllmLog, VllmMetrics};
pub use runtime::Vllm;
pub use version::{
    default_utilization, kv_rules, KvRules, TokenRule, CAPACITY_TOKENS_SINCE, DEFAULT_092_SINCE,
    HYBRID_KV_SINCE, IN_FLIGHT_SINCE,
};

use super::reservation::first_answer;
use gpuledger_lang::Said;

/// The paths of vLLM's API its recipe reads (the runtime's [`Api`](super::Api) declaration):
/// the KV cache's blocks and the release.
const METRICS: &str = "/metrics";
const VERSION_PATH: &str = "/version";
const API_PATHS: &[&str] = &[METRICS, VERSION_PATH];
use super::{InputSource, ProcessContext, RuntimeEstimate};

/// The recipe for a running process: its command line (or its server's), its model folder,
/// and `/metrics` when `explain` may ask.
pub fn estimate_process(ctx: &ProcessContext) -> Result<RuntimeEstimate, Said> {
    let from = ctx.argv_source();
    let mut s = VllmSettings::from_args(&ctx.argv, from)
        .map_err(|e| Said::new("recipe-err-vllm-argv", vec![("error", e.into())]))?;
    // Defaults and KV rules changed between releases: take those of the release that runs.
    s.version = version::running(ctx);
    s.mxfp4_backend = ctx
        .log_mxfp4_backend
        .clone()
        .or_else(|| moe_quant::from_env(&ctx.env))
        .or_else(|| moe_quant::from_capability(ctx.device_capability));
    if matches!(s.gpu_memory_utilization.source, InputSource::Default { .. }) {
        s.gpu_memory_utilization = default_utilization(s.version.as_ref());
    }
    let model = s.model.clone().ok_or_else(|| match &ctx.argv_note {
        Some(note) => {
            let note = vec![("note", note.clone().into())];
            Said::new("recipe-err-vllm-no-model-note", note)
        }
        None => Said::new("recipe-err-vllm-no-model", vec![]),
    })?;
    let quantization = s.quantization.as_ref().map(|q| q.value.as_str());
    let facts = if gguf::serves_gguf(&model, quantization) {
        gguf::read(&model, ctx)?
    } else {
        ModelFacts::read(&model, ctx)?
    };
    let metrics = first_answer(ctx, &[METRICS], parse_metrics);
    let mut e = estimate(&facts, &s, ctx.device_total, metrics.as_ref());
    e.summary.not_modelled.extend(ctx.argv_note.clone());
    Ok(e)
}
