# The live view (crates/tui), zh-TW: keys start with tui-, the same keys and values as en/tui.ftl.
# Taiwan usage from GLOSSARY.md (顯示記憶體 / 記憶體, 處理程序, 使用者, 指令, 重播, 檔案).

## Title line and the notes under it
tui-title-replay = 重播 {$src}
tui-title-remote = 遠端 {$url}（唯讀）
tui-title-stale = 資料過時 {$secs} 秒
tui-title-collecting = 正在收集第一輪資料…
tui-title-every = 每 {$interval} 更新
tui-title-sort = 排序 {$column} {$arrow}
tui-title-per-gpu = 依 GPU 分組
tui-title-tree = 樹狀
tui-title-filter = 篩選：{$filter}
tui-title-machine = CPU {$cpu} 系統記憶體 {$ram}
tui-title-help = ? 說明
tui-note-alert = 警示 {$alert}
tui-note-stale-nothing = {$secs} 秒內沒有新一輪資料：某個資料來源沒有回應；尚未收集到任何資料
tui-note-stale-from = {$secs} 秒內沒有新一輪資料：某個資料來源沒有回應；顯示的是 {$time} 的數值
tui-note-over-attributed = GPU{$gpu}：各處理程序加總比裝置已用記憶體多 {$bytes}（共用記憶體在每個處理程序中都計入）· 長條已正規化，標籤為原始值
tui-not-live-replay = {$src} 的重播
tui-not-live-remote = {$url} 的遠端檢視

## Device cards
tui-cards-waiting = 正在等待第一輪收集…
tui-no-gpu = 找不到 GPU（原因見 `gpuledger selftest`）
tui-no-gpu-sample = 找不到 GPU（原因見 `gpuledger selftest`）；範例機器：gpuledger --replay examples/sample-snapshot.json
tui-cards-more = 還有 {$n} 個裝置：請放大終端機視窗，或執行 `gpuledger snapshot`
tui-card-mem = 記憶體
tui-temp-na = 溫度 n/a
tui-power-no-limit = {$watts} W / 功耗上限 n/a
tui-power-na = 功耗 n/a
tui-books-processes = 處理程序 {$bytes}
tui-books-unattributed = 未歸屬 {$bytes}
tui-books-unattributed-na = 未歸屬 n/a
tui-books-over = 超額歸屬（共用）
tui-compact-procs = 處理程序 {$bytes} · {$unattr}
tui-compact-unattr = 未歸屬 {$bytes}
tui-compact-unattr-na = 未歸屬 n/a
tui-compact-over = 超額歸屬

## The process table
tui-col-dev = 裝置
tui-col-pid = PID
tui-col-user = 使用者
tui-col-owner = 所屬
tui-col-name = 名稱
tui-col-workload = 工作負載
tui-col-type = 類型
tui-col-memory = 記憶體
tui-col-sm = SM%
tui-col-cpu = CPU%
tui-col-rss = RSS
tui-col-ram = RAM%
tui-col-time = 時間
tui-col-command = 指令
tui-table-hidden = 第 {$first}–{$last} 列，共 {$n} 列 · {$hidden} 列未顯示（PgUp/PgDn、g/G）
tui-table-waiting = 正在等待資料…
tui-table-none = 沒有任何資料來源列出使用 GPU 的處理程序
tui-table-no-match = 沒有處理程序符合篩選條件 {$filter}（按 Esc 清除）

## The footer: keys and prompts
tui-key-quit = 離開
tui-key-help = 說明
tui-key-filter = 篩選
tui-key-sort = 排序
tui-key-reverse = 反向
tui-key-tree = 樹狀
tui-key-details = 詳細資料
tui-key-term = 終止
tui-key-kill = 強制終止
tui-key-env = 環境
tui-key-scroll = 捲動
tui-key-export = 匯出
tui-key-copy = 複製
tui-key-interval = 間隔
tui-prompt-export = 匯出 CSV 至：
tui-prompt-export-hint = Enter 寫入（絕不覆寫）· Esc 取消
tui-prompt-filter = 篩選：
tui-prompt-filter-hint = Enter 保留 · Esc 清除

