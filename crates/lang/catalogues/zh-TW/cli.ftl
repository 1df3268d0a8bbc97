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
    .long =
        安全地結束處理程序：先正常終止，寬限期後強制結束，並確認已經結束。

        動手之前，會重新讀取每個處理程序的名稱與啟動時間，並與你確認的內容比對（PID 已被重複使用的會略過）。絕不終止 PID 1、核心執行緒、gpuledger 本身或其父處理程序、Windows 的重要處理程序；顯示伺服器與視窗合成器需要 --yes-really。未加 --yes 時會在終端機上詢問，列出每個處理程序及其實測的顯示記憶體。
cli-about-verify = 驗證這些數字：執行一個已知的負載（建立上下文、配置 N 位元組、釋放、結束），檢查每個資料來源在每一步看到了什麼
cli-about-completions = 輸出 shell 自動完成指令碼（bash、zsh、fish、powershell、elvish）
    .long =
        輸出 shell 自動完成指令碼（bash、zsh、fish、powershell、elvish）。

        bash：`gpuledger completions bash > /etc/bash_completion.d/gpuledger`；zsh：以 `_gpuledger` 為名放進 $fpath 中的某個資料夾；fish：`~/.config/fish/completions/gpuledger.fish`。
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
cli-err-not-snapshot = { $path }：不是有效的快照：{ $error }
cli-err-at-needs-replay = --at 必須搭配 --replay RECORDING.db（`gpuledger record` 錄製的資料庫）使用
cli-err-at-snapshot-file = --at 用於選擇錄製中的某個時刻，但 { $path } 是快照檔案

## commands that act on or measure the live machine
cli-err-kill-replay = kill 作用於正在執行的機器：不能與 --replay 一起使用
cli-err-kill-proc-root = kill 作用於正在執行的處理程序：不能與 --proc-root { $path } 一起使用
cli-err-probe-replay = probe 測量的是正在執行的機器，不能在重播上執行

## the commands' own exit statuses (after their --help) and the longer summaries
cli-exit-codes-kill =
    結束狀態：
      0  所有目標都已確認結束（已結束；等待父處理程序回收的殭屍處理程序也算）
      1  非預期的錯誤
      2  命令列用法錯誤
      3  SIGKILL / TerminateProcess 之後仍有目標存活（見可嘗試的補救方式）
      4  遭拒絕：觸發保護規則（PID 1、核心執行緒、gpuledger 本身或其父處理程序、重要系統處理程序），
         未加 --yes-really 的顯示伺服器或工作階段 shell，在提示時遭拒絕，
         或沒有可詢問的終端機又未加 --yes
      5  權限不足：其他使用者的（或以提高權限執行的）處理程序
      6  沒有這個處理程序，或該 PID 現在指向另一個處理程序（已略過）
      7  試執行（dry run）：未送出任何訊號
    有多個目標時，取最嚴重的狀態碼（3 > 1 > 5 > 4 > 6 > 7）。
cli-exit-codes-probe =
    結束狀態：
      0    成功
      1    發生錯誤（沒有驅動程式、沒有裝置、記憶體不足、大小放不下）；probe 配置的一切都已釋放
      2    命令列用法錯誤
      130  遭中斷（Ctrl-C）；probe 配置的一切都已釋放
cli-exit-codes-verify =
    結束狀態：
      0    gpuledger 讀取的每個資料來源都如預期看到了工作負載
      1    發生錯誤（工作負載未能執行到最後）；它配置的一切都已釋放
      2    命令列用法錯誤
      3    無法驗證：CUDA 與 Vulkan 工作負載都無法啟動（沒有驅動程式、沒有裝置：訊息會說明是哪一種），
           或唯一的裝置是 CPU 裝置（lavapipe），其記憶體任何 GPU 資料來源都看不到
      4    gpuledger 讀取的某個資料來源已關閉或看不到工作負載（判定結果會說明是哪一個）；
           廠商工具的判定會顯示，但不影響結束狀態
      130  遭中斷（Ctrl-C）；工作負載配置的一切都已釋放

