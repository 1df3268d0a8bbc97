# 估算方法的句子（crates/workloads/src/estimate）：输入的来源、假定与备注。术语见 ../../GLOSSARY.md。

## 默认值的来源
recipe-not-given = 未给出 { $flag }：{ $default }
recipe-default-ctx-train = 0 = 模型的训练上下文
recipe-default-np-auto = -1 = 自动：4 个槽位，统一缓存
recipe-default-kvu-auto = -np 为自动时统一
recipe-default-kv-follows-layer = KV 跟随其所在层
recipe-default-logits-only = 仅 logits
recipe-default-build-unknown = 未知：按最新规则
recipe-default-no-rpc = 无 RPC 服务
recipe-default-one-gpu = 一个本地 GPU
recipe-default-by-free-memory = 按空闲显存
recipe-default-unknown = 未知
recipe-default-on = 开
recipe-default-fit-target = 每个设备 { $mib } MiB
recipe-default-no-device = 未发现设备：{ $backend }
recipe-default-vendor-of = { $device } 的厂商
recipe-default-rpc-only = 未发现本地 GPU：仅 RPC 服务
recipe-tool-one-sequence = { $tool }：一个序列（common_params n_parallel = 1）
recipe-tool-not-unified = { $tool }：kv_unified = false（common_params）
recipe-unified-np-auto = 统一，因为 -np 为自动
recipe-unified-np-1-became-4 = 统一：llama-server 把 -np 1 变成了 4 个共用统一缓存的槽位
recipe-one-slot-no-np-auto = 1 个槽位：此 llama.cpp 版本没有 -np auto（规则 np-auto）
recipe-per-slot-caches = 给出 -np 时每个槽位各有缓存
recipe-fa-off-old-build = 关：此 llama.cpp 版本早于 -fa auto（规则 fa-auto）

## 假定
recipe-fa-auto-enabled = 每层的 KV 都与该层在一起时，-fa auto 解析为开启（llama-server 日志："Flash Attention was auto, set to enabled"）
recipe-build-unknown = 未给出 llama.cpp 版本（--llama-build 或服务 /props 的 build_info）：按最新规则估算

## 备注
recipe-ngl-auto-all-fit = -ngl auto：假定全部放得下；空闲显存不足时，llama-server 的 --fit 可能少卸载几层，或缩小未设置的 -c
recipe-np-1-became-4 = -np 1 变成了 4 个共用一个统一缓存的槽位：此 llama.cpp 版本的 llama-server 在未给出 -kvu 时会这样做（"setting n_parallel = 4 and kv_unified = true"；有草稿模型时不会，此情形未建模）
recipe-fit-not-replayed-host = 未回放 --fit on（llama-server 的默认值）：没有设备时它按主机的总内存预算，这里不知道该值（请给出 --free SIZE）
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
recipe-vllm-rest-graphs = 激活值和 CUDA graph
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