## The help screen
tui-help-title = 說明 — 按 ? F1 或 Esc 關閉
tui-help-quit = 離開（Esc 會先清除篩選條件或訊息）
tui-help-help = 本說明
tui-help-move = 移動；選取項目跟著它的處理程序
tui-help-sort = 依下一欄 / 上一欄排序；r 反轉順序
tui-help-filter = 篩選：PID、使用者、名稱、指令、裝置
tui-help-tree = 樹狀檢視：子處理程序列在父處理程序下；f 摺疊一組
tui-help-per-gpu = 依 GPU 分組顯示各列（排序在組內進行）
tui-help-details = 詳細資料，以及每個 n/a 為何未知（↑↓ PgUp/PgDn 捲動）
tui-help-kill = 終止 / 強制終止選取的處理程序（會先確認）
tui-help-tag = 標記 / 取消標記並下移；有標記時 T/K 只作用於已標記者
tui-help-env = 處理程序的環境變數（只顯示安全變數的值），即 nvitop 的 e
tui-help-scroll = 左右捲動各列；說明是 ? 或 F1，不是 nvitop 的 h
tui-help-copy = 複製 PID（OSC 52）
tui-help-open = 在檔案總管中開啟執行檔所在的資料夾
tui-help-export = 將目前顯示的各列匯出為 CSV（存於資料目錄）
tui-help-interval = 延長 / 縮短更新間隔（最短 100 ms）
tui-help-window = 歷史視窗 1/5/10 分鐘  /  佈景主題  /  單色
tui-help-not-live = {$why}：T K Space e o{$keys} 作用於即時執行的機器，此處無法使用
tui-help-note-type = 類型：C 運算，G 圖形，C+G 兩者皆有 · SM%：處理程序佔用 GPU 的比例
tui-help-note-mem = MEM%：記憶體控制器忙碌程度 · 長條：佔裝置的比例 · n/a = 未知，絕不是 0

## Details, kill confirmation, environment
tui-details-title = 詳細資料 — 按 Esc 關閉
tui-details-lines = 第 {$from}–{$to} 行，共 {$total} 行 · ↑↓ PgUp/PgDn Home/End
tui-details-estimate = 估算（計算所得，不是實測）
tui-details-evidence = 工作負載 · 證據
tui-kill-term = 終止
tui-kill-force = 強制終止
tui-confirm-term = 終止 PID {$pid}（{$name}）？
tui-confirm-force = 強制終止 PID {$pid}（{$name}）？
tui-confirm-holds = 它佔用 {$memory}。
tui-confirm-second = 再次確認：{$name} {$warning}。
tui-confirm-really-term = 確定要終止它嗎？y = 是，其他任意鍵 = 否
tui-confirm-really-force = 確定要強制終止它嗎？y = 是，其他任意鍵 = 否
tui-confirm-yes-no = y = 是，其他任意鍵 = 否
tui-confirm-tagged-term = 終止已標記的 {$n} 個處理程序？
tui-confirm-tagged-force = 強制終止已標記的 {$n} 個處理程序？
tui-confirm-and-pids = 以及 PID {$pids}（另外 {$more} 個）
tui-confirm-only-these = 只會對這些處理程序送出訊號（游標所在列只在已標記時才包含在內）。
tui-env-title = PID {$pid}（{$name}）的環境變數 · 只顯示安全變數的值
tui-env-empty = （環境變數為空）
tui-env-scroll = 第 {$from}–{$to} 個，共 {$total} 個 · ↑↓ PgUp/PgDn 捲動 · 按其他任意鍵關閉
tui-env-closes = 按任意鍵關閉

## The details pane: measured ledger, estimated ledger, evidence
tui-det-measured-title = 實測（計數器回報的數值）
tui-det-none-selected = 未選取處理程序
tui-det-group = 工作負載群組 {$label}
tui-det-group-root = 根處理程序 PID {$root} · {$n} 個處理程序
tui-det-group-figures = 實測 {$measured}（驅動程式）· 估算 {$estimated}（計算所得）
tui-det-group-no-estimate = n/a（沒有成員帶有估算）
tui-det-member = 成員
tui-det-group-note = T / K 對根處理程序送出訊號；下方是第一個成員本身的詳細資料
tui-det-who = {$name}  使用者 {$user}  父處理程序 {$ppid}
tui-det-started = 啟動於 {$time}
tui-det-host = 主機 CPU {$cpu}  RSS {$rss} [procfs]
tui-det-host-ram = 主機 CPU {$cpu}  RSS {$rss}（佔記憶體 {$ram}%）[procfs]
tui-det-na = n/a {$what}：{$why}
tui-det-exe = 執行檔 {$exe}
tui-det-cmd = 命令列 {$cmd}
tui-det-no-estimate-unread = 無估算：無法讀取模型或設定（`gpuledger explain PID` 會說明是哪一項）
tui-det-no-estimate-unseen = 無估算：不知道這個處理程序在執行什麼（{$why}）
tui-det-no-estimate-not-ai = 無估算：不是 gpuledger 有估算方法的 AI 執行環境
tui-det-no-estimate = 無估算：{$why}
tui-det-runtime-reports = 執行環境回報 {$what} {$value}
tui-det-recipe-context = {$recipe} · 上下文 {$n}
# The ledger's labels are padded to ten columns by the code.
tui-det-total = GPU 合計
tui-det-estimated-note = （估算）
tui-det-weights = 權重
tui-det-kv = KV 快取
tui-det-compute = 計算緩衝區
tui-det-overhead = 額外開銷
tui-det-overhead-note = （來源見 `explain`）
tui-det-measured = 實測
tui-det-driver = （驅動程式）
tui-det-driver-more = （驅動程式；比估算多 {$difference}）
tui-det-driver-less = （驅動程式；比估算少 {$difference}）
tui-det-driver-more-cause = （驅動程式；比估算多 {$difference}；{$cause}）
tui-det-driver-less-cause = （驅動程式；比估算少 {$difference}；{$cause}）
tui-det-compute-word = （{$word}）
tui-det-compute-labelled = （{$label}，{$word}）
tui-det-evidence-kind = {$kind}：
tui-det-why = 原因：{$why}
tui-det-not-modelled = 未建模：{$part}
tui-det-runtime-says = 執行環境回報 {$what}：{$value}
tui-det-confidence = 可信度 {$word}
tui-det-no-evidence = 沒有證據項目
tui-det-missing = 缺少：{$what}
tui-det-not-identified-saved = 在這份儲存的快照中未辨識
tui-det-not-identified = 未辨識：沒有證據指向已知的執行環境
tui-det-live-state = 伺服器即時狀態：此處尚未顯示（見 gpuledger explain PID）