## the longer texts after some commands' --help (their exit statuses at the end)
cli-after-estimate =
    llama-server 參數（名稱與預設值與 llama-server 相同），由一張依據 llama.cpp 自己的參數清單
    （b11434 版本，以及舊版本的參數）產生的表讀取，與讀取執行中的伺服器時相同：
      -c, --ctx-size N            上下文（0 = 模型訓練時的上下文；補齊到 256 的倍數）
      -np, --parallel N           槽位（預設 auto：4 個槽位共用一個統一快取）
      -kvu, --kv-unified          所有槽位共用一個快取
      -no-kvu, --no-kv-unified    每個槽位一個快取
      -ngl, --n-gpu-layers N      放到 GPU 上的層：數字、auto 或 all（預設 auto，在此等於 all）
      -b, --batch-size N          邏輯批次大小（預設 2048）
      -ub, --ubatch-size N        實體批次大小（預設 512）
      -ctk, --cache-type-k T      K 快取類型：f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1
      -ctv, --cache-type-v T      V 快取類型（量化的 V 需要 flash attention）
      -fa, --flash-attn on|off|auto
                                  （單獨的 -fa 是舊版本的開關，表示 on）
      --swa-full                  滑動視窗層使用完整大小的快取
      -nkvo, --no-kv-offload      KV 快取留在主機上
      --no-mmap, -lm none         把權重讀入主機記憶體，而不是對應檔案
                                  （-lm/--load-mode 是目前版本的寫法）
      -ot, --override-tensor PATTERN=TYPE[,...]
                                  名稱符合 PATTERN（規則運算式）的張量放在 CPU（主機）或某個裝置
                                  （CUDA0、Vulkan0）的緩衝區類型中：第一個符合的規則生效，
                                  不論 -ngl 對該張量所在的層怎麼說；可重複指定
      -cmoe, --cpu-moe            所有 MoE 專家張量放在主機上
      -ncmoe, --n-cpu-moe N       前 N 層的專家張量放在主機上
      -ncffn, --n-cpu-ffn N       前 N 層的稠密 FFN 張量放在主機上
      --rpc HOST:PORT[,...]       RPC 伺服器：每個一個裝置，在 llama.cpp 的裝置順序中排在最前
      -ts, --tensor-split N,N     每個裝置分到的層的比例（預設：依可用記憶體）
      -sm, --split-mode none|layer
                                  none：只用 --main-gpu 的裝置（row 與 tensor 未建模）
      -mg, --main-gpu N           -sm none 時使用的裝置
      -fit, --fit on|off          載入前把未設定的 -c 與 -ngl 調整到符合可用記憶體（llama.cpp 的
                                  預設值：on）。在已知每個裝置的可用記憶體時（--free 或即時 GPU）
                                  重播：估算針對它會選擇的值，並逐行列出固定這些值的參數，
                                  每行都可直接執行
      -fitt, --fit-target MiB[,MiB...]
                                  --fit 在每個裝置上保留的可用記憶體（預設 1024）
      -fitc, --fit-ctx N          --fit 可選擇的最小上下文（預設 4096；-c 0 表示要求完整上下文）
      其他所有 llama-server 參數都接受，從不拒絕：以尚未建模的方式改變記憶體的參數
      （-md、--mmproj、-sm row ……）會連同取值列在註記中；不影響記憶體的參數（--host、--port、
      -t、--jinja、-a、--api-key ……）只列出名稱；未知的參數會列在警告中。
    完整的 llama-server 命令列可以放在 `--` 之後（或從程式名稱開始：llama-server 或它的路徑）：
    沒有先提供 MODEL.gguf 時，由其中的 -m 指定模型；它前面的 LLAMA_ARG_* 指派視為它的環境變數；
    它之後的每個參數都屬於 llama-server：
      gpuledger estimate --json -- llama-server -m m.gguf -c 8192 -fa on --port 8080
    gpuledger 選項（放在 `--` 或程式名稱之前）：
      --json                      以 JSON 輸出估算（及是否放得下的檢查）
      --device N                  檢查是否放得下時使用的 GPU 索引（預設 0）；裝置名稱
                                  （--device CUDA0,CUDA1）是 llama-server 自己的 --device
      --backend cuda|rocm|vulkan|metal|cpu
                                  依哪種裝置緩衝區建模（預設：找到 GPU 時依其廠商，否則 cuda）
      --tool server|cli|mtmd|bench
                                  執行模型的 llama.cpp 程式（或其名稱：llama-cli、llama-mtmd-cli、
                                  llama-bench）；預設 server。單序列的工具只有 1 個序列（-np），
                                  沒有統一快取，而非伺服器的 4 個自動槽位；bench 的上下文為 640
                                  （其預設 -p 512 -n 128），除非指定了 -c
      --llama-build N             要依循的 llama.cpp 版本（與 `llama-server --version` 的輸出
                                  相同：8123 或 b8123）；計算緩衝區的規則在不同版本之間有變化
                                  （預設：最新的規則）
      --gpus N                    llama.cpp 使用的本機 GPU 數，從 --device 開始（預設 1，不過
                                  llama-server 會使用它看到的所有 GPU：本機有更多 GPU 時會有註記
                                  說明）；搭配 --rpc 伺服器（在其裝置順序中排在最前）以及
                                  -ts/-sm/-mg，估算會列出每個裝置的層、權重、KV 快取與計算緩衝區，
                                  並即時讀取它們的可用記憶體
      --free SIZE,SIZE            每個裝置的可用記憶體，依序提供（24GiB,24GiB）：--fit 的預算；
                                  沒有 -ts 時 llama.cpp 依它分配各層（預設：平均分配）；沒有裝置
                                  （cpu）時為主機的總記憶體
      --no-fit-check              不查看正在執行的機器
      --log FILE                  這個模型的 llama-server 記錄檔（-lv 4）：在估算旁邊顯示它自己回報的
                                  緩衝區大小
    估算放不進所檢查 GPU 的可用顯示記憶體時，會列出能放得下的最省事的變更（--n-cpu-moe N、更小的 -c、
    更少的 -ngl、換一張 GPU），每項都重新估算確認過，結束狀態為 3。

    { cli-exit-codes }
