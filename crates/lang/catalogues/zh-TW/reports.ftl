# 文字報告（`gpuledger snapshot` 及其他指令的輸出），繁體中文（臺灣用語，香港與澳門亦使用）。
# 術語見 crates/lang/GLOSSARY.md。

## snapshot：標題
report-replay = 重播 { $file }（錄製於 { $taken }，並非本機的即時資料）
report-title = gpuledger 快照 · { $host } · { $taken }
report-title-wsl = gpuledger 快照 · { $host } · { $taken } · WSL2
report-unknown-host = 未知主機
report-no-gpu = 找不到 GPU。請執行 `gpuledger selftest`，查看各個資料來源找了哪些地方。

## snapshot：裝置
report-devices = 裝置
report-col-gpu = GPU
report-col-name = 名稱
report-col-memory-used-total = 記憶體 已用 / 總量
report-col-gpu-pct = GPU%
report-col-mem-pct = 記憶體%
report-col-temp = 溫度
report-col-power-limit = 功率 / 上限
report-col-processes = 處理程序合計
report-col-unattributed = 未歸屬
report-system-memory-gtt = 系統記憶體（GTT）
report-power-suspended = 已休眠
report-power-suspending = 正在休眠
report-over-attributed = 超額歸屬

## snapshot：處理程序
report-processes-measured = 處理程序（實測）
report-col-pid = PID
report-col-user = 使用者
report-col-workload = 工作負載
report-col-type = 類型
report-col-memory = 記憶體
report-col-sys-gtt = 系統記憶體/GTT
report-col-source = 來源
report-col-sm-pct = SM%
report-col-owner = 所屬
report-col-command = 指令

## snapshot：未歸屬的列
report-unattributed-on = GPU{ $gpu } 上未歸屬（驅動程式、系統、其他使用者、未知處理程序）
report-over-attributed-on = GPU{ $gpu } 超額歸屬：各處理程序加總超過裝置實際用量（共用的記憶體表面會同時計入多個處理程序）；長條圖依比例縮放，標籤為原始數值
report-unattributed-unknown = GPU{ $gpu } 上未歸屬：裝置已用的顯示記憶體不明

## snapshot：估算帳目
report-estimated = 估算（依模型檔案與啟動參數計算；並非實測值，不計入上方的合計）
report-col-role = 角色
report-col-recipe = 估算方法
report-col-context = 上下文
report-col-weights = 權重
report-col-kv-cache = KV 快取
report-col-compute = 計算緩衝區
report-col-overhead = 額外開銷
report-col-total = 合計
report-col-measured = 實測
report-pid-says = PID { $pid }：{ $text }
report-reported-no-estimate = { $pid } { $name }：無法估算；執行環境自行回報了 { $figures }（{ $source }）
report-group = PID { $pid } 的處理程序群組（{ $label }）：共 { $members } 個成員，估算合計 { $estimated }，實測 { $measured }
report-group-no-estimate = n/a（沒有任何成員有估算值）
report-explain-hint = （`gpuledger explain PID` 會列出每個部分的輸入及其來源）

## snapshot：附註與資料來源
report-notes = 附註及無法看到的項目
report-unknown-processes = GPU{ $gpu }：有 { $count } 個處理程序的顯示記憶體不明，已計入未歸屬的數值
report-memory-na = PID { $pid }（{ $name }）在 GPU{ $gpu } 上的顯示記憶體為 n/a：{ $reason }
report-engines-na = PID { $pid } 的引擎使用率為 n/a：{ $reason }
report-process-note = PID { $pid }（{ $name }）：{ $note }
report-metadata-na = PID { $pid } 的名稱、使用者與指令不明：{ $reason }
report-sources = 資料來源
report-source-ok = 正常
report-source-unavailable = 無法使用
report-source-error = 錯誤
report-source-line = { $state }：{ $detail }

## 實測值與估算值並列（snapshot、explain、estimate）；$label 為空或以空格結尾
report-vs-more = 實測 { $measured } { $label }對比估算 { $estimated }：驅動程式回報的比估算多 { $difference }
report-vs-less = 實測 { $measured } { $label }對比估算 { $estimated }：驅動程式回報的比估算少 { $difference }
report-vs-with-cause = { $text }；{ $cause }
report-gap-above-estimate = 可能有估算方法未涵蓋的配置（處理程序中還有其他模型或上下文、CUDA graphs、更大的批次），或實際上下文比讀到的設定更大
report-gap-below-weights = 比估算的權重本身還少：可能放到 GPU 上的層數比讀到的設定少，或模型仍在載入
report-gap-between = 可能上下文更小、槽位更少或批次比讀到的設定更小（執行環境可能在載入時調整過：llama-server 的 --fit、Ollama 的 num_ctx）

## explain（標題前空一行；其餘各行由程式縮排）
report-explain-title = gpuledger explain { $pid } · { $name } · 使用者 { $user }
report-explain-title-replay = gpuledger explain { $pid } · { $name } · 使用者 { $user } · 重播
report-explain-command = 指令：{ $command }
report-explain-metadata-na = 名稱、使用者與指令為 n/a：{ $reason }
report-explain-owner = 所屬：{ $label } · cgroup { $cgroup }
report-explain-pod-names-na = Pod 名稱與命名空間為 n/a：{ $reason }
report-explain-slurm-names = Slurm 作業名稱來自：{ $source }
report-explain-owner-note = 所屬附註：{ $note }
report-explain-kubelet-devices = kubelet 指派的裝置：{ $devices }
report-explain-measured = 實測（由驅動程式回報）
report-explain-memory-na = 顯示記憶體為 n/a：{ $reason }
report-explain-what-it-is = 這是什麼（辨識結果及依據）
report-explain-identified = { $label }（可信度：{ $confidence }）
report-confidence-high = 高
report-confidence-medium = 中
report-confidence-low = 低
report-explain-missing = 缺少：{ $what }
report-explain-not-identified = 無法辨識
report-explain-workload = 工作負載的處理程序（根處理程序 PID { $pid }；實測合計 { $measured }）
report-explain-workload-estimated = 工作負載的處理程序（根處理程序 PID { $pid }；實測合計 { $measured }，估算合計 { $estimated }）
report-explain-this-process = ← 即此處理程序
report-explain-no-gpu-memory = 未使用顯示記憶體
report-explain-share = （估算份額 { $bytes }）
report-explain-live = 即時狀態（執行環境本身的 API，僅限本機迴路位址）
report-explain-live-server = { $server }，位於 127.0.0.1:{ $port }
report-explain-auth = 此伺服器需要 API 金鑰（HTTP 401）；gpuledger 不會傳送金鑰
report-explain-context-size = 上下文大小：{ $n }
report-explain-slots-busy = 槽位：{ $total } 個中有 { $busy } 個忙碌
report-explain-slots = 槽位：{ $total }
report-explain-tokens-per-second = 每秒 token 數：{ $rate }
report-explain-model = 模型：{ $path }
report-explain-loaded = 已載入：{ $name }（執行環境回報使用顯示記憶體 { $vram }，上下文 { $context }）
report-explain-na = n/a：{ $reason }
report-explain-estimated-config = 估算（依 config.json、safetensors 檔頭與執行環境設定計算；並非實測值）
report-explain-estimated-gguf-runtime = 估算（依 GGUF 檔頭與執行環境設定計算；並非實測值）
report-explain-estimated-gguf-server = 估算（依 GGUF 檔頭與伺服器的啟動參數計算；並非實測值）
report-explain-recipe = 估算方法：{ $recipe }
report-explain-not-modelled = 未納入估算：{ $what }
report-explain-runtime-api-na = 執行環境 API 為 n/a：{ $reason }
report-explain-side-by-side = 並列對照（三者從不相加）
report-explain-measured-driver = 實測（驅動程式）：
report-explain-reported-runtime = 回報（執行環境）：
report-explain-reported-none = n/a（執行環境在此不公布數值）
report-explain-recorded = { $bytes }（快照中記錄的值）
report-explain-estimated-recipe = 估算（估算方法）：
report-explain-why = 依據：{ $why }
report-explain-runtime-reported = 執行環境回報（執行環境本身的日誌，與估算並列）

## estimate：llama.cpp 估算方法的帳目（`gpuledger estimate`、explain）
report-est-header = 估算（{ $recipe }）：{ $path }：{ $arch }，{ $layers } 層，{ $size }，共 { $files } 個檔案
report-est-context = 上下文：n_ctx { $n_ctx }（每個槽位 { $per_slot }），{ $slots } 個槽位，{ $cache }快取，n_ubatch { $ubatch }，flash attention { $flash }
report-est-cache-unified = 統一
report-est-cache-per-slot = 依槽位配置的
report-est-on = 開
report-est-off = 關
report-est-approximate = 近似：此模型有部分內容是以通用規則估算的：
report-est-col-line = 項目
report-est-col-host = 主機
report-est-col-details = 說明
report-est-weights = 權重
report-est-kv-cache = KV 快取
report-est-output = 輸出
report-est-output-detail = 每個槽位一個 token 的 logits（主機記憶體）
report-est-compute = 計算緩衝區
report-est-overhead = 額外開銷
report-est-total = 合計
report-est-weights-detail = { $gpu_layers }/{ $layers } 個重複層在 GPU 上，輸出層{ $place ->
        [gpu] 在 GPU 上
       *[host] 在主機記憶體中
    }
