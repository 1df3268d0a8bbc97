# 估算方法的句子（crates/workloads/src/estimate）：输入的来源、假定与备注。术语见 ../../GLOSSARY.md。

## 默认值的来源
recipe-not-given = 未给出 { $flag }：{ $default }
recipe-default-ctx-train = 0 = 模型的训练上下文
recipe-default-np-auto = -1 = 自动：4 个槽位，统一缓存
recipe-default-kvu-auto = -np 为自动时使用统一缓存
recipe-default-kv-follows-layer = KV 跟随其所在层
recipe-default-logits-only = 仅 logits
recipe-default-build-unknown = 未知：按最新规则
recipe-default-no-rpc = 无 RPC 服务器
recipe-default-one-gpu = 一个本地 GPU
recipe-default-by-free-memory = 按空闲显存
recipe-default-unknown = 未知
recipe-default-on = 开
recipe-default-fit-target = 每个设备 { $mib } MiB
recipe-default-no-device = 未发现设备：{ $backend }
recipe-default-vendor-of = { $device } 的厂商
recipe-default-rpc-only = 未发现本地 GPU：仅 RPC 服务器
recipe-tool-one-sequence = { $tool }：一个序列（common_params n_parallel = 1）
recipe-tool-not-unified = { $tool }：kv_unified = false（common_params）
recipe-unified-np-auto = 统一，因为 -np 为自动
recipe-unified-np-1-became-4 = 统一：llama-server 把 -np 1 变成了 4 个共用统一缓存的槽位
recipe-one-slot-no-np-auto = 1 个槽位：此 llama.cpp 版本没有 -np auto（规则 np-auto）
recipe-per-slot-caches = 给出 -np 时每个槽位各有缓存
recipe-fa-off-old-build = 关：此 llama.cpp 版本早于 -fa auto（规则 fa-auto）

## 假定
recipe-fa-auto-enabled = 每层的 KV 都与该层放在同一设备上时，-fa auto 解析为开启（llama-server 日志："Flash Attention was auto, set to enabled"）
recipe-build-unknown = 未给出 llama.cpp 版本（--llama-build 或服务 /props 的 build_info）：按最新规则估算

## 备注
recipe-ngl-auto-all-fit = -ngl auto：假定全部放得下；空闲显存不足时，llama-server 的 --fit 可能少卸载几层，或缩小未设置的 -c
recipe-np-1-became-4 = -np 1 变成了 4 个共用一个统一缓存的槽位：此 llama.cpp 版本的 llama-server 在未给出 -kvu 时会这样做（"setting n_parallel = 4 and kv_unified = true"；有草稿模型时不会，此情形未建模）
recipe-fit-not-replayed-host = 未回放 --fit on（llama-server 的默认值）：没有设备时它按主机的总内存做预算，这里不知道该值（请给出 --free SIZE）
recipe-fit-not-replayed = 未回放 --fit on（llama-server 的默认值）：这里不知道 { $count } 个设备各自的空闲显存（请按 llama.cpp 的设备顺序给出 --free SIZE,...：{ $devices }）

## 额外开销
recipe-overhead-cuda = 进程的 CUDA 上下文、内核与 cuBLAS 工作区（不是 llama.cpp 的缓冲区；随 GPU、驱动和 CUDA_MODULE_LOADING 不同，通常为 128–512 MiB）
recipe-overhead-rocm = 进程的 HIP 上下文、内核与 hipBLAS 工作区（不是 llama.cpp 的缓冲区；按 CUDA 通常的 128–512 MiB 假定，未在 ROCm 上实测）
recipe-overhead-metal = Metal 设备额外开销：没有数值（统一内存）
recipe-overhead-vulkan = Vulkan 驱动额外开销：此后端没有数值
recipe-overhead-cpu = 没有 GPU 设备

## 为什么这么多（每个进程一句话）
recipe-why-llama = { $model }：权重 { $weights }（{ $layers } 层中 { $gpu_layers } 层在 GPU 上），KV 缓存 { $kv }，容纳 { $tokens } 个 token{ $slots }（{ $type_k }/{ $type_v }），计算缓冲区 { $compute }
recipe-why-slots-shared = ，由 { $slots } 个槽位共用
recipe-why-slots-each = ，每个槽位一份 × { $slots } 个槽位
recipe-why-and-placement = { $why }；{ $placement }
recipe-why-runtime = { $lead }：权重 { $weights }，KV 缓存 { $kv }，每个槽位 { $tokens } 个 token × { $slots } 个槽位

## vLLM 的“为什么”（runtimes/vllm/estimate.rs）
recipe-rank-share = （{ $ranks } 个 rank 中每个的份额）
recipe-vllm-util = `--gpu-memory-utilization { $value }`，{ $from }
recipe-vllm-util-default = 默认值
recipe-vllm-util-flag = 来自其命令行
recipe-vllm-util-metrics = 来自其 /metrics
recipe-vllm-util-log = 来自其启动日志
recipe-vllm-rest-eager = 激活值（无 CUDA graph：--enforce-eager）
recipe-rest-activations-graphs = 激活值和 CUDA graph
recipe-vllm-kv-bytes = KV 缓存 { $kv }（{ $source }）
recipe-vllm-kv-blocks = KV 缓存 { $kv }，共 { $blocks } 个块，每块 { $block } 个 token{ $groups }
recipe-vllm-kv-groups = ，{ $groups } 个 KV 组共 { $tokens } 个 token
recipe-vllm-why-contradiction-kv = 估算自相矛盾：权重 { $weights }{ $ranks } 加上 { $kv_how }，超过了 vLLM 预留的量，即此 GPU 的 { $pct }（{ $reserved }，{ $util }）。有一项输入不是 vLLM 实际使用的：设备、利用率、模型文件夹或 KV 缓存的数据类型。
recipe-vllm-why-contradiction = 估算自相矛盾：权重 { $weights }{ $ranks } 超过了 vLLM 预留的量，即此 GPU 的 { $pct }（{ $reserved }，{ $util }）。有一项输入不是 vLLM 实际使用的：设备、利用率、模型文件夹或 KV 缓存的数据类型。
recipe-vllm-why-reserves = vLLM 预留此 GPU 的 { $pct }（{ $util }）：权重 { $weights }{ $ranks }，{ $kv_how }，其余（{ $rest }）用于{ $rest_label }。
recipe-vllm-why-reserves-no-blocks = vLLM 预留此 GPU 的 { $pct }（{ $util }）：权重 { $weights }{ $ranks }；其余（{ $rest }）用于 KV 缓存和{ $rest_label }（这里不知道块数）。
recipe-vllm-why-no-size-kv = vLLM 预留其 GPU 的 { $pct }（{ $util }），但这里不知道该 GPU 的大小：权重 { $weights }{ $ranks }，{ $kv_how }。
recipe-vllm-why-no-size = vLLM 预留其 GPU 的 { $pct }（{ $util }），但这里不知道该 GPU 的大小：权重 { $weights }{ $ranks }。
recipe-vllm-why-kv-bytes = vLLM 持有权重 { $weights }{ $ranks } 和 { $kv_how }，它取代了 --gpu-memory-utilization 的预留；{ $rest_label }另计。

