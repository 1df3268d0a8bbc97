//! The rows of llama-server's flag table (see the parent module): b11434's `common/arg.cpp`,
//! every option llama-server accepts, grouped by what it does to memory, and a few rows for
//! older builds.

use super::{Apply, Effect, Flag, Takes};
use crate::estimate::settings::apply;
use crate::estimate::{devices, overrides};

const fn row(
    names: &'static [&'static str],
    env: &'static str,
    takes: Takes,
    effect: Effect,
) -> Flag {
    let env = if env.is_empty() { None } else { Some(env) };
    Flag {
        names,
        env,
        takes,
        effect,
    }
}
/// No effect on memory, with a value / a switch.
const fn nv(names: &'static [&'static str], env: &'static str) -> Flag {
    row(names, env, Takes::Value, Effect::NoEffect)
}
const fn ns(names: &'static [&'static str], env: &'static str) -> Flag {
    row(names, env, Takes::Nothing, Effect::NoEffect)
}
/// Changes memory, not modelled yet, with a value / a switch.
const fn uv(names: &'static [&'static str], env: &'static str) -> Flag {
    row(names, env, Takes::Value, Effect::NotModelled)
}
const fn us(names: &'static [&'static str], env: &'static str) -> Flag {
    row(names, env, Takes::Nothing, Effect::NotModelled)
}
/// Modelled, with a value / a switch.
const fn mv(names: &'static [&'static str], env: &'static str, f: Apply) -> Flag {
    row(names, env, Takes::Value, Effect::Modelled(f))
}
const fn ms(names: &'static [&'static str], env: &'static str, f: Apply) -> Flag {
    row(names, env, Takes::Nothing, Effect::Modelled(f))
}