cli-after-serve =
    端點（僅限 GET/HEAD；無法透過它們變更機器上的任何東西）：
      /metrics           Prometheus 文字格式；未知的值不輸出，絕不寫成 0
      /api/v1/snapshot   JSON 格式的快照（schema gpuledger.snapshot/1），與 snapshot --json 相同
      /api/v1/history    記憶體中保留的最近樣本（?since=UNIX_MS），供頁面繪製曲線
      /api/v1/words      文字檢視的用詞與單位（n/a、位元組單位、標籤），供頁面使用
      /healthz           收集輪次持續進行時回傳 200，停滯時回傳 503
      /                  瀏覽器檢視：裝置、處理程序、原因、曲線（`gpuledger ui`）

    收集在背景每隔 --interval 進行一次；要求只讀取最新一輪的結果。
    使用 --replay FILE 時依原樣提供錄製內容，並標示為重播。

    回應的名稱（Host 標頭；其他名稱回傳 421 Misdirected Request，因此即使某個網頁的 DNS
    名稱指向本機也讀不到資料）：localhost、127.0.0.1（任何 127/8 位址）、[::1] 與監聽位址，
    連接埠不限，以及每個 --allow-host NAME。在非回送位址上使用 --allow-remote 時，也回應任何
    IP 位址（Prometheus 與 kubelet 探測依位址存取；指明位址的要求不可能來自重新繫結的網頁）
    與本機的主機名稱（依節點名稱抓取）；其他名稱（DNS 別名、FQDN、反向代理的上游名稱）
    以 --allow-host 指定。

    { cli-exit-codes }
cli-after-ui =
    頁面顯示每張 GPU 及其顯示記憶體帳目、處理程序（可排序、可篩選；鍵盤：方向鍵與 Enter）、
    某個處理程序為什麼占用這麼多（實測、執行環境回報、估算、依據）、依伺服器最近樣本繪製的
    記憶體曲線，以及看不到的內容。唯讀，僅在 127.0.0.1 上；Ctrl-C 停止。使用 --replay FILE
    時顯示錄製內容，並標示為重播。

    { cli-exit-codes }
cli-after-watch =
    警示運算式：FIELD OP VALUE [and FIELD OP VALUE ...]；OP 為 >、>=、< 或 <=。
      device.memory.used、device.memory.free、device.memory.unattributed：
          大小（8GiB、512MiB）或占裝置總量的比例（90%）
      process.memory：大小，或占其所在裝置總量的比例
      device.utilization.gpu、process.sm：百分比（90 或 90%）
      device.temperature：攝氏度（85）
      device.power：瓦特（300）
    含 process.* 欄位的警示會依每個裝置上的每個處理程序分別判斷。未知的值永遠不符合。
    運算式持續成立 --for 之後警示觸發一次，持續不成立 --for 之後解除一次。--exec 執行指令
    （透過 sh -c），並設定 GPULEDGER_ALERT、GPULEDGER_ALERT_STATE、GPULEDGER_ALERT_TIME、
    GPULEDGER_ALERT_TEXT、GPULEDGER_DEVICE_UUID、GPULEDGER_DEVICE_INDEX、GPULEDGER_PID、
    GPULEDGER_PROCESS_NAME 與 GPULEDGER_VALUE_<FIELD>（從不包含命令列）。
    GPULEDGER_ALERT_TEXT 是印出的那一行（所選語言）；其餘變數不隨語言改變。

    範例：
      gpuledger watch --alert 'device.memory.used > 90%' \
          --alert 'process.memory > 8GiB' --for 30s
      gpuledger watch --for 1m \
          --alert 'device.temperature > 85 and device.utilization.gpu < 10' \
          --exec 'notify-send "$GPULEDGER_ALERT_TEXT"'

    { cli-exit-codes }

## clap's own words in --help and the man pages
cli-usage = 用法：{ $usage }
cli-heading-options = 選項
cli-heading-arguments = 引數
cli-help-flag = 顯示說明
cli-help-flag-more = 顯示說明（--help 顯示更多）
cli-help-flag-summary = 顯示說明（-h 顯示摘要）
cli-version-flag = 顯示版本
cli-help-command = 顯示本說明或指定子命令的說明
cli-help-command-arg = 要顯示說明的子命令
cli-spec-env = [環境變數：{ $env }]
cli-spec-default = [預設值：{ $value }]
cli-spec-possible = [可用值：{ $values }]
cli-man-name = 名稱
cli-man-synopsis = 概要
cli-man-description = 描述
cli-man-extra = 附註
cli-man-version = 版本
cli-man-live-view-keys = 即時檢視按鍵
cli-man-live-view-intro = 即時檢視（不加子命令執行 gpuledger）會回應下列按鍵；在檢視中按 ? 或 F1 也會顯示。