## SGLang 的“为什么”（runtimes/sglang/mod.rs）
recipe-sglang-kv = KV 缓存 { $kv }，容纳 { $tokens } 个 token
recipe-sglang-kv-left = KV 池在剩余部分中（最多 { $most }；这里不知道其 token 数）
recipe-sglang-kv-unknown = KV 池（这里不知道大小）
recipe-sglang-why-contradiction-kv = 估算自相矛盾：权重 { $weights }{ $ranks } 加上 KV 缓存 { $kv }，超过了 SGLang 的静态池，即此 GPU 的 { $pct }（{ $pool }，`--mem-fraction-static { $fraction }`）。有一项输入不是 SGLang 实际使用的：设备、比例、模型文件夹或 KV 缓存的数据类型。
recipe-sglang-why-contradiction = 估算自相矛盾：权重 { $weights }{ $ranks } 超过了 SGLang 的静态池，即此 GPU 的 { $pct }（{ $pool }，`--mem-fraction-static { $fraction }`）。有一项输入不是 SGLang 实际使用的：设备、比例、模型文件夹或 KV 缓存的数据类型。
recipe-sglang-why-pool = SGLang 把此 GPU 的 { $pct } 留作静态池（`--mem-fraction-static { $fraction }`）：权重 { $weights }{ $ranks }，{ $kv_words }；激活值和 CUDA graph 另计，来自剩下的 { $remaining }。
recipe-sglang-why-pool-server = SGLang 把此 GPU 的 { $pct } 留作静态池（`--mem-fraction-static { $fraction }`，来自其服务信息）：权重 { $weights }{ $ranks }，{ $kv_words }；激活值和 CUDA graph 另计，来自剩下的 { $remaining }。
recipe-sglang-why-no-fraction = SGLang 在静态池中持有权重 { $weights }{ $ranks } 和 { $kv_words }，这里不知道该池占 GPU 的比例；激活值和 CUDA graph 另计。

## PyTorch 的“为什么”（runtimes/pytorch/mod.rs）
recipe-pytorch-why = 这个 PyTorch 程序在 { $files } 个文件中打开了 { $weights } 的权重；激活值和缓存分配器的预留另计，从外部无法估算其大小。
recipe-pytorch-why-context = 这个 PyTorch 程序在 { $files } 个文件中打开了 { $weights } 的权重，另有 { $context } 的 CUDA 上下文；激活值和缓存分配器的预留另计，从外部无法估算其大小。
recipe-pytorch-why-comfyui = ComfyUI 在 { $files } 个文件中打开了 { $weights } 的权重；激活值和缓存分配器的预留另计，从外部无法估算其大小。
recipe-pytorch-why-comfyui-context = ComfyUI 在 { $files } 个文件中打开了 { $weights } 的权重，另有 { $context } 的 CUDA 上下文；激活值和缓存分配器的预留另计，从外部无法估算其大小。

## 估算未使用的参数（estimate/flags）
recipe-flags-unmodelled = 会改变显存占用，但尚未建模（估算可能有偏差）：{ $flags }
recipe-flags-no-effect = 对显存没有影响：{ $flags }
recipe-flags-unknown = 未知参数，已忽略（不是 b11434 或更早版本的 llama-server 参数）：{ $flags }

## 模型文件头所示（estimate/hparams、estimate/indexer）
recipe-note-vocab-unknown = 词表大小未知：未估算输出缓冲区
recipe-note-mtp-skipped = 第 { $after } 层之后有 { $count } 个下一词预测（MTP）层：未给出 --spec-type draft-mtp 时，{ $arch } 的 load_arch_tensors 会跳过这些张量（TENSOR_SKIP），所以权重中不含它们，缓存和计算图中也没有
recipe-note-mla = MLA：缓存中存放压缩后的潜向量（key_length = kv_lora_rank + rope 维度）；当前 llama.cpp 中 V 是 K 的视图，所以 V 不占额外字节
recipe-note-mla-old-conversion = 有 kv_lora_rank 却没有 *_mla 长度：这是较旧的转换（没有拆分的 attn_k_b/attn_v_b，只有一个 attn_kv_b），llama.cpp 不用 MLA 运行它，缓存中存放每个头完整的 K/V（比 MLA 转换大数倍；KV 缓存一行按此估算）。近似：计算缓冲区按标准注意力的张量（attn_q/attn_k/attn_v）建模，而不是此文件的 attn_kv_a_mqa + attn_kv_b 解压
recipe-note-exaone4-no-swa = exaone4 共 { $layers } 层：少于 64 层时 llama.cpp 不使用滑动窗口（llama_model_exaone4::load_arch_hparams），无论 attention.sliding_window 怎么写：每层都保留完整上下文
recipe-note-phi3-no-swa = phi3：llama.cpp 会关闭文件中的滑动窗口（llama_model_phi3::load_arch_hparams）：每层都保留完整上下文
recipe-note-chunked = { $arch }：分块注意力（LLAMA_SWA_TYPE_CHUNKED），每块 { $tokens } 个 token；llama.cpp 按滑动窗口的方式估算其缓存
recipe-note-swa-pattern-unknown = 设置了 { $arch }.attention.sliding_window，但 gpuledger 不知道 llama.cpp 对 { $arch } 的层模式：每层都按完整上下文计算（上限）
recipe-note-indexer-unknown = { $arch } 有稀疏注意力索引器（attention.indexer.*），gpuledger 没有为它的缓存建模：KV 缓存一行不含索引器的键（偏低），计算缓冲区中也没有索引器的计算图
recipe-note-state-keys-missing = { $arch }：缺少循环层的大小键（ssm.*、wkv.*、kda.*、shortconv.*）：未估算循环状态

## 运行时估算方法没有估算的部分（not_modelled）
recipe-nm-device-total = 预留：不知道设备的总显存
recipe-nm-cuda-context = CUDA 上下文（运行 `gpuledger probe --save` 在本机实测）
recipe-vllm-nm-rest = 预留的其余部分如何分给{ $label }、CUDA 上下文和 NCCL 缓冲区（vLLM 在启动时分析测定）
recipe-vllm-nm-blocks = KV 块数：vLLM 在启动时按分析测得的激活峰值确定；它的 /metrics（vllm:cache_config_info num_gpu_blocks）或启动日志会给出
recipe-sglang-nm-tokens = KV 池的 token 数：SGLang 在启动时按静态池放下权重后剩余的空间确定；它的日志（KV Cache is allocated. #tokens）或 /get_server_info 会给出
recipe-sglang-nm-activations = 激活值和 CUDA graph：在静态池之外，占用 GPU 的其余部分
recipe-sglang-nm-fraction = 静态池的比例：命令行上没有，所以 SGLang 在启动时按 GPU 的大小选定；它的 /get_server_info 会给出
recipe-pytorch-nm-allocator = 缓存分配器在存活张量之外的预留（PYTORCH_CUDA_ALLOC_CONF={ $conf }）
recipe-pytorch-nm-allocator-default = 缓存分配器在存活张量之外的预留（未设置 PYTORCH_CUDA_ALLOC_CONF：默认分段）
recipe-pytorch-nm-activations = 激活值、梯度、优化器状态和任何 KV 缓存：属于程序自身，从外部看不到
recipe-pytorch-nm-offload = 每个打开的权重文件是否都在 GPU 上（文件也可能加载到 CPU，或被卸载）
recipe-vllm-nm-pipeline = 流水线各阶段自己的层：权重按 { $stages } 个阶段平均分配（第一阶段的嵌入层和最后阶段的输出头按均摊计算），KV 缓存按最大阶段的 ⌈层数 / { $stages }⌉ 层估算，对其他阶段是上限
recipe-vllm-nm-expert-parallel = 专家并行（--enable-expert-parallel）：每层 { $experts } 个专家分布在 { $ranks } 个 rank 上（TP { $tp } × DP { $dp }），而不是按 TP 切分；这里的权重全部按 TP 平分

## The runtime ledgers' rows: what the compute row holds, where the overhead is
recipe-vllm-rest-row = { $label }（预留的其余部分）
recipe-vllm-overhead-inside = 包含在预留之内（CUDA 上下文、NCCL、cuBLAS：vLLM 的非 torch 内存）
recipe-sglang-overhead = CUDA 上下文：在静态池之外的部分里
recipe-torch-compute-row = 激活值和缓存分配器的预留
recipe-torch-overhead-probe = CUDA 上下文，{ $label }
recipe-torch-overhead-none = 未在本机实测（没有保存的 probe 结果）
recipe-overhead-rpc = rpc-server 自己的后端：未估算

