//! The llama.cpp recipe's estimated ledger as data: each line (weights, KV cache, output,
//! compute, overhead) with its inputs and their sources, and a line beside what llama.cpp itself
//! logged. Never the snapshot's measured types. `gpuledger-workloads` computes these; views
//! render them.

pub use crate::estimate_input::{Input, InputSource};
use gpuledger_lang::Said;
use serde::Serialize;

/// How llama.cpp keeps this architecture's sequence memory (`llama_model::create_memory`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheKind {
    /// Embedding / encoder-only / diffusion models: no KV cache.
    None,
    /// One KV cache over all attention layers.
    Kv,
    /// Interleaved sliding-window: a full cache and a SWA cache.
    Iswa,
    /// Recurrent state only (Mamba, RWKV).
    Recurrent,
    /// Attention KV cache plus recurrent state.
    Hybrid,
}

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
    /// Each device's share when the model is cut over several (`--rpc`, `-ts`, several GPUs);
    /// empty for one device or none. The GPU lines above are their sums.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<DeviceShare>,
    /// What `--fit` chose, when replayed (the lines above are for those settings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit: Option<FitReplay>,
    /// weights + KV + compute on the GPU, plus the overhead when it is known.
    pub total_gpu_bytes: u64,
    /// The same without the overhead line.
    pub total_gpu_bytes_without_overhead: u64,
    pub total_host_bytes: u64,
    pub inputs: Vec<Input>,
    /// What the reader should know, each a sentence said in the reader's language where it has
    /// a key (English in JSON).
    pub notes: Vec<Said>,
    /// What the estimate fills in with a generic rule, one sentence each (also in `notes`): an
    /// architecture the recipe's table does not know, a memory module it does not size. Not
    /// empty: the whole estimate is approximate, and every view says so.
    pub guesses: Vec<String>,
}

/// What llama.cpp's `--fit` would choose (`common_fit_params`), replayed with the recipe as its
/// memory projection.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitReplay {
    /// How the replay ended (`status`, and `reason` where there is one).
    #[serde(flatten)]
    pub outcome: FitOutcome,
    /// What llama.cpp would log on the way (`common_params_fit_impl`), in its words, each line
    /// with the step that logs it.
    pub steps: Vec<FitStep>,
    pub n_ctx: u64,
    /// `None`: left to llama.cpp's default (every layer).
    pub n_gpu_layers: Option<u32>,
    /// Layers per device (several devices).
    pub tensor_split: Vec<u32>,
    /// Buffer-type overrides chosen, one `PATTERN=BUFFER_TYPE` each (one `-ot` each), only
    /// those that match a tensor of the model.
    pub overrides: Vec<String>,
    /// The llama-server flags that pin these settings, each runnable as written.
    pub flags: Vec<String>,
    /// The inputs: free memory of each device (the host's total without one), and the margin
    /// to leave (`--fit-target`).
    pub free_bytes: Vec<u64>,
    pub margin_bytes: Vec<u64>,
    /// Memory projections the replay made (each one estimate of the whole model).
    pub projections: u32,
    /// Tensor placements those projections made (each tensor against the overrides in force):
    /// the replay's work, bounded to grow about linearly with the model's tensors.
    pub placements: u64,
    /// Each layer arrangement steps 3 and 4 tried, in order, with its projected memory: what
    /// llama.cpp logs as "memory for test allocation by device" (tests compare them line by
    /// line; not part of the JSON).
    #[serde(skip)]
    pub probes: Vec<FitProbe>,
}

/// One arrangement of layers over the devices that the replay projected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FitProbe {
    /// Per device: layers, of which partial, and the first partial layer's overflow
    /// (llama.cpp's `common_layer_fraction_t`: 1 attention, 2 up, 3 gate, 4 experts).
    pub layers: Vec<(u32, u32, u8)>,
    /// Per device, the projected bytes.
    pub used: Vec<i64>,
}

/// How a `--fit` replay ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "reason", rename_all = "lowercase")]
pub enum FitOutcome {
    /// Every device (or the host) keeps its margin with the settings as given.
    Unchanged,
    /// llama.cpp changes the unset settings to these.
    Fitted,
    /// llama.cpp gives up and loads with the settings reached so far (why, in its words).
    Failed(String),
    /// The replay stopped at its own budget before llama.cpp would (why, in gpuledger's words):
    /// the settings are those reached so far, not necessarily llama.cpp's.
    Stopped(Said),
}

impl FitOutcome {
    /// The catalogue key of the outcome's word (`report-fit-fitted`; the JSON's `status` is
    /// `fitted`).
    pub fn key(&self) -> &'static str {
        match self {
            FitOutcome::Unchanged => "report-fit-unchanged",
            FitOutcome::Fitted => "report-fit-fitted",
            FitOutcome::Failed(_) => "report-fit-failed",
            FitOutcome::Stopped(_) => "report-fit-stopped",
        }
    }

    /// Why it failed (llama.cpp's words, as it logs them) or stopped (a sentence of gpuledger's).
    pub fn reason(&self) -> Option<Said> {
        match self {
            FitOutcome::Failed(r) => Some(Said::verbatim(r.as_str())),
            FitOutcome::Stopped(r) => Some(r.clone()),
            _ => None,
        }
    }
}

/// Which of `common_fit_params`'s steps logs a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FitStage {
    /// 1: the settings as given, projected.
    Project,
    /// 2: a smaller context.
    Context,
    /// 3: layers per device.
    Layers,
    /// 4: MoE experts moved back onto devices.
    Experts,
}

