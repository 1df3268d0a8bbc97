# The browser page (crates/serve/assets), zh-TW: keys start with page-. The HTML's are filled in
# by the server, the script's come with /api/v1/words; values stay as {$name} for the page.

## header and status
page-loading = 載入中…
page-loading-snapshot = 正在載入快照…
page-language = 語言
page-noscript = 此頁面需要 JavaScript。相同的資料：
page-on-host = 主機 { $host }
page-unknown-host = 未知主機
page-host-not-collected = 主機 CPU 與記憶體：未收集
page-replay-banner = 重播 { $path }（錄製於 { $at }，並非本機的即時資料）
page-status-failed = 自 { $time } 起無法連線到 gpuledger serve：顯示最後一次快照，重試中
page-status-replay = 重播 · 快照 { $at }
page-status-live = 即時 · 每 { $seconds } 秒 · 快照 { $at }
page-status-cannot-load = 無法載入快照（{ $error }）；重試中
page-footer = 唯讀。相同的資料：

## headings
page-devices = 裝置
page-processes = 處理程序
page-measured-by-driver = 由驅動程式實測
page-filter = 篩選
page-filter-placeholder = PID、使用者、名稱、模型…
page-table-help = ↑ ↓ 移動，Enter 檢視原因，/ 篩選；點選標題排序。
page-why-heading = 為什麼用了這麼多？
page-why-select = 選擇一個處理程序，檢視它實測、回報與估算的顯示記憶體以及依據。
page-curves-heading = 記憶體與 GPU% 隨時間變化
page-notes-heading = 附註及無法看到的項目
page-sources = 資料來源
page-notes-nothing = 無：所有數值皆已讀取。

## device cards
page-card-used = 已使用
page-others = 其他（{ $count } 個處理程序）
page-others-na = 其他（{ $count } 個處理程序，其中 { $na } 個為 n/a）
page-others-title = 所有處理程序都在下方的表格中。
page-bar-no-total = 無長條圖：裝置的記憶體總量未知
page-bar-others = 其他，{ $count } 個處理程序：{ $bytes }
page-bar-unattributed = 未歸屬：{ $bytes }
page-bar-label = GPU{ $gpu } 的記憶體帳目
page-unattributed = 未歸屬（驅動程式、系統、其他使用者、未知處理程序）
page-over-attributed = 超額歸屬
page-over-attributed-note = 各處理程序合計比裝置實際使用多 { $bytes }（共用的記憶體被計入多個處理程序）；長條圖已依比例縮放，標籤為原始數值。
page-stat-mem-pct = 記憶體%
page-stat-temp = 溫度
page-stat-power = 功耗
page-stat-processes = 處理程序合計
page-ctx-driver = 驅動程式
page-ctx-link = { $now }（最高 { $max }）
page-ctx-clocks = 時脈
page-ctx-clock-values = SM { $sm } · 記憶體 { $memory }
page-ctx-power-state = 電源狀態
page-ctx-not-collected = gpuledger 尚未收集：CUDA 版本、風扇、P-state、ECC、MIG。
page-no-gpu = 找不到 GPU。`gpuledger selftest` 會說明每個資料來源找了什麼。

## process table
page-group-members = { $count } 個處理程序
page-table-no-match = 沒有處理程序符合篩選條件。
page-table-empty = 資料來源看不到任何佔用顯示記憶體的處理程序。

## why this much
page-col-measured = 實測
page-col-measured-by = 由驅動程式
page-col-reported = 回報
page-col-reported-by = 由執行環境
page-col-estimated = 估算
page-col-estimated-by = 由估算方法
page-nothing-recorded = 無紀錄
page-no-estimate = 無估算
page-no-estimate-unread = 無法讀取模型或設定（`gpuledger explain { $pid }` 會說明原因）。
page-no-recipe = 不是 gpuledger 有估算方法的 AI 執行環境。
page-total-gpu = GPU 合計
page-context = 上下文 { $n }
page-floor = 有一部分未知：合計只計入已知的部分。
page-part-weights = 權重
page-part-kv-cache = KV 快取
page-part-compute = 計算緩衝區
page-part-overhead = 額外開銷
page-parts-label = 估算的各部分
page-not-identified = 未辨識。
page-evidence = 依據
page-evidence-kind = { $kind }：
page-confidence = 可信度 { $level }
page-missing = 缺少：
page-member = 屬於一個工作負載：{ $role }（{ $evidence }）
page-member-of = 屬於一個工作負載：PID { $pid } 的 { $role }（{ $evidence }）
page-gone = PID { $pid } 已結束。
page-why-pid = PID { $pid } · { $user }
page-no-runtime-figure = 這裡沒有執行環境提供的數值（使用了 --no-probe，或沒有回應）：`gpuledger explain { $pid }` 會詢問執行中的伺服器（/props、/api/ps、/metrics）並讀取其記錄檔（--log）。
page-why-label = 原因：
page-not-modelled = 未建模：{ $what }
page-overhead-source = 額外開銷：{ $source }
page-fact-command = 指令
page-fact-owner = 所屬
page-fact-started = 啟動於
page-fact-container = 容器
page-fact-listening = 監聽連接埠

## curves
page-curve-used = GPU{ $gpu } 已使用
page-curve-card-total = 顯示卡總量
page-curve-label = GPU{ $gpu } 的記憶體與 GPU% 隨時間變化
page-curve-one-sample = 1 個樣本
page-curve-samples = { $count } 個樣本
page-curve-replay = 重播只有一個時刻：沒有曲線
page-curve-next-round = 曲線從下一輪收集開始
page-curve-point = 將指標移到曲線上即可讀取該時刻的數值。
page-ago-min = −{ $n } 分鐘
page-ago-s = −{ $n } 秒
page-latest = 最新
page-no-samples = 尚無樣本
page-curve-total = 總量 { $bytes }

## measured vs estimated
# A workload's measured-vs-estimated gap in a member's why pane ($text: report-vs-with-cause).
page-gap-workload = 該工作負載的 { $count } 個處理程序合計：{ $text }