## What Ollama and LM Studio report of a loaded model, and the why sentence's lead
recipe-ollama-ctx-per-slot = 每个槽位 { $n } 个 token
recipe-ollama-keep-default = 未设置 OLLAMA_KEEP_ALIVE：5m
recipe-ollama-kept = 保持加载至 { $until }（{ $keep }）
recipe-ollama-lead-kept = { $name } 保持加载至 { $until }（{ $keep }）
recipe-ollama-lead-loaded = { $name } 由 Ollama 加载
recipe-ollama-loader-runner = Ollama 的运行器
recipe-ollama-loader-server = Ollama 的 llama-server
recipe-ollama-lead-loaded-by = { $name }（加载者：{ $loader }）
recipe-ollama-lead-unnamed = 一个模型（加载者：{ $loader }）
recipe-lmstudio-lead = { $name } 由 LM Studio 加载，上下文 { $ctx } 个 token
recipe-lmstudio-ctx = { $ctx } 个 token（模型最多允许 { $max }）
recipe-lmstudio-nm-settings = LM Studio 的 GPU 卸载、flash attention、KV 缓存类型和并发预测数保存在它自己的设置里，外部看不到：按 llama.cpp 的默认值假定（全部层、flash attention auto、f16 缓存、一个统一缓存）

## What vLLM's /metrics reports
recipe-vllm-reported-blocks = { $blocks } 个块，每块 { $tokens } 个 token
recipe-vllm-reported-tokens = { $tokens } 个 token
recipe-vllm-reported-usage = 块的 { $pct }

## Where a runtime recipe's inputs were read, and the weights' value
recipe-src-gguf-header = GGUF 文件头
recipe-src-safetensors = safetensors 文件头
recipe-src-driver = 驱动
recipe-found-path = 命令行上的路径
recipe-found-gguf = 命令行上的 GGUF 文件
recipe-found-hub-ref = hub 缓存（{ $how }），refs/main = { $rev }
recipe-found-hub-only = hub 缓存（{ $how }），唯一的快照
recipe-weights-value = { $bytes }，{ $tensors } 个张量，{ $files } 个文件
recipe-weights-value-ranks = { $bytes }，{ $tensors } 个张量，{ $files } 个文件，每个 rank { $per_rank }（÷ { $split }）
recipe-default-runtime = { $runtime }

## vLLM's KV rules, by the version that runs
recipe-vllm-rule-groups = 混合模型的层分成若干 KV 组（混合 KV 缓存管理器，v0.9.1 起）
recipe-vllm-rule-no-groups = 每层都是一页完整上下文（v0.9.1 之前没有混合 KV 缓存管理器）
recipe-vllm-rule-concurrency = GPU KV 缓存大小 = int(最大并发数 × max_model_len)（v0.20.1 起）
recipe-vllm-rule-per-group = GPU KV 缓存大小 = 块数 ÷ KV 组数 × 块大小（v0.20.1 之前）
recipe-vllm-rule-in-flight = 滑动窗口组持有 window − 1 + 所有进行中批次的 token（v0.26.0 起）
recipe-vllm-rule-batched = 滑动窗口组持有 window − 1 + max_num_batched_tokens（v0.26.0 之前）
recipe-vllm-version-assumed = 这里不知道正在运行的 vLLM 版本：按已读过的最新版本（v0.26.0 至 v0.33.0）的规则假定

## Why a process has no estimate
recipe-err-not-llama = 不是 llama.cpp 进程：{ $kind } 的估算由其运行时自己的估算方法给出
recipe-err-no-recipe = 还没有 { $kind } 的显存估算方法
recipe-err-rpc-device = rpc-server 持有其 llama-server 通过 RPC 发来的层（权重及其 KV 缓存），由该服务在其各设备间切分模型：这里不估算这一份额；对 llama-server 运行 `explain` 可看到整个模型
recipe-err-gguf-header = 无法读取模型的 GGUF 文件头：{ $error }
recipe-err-model-unknown = 不知道模型文件（见缺少的依据）
recipe-err-argv = 无法从命令行读取服务的设置：{ $error }
recipe-err-llama-env = 无法读取服务的 LLAMA_ARG_* 设置：{ $error }
recipe-err-ollama-no-model = 不知道模型文件：运行器没有映射任何模型文件，命令行也没有指定（它通过 /load 接收模型）
recipe-err-lms-mlx = LM Studio 的 MLX 引擎：没有估算方法能计算 MLX 的内存
recipe-err-lms-mlx-model = LM Studio 的 MLX 引擎（{ $model }）：没有估算方法能计算 MLX 的内存
recipe-err-lms-no-model = 不知道模型文件：LM Studio 的引擎没有映射任何 GGUF 文件（没有加载，或无法读取）
recipe-err-lms-not-asked = LM Studio 把已加载的上下文长度保存在自己的状态里，只能从它的 API（GET /api/v0/models）得知，这里没有询问
recipe-err-lms-no-match = { $source } 中没有与 { $path } 匹配的已加载模型
recipe-err-ollama-go = Ollama 自己的 Go 引擎（`ollama runner --ollama-engine`）自行分配权重、KV 缓存和计算图；没有估算方法能计算它
recipe-err-ollama-mlx = Ollama 的 MLX 引擎（`ollama runner --mlx-engine`）：没有估算方法能计算它
recipe-err-ollama-engine = { $what }。命令行为：{ $argv }
recipe-err-ollama-engine-ps = { $what }。命令行为：{ $argv }；{ $source } 显示 { $name }：size { $size }，size_vram { $vram }，上下文 { $context }
recipe-err-vllm-core-ranks = vLLM 的引擎核心在 { $ranks } 个 rank（张量 × 流水线并行）时自身不持有模型：它的 { $ranks } 个工作进程（VLLM::Worker_*）各持有一份，各自带有估算
recipe-err-vllm-core-worker = vLLM 的引擎核心在这里不持有模型：它启动了一个工作进程（VLLM::Worker，PID { $pid }；vLLM 的多进程执行器，其 CPU 版即使只有一个 rank 也这样运行），由该进程持有模型并带有估算

## A runtime recipe's inputs named in words (identifiers such as max_model_len stay as written)
recipe-input-kv-rules = vLLM 的 KV 规则
recipe-input-kv-block = 每块 KV 字节数（每个 rank）
recipe-input-kv-token = 每个 token 的 KV 字节数（每个 rank）
recipe-input-device-total = 设备显存总量
recipe-input-rope = 旋转位置编码 cos/sin 缓存
recipe-input-pipeline-stage = 流水线阶段
recipe-input-attention-tp = 注意力的 TP 大小
recipe-input-mxfp4 = vLLM 填充后的 MXFP4 专家
recipe-input-gguf-held = vLLM 持有的 GGUF 权重
recipe-input-hybrid-manager = 混合 KV 缓存管理器
recipe-input-weights-file = 权重文件
recipe-input-dp-replicas = data_parallel_size（副本数；每个 rank 的份额不变）
recipe-input-tokens-in-flight = 进行中的 token（滑动窗口组的预留）

## How the vLLM and SGLang recipes derive their KV figures
recipe-kv-torch-dtype = { $path } 中的 torch_dtype
recipe-kv-elem-auto = kv_cache_dtype auto = 模型 dtype { $dtype }（{ $source }）
recipe-kv-elem-set = kv_cache_dtype { $dtype }（{ $source }）
recipe-kv-formula = 2（K、V）× { $layers } 层 × 每个 rank { $heads } 个 KV 头（{ $kv_heads } / TP { $tp }）× 头大小 { $head_dim } × { $elem } B（{ $source }）
recipe-kv-formula-mla = MLA：{ $layers } 层 × { $dim } 个潜在值 × { $elem } B（{ $source }），每个 rank 相同
recipe-vllm-kv-block-value = { $bytes }（所有层合计每个 token { $per_token }）
recipe-vllm-kv-block-rule = { $per_token }× 每块 { $block } 个 token
recipe-vllm-kv-block-rule-groups = { $per_token }÷ { $layers } 层 × 每个 KV 组 { $group } 层（{ $groups } 个组；{ $source }）× 每块 { $block } 个 token
recipe-too-large = 过大
recipe-nm-kv-dtype = KV 缓存：缓存 dtype { $dtype } 是此估算方法不计算的打包格式
recipe-nm-kv-cache = KV 缓存：{ $why }
recipe-vllm-hybrid-off = 关闭（每层都是一页完整上下文）
recipe-vllm-hybrid-off-rule = --kv-transfer-config 会关闭它，除非给出 --no-disable-hybrid-kv-cache-manager（vLLM 0.9.1 起）
recipe-vllm-max-len-assumed = vLLM 的默认值，即模型的 max_position_embeddings（{ $path }）；rope 缩放可能改变它

