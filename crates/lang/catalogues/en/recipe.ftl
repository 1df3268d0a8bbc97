# The memory recipes' sentences (crates/workloads/src/estimate): an estimate's inputs (where a
# default came from, what was assumed) and its notes. Made where the estimate is made; JSON keeps
# this English, each view says it in its reader's language.

## Where a default came from (an input's source)
recipe-not-given = { $flag } not given: { $default }
recipe-default-ctx-train = 0 = the model's training context
recipe-default-np-auto = -1 = auto: 4 slots, unified cache
recipe-default-kvu-auto = unified when -np is auto
recipe-default-kv-follows-layer = KV follows its layer
recipe-default-logits-only = logits only
recipe-default-build-unknown = unknown: the newest rules
recipe-default-no-rpc = no RPC servers
recipe-default-one-gpu = one local GPU
recipe-default-by-free-memory = by free memory
recipe-default-unknown = unknown
recipe-default-on = on
recipe-default-fit-target = { $mib } MiB per device
recipe-default-no-device = no device seen: { $backend }
recipe-default-vendor-of = vendor of { $device }
recipe-default-rpc-only = no local GPU seen: the RPC servers only
recipe-tool-one-sequence = { $tool }: one sequence (common_params n_parallel = 1)
recipe-tool-not-unified = { $tool }: kv_unified = false (common_params)
recipe-unified-np-auto = unified because -np is auto
recipe-unified-np-1-became-4 = unified: llama-server turned -np 1 into 4 unified slots
recipe-one-slot-no-np-auto = 1 slot: this llama.cpp build has no -np auto (rule np-auto)
recipe-per-slot-caches = per-slot caches when -np is given
recipe-fa-off-old-build = off: this llama.cpp build predates -fa auto (rule fa-auto)

