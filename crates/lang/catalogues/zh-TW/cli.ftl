# 命令列：--help 摘要、標題與常見錯誤，繁體中文。各選項的詳細說明尚未翻譯。

cli-about = 誰在用我的顯示記憶體，又是為什麼。
cli-long-about =
    誰在用我的顯示記憶體，又是為什麼。

    gpuledger 依據驅動程式本身的計數器，按裝置與按處理程序列出顯示記憶體用量（實測帳目）；沒有任何處理程序認領的顯示記憶體另列為「未歸屬」；每個未知的值都顯示為 n/a 並附上原因。
cli-about-snapshot = 擷取一輪資料，以表格或 JSON 輸出（穩定的 gpuledger.snapshot/1 格式）
cli-about-explain = 關於一個處理程序的所有資訊：實測顯示記憶體、它是什麼及判斷依據、伺服器的即時狀態，以及（llama.cpp）與實測並列的估算帳目
cli-about-probe = 在本機實測 CUDA 驅動程式為一個上下文與鎖定分頁的主機記憶體（cuMemHostAlloc、cuMemHostRegister）占用多少顯示記憶體，並以裝置記憶體作為對照
cli-about-estimate = 依 llama-server 的參數估算它為某個 GGUF 模型會配置多少顯示記憶體（權重、KV 快取、輸出、計算緩衝區、額外開銷；每項輸入都註明來源），以及能否放入某張 GPU 目前可用的顯示記憶體
cli-about-selftest = 檢查本機的每個資料來源：看得到什麼、看不到什麼，以及原因
cli-about-diff = 兩個快照之間的變化，按裝置與按處理程序列出，並註明配對規則
cli-about-record = 將取樣記錄到 SQLite 資料庫，直到 Ctrl-C / SIGTERM
cli-about-history = 查詢一份記錄：以表格、CSV 或 JSON 輸出處理程序或裝置的列
cli-about-watch = 閾值警示：當運算式成立時輸出訊息（並可選擇執行一個指令）
cli-about-plot = 將一份記錄繪成圖表（裝置記憶體、GPU %、用量最大的處理程序堆疊），輸出 SVG 或 PNG
cli-about-serve = 唯讀 HTTP：Prometheus 指標、JSON 快照與瀏覽器檢視，在背景擷取
cli-about-ui = 瀏覽器檢視：在可用的本機迴路連接埠上提供本機資料，並以預設瀏覽器開啟
cli-about-kill = 安全地結束處理程序：先正常終止，寬限期後強制結束，並確認已經結束
cli-about-verify = 驗證這些數字：執行一個已知的負載（建立上下文、配置 N 位元組、釋放、結束），檢查每個資料來源在每一步看到了什麼
cli-about-completions = 輸出 shell 自動完成指令碼（bash、zsh、fish、powershell、elvish）
cli-about-man = 輸出 man 說明頁（roff），或以 --dir 為每個指令各寫一頁到某個資料夾
cli-heading-commands = 指令
cli-heading-sources = 資料讀取位置
cli-exit-codes =
    結束狀態：
      0  成功（找不到 GPU 也屬正常結果，並非錯誤）
      1  發生錯誤：輸入檔案無法讀取或無效，輸出失敗
      2  命令列用法錯誤
cli-unknown-lang = 未知的語言「{ $lang }」：可選 { $known }（`gpuledger --lang list`）

## common errors (reading a --replay file)
cli-err-cannot-read = { $path }：無法讀取：{ $error }
cli-err-too-large = { $path }：作為快照檔案太大（{ $error }）
cli-err-not-utf8 = { $path }：不是快照：不是 UTF-8 文字（{ $error }）
cli-err-not-snapshot = { $path }：不是有效的快照
cli-err-at-needs-replay = --at 必須搭配 --replay RECORDING.db（`gpuledger record` 錄製的資料庫）使用
cli-err-at-snapshot-file = --at 用於選擇錄製中的某個時刻，但 { $path } 是快照檔案