## vLLM's rotary cos/sin cache
recipe-rope-value = { $bytes }（{ $parts }，{ $dtype }；{ $shared }，每个 rank 都有）
recipe-rope-value-unnamed = { $bytes }（{ $parts }，{ $dtype }；{ $shared }，每个 rank 都有；{ $unnamed }）
recipe-rope-part = { $positions } 个位置（{ $how }）× { $dim } 个旋转维度
recipe-rope-parts = { $a } + { $b }
recipe-rope-dtype-gpt-oss = float32（vLLM 的 gpt_oss.py 要求）
recipe-rope-dtype-f32 = float32（--dtype）
recipe-rope-dtype-model = 模型 dtype，16 位
recipe-rope-shared-one = 所有层共用一个缓存
recipe-rope-shared-many = { $count } 个缓存，每种不同的 rope 一个
recipe-rope-unnamed = { $path } 未指定 rope：使用 transformers 对 { $model_type } 的默认值，rope_theta 10000，无缩放
recipe-rope-rule = vLLM 的 get_rope：RotaryEmbedding.cos_sin_cache，模型的一个缓冲区，计入其加载数字

## vLLM serving a GGUF file
recipe-vllm-gguf-held = { $all }（文件本身 { $file }）：量化块 { $quantised }{ $padded }，未量化张量为 { $elem } 字节的 { $dtype }（{ $dense }）{ $ranks }
recipe-vllm-gguf-unpadded = ；{ $n } 个合并层按分片分别保存（vLLM 0.9 之前的嵌套张量），未填充
recipe-vllm-gguf-padded = ；{ $n } 个合并层填充到最宽分片的行宽（+{ $bytes }）
recipe-vllm-gguf-padded-unknown = ；{ $n } 个合并层填充到最宽分片的行宽（+{ $bytes }），按 vLLM 0.9 起的做法：这里不知道版本，0.9 之前分片不填充
recipe-vllm-gguf-padded-plugin = ；{ $n } 个合并层填充到最宽分片的行宽（+{ $bytes }），与 vllm-gguf-plugin 0.0.5 的填充方式相同（vLLM 0.24 起 GGUF 由它支持）
recipe-vllm-gguf-per-rank = ，每个 rank { $per_rank }（÷ { $ranks } 个 rank）
recipe-vllm-gguf-rule = vLLM 的 GGUF 层：GGUFLinearMethod 填充后的合并分片、模型 dtype 的归一化层、词表填充到 64 的倍数

## SGLang's parallel ranks
recipe-sglang-attention-tp = DP 注意力下 tp_size { $tp } / dp_size { $dp }（SGLang 的 compute_dp_attention_world_info）
recipe-sglang-stage = { $pp } 个流水线阶段中的第 { $stage } 个（来自进程标题）：{ $n_layer } 层中的 { $layers } 层（SGLang 的 get_pp_indices）
recipe-sglang-stage-unknown = 不知道流水线阶段（进程标题中没有 PP rank）：假定为 { $pp } 个阶段中最大的一个，{ $n_layer } 层中的 { $layers } 层
recipe-sglang-nm-stage-weights = 流水线阶段的权重：{ $per_tp } ÷ TP 后按该阶段所占的层数比例计算（{ $n_layer } 层中的 { $layers } 层）；嵌入层（第一阶段）和输出头（最后阶段）按均摊计算
recipe-sglang-nm-dp-attention = DP 注意力下的注意力权重：每个 rank 持有其注意力组的份额（÷ { $atp } = TP { $tp } / DP { $dp }），而不是 ÷ TP { $tp }；这里的权重全部按 ÷ TP 计算，是下限
recipe-sglang-nm-ep = 专家并行（--ep-size { $ep }）：MoE 专家分布在各 EP rank 上，而不是按 TP 切分；这里的权重全部按 TP 平分

## What a runtime reported, named in words (its own field names stay as written)
recipe-ollama-size = size（Ollama 自己对模型内存的估计）

## An rpc-server's share of its llama-server's estimate
recipe-why-rpc = PID { $pid } 的模型在 { $device } 上的部分：{ $layers } 层
recipe-why-rpc-output = PID { $pid } 的模型在 { $device } 上的部分：{ $layers } 层和输出层
recipe-nm-rpc-backend = rpc-server 的后端上下文（其 CUDA 或 Vulkan 额外开销）

## Where an Ollama runner's llama.cpp settings came from
recipe-src-free-memory = { $device } 的空闲显存
recipe-src-line-program = 命令行中的程序 { $program }
recipe-src-process-program = 进程的程序 { $program }
recipe-ollama-env-parent = /proc/{ $pid }/environ（ollama serve，运行器的父进程）
recipe-ollama-env-own = /proc/{ $pid }/environ（继承自 ollama serve）
recipe-ollama-env-in = { $source } 中的 { $var }
recipe-ollama-kv-per-slot = Ollama 的运行器保留 llama.cpp 的默认值 kv_unified = false：每个槽位一个缓存流
recipe-ollama-old-build = 2024 至 2025 年中的运行器：其 llama.cpp 早于所有与版本相关的计算规则（b7780 及以后）
recipe-ollama-nm-old-compute = 2025-07 之前的 llama.cpp 版本的计算缓冲区只对照过一份公开日志（ollama/ollama#8271：设备上误差 1 % 以内，主机上多 4 MiB）
recipe-ollama-nm-version-unknown = 不知道运行器的 llama.cpp 版本：llama.cpp 早于每槽位缓存流的运行器（llama.cpp #14363，2025 年 7 月；Ollama v0.7 及更早肯定如此）使用一个统一缓存，其计算缓冲区会大好几倍
recipe-ollama-swa-full = Ollama 的运行器保留 llama.cpp 的默认值 swa_full = true：滑动窗口层保留整个上下文
recipe-ollama-embeddings = Ollama 的运行器创建上下文时开启 embeddings（llama/llama.go NewContextParams）：输出缓冲区在 logits 之外还为每个槽位保留 n_embd 个浮点数
recipe-ollama-unified-old-server = Ollama 的 ollama_llama_server（v0.3 及之前的 C++ 服务，v0.4–v0.5 的 Go 运行器）：其 llama.cpp 早于每槽位缓存流，所以是一个统一缓存（kv_unified = true）
recipe-ollama-unified-version = Ollama { $version }：其 llama.cpp 早于每槽位缓存流，所以是一个统一缓存（kv_unified = true）
recipe-ollama-parallel-default = 未给出 --parallel：运行器的默认值 1
recipe-ollama-ctx-flag = --ctx-size（num_ctx × OLLAMA_NUM_PARALLEL：Ollama 在启动运行器之前已相乘）
recipe-ollama-ctx-default = 未给出 --ctx-size：运行器的默认值 2048
recipe-ollama-batch-flag = --batch-size × --parallel（运行器的 n_batch）
recipe-ollama-batch-default = 未给出 --batch-size：运行器的默认值 512 × --parallel（运行器的 n_batch）
recipe-ollama-batch-cpp = --batch-size（Ollama v0.3 的 C++ ollama_llama_server：llama.cpp 的服务把它作为 n_batch，不乘 --parallel）
recipe-ollama-batch-unknown = --batch-size × --parallel（Go 运行器的 n_batch；用同样参数启动的 Ollama v0.3 C++ ollama_llama_server 只取 --batch-size：这里不知道版本；n_ubatch 以及缓冲区两种情况都一样）
recipe-ollama-ubatch-default = 运行器不设置 n_ubatch：llama.cpp 的默认值 512
recipe-ollama-fa-default = 未给出 --flash-attn：只有 OLLAMA_FLASH_ATTENTION 开启且模型和 GPU 支持时 Ollama 才传入它
recipe-ollama-memory-f32 = --memory-f32（Ollama v0.3 的 C++ 服务：f32 KV 缓存）
recipe-ollama-nm-memory-f32 = --memory-f32：在 Ollama v0.3 的 C++ ollama_llama_server 下是 f32 KV 缓存（f16 的两倍），v0.4 起的 Go 运行器忽略它；这里不知道版本，所以假定 f16
recipe-ollama-ngl-default = 未给出 --n-gpu-layers：运行器的默认值 0
recipe-ollama-tensor-split = --tensor-split（Ollama 为运行器选定的每个 GPU 一项）
recipe-ollama-parallel-unset = 未设置 OLLAMA_NUM_PARALLEL：Ollama 的默认值 1
recipe-ollama-batch-load = num_batch 512（Ollama 的默认值；请求可以另设）× 槽位数：运行器的 n_batch
recipe-ollama-ubatch-load = num_batch 512（Ollama 的默认值，不超过 num_ctx）：运行器的 n_ubatch
recipe-ollama-ctx-ps = 来自 { $source } 的 context_length { $ctx }
recipe-ollama-ctx-env = { $source } 中的 OLLAMA_CONTEXT_LENGTH={ $ctx }（请求的 num_ctx 会覆盖它：没有 /api/ps 时看不到）
recipe-ollama-ctx-assumed = 没有 /api/ps 时看不到 num_ctx：假定为 Ollama 的默认值 4096（v0.15.5 起，24–48 GiB 的 GPU 上为 32768，48 GiB 以上为 262144，且请求的 num_ctx 会覆盖它）
recipe-ollama-ctx-slots = { $from }，× { $slots } 个槽位
recipe-ollama-nm-kv-type-ignored = 除非开启 OLLAMA_FLASH_ATTENTION，否则 Ollama 会忽略 OLLAMA_KV_CACHE_TYPE={ $type }：假定为 f16 缓存
recipe-ollama-ngl-load = Ollama 在 /load 请求中发送层的放置，外部看不到：假定所有层都在 GPU 上
recipe-ollama-nm-partial = 部分卸载：{ $source } 显示 { $size } 字节中有 { $vram } 字节在显存中；看不到 Ollama 在 GPU 上放了多少层，所以估算中“所有层都在 GPU 上”的放置偏高
recipe-ollama-fa-old = 未设置 OLLAMA_FLASH_ATTENTION：Ollama v0.13.4 之前为关闭；此服务是 { $version }（GET /api/version）
recipe-ollama-fa-auto = 未设置 OLLAMA_FLASH_ATTENTION：Ollama v0.13.4 起向 llama.cpp 请求 auto；此服务是 { $version }（GET /api/version）
recipe-ollama-fa-unknown = 未设置 OLLAMA_FLASH_ATTENTION：Ollama v0.13.4 起为 auto（之前为关闭；没有 GET /api/version 时不知道版本）