## each argument's help: cli-arg-<command>-<argument>, cli-arg-<argument> for gpuledger's own
## and the global ones (the CLI's test keeps them equal to the doc comments, and finds a key
## that names no argument)
cli-arg-proc-root = 從這個 procfs 目錄樹而非 /proc 讀取處理程序資訊（錄製的資料、測試）
cli-arg-sys-root = 從這個 sysfs 目錄樹而非 /sys 讀取裝置資訊
cli-arg-nvml-lib = 從這個檔案載入 NVML，而不是搜尋 libnvidia-ml.so.1 / nvml.dll
cli-arg-kubelet-socket = kubelet 的 pod-resources 通訊端，用來查詢 Pod 的名稱及其容器分配到的裝置（Kubernetes 節點；通訊端不存在或 2 秒內沒有回應時，Pod 中的 GPU 處理程序保留其 UID）
cli-arg-container-logs = kubelet 的容器記錄檔連結（`<pod>_<namespace>_<container>-<id>.log`），用來把處理程序的容器 ID 對應到所屬 Pod 的名稱
cli-arg-no-probe = 不詢問模型伺服器在本機回送位址上的 HTTP API（llama-server /props、vLLM /metrics、SGLang /get_server_info、Ollama /api/ps、LM Studio /api/v0/models）。未加此選項時，`explain` 與 `snapshot` 在收集時詢問它們，即時檢視、`serve`、`watch` 與 `record` 則在背景執行緒中詢問（回應會晚一兩輪才顯示）
cli-arg-replay = 顯示儲存的快照（`gpuledger snapshot --json` 輸出的 JSON）或錄製（`gpuledger record` 的資料庫；以 `snapshot --at` 選擇時間點），而不是這台正在執行的機器。輸出會標示為重播
cli-arg-lang = 介面語言：en、zh-CN（簡體中文）或 zh-TW（繁體中文，也適用於香港與澳門）；`--lang list` 或單獨的 `--lang` 會列出所有語言。未指定時依序參考 GPULEDGER_LANG、LANGUAGE（地區設定為 C 時除外）、LC_ALL、LC_MESSAGES、LANG，接著是 Windows 的顯示語言。JSON、CSV、指標與錄製在任何語言下都相同
cli-arg-interval = 即時檢視：重新整理間隔，以秒為單位（`0.5`）或加上單位（`500ms`、`2s`）。最小 100 ms；執行中可用 `+`/`-` 調整
cli-arg-theme = 即時檢視：色彩主題。環境變數 `NO_COLOR` 會強制使用單色
cli-arg-mono = 即時檢視：不使用色彩，只用粗體 / 反白 / 暗淡
cli-arg-at = 即時檢視搭配錄製的 `--replay`：要顯示的時間點（RFC 3339，或多久以前，例如 `10m`）；未指定時為最新的樣本
cli-arg-alerts = 即時檢視：警示運算式（可重複指定），條件成立期間顯示為 ALERT，例如 'device.memory.used > 90%'（語法見 `gpuledger watch --help`）
cli-arg-remote = 以唯讀方式檢視另一台執行 `gpuledger serve` 的機器（例如 http://gpu-box:9835）：每個間隔取得一次它的快照，本機不收集也不變更任何東西
cli-arg-snapshot-json = 以 JSON 輸出快照（schema gpuledger.snapshot/1）；等同於 `--format json`
cli-arg-snapshot-format = 輸出格式：表格、JSON（gpuledger.snapshot/1）或 CSV（一列標題，每個裝置、裝置上的每個處理程序、每個裝置的未歸屬記憶體各一列）
cli-arg-snapshot-wide = 表格中不截短命令列
cli-arg-snapshot-at = 搭配錄製（`gpuledger record` 的資料庫）的 `--replay`：要顯示的時間點，RFC 3339 時間或多久以前（`10m`）。顯示該時間點或之前最新的樣本
cli-arg-snapshot-group-by = 依處理程序的 cgroup，在每張 GPU 上依所屬加總實測的顯示記憶體：pod（Kubernetes Pod UID）、namespace（名稱由 kubelet 提供：--kubelet-socket、--container-logs；無法得知時歸為一組並說明原因）、container、job（Slurm）、user、unit（systemd）或 owner（以上任一）。未歸屬的記憶體自成一列。輸出表格，或搭配 --json 輸出 JSON（gpuledger.groups/1）
cli-arg-explain-pid = 要說明的處理程序（任何 PID；有資料來源回報其顯示記憶體時會顯示）
cli-arg-explain-json = 以 JSON 輸出說明
cli-arg-explain-probe-timeout-ms = 每次回送位址 HTTP 探測的時間上限，單位為毫秒
cli-arg-explain-log = 執行環境的記錄檔（以 `-lv 4` 啟動的 llama-server）：它自己回報的緩衝區大小會顯示在估算旁邊
cli-arg-probe-device = 要探測的 CUDA 裝置序號
cli-arg-probe-sizes = 每種方式配置的大小，以逗號分隔（例如 256MiB,512MiB,1GiB）
cli-arg-probe-json = 以 JSON 而非表格輸出結果
cli-arg-probe-save = 儲存結果，之後 `estimate` 與 `explain` 會使用這台機器實測的額外開銷
cli-arg-probe-probe-file = --save 寫入的位置 [預設值：$XDG_DATA_HOME/gpuledger/probe.json，否則 ~/.local/share/gpuledger/probe.json；Windows 上為 %LOCALAPPDATA%\gpuledger\probe.json]
cli-arg-probe-cuda-lib = 從這個檔案載入 CUDA 驅動程式，而不是 libcuda.so.1 / nvcuda.dll
cli-arg-probe-settle-ms = 釋放後重新讀取可用記憶體之間的間隔（釋放可能是非同步的）
cli-arg-estimate-args = 模型（分割模型的任一部分），接著是 llama-server 參數與 gpuledger 選項；或在 `--` 之後提供完整的 llama-server 命令列（見下文）
cli-arg-selftest-json = 以 JSON 輸出檢查結果
cli-arg-diff-before = 較早的快照（`gpuledger snapshot --json` 輸出的 JSON）
cli-arg-diff-after = 較晚的快照
cli-arg-diff-json = 以 JSON 輸出差異（schema gpuledger.diff/1），包含所有處理程序
cli-arg-diff-all = 同時列出沒有變化的處理程序與估算項目（預設只列出有變化的，其餘只顯示數量）
cli-arg-record-interval = 取樣間隔。某一輪執行延遲時會略過錯過的時間點
cli-arg-record-db = 資料庫（預設值：$XDG_DATA_HOME/gpuledger/history.db，否則 ~/.local/share/gpuledger/history.db，其資料夾會自動建立）。指定路徑時，其所在資料夾必須已存在
cli-arg-record-retention = 樣本保留多久；較舊的樣本在啟動時及每小時清除一次
cli-arg-record-flush-every = 每隔這麼久在一個交易中把樣本提交到資料庫；停止時也會提交。預設值 0s 表示每個樣本都提交：kill -9 或 OOM 終止最多遺失正在取樣的那一個。提交不做 fsync（SQLite WAL，synchronous=NORMAL），因此斷電或作業系統當機還可能遺失 SQLite 最後一次檢查點之後的內容。較長的時間（例如 10s）會把樣本批次寫入以減少磁碟寫入，kill -9 最多遺失這麼長時間的樣本
cli-arg-record-count = 取得這麼多個樣本後停止（預設值：直到 Ctrl-C / SIGTERM）
cli-arg-history-db = 資料庫（預設值：`--replay FILE`，否則為 `gpuledger record` 寫入的那一個）
cli-arg-history-since = 起始時間：RFC 3339（2026-11-29T08:00:00Z）或多久以前（1h、30m、7d）
cli-arg-history-until = 結束時間（格式同上；預設值為現在）
cli-arg-history-pid = 只看這個 PID
cli-arg-history-name = 只看這個名稱的處理程序
cli-arg-history-device = 只看這個裝置：它的索引（與 `snapshot` 的編號相同）或 UUID
cli-arg-history-devices = 輸出裝置列（記憶體、GPU %、溫度、功耗）而非處理程序列
cli-arg-history-format = table（表格）、csv（含標題列，RFC 4180，RFC 3339 時間）或 json（列的陣列）
cli-arg-watch-alerts = 警示運算式（可重複指定），例如 'device.memory.used > 90%'。詳見 --help
cli-arg-watch-hold = 運算式須持續成立多久才觸發，以及須持續不成立多久才解除
cli-arg-watch-exec = 每個警示觸發或解除時執行這個指令（sh -c），警示內容放在環境變數中
cli-arg-watch-json = 以 JSON 行輸出警示
cli-arg-watch-interval = 取樣間隔
cli-arg-watch-count = 取得這麼多個樣本後停止（預設值：直到 Ctrl-C / SIGTERM）
cli-arg-plot-db = 資料庫（預設值：`--replay FILE`，否則為 `gpuledger record` 寫入的那一個）
cli-arg-plot-since = 起始時間：RFC 3339（2026-11-29T08:00:00Z）或多久以前（1h、30m、7d）
cli-arg-plot-until = 結束時間（格式同上；預設值為現在）
cli-arg-plot-device = 只看這個裝置：它的索引（與 `snapshot` 的編號相同）或 UUID
cli-arg-plot-top = 依名稱堆疊顯示的處理程序數；其餘合計為「其他處理程序」
cli-arg-plot-out = 輸出檔案：`.svg`，或 `.png`（同一張圖表的點陣圖；其中的文字需要安裝字型，例如 Debian 的 fonts-dejavu-core）
cli-arg-serve-listen = 監聽位址。除非指定 --allow-remote，否則只能是回送位址
cli-arg-serve-interval = 收集間隔（例如 5s、500ms、1m）
cli-arg-serve-processes = 哪些處理程序有個別的指標序列：依記憶體取前 N 個、all（全部）或 none（不輸出）
cli-arg-serve-dcgm-compat = 同時以 NVIDIA dcgm-exporter 的名稱匯出裝置指標（DCGM_FI_DEV_FB_USED、_FB_FREE（單位 MiB）、_GPU_UTIL、_MEM_COPY_UTIL、_GPU_TEMP、_POWER_USAGE、時脈）及其標籤（gpu、UUID、device、modelName、Hostname），供為 dcgm-exporter 撰寫的儀表板使用
cli-arg-serve-allow-remote = 允許監聽非回送位址。這些端點沒有身分驗證，任何能連到它們的人都能看到本機的處理程序名稱與使用者
cli-arg-serve-allow-hosts = 也回應以 NAME 稱呼本伺服器的要求（主機名稱或 IP 位址，不含連接埠；可重複指定）：DNS 別名、反向代理的上游名稱、Prometheus 抓取用的 FQDN
cli-arg-ui-interval = 收集間隔；頁面以相同的節奏重新整理（例如 2s、500ms）
cli-arg-ui-port = 127.0.0.1 上的連接埠；0 表示自動挑選可用的連接埠
cli-arg-ui-no-open = 只印出位址，不開啟瀏覽器
cli-arg-ui-allow-hosts = 也回應以 NAME 稱呼本伺服器的要求（主機名稱或 IP 位址，不含連接埠；可重複指定）。未加此選項時只回應 localhost、127.0.0.1 與 `[::1]`（其他回傳 421），因此即使某個網頁的 DNS 名稱指向 127.0.0.1，也讀不到本機的處理程序
cli-arg-kill-pids = 要終止的處理程序 ID
cli-arg-kill-force = 略過正常結束的步驟：立即 SIGKILL / TerminateProcess
cli-arg-kill-grace = 送出 SIGTERM / WM_CLOSE 後等待多久再強制結束：`5s`、`500ms`、`1m` 或秒數，最多一小時
cli-arg-kill-yes = 不再詢問：目標已確認
cli-arg-kill-yes-really = 終止顯示伺服器、視窗合成器、桌面殼層與工作階段殼層（登入 shell、sshd、tmux、screen）所需的第二次確認
cli-arg-kill-dry-run = 只說明將會做什麼，不送出任何訊號
cli-arg-kill-json = 以 JSON 輸出每個目標的結果
cli-arg-verify-size = 工作負載配置並寫入的裝置記憶體大小
cli-arg-verify-device = 執行工作負載的裝置：CUDA 序號（預設 0），或 Vulkan 載入器清單中的索引（預設：第一個不是 CPU 的裝置）。在 `--path auto` 下它是 CUDA 序號：若 CUDA 無法啟動而載入器列出多個裝置，verify 會拒絕執行，而不是猜測指的是哪一個
cli-arg-verify-path = 執行哪種工作負載：`cuda`（CUDA 驅動程式）、`vulkan`（Vulkan 載入器：AMD、Intel、NVIDIA、Mesa 的 lavapipe）或 `auto`（CUDA，CUDA 無法啟動時改用 Vulkan）
cli-arg-verify-json = 以 JSON 輸出完整記錄（每次讀數、每個判定）
cli-arg-verify-save = 同時把完整記錄寫入 FILE（以 `gpuledger --replay FILE verify` 重播）
cli-arg-verify-yes = 配置超過可用記憶體 10 %（Vulkan 路徑上為堆積預算的 10 %，驅動程式不回報預算時為整個堆積的 10 %）之前不再詢問，並允許使用可用記憶體未知的裝置
cli-arg-verify-cuda-lib = 從這個檔案載入 CUDA 驅動程式，而不是 libcuda.so.1 / nvcuda.dll
cli-arg-verify-vulkan-lib = 從這個檔案載入 Vulkan 載入器，而不是 libvulkan.so.1 / vulkan-1.dll / libvulkan.dylib（它能找到哪些驅動程式由載入器決定：VK_ICD_FILENAMES）
cli-arg-completions-shell = 要產生補全指令碼的 shell
cli-arg-man-dir = 把 gpuledger.1 與每個子命令各一頁（gpuledger-snapshot.1……）寫入這個資料夾，而不是把 gpuledger.1 印到標準輸出

