# 估算方法的句子（crates/workloads/src/estimate）：輸入的來源、假定與備註。術語見 ../../GLOSSARY.md。

## 預設值的來源
recipe-not-given = 未指定 { $flag }：{ $default }
recipe-default-ctx-train = 0 = 模型的訓練上下文
recipe-default-np-auto = -1 = 自動：4 個槽位，統一快取
recipe-default-kvu-auto = -np 為自動時使用統一快取
recipe-default-kv-follows-layer = KV 跟隨其所在層
recipe-default-logits-only = 僅 logits
recipe-default-build-unknown = 未知：依最新規則
recipe-default-no-rpc = 無 RPC 伺服器
recipe-default-one-gpu = 一個本機 GPU
recipe-default-by-free-memory = 依可用顯示記憶體
recipe-default-unknown = 未知
recipe-default-on = 開
recipe-default-fit-target = 每個裝置 { $mib } MiB
recipe-default-no-device = 未發現裝置：{ $backend }
recipe-default-vendor-of = { $device } 的廠商
recipe-default-rpc-only = 未發現本機 GPU：僅 RPC 伺服器
recipe-tool-one-sequence = { $tool }：一個序列（common_params n_parallel = 1）
recipe-tool-not-unified = { $tool }：kv_unified = false（common_params）
recipe-unified-np-auto = 統一，因為 -np 為自動
recipe-unified-np-1-became-4 = 統一：llama-server 把 -np 1 變成了 4 個共用統一快取的槽位
recipe-one-slot-no-np-auto = 1 個槽位：此 llama.cpp 版本沒有 -np auto（規則 np-auto）
recipe-per-slot-caches = 指定 -np 時每個槽位各有快取
recipe-fa-off-old-build = 關：此 llama.cpp 版本早於 -fa auto（規則 fa-auto）

## 假定
recipe-fa-auto-enabled = 每層的 KV 都與該層放在同一裝置上時，-fa auto 解析為開啟（llama-server 記錄："Flash Attention was auto, set to enabled"）
recipe-build-unknown = 未指定 llama.cpp 版本（--llama-build 或伺服器 /props 的 build_info）：依最新規則估算

## 備註
recipe-ngl-auto-all-fit = -ngl auto：假定全部放得下；可用顯示記憶體不足時，llama-server 的 --fit 可能少卸載幾層，或縮小未設定的 -c
recipe-np-1-became-4 = -np 1 變成了 4 個共用一個統一快取的槽位：此 llama.cpp 版本的 llama-server 在未指定 -kvu 時會這樣做（"setting n_parallel = 4 and kv_unified = true"；有草稿模型時不會，此情形未建模）
recipe-fit-not-replayed-host = 未重播 --fit on（llama-server 的預設值）：沒有裝置時它依主機的總記憶體編列預算，這裡不知道該值（請指定 --free SIZE）
recipe-fit-not-replayed = 未重播 --fit on（llama-server 的預設值）：這裡不知道 { $count } 個裝置各自的可用顯示記憶體（請依 llama.cpp 的裝置順序指定 --free SIZE,...：{ $devices }）

## 額外開銷
recipe-overhead-cuda = 處理程序的 CUDA 上下文、kernel 與 cuBLAS 工作區（不是 llama.cpp 的緩衝區；依 GPU、驅動程式和 CUDA_MODULE_LOADING 而異，通常為 128–512 MiB）
recipe-overhead-rocm = 處理程序的 HIP 上下文、kernel 與 hipBLAS 工作區（不是 llama.cpp 的緩衝區；依 CUDA 通常的 128–512 MiB 假定，未在 ROCm 上實測）
recipe-overhead-metal = Metal 裝置額外開銷：沒有數值（統一記憶體）
recipe-overhead-vulkan = Vulkan 驅動程式額外開銷：此後端沒有數值
recipe-overhead-cpu = 沒有 GPU 裝置

## 為什麼這麼多（每個處理程序一句話）
recipe-why-llama = { $model }：權重 { $weights }（{ $layers } 層中 { $gpu_layers } 層在 GPU 上），KV 快取 { $kv }，容納 { $tokens } 個 token{ $slots }（{ $type_k }/{ $type_v }），計算緩衝區 { $compute }
recipe-why-slots-shared = ，由 { $slots } 個槽位共用
recipe-why-slots-each = ，每個槽位一份 × { $slots } 個槽位
recipe-why-and-placement = { $why }；{ $placement }
recipe-why-runtime = { $lead }：權重 { $weights }，KV 快取 { $kv }，每個槽位 { $tokens } 個 token × { $slots } 個槽位

## vLLM 的「為什麼」（runtimes/vllm/estimate.rs）
recipe-rank-share = （{ $ranks } 個 rank 中每個的份額）
recipe-vllm-util = `--gpu-memory-utilization { $value }`，{ $from }
recipe-vllm-util-default = 預設值
recipe-vllm-util-flag = 來自其命令列
recipe-vllm-util-metrics = 來自其 /metrics
recipe-vllm-util-log = 來自其啟動記錄
recipe-vllm-rest-eager = 激活值（無 CUDA graph：--enforce-eager）
recipe-rest-activations-graphs = 激活值和 CUDA graph
recipe-vllm-kv-bytes = KV 快取 { $kv }（{ $source }）
recipe-vllm-kv-blocks = KV 快取 { $kv }，共 { $blocks } 個區塊，每區塊 { $block } 個 token{ $groups }
recipe-vllm-kv-groups = ，{ $groups } 個 KV 群組共 { $tokens } 個 token
recipe-vllm-why-contradiction-kv = 估算自相矛盾：權重 { $weights }{ $ranks } 加上 { $kv_how }，超過了 vLLM 預留的量，即此 GPU 的 { $pct }（{ $reserved }，{ $util }）。有一項輸入不是 vLLM 實際使用的：裝置、使用率、模型資料夾或 KV 快取的資料類型。
recipe-vllm-why-contradiction = 估算自相矛盾：權重 { $weights }{ $ranks } 超過了 vLLM 預留的量，即此 GPU 的 { $pct }（{ $reserved }，{ $util }）。有一項輸入不是 vLLM 實際使用的：裝置、使用率、模型資料夾或 KV 快取的資料類型。
recipe-vllm-why-reserves = vLLM 預留此 GPU 的 { $pct }（{ $util }）：權重 { $weights }{ $ranks }，{ $kv_how }，其餘（{ $rest }）用於{ $rest_label }。
recipe-vllm-why-reserves-no-blocks = vLLM 預留此 GPU 的 { $pct }（{ $util }）：權重 { $weights }{ $ranks }；其餘（{ $rest }）用於 KV 快取和{ $rest_label }（這裡不知道區塊數）。
recipe-vllm-why-no-size-kv = vLLM 預留其 GPU 的 { $pct }（{ $util }），但這裡不知道該 GPU 的大小：權重 { $weights }{ $ranks }，{ $kv_how }。
recipe-vllm-why-no-size = vLLM 預留其 GPU 的 { $pct }（{ $util }），但這裡不知道該 GPU 的大小：權重 { $weights }{ $ranks }。
recipe-vllm-why-kv-bytes = vLLM 持有權重 { $weights }{ $ranks } 和 { $kv_how }，它取代了 --gpu-memory-utilization 的預留；{ $rest_label }另計。

## SGLang 的「為什麼」（runtimes/sglang/mod.rs）
recipe-sglang-kv = KV 快取 { $kv }，容納 { $tokens } 個 token
recipe-sglang-kv-left = KV 池在剩餘部分中（最多 { $most }；這裡不知道其 token 數）
recipe-sglang-kv-unknown = KV 池（這裡不知道大小）
recipe-sglang-why-contradiction-kv = 估算自相矛盾：權重 { $weights }{ $ranks } 加上 KV 快取 { $kv }，超過了 SGLang 的靜態池，即此 GPU 的 { $pct }（{ $pool }，`--mem-fraction-static { $fraction }`）。有一項輸入不是 SGLang 實際使用的：裝置、比例、模型資料夾或 KV 快取的資料類型。
recipe-sglang-why-contradiction = 估算自相矛盾：權重 { $weights }{ $ranks } 超過了 SGLang 的靜態池，即此 GPU 的 { $pct }（{ $pool }，`--mem-fraction-static { $fraction }`）。有一項輸入不是 SGLang 實際使用的：裝置、比例、模型資料夾或 KV 快取的資料類型。
recipe-sglang-why-pool = SGLang 把此 GPU 的 { $pct } 留作靜態池（`--mem-fraction-static { $fraction }`）：權重 { $weights }{ $ranks }，{ $kv_words }；激活值和 CUDA graph 另計，來自剩下的 { $remaining }。
recipe-sglang-why-pool-server = SGLang 把此 GPU 的 { $pct } 留作靜態池（`--mem-fraction-static { $fraction }`，來自其伺服器資訊）：權重 { $weights }{ $ranks }，{ $kv_words }；激活值和 CUDA graph 另計，來自剩下的 { $remaining }。
recipe-sglang-why-no-fraction = SGLang 在靜態池中持有權重 { $weights }{ $ranks } 和 { $kv_words }，這裡不知道該池佔 GPU 的比例；激活值和 CUDA graph 另計。