## LM Studio's load settings
recipe-lmstudio-ctx-from = 来自 { $source } 的 { $id } 的 loaded_context_length
recipe-lmstudio-assumed = LM Studio 的加载设置在外部看不到：假定为{ $what }
recipe-lmstudio-one-sequence = 一个序列
recipe-lmstudio-unified = 一个统一缓存（LM Studio 的默认值），共 loaded_context_length 个单元
recipe-lmstudio-all-layers = 所有层都在 GPU 上（GPU 卸载最大）

## What the runtimes' recipes leave to the kernels (quantised MoE experts) and to llama-server's fit
recipe-ollama-nm-fit = Ollama 默认不传 -ngl：llama-server 会按空闲显存放置各层（-fit），估算不模拟这一点（假定所有层都在 GPU 上）
recipe-sglang-nm-quantised-experts = 文件之外的权重：每层 { $experts } 个 { $q } 专家会为 SGLang 的 MoE 内核重新打包并填充，此估算方法不计算这部分，所以权重数字（文件中张量的字节数）是下限
recipe-vllm-nm-experts = 文件之外的权重：每层 { $experts } 个 { $q } 专家会为 vLLM 的 fused-MoE 内核重新打包并填充，所以权重数字（文件中张量的字节数）是下限，不是精确值
recipe-vllm-nm-experts-fp8 = 文件之外的权重：每层 { $experts } 个 { $q } 专家会为 vLLM 的 fused-MoE 内核重新打包并填充，所以权重数字（文件中张量的字节数）是下限，不是精确值；据 vLLM 源码：原生支持 FP8 时（计算能力 8.9 及以上），专家就是检查点中原样存储的 fp8 权重和 float32 块缩放因子，即文件的字节数；在 Ampere 上走 Marlin 路径（其日志会警告 "leveraging the Marlin kernel"），每个 128×128 块的缩放因子会扩展为每个输出列、每 128 个输入一个 16 位缩放因子
recipe-vllm-nm-experts-int4 = 文件之外的权重：每层 { $experts } 个 { $q } 专家会为 vLLM 的 fused-MoE 内核重新打包并填充，所以权重数字（文件中张量的字节数）是下限，不是精确值；据 vLLM 源码：Marlin MoE 重新打包时，打包的 4 位权重、缩放因子和零点保持原有大小（act-order 每个输入多一个 int32 排序索引），所以与文件的字节数很接近

## vLLM's MXFP4 experts (gpt-oss) as its kernel backend pads them
recipe-mxfp4-split-ep = { $experts } 个专家 ÷ { $ep } 个专家并行 rank
recipe-mxfp4-split-tp = intermediate { $i } ÷ TP { $tp } = { $per_rank }
recipe-mxfp4-words = 每层 { $experts } 个 MXFP4 专家 × { $layers } 层，hidden { $h } → { $h_pad }，intermediate { $i } → { $i_pad }（{ $split }；{ $backend } 把 hidden 填充到 { $th }、intermediate 填充到 { $ti }）：每个 rank 的专家共 { $per_rank }，检查点中未填充的为 { $file }
recipe-mxfp4-unknown = vLLM 选用了哪个 MXFP4 MoE 内核（取决于 GPU 以及是否安装了 FlashInfer 或 triton_kernels；其启动日志会说明，可用 --log 给出，或设置 VLLM_MXFP4_USE_MARLIN=1）：权重数字按检查点的字节数计算，是下限；每个 rank 上各后端会持有的张量为 { $each }，另加旋转位置编码缓存

## vLLM's --gpu-memory-utilization default by the version that runs
recipe-vllm-util-before = vLLM { $version }（{ $from }）：v0.21.0 之前为 0.9
recipe-vllm-util-since = vLLM { $version }（{ $from }）：v0.21.0 起为 0.92
recipe-vllm-util-unknown = vLLM v0.21.0 起的默认值（之前为 0.9；这里不知道正在运行的版本）

## vLLM and SGLang: why the model's folder or its config.json could not be read
recipe-err-model-not-found = 模型 { $model }：既不是这里能看到的文件夹，也不是 ORG/NAME 形式的 hub ID
recipe-err-model-no-home = 模型 { $model }：该进程没有 HOME 或 HF_HOME，无法找到它的 hub 缓存
recipe-err-model-snapshots = 模型 { $model }：{ $path }：{ $error }
recipe-err-model-no-snapshot = 模型 { $model }：{ $path } 下没有快照
recipe-err-model-snapshots-many = 模型 { $model }：{ $path } 下有 { $n } 个快照，且没有 refs/main 来选定其中一个
recipe-err-config-unreadable = { $path }：无法读取：{ $what }
recipe-err-config-json = { $path }：不是有效的 JSON：{ $what }
recipe-err-config-missing = { $path }：没有 { $what }
recipe-err-config-implausible = { $path }：不合理的 { $what }
recipe-err-safetensors = 无法读取模型的 safetensors 文件头：{ $error }
recipe-err-sglang-argv = 无法从命令行读取 SGLang 的设置：{ $error }
recipe-err-sglang-no-model = SGLang 的命令行没有指定模型（--model-path）
recipe-err-vllm-argv = 无法从命令行读取 vLLM 的设置：{ $error }
recipe-err-vllm-no-model = vLLM 的命令行没有指定模型（`vllm serve MODEL` 或 --model）
recipe-err-vllm-no-model-note = vLLM 的命令行没有指定模型（`vllm serve MODEL` 或 --model）；{ $note }
recipe-note-vllm-config-no-name = --config 没有给出文件名
recipe-note-vllm-config-unread = 未读取 vLLM 的 --config { $path }（{ $error }）：这里不知道其中的选项，只知道命令行上的
recipe-note-vllm-kv-count = vLLM 打印的 KV token 数：{ $why }
recipe-err-vllm-gguf-relative = vLLM 加载的是 GGUF 文件 { $model }，这是一个相对路径，而该进程的工作目录未知
recipe-err-vllm-gguf-not-file = vLLM 加载的是 GGUF 模型（{ $model }），它不是本机能读取的文件：其权重来自 GGUF 文件头，hub ID 或装有 GGUF 文件的文件夹未建模
recipe-err-ollama-parent = runner 的父进程（PID { $pid }）：无法读取
recipe-err-api-not-json = 不是 { $path } 应答的 JSON：{ $error }
recipe-err-api-no-list = { $path } 的应答中没有 "{ $list }" 列表
recipe-err-api-get = GET { $url }：{ $error }
recipe-err-api-port = 端口 { $port }：{ $error }
recipe-err-api-no-answer = { $path } 没有应答（{ $errors }）