## clap's usage errors (an unknown option, a missing one, a bad value); English shows clap's own text
cli-err-unknown-arg = 錯誤：無法辨識的引數 '{ $arg }'
cli-err-unknown-subcommand = 錯誤：無法辨識的子命令 '{ $name }'
cli-err-missing = 錯誤：缺少必要的引數：{ $args }
cli-err-invalid-value = 錯誤：'{ $arg }' 的值 '{ $value }' 無效
cli-err-because = { $line }：{ $why }
cli-err-conflict = 錯誤：引數 '{ $arg }' 不能與 '{ $other }' 一起使用
cli-err-possible = 可用的值：{ $values }
cli-err-tip-similar = 提示：是否要使用 '{ $similar }'？
cli-err-more-info = 更多資訊請執行 '--help'。

## ui, serve and record: what they say on starting and stopping
# A URL is followed by a space, so terminals that detect links stop there.
cli-ui-at = gpuledger ui：瀏覽器檢視位於 { $url } （唯讀，僅限本機；按 Ctrl-C 停止）
cli-ui-at-replay = gpuledger ui：重播的瀏覽器檢視位於 { $url } （唯讀，僅限本機；按 Ctrl-C 停止）
cli-ui-opened = gpuledger ui：已用 { $how } 開啟
cli-ui-no-browser = gpuledger ui：無法啟動瀏覽器（{ $why }）；請自行開啟 { $url } 。服務仍在執行。
cli-serve-listening = gpuledger serve：正在監聽 http://{ $addr } （/、/metrics、/api/v1/snapshot、/healthz）
cli-serve-listening-replay = gpuledger serve：正在監聽 http://{ $addr } （/、/metrics、/api/v1/snapshot、/healthz）——提供的是重播
cli-record-start = gpuledger：每隔 { $interval } 錄製一次，寫入 { $path }（保留 { $retention }{ $pruned ->
        [0] { "" }
       *[other] ，已清除 { $pruned } 個舊樣本
    }）；按 Ctrl-C 停止
