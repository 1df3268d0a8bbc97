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