## PyTorch 的「為什麼」（runtimes/pytorch/mod.rs）
recipe-pytorch-why = 這個 PyTorch 程式在 { $files } 個檔案中開啟了 { $weights } 的權重；激活值和快取配置器的預留另計，從外部無法估算其大小。
recipe-pytorch-why-context = 這個 PyTorch 程式在 { $files } 個檔案中開啟了 { $weights } 的權重，另有 { $context } 的 CUDA 上下文；激活值和快取配置器的預留另計，從外部無法估算其大小。
recipe-pytorch-why-comfyui = ComfyUI 在 { $files } 個檔案中開啟了 { $weights } 的權重；激活值和快取配置器的預留另計，從外部無法估算其大小。
recipe-pytorch-why-comfyui-context = ComfyUI 在 { $files } 個檔案中開啟了 { $weights } 的權重，另有 { $context } 的 CUDA 上下文；激活值和快取配置器的預留另計，從外部無法估算其大小。

## 估算未使用的參數（estimate/flags）
recipe-flags-unmodelled = 會改變顯示記憶體用量，但尚未建模（估算可能有偏差）：{ $flags }
recipe-flags-no-effect = 對顯示記憶體沒有影響：{ $flags }
recipe-flags-unknown = 未知參數，已忽略（不是 b11434 或更早版本的 llama-server 參數）：{ $flags }

## 模型檔頭所示（estimate/hparams、estimate/indexer）
recipe-note-vocab-unknown = 詞表大小不明：未估算輸出緩衝區
recipe-note-mtp-skipped = 第 { $after } 層之後有 { $count } 個下一詞預測（MTP）層：未指定 --spec-type draft-mtp 時，{ $arch } 的 load_arch_tensors 會略過這些張量（TENSOR_SKIP），所以權重中不含它們，快取和計算圖中也沒有
recipe-note-mla = MLA：快取中存放壓縮後的潛向量（key_length = kv_lora_rank + rope 維度）；目前 llama.cpp 中 V 是 K 的檢視，所以 V 不佔額外位元組
recipe-note-mla-old-conversion = 有 kv_lora_rank 卻沒有 *_mla 長度：這是較舊的轉換（沒有拆分的 attn_k_b/attn_v_b，只有一個 attn_kv_b），llama.cpp 不用 MLA 執行它，快取中存放每個頭完整的 K/V（比 MLA 轉換大數倍；KV 快取一行依此估算）。近似：計算緩衝區依標準注意力的張量（attn_q/attn_k/attn_v）建模，而不是此檔案的 attn_kv_a_mqa + attn_kv_b 解壓縮
recipe-note-exaone4-no-swa = exaone4 共 { $layers } 層：少於 64 層時 llama.cpp 不使用滑動視窗（llama_model_exaone4::load_arch_hparams），無論 attention.sliding_window 怎麼寫：每層都保留完整上下文
recipe-note-phi3-no-swa = phi3：llama.cpp 會關閉檔案中的滑動視窗（llama_model_phi3::load_arch_hparams）：每層都保留完整上下文
recipe-note-chunked = { $arch }：分塊注意力（LLAMA_SWA_TYPE_CHUNKED），每塊 { $tokens } 個 token；llama.cpp 依滑動視窗的方式估算其快取
recipe-note-swa-pattern-unknown = 設定了 { $arch }.attention.sliding_window，但 gpuledger 不知道 llama.cpp 對 { $arch } 的層模式：每層都依完整上下文計算（上限）
recipe-note-indexer-unknown = { $arch } 有稀疏注意力索引器（attention.indexer.*），gpuledger 沒有為它的快取建模：KV 快取一行不含索引器的鍵（偏低），計算緩衝區中也沒有索引器的計算圖
recipe-note-state-keys-missing = { $arch }：缺少循環層的大小鍵（ssm.*、wkv.*、kda.*、shortconv.*）：未估算循環狀態

## 執行環境估算方法沒有估算的部分（not_modelled）
recipe-nm-device-total = 預留：不知道裝置的總記憶體
recipe-nm-cuda-context = CUDA 上下文（執行 `gpuledger probe --save` 在本機實測）
recipe-vllm-nm-rest = 預留的其餘部分如何分給{ $label }、CUDA 上下文和 NCCL 緩衝區（vLLM 在啟動時分析測定）
recipe-vllm-nm-blocks = KV 區塊數：vLLM 在啟動時依分析測得的激活峰值決定；它的 /metrics（vllm:cache_config_info num_gpu_blocks）或啟動記錄會列出
recipe-sglang-nm-tokens = KV 池的 token 數：SGLang 在啟動時依靜態池放下權重後剩餘的空間決定；它的記錄（KV Cache is allocated. #tokens）或 /get_server_info 會列出
recipe-sglang-nm-activations = 激活值和 CUDA graph：在靜態池之外，佔用 GPU 的其餘部分
recipe-sglang-nm-fraction = 靜態池的比例：命令列上沒有，所以 SGLang 在啟動時依 GPU 的大小選定；它的 /get_server_info 會列出
recipe-pytorch-nm-allocator = 快取配置器在存活張量之外的預留（PYTORCH_CUDA_ALLOC_CONF={ $conf }）
recipe-pytorch-nm-allocator-default = 快取配置器在存活張量之外的預留（未設定 PYTORCH_CUDA_ALLOC_CONF：預設區段）
recipe-pytorch-nm-activations = 激活值、梯度、最佳化器狀態和任何 KV 快取：屬於程式自身，從外部看不到
recipe-pytorch-nm-offload = 每個開啟的權重檔案是否都在 GPU 上（檔案也可能載入到 CPU，或被卸載）
recipe-vllm-nm-pipeline = 管線各階段自己的層：權重依 { $stages } 個階段平均分配（第一階段的嵌入層和最後階段的輸出頭依均攤計算），KV 快取依最大階段的 ⌈層數 / { $stages }⌉ 層估算，對其他階段是上限
recipe-vllm-nm-expert-parallel = 專家平行（--enable-expert-parallel）：每層 { $experts } 個專家分布在 { $ranks } 個 rank 上（TP { $tp } × DP { $dp }），而不是依 TP 切分；這裡的權重全部依 TP 平分

## The runtime ledgers' rows: what the compute row holds, where the overhead is
recipe-vllm-rest-row = { $label }（預留的其餘部分）
recipe-vllm-overhead-inside = 包含在預留之內（CUDA 上下文、NCCL、cuBLAS：vLLM 的非 torch 記憶體）
recipe-sglang-overhead = CUDA 上下文：在靜態池之外的部分裡
recipe-torch-compute-row = 激活值和快取配置器的預留
recipe-torch-overhead-probe = CUDA 上下文，{ $label }
recipe-torch-overhead-none = 未在本機實測（沒有儲存的 probe 結果）
recipe-overhead-rpc = rpc-server 自己的後端：未估算