report-est-tied-copy = ，含 token_embd 的綁定輸出副本 { $size }
report-est-override = ；{ $given }：{ $count } 個張量（{ $size }）{ $place ->
        [gpu] 在 GPU 上
       *[host] 在主機記憶體中
    }
report-est-kv-detail = { $cells } 個單元 x { $streams } 個串流 x { $layers } 個全注意力層
report-est-kv-swa = + { $cells } 個單元 x { $layers } 個 SWA 層
report-est-kv-recurrent = ，循環狀態 { $size }
report-est-kv-indexer = ，含索引器快取 { $size }（{ $layers } 層，每個鍵 { $head }）
report-est-kv-compressed = ，含壓縮快取與壓縮器狀態 { $size }（{ $count } 項）
report-precision-exact = 精確
report-precision-approximate = 近似
report-est-compute-approximate = 可信度 { $confidence }；{ $word }：{ $parts }
report-est-compute-exact = { $word }：依此模型的層重播了 llama.cpp 的計算圖預留
report-est-total-no-overhead = GPU 合計不含未知的額外開銷
report-est-total-without-overhead = 不含額外開銷為 { $size }
report-est-col-device = 裝置
report-est-col-layers = 層數
report-est-plus-output = + 輸出層
report-est-per-device = 依裝置（llama.cpp 的裝置順序；不含額外開銷）：
report-fit-unchanged = 未變更
report-fit-fitted = 已調整
report-fit-failed = 失敗
report-fit-stopped = 已停止
report-est-fit = 重播了 --fit（{ $outcome }）：可用 { $free }，保留 { $margin }；llama-server 會以下列參數載入：
report-est-fit-log = llama.cpp 為這次 --fit 印出的記錄（原文）：
report-est-inputs = 輸入：
report-est-notes = 附註：
report-source-gguf = gguf { $detail }
report-source-tensors = 張量：{ $detail }
report-source-flag = 參數 { $detail }
report-source-env = 環境變數 { $detail }
report-source-server = 伺服器：{ $detail }
report-source-default = 預設值（{ $detail }）
report-source-derived = 推導：{ $detail }
report-source-assumed = 假設：{ $detail }
report-source-file = 檔案：{ $detail }
report-source-measured = 實測：{ $detail }
report-cmp-heading = 估算值與 llama.cpp 本身日誌的對照（日誌是執行環境自己給出的數字）：
report-cmp-estimated = 估算
report-cmp-logged = 日誌
report-cmp-not-in-log = 日誌中沒有
report-cmp-not-modelled = 未納入估算

## estimate：能否放進 GPU 目前可用的顯示記憶體
report-fit-na = 能否放入：{ $reason }
report-fit-not-requested = 未要求檢查能否放入（--no-fit-check）
report-fit-no-snapshot = 無法檢查：未能為本機建立快照
report-fit-not-available = 無法檢查：{ $why }
report-fit-no-gpu = 未發現 GPU（{ $sources }）
report-fit-source = { $name }：{ $detail }
report-fit-no-such-gpu = 沒有 GPU { $device }（找到的是 { $found }）
report-fit-free-unknown = 無法檢查：{ $device } 的可用顯示記憶體未知{ $why }
report-fit-replay = 能否放入（重播 { $file }，並非本機的即時資料）：
report-fit-on = 能否放入 { $device }：需要約 { $needed }（估算），可用 { $free }，總量 { $total }（實測）-> { $verdict }
report-fit-on-overhead-unknown = 能否放入 { $device }：需要約 { $needed }（估算，額外開銷不明），可用 { $free }，總量 { $total }（實測）-> { $verdict }
report-fit-fits = 放得下，尚餘 { $size }
report-fit-short = 放不下，還差 { $size }
report-fit-held-by = 目前佔用者：
report-fit-unattributed = 未歸屬
report-fit-changes = 任選下列一項修改即可放入（每項都已重新估算驗證）：
report-fit-col-change = 修改
report-fit-col-needs = 需要
report-fit-col-free = 可用
report-fit-col-what = 作用

## explain：快照中記錄的估算，以及執行環境估算方法（vLLM、SGLang、PyTorch）的估算
report-recorded = 擷取快照時記錄的估算（{ $recipe }，模型 { $model }）：
report-recorded-context = 擷取快照時記錄的估算（{ $recipe }，模型 { $model }，上下文 { $context }）：
report-recorded-compute-buffers = 計算緩衝區
report-recorded-total-gpu = GPU 合計
report-runtime-recipe-model = 估算方法 { $recipe } · 模型 { $model }
report-runtime-input = { $name } = { $value }（{ $source }）
report-runtime-overhead = { $bytes }（{ $source }）
report-runtime-not-modelled = n/a（未納入估算）
report-runtime-kv-holds = KV 快取容量
report-runtime-tokens = { $n } 個 token
report-runtime-reports = 執行環境回報（執行環境自己的數字，不計入任何一本帳）：
report-runtime-driver = （驅動程式）

## snapshot --group-by
report-groups-title = gpuledger snapshot --group-by { $by } · { $host } · { $taken }
report-groups-device = GPU{ $gpu }  { $name }  已用 { $used }
report-groups-by-pod = Pod
report-groups-by-namespace = 命名空間
report-groups-by-container = 容器
report-groups-by-job = 作業
report-groups-by-user = 使用者
report-groups-by-unit = systemd 單元
report-groups-by-owner = 所屬
report-groups-col-processes = 處理程序數
report-groups-unattributed = 未歸屬（驅動程式、系統、其他使用者、未知處理程序）
report-groups-over-attributed = 超額歸屬（各處理程序加總超過裝置實際用量）
report-groups-unattributed-unknown = 未歸屬：裝置已用的顯示記憶體不明
report-groups-notes = 附註

## what a process is (the model's kinds that are words, not product names)
report-kind-browser = 瀏覽器
report-kind-compositor = 視窗合成器
report-kind-cuda-app = CUDA 程式
report-kind-graphics-app = 圖形程式
report-kind-ollama-runner = Ollama 執行器
report-kind-unknown = 未辨識

## explain: the kinds of evidence
report-evidence-executable = 執行檔
report-evidence-cmdline = 命令列
report-evidence-library = 函式庫
report-evidence-model-file = 模型檔案
report-evidence-listening-port = 監聽連接埠
report-evidence-parent = 父處理程序
report-evidence-http = HTTP 回應
report-evidence-log = 日誌
report-evidence-gguf-header = GGUF 檔頭
report-evidence-workload = 工作負載

## selftest (the sources' own findings stay as they wrote them)
report-selftest-title = gpuledger { $version } 自我檢測 · { $host } · 核心 { $kernel }
report-selftest-title-wsl = gpuledger { $version } 自我檢測 · { $host } · 核心 { $kernel } · WSL2
report-selftest-ok = 正常
report-selftest-not-found = 找不到
report-selftest-error = 錯誤
report-selftest-sees = 看得到：{ $what }
report-selftest-cannot-see = 看不到：{ $what }

## diff
report-diff-title = gpuledger diff · { $before }（{ $before_taken }）→ { $after }（{ $after_taken }）
report-diff-absent = 不存在
report-diff-appeared = 新出現
report-diff-gone = 已消失
report-diff-grew = 增加
report-diff-shrank = 減少
report-diff-unchanged = 未變
report-diff-unknown = 不明
report-diff-processes = 處理程序（實測）
report-diff-no-processes = 兩個快照中都沒有處理程序
report-diff-none-changed = 沒有處理程序發生變化
report-diff-paired-by = 依 { $rule } 配對
report-diff-quiet = （另有 { $count } 個處理程序未變或不明；--all 會全部列出）
report-diff-devices = 裝置（實測）
report-diff-device = { $device }  已用 { $used }  未歸屬 { $unattributed }
report-diff-estimates = 估算（計算得出，並非實測）

## history (its table's columns; the rows are figures)
report-history-col-time = 時間
report-history-col-used = 已用
report-history-col-free = 可用
report-history-col-power-w = 功率 W

# The machine's driver in the live view's title (`n/a` when no device says).
report-driver-item = 驅動程式 { $version }
report-context-mem-clock = 記憶體 { $clock }
report-context-pcie-below = PCIe { $now }（最高 { $max }）