/// The table (see the module's documentation).
pub static FLAGS: &[Flag] = &[
    // --- modelled: what the recipe reads -------------------------------------------------------
    mv(&["-m", "--model"], "LLAMA_ARG_MODEL", apply::model),
    mv(&["-c", "--ctx-size"], "LLAMA_ARG_CTX_SIZE", apply::ctx_size),
    mv(
        &["-np", "--parallel"],
        "LLAMA_ARG_N_PARALLEL",
        apply::parallel,
    ),
    ms(
        &["-kvu", "--kv-unified", "-no-kvu", "--no-kv-unified"],
        "LLAMA_ARG_KV_UNIFIED",
        apply::kv_unified,
    ),
    mv(
        &["-ngl", "--gpu-layers", "--n-gpu-layers"],
        "LLAMA_ARG_N_GPU_LAYERS",
        apply::gpu_layers,
    ),
    mv(&["-b", "--batch-size"], "LLAMA_ARG_BATCH", apply::batch),
    mv(&["-ub", "--ubatch-size"], "LLAMA_ARG_UBATCH", apply::ubatch),
    mv(
        &["-ctk", "--cache-type-k"],
        "LLAMA_ARG_CACHE_TYPE_K",
        apply::cache_type_k,
    ),
    mv(
        &["-ctv", "--cache-type-v"],
        "LLAMA_ARG_CACHE_TYPE_V",
        apply::cache_type_v,
    ),
    row(
        &["-fa", "--flash-attn"],
        "LLAMA_ARG_FLASH_ATTN",
        Takes::OptionalValue,
        Effect::Modelled(apply::flash_attn),
    ),
    ms(&["--swa-full"], "LLAMA_ARG_SWA_FULL", apply::swa_full),
    ms(
        &["-kvo", "--kv-offload", "-nkvo", "--no-kv-offload"],
        "LLAMA_ARG_KV_OFFLOAD",
        apply::kv_offload,
    ),
    mv(
        &["-lm", "--load-mode"],
        "LLAMA_ARG_LOAD_MODE",
        apply::load_mode,
    ),
    // Older builds (before -lm): --mmap / --no-mmap.
    ms(&["--mmap", "--no-mmap"], "", apply::mmap),
    // Buffer-type overrides: tensors by name on the host or a device, MoE experts and dense
    // FFNs of the first layers on the host (in this order: the environment's are read in it).
    mv(
        &["-ot", "--override-tensor"],
        "LLAMA_ARG_OVERRIDE_TENSOR",
        overrides::override_tensor,
    ),
    ms(
        &["-cmoe", "--cpu-moe"],
        "LLAMA_ARG_CPU_MOE",
        overrides::cpu_moe,
    ),
    mv(
        &["-ncmoe", "--n-cpu-moe"],
        "LLAMA_ARG_N_CPU_MOE",
        overrides::n_cpu_moe,
    ),
    mv(
        &["-ncffn", "--n-cpu-ffn"],
        "LLAMA_ARG_N_CPU_FFN",
        overrides::n_cpu_ffn,
    ),
    // Several devices: RPC servers, the split mode, the proportions, the main device.
    mv(&["--rpc"], "LLAMA_ARG_RPC", devices::rpc),
    mv(
        &["-sm", "--split-mode"],
        "LLAMA_ARG_SPLIT_MODE",
        devices::split_mode,
    ),
    mv(
        &["-ts", "--tensor-split"],
        "LLAMA_ARG_TENSOR_SPLIT",
        devices::tensor_split,
    ),
    mv(
        &["-mg", "--main-gpu"],
        "LLAMA_ARG_MAIN_GPU",
        devices::main_gpu,
    ),
    // Fitting unset settings to free memory (replayed when free memory is known).
    row(
        &["-fit", "--fit"],
        "LLAMA_ARG_FIT",
        Takes::OptionalValue,
        Effect::Modelled(apply::fit),
    ),
    mv(
        &["-fitt", "--fit-target"],
        "LLAMA_ARG_FIT_TARGET",
        apply::fit_target,
    ),
    mv(&["-fitc", "--fit-ctx"], "LLAMA_ARG_FIT_CTX", apply::fit_ctx),
    // --- change memory, not modelled yet -------------------------------------------------------
    // Placement: devices, splits, automatic fitting, host buffers and repacking.
    uv(&["-dev", "--device"], "LLAMA_ARG_DEVICE"),
    us(&["--repack", "-nr", "--no-repack"], "LLAMA_ARG_REPACK"),
    us(&["--no-host"], "LLAMA_ARG_NO_HOST"),
    us(&["--op-offload", "--no-op-offload"], ""),
    uv(&["-lzm", "--lazy-mode"], "LLAMA_ARG_LAZY_MODE"),
    // The cache beyond -c/-np: per-slot limits, checkpoints, the host prompt cache.
    uv(&["--kv-unified-per-slot"], "LLAMA_ARG_KV_UNIFIED_PER_SLOT"),
    uv(
        &["-ctxcp", "--ctx-checkpoints", "--swa-checkpoints"],
        "LLAMA_ARG_CTX_CHECKPOINTS",
    ),
    uv(&["-cram", "--cache-ram"], "LLAMA_ARG_CACHE_RAM"),
    // Outputs other than logits, sampling on the device.
    us(&["--embedding", "--embeddings"], "LLAMA_ARG_EMBEDDINGS"),
    us(&["--rerank", "--reranking"], "LLAMA_ARG_RERANKING"),
    uv(&["--pooling"], "LLAMA_ARG_POOLING"),
    us(&["-bs", "--backend-sampling"], "LLAMA_ARG_BACKEND_SAMPLING"),
    // The model from elsewhere, or changed: downloads, metadata overrides, adapters, presets.
    uv(&["-mu", "--model-url"], "LLAMA_ARG_MODEL_URL"),
    uv(&["-dr", "--docker-repo"], "LLAMA_ARG_DOCKER_REPO"),
    uv(&["-hf", "-hfr", "--hf-repo"], "LLAMA_ARG_HF_REPO"),
    uv(&["-hff", "--hf-file"], "LLAMA_ARG_HF_FILE"),
    uv(&["--override-kv"], ""),
    uv(&["--lora"], ""),
    uv(&["--lora-scaled"], ""),
    uv(&["--control-vector"], ""),
    uv(&["--control-vector-scaled"], ""),
    row(
        &["--control-vector-layer-range"],
        "",
        Takes::TwoValues,
        Effect::NotModelled,
    ),
    us(&["--embd-gemma-default"], ""),
    us(&["--fim-qwen-1.5b-default"], ""),
    us(&["--fim-qwen-3b-default"], ""),
    us(&["--fim-qwen-7b-default"], ""),
    us(&["--fim-qwen-7b-spec"], ""),
    us(&["--fim-qwen-14b-spec"], ""),
    us(&["--fim-qwen-30b-default"], ""),
    us(&["--gpt-oss-20b-default"], ""),
    us(&["--gpt-oss-120b-default"], ""),
    us(&["--vision-gemma-4b-default"], ""),
    us(&["--vision-gemma-12b-default"], ""),
    // Router mode: the server loads models in child processes.
    uv(&["--models-dir"], "LLAMA_ARG_MODELS_DIR"),
    uv(&["--models-preset"], "LLAMA_ARG_MODELS_PRESET"),
    uv(&["--models-max"], "LLAMA_ARG_MODELS_MAX"),
    us(
        &["--models-autoload", "--no-models-autoload"],
        "LLAMA_ARG_MODELS_AUTOLOAD",
    ),
    // A multimodal projector.
    uv(&["-mm", "--mmproj"], "LLAMA_ARG_MMPROJ"),
    uv(&["-mmu", "--mmproj-url"], "LLAMA_ARG_MMPROJ_URL"),
    us(
        &["--mmproj-auto", "--no-mmproj", "--no-mmproj-auto"],
        "LLAMA_ARG_MMPROJ_AUTO",
    ),
    us(
        &["--mmproj-offload", "--no-mmproj-offload"],
        "LLAMA_ARG_MMPROJ_OFFLOAD",
    ),
    uv(&["-mmdev", "--mmproj-device"], "MTMD_BACKEND_DEVICE"),
    uv(&["--image-min-tokens"], "LLAMA_ARG_IMAGE_MIN_TOKENS"),
    uv(&["--image-max-tokens"], "LLAMA_ARG_IMAGE_MAX_TOKENS"),
    uv(
        &["--mtmd-batch-max-tokens"],
        "LLAMA_ARG_MTMD_BATCH_MAX_TOKENS",
    ),
    // A draft model (speculative decoding) and its placement and cache; an MTP/draft context.
    uv(&["--spec-type"], "LLAMA_ARG_SPEC_TYPE"),
    uv(
        &["--spec-draft-model", "-md", "--model-draft"],
        "LLAMA_ARG_SPEC_DRAFT_MODEL",
    ),
    uv(
        &["--spec-draft-hf", "-hfd", "-hfrd", "--hf-repo-draft"],
        "LLAMA_ARG_SPEC_DRAFT_HF_REPO",
    ),
    uv(
        &[
            "--spec-draft-ngl",
            "-ngld",
            "--gpu-layers-draft",
            "--n-gpu-layers-draft",
        ],
        "LLAMA_ARG_N_GPU_LAYERS_DRAFT",
    ),
    uv(
        &["--spec-draft-type-k", "-ctkd", "--cache-type-k-draft"],
        "LLAMA_ARG_SPEC_DRAFT_CACHE_TYPE_K",
    ),
    uv(
        &["--spec-draft-type-v", "-ctvd", "--cache-type-v-draft"],
        "LLAMA_ARG_SPEC_DRAFT_CACHE_TYPE_V",
    ),
    uv(&["--spec-draft-device", "-devd", "--device-draft"], ""),
    uv(
        &[
            "--spec-draft-override-tensor",
            "-otd",
            "--override-tensor-draft",
        ],
        "",
    ),
    us(
        &["--spec-draft-cpu-moe", "-cmoed", "--cpu-moe-draft"],
        "LLAMA_ARG_SPEC_DRAFT_CPU_MOE",
    ),
    uv(
        &[
            "--spec-draft-n-cpu-moe",
            "--spec-draft-ncmoe",
            "-ncmoed",
            "--n-cpu-moe-draft",
        ],
        "LLAMA_ARG_SPEC_DRAFT_N_CPU_MOE",
    ),
    // --- no effect on memory --------------------------------------------------------------------
    // What the program does instead of serving.
    ns(&["-h", "--help", "--usage"], ""),
    ns(&["--version"], ""),
    ns(&["-cl", "--cache-list"], ""),
    ns(&["--completion-bash"], ""),
    ns(&["--list-devices"], ""),
    // CPU threads, affinity and priority.
    nv(&["-t", "--threads"], "LLAMA_ARG_THREADS"),
    nv(&["-tb", "--threads-batch"], ""),
    nv(&["-C", "--cpu-mask"], ""),
    nv(&["-Cr", "--cpu-range"], ""),
    nv(&["--cpu-strict"], ""),
    nv(&["--prio"], ""),
    nv(&["--poll"], ""),
    nv(&["-Cb", "--cpu-mask-batch"], ""),
    nv(&["-Crb", "--cpu-range-batch"], ""),
    nv(&["--cpu-strict-batch"], ""),
    nv(&["--prio-batch"], ""),
    nv(&["--poll-batch"], ""),
    nv(&["--numa"], "LLAMA_ARG_NUMA"),
    nv(&["--spec-draft-threads", "-td", "--threads-draft"], ""),
    nv(
        &[
            "--spec-draft-threads-batch",
            "-tbd",
            "--threads-batch-draft",
        ],
        "",
    ),
    nv(&["--spec-draft-cpu-mask", "-Cd", "--cpu-mask-draft"], ""),
    nv(&["--spec-draft-cpu-range", "-Crd", "--cpu-range-draft"], ""),
    nv(&["--spec-draft-cpu-strict", "--cpu-strict-draft"], ""),
    nv(&["--spec-draft-prio", "--prio-draft"], ""),
    nv(&["--spec-draft-poll", "--poll-draft"], ""),
    nv(
        &[
            "--spec-draft-cpu-mask-batch",
            "-Cbd",
            "--cpu-mask-batch-draft",
        ],
        "",
    ),
    nv(
        &["--spec-draft-cpu-strict-batch", "--cpu-strict-batch-draft"],
        "",
    ),
    nv(&["--spec-draft-prio-batch", "--prio-batch-draft"], ""),
    nv(&["--spec-draft-poll-batch", "--poll-batch-draft"], ""),
    // Generation, slots and the context's use (not its size).
    nv(&["-n", "--predict", "--n-predict"], "LLAMA_ARG_N_PREDICT"),
    nv(&["--keep"], ""),
    nv(
        &["-cms", "--checkpoint-min-step"],
        "LLAMA_ARG_CHECKPOINT_MIN_SPACING_NT",
    ),
    ns(
        &["--cache-idle-slots", "--no-cache-idle-slots"],
        "LLAMA_ARG_CACHE_IDLE_SLOTS",
    ),
    ns(
        &["--context-shift", "--no-context-shift"],
        "LLAMA_ARG_CONTEXT_SHIFT",
    ),
    ns(&["--perf", "--no-perf"], "LLAMA_ARG_PERF"),
    ns(&["-e", "--escape", "--no-escape"], ""),
    nv(&["-r", "--reverse-prompt"], ""),
    ns(&["-sp", "--special"], ""),
    ns(&["--warmup", "--no-warmup"], ""),
    ns(&["--spm-infill"], ""),
    nv(&["-dt", "--defrag-thold"], "LLAMA_ARG_DEFRAG_THOLD"),
    ns(
        &["-cb", "--cont-batching", "-nocb", "--no-cont-batching"],
        "LLAMA_ARG_CONT_BATCHING",
    ),
    nv(&["-sps", "--slot-prompt-similarity"], ""),
    ns(
        &["--cache-prompt", "--no-cache-prompt"],
        "LLAMA_ARG_CACHE_PROMPT",
    ),
    nv(&["--cache-reuse"], "LLAMA_ARG_CACHE_REUSE"),
    nv(&["--slot-save-path"], ""),
    nv(&["--sleep-idle-seconds"], ""),
    // Sampling.
    nv(&["--samplers"], ""),
    nv(&["-s", "--seed"], ""),
    nv(&["--sampler-seq", "--sampling-seq"], ""),
    ns(&["--ignore-eos"], ""),
    nv(&["--temp", "--temperature"], "LLAMA_ARG_TEMPERATURE"),
    nv(&["--top-k"], "LLAMA_ARG_TOP_K"),
    nv(&["--top-p"], "LLAMA_ARG_TOP_P"),
    nv(&["--min-p"], "LLAMA_ARG_MIN_P"),
    nv(&["--top-nsigma", "--top-n-sigma"], ""),
    nv(&["--xtc-probability"], ""),
    nv(&["--xtc-threshold"], ""),
    nv(&["--typical", "--typical-p"], ""),
    nv(&["--repeat-last-n"], ""),
    nv(&["--repeat-penalty"], "LLAMA_ARG_REPEAT_PENALTY"),
    nv(&["--presence-penalty"], "LLAMA_ARG_PRESENCE_PENALTY"),
    nv(&["--frequency-penalty"], "LLAMA_ARG_FREQUENCY_PENALTY"),
    nv(&["--dry-multiplier"], ""),
    nv(&["--dry-base"], ""),
    nv(&["--dry-allowed-length"], ""),
    nv(&["--dry-penalty-last-n"], ""),
    nv(&["--dry-sequence-breaker"], ""),
    nv(&["--adaptive-target"], ""),
    nv(&["--adaptive-decay"], ""),
    nv(&["--dynatemp-range"], ""),
    nv(&["--dynatemp-exp"], ""),
    nv(&["--mirostat"], ""),
    nv(&["--mirostat-lr"], ""),
    nv(&["--mirostat-ent"], ""),
    nv(&["-l", "--logit-bias"], ""),
    nv(&["--grammar"], ""),
    nv(&["--grammar-file"], ""),
    nv(&["-j", "--json-schema"], ""),
    nv(&["-jf", "--json-schema-file"], ""),
    // Speculative decoding without a model of its own (n-gram lookups), and draft tuning.
    nv(&["-lcs", "--lookup-cache-static"], ""),
    nv(&["-lcd", "--lookup-cache-dynamic"], ""),
    nv(&["--spec-draft-n-max"], "LLAMA_ARG_SPEC_DRAFT_N_MAX"),
    nv(&["--spec-draft-n-min"], "LLAMA_ARG_SPEC_DRAFT_N_MIN"),
    nv(&["--spec-synth-len"], "LLAMA_ARG_SPEC_SYNTH_LEN"),
    nv(&["--spec-synth-rates"], "LLAMA_ARG_SPEC_SYNTH_RATES"),
    nv(
        &["--spec-draft-p-split", "--draft-p-split"],
        "LLAMA_ARG_SPEC_DRAFT_P_SPLIT",
    ),
    nv(
        &["--spec-draft-p-min", "--draft-p-min"],
        "LLAMA_ARG_SPEC_DRAFT_P_MIN",
    ),
    ns(
        &[
            "--spec-draft-backend-sampling",
            "--no-spec-draft-backend-sampling",
        ],
        "LLAMA_ARG_SPEC_DRAFT_BACKEND_SAMPLING",
    ),
    nv(&["--spec-draft-sampling"], "LLAMA_ARG_SPEC_DRAFT_SAMPLING"),
    nv(&["--spec-ngram-mod-n-min"], ""),
    nv(&["--spec-ngram-mod-n-max"], ""),
    nv(&["--spec-ngram-mod-n-match"], ""),
    nv(&["--spec-ngram-simple-size-n"], ""),
    nv(&["--spec-ngram-simple-size-m"], ""),
    nv(&["--spec-ngram-simple-min-hits"], ""),
    nv(&["--spec-ngram-map-k-size-n"], ""),
    nv(&["--spec-ngram-map-k-size-m"], ""),
    nv(&["--spec-ngram-map-k-min-hits"], ""),
    nv(&["--spec-ngram-map-k4v-size-n"], ""),
    nv(&["--spec-ngram-map-k4v-size-m"], ""),
    nv(&["--spec-ngram-map-k4v-min-hits"], ""),
    ns(&["--spec-default"], ""),
    // Removed in b11434 (it refuses them with a hint); older builds took them.
    nv(
        &["--draft", "--draft-n", "--draft-max"],
        "LLAMA_ARG_DRAFT_MAX",
    ),
    nv(&["--draft-min", "--draft-n-min"], "LLAMA_ARG_DRAFT_MIN"),
    nv(&["--spec-ngram-size-n"], ""),
    nv(&["--spec-ngram-size-m"], ""),
    nv(&["--spec-ngram-min-hits"], ""),
    // RoPE and YaRN scaling (the context's positions, not its size).
    nv(&["--rope-scaling"], "LLAMA_ARG_ROPE_SCALING_TYPE"),
    nv(&["--rope-scale"], "LLAMA_ARG_ROPE_SCALE"),
    nv(&["--rope-freq-base"], "LLAMA_ARG_ROPE_FREQ_BASE"),
    nv(&["--rope-freq-scale"], "LLAMA_ARG_ROPE_FREQ_SCALE"),
    nv(&["--yarn-orig-ctx"], "LLAMA_ARG_YARN_ORIG_CTX"),
    nv(&["--yarn-ext-factor"], "LLAMA_ARG_YARN_EXT_FACTOR"),
    nv(&["--yarn-attn-factor"], "LLAMA_ARG_YARN_ATTN_FACTOR"),
    nv(&["--yarn-beta-slow"], "LLAMA_ARG_YARN_BETA_SLOW"),
    nv(&["--yarn-beta-fast"], "LLAMA_ARG_YARN_BETA_FAST"),
    // Model files checked, named or fetched with credentials; media.
    ns(&["--check-tensors"], ""),
    ns(&["--lora-init-without-apply"], ""),
    nv(&["-a", "--alias"], "LLAMA_ARG_ALIAS"),
    nv(&["--tags"], "LLAMA_ARG_TAGS"),
    nv(&["-hft", "--hf-token"], "HF_TOKEN"),
    ns(&["--offline"], "LLAMA_ARG_OFFLINE"),
    nv(&["--embd-normalize"], ""),
    nv(&["--video-fps"], "LLAMA_ARG_VIDEO_FPS"),
    nv(
        &["--video-timestamp-interval"],
        "LLAMA_ARG_VIDEO_TIMESTAMP_INTERVAL",
    ),
    nv(&["--video-ffmpeg-dir"], "LLAMA_ARG_VIDEO_FFMPEG_DIR"),
    nv(&["--media-path"], ""),
    // The HTTP server, its endpoints, keys, web UI and tools.
    nv(&["--host"], "LLAMA_ARG_HOST"),
    nv(&["--port"], "LLAMA_ARG_PORT"),
    ns(&["--reuse-port"], "LLAMA_ARG_REUSE_PORT"),
    nv(&["--path"], "LLAMA_ARG_STATIC_PATH"),
    nv(&["--cors-origins"], "LLAMA_ARG_CORS_ORIGINS"),
    nv(&["--cors-methods"], "LLAMA_ARG_CORS_METHODS"),
    nv(&["--cors-headers"], "LLAMA_ARG_CORS_HEADERS"),
    ns(
        &["--cors-credentials", "--no-cors-credentials"],
        "LLAMA_ARG_CORS_CREDENTIALS",
    ),
    nv(&["--api-prefix"], "LLAMA_ARG_API_PREFIX"),
    nv(&["--api-key"], "LLAMA_API_KEY"),
    nv(&["--api-key-file"], "LLAMA_ARG_API_KEY_FILE"),
    nv(&["--ssl-key-file"], "LLAMA_ARG_SSL_KEY_FILE"),
    nv(&["--ssl-cert-file"], "LLAMA_ARG_SSL_CERT_FILE"),
    nv(&["-to", "--timeout"], "LLAMA_ARG_TIMEOUT"),
    nv(&["--sse-ping-interval"], "LLAMA_ARG_SSE_PING_INTERVAL"),
    nv(&["--threads-http"], "LLAMA_ARG_THREADS_HTTP"),
    ns(&["--metrics"], "LLAMA_ARG_ENDPOINT_METRICS"),
    ns(&["--props"], "LLAMA_ARG_ENDPOINT_PROPS"),
    ns(&["--slots", "--no-slots"], "LLAMA_ARG_ENDPOINT_SLOTS"),
    ns(
        &["--ui", "--webui", "--no-ui", "--no-webui"],
        "LLAMA_ARG_UI",
    ),
    nv(&["--ui-config", "--webui-config"], "LLAMA_ARG_UI_CONFIG"),
    nv(
        &["--ui-config-file", "--webui-config-file"],
        "LLAMA_ARG_UI_CONFIG_FILE",
    ),
    ns(
        &[
            "--ui-mcp-proxy",
            "--webui-mcp-proxy",
            "--no-ui-mcp-proxy",
            "--no-webui-mcp-proxy",
        ],
        "LLAMA_ARG_UI_MCP_PROXY",
    ),
    nv(&["--tools"], "LLAMA_ARG_TOOLS"),
    nv(&["--tools-runtime"], "LLAMA_ARG_TOOLS_RUNTIME"),
    nv(&["--mcp-servers-config"], "LLAMA_ARG_MCP_SERVERS_CONFIG"),
    nv(&["--mcp-servers-json"], "LLAMA_ARG_MCP_SERVERS_JSON"),
    ns(
        &["-ag", "--agent", "-no-ag", "--no-agent"],
        "LLAMA_ARG_AGENT",
    ),
    // Chat templates and reasoning.
    ns(&["--jinja", "--no-jinja"], "LLAMA_ARG_JINJA"),
    nv(&["--chat-template"], "LLAMA_ARG_CHAT_TEMPLATE"),
    nv(&["--chat-template-file"], "LLAMA_ARG_CHAT_TEMPLATE_FILE"),
    nv(
        &["--chat-template-kwargs"],
        "LLAMA_ARG_CHAT_TEMPLATE_KWARGS",
    ),
    ns(
        &["--skip-chat-parsing", "--no-skip-chat-parsing"],
        "LLAMA_ARG_SKIP_CHAT_PARSING",
    ),
    ns(
        &["--prefill-assistant", "--no-prefill-assistant"],
        "LLAMA_ARG_PREFILL_ASSISTANT",
    ),
    nv(&["--reasoning-format"], "LLAMA_ARG_THINK"),
    nv(&["-rea", "--reasoning"], "LLAMA_ARG_REASONING"),
    nv(&["--reasoning-effort"], "LLAMA_ARG_REASONING_EFFORT"),
    nv(&["--reasoning-budget"], "LLAMA_ARG_THINK_BUDGET"),
    nv(
        &["--reasoning-budget-message"],
        "LLAMA_ARG_THINK_BUDGET_MESSAGE",
    ),
    ns(
        &["--reasoning-preserve", "--no-reasoning-preserve"],
        "LLAMA_ARG_REASONING_PRESERVE",
    ),
    // Logging.
    ns(&["--log-disable"], ""),
    nv(&["--log-file"], "LLAMA_ARG_LOG_FILE"),
    ns(&["--log-jsonl", "--no-log-jsonl"], "LLAMA_ARG_LOG_JSONL"),
    nv(&["--log-prompts-dir"], ""),
    nv(&["--log-colors"], "LLAMA_ARG_LOG_COLORS"),
    ns(&["-v", "--verbose", "--log-verbose"], ""),
    nv(
        &["-lv", "--verbosity", "--log-verbosity"],
        "LLAMA_ARG_LOG_VERBOSITY",
    ),
    ns(&["--log-prefix", "--no-log-prefix"], "LLAMA_ARG_LOG_PREFIX"),
    ns(
        &["--log-timestamps", "--no-log-timestamps"],
        "LLAMA_ARG_LOG_TIMESTAMPS",
    ),
    // Older builds, not in b11434: locking pages (host residency, not size), the KV-cache dump,
    // self-extend's group attention (positions, not cache size).
    ns(&["--mlock"], ""),
    ns(&["-dkvc", "--dump-kv-cache"], ""),
    nv(&["-gan", "--grp-attn-n"], ""),
    nv(&["-gaw", "--grp-attn-w"], ""),
];

/// The names of rows for older builds (not in b11434's `arg.cpp`).
pub const OLDER_BUILDS: &[&str] = &[
    "--mmap",
    "--no-mmap",
    "--mlock",
    "-dkvc",
    "--dump-kv-cache",
    "-gan",
    "--grp-attn-n",
    "-gaw",
    "--grp-attn-w",
];