## What Ollama and LM Studio report of a loaded model, and the why sentence's lead
recipe-ollama-ctx-per-slot = 每個槽位 { $n } 個 token
recipe-ollama-keep-default = 未設定 OLLAMA_KEEP_ALIVE：5m
recipe-ollama-kept = 保持載入至 { $until }（{ $keep }）
recipe-ollama-lead-kept = { $name } 保持載入至 { $until }（{ $keep }）
recipe-ollama-lead-loaded = { $name } 由 Ollama 載入
recipe-ollama-loader-runner = Ollama 的執行器
recipe-ollama-loader-server = Ollama 的 llama-server
recipe-ollama-lead-loaded-by = { $name }（載入者：{ $loader }）
recipe-ollama-lead-unnamed = 一個模型（載入者：{ $loader }）
recipe-lmstudio-lead = { $name } 由 LM Studio 載入，上下文 { $ctx } 個 token
recipe-lmstudio-ctx = { $ctx } 個 token（模型最多允許 { $max }）
recipe-lmstudio-nm-settings = LM Studio 的 GPU 卸載、flash attention、KV 快取類型和並行預測數儲存在它自己的設定裡，外部看不到：按 llama.cpp 的預設值假定（全部層、flash attention auto、f16 快取、一個統一快取）

## What vLLM's /metrics reports
recipe-vllm-reported-blocks = { $blocks } 個區塊，每區塊 { $tokens } 個 token
recipe-vllm-reported-tokens = { $tokens } 個 token
recipe-vllm-reported-usage = 區塊的 { $pct }

## Where a runtime recipe's inputs were read, and the weights' value
recipe-src-gguf-header = GGUF 檔頭
recipe-src-safetensors = safetensors 檔頭
recipe-src-driver = 驅動程式
recipe-found-path = 命令列上的路徑
recipe-found-gguf = 命令列上的 GGUF 檔案
recipe-found-hub-ref = hub 快取（{ $how }），refs/main = { $rev }
recipe-found-hub-only = hub 快取（{ $how }），唯一的快照
recipe-weights-value = { $bytes }，{ $tensors } 個張量，{ $files } 個檔案
recipe-weights-value-ranks = { $bytes }，{ $tensors } 個張量，{ $files } 個檔案，每個 rank { $per_rank }（÷ { $split }）
recipe-default-runtime = { $runtime }

## vLLM's KV rules, by the version that runs
recipe-vllm-rule-groups = 混合模型的層分成若干 KV 群組（混合 KV 快取管理器，v0.9.1 起）
recipe-vllm-rule-no-groups = 每層都是一頁完整上下文（v0.9.1 之前沒有混合 KV 快取管理器）
recipe-vllm-rule-concurrency = GPU KV 快取大小 = int(最大並行數 × max_model_len)（v0.20.1 起）
recipe-vllm-rule-per-group = GPU KV 快取大小 = 區塊數 ÷ KV 群組數 × 區塊大小（v0.20.1 之前）
recipe-vllm-rule-in-flight = 滑動視窗群組持有 window − 1 + 所有進行中批次的 token（v0.26.0 起）
recipe-vllm-rule-batched = 滑動視窗群組持有 window − 1 + max_num_batched_tokens（v0.26.0 之前）
recipe-vllm-version-assumed = 這裡不知道正在執行的 vLLM 版本：按已讀過的最新版本（v0.26.0 至 v0.33.0）的規則假定

## Why a process has no estimate
recipe-err-not-llama = 不是 llama.cpp 處理程序：{ $kind } 的估算由其執行環境自己的估算方法給出
recipe-err-no-recipe = 還沒有 { $kind } 的顯示記憶體估算方法
recipe-err-rpc-device = rpc-server 持有其 llama-server 透過 RPC 傳來的層（權重及其 KV 快取），由該伺服器在其各裝置間切分模型：這裡不估算這一份額；對 llama-server 執行 `explain` 可看到整個模型
recipe-err-gguf-header = 無法讀取模型的 GGUF 檔頭：{ $error }
recipe-err-model-unknown = 不知道模型檔案（見缺少的依據）
recipe-err-argv = 無法從命令列讀取伺服器的設定：{ $error }
recipe-err-llama-env = 無法讀取伺服器的 LLAMA_ARG_* 設定：{ $error }
recipe-err-ollama-no-model = 不知道模型檔案：執行器沒有對映任何模型檔案，命令列也沒有指定（它透過 /load 接收模型）
recipe-err-lms-mlx = LM Studio 的 MLX 引擎：沒有估算方法能計算 MLX 的記憶體
recipe-err-lms-mlx-model = LM Studio 的 MLX 引擎（{ $model }）：沒有估算方法能計算 MLX 的記憶體
recipe-err-lms-no-model = 不知道模型檔案：LM Studio 的引擎沒有對映任何 GGUF 檔案（沒有載入，或無法讀取）
recipe-err-lms-not-asked = LM Studio 把已載入的上下文長度儲存在自己的狀態裡，只能從它的 API（GET /api/v0/models）得知，這裡沒有詢問
recipe-err-lms-no-match = { $source } 中沒有與 { $path } 相符的已載入模型
recipe-err-ollama-go = Ollama 自己的 Go 引擎（`ollama runner --ollama-engine`）自行配置權重、KV 快取和計算圖；沒有估算方法能計算它
recipe-err-ollama-mlx = Ollama 的 MLX 引擎（`ollama runner --mlx-engine`）：沒有估算方法能計算它
recipe-err-ollama-engine = { $what }。命令列為：{ $argv }
recipe-err-ollama-engine-ps = { $what }。命令列為：{ $argv }；{ $source } 顯示 { $name }：size { $size }，size_vram { $vram }，上下文 { $context }
recipe-err-vllm-core-ranks = vLLM 的引擎核心在 { $ranks } 個 rank（張量 × 管線平行）時本身不持有模型：它的 { $ranks } 個工作處理程序（VLLM::Worker_*）各持有一份，各自帶有估算
recipe-err-vllm-core-worker = vLLM 的引擎核心在這裡不持有模型：它啟動了一個工作處理程序（VLLM::Worker，PID { $pid }；vLLM 的多處理程序執行器，其 CPU 版即使只有一個 rank 也這樣執行），由該處理程序持有模型並帶有估算

## A runtime recipe's inputs named in words (identifiers such as max_model_len stay as written)
recipe-input-kv-rules = vLLM 的 KV 規則
recipe-input-kv-block = 每區塊 KV 位元組數（每個 rank）
recipe-input-kv-token = 每個 token 的 KV 位元組數（每個 rank）
recipe-input-device-total = 裝置顯示記憶體總量
recipe-input-rope = 旋轉位置編碼 cos/sin 快取
recipe-input-pipeline-stage = 管線階段
recipe-input-attention-tp = 注意力的 TP 大小
recipe-input-mxfp4 = vLLM 填補後的 MXFP4 專家
recipe-input-gguf-held = vLLM 持有的 GGUF 權重
recipe-input-hybrid-manager = 混合 KV 快取管理器
recipe-input-weights-file = 權重檔案
recipe-input-dp-replicas = data_parallel_size（副本數；每個 rank 的份額不變）
recipe-input-tokens-in-flight = 進行中的 token（滑動視窗群組的預留）

## How the vLLM and SGLang recipes derive their KV figures
recipe-kv-torch-dtype = { $path } 中的 torch_dtype
recipe-kv-elem-auto = kv_cache_dtype auto = 模型 dtype { $dtype }（{ $source }）
recipe-kv-elem-set = kv_cache_dtype { $dtype }（{ $source }）
recipe-kv-formula = 2（K、V）× { $layers } 層 × 每個 rank { $heads } 個 KV 頭（{ $kv_heads } / TP { $tp }）× 頭大小 { $head_dim } × { $elem } B（{ $source }）
recipe-kv-formula-mla = MLA：{ $layers } 層 × { $dim } 個潛在值 × { $elem } B（{ $source }），每個 rank 相同
recipe-vllm-kv-block-value = { $bytes }（所有層合計每個 token { $per_token }）
recipe-vllm-kv-block-rule = { $per_token }× 每區塊 { $block } 個 token
recipe-vllm-kv-block-rule-groups = { $per_token }÷ { $layers } 層 × 每個 KV 群組 { $group } 層（{ $groups } 個群組；{ $source }）× 每區塊 { $block } 個 token
recipe-too-large = 過大
recipe-nm-kv-dtype = KV 快取：快取 dtype { $dtype } 是此估算方法不計算的封裝格式
recipe-nm-kv-cache = KV 快取：{ $why }
recipe-vllm-hybrid-off = 關閉（每層都是一頁完整上下文）
recipe-vllm-hybrid-off-rule = --kv-transfer-config 會關閉它，除非給出 --no-disable-hybrid-kv-cache-manager（vLLM 0.9.1 起）
recipe-vllm-max-len-assumed = vLLM 的預設值，即模型的 max_position_embeddings（{ $path }）；rope 縮放可能改變它