## kill: the confirmation and the report's frame (the kill's own sentences stay as it wrote them)
report-kill-would = 將會：{ $text }
report-kill-at-ms = { $ms } ms
report-kill-waiting-in = 在核心中等待於：{ $text }
report-kill-remedy = 可嘗試：{ $text }
report-kill-now = 目前：{ $text }
report-kill-gpu-memory = 顯示記憶體：{ $text }
report-kill-holds = { $bytes } 顯示記憶體（實測）
report-kill-not-listed = 沒有實測的顯示記憶體用量
report-kill-unknown = 顯示記憶體未知：{ $reason }
report-kill-about-to = 即將終止：
report-kill-target = PID { $pid } { $name }：{ $memory }
report-kill-target-user = PID { $pid } { $name }，使用者 { $user }：{ $memory }
report-kill-target-workload = 工作負載：{ $what }（可信度：{ $confidence }）
# The answers stay y / yes in every language (what the program reads).
report-kill-ask-graceful = 終止 { $count } 個處理程序（先正常結束，寬限期過後強制結束）？[y/N]
report-kill-ask-forced = 立即強制終止 { $count } 個處理程序？[y/N]
report-kill-sensitive = { $why }。
report-kill-ask-yes = 若仍要終止 PID { $pid }，請輸入 'yes'：
report-kill-no-terminal = 沒有可供確認的終端機；可用 --yes 事先確認；未送出任何訊號
report-kill-not-confirmed = 未確認；未送出任何訊號

## probe (its notes are the probe's own sentences)
report-probe-title = gpuledger probe：{ $device }（CUDA 裝置 { $ordinal }），{ $total } 顯示記憶體
report-probe-versions = 驅動程式 { $driver }，CUDA { $cuda }，{ $os }，測量於 { $at }
report-probe-context = 上下文開銷：NVML 測得 { $first_nvml }（第一個上下文）；依驅動程式的可用記憶體為 { $second_driver }，NVML 測得 { $second_nvml }（第二個上下文）
report-probe-col-method = 配置方式
report-probe-col-host-bytes = 主機位元組數
report-probe-col-delta-driver = 顯示記憶體變化（驅動程式）
report-probe-col-delta-nvml = 顯示記憶體變化（NVML）
report-probe-col-ratio-driver = 比例（驅動程式）
report-probe-col-ratio-nvml = 比例（NVML）
report-probe-col-released = 已釋放
report-probe-method-device = cuMemAlloc（裝置記憶體，對照組）
report-probe-method-pinned = cuMemHostAlloc（鎖定分頁記憶體）
report-probe-method-devicemap = cuMemHostAlloc DEVICEMAP
report-probe-method-register = cuMemHostRegister
report-probe-released = 是，讀取 { $reads } 次
report-probe-not-released = 否：讀取 { $reads } 次後仍少 { $missing }
report-probe-note = 註：{ $text }
report-probe-saved = 已儲存至 { $path }；estimate 與 explain 之後會以「{ $label }」使用它

## verify (the verdicts, the paths' reasons and the notes are the judge's own sentences)
report-verify-replay = 重播 { $path }（記錄於 { $taken_at }）
report-verify-title = gpuledger verify：PID { $pid } 配置並寫入了 { $size }，位於 { $device }
report-verify-path = 路徑 { $path }：{ $why }
report-verify-system-ledger = 依系統記憶體（GTT）判定：{ $why }
report-verify-expected-cpu = 預期：任何資料來源都看不到：{ $device } 是 CPU 裝置，它的記憶體就是主機記憶體（沒有顯示記憶體，也沒有 GPU 計數器）。
report-verify-expected = 預期：子處理程序起初不存在，接著帶著一個上下文出現，配置時 +{ $size }，釋放時 -{ $size }，結束後消失；裝置已用量隨之變化；未歸屬量不變。容許誤差 { $tolerance }（2 MiB 配置粒度加上驅動程式的簿記開銷）。
report-verify-second-witness = [旁證]
report-verify-note = 註：{ $text }
report-verify-no-uuid = 無 UUID
report-verify-cuda-device = CUDA 裝置 { $ordinal } { $name }（{ $uuid }），CUDA { $cuda }
report-verify-pci-unknown = 未回報
report-verify-vulkan-device = Vulkan 裝置 { $ordinal } { $name }（{ $about }，PCI { $pci }），Vulkan { $vulkan }
report-verify-nothing = 這台機器上無法驗證：
report-verify-needs-any = （verify 需要具備 CUDA 或 Vulkan 驅動程式的 GPU）
report-verify-needs-cuda = （verify --path cuda 需要 NVIDIA GPU 及其驅動程式；--path vulkan 會執行 Vulkan 工作負載）
report-verify-needs-vulkan = （verify --path vulkan 需要 Vulkan 載入器與 Vulkan 驅動程式；--path cuda 會執行 CUDA 工作負載）

## kill: the sentences the kill writes (its outcome, steps, plan, remedies); --json carries the English
report-kill-refused-pid = 拒絕終止 PID { $pid }：{ $why }；未送出任何訊號
report-kill-already-zombie = { $who } 已經結束，是殭屍處理程序：它不占用記憶體；只有它的父處理程序 { $parent } 能把它從處理程序表中移除（藉由等待它）
report-kill-parent-unknown = （未知）
report-kill-dry-run-read = 剛剛讀取；未送出任何訊號（試執行）
report-kill-dry-run = 對 { $who } 的試執行：未送出任何訊號；計畫：{ $plan }
report-kill-dry-run-head = 對 { $who } 的試執行：未送出任何訊號
report-kill-unknown-state = 狀態未知
report-kill-still-alive = { $signal } 之後 { $ms } ms，{ $who } 仍然存活（{ $state }）；請見可嘗試的補救方式
report-kill-gone = { $who } 已結束{ $detail }
report-kill-zombie-now = { $who } 已結束，現在是殭屍處理程序（不占用記憶體；視為已結束），直到它的父處理程序 { $parent } 回收它
report-kill-no-such-process = 沒有 PID 為 { $pid } 的處理程序（它可能已經結束）
report-kill-who-why = { $who }：{ $why }
report-kill-cannot-read = 無法讀取 PID { $pid }：{ $why }
report-kill-skipped-other = 已略過 PID { $pid }：{ $why }，因此這個 PID 現在指向另一個處理程序（{ $name }）；未送出任何訊號
report-kill-start-time-differs = 它的啟動時間是 { $now }，但你選擇的處理程序啟動於 { $chosen }
report-kill-name-differs = 它的名稱是 { $now }，不是 { $chosen }
report-kill-refused = 拒絕終止 { $who }：{ $why }；未送出任何訊號
report-kill-needs-second = 不終止 { $who }：{ $why }。需要第二次確認（--yes-really）才能繼續；未送出任何訊號
report-kill-exited-before = { $who } 在送出訊號之前已自行結束
report-kill-cannot-open = 無法開啟 { $who }：{ $error }
report-kill-reused = 已略過 PID { $pid }：在檢查與鎖定之間它被 { $name } 重複使用；未送出任何訊號
report-kill-cannot-reread = 無法重新讀取 { $who }：{ $error }
report-kill-not-read = 未讀取：未送出任何訊號
report-kill-no-reader = 未知：沒有可用的顯示記憶體讀取方式
report-kill-step-suppressed = 遭測試用的傳送過濾器攔下（未送出）
report-kill-step-sent = 已送出
report-kill-step-sent-detail = 已送出 { $detail }
report-kill-step-not-sent = 未送出：{ $why }
report-kill-step-already-exited = 未送出：處理程序已經結束
report-kill-step-permission = 未送出：權限不足
report-kill-step-failed = 失敗：{ $error }
report-kill-step-exited = { $ms } ms 後結束
report-kill-step-still-running = { $ms } ms 後仍在執行
report-kill-step-cannot-wait = 無法等待：{ $error }
report-kill-owner-user = 使用者 { $user }（uid { $uid }）
report-kill-owner-uid = uid { $uid }
report-kill-owner-other = 其他使用者（或以提高的權限執行）
report-kill-permission = 權限不足：PID { $pid }（{ $name }）屬於 { $owner }，而 gpuledger 以 { $me } 身分執行；只有處理程序的擁有者或系統管理員能對它送出訊號。請以該使用者身分執行 gpuledger，或使用 sudo / 在提高權限的命令提示字元中執行。未送出任何訊號。
report-kill-plan-send = 對 PID { $pid }（{ $name }）送出 { $signal }
report-kill-plan-continue = 送出 SIGCONT（它處於停止狀態，繼續執行之前無法回應 SIGTERM）
report-kill-plan-wait = 最多等待 { $ms } ms 讓它結束
report-kill-plan-then-force = 若它尚未結束，送出 { $signal }
report-kill-plan-wmi = 若它在 TerminateProcess 之後仍然存活，要求 WMI 終止它
report-kill-plan-verify = 確認它在 { $ms } ms 內結束，否則回報它仍然存活
report-kill-plan-expect-denied = （預期權限不足：它屬於 uid { $uid }，gpuledger 以 uid { $me } 執行）
report-kill-released = 已釋放：它原本占用 { $bytes }，現在已不再列出
report-kill-not-released = 未釋放：它原本占用 { $before }，{ $ms } ms 後仍列出 { $after }
report-kill-held-none = 終止之前它沒有實測的顯示記憶體用量
report-kill-release-unknown = 未知：{ $reason }
report-kill-still-listed = 仍列出 { $bytes }
report-kill-not-listed-after = 終止之後不再列出
report-kill-remedy-uninterruptible = 它處於不可中斷的睡眠{ $where }：只有該呼叫返回後，核心才會處理 { $signal }。若它在等待 GPU 驅動程式，請讓 GPU 上的工作完成，或重設 GPU：NVIDIA 使用 `nvidia-smi --gpu-reset -i N`（僅在沒有其他處理程序使用該 GPU 時）；AMD 以 root 執行 `cat /sys/kernel/debug/dri/N/amdgpu_gpu_recover`。
report-kill-remedy-wchan = （位於 { $wchan }）
report-kill-remedy-reload = 在沒有其他程式使用時，卸載並重新載入 GPU 驅動程式模組。
report-kill-remedy-debugger = 它被偵錯工具停住了：先讓偵錯工具脫離或結束偵錯工具（ptrace），再終止一次。
report-kill-remedy-teardown = { $signal } 已送出，但核心尚未拆除完它（解除對應很大的位址空間或鎖定的顯示記憶體需要時間）：稍候再用 `gpuledger snapshot` 檢查。
report-kill-remedy-reboot = 重新開機：永遠有效的補救方式。
report-kill-remedy-win-pending = { $signal } 已被接受，但處理程序尚未結束：Windows 會先讓它完成擱置中的 I/O（通常是驅動程式呼叫）。請稍候再檢查。
report-kill-remedy-win-wmi = 在有 PowerShell 的地方，gpuledger 也要求了 WMI（Win32_Process.Terminate）；請以系統管理員身分重試：Get-CimInstance Win32_Process -Filter "ProcessId={ $pid }" | Invoke-CimMethod -MethodName Terminate
report-kill-remedy-win-reset = 若它在等待 GPU 驅動程式：重設圖形驅動程式（Win+Ctrl+Shift+B），或重新啟動 Windows：永遠有效的補救方式。
report-kill-remedy-mac-blocked = { $signal } 已送出，但處理程序尚未結束；它可能卡在核心中（例如在等待 GPU 驅動程式）。請稍候再檢查。
report-kill-remedy-mac-restart = 重新啟動 Mac：永遠有效的補救方式。