/// One line of the replay's log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FitStep {
    pub stage: FitStage,
    pub text: String,
}

/// One device's part of an estimate over several devices.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct DeviceShare {
    /// As llama.cpp names the device: `RPC0`, `CUDA1`, `Vulkan0`.
    pub name: String,
    /// An RPC device's server (`127.0.0.1:50052`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// Repeating layers whose weights (and KV cache) are on it, and whether the output layer is.
    pub layers: u32,
    pub output_layer: bool,
    pub weights_bytes: u64,
    pub kv_bytes: u64,
    pub compute_bytes: u64,
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
    /// Whether the architecture is in the recipe's table of llama.cpp's architectures (else the
    /// generic transformer's rules, said in `Estimate::guesses`).
    pub architecture_known: bool,
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
    /// The buffer-type overrides (`-ot`, `--cpu-moe`, `--n-cpu-moe`, `--n-cpu-ffn`) in the order
    /// llama.cpp tries them, each with the tensors it placed; empty when none was given.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<TensorOverrideEstimate>,
    pub inputs: Vec<String>,
}

/// One buffer-type override and what it did: llama.cpp searches each tensor's name with the
/// overrides in order and the first that matches places the tensor, whatever its layer's place.
/// Where a buffer-type override puts its tensors: a key the views word (`GPU`, `host`), never a
/// label compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TensorPlace {
    Host,
    Gpu,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TensorOverrideEstimate {
    /// As given: `-ot exps=CPU`, `--n-cpu-moe 2`, `LLAMA_ARG_CPU_MOE=1`.
    pub given: String,
    /// The regular expression llama.cpp searches tensor names with (for `--n-cpu-moe N`, one per
    /// layer below N, written once with `I`).
    pub pattern: String,
    /// The buffer type named: `CPU`, or a device (`CUDA0`, `Vulkan0`).
    pub buffer_type: String,
    /// Where that puts the tensors (`host` or `gpu` in JSON).
    pub place: TensorPlace,
    /// Tensors this override placed (not those an earlier override had already placed).
    pub tensors: u32,
    /// Their bytes in the file.
    pub bytes: u64,
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
    /// The sparse-attention indexer's key (and, for MSA, value) cache, in `bytes` and in the
    /// device/host split but not in `k_bytes`/`v_bytes`/`full_bytes` (llama.cpp prints it as a
    /// cache of its own). Absent for models without an indexer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexer: Option<IndexerCache>,
    /// DeepSeek V4's compressed K caches and compressor states (`llama_kv_cache_dsv4`), each a
    /// line of its own in llama.cpp's log; in `bytes` and the device/host split, not in
    /// `k_bytes`/`full_bytes`. Empty for other models.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub compressed: Vec<CompressedCache>,
    pub type_k: String,
    pub type_v: String,
    pub inputs: Vec<String>,
}

/// One of DeepSeek V4's compressed caches or compressor states.
#[derive(Debug, Clone, Serialize)]
pub struct CompressedCache {
    /// `csa`, `hca` (compressed K caches) or `csa state`, `hca state`, `lid state` (f32).
    pub name: &'static str,
    /// Cells per stream (compressed caches) or state rows per stream (states).
    pub cells: u64,
    pub layers: u32,
    pub bytes: u64,
    /// Bytes per layer (0 where the layer keeps none), for the device shares.
    #[serde(skip)]
    pub per_layer: Vec<u64>,
}

/// A sparse-attention indexer cache (llama.cpp's `llama_kv_cache_dsa` / `llama_kv_cache_msa`).
#[derive(Debug, Clone, Serialize)]
pub struct IndexerCache {
    /// `dsa` (keys only) or `msa` (keys and a one-head value).
    pub kind: &'static str,
    pub bytes: u64,
    pub k_bytes: u64,
    pub v_bytes: u64,
    pub layers: u32,
    /// Elements cached per token and layer: one indexer key (`attention.indexer.key_length`),
    /// times the keys of a k-pool row (glm5-next's key | gate | pooled: 3).
    pub head_size: u64,
    /// Bytes per layer (0 where the layer keeps none), for the device shares.
    #[serde(skip)]
    pub per_layer: Vec<u64>,
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
    pub confidence: crate::Confidence,
    pub method: String,
    /// What the figure gets exactly as llama.cpp does.
    pub exact_parts: Vec<String>,
    /// What it approximates, and how (each view says it in its language; JSON keeps English).
    pub approximate_parts: Vec<Said>,
    /// The build-dependent rules, each with whether it applies and the change that introduced it.
    pub rules: Vec<String>,
    pub inputs: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OverheadEstimate {
    /// `None` when gpuledger has no figure for this backend (unknown, not zero).
    pub gpu_bytes: Option<u64>,
    pub approximate: bool,
    /// What the line is and where its figure comes from, as a sentence.
    pub what: Said,
    pub range: Option<(u64, u64)>,
}

/// One line of the estimate beside the runtime's own figure for it (never merged: both shown).
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// `weights`, `KV cache`, `output`, `compute`.
    pub line: &'static str,
    pub place: &'static str,
    /// `None` where the recipe does not model the line (`why_not_estimated` says why).
    pub estimated_bytes: Option<u64>,
    /// What llama.cpp logged (MiB with two decimals, converted to bytes); `None` when the log has
    /// no such line.
    pub reported_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_not_estimated: Option<&'static str>,
}
