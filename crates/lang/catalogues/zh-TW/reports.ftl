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