# Sentences in a row (a dry run's plan).
report-said-list = { $a }；{ $b }

# Sentences in a row, joined by report-said-list (a source's finding and the problems it met).
report-said-row = { $items }

## the sources' sentences (selftest, the snapshot's sources, the live view's warnings); JSON has the English
report-src-unknown = 未知
report-src-recording = 來自 { $path } 的 { $at } 樣本
report-src-nvml-absent = 這個平台上沒有 NVML
report-src-nvml-not-found = 找不到 { $name }（已嘗試 { $tried }）：未安裝 NVIDIA 驅動程式，或它不在函式庫搜尋路徑上
report-src-nvml-no-init = { $path }：不是 NVML 函式庫（沒有 nvmlInit_v2 或 nvmlInit）
report-src-nvml-init-failed = { $path }：nvmlInit 失敗：{ $message }（NVML 錯誤 { $code }）
report-src-nvml-ok = { $path }（驅動程式 { $driver }）：{ $count } 個裝置，{ $procs } 個處理程序
report-src-procfs = { $root }：{ $count } 個 GPU 處理程序中有 { $seen } 個有中繼資料
report-src-drm-none = { $dir } 下沒有 DRM 裝置{ $why }，也沒有處理程序開啟 DRM 節點
report-src-drm-only-nvml = 除了 NVML 回報的裝置外沒有 DRM 裝置；已略過 NVIDIA 裝置上的 { $count } 個用戶端（由 NVML 回報）
report-src-drm-unreadable = { $first }；{ $count } 個處理程序的檔案描述元無法讀取（權限不足；以 root 執行才能看到其他使用者的處理程序）

## Sentences found while collecting (gpuledger_lang::Said): the snapshot's notes
report-note-pods-by-uid = { $count } 個 Kubernetes Pod 中的 GPU 處理程序以 Pod UID 顯示：{ $why }
report-note-pid-namespace = gpuledger 在 PID 命名空間中執行（容器：{ $why }）；NVML 回報的是主機的 PID，與這裡看到的 PID 對不上，因此 NVML 列出的處理程序可能沒有名稱，或被認成別的處理程序；要讓兩者對上，請在主機的 PID 命名空間中執行（docker --pid=host）
report-note-proc-unreadable = { $count ->
        [1] 1 個 GPU 處理程序的 /proc 項目無法讀取：{ $first }
       *[other] { $count } 個 GPU 處理程序的 /proc 項目無法讀取：{ $first }（還有其他）
    }
report-note-proc-unseen = { $count } 個 GPU 處理程序在 { $root } 中看不到（在本輪收集期間已結束，或在另一個 PID 命名空間中）
report-note-wsl2 = 在 WSL2 下執行：NVML 只提供裝置總量，平台不提供各處理程序的顯示記憶體用量（由 Windows 管理）；NVML 列出的 PID 可能屬於 Windows 主機
report-note-no-gpu = 所有資料來源都沒有找到 GPU（請見 `gpuledger selftest`）
report-note-doubted-owners = { $count } 個 GPU 處理程序（PID { $pids }）所在的 cgroup 形似 Pod 或作業，卻不在 kubelet 與 slurmd 的 cgroup 根目錄下，因此依所在的使用者或單元顯示，而不算作 Pod 或作業：請見 `explain PID`
report-note-replay-v1 = 從錄製重播：錄製中保存了每個裝置的顯示記憶體、GPU %、記憶體控制器 %、溫度與功耗，以及每個處理程序的名稱、使用者、命令列、顯示記憶體與 SM %；沒有保存工作負載辨識、估算、監聽連接埠、所屬（Pod、Slurm 作業、容器、單元）、ROCm /dev/kfd 使用、編碼器/解碼器 %、各資料來源的讀數、裝置時脈、PCIe 連結與功耗上限，也沒有保存（由較舊的 gpuledger 錄製）系統記憶體與各類引擎的忙碌 %，以及每項使用的類型（C/G）
report-note-replay-v2 = 從錄製重播：錄製中保存了每個裝置的顯示記憶體、GPU %、記憶體控制器 %、溫度與功耗，以及每個處理程序的名稱、使用者、命令列、顯示記憶體、SM %、系統記憶體與各類引擎的忙碌 %；沒有保存工作負載辨識、估算、監聽連接埠、所屬（Pod、Slurm 作業、容器、單元）、ROCm /dev/kfd 使用、編碼器/解碼器 %、各資料來源的讀數、裝置時脈、PCIe 連結與功耗上限，也沒有保存（由較舊的 gpuledger 錄製）每項使用的類型（C/G）
report-note-replay = 從錄製重播：錄製中保存了每個裝置的顯示記憶體、GPU %、記憶體控制器 %、溫度與功耗，以及每個處理程序的名稱、使用者、命令列、顯示記憶體、SM %、系統記憶體、各類引擎的忙碌 %，和最後一次辨識出的工作負載、估算與類型（C/G）；沒有保存監聽連接埠、所屬（Pod、Slurm 作業、容器、單元）、ROCm /dev/kfd 使用、編碼器/解碼器 %、各資料來源的讀數、裝置時脈、PCIe 連結與功耗上限
report-note-drm-dedupe-rule = DRM 用戶端依 (drm-pdev, drm-client-id) 去除重複：在多個檔案描述元上開啟的同一用戶端只計一次；由多個處理程序共用的用戶端只記在一個持有者名下（PID 1 與 systemd 的描述元持有者排在最後，其餘取 PID 最小者），其他處理程序顯示為 0 並附說明
report-note-drm-dedupe = { $rule }（{ $dup } 個用戶端在同一處理程序的多個描述元上開啟，{ $shared } 個由多個處理程序共用）
report-note-kfd-without-drm = { $count } 個處理程序開啟了 /dev/kfd（ROCm）卻沒有開啟 DRM 節點：無法歸屬它們的顯示記憶體
report-note-fdinfo-line = { $path } 第 { $line } 行：{ $text }：{ $why }
report-drm-client = { $slot } 上的 { $id }
report-drm-client-fd = { $slot } 上，PID { $pid } 的 fd { $fd }
report-drm-shared-client = 與 PID { $owner } 共用 DRM 用戶端（{ $client }），該用戶端計入 PID { $owner }

## Why a process's name, user and command line are missing
report-meta-not-visible = 在此 /proc 中看不到：處理程序在本輪收集中已結束，或在另一個 PID 命名空間中執行（容器或主機）
report-meta-permission = 讀取此處理程序的 /proc 時權限遭拒
report-meta-unreadable = 無法讀取 { $path }：{ $error }
report-note-fdinfo-more = 另有 { $count } 行格式錯誤的 fdinfo 未列出