## vLLM's rotary cos/sin cache
recipe-rope-value = { $bytes }（{ $parts }，{ $dtype }；{ $shared }，每個 rank 都有）
recipe-rope-value-unnamed = { $bytes }（{ $parts }，{ $dtype }；{ $shared }，每個 rank 都有；{ $unnamed }）
recipe-rope-part = { $positions } 個位置（{ $how }）× { $dim } 個旋轉維度
recipe-rope-parts = { $a } + { $b }
recipe-rope-dtype-gpt-oss = float32（vLLM 的 gpt_oss.py 要求）
recipe-rope-dtype-f32 = float32（--dtype）
recipe-rope-dtype-model = 模型 dtype，16 位元
recipe-rope-shared-one = 所有層共用一個快取
recipe-rope-shared-many = { $count } 個快取，每種不同的 rope 一個
recipe-rope-unnamed = { $path } 未指定 rope：使用 transformers 對 { $model_type } 的預設值，rope_theta 10000，無縮放
recipe-rope-rule = vLLM 的 get_rope：RotaryEmbedding.cos_sin_cache，模型的一個緩衝區，計入其載入數字

## vLLM serving a GGUF file
recipe-vllm-gguf-held = { $all }（檔案本身 { $file }）：量化區塊 { $quantised }{ $padded }，未量化張量為 { $elem } 位元組的 { $dtype }（{ $dense }）{ $ranks }
recipe-vllm-gguf-unpadded = ；{ $n } 個合併層按分片分別保存（vLLM 0.9 之前的巢狀張量），未填補
recipe-vllm-gguf-padded = ；{ $n } 個合併層填補到最寬分片的列寬（+{ $bytes }）
recipe-vllm-gguf-padded-unknown = ；{ $n } 個合併層填補到最寬分片的列寬（+{ $bytes }），按 vLLM 0.9 起的做法：這裡不知道版本，0.9 之前分片不填補
recipe-vllm-gguf-padded-plugin = ；{ $n } 個合併層填補到最寬分片的列寬（+{ $bytes }），與 vllm-gguf-plugin 0.0.5 的填補方式相同（vLLM 0.24 起 GGUF 由它支援）
recipe-vllm-gguf-per-rank = ，每個 rank { $per_rank }（÷ { $ranks } 個 rank）
recipe-vllm-gguf-rule = vLLM 的 GGUF 層：GGUFLinearMethod 填補後的合併分片、模型 dtype 的正規化層、詞彙表填補到 64 的倍數

## SGLang's parallel ranks
recipe-sglang-attention-tp = DP 注意力下 tp_size { $tp } / dp_size { $dp }（SGLang 的 compute_dp_attention_world_info）
recipe-sglang-stage = { $pp } 個管線階段中的第 { $stage } 個（來自處理程序標題）：{ $n_layer } 層中的 { $layers } 層（SGLang 的 get_pp_indices）
recipe-sglang-stage-unknown = 不知道管線階段（處理程序標題中沒有 PP rank）：假定為 { $pp } 個階段中最大的一個，{ $n_layer } 層中的 { $layers } 層
recipe-sglang-nm-stage-weights = 管線階段的權重：{ $per_tp } ÷ TP 後按該階段所占的層數比例計算（{ $n_layer } 層中的 { $layers } 層）；嵌入層（第一階段）和輸出頭（最後階段）按均攤計算
recipe-sglang-nm-dp-attention = DP 注意力下的注意力權重：每個 rank 持有其注意力群組的份額（÷ { $atp } = TP { $tp } / DP { $dp }），而不是 ÷ TP { $tp }；這裡的權重全部按 ÷ TP 計算，是下限
recipe-sglang-nm-ep = 專家平行（--ep-size { $ep }）：MoE 專家分布在各 EP rank 上，而不是按 TP 切分；這裡的權重全部按 TP 平分

## What a runtime reported, named in words (its own field names stay as written)
recipe-ollama-size = size（Ollama 自己對模型記憶體的估計）

## An rpc-server's share of its llama-server's estimate
recipe-why-rpc = PID { $pid } 的模型在 { $device } 上的部分：{ $layers } 層
recipe-why-rpc-output = PID { $pid } 的模型在 { $device } 上的部分：{ $layers } 層和輸出層
recipe-nm-rpc-backend = rpc-server 的後端上下文（其 CUDA 或 Vulkan 額外開銷）

## Where an Ollama runner's llama.cpp settings came from
recipe-src-free-memory = { $device } 的可用顯示記憶體
recipe-src-line-program = 命令列中的程式 { $program }
recipe-src-process-program = 處理程序的程式 { $program }
recipe-ollama-env-parent = /proc/{ $pid }/environ（ollama serve，執行器的父處理程序）
recipe-ollama-env-own = /proc/{ $pid }/environ（繼承自 ollama serve）
recipe-ollama-env-in = { $source } 中的 { $var }
recipe-ollama-kv-per-slot = Ollama 的執行器保留 llama.cpp 的預設值 kv_unified = false：每個槽位一個快取串流
recipe-ollama-old-build = 2024 至 2025 年中的執行器：其 llama.cpp 早於所有與版本相關的計算規則（b7780 及以後）
recipe-ollama-nm-old-compute = 2025-07 之前的 llama.cpp 版本的計算緩衝區只對照過一份公開記錄（ollama/ollama#8271：裝置上誤差 1 % 以內，主機上多 4 MiB）
recipe-ollama-nm-version-unknown = 不知道執行器的 llama.cpp 版本：llama.cpp 早於每槽位快取串流的執行器（llama.cpp #14363，2025 年 7 月；Ollama v0.7 及更早肯定如此）使用一個統一快取，其計算緩衝區會大好幾倍
recipe-ollama-swa-full = Ollama 的執行器保留 llama.cpp 的預設值 swa_full = true：滑動視窗層保留整個上下文
recipe-ollama-embeddings = Ollama 的執行器建立上下文時開啟 embeddings（llama/llama.go NewContextParams）：輸出緩衝區在 logits 之外還為每個槽位保留 n_embd 個浮點數
recipe-ollama-unified-old-server = Ollama 的 ollama_llama_server（v0.3 及之前的 C++ 伺服器，v0.4–v0.5 的 Go 執行器）：其 llama.cpp 早於每槽位快取串流，所以是一個統一快取（kv_unified = true）
recipe-ollama-unified-version = Ollama { $version }：其 llama.cpp 早於每槽位快取串流，所以是一個統一快取（kv_unified = true）
recipe-ollama-parallel-default = 未指定 --parallel：執行器的預設值 1
recipe-ollama-ctx-flag = --ctx-size（num_ctx × OLLAMA_NUM_PARALLEL：Ollama 在啟動執行器之前已相乘）
recipe-ollama-ctx-default = 未指定 --ctx-size：執行器的預設值 2048
recipe-ollama-batch-flag = --batch-size × --parallel（執行器的 n_batch）
recipe-ollama-batch-default = 未指定 --batch-size：執行器的預設值 512 × --parallel（執行器的 n_batch）
recipe-ollama-batch-cpp = --batch-size（Ollama v0.3 的 C++ ollama_llama_server：llama.cpp 的伺服器把它當作 n_batch，不乘 --parallel）
recipe-ollama-batch-unknown = --batch-size × --parallel（Go 執行器的 n_batch；以同樣參數啟動的 Ollama v0.3 C++ ollama_llama_server 只取 --batch-size：這裡不知道版本；n_ubatch 以及緩衝區兩種情況都一樣）
recipe-ollama-ubatch-default = 執行器不設定 n_ubatch：llama.cpp 的預設值 512
recipe-ollama-fa-default = 未指定 --flash-attn：只有 OLLAMA_FLASH_ATTENTION 開啟且模型與 GPU 支援時 Ollama 才傳入它
recipe-ollama-memory-f32 = --memory-f32（Ollama v0.3 的 C++ 伺服器：f32 KV 快取）
recipe-ollama-nm-memory-f32 = --memory-f32：在 Ollama v0.3 的 C++ ollama_llama_server 下是 f32 KV 快取（f16 的兩倍），v0.4 起的 Go 執行器忽略它；這裡不知道版本，所以假設 f16
recipe-ollama-ngl-default = 未指定 --n-gpu-layers：執行器的預設值 0
recipe-ollama-tensor-split = --tensor-split（Ollama 為執行器選定的每個 GPU 一項）
recipe-ollama-parallel-unset = 未設定 OLLAMA_NUM_PARALLEL：Ollama 的預設值 1
recipe-ollama-batch-load = num_batch 512（Ollama 的預設值；請求可以另設）× 槽位數：執行器的 n_batch
recipe-ollama-ubatch-load = num_batch 512（Ollama 的預設值，不超過 num_ctx）：執行器的 n_ubatch
recipe-ollama-ctx-ps = 來自 { $source } 的 context_length { $ctx }
recipe-ollama-ctx-env = { $source } 中的 OLLAMA_CONTEXT_LENGTH={ $ctx }（請求的 num_ctx 會覆蓋它：沒有 /api/ps 時看不到）
recipe-ollama-ctx-assumed = 沒有 /api/ps 時看不到 num_ctx：假設為 Ollama 的預設值 4096（v0.15.5 起，24–48 GiB 的 GPU 上為 32768，48 GiB 以上為 262144，且請求的 num_ctx 會覆蓋它）
recipe-ollama-ctx-slots = { $from }，× { $slots } 個槽位
recipe-ollama-nm-kv-type-ignored = 除非開啟 OLLAMA_FLASH_ATTENTION，否則 Ollama 會忽略 OLLAMA_KV_CACHE_TYPE={ $type }：假設為 f16 快取
recipe-ollama-ngl-load = Ollama 在 /load 請求中傳送層的配置，外部看不到：假設所有層都在 GPU 上
recipe-ollama-nm-partial = 部分卸載：{ $source } 顯示 { $size } 位元組中有 { $vram } 位元組在顯示記憶體中；看不到 Ollama 在 GPU 上放了多少層，所以估算中「所有層都在 GPU 上」的配置偏高
recipe-ollama-fa-old = 未設定 OLLAMA_FLASH_ATTENTION：Ollama v0.13.4 之前為關閉；此伺服器是 { $version }（GET /api/version）
recipe-ollama-fa-auto = 未設定 OLLAMA_FLASH_ATTENTION：Ollama v0.13.4 起向 llama.cpp 要求 auto；此伺服器是 { $version }（GET /api/version）
recipe-ollama-fa-unknown = 未設定 OLLAMA_FLASH_ATTENTION：Ollama v0.13.4 起為 auto（之前為關閉；沒有 GET /api/version 時不知道版本）