## PyTorch: its weight files as read, and why one could not be
recipe-torch-how-safetensors = { $count } 个张量（safetensors 文件头）
recipe-torch-how-pickle = 文件大小（pickle 检查点：张量加上封装）
recipe-torch-weights-value = { $file }：{ $size }，{ $how }
recipe-torch-not-regular = { $path }：不是普通文件
recipe-torch-weights-unreadable = { $file } 中的权重：{ $error }
recipe-torch-sum-overflow = { $file }：加上这个文件，打开的权重文件超过 2^64 字节（没有磁盘能装下这样的大小）：未累加
recipe-err-torch-no-files = 没有映射或打开任何权重文件（safetensors、.pt、.pth、.ckpt、pytorch_model*.bin）：无法从 PyTorch 进程外部估算
recipe-err-torch-none-read = 没有能读取的权重文件：{ $why }
recipe-vllm-version-from = vLLM { $version }（{ $from }）
recipe-vllm-version-mapped = { $path }（该进程映射的软件包）

## vLLM's rotary cos/sin cache: how its rows were counted, and why it is not sized
recipe-rope-dynamic-before = { $max } × factor { $factor }，0.22 之前的 dynamic
recipe-rope-dynamic-since = max_position_embeddings，0.22 起的 dynamic
recipe-rope-dynamic-unknown = max_position_embeddings，按 0.22 起的 dynamic 计：vLLM 的版本未知，0.22 之前它缓存 { $max } × factor { $factor } 行
recipe-rope-longrope = { $short } 行短表 + { $long } 行长表，longrope
recipe-rope-err-need = 旋转位置编码的 cos/sin 缓存：{ $kind } 类 rope 没有可用的 { $key }
recipe-rope-err-no-max = 旋转位置编码的 cos/sin 缓存：{ $path } 没有给出 max_position_embeddings
recipe-rope-err-unnamed = 旋转位置编码的 cos/sin 缓存：{ $path } 没有指定旋转位置编码，其模型类型（{ $model_type }）也不在本规则已知有无旋转编码的类型之列
recipe-rope-no-model-type = 未给出
recipe-rope-err-overflow = 旋转位置编码的 cos/sin 缓存：大小溢出
recipe-rope-err-kind = { $kind } 类 rope 的旋转位置编码 cos/sin 缓存（vLLM 按类确定其大小；本规则已知 default、llama3、linear、dynamic、ntk、yarn、deepseek_yarn、longrope 和 mrope）
recipe-rope-err-dim = 旋转位置编码的 cos/sin 缓存：不合理的旋转维度 { $dim }
recipe-rope-err-partial = 旋转位置编码的 cos/sin 缓存：partial_rotary_factor { $factor }（vLLM 会拒绝）
recipe-sglang-nm-kv-overflow = KV 池：{ $tokens } 个 token × 每 token { $bytes } 字节，超出 64 位能表示的范围

## What the compute replay approximates, and why (estimate/compute, graph_gaps, backend_gaps)
recipe-approx-fused-q-k-v = 融合的 Q/K/V 投影（attn_qkv）：按三个投影计算
recipe-approx-attention-output-gate-attn = 注意力输出门（attn_gate）：不在回放中
recipe-approx-moe-routing = MoE 路由
recipe-approx-mla-attention = MLA 注意力
recipe-approx-deepseek-v4-graph-not = DeepSeek V4 的计算图：未回放，文件缺少构建它所需的某个键或张量（attn_q_a、attn_output_a、hyper_connection.count、compress_ratios）；以普通注意力层代替
recipe-approx-deepseek4-hash-routed-layers = deepseek4 的哈希路由层（按 token id 从 ffn_gate_tid2eid 选取专家）：依据 models/deepseek4.cpp 编写，未对照实际运行核对
recipe-approx-gated-deltanet-gpu-backend = GPU 后端上的 Gated DeltaNet：假定使用融合内核
recipe-approx-attention-without-kv-cache = 没有 KV 缓存的注意力（每层都共用一个缓存）：不在回放中
recipe-approx-glm5-next-k-pool = glm5-next 的 k-pool 索引器（没有可用的 attention.indexer.kpool，或大小超出任何设备的容量）：不在回放中
recipe-approx-glm5-next-gathered-sparse = glm5-next 的 gather 式稀疏注意力（n_ubatch ≤ 16）：按 scatter 路径计算
recipe-approx-adapter-router-one-head = 适配器路由器（对适配器 token 做单头注意力）以及每个投影逐 token 的 LoRA 增量（switch_lora）：不在回放中
recipe-approx-qwen4exp-ple-n-gram = qwen4exp 的 PLE n-gram 嵌入（大小超出范围）：未回放
recipe-approx-recurrent-layers-gpu-backend = GPU 后端上的循环层
recipe-approx-qwen4exp-qsa-indexer-sizes = qwen4exp 的 QSA 索引器（大小超出任何设备的容量）：其所在层按稠密方式计算
recipe-approx-rwkv-6-separate-lerps = RWKV-6 的独立 lerp（较旧的转换）：按融合的 lerp 计算
recipe-approx-gated-deltanet-layers-build = Gated DeltaNet 层（build_delta_net：分块 delta 规则、门控归一化）：按 Mamba-1 的形状计算
recipe-approx-kda-layers-kimi-delta = KDA 层（Kimi delta 注意力：Q/K/V 卷积、门控 delta 规则）：按 Mamba-1 的形状计算
recipe-approx-rwkv-time-mix-channel = RWKV 的时间混合层和通道混合层（build_rwkv6/7_time_mix）：按 Mamba-1 的形状计算
recipe-approx-recurrent-layers-mamba-1 = 循环层（Mamba-1 的形状）
recipe-approx-header-beyond-any-device = 未回放：文件头声明的张量或层超出任何设备的容量（此数字为最大的单个张量）
recipe-approx-unknown-arch = gpuledger 不认识的架构“{ $arch }”的计算图：按通用 transformer 的层计算
recipe-approx-hyper-connections = 超连接（由 hc_attn_fn / hc_ffn_fn 在每个注意力块和 FFN 块前后混合的多条残差流）：不在回放中，回放只保留一条流
recipe-approx-altup = Gemma 3n 的 AltUp（隐藏状态的多个副本贯穿每一层）和 LAuReL 块：不在回放中，回放每层只构建一个隐藏状态
recipe-approx-per-layer-embeddings = 逐层输入嵌入（在主机上查找 per_layer_token_embd 的行，经 per_layer_model_proj 投影后送入每一层）：不在回放中
recipe-approx-hrm-cycles = HRM 的周期（低阶栈和高阶栈的各槽位，每个都读取两个状态之和，在最后一个槽位之后选取输出）：回放把这些槽位写成普通的层堆叠
recipe-approx-kimi-k3-residual = Kimi-K3 的跨层残差注意力（在每个注意力和 FFN 之前，对暂存的各层输入打分并混合）及其在潜在宽度上运行的专家：不在回放中
recipe-approx-latent-projected = { $arch } 的潜在投影注意力（K 和 V 由 attn_kv_b 从 kv_lora_rank 维的潜向量逐头解压，再作为普通 K/V 缓存）：回放按标准注意力的形状编写，不含解压的中间张量
recipe-approx-legacy-latent = 较旧的、不含 MLA 的潜在注意力转换中的注意力（有 kv_lora_rank，没有 *_mla 长度，用 attn_kv_b 而不是 attn_k_b/attn_v_b）：llama.cpp 用 attn_kv_b 逐头解压 K 和 V；回放按标准注意力的形状编写
recipe-approx-indexer-dsa = DSA 闪电索引器（在每个已缓存位置上运行的 { $heads } 个大小为 { $size } 的头，及其 top-k 选择和稀疏掩码）：不在回放中，因此长上下文时计算缓冲区可能比估算值大数倍
recipe-approx-indexer-msa = MSA 块索引器（{ $heads } 个大小为 { $size } 的头、块分数、块 top-k 和局部块偏置）：不在回放中
recipe-approx-indexer-qsa = QSA 索引器（{ $heads } 个大小为 { $size } 的头：键池化、分数、top-k 选择）：不在回放中
recipe-approx-metal-host-experts = 专家放在主机上的 Metal（--cpu-moe、--n-cpu-moe、-ot exps=CPU）：对主机上的权重，Metal 只卸载矩阵乘积（ggml_backend_metal_device_offload_op），所以专家的偏置加法及其激活值留在主机计算缓冲区中；回放按此处理，但这里未对照 Metal 日志核对（此规则之前主机计算 −34 %，为估算值对比一次实际运行的公开日志，由 gpuledger issue #35 测得；这里未记录该日志的地址）
recipe-approx-metal-no-fa = 不用 flash attention 的 Metal（-fa off）：回放的不是 ggml-metal 的注意力路径，而是 CUDA 的：未建模（gpt-oss-120b：计算 −32 %，为估算值对比一次实际运行的公开日志，由 gpuledger issue #35 测得；这里未记录该日志的地址）
recipe-approx-rocm = ROCm（ggml-cuda 的 HIP 构建）：回放采用的是 CUDA 构建的计算图选择，而不是 HIP 构建自己的：未建模（gpt-oss-120b 在 -c 262144 -np 2 -ub 1024 下：ollama/ollama#16416 的日志中设备计算缓冲区为 796 MiB，回放为 439 MiB，−45 %；主机的 281 MiB 相差在 8 % 以内）
recipe-approx-vulkan-quant-k = 使用量化 K 缓存的 Vulkan（-ctk { $type }）：回放的不是 ggml-vulkan 对量化 K 的注意力，而是 CUDA 的：未建模（计算 −44 %，为估算值对比一次实际运行的公开日志，由 gpuledger issue #35 测得；这里未记录该日志的地址）
recipe-approx-devices-quant-kv = 多个设备（-ts）加量化 KV 缓存：对量化缓存视图，调度器在设备之间复制时由主机承担的部分未回放：未建模（两个 GPU，q8_0 KV：主机计算 37 vs 133 MiB，为估算值对比一次实际运行的公开日志，由 gpuledger issue #35 测得；这里未记录该日志的地址）
recipe-approx-vulkan-reorder = Vulkan 设备缓冲区：Vulkan 为了并行会重排每个 split 的节点（ggml_vk_graph_optimize），这会改变哪些张量同时存活；回放保持计算图的顺序（设置 GGML_VK_DISABLE_GRAPH_OPTIMIZE=1 时精确；重排时最多相差一个 n_embd × n_ubatch 的 F32 激活值：在测试网格上误差在 10 % 以内，小缓冲区则在这一个激活值以内）