## Why a figure is unknown (Usage::unavailable_reason, the engines' reason)
report-why-drm-no-memory-keys = 在這個核心上，{ $driver } 不會在 fdinfo 中輸出記憶體欄位
report-why-drm-no-memory-keys-unnamed = 在這個核心上，驅動程式不會在 fdinfo 中輸出記憶體欄位
report-why-drm-line-malformed = { $path } 第 { $line } 行格式錯誤，因此 { $region } 的數值未知
report-why-drm-malformed = { $path } 格式錯誤，因此 { $region } 的數值未知
report-why-engines-kfd = ROCm 運算（已開啟 /dev/kfd）：amdkfd 驅動程式不會在 fdinfo 中回報引擎時間，所以 GPU % 未知，而不是 0 %
report-why-engines-shared = 引擎時間記在持有該共用用戶端的處理程序名下
report-why-engines-first = 這是該 DRM 用戶端的第一次取樣：引擎使用率是一個速率，需要第二輪才能算出
report-why-nvml-wddm = 在 WDDM 下，NVML 回報各處理程序的顯示記憶體無法取得（顯示記憶體由 Windows 管理）
report-why-nvml-not-available = NVML 回報這個處理程序的顯示記憶體無法取得（沒有權限的 MIG，或驅動程式未追蹤）
report-why-wddm-no-instance = 這個處理程序沒有 { $counter } 計數器執行個體
report-why-wddm-counter-invalid = { $counter }：計數器狀態無效
report-why-wddm-new-instance = 先前沒有這個處理程序引擎的 WDDM 讀數（上一輪之後才出現）
report-why-wddm-no-engine = 這個處理程序沒有 GPU Engine 計數器執行個體

## The kill guard rails' reasons (crates/actions kill::guard; the live view shares them)
report-guard-pid-zero = PID 0 不是單一處理程序（kill(2) 會對我們自己的處理程序群組送出訊號）
report-guard-pid-range = PID { $pid } 超出範圍（它會成為負的 pid_t，那是對整個處理程序群組送出訊號）
report-guard-init = PID 1 是 init：終止它會讓整個系統（或容器）停擺
report-guard-windows-system = PID 4 是 Windows 的 System 處理程序
report-guard-self = 這是 gpuledger 本身
report-guard-ancestor = 這是 gpuledger 的父處理程序（啟動它的 shell 或程式）
report-guard-kernel-thread = { $name } 是核心執行緒：訊號無法結束它，它也不佔用使用者記憶體
report-guard-thread = { $pid } 是處理程序 { $tgid } 的執行緒，不是處理程序：要結束它，請終止 PID { $tgid }
report-guard-critical-flag = { $name } 被 Windows 標記為關鍵處理程序：終止它會讓系統當機
report-guard-windows-critical = { $name } 是 Windows 的關鍵系統處理程序：終止它會讓系統當機或登出目前的使用者
report-guard-ends-display = 看起來是顯示伺服器、視窗合成器或桌面殼層：終止它會結束整個圖形工作階段及其中的所有視窗
report-guard-ends-shell = 是 shell 或工作階段處理程序（登入 shell、sshd、tmux、screen）：結束它可能會關閉你的終端機工作階段及其中執行的一切
report-guard-session = { $name } { $ends }
report-guard-session-program = { $name }（其程式為 { $program }）{ $ends }
report-selftest-process-gap = 各處理程序的顯示記憶體：{ $reason }

## probe's notes (crates/cuda probe, the CLI's probe command)
report-probe-note-no-nvml = 看不到這個裝置的 NVML 資料：NVML 各欄與第一個上下文的開銷未知
report-probe-note-device-wide = NVML 的已用顯示記憶體是整個裝置的：探測期間其他處理程序配置或釋放的顯示記憶體也會出現在 NVML 各欄中
report-probe-note-not-released = 有些記憶體在 { $reads } 次讀取（每次間隔 { $ms } ms）內沒有重新顯示為可用；驅動程式可能稍後才釋放
report-probe-note-nvml-not-loaded = 無法載入 NVML：{ $problem }

## the DRM round's finding (SourceStatus::detail of drm)
report-src-drm-round = { $devices } 個 DRM 裝置（{ $names }），{ $clients } 個用戶端{ $sysfs }，分布在 { $procs } { $entries ->
       *[other] 個處理程序
    }的 { $read } 個檔案描述元上；已依 (drm-pdev, drm-client-id) 去除重複{ $remarks }
report-src-drm-no-sysfs = ；沒有 sysfs 裝置資料：{ $error }
report-src-drm-remarks = ；{ $items }
report-src-drm-vanished = { $count } 個檔案描述元在本輪中被關閉
report-src-drm-skipped-nvml = 已略過 NVIDIA 裝置上的 { $count } 個用戶端（由 NVML 回報）
report-src-drm-unreadable-procs = { $count } 個處理程序的檔案描述元無法讀取（權限不足；要看到其他使用者的 GPU 使用需要 root）
report-src-drm-dxg = { $count } 個處理程序開啟了 /dev/dxg（WSL2 GPU 半虛擬化：由 dxg 資料來源測量，而不是 fdinfo）

## explain: what each piece of evidence showed (the JSON keeps this English; views drop the
## kind's own words in English, and the other languages are written without them)
report-said-comma = { $a }，{ $b }
report-ev-executable = { $path }
report-ev-process-name = 處理程序名稱 { $name }
report-ev-model-file = { $path }
report-ev-parent = { $name }（PID { $pid }）
report-ev-port = TCP 連接埠 { $port }
report-ev-library = { $what } { $path }
report-lib-ggml = llama.cpp / ggml 函式庫
report-lib-mlx = MLX 函式庫
report-lib-torch = PyTorch CUDA 函式庫
report-lib-cuda = CUDA/HIP 執行環境函式庫
report-lib-graphics = 顯示卡驅動程式函式庫
report-ev-in-cmdline = 命令列中有 { $what }
report-ev-browser-gpu = 瀏覽器的 GPU 處理程序（--type=gpu-process）
report-ev-ollama-runner = `ollama runner`，模型 { $model }
report-ev-llama-flags = llama.cpp 參數：{ $flags }
report-ev-flag-model = 模型 { $value }
report-ev-flag-context = 上下文 { $value }
report-ev-flag-gpu-layers = { $value } 層在 GPU 上
report-ev-flag-slots = { $value } 個槽位
report-ev-sglang-title = SGLang 處理程序標題 `{ $title }`
report-ev-vllm-engine = vLLM 引擎（vllm.entrypoints 或 VLLM:: 處理程序標題）
report-ev-descendant = PID { $pid } `{ $command }` 的子孫處理程序，該處理程序執行 { $kind }
report-ev-runtime-names = 執行環境稱此模型為 { $name }
report-ev-gguf = 架構 { $arch }，{ $layers } 層，{ $size }
report-ev-vllm-metrics = vLLM 指標
report-ev-sglang-info = SGLang 伺服器資訊
report-ev-sglang-info-tokens = SGLang 伺服器資訊，max_total_num_tokens { $tokens }
report-ev-ollama-none = Ollama：未載入模型
report-ev-ollama-loaded = Ollama：已載入 { $n } 個模型（{ $names }）
report-ev-lmstudio-loaded = LM Studio：已載入 { $n } 個模型
report-ev-props-401 = HTTP 401：伺服器啟動時設定了 API 金鑰
report-ev-health-200 = HTTP 200（不需金鑰）
report-ev-slots-busy = { $total } 個槽位中 { $busy } 個忙碌

## explain: what was looked for and not found
report-missing-model-named = 模型檔案：命令列指定了 { $path }，但它未被對映也未開啟（尚未載入，或未用 mmap 讀取後已關閉）
report-missing-model = 模型檔案：沒有對映或開啟的模型檔案
report-missing-port = 監聽連接埠：未找到（不是伺服器，或無法讀取其通訊端）
report-missing-unreadable = 無法讀取 { $what }
report-facts-unreadable = { $path }：{ $why }
report-facts-permission-denied = 權限不足（其他使用者的處理程序；請以該使用者或 root 身分執行）
report-facts-exited = 處理程序已結束
report-facts-macos-pidpath = PID { $pid }：proc_pidpath 失敗（其他使用者的處理程序？）
report-facts-macos-not-read = 已載入的程式庫、命令列和連接埠：macOS 上暫不讀取
report-facts-windows-cmdline = 命令列：Windows 上不讀取（模型參數只來自已載入的檔案）
report-facts-windows-open = PID { $pid }：OpenProcess：{ $error }（其他使用者的處理程序或受保護的處理程序）
report-facts-windows-modules = PID { $pid } 的模組：無法讀取（拒絕存取，或 32/64 位元不相符）
report-missing-log = 執行環境日誌：{ $error }