## LM Studio's load settings
recipe-lmstudio-ctx-from = 來自 { $source } 的 { $id } 的 loaded_context_length
recipe-lmstudio-assumed = LM Studio 的載入設定在外部看不到：假設為{ $what }
recipe-lmstudio-one-sequence = 一個序列
recipe-lmstudio-unified = 一個統一快取（LM Studio 的預設值），共 loaded_context_length 個單元
recipe-lmstudio-all-layers = 所有層都在 GPU 上（GPU 卸載最大）

## What the runtimes' recipes leave to the kernels (quantised MoE experts) and to llama-server's fit
recipe-ollama-nm-fit = Ollama 預設不傳 -ngl：llama-server 會依可用顯示記憶體配置各層（-fit），估算不模擬這一點（假設所有層都在 GPU 上）
recipe-sglang-nm-quantised-experts = 檔案之外的權重：每層 { $experts } 個 { $q } 專家會為 SGLang 的 MoE 核心重新封裝並填補，此估算方法不計算這部分，所以權重數字（檔案中張量的位元組數）是下限
recipe-vllm-nm-experts = 檔案之外的權重：每層 { $experts } 個 { $q } 專家會為 vLLM 的 fused-MoE 核心重新封裝並填補，所以權重數字（檔案中張量的位元組數）是下限，不是精確值
recipe-vllm-nm-experts-fp8 = 檔案之外的權重：每層 { $experts } 個 { $q } 專家會為 vLLM 的 fused-MoE 核心重新封裝並填補，所以權重數字（檔案中張量的位元組數）是下限，不是精確值；據 vLLM 原始碼：原生支援 FP8 時（運算能力 8.9 以上），專家就是檢查點中原樣儲存的 fp8 權重與 float32 區塊縮放因子，即檔案的位元組數；在 Ampere 上走 Marlin 路徑（其記錄會警告 "leveraging the Marlin kernel"），每個 128×128 區塊的縮放因子會擴展為每個輸出欄、每 128 個輸入一個 16 位元縮放因子
recipe-vllm-nm-experts-int4 = 檔案之外的權重：每層 { $experts } 個 { $q } 專家會為 vLLM 的 fused-MoE 核心重新封裝並填補，所以權重數字（檔案中張量的位元組數）是下限，不是精確值；據 vLLM 原始碼：Marlin MoE 重新封裝時，封裝的 4 位元權重、縮放因子與零點保持原有大小（act-order 每個輸入多一個 int32 排序索引），所以與檔案的位元組數很接近

## vLLM's MXFP4 experts (gpt-oss) as its kernel backend pads them
recipe-mxfp4-split-ep = { $experts } 個專家 ÷ { $ep } 個專家平行 rank
recipe-mxfp4-split-tp = intermediate { $i } ÷ TP { $tp } = { $per_rank }
recipe-mxfp4-words = 每層 { $experts } 個 MXFP4 專家 × { $layers } 層，hidden { $h } → { $h_pad }，intermediate { $i } → { $i_pad }（{ $split }；{ $backend } 把 hidden 填補到 { $th }、intermediate 填補到 { $ti }）：每個 rank 的專家共 { $per_rank }，檢查點中未填補的為 { $file }
recipe-mxfp4-unknown = vLLM 選用了哪個 MXFP4 MoE 核心（取決於 GPU 以及是否安裝了 FlashInfer 或 triton_kernels；其啟動記錄會說明，可用 --log 給出，或設定 VLLM_MXFP4_USE_MARLIN=1）：權重數字依檢查點的位元組數計算，是下限；每個 rank 上各後端會持有的張量為 { $each }，另加旋轉位置編碼快取

## vLLM's --gpu-memory-utilization default by the version that runs
recipe-vllm-util-before = vLLM { $version }（{ $from }）：v0.21.0 之前為 0.9
recipe-vllm-util-since = vLLM { $version }（{ $from }）：v0.21.0 起為 0.92
recipe-vllm-util-unknown = vLLM v0.21.0 起的預設值（之前為 0.9；這裡不知道正在執行的版本）

## vLLM and SGLang: why the model's folder or its config.json could not be read
recipe-err-model-not-found = 模型 { $model }：既不是這裡能看到的資料夾，也不是 ORG/NAME 形式的 hub ID
recipe-err-model-no-home = 模型 { $model }：該處理程序沒有 HOME 或 HF_HOME，無法找到它的 hub 快取
recipe-err-model-snapshots = 模型 { $model }：{ $path }：{ $error }
recipe-err-model-no-snapshot = 模型 { $model }：{ $path } 下沒有快照
recipe-err-model-snapshots-many = 模型 { $model }：{ $path } 下有 { $n } 個快照，且沒有 refs/main 來選定其中一個
recipe-err-config-unreadable = { $path }：無法讀取：{ $what }
recipe-err-config-json = { $path }：不是有效的 JSON：{ $what }
recipe-err-config-missing = { $path }：沒有 { $what }
recipe-err-config-implausible = { $path }：不合理的 { $what }
recipe-err-safetensors = 無法讀取模型的 safetensors 檔頭：{ $error }
recipe-err-sglang-argv = 無法從命令列讀取 SGLang 的設定：{ $error }
recipe-err-sglang-no-model = SGLang 的命令列沒有指定模型（--model-path）
recipe-err-vllm-argv = 無法從命令列讀取 vLLM 的設定：{ $error }
recipe-err-vllm-no-model = vLLM 的命令列沒有指定模型（`vllm serve MODEL` 或 --model）
recipe-err-vllm-no-model-note = vLLM 的命令列沒有指定模型（`vllm serve MODEL` 或 --model）；{ $note }
recipe-note-vllm-config-no-name = --config 沒有給出檔名
recipe-note-vllm-config-unread = 未讀取 vLLM 的 --config { $path }（{ $error }）：這裡不知道其中的選項，只知道命令列上的
recipe-note-vllm-kv-count = vLLM 印出的 KV token 數：{ $why }
recipe-err-vllm-gguf-relative = vLLM 載入的是 GGUF 檔案 { $model }，這是一個相對路徑，而該處理程序的工作目錄未知
recipe-err-vllm-gguf-not-file = vLLM 載入的是 GGUF 模型（{ $model }），它不是本機能讀取的檔案：其權重來自 GGUF 檔頭，hub ID 或裝有 GGUF 檔案的資料夾未建模
recipe-err-ollama-parent = runner 的父處理程序（PID { $pid }）：無法讀取
recipe-err-api-not-json = 不是 { $path } 回應的 JSON：{ $error }
recipe-err-api-no-list = { $path } 的回應中沒有 "{ $list }" 清單
recipe-err-api-get = GET { $url }：{ $error }
recipe-err-api-port = 連接埠 { $port }：{ $error }
recipe-err-api-no-answer = { $path } 沒有回應（{ $errors }）