## The estimate's inputs, notes and the --fit replay's sentences (estimate/hparams, memory, indexer, context, fit)
recipe-window-llama4 = llama_model_llama4::load_arch_hparams：分块注意力，8192
recipe-window-smallthinker = llama_model_smallthinker::load_arch_hparams：4096，每组首层为全注意力
recipe-window-exaone4 = llama_model_exaone4::load_arch_hparams：64 层
recipe-window-gemma2 = llama_model_gemma2::load_arch_hparams
recipe-rule-head-kv-absent = 缺少 head_count_kv：等于 head_count
recipe-rule-router-layer = llama_model_granite_switch::load_arch_hparams：适配器路由器，即各块之后的一个注意力层（1 个头），保存在 KV 缓存中
recipe-rule-swa-pattern = llama.cpp 对 { $arch } 的层模式
recipe-value-per-layer-array = 逐层数组
recipe-value-swa-pattern = { $swa } 层 SWA : 1 层全注意力
recipe-value-swa-pattern-full-first = { $swa } 层 SWA : 1 层全注意力，每组首层为全注意力
recipe-rule-full-attention-interval = llama.cpp 的默认值：每 4 层中的第 4 层为全注意力
recipe-rule-gemma3n-kv-from-start = llama.cpp 对 gemma3n 的取值
recipe-value-n-of-layers = { $total } 层中的 { $n } 层
recipe-rule-minimax-m3-sparse = minimax-m3：从 leading_dense_block_count 起为稀疏层
recipe-value-from-layer = 从第 { $layer } 层起
recipe-rule-glm-dsa-every-layer = 没有 indexer.types，且训练上下文低于 1M（GLM 5、5.1）：每层都有索引器（models/glm-dsa.cpp）
recipe-rule-glm-5-2-pattern = 没有 indexer.types：GLM-5.2 的默认模式（models/glm-dsa.cpp）
recipe-value-n-of = { $total } 个中的 { $n } 个
recipe-rule-glm5-next-indexer-types = 没有 indexer.types：每个注意力层都有自己的索引器（llama_model_glm5_next::load_arch_hparams）
recipe-rule-hy-v4-indexer-types = 没有 indexer.types：没有任何层拥有索引器（llama_model_hy_v4::load_arch_hparams）
recipe-rule-kpool-row = llama_hparams::indexer_kpool_row：缓存的一行为 键 | 门控 | 池化值
recipe-rule-hy-v4-no-indexer = 缺少 { $key } 或其为 0：全注意力的检查点，没有索引器缓存（llama_model::create_memory，LLM_ARCH_HY_V4）
recipe-rule-qsa-not-pooled = 没有 compress_ratios：索引器的键不做池化（models/qwen4exp.cpp）
recipe-note-ctx0-per-slot = -c 0（训练上下文）且每个槽位各有一个缓存：{ $slots } 个槽位各自得到完整的训练上下文（{ $train }），n_ctx = { $n_ctx }
recipe-note-kv-unified-forced = kv_unified 被强制设为 true：此 llama.cpp 版本用 ggml_cpy 写入 KV 缓存，所有序列共用一个缓存（早于规则 kv-write-idxs）
recipe-note-plm-fa-abort = llama.cpp b11434 在启用 flash attention 时运行 plm 会中止（ggml_set_rows 中的 GGML_ASSERT，由 llama_kv_cache::cpy_v 调用）：请用 -fa off 运行；此估算按给出的设置计算
recipe-note-mtmd-projector = llama-mtmd-cli 还会加载多模态投影器（--mmproj），它有自己的权重和计算缓冲区：不在此估算中
recipe-note-grok-fa-off = flash attention 关闭：无论 -fa 如何设置，llama.cpp 都会对 grok 强制关闭它（llama_init_from_model）
recipe-rule-device-order = 先 RPC 服务器，后本地 GPU；-sm none 保留 --main-gpu
recipe-note-override-matches-nothing = { $flag }：不匹配此模型的任何张量（或只匹配已由前面的覆盖规则放置的张量）
recipe-note-dsv4-hc-abort = 除非有 4 条超连接流，否则 llama.cpp b11434 运行 deepseek4 会中止（上下文预留其计算图时，build_hc_pre 中的 GGML_ASSERT(hc == 4)）；此文件有 { $streams } 条：这些数值是该计算图所需的量
recipe-value-newest-rules = 最新规则
recipe-src-loaded-library = 加载了 { $lib }
recipe-src-measured-nvidia = 在 NVIDIA 设备上实测
recipe-src-measured-amd = 在 AMD 设备上实测
recipe-src-measured-apple = 在 Apple GPU 上实测
recipe-src-measured-other = 在 Intel/其他 GPU 上实测
recipe-src-fit-no-mmap = --fit 的推算按不使用 mmap 加载计算
recipe-note-rpc-only = 未发现本地 GPU：设备只有 { $count } 个 RPC 服务器（--gpus N 会在其后添加本地 GPU）；它们的缓冲区按 CUDA 的方式建模（可用 --backend 更改）
recipe-src-live-free = 当前各 GPU 的空闲显存
recipe-src-free-plus-own = 设备当前的空闲显存加上此服务自身占用的量
recipe-note-fit-not-replayed = 未按加载时的空闲显存（{ $free }）把 --fit（默认开启）回放到底：{ $why }；估算保持未设置的参数不变，而 llama-server 的 --fit 可能已把它们调低
recipe-note-fit-replayed = 已按加载时的空闲显存回放 --fit（默认开启），该值取当前空闲量（{ $free }）+ 此服务自身占用量（{ $own }）：{ $flags }（{ $outcome }）
recipe-note-fit-replayed-why = 已按加载时的空闲显存回放 --fit（默认开启），该值取当前空闲量（{ $free }）+ 此服务自身占用量（{ $own }）：{ $flags }（{ $outcome }：{ $why }）
recipe-overhead-probed = { $device } 上的 CUDA 上下文，由 probe 于 { $date } 实测
recipe-fit-stopped-bound = 回放在 { $n } 次显存推算后停止（达到其上限）；llama.cpp 会继续：这些设置是目前为止得到的结果
recipe-fit-stopped-time = 回放在 { $n } 次显存推算后停止（用完其在采集路径上的时间预算）；llama.cpp 会继续：这些设置是目前为止得到的结果
recipe-note-override-no-gpu-backend = { $flag }：没有 GPU 后端的 llama-server 没有缓冲区类型 { $type }，会拒绝它；估算（后端 cpu）把这些张量留在主机上
recipe-note-override-unknown-device = { $flag }：{ $type } 不是所估算设备（{ $devices }）中的任何一个；估算把这些张量计在 { $first } 上（llama-server 会拒绝其未列出的缓冲区类型）
recipe-err-cache-row-blocks = { $flag } { $type } 无法存放此模型的缓存：第 { $layer } 层的一行有 { $n } 个元素，不能分成整数个 { $type } 块（每块 { $block } 个元素）
recipe-err-refuses-n-seq = llama.cpp 拒绝这些设置：n_seq_max 必须 <= 256（给出的是 -np { $n }）
recipe-err-ctx-32bit = 上下文 { $c }（或批次 { $batch } / 微批次 { $ubatch }）超出 llama.cpp 32 位大小的范围（最大 { $max }）；请显式给出 -c
recipe-err-refuses-qv-grok = llama.cpp 拒绝这些设置：量化的 V 缓存（{ $type }）要求启用 flash_attn，而 llama.cpp 对 grok 会强制关闭它
recipe-err-refuses-qv-fa-off = llama.cpp 拒绝这些设置：量化的 V 缓存（{ $type }）要求启用 flash_attn（给出的是 -fa off）
recipe-err-refuses-mla-types = llama.cpp 拒绝这些设置：模型不支持 K（{ $k }）和 V（{ $v }）使用不同的缓存类型（MLA 把 V 存放在 K 之中；请为 -ctk 和 -ctv 指定相同的类型）
recipe-err-no-estimate = 无法估算此模型：{ $why }