cli-record-span = ，從 { $from } 到 { $to }
cli-record-done = gpuledger：已錄製 { $samples } 個樣本{ $span }，寫入 { $path }{ $skipped ->
        [0] { "" }
       *[other] （略過了 { $skipped } 個遲到的取樣時刻）
    }
cli-record-stopped = 錄製已停止：本次執行的 { $samples } 個樣本保存在 { $path }{ $span }；{ $lost } 個未寫入
cli-record-kept-span = （從 { $from } 到 { $to }）

## estimate: what of the command line was not used
cli-warning = gpuledger：警告：{ $text }
cli-warn-model-not-read = 命令列中的 -m { $m } 未被讀取：估算的是 { $word }
cli-warn-not-flags = 不是 llama-server 的引數，已忽略：{ $flags }
cli-warn-ignored = 已忽略：{ $words }
cli-warn-env-not-read = 未讀取的環境變數：{ $names }
cli-verify-interrupted = gpuledger verify：已中斷；工作負載已釋放它持有的一切

## Why a command could not go on (said where it fails; the OS's own words come as $error)
cli-err-option-value = { $option }：{ $why }
cli-err-size-zero = { $value }：大小必須大於 0 位元組
cli-err-size-too-large = { $value }：比任何 GPU 都大
cli-err-plot-extension = 輸出檔名必須以 .svg 或 .png 結尾
cli-err-remote-not-http = --remote：{ $url } 不是 `gpuledger serve` 的 http:// 位址
cli-err-remote-https = --remote：不支援 https（此建置不含 TLS）；請透過 SSH 通道存取伺服器，或在可信任的網路中使用 http
cli-err-remote-and-replay = --remote 和 --replay 都指定了要顯示的內容：只能給一個
cli-err-no-data-dir = 沒有資料目錄：請設定 XDG_DATA_HOME 或 HOME，或用 --db 指定資料庫
cli-err-record-replay = record 取樣的是正在執行的機器，不能錄製重播
cli-err-record-no-folder = --db { $db }：資料夾 { $folder } 不存在；請先建立它（只有預設資料庫的資料夾會自動建立）
cli-err-cannot-read-log = { $path }：無法讀取日誌：{ $error }
cli-err-pid-not-replayed = 重播的快照 { $replay } 中沒有 PID { $pid }
cli-err-no-such-pid = { $root } 中沒有處理程序 { $pid }
cli-err-pid-unreadable = PID { $pid }：{ $error }
cli-err-no-buffer-lines = { $path }：沒有找到 llama.cpp 的緩衝區大小行（請用 -lv 4 啟動 llama-server）
cli-err-serve-not-loopback = 拒絕在 { $listen } 上監聽：它不是回送位址。這些端點沒有身分驗證，會顯示本機的處理程序名稱和使用者；如仍要在網路上提供，請加 --allow-remote
cli-serve-not-loopback = gpuledger serve：警告：正在 { $listen } 上監聽（不是回送位址）。任何能存取它的人都能讀取本機的 GPU 處理程序、處理程序名稱和使用者。沒有身分驗證，也沒有 TLS：請用防火牆或反向代理限制存取。
cli-err-serve-cannot-listen = 無法在 { $listen } 上提供服務：{ $error }
cli-err-plot-png = { $path }：無法產生 PNG：{ $error }
cli-err-plot-no-font = 找不到繪製圖表文字的字型（請安裝一種，如 fonts-dejavu-core）；.svg 不需要字型
cli-replay-recording-at = { $path } 中 { $at } 的樣本
cli-plot-title = 顯示記憶體與 GPU %
cli-plot-title-range = 顯示記憶體與 GPU % · { $from } → { $to }
cli-plot-wrote = gpuledger：已寫入 { $path }（{ $devices } 個裝置）
cli-plot-wrote-empty = gpuledger：已寫入 { $path }（{ $devices } 個裝置，時間範圍內沒有樣本）
cli-err-cannot-write = { $path }：無法寫入：{ $error }
cli-err-cannot-create = 無法建立 { $path }：{ $error }
cli-verify-saved = 記錄已儲存到 { $path }
cli-err-not-verify-record = { $path }：不是 gpuledger verify 記錄：{ $error }
cli-err-verify-schema = { $path }：格式版本為 { $schema }，此 gpuledger 讀取的是 { $reads }
cli-err-verify-timed-out = 工作負載沒有按時完成 { $step } 步驟；它已被停止（結束狀態 { $status }），驅動程式會釋放它持有的記憶體
cli-err-verify-refused = { $why }；沒有配置任何記憶體，工作負載已結束
cli-err-verify-failed = 工作負載失敗：{ $why }；它持有的一切都已釋放
cli-err-signal-handler = 無法安裝 Ctrl-C/SIGTERM 處理常式：{ $error }
cli-err-own-executable = 找不到 gpuledger 自己的執行檔：{ $error }
cli-err-workload-start = 無法啟動工作負載處理程序：{ $error }
cli-err-needs-file = { $option } 需要一個檔案
cli-err-needs-gpu-index = { $option } 需要一個 GPU 編號
cli-err-not-gpu-index = { $value } 不是 GPU 編號
cli-err-needs-build = { $option } 需要一個建置編號
cli-err-not-build = { $value } 不是 llama.cpp 的建置編號（如 8123）
cli-err-needs-backend = { $option } 需要 cuda、rocm、vulkan、metal 或 cpu
cli-err-not-backend = { $value } 不是 cuda、rocm、vulkan、metal 或 cpu
cli-err-needs-gpus = { $option } 需要 GPU 數量
cli-err-not-gpus = { $value } 不是 0 到 16 之間的 GPU 數量
cli-err-needs-free = { $option } 需要大小，如 24GiB,24GiB
cli-err-needs-tool = { $option } 需要 server、cli、mtmd 或 bench
cli-err-not-tool = { $value } 不是 server、cli、mtmd、bench，也不是 llama.cpp 的程式
cli-err-selftest-replay = selftest 檢查的是正在執行的機器，不能在重播上執行
cli-err-watch-replay = watch 檢查的是即時樣本，不能監看重播
cli-err-no-model = 沒有模型：請先給出 MODEL.gguf，或用 llama-server 的 -m FILE
cli-err-no-model-hf = 沒有模型：請先給出 MODEL.gguf，或用 llama-server 的 -m FILE（-hf 會下載模型：請指定下載後的 .gguf 檔案）
    { $cache }