## PyTorch: its weight files as read, and why one could not be
recipe-torch-how-safetensors = { $count } 個張量（safetensors 檔頭）
recipe-torch-how-pickle = 檔案大小（pickle 檢查點：張量加上封裝）
recipe-torch-weights-value = { $file }：{ $size }，{ $how }
recipe-torch-not-regular = { $path }：不是一般檔案
recipe-torch-weights-unreadable = { $file } 中的權重：{ $error }
recipe-torch-sum-overflow = { $file }：加上這個檔案，開啟的權重檔案超過 2^64 位元組（沒有磁碟能裝下這樣的大小）：未累加
recipe-err-torch-no-files = 沒有對應或開啟任何權重檔案（safetensors、.pt、.pth、.ckpt、pytorch_model*.bin）：無法從 PyTorch 處理程序外部估算
recipe-err-torch-none-read = 沒有能讀取的權重檔案：{ $why }
recipe-vllm-version-from = vLLM { $version }（{ $from }）
recipe-vllm-version-mapped = { $path }（該處理程序對應的套件）

## vLLM's rotary cos/sin cache: how its rows were counted, and why it is not sized
recipe-rope-dynamic-before = { $max } × factor { $factor }，0.22 之前的 dynamic
recipe-rope-dynamic-since = max_position_embeddings，0.22 起的 dynamic
recipe-rope-dynamic-unknown = max_position_embeddings，按 0.22 起的 dynamic 計：vLLM 的版本未知，0.22 之前它快取 { $max } × factor { $factor } 列
recipe-rope-longrope = { $short } 列短表 + { $long } 列長表，longrope
recipe-rope-err-need = 旋轉位置編碼的 cos/sin 快取：{ $kind } 類 rope 沒有可用的 { $key }
recipe-rope-err-no-max = 旋轉位置編碼的 cos/sin 快取：{ $path } 沒有給出 max_position_embeddings
recipe-rope-err-unnamed = 旋轉位置編碼的 cos/sin 快取：{ $path } 沒有指定旋轉位置編碼，其模型類型（{ $model_type }）也不在本規則已知有無旋轉編碼的類型之列
recipe-rope-no-model-type = 未給出
recipe-rope-err-overflow = 旋轉位置編碼的 cos/sin 快取：大小溢位
recipe-rope-err-kind = { $kind } 類 rope 的旋轉位置編碼 cos/sin 快取（vLLM 按類別決定其大小；本規則已知 default、llama3、linear、dynamic、ntk、yarn、deepseek_yarn、longrope 和 mrope）
recipe-rope-err-dim = 旋轉位置編碼的 cos/sin 快取：不合理的旋轉維度 { $dim }
recipe-rope-err-partial = 旋轉位置編碼的 cos/sin 快取：partial_rotary_factor { $factor }（vLLM 會拒絕）
recipe-sglang-nm-kv-overflow = KV 池：{ $tokens } 個 token × 每 token { $bytes } 位元組，超出 64 位元能表示的範圍

## What the compute replay approximates, and why (estimate/compute, graph_gaps, backend_gaps)
recipe-approx-fused-q-k-v = 融合的 Q/K/V 投影（attn_qkv）：依三個投影計算
recipe-approx-attention-output-gate-attn = 注意力輸出閘門（attn_gate）：不在重播中
recipe-approx-moe-routing = MoE 路由
recipe-approx-mla-attention = MLA 注意力
recipe-approx-deepseek-v4-graph-not = DeepSeek V4 的計算圖：未重播，檔案缺少建構它所需的某個鍵或張量（attn_q_a、attn_output_a、hyper_connection.count、compress_ratios）；以一般注意力層代替
recipe-approx-deepseek4-hash-routed-layers = deepseek4 的雜湊路由層（依 token id 從 ffn_gate_tid2eid 選取專家）：依據 models/deepseek4.cpp 撰寫，未對照實際執行核對
recipe-approx-gated-deltanet-gpu-backend = GPU 後端上的 Gated DeltaNet：假定使用融合核心
recipe-approx-attention-without-kv-cache = 沒有 KV 快取的注意力（每層都共用一個快取）：不在重播中
recipe-approx-glm5-next-k-pool = glm5-next 的 k-pool 索引器（沒有可用的 attention.indexer.kpool，或大小超出任何裝置的容量）：不在重播中
recipe-approx-glm5-next-gathered-sparse = glm5-next 的 gather 式稀疏注意力（n_ubatch ≤ 16）：依 scatter 路徑計算
recipe-approx-adapter-router-one-head = 適配器路由器（對適配器 token 做單頭注意力）以及每個投影逐 token 的 LoRA 增量（switch_lora）：不在重播中
recipe-approx-qwen4exp-ple-n-gram = qwen4exp 的 PLE n-gram 嵌入（大小超出範圍）：未重播
recipe-approx-recurrent-layers-gpu-backend = GPU 後端上的循環層
recipe-approx-qwen4exp-qsa-indexer-sizes = qwen4exp 的 QSA 索引器（大小超出任何裝置的容量）：其所在層依稠密方式計算
recipe-approx-rwkv-6-separate-lerps = RWKV-6 的獨立 lerp（較舊的轉換）：依融合的 lerp 計算
recipe-approx-gated-deltanet-layers-build = Gated DeltaNet 層（build_delta_net：分塊 delta 規則、閘控正規化）：依 Mamba-1 的形狀計算
recipe-approx-kda-layers-kimi-delta = KDA 層（Kimi delta 注意力：Q/K/V 卷積、閘控 delta 規則）：依 Mamba-1 的形狀計算
recipe-approx-rwkv-time-mix-channel = RWKV 的時間混合層和通道混合層（build_rwkv6/7_time_mix）：依 Mamba-1 的形狀計算
recipe-approx-recurrent-layers-mamba-1 = 循環層（Mamba-1 的形狀）
recipe-approx-header-beyond-any-device = 未重播：檔頭宣告的張量或層超出任何裝置的容量（此數字為最大的單一張量）
recipe-approx-unknown-arch = gpuledger 不認得的架構「{ $arch }」的計算圖：依通用 transformer 的層計算
recipe-approx-hyper-connections = 超連接（由 hc_attn_fn / hc_ffn_fn 在每個注意力區塊和 FFN 區塊前後混合的多條殘差流）：不在重播中，重播只保留一條流
recipe-approx-altup = Gemma 3n 的 AltUp（隱藏狀態的多個副本貫穿每一層）和 LAuReL 區塊：不在重播中，重播每層只建構一個隱藏狀態
recipe-approx-per-layer-embeddings = 逐層輸入嵌入（在主機上查詢 per_layer_token_embd 的列，經 per_layer_model_proj 投影後送入每一層）：不在重播中
recipe-approx-hrm-cycles = HRM 的週期（低階堆疊和高階堆疊的各槽位，每個都讀取兩個狀態之和，在最後一個槽位之後選取輸出）：重播把這些槽位寫成一般的層堆疊
recipe-approx-kimi-k3-residual = Kimi-K3 的跨層殘差注意力（在每個注意力和 FFN 之前，對暫存的各層輸入評分並混合）及其在潛在寬度上運作的專家：不在重播中
recipe-approx-latent-projected = { $arch } 的潛在投影注意力（K 和 V 由 attn_kv_b 從 kv_lora_rank 維的潛向量逐頭解壓縮，再作為一般 K/V 快取）：重播依標準注意力的形狀撰寫，不含解壓縮的中間張量
recipe-approx-legacy-latent = 較舊的、不含 MLA 的潛在注意力轉換中的注意力（有 kv_lora_rank，沒有 *_mla 長度，使用 attn_kv_b 而不是 attn_k_b/attn_v_b）：llama.cpp 以 attn_kv_b 逐頭解壓縮 K 和 V；重播依標準注意力的形狀撰寫
recipe-approx-indexer-dsa = DSA 閃電索引器（在每個已快取位置上執行的 { $heads } 個大小為 { $size } 的頭，及其 top-k 選擇和稀疏遮罩）：不在重播中，因此長上下文時計算緩衝區可能比估算值大數倍
recipe-approx-indexer-msa = MSA 區塊索引器（{ $heads } 個大小為 { $size } 的頭、區塊分數、區塊 top-k 和局部區塊偏差）：不在重播中
recipe-approx-indexer-qsa = QSA 索引器（{ $heads } 個大小為 { $size } 的頭：鍵池化、分數、top-k 選擇）：不在重播中
recipe-approx-metal-host-experts = 專家放在主機上的 Metal（--cpu-moe、--n-cpu-moe、-ot exps=CPU）：對主機上的權重，Metal 只卸載矩陣乘積（ggml_backend_metal_device_offload_op），所以專家的偏差加法及其激活值留在主機計算緩衝區中；重播依此處理，但這裡未對照 Metal 記錄核對（此規則之前主機計算 −34 %，為估算值對比一次實際執行的公開記錄，由 gpuledger issue #35 測得；這裡未記下該記錄的網址）
recipe-approx-metal-no-fa = 不使用 flash attention 的 Metal（-fa off）：重播的不是 ggml-metal 的注意力路徑，而是 CUDA 的：未建模（gpt-oss-120b：計算 −32 %，為估算值對比一次實際執行的公開記錄，由 gpuledger issue #35 測得；這裡未記下該記錄的網址）
recipe-approx-rocm = ROCm（ggml-cuda 的 HIP 建置）：重播採用的是 CUDA 建置的計算圖選擇，而不是 HIP 建置自己的：未建模（gpt-oss-120b 在 -c 262144 -np 2 -ub 1024 下：ollama/ollama#16416 的記錄中裝置計算緩衝區為 796 MiB，重播為 439 MiB，−45 %；主機的 281 MiB 相差在 8 % 以內）
recipe-approx-vulkan-quant-k = 使用量化 K 快取的 Vulkan（-ctk { $type }）：重播的不是 ggml-vulkan 對量化 K 的注意力，而是 CUDA 的：未建模（計算 −44 %，為估算值對比一次實際執行的公開記錄，由 gpuledger issue #35 測得；這裡未記下該記錄的網址）
recipe-approx-devices-quant-kv = 多個裝置（-ts）搭配量化 KV 快取：對量化快取檢視，排程器在裝置之間複製時由主機負責的部分未重播：未建模（兩個 GPU，q8_0 KV：主機計算 37 vs 133 MiB，為估算值對比一次實際執行的公開記錄，由 gpuledger issue #35 測得；這裡未記下該記錄的網址）
recipe-approx-vulkan-reorder = Vulkan 裝置緩衝區：Vulkan 為了平行化會重新排列每個 split 的節點（ggml_vk_graph_optimize），這會改變哪些張量同時存活；重播保持計算圖的順序（設定 GGML_VK_DISABLE_GRAPH_OPTIMIZE=1 時精確；重新排列時最多相差一個 n_embd × n_ubatch 的 F32 激活值：在測試網格上誤差在 10 % 以內，小緩衝區則在這一個激活值以內）