## The history chart
tui-chart-history = 歷史
tui-chart-one-snapshot = GPU{$gpu} 歷史：只有一份快照，沒有歷史
tui-chart-recorded = GPU{$gpu} 歷史（錄製資料），最近 {$minutes} 分鐘（w：時間視窗）
tui-chart-building = GPU{$gpu} 歷史：隨著每輪資料到來逐漸累積
tui-chart-last = GPU{$gpu} 歷史，最近 {$minutes} 分鐘（w：時間視窗）
tui-chart-short-none = GPU{$gpu}：沒有歷史
tui-chart-short-building = GPU{$gpu}：歷史累積中
tui-chart-short-last = GPU{$gpu}，最近 {$minutes} 分鐘
tui-chart-now = 現在
tui-chart-gpu-memory = GPU{$gpu} 記憶體
tui-chart-gpu-percent = GPU{$gpu} %（右軸）
tui-chart-process-memory = {$who} 記憶體
tui-chart-total-off-scale = 顯示卡總量 {$bytes}（超出刻度）
tui-chart-top-is-total = 頂端 = 顯示卡總量 {$bytes}
tui-chart-total-na = 顯示卡總量 n/a

## Why a value is n/a (the details pane; the sources' own reasons stay as they came)
tui-na-what-metadata = 名稱、使用者、指令
tui-na-what-memory = 顯示記憶體
tui-na-what-workload = 工作負載
tui-na-what-host = CPU %、RSS
tui-na-no-value = {$source} 既沒有提供數值，也沒有提供原因
tui-na-no-samples = 沒有各處理程序的使用率取樣
tui-na-not-identified = 未辨識：沒有證據指向已知的執行環境（見證據窗格）
tui-na-not-read = 未讀取
tui-na-host-replay = 儲存的快照中沒有主機 CPU/RSS 數據
tui-na-host-remote = 遠端伺服器不傳送主機 CPU/RSS 數據
tui-na-host-not-sampled = 尚未取樣
tui-na-host-off-screen = 未讀取：只讀取畫面上各列的主機 CPU/RSS（依 CPU %、RSS 或 %MEM 排序可讀取所有列）