## Where a runtime's flags were read; owners not taken at their word; --group-by's errors; several GPUs
recipe-src-flag-from = { $flag }（{ $from }）
recipe-src-parent-cmdline = /proc/{ $pid }/cmdline（父服务进程；此进程的标题替换了它自己的命令行）
recipe-note-several-gpus = 本机上，面向此厂商的 llama-server 构建能看到 { $count } 块 GPU（{ $gpus }），并会全部使用（按空闲显存分配各层）：此估算只针对 GPU{ $index }；--gpus { $count } 可估算这种分配（按编号顺序，即设置 CUDA_DEVICE_ORDER=PCI_BUS_ID 时 CUDA 的顺序）
recipe-note-split-evenly = 没有 -ts，也不知道每个设备的空闲显存（estimate --free）：各层平均分配，与 llama.cpp 在各设备空闲显存相同时的做法一致

## llama-server's flag values refused (estimate/settings, devices, overrides)
recipe-flag-not-number = { $flag }：{ $value } 不是有效的数字
recipe-flag-too-big = { $flag }：{ $value } 超出范围：llama-server 把它读作 32 位整数（最大 { $max }）
recipe-flag-negative = { $flag }：{ $value } 是负数
recipe-flag-cache-type = { $flag }：不支持的缓存类型 { $value }（llama.cpp 接受 { $types }）
recipe-flag-cache-type-unknown = { $flag }：未知类型 { $value }
recipe-flag-needs-value = { $flag } 需要一个值
recipe-flag-not-on-off = { $flag }：{ $value } 不是 on 或 off
recipe-flag-fit-target = { $flag }：{ $value } 不是 1 到 16 个以 MiB 为单位的大小
recipe-flag-slots = { $flag }：{ $value } 个槽位无效（请用 -1 表示 auto，或 N >= 1）
recipe-flag-not-fa = { $flag }：{ $value } 不是 on、off 或 auto
recipe-flag-load-mode = { $flag }：{ $value } 不是 auto、none、mmap、mlock、mmap+mlock 或 dio
recipe-flag-ts-too-many = { $flag }：{ $value } 个比例，超过 llama.cpp 的 16 个设备上限
recipe-flag-ts-proportion = { $flag }：{ $value } 不是比例（应为 >= 0 的数字）
recipe-flag-split-mode = { $flag }：{ $value } 不是 none、layer、row 或 tensor
recipe-flag-rpc-too-many = { $flag }：{ $value } 个服务器，超过 llama.cpp 的 16 个设备上限
recipe-flag-not-override = { $flag }：{ $value } 不是 PATTERN=BUFFER_TYPE 格式（llama-server 会拒绝它）
recipe-flag-layers = { $flag }：{ $value } 不是层数

## What is wrong with a model's header (estimate/hparams, memory, parts)
recipe-err-header = { $file }：{ $message }
recipe-hdr-required = 缺少必需的键 { $key }，或其值不是整数
recipe-hdr-array-too-long = { $key }：数组有 { $n } 项，太长，不可能是逐层数组
recipe-hdr-array-layers = { $key } 有 { $n } 项，但模型有 { $layers } 层
recipe-hdr-not-integers = { $key }：其中的项不是整数
recipe-hdr-not-integer = { $key } 不是整数
recipe-hdr-no-arch = 缺少 general.architecture：不是 llama.cpp 能加载的模型文件
recipe-hdr-block-count = { $key } 为 { $n }，不是合理的层数
recipe-hdr-pattern-too-long = { $key }：有 { $n } 项，比任何模型的层数都多
recipe-hdr-implausible = { $name } = { $value } 不是合理的值（最大为 { $max }）
recipe-hdr-bool-array-layers = { $key } 有 { $n } 项，而层数为 { $layers }
recipe-hdr-not-booleans = { $key }：其中的项不是布尔值
recipe-hdr-not-boolean = { $key } 不是布尔值
recipe-hdr-interval-zero = { $key } 为 0：llama.cpp 会将每层的索引对它取模
recipe-hdr-beyond-64 = 文件头声明的大小超出任何设备的容量：{ $what } 超过 2^64 字节
recipe-flag-why = { $flag }：{ $why }
recipe-overrides-too-many = 张量覆盖规则共 { $n } 条；超过 { $max } 条时 llama-server 会中止（--n-cpu-moe N 每层加一条）