## The estimate's inputs, notes and the --fit replay's sentences (estimate/hparams, memory, indexer, context, fit)
recipe-window-llama4 = llama_model_llama4::load_arch_hparams：分塊注意力，8192
recipe-window-smallthinker = llama_model_smallthinker::load_arch_hparams：4096，每組首層為全注意力
recipe-window-exaone4 = llama_model_exaone4::load_arch_hparams：64 層
recipe-window-gemma2 = llama_model_gemma2::load_arch_hparams
recipe-rule-head-kv-absent = 缺少 head_count_kv：等於 head_count
recipe-rule-router-layer = llama_model_granite_switch::load_arch_hparams：適配器路由器，即各區塊之後的一個注意力層（1 個頭），保存在 KV 快取中
recipe-rule-swa-pattern = llama.cpp 對 { $arch } 的層模式
recipe-value-per-layer-array = 逐層陣列
recipe-value-swa-pattern = { $swa } 層 SWA : 1 層全注意力
recipe-value-swa-pattern-full-first = { $swa } 層 SWA : 1 層全注意力，每組首層為全注意力
recipe-rule-full-attention-interval = llama.cpp 的預設值：每 4 層中的第 4 層為全注意力
recipe-rule-gemma3n-kv-from-start = llama.cpp 對 gemma3n 的取值
recipe-value-n-of-layers = { $total } 層中的 { $n } 層
recipe-rule-minimax-m3-sparse = minimax-m3：從 leading_dense_block_count 起為稀疏層
recipe-value-from-layer = 從第 { $layer } 層起
recipe-rule-glm-dsa-every-layer = 沒有 indexer.types，且訓練上下文低於 1M（GLM 5、5.1）：每層都有索引器（models/glm-dsa.cpp）
recipe-rule-glm-5-2-pattern = 沒有 indexer.types：GLM-5.2 的預設模式（models/glm-dsa.cpp）
recipe-value-n-of = { $total } 個中的 { $n } 個
recipe-rule-glm5-next-indexer-types = 沒有 indexer.types：每個注意力層都有自己的索引器（llama_model_glm5_next::load_arch_hparams）
recipe-rule-hy-v4-indexer-types = 沒有 indexer.types：沒有任何層擁有索引器（llama_model_hy_v4::load_arch_hparams）
recipe-rule-kpool-row = llama_hparams::indexer_kpool_row：快取的一列為 鍵 | 閘控 | 池化值
recipe-rule-hy-v4-no-indexer = 缺少 { $key } 或其為 0：全注意力的檢查點，沒有索引器快取（llama_model::create_memory，LLM_ARCH_HY_V4）
recipe-rule-qsa-not-pooled = 沒有 compress_ratios：索引器的鍵不做池化（models/qwen4exp.cpp）
recipe-note-ctx0-per-slot = -c 0（訓練上下文）且每個槽位各有一個快取：{ $slots } 個槽位各自取得完整的訓練上下文（{ $train }），n_ctx = { $n_ctx }
recipe-note-kv-unified-forced = kv_unified 被強制設為 true：此 llama.cpp 版本以 ggml_cpy 寫入 KV 快取，所有序列共用一個快取（早於規則 kv-write-idxs）
recipe-note-plm-fa-abort = llama.cpp b11434 在啟用 flash attention 時執行 plm 會中止（ggml_set_rows 中的 GGML_ASSERT，由 llama_kv_cache::cpy_v 呼叫）：請以 -fa off 執行；此估算依所指定的設定計算
recipe-note-mtmd-projector = llama-mtmd-cli 還會載入多模態投影器（--mmproj），它有自己的權重和計算緩衝區：不在此估算中
recipe-note-grok-fa-off = flash attention 關閉：無論 -fa 如何設定，llama.cpp 都會對 grok 強制關閉它（llama_init_from_model）
recipe-rule-device-order = 先 RPC 伺服器，再本機 GPU；-sm none 保留 --main-gpu
recipe-note-override-matches-nothing = { $flag }：沒有比對到此模型的任何張量（或只比對到先前的覆寫已放置的張量）
recipe-note-dsv4-hc-abort = 除非有 4 條超連接流，否則 llama.cpp b11434 執行 deepseek4 會中止（上下文預留其計算圖時，build_hc_pre 中的 GGML_ASSERT(hc == 4)）；此檔案有 { $streams } 條：這些數值是該計算圖所需的量
recipe-value-newest-rules = 最新規則
recipe-src-loaded-library = 載入了 { $lib }
recipe-src-measured-nvidia = 在 NVIDIA 裝置上實測
recipe-src-measured-amd = 在 AMD 裝置上實測
recipe-src-measured-apple = 在 Apple GPU 上實測
recipe-src-measured-other = 在 Intel/其他 GPU 上實測
recipe-src-fit-no-mmap = --fit 的推算以不使用 mmap 載入計算
recipe-note-rpc-only = 未發現本機 GPU：裝置只有 { $count } 個 RPC 伺服器（--gpus N 會在其後加入本機 GPU）；它們的緩衝區依 CUDA 的方式建模（可用 --backend 變更）
recipe-src-live-free = 目前各 GPU 的可用顯示記憶體
recipe-src-free-plus-own = 裝置目前的可用顯示記憶體加上此伺服器本身占用的量
recipe-note-fit-not-replayed = 未依載入時的可用顯示記憶體（{ $free }）將 --fit（預設開啟）重播到底：{ $why }；估算保留未設定的參數原樣，而 llama-server 的 --fit 可能已將它們調低
recipe-note-fit-replayed = 已依載入時的可用顯示記憶體重播 --fit（預設開啟），該值取目前可用量（{ $free }）+ 此伺服器本身占用量（{ $own }）：{ $flags }（{ $outcome }）
recipe-note-fit-replayed-why = 已依載入時的可用顯示記憶體重播 --fit（預設開啟），該值取目前可用量（{ $free }）+ 此伺服器本身占用量（{ $own }）：{ $flags }（{ $outcome }：{ $why }）
recipe-overhead-probed = { $device } 上的 CUDA 上下文，由 probe 於 { $date } 實測
recipe-fit-stopped-bound = 重播在 { $n } 次記憶體推算後停止（達到其上限）；llama.cpp 會繼續：這些設定是到目前為止得到的結果
recipe-fit-stopped-time = 重播在 { $n } 次記憶體推算後停止（用盡其在收集路徑上的時間預算）；llama.cpp 會繼續：這些設定是到目前為止得到的結果
recipe-note-override-no-gpu-backend = { $flag }：沒有 GPU 後端的 llama-server 沒有緩衝區類型 { $type }，會拒絕它；估算（後端 cpu）將這些張量保留在主機上
recipe-note-override-unknown-device = { $flag }：{ $type } 不是所估算裝置（{ $devices }）中的任何一個；估算將這些張量計入 { $first }（llama-server 會拒絕其未列出的緩衝區類型）
recipe-err-cache-row-blocks = { $flag } { $type } 無法存放此模型的快取：第 { $layer } 層的一列有 { $n } 個元素，無法分成整數個 { $type } 區塊（每區塊 { $block } 個元素）
recipe-err-refuses-n-seq = llama.cpp 拒絕這些設定：n_seq_max 必須 <= 256（指定的是 -np { $n }）
recipe-err-ctx-32bit = 上下文 { $c }（或批次 { $batch } / 微批次 { $ubatch }）超出 llama.cpp 32 位元大小的範圍（最大 { $max }）；請明確指定 -c
recipe-err-refuses-qv-grok = llama.cpp 拒絕這些設定：量化的 V 快取（{ $type }）需要啟用 flash_attn，而 llama.cpp 對 grok 會強制關閉它
recipe-err-refuses-qv-fa-off = llama.cpp 拒絕這些設定：量化的 V 快取（{ $type }）需要啟用 flash_attn（指定的是 -fa off）
recipe-err-refuses-mla-types = llama.cpp 拒絕這些設定：模型不支援 K（{ $k }）與 V（{ $v }）使用不同的快取類型（MLA 將 V 存放在 K 之中；請為 -ctk 和 -ctv 指定相同的類型）
recipe-err-no-estimate = 無法估算此模型：{ $why }