## explain: how a process was placed in its workload
report-member-title = 其處理程序標題 `{ $title }`
report-member-rank-vars = /proc/{ $pid }/environ 中的 RANK 與 WORLD_SIZE
report-member-descendant = 一個子孫處理程序
report-member-rooted = { $how }；工作負載的根處理程序是 PID { $root }（`{ $command }`），依據 /proc/{ $pid }/stat 的父處理程序鏈
report-member-rpc-client = PID { $client } 的 --rpc 指定了 127.0.0.1:{ $port }，此 rpc-server 正在該連接埠監聽（/proc/{ $client }/cmdline、/proc/{ $pid }/net/tcp）
report-member-rpc-no-client = 本機沒有 llama-server 在 --rpc 中指定它的連接埠：其用戶端在別處或已結束
report-member-rpc-no-client-ports = 本機沒有 llama-server 在 --rpc 中指定它的連接埠（{ $ports }）：其用戶端在別處或已結束

## explain: why the runtime's own API was not asked, why no process figure
report-live-replay = 重播：不詢問即時伺服器
report-live-no-probe = 指定了 --no-probe
report-live-other-netns = 未詢問執行環境的 API：該處理程序在另一個網路命名空間（容器）中執行，它的 127.0.0.1 不是本機的
report-live-not-server = 不是模型伺服器
report-live-no-port = 看不到該處理程序監聽任何 TCP 連接埠
report-live-no-answer = 連接埠 { $ports } 上沒有 { $kind } API 回應
report-explain-not-measured = 沒有資料來源回報此處理程序的顯示記憶體
report-explain-deferred = 此處理程序本身不占顯示記憶體：它所屬工作負載的 { $holders } 持有模型，估算合計 { $total }（見「工作負載的處理程序」）

## kill: why the GPU memory a process holds is not known
report-kill-reason-not-reported = 沒有回報它的顯示記憶體
report-kill-reason-wsl = WSL2 不提供每個處理程序的顯示記憶體
report-kill-reason-no-gpu = 沒有任何資料來源發現 GPU
report-kill-reason-no-gpu-why = 沒有任何資料來源發現 GPU（{ $why }）
report-kill-source-failed = { $name }：{ $detail }

## A workload member's role: its leading words (what follows, TP1/2 or DP0, as written)
report-role-node-helper = 引擎（node 輔助處理程序）
report-role-engine-core = 引擎核心
report-role-engine = 引擎
report-role-worker = 工作處理程序
report-role-scheduler = 排程處理程序
report-role-detokenizer = 反分詞處理程序
report-role-runner = 執行器
report-role-rpc-device = RPC 裝置
report-role-child = 子處理程序
report-explain-member = { $role }：{ $how }

## verify: each source's verdict in words (the record keeps the English)
report-verify-ok = 正常
report-verify-off-by = 在「{ $step }」一步偏差 { $by }
report-verify-source-per-process = { $name }（按處理程序）
report-verify-source-device-used = { $name }（裝置已用）
report-verify-source-unattributed = 未歸屬
report-verify-source-unattributed-of = 未歸屬 { $name }
report-verify-off-at = 在「{ $step }」一步有偏差
report-verify-off-why = { $off }（{ $why }）
report-verify-cannot-see = 看不到（{ $why }）
report-verify-step-idle = 閒置
report-verify-step-context = 建立上下文
report-verify-step-allocated = 配置後
report-verify-step-freed = 釋放後
report-verify-step-exited = 結束後
report-verify-step-allocate = 配置
report-verify-step-free = 釋放
report-verify-step-exit = 結束
report-verify-never-listed = 它從未列出子處理程序
report-verify-why-lag = 它慢了一輪：每一步顯示的是上一步應有的數值
report-verify-why-twice = 約為配置量的兩倍：這部分顯示記憶體被重複計算
report-verify-why-no-show = 配置完全沒有反映出來
report-verify-why-still-listed = 處理程序結束後仍被列出
report-verify-used-unknown = 裝置的已用顯示記憶體未知
report-verify-unattributed-unknown = 裝置已用量未知，或各處理程序之和超過了它
report-verify-why-unaccounted = 按處理程序統計的數字沒有如實反映子處理程序的顯示記憶體
report-verify-no-rss = 工作負載沒有回報常駐記憶體：只在 Linux 上讀取
report-verify-cpu-device = 看不到：CPU 裝置（{ $driver }）沒有顯示記憶體
report-verify-no-device = 沒有資料來源回報裝置 { $uuid }
report-verify-smi-not-run = 未執行（只有 CUDA 路徑會詢問 nvidia-smi 作為旁證）
report-verify-not-installed = 未安裝（{ $tool } 不在 PATH 上）

## selftest: the saved probe result
report-probe-missing = { $path } 處沒有 probe 結果（執行 `gpuledger probe --save` 測量本機的上下文與鎖定分頁記憶體開銷）
report-probe-present = { $at } 的 probe 結果（{ $age }前），裝置 { $device }，位於 { $path }
report-probe-unreadable = probe 結果無法讀取：{ $error }
report-probe-no-dir = 沒有 probe 結果：沒有資料目錄（請設定 XDG_DATA_HOME 或 HOME）
report-age-days = { $n } 天
report-age-hours = { $n } 小時
report-age-minutes = { $n } 分鐘
report-age-seconds = { $n } 秒

## history: a recording that is not there
report-history-no-recording = 沒有這個錄製（用 `gpuledger record` 開始錄製）

## estimate --fit-advice: what a change does
report-fit-other-device = 改用 { $device }
report-fit-first-experts-on-host = 把前面幾層的專家放在主機上
report-fit-most-that-fits = 能放下的最大值

## snapshot --group-by: the group of processes without such an owner, and other fixed labels
report-groups-outside-pod = 不在 Kubernetes Pod 中
report-groups-outside-container = 不在容器中
report-groups-outside-job = 不在 Slurm 作業中
report-groups-outside-user = 使用者未知
report-groups-outside-unit = 不在 systemd 單元中
report-groups-outside-owner = 所屬未知（cgroup 無法讀取，或是根 cgroup）
report-groups-namespace-unknown = 命名空間未知（kubelet 無法給出 Pod 的名稱；見附註）
report-pod-names-unavailable = Pod 名稱與命名空間來自 kubelet，而這裡沒有詢問它；Pod UID 來自 cgroup 路徑
report-kubelet-no-log-link = 沒有容器記錄連結指向它的容器 ID
report-kubelet-logs-unreadable = 容器記錄連結無法讀取（{ $error }）
report-kubelet-uid-only = 只有 Pod UID：{ $logs }；{ $error }
report-kubelet-uid-only-shared = 只有 Pod UID：{ $logs }，而且它使用的 GPU 沒有恰好分配給 kubelet 列出的某一個 Pod（共享的 GPU，或沒有透過裝置外掛程式分配）
report-groups-user = 使用者 { $name }
report-groups-namespace = 命名空間 { $name }

## Windows (WDDM) and WSL (/dev/dxg): what the counters could not say
report-wddm-paired-alone = WDDM 介面卡 { $adapter } 沒有來自 D3DKMT 的 PCI 位址；以排除法與唯一的 NVML 裝置配對
report-wddm-dedicated-usage = 每處理程序的顯示記憶體來自 Dedicated/Shared Usage：{ $why }
report-wddm-luid-not-in-dxgi = 介面卡 LUID { $luid } 出現在 GPU 計數器中，卻不在 DXGI 的介面卡清單裡；顯示時沒有名稱和總量
report-wddm-basic-render = 已略去 Microsoft Basic Render Driver（軟體介面卡）上的 { $count } 筆處理程序記錄：那是 CPU 在系統記憶體中算繪
report-wddm-instances-skipped = { $path }：略過了 { $count } 個執行個體名稱，例如 { $example }
report-wddm-no-dxgi = 無法取得 DXGI 介面卡清單（{ $error }）：介面卡依 LUID 顯示，沒有名稱和總量
report-wddm-over-attributed = { $device }：各處理程序的 WDDM 數值加起來比介面卡實際使用的多 { $over }：共用表面會計入每個對映它的處理程序（{ $who }承載桌面的表面）；長條依總和縮放，標籤保留每個處理程序自己的數值
report-wddm-carriers-usual = 通常是 dwm.exe 和 csrss.exe
report-wddm-carriers-here = 這裡是 { $list }
report-dxg-buffers-skipped = /dev/dxg：略過了 { $count } 個統計緩衝區，例如 { $example }
report-dxg-no-process-stats = WSL 中無法取得每處理程序的 GPU 統計：{ $why }
report-dxg-paired-alone = /dev/dxg 介面卡以排除法與唯一的 NVML 裝置配對（WSL 不提供 PCI 位址）

## macOS (IOKit): what the registry could not say
report-iokit-no-statistics = IOAccelerator { $class } 沒有 PerformanceStatistics；已略去
report-iokit-clients-left-out = 已略去 { $count } 個沒有可讀 IOUserClientCreator 的 GPU 使用者用戶端
report-iokit-alloc-as-used = { $class }：沒有 "In use system memory"；已用 = "Alloc system memory"