## What was assumed
recipe-fa-auto-enabled = -fa auto resolves to enabled when every layer's KV sits with its layer (llama-server logs "Flash Attention was auto, set to enabled")
recipe-build-unknown = no llama.cpp build given (--llama-build or the server's /props build_info): the newest rules are used

## Notes
recipe-ngl-auto-all-fit = -ngl auto: assumed everything fits; llama-server's --fit may offload fewer layers or shrink an unset -c when free memory is short
recipe-np-1-became-4 = -np 1 became 4 slots sharing one unified cache: this llama.cpp build's llama-server does so unless -kvu is given ("setting n_parallel = 4 and kv_unified = true"; not with a draft model, which is not modelled here)
recipe-fit-not-replayed-host = --fit on (llama-server's default) not replayed: with no device it budgets the host's total memory, which is not known here (give --free SIZE)
recipe-fit-not-replayed = --fit on (llama-server's default) not replayed: the free memory of each of the { $count } devices is not known here (give --free SIZE,... in llama.cpp's device order: { $devices })

## The overhead line
recipe-overhead-cuda = CUDA context, kernels and cuBLAS workspace of the process (not a llama.cpp buffer; typically 128–512 MiB by GPU, driver and CUDA_MODULE_LOADING)
recipe-overhead-rocm = HIP context, kernels and hipBLAS workspace of the process (not a llama.cpp buffer; CUDA's typical 128–512 MiB assumed, not measured on ROCm)
recipe-overhead-metal = Metal device overhead: no figure (unified memory)
recipe-overhead-vulkan = Vulkan driver overhead: no figure for this backend
recipe-overhead-cpu = no GPU device

## Why this much (one sentence per process)
recipe-why-llama = { $model }: { $weights } weights ({ $gpu_layers }/{ $layers } layers on the GPU), { $kv } KV cache for { $tokens } tokens{ $slots } ({ $type_k }/{ $type_v }), { $compute } compute buffers
recipe-why-slots-shared = , shared by { $slots } slots
recipe-why-slots-each = { " " }per slot × { $slots } slots
recipe-why-and-placement = { $why }; { $placement }
recipe-why-runtime = { $lead }: { $weights } weights, { $kv } KV cache for { $tokens } tokens × { $slots } { $slots ->
    [one] slot
   *[other] slots
}

## vLLM's why (runtimes/vllm/estimate.rs)
recipe-rank-share = { " " }(rank share of { $ranks })
recipe-vllm-util = `--gpu-memory-utilization { $value }`, { $from }
recipe-vllm-util-default = the default
recipe-vllm-util-flag = from its command line
recipe-vllm-util-metrics = from its /metrics
recipe-vllm-util-log = from its start-up log
recipe-vllm-rest-eager = activations (no CUDA graphs: --enforce-eager)
recipe-rest-activations-graphs = activations and CUDA graphs
recipe-vllm-kv-bytes = { $kv } KV cache ({ $source })
recipe-vllm-kv-blocks = { $kv } KV cache in { $blocks } blocks of { $block } tokens{ $groups }
recipe-vllm-kv-groups = , { $tokens } tokens over { $groups } KV groups
recipe-vllm-why-contradiction-kv = The estimate contradicts itself: { $weights } weights{ $ranks } and { $kv_how } exceed what vLLM reserves, { $pct } of this GPU ({ $reserved }, { $util }). One input is not what vLLM used: the device, the utilisation, the model folder or the KV cache's data type.
recipe-vllm-why-contradiction = The estimate contradicts itself: { $weights } weights{ $ranks } exceed what vLLM reserves, { $pct } of this GPU ({ $reserved }, { $util }). One input is not what vLLM used: the device, the utilisation, the model folder or the KV cache's data type.
recipe-vllm-why-reserves = vLLM reserves { $pct } of this GPU ({ $util }): { $weights } weights{ $ranks }, { $kv_how }, the rest ({ $rest }) { $rest_label }.
recipe-vllm-why-reserves-no-blocks = vLLM reserves { $pct } of this GPU ({ $util }): { $weights } weights{ $ranks }; the rest ({ $rest }) holds the KV cache and { $rest_label } (the block count is not known here).
recipe-vllm-why-no-size-kv = vLLM reserves { $pct } of its GPU ({ $util }), but the GPU's size is not known here: { $weights } weights{ $ranks }, { $kv_how }.
recipe-vllm-why-no-size = vLLM reserves { $pct } of its GPU ({ $util }), but the GPU's size is not known here: { $weights } weights{ $ranks }.
recipe-vllm-why-kv-bytes = vLLM holds { $weights } weights{ $ranks } and { $kv_how }, which replaces the --gpu-memory-utilization reservation; { $rest_label } come on top.

## SGLang's why (runtimes/sglang/mod.rs)
recipe-sglang-kv = { $kv } KV cache for { $tokens } tokens
recipe-sglang-kv-left = the KV pool in what is left (at most { $most }; its token count is not known here)
recipe-sglang-kv-unknown = the KV pool (size not known here)
recipe-sglang-why-contradiction-kv = The estimate contradicts itself: { $weights } weights{ $ranks } and { $kv } KV cache exceed SGLang's static pool, { $pct } of this GPU ({ $pool }, `--mem-fraction-static { $fraction }`). One input is not what SGLang used: the device, the fraction, the model folder or the KV cache's data type.
recipe-sglang-why-contradiction = The estimate contradicts itself: { $weights } weights{ $ranks } exceed SGLang's static pool, { $pct } of this GPU ({ $pool }, `--mem-fraction-static { $fraction }`). One input is not what SGLang used: the device, the fraction, the model folder or the KV cache's data type.
recipe-sglang-why-pool = SGLang keeps { $pct } of this GPU as a static pool (`--mem-fraction-static { $fraction }`): { $weights } weights{ $ranks }, { $kv_words }; activations and CUDA graphs come on top, from the remaining { $remaining }.
recipe-sglang-why-pool-server = SGLang keeps { $pct } of this GPU as a static pool (`--mem-fraction-static { $fraction }`, from its server info): { $weights } weights{ $ranks }, { $kv_words }; activations and CUDA graphs come on top, from the remaining { $remaining }.
recipe-sglang-why-no-fraction = SGLang holds { $weights } weights{ $ranks } and { $kv_words } in a static pool whose fraction of the GPU is not known here; activations and CUDA graphs come on top.

## PyTorch's why (runtimes/pytorch/mod.rs)
recipe-pytorch-why = This PyTorch program has { $weights } of weights open in { $files } file(s); activations and the caching allocator's reserve come on top and cannot be sized from outside.
recipe-pytorch-why-context = This PyTorch program has { $weights } of weights open in { $files } file(s), plus a { $context } CUDA context; activations and the caching allocator's reserve come on top and cannot be sized from outside.
recipe-pytorch-why-comfyui = ComfyUI has { $weights } of weights open in { $files } file(s); activations and the caching allocator's reserve come on top and cannot be sized from outside.
recipe-pytorch-why-comfyui-context = ComfyUI has { $weights } of weights open in { $files } file(s), plus a { $context } CUDA context; activations and the caching allocator's reserve come on top and cannot be sized from outside.

## The flags the recipe did not use (estimate/flags)
recipe-flags-unmodelled = changes memory, not modelled yet (the estimate may be off): { $flags }
recipe-flags-no-effect = no effect on memory: { $flags }
recipe-flags-unknown = unknown flags, ignored (not llama-server flags of b11434 or older builds): { $flags }

## What the model's header says (estimate/hparams, estimate/indexer)
recipe-note-vocab-unknown = vocabulary size unknown: output buffer not estimated
recipe-note-mtp-skipped = { $count } next-token-prediction (MTP) layer(s) after layer { $after }: { $arch }'s load_arch_tensors skips their tensors without --spec-type draft-mtp (TENSOR_SKIP), so they are left out of the weights; nor does the cache or the graph have them
recipe-note-mla = MLA: the cache holds the compressed latent (key_length = kv_lora_rank + rope dims); V is a view of K in current llama.cpp, so V adds no bytes
recipe-note-mla-old-conversion = kv_lora_rank present without *_mla lengths: an older conversion (no split attn_k_b/attn_v_b, one attn_kv_b) that llama.cpp runs without MLA, its cache holding full per-head K/V (several times larger than an MLA conversion; the KV cache line is sized so). Approximate: the compute buffer is modelled with the standard attention's tensors (attn_q/attn_k/attn_v), not this file's attn_kv_a_mqa + attn_kv_b decompression
recipe-note-exaone4-no-swa = exaone4 with { $layers } layers: llama.cpp uses no sliding window below 64 layers (llama_model_exaone4::load_arch_hparams), whatever attention.sliding_window says: every layer keeps the full context
recipe-note-phi3-no-swa = phi3: llama.cpp switches the file's sliding window off (llama_model_phi3::load_arch_hparams): every layer keeps the full context
recipe-note-chunked = { $arch }: chunked attention (LLAMA_SWA_TYPE_CHUNKED) over { $tokens } tokens; llama.cpp sizes its cache like a sliding window's
recipe-note-swa-pattern-unknown = { $arch }.attention.sliding_window is set but gpuledger does not know llama.cpp's layer pattern for { $arch }: every layer is counted as full-context (an upper bound)
recipe-note-indexer-unknown = { $arch } has a sparse-attention indexer (attention.indexer.*) whose cache gpuledger does not model: the KV cache line leaves the indexer's keys out (too low), and the compute buffer has no indexer graph
recipe-note-state-keys-missing = { $arch }: the recurrent layers' size keys (ssm.*, wkv.*, kda.*, shortconv.*) are missing: the recurrent state is not estimated

## What a runtime's recipe does not size (not_modelled)
recipe-nm-device-total = the reservation: the device's total memory is not known
recipe-nm-cuda-context = the CUDA context (run `gpuledger probe --save` to measure it on this machine)
recipe-vllm-nm-rest = how the rest of the reservation splits into { $label }, the CUDA context and NCCL buffers (vLLM profiles it at start-up)
recipe-vllm-nm-blocks = the KV block count: vLLM sizes it at start-up from the profiled activation peak; its /metrics (vllm:cache_config_info num_gpu_blocks) or start-up log says it
recipe-sglang-nm-tokens = the KV pool's token count: SGLang sizes it at start-up from what the static pool has left after the weights; its log (KV Cache is allocated. #tokens) or /get_server_info says it
recipe-sglang-nm-activations = activations and CUDA graphs: outside the static pool, in the rest of the GPU
recipe-sglang-nm-fraction = the static pool's fraction: not on the command line, so SGLang chose it from the GPU's size at start-up; its /get_server_info says it
recipe-pytorch-nm-allocator = the caching allocator's reserve beyond live tensors (PYTORCH_CUDA_ALLOC_CONF={ $conf })
recipe-pytorch-nm-allocator-default = the caching allocator's reserve beyond live tensors (PYTORCH_CUDA_ALLOC_CONF not set: default segments)
recipe-pytorch-nm-activations = activations, gradients, optimizer state and any KV cache: the program's own, not visible from outside
recipe-pytorch-nm-offload = whether every open weight file is on the GPU (a file can be loaded to the CPU, or offloaded)
recipe-vllm-nm-pipeline = the pipeline stage's own layers: the weights are split evenly over { $stages } stages (the embeddings on the first, the output head on the last are counted as spread) and the KV cache is sized for the largest stage's ⌈layers / { $stages }⌉ layers, a ceiling for the others
recipe-vllm-nm-expert-parallel = expert parallelism (--enable-expert-parallel): the { $experts } experts per layer spread over { $ranks } ranks (TP { $tp } × DP { $dp }) instead of split by TP; the weights are all ÷ TP here

## The runtime ledgers' rows: what the compute row holds, where the overhead is
recipe-vllm-rest-row = { $label } (rest of the reservation)
recipe-vllm-overhead-inside = inside the reservation (CUDA context, NCCL, cuBLAS: vLLM's non-torch memory)
recipe-sglang-overhead = CUDA context: part of what the static pool leaves out
recipe-torch-compute-row = activations and the caching allocator's reserve
recipe-torch-overhead-probe = CUDA context, { $label }
recipe-torch-overhead-none = not measured on this machine (no saved probe)
recipe-overhead-rpc = the rpc-server's own backend: not estimated

## What Ollama and LM Studio report of a loaded model, and the why sentence's lead
recipe-ollama-ctx-per-slot = { $n } tokens per slot
recipe-ollama-keep-default = OLLAMA_KEEP_ALIVE unset: 5m
recipe-ollama-kept = kept loaded until { $until } ({ $keep })
recipe-ollama-lead-kept = { $name } kept loaded until { $until } ({ $keep })
recipe-ollama-lead-loaded = { $name } loaded by Ollama
recipe-ollama-loader-runner = Ollama's runner
recipe-ollama-loader-server = Ollama's llama-server
recipe-ollama-lead-loaded-by = { $name } loaded by { $loader }
recipe-ollama-lead-unnamed = a model loaded by { $loader }
recipe-lmstudio-lead = { $name } loaded by LM Studio with a { $ctx }-token context
recipe-lmstudio-ctx = { $ctx } tokens (the model allows { $max })
recipe-lmstudio-nm-settings = LM Studio's GPU offload, flash attention, KV cache type and concurrent predictions are kept in its own settings, not visible outside it: llama.cpp's defaults (all layers, flash attention auto, f16 cache, one unified cache) are assumed

## What vLLM's /metrics reports
recipe-vllm-reported-blocks = { $blocks } blocks of { $tokens } tokens
recipe-vllm-reported-tokens = { $tokens } tokens
recipe-vllm-reported-usage = { $pct } of the blocks

## Where a runtime recipe's inputs were read, and the weights' value
recipe-src-gguf-header = GGUF header
recipe-src-safetensors = safetensors headers
recipe-src-driver = the driver
recipe-found-path = path on the command line
recipe-found-gguf = GGUF file on the command line
recipe-found-hub-ref = hub cache ({ $how }), refs/main = { $rev }
recipe-found-hub-only = hub cache ({ $how }), the only snapshot
recipe-weights-value = { $bytes } in { $tensors } tensors, { $files } file(s)
recipe-weights-value-ranks = { $bytes } in { $tensors } tensors, { $files } file(s), { $per_rank } per rank (÷ { $split })
recipe-default-runtime = { $runtime }'s

## vLLM's KV rules, by the version that runs
recipe-vllm-rule-groups = a hybrid model's layers in KV groups (the hybrid KV cache manager, since v0.9.1)
recipe-vllm-rule-no-groups = every layer a full-context page (no hybrid KV cache manager before v0.9.1)
recipe-vllm-rule-concurrency = GPU KV cache size = int(max concurrency × max_model_len) (since v0.20.1)
recipe-vllm-rule-per-group = GPU KV cache size = blocks ÷ KV groups × block size (before v0.20.1)
recipe-vllm-rule-in-flight = a windowed group holds window − 1 + the tokens of every batch in flight (since v0.26.0)
recipe-vllm-rule-batched = a windowed group holds window − 1 + max_num_batched_tokens (before v0.26.0)
recipe-vllm-version-assumed = the running vLLM version is not known here: the rules of the newest releases read (v0.26.0 to v0.33.0) are assumed

## Why a process has no estimate
recipe-err-not-llama = not a llama.cpp process: { $kind }'s estimate is its runtime's own recipe
recipe-err-no-recipe = no memory recipe for { $kind } yet
recipe-err-rpc-device = an rpc-server holds the layers (weights and their KV cache) its llama-server sends it over RPC, as that server splits the model between its devices: the share is not modelled here; `explain` the llama-server for the whole model
recipe-err-gguf-header = cannot read the model's GGUF header: { $error }
recipe-err-model-unknown = the model file is not known (see the missing links)
recipe-err-argv = cannot read the server's settings from its command line: { $error }
recipe-err-llama-env = cannot read the server's LLAMA_ARG_* settings: { $error }
recipe-err-ollama-no-model = the model file is not known: the runner maps none and its command line names none (it receives the model in /load)
recipe-err-lms-mlx = LM Studio's MLX engine: no recipe models MLX's memory
recipe-err-lms-mlx-model = LM Studio's MLX engine ({ $model }): no recipe models MLX's memory
recipe-err-lms-no-model = the model file is not known: LM Studio's engine maps no GGUF file (none loaded, or not readable)
recipe-err-lms-not-asked = LM Studio keeps the loaded context length in its own state; it is known only from its API (GET /api/v0/models), which is not asked here
recipe-err-lms-no-match = { $source } lists no loaded model that matches { $path }
recipe-err-ollama-go = Ollama's own Go engine (`ollama runner --ollama-engine`) allocates its weights, KV cache and graph itself; no recipe models it
recipe-err-ollama-mlx = Ollama's MLX engine (`ollama runner --mlx-engine`): no recipe models it
recipe-err-ollama-engine = { $what }. The command line says: { $argv }
recipe-err-ollama-engine-ps = { $what }. The command line says: { $argv }; { $source } says { $name }: size { $size }, size_vram { $vram }, context { $context }
recipe-err-vllm-core-ranks = vLLM's engine core holds no model with { $ranks } ranks (tensor × pipeline parallel): its { $ranks } workers (VLLM::Worker_*) hold one share each, and each carries its own estimate
recipe-err-vllm-core-worker = vLLM's engine core holds no model here: it started a worker process (VLLM::Worker, pid { $pid }; vLLM's multiprocessing executor, as its CPU build runs even one rank) that holds the model and carries the estimate

## A runtime recipe's inputs named in words (identifiers such as max_model_len stay as written)
recipe-input-kv-rules = vLLM KV rules
recipe-input-kv-block = KV bytes per block (per rank)
recipe-input-kv-token = KV bytes per token (per rank)
recipe-input-device-total = device memory total
recipe-input-rope = rotary cos/sin cache
recipe-input-pipeline-stage = pipeline stage
recipe-input-attention-tp = attention TP size
recipe-input-mxfp4 = MXFP4 experts as vLLM pads them
recipe-input-gguf-held = GGUF weights as vLLM holds them
recipe-input-hybrid-manager = hybrid KV cache manager
recipe-input-weights-file = weights file
recipe-input-dp-replicas = data_parallel_size (replicas; a rank's share is the same)
recipe-input-tokens-in-flight = tokens in flight (a windowed group's reserve)

## How the vLLM and SGLang recipes derive their KV figures
recipe-kv-torch-dtype = torch_dtype in { $path }
recipe-kv-elem-auto = kv cache dtype auto = model dtype { $dtype } ({ $source })
recipe-kv-elem-set = kv cache dtype { $dtype } ({ $source })
recipe-kv-formula = 2 (K, V) × { $layers } layers × { $heads } KV heads per rank ({ $kv_heads } / TP { $tp }) × head size { $head_dim } × { $elem } B ({ $source })
recipe-kv-formula-mla = MLA: { $layers } layers × { $dim } latent values × { $elem } B ({ $source }), the same on every rank
recipe-vllm-kv-block-value = { $bytes } ({ $per_token } per token over all layers)
recipe-vllm-kv-block-rule = { $per_token } × block { $block } tokens
recipe-vllm-kv-block-rule-groups = { $per_token } ÷ { $layers } layers × { $group } layers per KV group ({ $groups } groups; { $source }) × block { $block } tokens
recipe-too-large = too large
recipe-nm-kv-dtype = the KV cache: cache dtype { $dtype } is a packed format this recipe does not size
recipe-nm-kv-cache = the KV cache: { $why }
recipe-vllm-hybrid-off = off (every layer a full-context page)
recipe-vllm-hybrid-off-rule = --kv-transfer-config turns it off unless --no-disable-hybrid-kv-cache-manager (vLLM 0.9.1 on)
recipe-vllm-max-len-assumed = vLLM's default, the model's max_position_embeddings ({ $path }); rope scaling can change it

## vLLM's rotary cos/sin cache
recipe-rope-value = { $bytes } ({ $parts } in { $dtype }; { $shared }, on every rank)
recipe-rope-value-unnamed = { $bytes } ({ $parts } in { $dtype }; { $shared }, on every rank; { $unnamed })
recipe-rope-part = { $positions } positions ({ $how }) × { $dim } rotary dims
recipe-rope-parts = { $a } + { $b }
recipe-rope-dtype-gpt-oss = float32 (vLLM's gpt_oss.py asks it)
recipe-rope-dtype-f32 = float32 (--dtype)
recipe-rope-dtype-model = the model dtype, 16-bit
recipe-rope-shared-one = one cache shared by every layer
recipe-rope-shared-many = { $count } caches, one per distinct rope
recipe-rope-unnamed = { $path } names no rope: transformers' default for { $model_type }, rope_theta 10000 and no scaling
recipe-rope-rule = vLLM's get_rope: RotaryEmbedding.cos_sin_cache, a buffer of the model counted in its loading figure

## vLLM serving a GGUF file
recipe-vllm-gguf-held = { $all } (the file's { $file }): quantised blocks { $quantised }{ $padded }, unquantised tensors in { $elem }-byte { $dtype } ({ $dense }){ $ranks }
recipe-vllm-gguf-unpadded = ; { $n } merged layers kept shard by shard (nested tensors before vLLM 0.9), not padded
recipe-vllm-gguf-padded = ; { $n } merged layers padded to their widest shard's row (+{ $bytes })
recipe-vllm-gguf-padded-unknown = ; { $n } merged layers padded to their widest shard's row (+{ $bytes }), as from vLLM 0.9: the version is not known, and before 0.9 the shards were not padded
recipe-vllm-gguf-padded-plugin = ; { $n } merged layers padded to their widest shard's row (+{ $bytes }), as vllm-gguf-plugin 0.0.5 pads them (GGUF's home from vLLM 0.24)
recipe-vllm-gguf-per-rank = , { $per_rank } per rank (÷ { $ranks } ranks)
recipe-vllm-gguf-rule = vLLM's GGUF layers: GGUFLinearMethod's padded merged shards, model-dtype norms, vocabulary padded to 64

## SGLang's parallel ranks
recipe-sglang-attention-tp = tp_size { $tp } / dp_size { $dp } under DP attention (SGLang's compute_dp_attention_world_info)
recipe-sglang-stage = pipeline stage { $stage } of { $pp } (its title): { $layers } of { $n_layer } layers (SGLang's get_pp_indices)
recipe-sglang-stage-unknown = pipeline stage not known (no PP rank in its title): the largest of { $pp } stages assumed, { $layers } of { $n_layer } layers
recipe-sglang-nm-stage-weights = the weights of a pipeline stage: { $per_tp } ÷ TP as the stage's share of the layers ({ $layers } of { $n_layer }); the embeddings (first stage) and the output head (last stage) are counted as evenly spread
recipe-sglang-nm-dp-attention = the attention weights under DP attention: each rank holds its attention group's share (÷ { $atp } = TP { $tp } / DP { $dp }), not ÷ TP { $tp }; the weights here are all ÷ TP, a floor
recipe-sglang-nm-ep = expert parallelism (--ep-size { $ep }): the MoE experts spread over the EP ranks instead of split by TP; the weights are all ÷ TP here

## What a runtime reported, named in words (its own field names stay as written)
recipe-ollama-size = size (Ollama's own estimate of the model's memory)

## An rpc-server's share of its llama-server's estimate
recipe-why-rpc = { $device } of pid { $pid }'s model: { $layers } layers
recipe-why-rpc-output = { $device } of pid { $pid }'s model: { $layers } layers and the output layer
recipe-nm-rpc-backend = the rpc-server's backend context (its CUDA or Vulkan overhead)

## Where an Ollama runner's llama.cpp settings came from
recipe-src-free-memory = { $device }'s free memory
recipe-src-line-program = the command line's program, { $program }
recipe-src-process-program = the process's program, { $program }
recipe-ollama-env-parent = /proc/{ $pid }/environ (ollama serve, the runner's parent)
recipe-ollama-env-own = /proc/{ $pid }/environ (inherited from ollama serve)
recipe-ollama-env-in = { $var } in { $source }
recipe-ollama-kv-per-slot = Ollama's runner keeps llama.cpp's default kv_unified = false: one cache stream per slot
recipe-ollama-old-build = a runner of 2024–mid 2025: its llama.cpp predates every build-dependent compute rule (b7780 and later)
recipe-ollama-nm-old-compute = compute buffers of llama.cpp builds from before 2025-07 are checked against one public log only (ollama/ollama#8271: within 1 % on the device, 4 MiB over on the host)
recipe-ollama-nm-version-unknown = the runner's llama.cpp version is not known: runners whose llama.cpp predates per-slot cache streams (llama.cpp #14363, July 2025; Ollama v0.7 and earlier for certain) keep one unified cache, and their compute buffer is then several times larger
recipe-ollama-swa-full = Ollama's runner keeps llama.cpp's default swa_full = true: sliding-window layers hold the whole context
recipe-ollama-embeddings = Ollama's runner creates its context with embeddings on (llama/llama.go NewContextParams): the output buffer holds n_embd floats per slot beside the logits
recipe-ollama-unified-old-server = Ollama's ollama_llama_server (the C++ server up to v0.3, the Go runner of v0.4–v0.5): its llama.cpp predates per-slot cache streams, so one unified cache (kv_unified = true)
recipe-ollama-unified-version = Ollama { $version }: its llama.cpp predates per-slot cache streams, so one unified cache (kv_unified = true)
recipe-ollama-parallel-default = --parallel not given: the runner's default 1
recipe-ollama-ctx-flag = --ctx-size (num_ctx × OLLAMA_NUM_PARALLEL: Ollama multiplies before it starts the runner)
recipe-ollama-ctx-default = --ctx-size not given: the runner's default 2048
recipe-ollama-batch-flag = --batch-size × --parallel (the runner's n_batch)
recipe-ollama-batch-default = --batch-size not given: the runner's default 512 × --parallel (the runner's n_batch)
recipe-ollama-batch-cpp = --batch-size (Ollama v0.3's C++ ollama_llama_server: llama.cpp's server takes it as n_batch, not × --parallel)
recipe-ollama-batch-unknown = --batch-size × --parallel (the Go runner's n_batch; Ollama v0.3's C++ ollama_llama_server, started with the same flags, takes --batch-size alone: the version is not known here; n_ubatch, and so the buffers, are the same either way)
recipe-ollama-ubatch-default = the runner does not set n_ubatch: llama.cpp's default 512
recipe-ollama-fa-default = --flash-attn not given: Ollama passes it only when OLLAMA_FLASH_ATTENTION is on and the model and GPUs support it
recipe-ollama-memory-f32 = --memory-f32 (Ollama v0.3's C++ server: an f32 KV cache)
recipe-ollama-nm-memory-f32 = --memory-f32: an f32 KV cache (twice the f16 one) under Ollama v0.3's C++ ollama_llama_server, ignored by the Go runner of v0.4 on; the version is not known here, so f16 is assumed
recipe-ollama-ngl-default = --n-gpu-layers not given: the runner's default 0
recipe-ollama-tensor-split = --tensor-split (one entry per GPU Ollama chose for the runner)
recipe-ollama-parallel-unset = OLLAMA_NUM_PARALLEL unset: Ollama's default 1
recipe-ollama-batch-load = num_batch 512 (Ollama's default; a request may set another) × slots: the runner's n_batch
recipe-ollama-ubatch-load = num_batch 512 (Ollama's default, at most num_ctx): the runner's n_ubatch
recipe-ollama-ctx-ps = context_length { $ctx } from { $source }
recipe-ollama-ctx-env = OLLAMA_CONTEXT_LENGTH={ $ctx } in { $source } (a request's num_ctx would override it: not visible without /api/ps)
recipe-ollama-ctx-assumed = num_ctx not visible without /api/ps: Ollama's default 4096 assumed (since v0.15.5 it is 32768 on 24–48 GiB and 262144 on 48 GiB+ GPUs, and a request's num_ctx overrides it)
recipe-ollama-ctx-slots = { $from }, × { $slots } slot(s)
recipe-ollama-nm-kv-type-ignored = OLLAMA_KV_CACHE_TYPE={ $type } is ignored by Ollama unless OLLAMA_FLASH_ATTENTION is on: f16 cache assumed
recipe-ollama-ngl-load = Ollama sends its layer placement in the /load request, which is not visible: all layers assumed on the GPU
recipe-ollama-nm-partial = partial offload: { $source } says { $vram } of { $size } bytes are in VRAM; the number of layers Ollama placed on the GPU is not visible, so the estimate's all-layers placement is too high
recipe-ollama-fa-old = OLLAMA_FLASH_ATTENTION unset: off before Ollama v0.13.4; this server is { $version } (GET /api/version)
recipe-ollama-fa-auto = OLLAMA_FLASH_ATTENTION unset: Ollama v0.13.4+ asks llama.cpp for auto; this server is { $version } (GET /api/version)
recipe-ollama-fa-unknown = OLLAMA_FLASH_ATTENTION unset: auto since Ollama v0.13.4 (off before; the version is not known without GET /api/version)

## LM Studio's load settings
recipe-lmstudio-ctx-from = loaded_context_length of { $id } from { $source }
recipe-lmstudio-assumed = LM Studio's load setting is not visible outside it: { $what } assumed
recipe-lmstudio-one-sequence = one sequence
recipe-lmstudio-unified = a unified cache (LM Studio's default) of loaded_context_length cells
recipe-lmstudio-all-layers = all layers on the GPU (GPU offload max)

## What the runtimes' recipes leave to the kernels (quantised MoE experts) and to llama-server's fit
recipe-ollama-nm-fit = Ollama passes no -ngl by default: llama-server fits the layers to free memory (-fit), which the estimate does not model (all layers assumed)
recipe-sglang-nm-quantised-experts = the weights beyond the files: { $experts } { $q } experts per layer are repacked and padded for SGLang's MoE kernels, which this recipe does not size, so the weights figure (the file's tensor bytes) is a floor
recipe-vllm-nm-experts = the weights beyond the files: { $experts } { $q } experts per layer are repacked and padded for vLLM's fused-MoE kernels, so the weights figure (the file's tensor bytes) is a floor, not exact
recipe-vllm-nm-experts-fp8 = the weights beyond the files: { $experts } { $q } experts per layer are repacked and padded for vLLM's fused-MoE kernels, so the weights figure (the file's tensor bytes) is a floor, not exact; from vLLM's source: with native FP8 (compute capability 8.9 and up) the experts are the checkpoint's fp8 weights and float32 block scales as stored, the file's bytes; on Ampere the Marlin path (its log warns "leveraging the Marlin kernel") widens every 128×128 block scale to one 16-bit scale per output column and 128 inputs
recipe-vllm-nm-experts-int4 = the weights beyond the files: { $experts } { $q } experts per layer are repacked and padded for vLLM's fused-MoE kernels, so the weights figure (the file's tensor bytes) is a floor, not exact; from vLLM's source: the Marlin MoE repack keeps the packed 4-bit weights, scales and zero points at their sizes (act-order adds one int32 sort index per input), so the file's bytes are close

## vLLM's MXFP4 experts (gpt-oss) as its kernel backend pads them
recipe-mxfp4-split-ep = { $experts } experts ÷ { $ep } expert-parallel ranks
recipe-mxfp4-split-tp = intermediate { $i } ÷ TP { $tp } = { $per_rank }
recipe-mxfp4-words = { $experts } MXFP4 experts per layer × { $layers } layers, hidden { $h } → { $h_pad }, intermediate { $i } → { $i_pad } ({ $split }; { $backend } pads hidden to { $th }, intermediate to { $ti }): { $per_rank } of experts per rank, the checkpoint's { $file } unpadded
recipe-mxfp4-unknown = which MXFP4 MoE kernel vLLM picked (it depends on the GPU and on FlashInfer or triton_kernels being installed; its start-up log says, give it with --log, or set VLLM_MXFP4_USE_MARLIN=1): the weights figure counts the checkpoint's bytes, a floor; per rank each backend would hold { $each } of tensors, the rotary cache on top

## vLLM's --gpu-memory-utilization default by the version that runs
recipe-vllm-util-before = vLLM { $version } ({ $from }): 0.9 before v0.21.0
recipe-vllm-util-since = vLLM { $version } ({ $from }): 0.92 since v0.21.0
recipe-vllm-util-unknown = since vLLM v0.21.0 (0.9 before; the running version is not known here)

## vLLM and SGLang: why the model's folder or its config.json could not be read
recipe-err-model-not-found = model { $model }: not a folder we can see, and not a hub id ORG/NAME
recipe-err-model-no-home = model { $model }: the process has no HOME or HF_HOME to find its hub cache
recipe-err-model-snapshots = model { $model }: { $path }: { $error }
recipe-err-model-no-snapshot = model { $model }: no snapshot under { $path }
recipe-err-model-snapshots-many = model { $model }: { $n } snapshots under { $path } and no refs/main to choose one
recipe-err-config-unreadable = { $path }: cannot read: { $what }
recipe-err-config-json = { $path }: not valid JSON: { $what }
recipe-err-config-missing = { $path }: no { $what }
recipe-err-config-implausible = { $path }: implausible { $what }
recipe-err-safetensors = cannot read the model's safetensors headers: { $error }
recipe-err-sglang-argv = cannot read SGLang's settings from its command line: { $error }
recipe-err-sglang-no-model = the model is not named on SGLang's command line (--model-path)
recipe-err-vllm-argv = cannot read vLLM's settings from its command line: { $error }
recipe-err-vllm-no-model = the model is not named on vLLM's command line (`vllm serve MODEL` or --model)
recipe-err-vllm-no-model-note = the model is not named on vLLM's command line (`vllm serve MODEL` or --model); { $note }
recipe-note-vllm-config-no-name = --config has no file name
recipe-note-vllm-config-unread = vLLM's --config { $path } was not read ({ $error }): its options are not known here, only the command line's
recipe-note-vllm-kv-count = vLLM's printed KV token count: { $why }
recipe-err-vllm-gguf-relative = vLLM serves the GGUF file { $model }, a relative path, and the process's working directory is not known
recipe-err-vllm-gguf-not-file = vLLM serves a GGUF model ({ $model }), which is not a file this machine can read: its weights come from the GGUF header, and a hub id or a folder of GGUF files is not modelled
recipe-err-ollama-parent = the runner's parent (pid { $pid }): not readable
recipe-err-api-not-json = not the JSON { $path } answers: { $error }
recipe-err-api-no-list = no "{ $list }" list in the { $path } answer
recipe-err-api-get = GET { $url }: { $error }
recipe-err-api-port = port { $port }: { $error }
recipe-err-api-no-answer = no { $path } answer ({ $errors })

## PyTorch: its weight files as read, and why one could not be
recipe-torch-how-safetensors = { $count } tensors (safetensors header)
recipe-torch-how-pickle = file size (a pickle checkpoint: tensors plus framing)
recipe-torch-weights-value = { $file }: { $size }, { $how }
recipe-torch-not-regular = { $path }: not a regular file
recipe-torch-weights-unreadable = weights in { $file }: { $error }
recipe-torch-sum-overflow = { $file }: with this file the open weight files pass 2^64 bytes (sizes no disk holds): not added up
recipe-err-torch-no-files = no weight file (safetensors, .pt, .pth, .ckpt, pytorch_model*.bin) mapped or open: nothing to estimate from outside a PyTorch process
recipe-err-torch-none-read = no weight file could be read: { $why }
recipe-vllm-version-from = vLLM { $version } ({ $from })
recipe-vllm-version-mapped = { $path } (the package the process mapped)

## vLLM's rotary cos/sin cache: how its rows were counted, and why it is not sized
recipe-rope-dynamic-before = { $max } × factor { $factor }, dynamic before 0.22
recipe-rope-dynamic-since = max_position_embeddings, dynamic from 0.22
recipe-rope-dynamic-unknown = max_position_embeddings, dynamic as from 0.22: vLLM's version is not known, and before 0.22 it caches { $max } × factor { $factor }
recipe-rope-longrope = { $short } short + { $long } long, longrope
recipe-rope-err-need = the rotary cos/sin cache: a { $kind } rope without a usable { $key }
recipe-rope-err-no-max = the rotary cos/sin cache: { $path } gives no max_position_embeddings
recipe-rope-err-unnamed = the rotary cos/sin cache: { $path } names no rotary embedding and its model type ({ $model_type }) is not one this rule knows to have one or not
recipe-rope-no-model-type = none given
recipe-rope-err-overflow = the rotary cos/sin cache: its size overflows
recipe-rope-err-kind = the rotary cos/sin cache of a { $kind } rope (vLLM sizes it per class; this rule knows default, llama3, linear, dynamic, ntk, yarn, deepseek_yarn, longrope and mrope)
recipe-rope-err-dim = the rotary cos/sin cache: implausible rotary dim { $dim }
recipe-rope-err-partial = the rotary cos/sin cache: partial_rotary_factor { $factor } (vLLM refuses it)
recipe-sglang-nm-kv-overflow = the KV pool: { $tokens } tokens × { $bytes } bytes per token does not fit in 64 bits

## What the compute replay approximates, and why (estimate/compute, graph_gaps, backend_gaps)
recipe-approx-fused-q-k-v = a fused Q/K/V projection (attn_qkv): counted as three projections
recipe-approx-attention-output-gate-attn = the attention output gate (attn_gate): not in the replay
recipe-approx-moe-routing = MoE routing
recipe-approx-mla-attention = MLA attention
recipe-approx-deepseek-v4-graph-not = DeepSeek V4's graph: not replayed, the file lacks a key or tensor it is built from (attn_q_a, attn_output_a, hyper_connection.count, compress_ratios); plain attention layers stand in
recipe-approx-deepseek4-hash-routed-layers = deepseek4's hash-routed layers (experts picked by token id from ffn_gate_tid2eid): written from models/deepseek4.cpp, not checked against a run
recipe-approx-gated-deltanet-gpu-backend = Gated DeltaNet on a GPU backend: the fused kernel assumed
recipe-approx-attention-without-kv-cache = an attention without a KV cache (every layer shares one): not in the replay
recipe-approx-glm5-next-k-pool = glm5-next's k-pool indexer (no usable attention.indexer.kpool, or sizes beyond any device): not in the replay
recipe-approx-glm5-next-gathered-sparse = glm5-next's gathered sparse attention (n_ubatch ≤ 16): counted as the scatter path
recipe-approx-adapter-router-one-head = the adapter router (a one-head attention over the adapter tokens) and the per-token LoRA deltas of every projection (switch_lora): not in the replay
recipe-approx-qwen4exp-ple-n-gram = qwen4exp's PLE n-gram embedding (sizes out of range): not replayed
recipe-approx-recurrent-layers-gpu-backend = recurrent layers on a GPU backend
recipe-approx-qwen4exp-qsa-indexer-sizes = qwen4exp's QSA indexer (sizes beyond any device): its layers counted dense
recipe-approx-rwkv-6-separate-lerps = RWKV-6's separate lerps (an older conversion): counted as fused
recipe-approx-gated-deltanet-layers-build = Gated DeltaNet layers (build_delta_net: chunked delta rule, gated norm): counted with Mamba-1's shape
recipe-approx-kda-layers-kimi-delta = KDA layers (Kimi delta attention: Q/K/V convolutions, gated delta rule): counted with Mamba-1's shape
recipe-approx-rwkv-time-mix-channel = RWKV time-mix and channel-mix layers (build_rwkv6/7_time_mix): counted with Mamba-1's shape
recipe-approx-recurrent-layers-mamba-1 = recurrent layers (Mamba-1's shape)
recipe-approx-header-beyond-any-device = not replayed: the header claims tensors or layers beyond any device (the figure is the largest single tensor)
recipe-approx-unknown-arch = the graph of '{ $arch }', an architecture gpuledger does not know: the generic transformer's layers
recipe-approx-hyper-connections = the hyper-connections (several residual streams mixed around every attention and FFN block by hc_attn_fn / hc_ffn_fn): not in the replay, which keeps one stream
recipe-approx-altup = Gemma 3n's AltUp (several copies of the hidden state through every layer) and LAuReL blocks: not in the replay, which builds one hidden state per layer
recipe-approx-per-layer-embeddings = the per-layer input embeddings (per_layer_token_embd rows looked up on the host, projected by per_layer_model_proj and fed to every layer): not in the replay
recipe-approx-hrm-cycles = HRM's cycles (the low and high stacks' slots, each reading the sum of both states, the outputs selected after the last slot): the replay writes the slots as a plain stack of layers
recipe-approx-kimi-k3-residual = Kimi-K3's cross-layer residual attention (the banked layer inputs scored and mixed before every attention and FFN) and its latent-width experts: not in the replay
recipe-approx-latent-projected = { $arch }'s latent-projected attention (K and V decompressed per head from a kv_lora_rank latent by attn_kv_b, then cached as ordinary K/V): the replay writes the standard attention's shape without the decompression's intermediate tensors
recipe-approx-legacy-latent = attention of an older latent-attention conversion without MLA (kv_lora_rank, no *_mla lengths, attn_kv_b instead of attn_k_b/attn_v_b): llama.cpp decompresses K and V per head with attn_kv_b; the replay writes the standard attention's shape
recipe-approx-indexer-dsa = the DSA lightning indexer ({ $heads } heads of { $size } over every cached position, its top-k selection and sparse mask): not in the replay, so the compute buffer can be several times larger than estimated at long context
recipe-approx-indexer-msa = the MSA block indexer ({ $heads } heads of { $size }, block scores, block top-k and local-block bias): not in the replay
recipe-approx-indexer-qsa = the QSA indexer ({ $heads } heads of { $size }: key pooling, scores, top-k selection): not in the replay
recipe-approx-metal-host-experts = Metal with experts on the host (--cpu-moe, --n-cpu-moe, -ot exps=CPU): Metal offloads only the matrix products on host weights (ggml_backend_metal_device_offload_op), so the experts' bias additions and their activations stay in the host compute buffer; replayed so, but not checked against a Metal log here (host compute −34 % before this rule, estimate against a public log of a real run, as gpuledger issue #35 measured it; the log's address is not recorded here)
recipe-approx-metal-no-fa = Metal without flash attention (-fa off): ggml-metal's attention path is not replayed, the CUDA one's is: not modelled (gpt-oss-120b: compute −32 %, estimate against a public log of a real run, as gpuledger issue #35 measured it; the log's address is not recorded here)
recipe-approx-rocm = ROCm (the HIP build of ggml-cuda): the replay makes the CUDA build's graph choices, not the HIP build's own: not modelled (gpt-oss-120b at -c 262144 -np 2 -ub 1024: the device compute buffer 796 MiB in the log of ollama/ollama#16416, the replay 439 MiB, −45 %; the host's 281 MiB within 8 %)
recipe-approx-vulkan-quant-k = Vulkan with a quantised K cache (-ctk { $type }): ggml-vulkan's attention over a quantised K is not replayed, the CUDA one's is: not modelled (compute −44 %, estimate against a public log of a real run, as gpuledger issue #35 measured it; the log's address is not recorded here)
recipe-approx-devices-quant-kv = several devices (-ts) with a quantised KV cache: the host's part of the scheduler's copies between devices is not replayed for quantised cache views: not modelled (two GPUs, q8_0 KV: host compute 37 vs 133 MiB, estimate against a public log of a real run, as gpuledger issue #35 measured it; the log's address is not recorded here)
recipe-approx-vulkan-reorder = the Vulkan device buffer: Vulkan reorders each split's nodes for parallelism (ggml_vk_graph_optimize), which changes which tensors are alive together; the replay keeps the graph's order (exact with GGML_VK_DISABLE_GRAPH_OPTIMIZE=1; with the reordering up to one n_embd × n_ubatch F32 activation off: on the test grid within 10 %, or that one activation for a small buffer)

## The estimate's inputs, notes and the --fit replay's sentences (estimate/hparams, memory, indexer, context, fit)
recipe-window-llama4 = llama_model_llama4::load_arch_hparams: chunked attention, 8192
recipe-window-smallthinker = llama_model_smallthinker::load_arch_hparams: 4096, dense first
recipe-window-exaone4 = llama_model_exaone4::load_arch_hparams: 64 layers
recipe-window-gemma2 = llama_model_gemma2::load_arch_hparams
recipe-rule-head-kv-absent = head_count_kv absent: equals head_count
recipe-rule-router-layer = llama_model_granite_switch::load_arch_hparams: the adapter router, one attention layer of 1 head after the blocks, held in the KV cache
recipe-rule-swa-pattern = llama.cpp's pattern for { $arch }
recipe-value-per-layer-array = per-layer array
recipe-value-swa-pattern = { $swa } SWA : 1 full
recipe-value-swa-pattern-full-first = { $swa } SWA : 1 full, full first
recipe-rule-full-attention-interval = llama.cpp's default: every 4th layer is full attention
recipe-rule-gemma3n-kv-from-start = llama.cpp's value for gemma3n
recipe-value-n-of-layers = { $n } of { $total } layers
recipe-rule-minimax-m3-sparse = minimax-m3: sparse layers from leading_dense_block_count on
recipe-value-from-layer = from layer { $layer }
recipe-rule-glm-dsa-every-layer = no indexer.types and trained below 1M context (GLM 5, 5.1): every layer has an indexer (models/glm-dsa.cpp)
recipe-rule-glm-5-2-pattern = no indexer.types: GLM-5.2's default pattern (models/glm-dsa.cpp)
recipe-value-n-of = { $n } of { $total }
recipe-rule-glm5-next-indexer-types = no indexer.types: every attention layer has its own indexer (llama_model_glm5_next::load_arch_hparams)
recipe-rule-hy-v4-indexer-types = no indexer.types: no layer owns an indexer (llama_model_hy_v4::load_arch_hparams)
recipe-rule-kpool-row = llama_hparams::indexer_kpool_row: a cached row is key | gate | pooled
recipe-rule-hy-v4-no-indexer = { $key } absent or 0: a full-attention checkpoint, no indexer cache (llama_model::create_memory, LLM_ARCH_HY_V4)
recipe-rule-qsa-not-pooled = no compress_ratios: the indexer keys are not pooled (models/qwen4exp.cpp)
recipe-note-ctx0-per-slot = -c 0 (the training context) with a cache per slot: each of the { $slots } slots gets the whole training context ({ $train }), n_ctx = { $n_ctx }
recipe-note-kv-unified-forced = kv_unified forced to true: this llama.cpp build writes the KV cache with ggml_cpy and gives every sequence one shared cache (rule kv-write-idxs not yet)
recipe-note-plm-fa-abort = llama.cpp b11434 aborts plm with flash attention (GGML_ASSERT in ggml_set_rows, from llama_kv_cache::cpy_v): run it with -fa off; this estimate is for the settings as given
recipe-note-mtmd-projector = llama-mtmd-cli also loads the multimodal projector (--mmproj) with its own weights and compute buffer: not in this estimate
recipe-note-grok-fa-off = flash attention off: llama.cpp forces it off for grok (llama_init_from_model), whatever -fa says
recipe-rule-device-order = RPC servers first, then local GPUs; -sm none keeps --main-gpu
recipe-note-override-matches-nothing = { $flag }: matches no tensor of this model (or only tensors an earlier override placed)
recipe-note-dsv4-hc-abort = llama.cpp b11434 aborts deepseek4 unless it has 4 hyper-connection streams (GGML_ASSERT(hc == 4) in build_hc_pre, when the context reserves its graph); this file has { $streams }: the figures are what the graph would take
recipe-value-newest-rules = newest rules
recipe-src-loaded-library = loaded { $lib }
recipe-src-measured-nvidia = measured on an NVIDIA device
recipe-src-measured-amd = measured on an AMD device
recipe-src-measured-apple = measured on an Apple GPU
recipe-src-measured-other = measured on an Intel/other GPU
recipe-src-fit-no-mmap = --fit's projection loads without mmap
recipe-note-rpc-only = no local GPU seen: the devices are the { $count } RPC { $count ->
        [one] server
       *[other] servers
    } alone (--gpus N adds local GPUs after them); their buffers are modelled as CUDA's (--backend to change)
recipe-src-live-free = the live GPUs' free memory
recipe-src-free-plus-own = the device's free memory now plus this server's own
recipe-note-fit-not-replayed = --fit (on by default) was not replayed to the end for the memory free at load ({ $free }): { $why }; the estimate keeps the unset settings as they are, which llama-server's --fit may have lowered
recipe-note-fit-replayed = --fit (on by default) replayed for the memory free at load, taken as free now ({ $free }) + this server's own ({ $own }): { $flags } ({ $outcome })
recipe-note-fit-replayed-why = --fit (on by default) replayed for the memory free at load, taken as free now ({ $free }) + this server's own ({ $own }): { $flags } ({ $outcome }: { $why })
recipe-overhead-probed = CUDA context on { $device }, measured by probe on { $date }
recipe-fit-stopped-bound = the replay stopped after { $n } memory projections (its bound); llama.cpp would go on: the settings are those reached so far
recipe-fit-stopped-time = the replay stopped after { $n } memory projections (its time budget on the collection path); llama.cpp would go on: the settings are those reached so far
recipe-note-override-no-gpu-backend = { $flag }: a llama-server without a GPU backend has no buffer type { $type } and refuses it; the estimate (backend cpu) keeps these tensors on the host
recipe-note-override-unknown-device = { $flag }: { $type } is none of the devices estimated ({ $devices }); the estimate counts these tensors on { $first } (llama-server refuses a buffer type it does not list)
recipe-err-cache-row-blocks = { $flag } { $type } cannot store this model's cache: layer { $layer }'s row of { $n } elements is not a whole number of { $type }'s { $block }-element blocks
recipe-err-refuses-n-seq = llama.cpp refuses these settings: n_seq_max must be <= 256 (-np { $n } was given)
recipe-err-ctx-32bit = context { $c } (or batch { $batch } / micro-batch { $ubatch }) does not fit llama.cpp's 32-bit sizes (at most { $max }); give -c explicitly
recipe-err-refuses-qv-grok = llama.cpp refuses these settings: quantized V cache ({ $type }) requires flash_attn to be enabled, which llama.cpp forces off for grok
recipe-err-refuses-qv-fa-off = llama.cpp refuses these settings: quantized V cache ({ $type }) requires flash_attn to be enabled (-fa off was given)
recipe-err-refuses-mla-types = llama.cpp refuses these settings: model does not support different K ({ $k }) and V ({ $v }) cache types (MLA keeps V inside K; give -ctk and -ctv the same type)
recipe-err-no-estimate = no estimate for this model: { $why }

## Where a runtime's flags were read; owners not taken at their word; --group-by's errors; several GPUs
recipe-src-flag-from = { $flag } ({ $from })
recipe-src-parent-cmdline = /proc/{ $pid }/cmdline (the parent server; this process's title replaced its own)
recipe-note-several-gpus = this machine has { $count } GPUs llama-server's build for this vendor sees ({ $gpus }) and it uses every one (layers split by free memory): this estimate is for GPU{ $index } alone; --gpus { $count } estimates the split (in index order, which is CUDA's with CUDA_DEVICE_ORDER=PCI_BUS_ID)
recipe-note-split-evenly = no -ts and no free memory per device (estimate --free): layers split evenly, as llama.cpp does for devices with equal free memory

## llama-server's flag values refused (estimate/settings, devices, overrides)
recipe-flag-not-number = { $flag }: { $value } is not a valid number
recipe-flag-too-big = { $flag }: { $value } does not fit: llama-server reads it as a 32-bit integer (at most { $max })
recipe-flag-negative = { $flag }: { $value } is negative
recipe-flag-cache-type = { $flag }: unsupported cache type { $value } (llama.cpp accepts { $types })
recipe-flag-cache-type-unknown = { $flag }: unknown type { $value }
recipe-flag-needs-value = { $flag } needs a value
recipe-flag-not-on-off = { $flag }: { $value } is not on or off
recipe-flag-fit-target = { $flag }: { $value } is not 1 to 16 sizes in MiB
recipe-flag-slots = { $flag }: { $value } slots is not valid (use -1 for auto or N >= 1)
recipe-flag-not-fa = { $flag }: { $value } is not on, off or auto
recipe-flag-load-mode = { $flag }: { $value } is not auto, none, mmap, mlock, mmap+mlock or dio
recipe-flag-ts-too-many = { $flag }: { $value } proportions, more than llama.cpp's 16 devices
recipe-flag-ts-proportion = { $flag }: { $value } is not a proportion (a number >= 0)
recipe-flag-split-mode = { $flag }: { $value } is not none, layer, row or tensor
recipe-flag-rpc-too-many = { $flag }: { $value } servers, more than llama.cpp's 16 devices
recipe-flag-not-override = { $flag }: { $value } is not PATTERN=BUFFER_TYPE (llama-server refuses it)
recipe-flag-layers = { $flag }: { $value } is not a number of layers

## What is wrong with a model's header (estimate/hparams, memory, parts)
recipe-err-header = { $file }: { $message }
recipe-hdr-required = required key { $key } is missing or not an integer
recipe-hdr-array-too-long = { $key }: array of { $n } entries is too long to be per-layer
recipe-hdr-array-layers = { $key } has { $n } entries but the model has { $layers } layers
recipe-hdr-not-integers = { $key }: entries are not integers
recipe-hdr-not-integer = { $key } is not an integer
recipe-hdr-no-arch = general.architecture is missing: not a model file llama.cpp can load
recipe-hdr-block-count = { $key } { $n } is not a plausible layer count
recipe-hdr-pattern-too-long = { $key }: { $n } entries, more than any model's layers
recipe-hdr-implausible = { $name } = { $value } is not a plausible value (at most { $max })
recipe-hdr-bool-array-layers = { $key } has { $n } entries for { $layers } layers
recipe-hdr-not-booleans = { $key }: entries are not booleans
recipe-hdr-not-boolean = { $key } is not a boolean
recipe-hdr-interval-zero = { $key } is 0: llama.cpp takes each layer's index modulo it
recipe-hdr-beyond-64 = the header's sizes are beyond any device: { $what } exceeds 2^64 bytes
recipe-flag-why = { $flag }: { $why }
recipe-overrides-too-many = { $n } tensor overrides in all; llama-server aborts with more than { $max } (--n-cpu-moe N adds one per layer)