## Messages on the footer line
tui-list-separator = {"，"}
tui-msg-replay-no-interval = {$src} 的重播：不會更新，所以沒有可調整的間隔
tui-msg-refresh-every = 每 {$interval} 更新一次
tui-msg-longest-interval = {$interval} 已是最長間隔
tui-msg-shortest-interval = 100 ms 已是最短間隔
tui-msg-copied = PID {$pid} 已傳送到剪貼簿（OSC 52：終端機允許時才有效）
tui-msg-folder-elsewhere = 執行檔所在的資料夾在另一台機器上
tui-msg-opening-folder = 正在檔案總管中開啟 {$dir}（{$name}，PID {$pid} 所在的資料夾）
tui-msg-exe-not-readable = 無法讀取：可能是其他使用者的處理程序？
tui-msg-exe-unknown = PID {$pid}：執行檔的路徑未知（{$why}）
tui-msg-remote-no-kill = {$url} 的遠端檢視：唯讀，無法從這裡終止任何處理程序
tui-msg-replay-no-kill = {$src} 的重播：沒有可終止的處理程序（這是錄製資料）
tui-msg-will-not-end = 不會結束 PID {$pid}（{$name}）：{$why}
tui-msg-nothing-to-tag = {$why}：沒有可供 T / K 標記的處理程序
tui-msg-tagged = 已標記 {$n} 個：T / K 只對這些處理程序送出訊號（確認視窗會逐一列出）；再按 Space 取消標記
tui-msg-tagged-refused = 已標記的 PID {$pid}（{$name}）：{$why}；請先取消標記（Space），再單獨處理它
tui-msg-replay-no-env = {$src} 的重播：快照不保存環境變數
tui-msg-remote-no-env = {$url} 的遠端檢視：不提供環境變數
tui-msg-cancelled = 已取消：PID {$pid}（{$name}）繼續執行
tui-msg-cancelled-tagged = 已取消：已標記的 {$n} 個處理程序繼續執行（仍保持標記）
tui-msg-term-requested = 已要求終止 PID {$pid}（{$name}）：正在等待確認它已結束
tui-msg-kill-requested = 已要求強制終止 PID {$pid}（{$name}）：正在等待確認它已結束
tui-msg-term-refused = 終止 PID {$pid}（{$name}）遭拒：{$why}
tui-msg-kill-refused = 強制終止 PID {$pid}（{$name}）遭拒：{$why}
tui-msg-term-cannot = 無法終止 PID {$pid}：{$why}
tui-msg-kill-cannot = 無法強制終止 PID {$pid}：{$why}
tui-msg-outcome-requested = {$pid}（{$name}）已要求
tui-msg-outcome-not-signalled = {$pid}（{$name}）未送出訊號：{$why}
tui-msg-tagged-term-sent = 終止已標記的 {$n} 個處理程序：{$outcomes}；正在等待確認它們已結束
tui-msg-tagged-kill-sent = 強制終止已標記的 {$n} 個處理程序：{$outcomes}；正在等待確認它們已結束
tui-msg-term-gone = PID {$pid}（{$name}）已結束：要求終止後，{$time} 的資料中已不再列出
tui-msg-kill-gone = PID {$pid}（{$name}）已結束：要求強制終止後，{$time} 的資料中已不再列出
tui-msg-term-held = PID {$pid}（{$name}）已結束，但要求終止 {$secs} 秒後，驅動程式仍列出它佔用顯示記憶體
tui-msg-kill-held = PID {$pid}（{$name}）已結束，但要求強制終止 {$secs} 秒後，驅動程式仍列出它佔用顯示記憶體
tui-msg-term-running = 要求終止 {$secs} 秒後，PID {$pid}（{$name}）仍在執行
tui-msg-kill-running = 要求強制終止 {$secs} 秒後，PID {$pid}（{$name}）仍在執行
tui-msg-exited-waiting = PID {$pid}（{$name}）已結束（{$why}）；正在等待驅動程式釋放它的顯示記憶體
tui-msg-fold-needs-tree = f 在樹狀檢視中摺疊工作負載群組：請先按 t
tui-msg-nothing-to-unfold = 不是由多個處理程序組成的工作負載：沒有可展開的內容
tui-msg-export-cancelled = 已取消匯出
tui-msg-export-no-name = 匯出：請先輸入檔案名稱（Esc 取消）
tui-msg-exported = 已將 {$n} 列匯出到 {$path}
tui-group-root-name = {$label}（工作負載根處理程序）
tui-confirm-user = 使用者 {$user}
tui-confirm-running = 已執行 {$time}
tui-confirm-command = 指令：{$cmd}
tui-confirm-memory-on = {$dev} 上 {$bytes}
tui-confirm-memory-unknown = {$dev} 上記憶體未知
tui-confirm-no-memory = 沒有列出顯示記憶體用量
tui-confirm-tagged-detail = 使用者 {$user} · {$memory} · {$cmd}
tui-msg-export-failed = 無法匯出到 {$path}：{$error}
tui-confirm-group-memory = 其 {$n} 個處理程序實測共 {$bytes}
tui-confirm-group-unknown = 記憶體未知
tui-confirm-group-detail = 訊號送給根處理程序，由執行環境結束各成員：{$members}

## The kill key's reasons (crates/tui actions, the binary's live_view.rs): sentences as `Said`
tui-guard-init = PID 1 是 init 系統：結束它會讓整台機器停擺
tui-guard-it = 它{ $ends }
tui-kill-not-available = 此版本不支援終止處理程序
tui-check-gone = 該處理程序已不存在
tui-check-pid-reused = 這個 PID 現在指向的已不是清單中的那個處理程序（PID 被重複使用）
tui-kill-not-started = 無法啟動終止作業：{ $error }
tui-kill-pid-message = PID { $pid }：{ $message }

## Why a process's host CPU % or RSS is missing (the details pane)
tui-host-no-proc = 主機 CPU % 與 RSS 從 /proc 讀取，而此平台沒有 /proc
tui-host-two-rounds = CPU % 需要兩輪收集：此處理程序是本輪才首次出現
tui-host-cannot-read = 無法讀取 { $path }：{ $error }