## verify: what became of each workload path
report-verify-path-cannot-start = { $api } 工作負載無法啟動：{ $why }
report-verify-path-ran-first = 已執行（--path auto：第一個能啟動的）
report-verify-path-ran-cuda-first = 已執行（--path auto：先嘗試 CUDA）
report-verify-path-ran-asked = 已執行（由 --path 指定）
report-verify-path-not-tried = 未嘗試：已執行 { $ran } 路徑（--path { $other } 會執行這一個）
report-verify-path-not-asked = 未要求（--path { $ran }）

## The values people type (durations, sizes, times): what was wrong and what is accepted
report-parse-not-a-duration = { $value } 不是時間長度（可寫 500ms、2s、1.5s、5m、1h、7d 或秒數）
report-parse-below-minimum = { $value } 低於下限 { $bound }
report-parse-above-maximum = { $value } 超過上限 { $bound }
report-parse-not-a-size = { $value } 不是大小（可寫 512MiB、8GiB、4096 等）
report-parse-unknown-unit = { $value }：未知單位 { $unit }（可用 B、KiB、MiB、GiB、TiB、KB、MB、GB、TB）
report-parse-too-large = { $value } 太大
report-parse-not-rfc3339 = { $value } 不是 RFC 3339 時間（如 2026-11-29T08:00:00Z）
report-parse-before-1970 = { $value } 早於 1970 年
report-parse-not-a-time = { $value } 既不是 RFC 3339 時間（2026-11-29T08:00:00Z），也不是「多久以前」的時間長度（1h、30m、7d）

## watch --alert: what is wrong in an alert expression (the expression and a caret follow)
report-alert-at-column = { $message }（第 { $column } 欄）
report-alert-not-a-number = { $value } 不是數字
report-alert-unexpected-character = 非預期的字元 { $char }
report-alert-unexpected-comparison = 非預期的字元 { $char }（比較符為 >、>=、<、<=）
report-alert-unknown-field = 未知欄位 { $name }（可用欄位：{ $fields }）
report-alert-field-after = 此處之後應有一個欄位
report-alert-expected-field = 此處應為欄位（{ $fields } 之一）
report-alert-expected-comparison = { $field } 之後應為 >、>=、< 或 <=
report-alert-expected-value = { $field } 缺少取值
report-alert-no-or = 不支援 "or"：每個備選條件請各用一個 --alert
report-alert-expected-and = 此處應為 "and" 或運算式結束
report-alert-bare-number = { $field }：不帶單位的數字會被當作位元組；請寫裝置總量的百分比（如 { $n }%）或大小（如 { $n }GiB）
report-alert-expected-size = { $field }：應為大小（如 8GiB）或裝置總量的百分比（如 90%），而不是 { $value }
report-alert-expected-celsius = { $field }：應為攝氏度（如 85），而不是 { $value }
report-alert-expected-watts = { $field }：應為瓦數（如 300），而不是 { $value }
report-alert-expected-percentage = { $field }：應為百分比（如 90），而不是 { $value }

## GGUF headers: what is wrong with a model file (the file's name comes first)
report-gguf-error = { $file }：{ $message }
report-gguf-cannot-open = 無法開啟：{ $error }
report-gguf-cannot-stat = 無法讀取檔案資訊：{ $error }
report-gguf-not-gguf = 不是 GGUF 檔案（開頭不是 "GGUF"）
report-gguf-byte-swapped = 版本號 { $version } 的位元組順序像是反的：不支援大端序的 GGUF 檔案
report-gguf-version-1 = 已不再支援 GGUF 版本 1（llama.cpp 也拒絕它）
report-gguf-version = 不支援的 GGUF 版本 { $version }（已知的是 2 和 3）
report-gguf-split-pattern = split.count 為 { $count }，但檔名不符合 NAME-00001-of-{ $padded }.gguf 的格式，因此找不到其他分片
report-gguf-split-count = split.count 為 { $count }，但檔名表明共有 { $parts } 個分片
report-gguf-split-no = split.no 為 { $no }，但這是 { $count } 個分片中的第 { $part } 個
report-gguf-exabytes = 加上這個檔案，模型超過 4 EiB（2^62 位元組）：沒有磁碟能裝下這樣的大小，未讀取
report-gguf-truncated = { $field }：檔案在 { $len } 位元組處結束，還需要 { $more } 位元組（檔案被截斷？）
report-gguf-reading = 讀取 { $field } 時出錯：{ $error }
report-gguf-eof = { $field }：檔案意外結束
report-gguf-header-too-long = { $field }：檔頭已超過 { $limit }（目前已讀取），遠超任何真實模型的檔頭
report-gguf-skip-too-large = 要跳過的長度太大
report-gguf-seeking = 定位時出錯：{ $error }
report-gguf-too-big = { $what } 超出了一個 { $size } 檔案能容納的大小
report-gguf-too-big-rest = { $what } 超出了 { $size } 檔案剩餘 { $left } 能容納的大小
report-gguf-what-length = { $field } 的長度 { $n }
report-gguf-what-array = { $field }：包含 { $len } 個 { $type } 元素的陣列
report-gguf-length-limit = { $field } 的長度 { $n } 超過上限 { $max } 位元組
report-gguf-value-type = { $field }：未知的中繼資料值型別 { $id }
report-gguf-nested = { $field }：陣列巢狀超過 { $depth } 層
report-gguf-alignment = general.alignment 必須是以 u32 儲存的非零 2 的冪，實際為 { $value }
report-gguf-dims = { $field } 有 { $n } 個維度（ggml 最多允許 { $max } 個）
report-gguf-negative = { $field } ne[{ $d }] 為負數（{ $ne }）
report-gguf-type-id = { $field } 的 ggml 型別 ID { $id } 未知
report-gguf-type-dropped = { $field } 使用 ggml 型別 { $type }（ID { $id }），ggml 已不再支援該型別
report-gguf-dims-overflow = { $field } 的維度 { $dims } 溢位
report-gguf-row-length = { $field } 的列長度 { $ne0 } 不是 { $type } 區塊大小 { $block } 的整數倍
report-gguf-size-overflow = { $field } 的大小溢位
report-gguf-offset-alignment = 張量 '{ $name }' 的偏移 { $offset } 不是對齊值 { $alignment } 的整數倍
report-gguf-beyond-end = 張量 '{ $name }'（資料偏移 { $offset } 處的 { $bytes } 位元組）超出了 { $size } 檔案的末尾（下載不完整？）
report-gguf-count-negative = { $field } 為負數（{ $n }）
report-gguf-count-too-big = { $field } { $n } 超出了一個 { $size } 檔案能容納的數量
report-gguf-count-limit = { $field } { $n } 超過上限 { $max }