cli-estimate-hf-cache = llama.cpp 把 -hf 下載的檔案放在 $LLAMA_CACHE，否則放在 Hugging Face 快取（$HF_HUB_CACHE、$HF_HOME/hub、~/.cache/huggingface/hub）中，路徑為 models--ORG--NAME/snapshots/COMMIT/FILE.gguf；本機：{ $here }。更早的建置把它們直接放在 $LLAMA_CACHE 或 ~/.cache/llama.cpp/ 中。
cli-estimate-hf-cache-here = { $path }（來自 ${ $var }）
cli-estimate-hf-cache-unknown = 未知（LLAMA_CACHE、HF_* 和 HOME 都沒有設定）
cli-err-snapshot-schema = { $path }：不是有效的快照：不支援的快照格式 { $found }（此 gpuledger 讀取的是 { $expected }）
cli-remote-fetch-failed = GET { $url }：{ $error }（顯示的是上次收到的快照）
cli-watch-start = gpuledger：每 { $every } 檢查 { $alerts } 條警示；按 Ctrl-C 停止
cli-watch-exec-failed = gpuledger：--exec { $command } 無法啟動：{ $error }
cli-explain-log-given = { $name }（用 --log 給出的日誌）

## Where a runtime's flags were read; owners not taken at their word; --group-by's errors; several GPUs
cli-err-group-by-csv = --group-by 輸出表格或 JSON（--json），不輸出 CSV