## Where a runtime's flags were read; owners not taken at their word; --group-by's errors; several GPUs
recipe-src-flag-from = { $flag }（{ $from }）
recipe-src-parent-cmdline = /proc/{ $pid }/cmdline（父伺服器處理程序；此處理程序的標題取代了它自己的命令列）
recipe-note-several-gpus = 本機上，針對此廠商的 llama-server 建置能看到 { $count } 張 GPU（{ $gpus }），並會全部使用（依可用顯示記憶體分配各層）：此估算僅針對 GPU{ $index }；--gpus { $count } 可估算這種分配（依編號順序，即設定 CUDA_DEVICE_ORDER=PCI_BUS_ID 時 CUDA 的順序）
recipe-note-split-evenly = 沒有 -ts，也不知道每個裝置的可用顯示記憶體（estimate --free）：各層平均分配，與 llama.cpp 在各裝置可用顯示記憶體相同時的做法一致

## llama-server's flag values refused (estimate/settings, devices, overrides)
recipe-flag-not-number = { $flag }：{ $value } 不是有效的數字
recipe-flag-too-big = { $flag }：{ $value } 超出範圍：llama-server 以 32 位元整數讀取它（最大 { $max }）
recipe-flag-negative = { $flag }：{ $value } 是負數
recipe-flag-cache-type = { $flag }：不支援的快取類型 { $value }（llama.cpp 接受 { $types }）
recipe-flag-cache-type-unknown = { $flag }：未知類型 { $value }
recipe-flag-needs-value = { $flag } 需要一個值
recipe-flag-not-on-off = { $flag }：{ $value } 不是 on 或 off
recipe-flag-fit-target = { $flag }：{ $value } 不是 1 到 16 個以 MiB 為單位的大小
recipe-flag-slots = { $flag }：{ $value } 個槽位無效（請用 -1 表示 auto，或 N >= 1）
recipe-flag-not-fa = { $flag }：{ $value } 不是 on、off 或 auto
recipe-flag-load-mode = { $flag }：{ $value } 不是 auto、none、mmap、mlock、mmap+mlock 或 dio
recipe-flag-ts-too-many = { $flag }：{ $value } 個比例，超過 llama.cpp 的 16 個裝置上限
recipe-flag-ts-proportion = { $flag }：{ $value } 不是比例（應為 >= 0 的數字）
recipe-flag-split-mode = { $flag }：{ $value } 不是 none、layer、row 或 tensor
recipe-flag-rpc-too-many = { $flag }：{ $value } 個伺服器，超過 llama.cpp 的 16 個裝置上限
recipe-flag-not-override = { $flag }：{ $value } 不是 PATTERN=BUFFER_TYPE 格式（llama-server 會拒絕它）
recipe-flag-layers = { $flag }：{ $value } 不是層數

## What is wrong with a model's header (estimate/hparams, memory, parts)
recipe-err-header = { $file }：{ $message }
recipe-hdr-required = 缺少必要的鍵 { $key }，或其值不是整數
recipe-hdr-array-too-long = { $key }：陣列有 { $n } 個項目，太長，不可能是逐層陣列
recipe-hdr-array-layers = { $key } 有 { $n } 個項目，但模型有 { $layers } 層
recipe-hdr-not-integers = { $key }：其中的項目不是整數
recipe-hdr-not-integer = { $key } 不是整數
recipe-hdr-no-arch = 缺少 general.architecture：不是 llama.cpp 能載入的模型檔案
recipe-hdr-block-count = { $key } 為 { $n }，不是合理的層數
recipe-hdr-pattern-too-long = { $key }：有 { $n } 個項目，比任何模型的層數都多
recipe-hdr-implausible = { $name } = { $value } 不是合理的值（最大為 { $max }）
recipe-hdr-bool-array-layers = { $key } 有 { $n } 個項目，而層數為 { $layers }
recipe-hdr-not-booleans = { $key }：其中的項目不是布林值
recipe-hdr-not-boolean = { $key } 不是布林值
recipe-hdr-interval-zero = { $key } 為 0：llama.cpp 會將每層的索引對它取模
recipe-hdr-beyond-64 = 檔頭宣告的大小超出任何裝置的容量：{ $what } 超過 2^64 位元組
recipe-flag-why = { $flag }：{ $why }
recipe-overrides-too-many = 張量覆寫規則共 { $n } 條；超過 { $max } 條時 llama-server 會中止（--n-cpu-moe N 每層加一條）