## verify: why the workload stopped, the guard rails' question and refusals, the record's notes
report-verify-workload-gone = 工作負載處理程序已不存在
report-verify-workload-unreadable = 工作負載的輸出無法讀取：{ $error }
report-verify-workload-ended = 工作負載處理程序在「{ $step }」步驟之前就結束了
report-verify-not-written = 驅動程式沒有 cuMemsetD8：配置的記憶體只被保留，沒有被寫入
report-verify-cleanup-failed = 結束時的清理失敗：{ $error }
report-verify-ambiguous-device = 在 --path auto 下，--device { $n } 是 CUDA 序號，但 CUDA 無法啟動，而 Vulkan 載入器按自己的方式給它的 { $count } 個裝置編號（{ $n }：{ $name }（{ $type }）；另有 { $others }）；請用 --path vulkan --device M 重新執行，從中選擇一個
report-verify-the-device = 該裝置
report-verify-device-label = { $api } 裝置 { $ordinal }（{ $name }）
report-verify-cpu-device-unverifiable = { $device } 是 CPU 裝置（{ $driver }）：它的記憶體就是主機記憶體，任何 GPU 資料來源都看不到；沒有配置任何記憶體（--size 不超過其堆積的 10 %，或加 --yes，仍會執行整個流程，以便在工作負載自己的記憶體中顯示這次配置）
report-verify-no-answer = 沒有得到回答：{ $error }
report-verify-release-late = { $step }：又過了 { $rounds } 輪（每輪間隔 { $ms } 毫秒）才顯示出釋放
report-verify-release-missing = { $step }：又過了 { $rounds } 輪仍未顯示出釋放
report-verify-room-heap = 它的堆積
report-verify-room-heap-amount = { $bytes }，驅動程式沒有回報記憶體預算
report-verify-room-free = 可用顯示記憶體
report-verify-room-free-amount = 可用 { $bytes }
report-verify-room-unknown = { $device } 的可用顯示記憶體未知，因此沒有 --yes 時 verify 不會在那裡配置 { $size }
report-verify-does-not-fit = { $size } 放不下：{ $device } 有 { $amount }，verify 最多使用其中的 90 %；請選擇更小的 --size
report-verify-needs-yes = 在 { $device } 上配置 { $size } 超過了{ $what }（{ $amount }）的 10 %；請加 --yes 允許（沒有可以提問的終端機）
report-verify-ask = 在 { $device } 上配置 { $size }？這超過了{ $what }（{ $amount }）的 10 %。[y/N]{ " " }
report-verify-not-confirmed = 未確認；沒有配置任何記憶體
report-verify-rederived-differ = 重新推導的判定與儲存的判定不同：{ $sources }
report-verify-stopped-early = 提前停止：{ $why }
report-verify-failed = 失敗：{ $why }
report-verify-no-device-reported = 工作負載沒有回報裝置
report-verify-no-cuda-uuid = CUDA 驅動程式沒有給出裝置 UUID，因此無法把它的裝置與各資料來源回報的裝置對應起來
report-verify-vulkan-unmatched = 沒有資料來源回報 Vulkan 裝置 { $ordinal }（{ $name }；PCI { $pci }，UUID { $uuid }）
report-verify-gtt-no-vram = 該裝置沒有回報顯示記憶體，因此它的裝置本機堆積是系統記憶體（GTT）
report-verify-gtt-heap = 裝置本機堆積（{ $heap }）大於裝置的顯示記憶體（{ $vram }），因此它是系統記憶體（GTT）
report-verify-no-reason = 沒有給出原因
report-verify-no-gtt = 資料來源沒有回報這個處理程序的系統記憶體（GTT）
report-verify-pid-unknown = 工作負載的 PID 未知
report-verify-tool-not-run = 未執行
report-verify-pci-unknown-not-asked = 裝置的 PCI 位址未知，因此無法向該工具查詢它
report-verify-pci-address-unknown = 裝置的 PCI 位址未知
report-verify-tool-exited = { $tool } 結束，狀態 { $code }：{ $line }
report-verify-not-json = { $query }：不是其文件所示的 JSON（{ $error }）；其輸出原樣保存在記錄中
report-verify-not-json-cut = { $query }：不是其文件所示的 JSON（{ $error }，且輸出在 { $size } 處被截斷）；其輸出原樣保存在記錄中
report-verify-shape = { $query }：{ $what }；其輸出原樣保存在記錄中
report-verify-shape-not-gpus = 不是 GPU 清單
report-verify-shape-no-process-list = 有 GPU 沒有 process_list
report-verify-shape-not-object = 不是物件
report-verify-shape-system = "system" 不是物件
report-verify-shape-no-proc-list = 沒有 device_util_by_proc_list
report-verify-shape-gpus = 為 --gpu { $bdf } 列出了 { $count } 張 GPU
report-verify-not-process-query = 不是處理程序查詢
report-verify-not-device-query = 不是裝置查詢
report-verify-tool-prints = { $tool } 輸出的是 { $value }
report-verify-tool-prints-no = { $tool } 沒有輸出 { $field }
report-verify-no-card = rocm-smi 沒有列出 PCI { $bdf } 上的卡
report-verify-no-xpum = xpu-smi 沒有回報 XPUM_STATS_MEMORY_USED
report-verify-tool-missing = { $tool } 未安裝（不在 PATH 中）
report-verify-tool-cannot-run = 無法執行 { $program }：{ $error }
report-verify-tool-timed-out = { $tool } 在 { $seconds } 秒內沒有回應（已停止；已保存它的輸出）
report-verify-not-asked-again = 不再詢問：{ $why }

## probe (and verify's CUDA path): why the driver could not be used or the probe stopped
report-probe-err-load-open = 無法載入 CUDA 驅動程式庫 { $path }：{ $cause }（是否安裝了 NVIDIA 驅動程式？--cuda-lib PATH 可從其他位置載入）
report-probe-err-load-symbol = CUDA 驅動程式庫 { $path } 中沒有符號 { $symbol }：{ $cause }
report-probe-err-no-sizes = 沒有要測量的大小
report-probe-err-zero-size = 無法測量 0 位元組的大小
report-probe-err-host-unknown = 無法得知主機可用記憶體有多少（{ $why }），因此 probe 不會鎖定任何記憶體
report-probe-err-host-too-small = 拒絕鎖定 { $size }：主機只有 { $available } 可用記憶體（{ $source }），probe 最多鎖定其中一半；請選擇更小的 --sizes
report-probe-err-vram-too-small = 拒絕配置 { $size }：裝置 { $device } 只有 { $free } 可用顯示記憶體，probe 最多使用其中的 90%；請選擇更小的 --sizes
report-probe-err-no-devices = CUDA 驅動程式沒有回報任何裝置
report-probe-err-bad-device = 沒有 CUDA 裝置 { $ordinal }：驅動程式回報了 { $count } 個（序號 0 到 { $last }）
report-probe-err-context = 無法在裝置 { $device }（{ $name }）上建立 CUDA 上下文：{ $cause }。可能有其他處理程序以獨佔模式佔用該裝置，或者驅動程式處於異常狀態
report-probe-err-out-of-memory = 記憶體不足：{ $size } 的 { $step } 失敗：{ $cause }。probe 配置的一切都已釋放；請選擇更小的 --sizes
report-probe-err-host-alloc = 無法配置 { $size } 的一般主機記憶體用於註冊
report-probe-err-interrupted = 已中斷；probe 配置的一切都已釋放
report-selftest-version = 版本 { $version }

# gpuledger plot: the chart's words (data-* attributes stay English).
report-plot-no-samples = 所選時間範圍內沒有樣本
report-plot-used = 已用
report-plot-gpu-right-axis = GPU %（右軸）
report-plot-total-dashed = 顯示卡總量 { $total }（虛線）
report-plot-total-above = 顯示卡總量 { $total }（超出刻度）
report-plot-total-na = 顯示卡總量 n/a
report-plot-other-processes = 其他處理程序
report-plot-unattributed = 未歸屬（驅動程式/系統/其他使用者）
report-plot-time-range = { $from } → { $to }（UTC）

# watch's event lines and the live view's active alerts (the expression and field names stay as written).
report-alert-firing = 觸發
report-alert-resolved = 解除
report-alert-subject-process = { $device } 上的 { $name }（PID { $pid }）
report-alert-of-total = { $value }（佔總量 { $percent }%）
report-alert-gone = 已不存在

## Where a runtime's flags were read; owners not taken at their word; --group-by's errors; several GPUs
report-owner-shape-pod = Kubernetes Pod 的路徑（kubepods…）
report-owner-shape-job = Slurm 作業的路徑（job_<id>）
report-owner-doubt-delegated = cgroup 路徑形似 { $what }，卻位於委派給使用者的 systemd 子樹（{ $manager }）中，該使用者可在其中建立任意 cgroup：依該使用者顯示
report-owner-doubt-not-kubelet = cgroup 路徑形似 { $what }，卻不在 kubelet 的 cgroup 根目錄（/kubepods、/kubepods.slice、kind 節點的 /kubelet）下：不算作 Pod
report-owner-doubt-not-slurmd = cgroup 路徑形似 { $what }，卻不在 slurmd 的 cgroup 根目錄（/slurm、/slurm_<node>、/system.slice/slurmstepd.scope）下：不算作 Slurm 作業
report-err-not-grouping = { $given } 不是分組方式：請使用 { $choices } 其中之一

## The kubelet source's status (sources/owner/kubelet)
report-kubelet-api-error = kubelet pod-resources API（{ $path }）：{ $error }
report-kubelet-no-socket = kubelet pod-resources API：在 { $path } 找不到通訊端（不是 Kubernetes 節點，或 kubelet 的 pod-resources 目錄沒有掛載到這裡）
report-kubelet-refused = kubelet pod-resources API：{ $path }：連線遭拒（沒有程式在監聽：kubelet 未執行，或通訊端是殘留的舊檔案）
report-kubelet-denied = kubelet pod-resources API：{ $path }：權限不足（通訊端屬於 root；請以 root 執行，或授予此使用者存取權限）
report-kubelet-mig-unmatched = { $n } 個 MIG 裝置 ID 無法對應到 GPU（NVML 沒有列出這些 MIG 裝置：MIG 未啟用，或驅動程式不支援 MIG 相關呼叫）
report-kubelet-driver-unreadable = 無法讀取驅動程式的 GPU 清單：{ $error }
report-kubelet-no-gpu-node = 沒有 GPU 對應該裝置節點
report-kubelet-node-unmatched = { $n } 個裝置節點 ID（GKE）無法對應（{ $why }）
report-kubelet-allocatable-failed = GetAllocatableResources 失敗：{ $error }
report-kubelet-allocatable = { $n } 個可分配的 GPU 裝置 ID
report-kubelet-ok = 列出 { $pods } 個 Pod，{ $gpus }；{ $named } 個 GPU 處理程序查到 Pod 名稱，{ $unnamed } 個只有 Pod UID
report-kubelet-unavailable = { $error }；{ $named } 個 GPU 處理程序透過容器記錄連結查到 Pod 名稱，{ $unnamed } 個只有 Pod UID
report-kubelet-connect-failed = kubelet pod-resources API：{ $error }
