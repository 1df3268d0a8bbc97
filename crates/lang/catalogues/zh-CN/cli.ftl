# 命令行：--help 摘要、标题和常见错误，简体中文。各选项的详细说明暂未翻译。

cli-about = 谁在用我的显存，又是为什么。
cli-long-about =
    谁在用我的显存，又是为什么。

    gpuledger 根据驱动自己的计数器，按设备和按进程列出显存用量（实测账目）；没有任何进程认领的显存单独列为“未归属”；每个未知的值都显示为 n/a 并附上原因。
cli-about-snapshot = 采集一轮数据，以表格或 JSON 输出（稳定的 gpuledger.snapshot/1 格式）
cli-about-explain = 关于一个进程的全部信息：实测显存、它是什么以及判断依据、服务的实时状态，以及（llama.cpp）与实测并列的估算账目
cli-about-probe = 在本机实测 CUDA 驱动为一个上下文和锁页主机内存（cuMemHostAlloc、cuMemHostRegister）占用多少显存，并以设备内存作为对照
cli-about-estimate = 按 llama-server 的参数估算它为某个 GGUF 模型会分配多少显存（权重、KV 缓存、输出、计算缓冲区、额外开销；每项输入都注明来源），以及能否放进某块 GPU 当前的空闲显存
cli-about-selftest = 检查本机的每个数据源：能看到什么、看不到什么，以及原因
cli-about-diff = 两个快照之间的变化，按设备和按进程列出，并注明配对规则
cli-about-record = 把采样记录到 SQLite 数据库，直到 Ctrl-C / SIGTERM
cli-about-history = 查询一份记录：以表格、CSV 或 JSON 输出进程或设备的行
cli-about-watch = 阈值告警：当表达式成立时打印（并可选执行一条命令）
cli-about-plot = 把一份记录画成图表（设备显存、GPU %、占用最多的进程堆叠），输出 SVG 或 PNG
cli-about-serve = 只读 HTTP：Prometheus 指标、JSON 快照和浏览器视图，在后台采集
cli-about-ui = 浏览器视图：在空闲的本机回环端口上提供本机数据，并用默认浏览器打开
cli-about-kill = 安全地结束进程：先正常终止，宽限期后强制结束，并确认已经退出
    .long =
        安全地结束进程：先正常终止，宽限期后强制结束，并确认已经退出。

        动手之前，会重新读取每个进程的名称和启动时间，与你确认的进行比较（PID 被重用的会跳过）。绝不终止 PID 1、内核线程、gpuledger 本身或其父进程、Windows 的关键进程；显示服务器和窗口合成器需要 --yes-really。不加 --yes 时会在终端上询问，列出每个进程及其实测显存。
cli-about-verify = 验证这些数字：运行一个已知的负载（创建上下文、分配 N 字节、释放、退出），检查每个数据源在每一步看到了什么
cli-about-completions = 输出 shell 补全脚本（bash、zsh、fish、powershell、elvish）
    .long =
        输出 shell 补全脚本（bash、zsh、fish、powershell、elvish）。

        bash：`gpuledger completions bash > /etc/bash_completion.d/gpuledger`；zsh：以 `_gpuledger` 为名放进 $fpath 中的某个目录；fish：`~/.config/fish/completions/gpuledger.fish`。
cli-about-man = 输出 man 手册页（roff），或用 --dir 为每个命令各写一页到某个目录
cli-heading-commands = 命令
cli-heading-sources = 数据读取位置
cli-exit-codes =
    退出状态：
      0  成功（未发现 GPU 也属正常结果，不是错误）
      1  出错：输入文件无法读取或无效，输出失败
      2  命令行用法错误
cli-unknown-lang = 未知的语言“{ $lang }”：可选 { $known }（`gpuledger --lang list`）

## common errors (reading a --replay file)
cli-err-cannot-read = { $path }：无法读取：{ $error }
cli-err-too-large = { $path }：作为快照文件太大（{ $error }）
cli-err-not-utf8 = { $path }：不是快照：不是 UTF-8 文本（{ $error }）
cli-err-not-snapshot = { $path }：不是有效的快照：{ $error }
cli-err-at-needs-replay = --at 需要配合 --replay RECORDING.db（`gpuledger record` 录制的数据库）使用
cli-err-at-snapshot-file = --at 用于选择录制中的某个时刻，但 { $path } 是快照文件

## commands that act on or measure the live machine
cli-err-kill-replay = kill 作用于正在运行的机器：不能与 --replay 一起使用
cli-err-kill-proc-root = kill 作用于正在运行的进程：不能与 --proc-root { $path } 一起使用
cli-err-probe-replay = probe 测量的是正在运行的机器，不能在回放上运行

## the commands' own exit statuses (after their --help) and the longer summaries
cli-exit-codes-kill =
    退出状态：
      0  所有目标都已确认结束（已退出；等待父进程回收的僵尸进程也算）
      1  意外错误
      2  命令行用法错误
      3  SIGKILL / TerminateProcess 之后仍有目标存活（见可尝试的补救办法）
      4  被拒绝：触发保护规则（PID 1、内核线程、gpuledger 本身或其父进程、关键系统进程），
         未加 --yes-really 的显示服务器或会话 shell，在提示时被拒绝，
         或者没有可询问的终端又没有加 --yes
      5  权限不足：其他用户的（或以提升权限运行的）进程
      6  没有这个进程，或者该 PID 现在指向另一个进程（已跳过）
      7  演练（dry run）：未发送任何信号
    有多个目标时，取最严重的状态码（3 > 1 > 5 > 4 > 6 > 7）。
cli-exit-codes-probe =
    退出状态：
      0    成功
      1    出错（没有驱动、没有设备、内存不足、大小放不下）；probe 分配的一切都已释放
      2    命令行用法错误
      130  被中断（Ctrl-C）；probe 分配的一切都已释放
cli-exit-codes-verify =
    退出状态：
      0    gpuledger 读取的每个数据源都按预期看到了工作负载
      1    出错（工作负载未能运行到最后）；它分配的一切都已释放
      2    命令行用法错误
      3    无法验证：CUDA 和 Vulkan 工作负载都无法启动（没有驱动、没有设备：消息会说明是哪种），
           或者唯一的设备是 CPU 设备（lavapipe），其内存任何 GPU 数据源都看不到
      4    gpuledger 读取的某个数据源关闭了或看不到工作负载（判定结果会说明是哪个）；
           厂商工具的判定会显示，但不影响退出状态
      130  被中断（Ctrl-C）；工作负载分配的一切都已释放

## the longer texts after some commands' --help (their exit statuses at the end)
cli-after-estimate =
    llama-server 参数（名称和默认值与 llama-server 相同），由一张根据 llama.cpp 自己的参数列表
    （b11434 版本，以及旧版本的参数）生成的表读取，与读取正在运行的服务时相同：
      -c, --ctx-size N            上下文（0 = 模型训练时的上下文；补齐到 256 的倍数）
      -np, --parallel N           槽位（默认 auto：4 个槽位共享一个统一缓存）
      -kvu, --kv-unified          所有槽位共享一个缓存
      -no-kvu, --no-kv-unified    每个槽位一个缓存
      -ngl, --n-gpu-layers N      放到 GPU 上的层：数字、auto 或 all（默认 auto，这里等于 all）
      -b, --batch-size N          逻辑批大小（默认 2048）
      -ub, --ubatch-size N        物理批大小（默认 512）
      -ctk, --cache-type-k T      K 缓存类型：f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1
      -ctv, --cache-type-v T      V 缓存类型（量化的 V 需要 flash attention）
      -fa, --flash-attn on|off|auto
                                  （单独的 -fa 是旧版本的开关，表示 on）
      --swa-full                  滑动窗口层使用完整大小的缓存
      -nkvo, --no-kv-offload      KV 缓存留在主机上
      --no-mmap, -lm none         把权重读入主机内存，而不是映射文件
                                  （-lm/--load-mode 是当前版本的写法）
      -ot, --override-tensor PATTERN=TYPE[,...]
                                  名称匹配 PATTERN（正则表达式）的张量放在 CPU（主机）或某个设备
                                  （CUDA0、Vulkan0）的缓冲区类型中：第一个匹配的规则生效，
                                  不管 -ngl 对该张量所在的层怎么说；可重复
      -cmoe, --cpu-moe            所有 MoE 专家张量放在主机上
      -ncmoe, --n-cpu-moe N       前 N 层的专家张量放在主机上
      -ncffn, --n-cpu-ffn N       前 N 层的稠密 FFN 张量放在主机上
      --rpc HOST:PORT[,...]       RPC 服务器：每个一个设备，在 llama.cpp 的设备顺序中排在最前
      -ts, --tensor-split N,N     每个设备分到的层的比例（默认：按空闲显存）
      -sm, --split-mode none|layer
                                  none：只用 --main-gpu 的设备（row 和 tensor 未建模）
      -mg, --main-gpu N           -sm none 时使用的设备
      -fit, --fit on|off          加载前把未设置的 -c 和 -ngl 调整到适合空闲显存（llama.cpp 的
                                  默认值：on）。在已知每个设备的空闲显存时（--free 或实时 GPU）
                                  回放：估算针对它会选择的值，并逐行列出固定这些值的参数，
                                  每行都可直接运行
      -fitt, --fit-target MiB[,MiB...]
                                  --fit 在每个设备上留出的空闲显存（默认 1024）
      -fitc, --fit-ctx N          --fit 可以选择的最小上下文（默认 4096；-c 0 表示要求完整上下文）
      其他所有 llama-server 参数都接受，从不拒绝：以尚未建模的方式改变显存的参数
      （-md、--mmproj、-sm row ……）会连同取值在注释中列出；不影响显存的参数（--host、--port、
      -t、--jinja、-a、--api-key ……）只列出名称；未知的参数会在警告中列出。
    完整的 llama-server 命令行可以放在 `--` 之后（或从程序名开始：llama-server 或它的路径）：
    没有先给出 MODEL.gguf 时，由其中的 -m 指定模型；它前面的 LLAMA_ARG_* 赋值被当作它的环境变量；
    它之后的每个参数都属于 llama-server：
      gpuledger estimate --json -- llama-server -m m.gguf -c 8192 -fa on --port 8080
    gpuledger 选项（放在 `--` 或程序名之前）：
      --json                      以 JSON 输出估算（及是否放得下的检查）
      --device N                  检查是否放得下时使用的 GPU 序号（默认 0）；设备名
                                  （--device CUDA0,CUDA1）是 llama-server 自己的 --device
      --backend cuda|rocm|vulkan|metal|cpu
                                  按哪种设备缓冲区建模（默认：找到 GPU 时按其厂商，否则 cuda）
      --tool server|cli|mtmd|bench
                                  运行模型的 llama.cpp 程序（或其名称：llama-cli、llama-mtmd-cli、
                                  llama-bench）；默认 server。单序列的工具只有 1 个序列（-np），
                                  没有统一缓存，而不是服务的 4 个自动槽位；bench 的上下文为 640
                                  （其默认 -p 512 -n 128），除非给了 -c
      --llama-build N             要遵循的 llama.cpp 版本（与 `llama-server --version` 的输出
                                  相同：8123 或 b8123）；计算缓冲区的规则在不同版本之间有变化
                                  （默认：最新的规则）
      --gpus N                    llama.cpp 使用的本地 GPU 数，从 --device 开始（默认 1，不过
                                  llama-server 会使用它看到的所有 GPU：本机有更多 GPU 时会有注释
                                  说明）；配合 --rpc 服务器（在其设备顺序中排在最前）以及
                                  -ts/-sm/-mg，估算会列出每个设备的层、权重、KV 缓存和计算缓冲区，
                                  并实时读取它们的空闲显存
      --free SIZE,SIZE            每个设备的空闲显存，按顺序给出（24GiB,24GiB）：--fit 的预算；
                                  没有 -ts 时 llama.cpp 按它分配各层（默认：平均分配）；没有设备
                                  （cpu）时为主机的总内存
      --no-fit-check              不查看正在运行的机器
      --log FILE                  这个模型的 llama-server 日志（-lv 4）：在估算旁边显示它自己报告的
                                  缓冲区大小
    估算放不进所检查 GPU 的空闲显存时，会列出能放得下的最省事的改动（--n-cpu-moe N、更小的 -c、
    更少的 -ngl、换一块 GPU），每项都重新估算核实过，退出状态为 3。

    { cli-exit-codes }
cli-after-serve =
    端点（仅 GET/HEAD；不能通过它们改变机器上的任何东西）：
      /metrics           Prometheus 文本格式；未知的值不输出，绝不写成 0
      /api/v1/snapshot   JSON 格式的快照（schema gpuledger.snapshot/1），与 snapshot --json 相同
      /api/v1/history    内存中保留的最近样本（?since=UNIX_MS），供页面画曲线
      /api/v1/words      文本视图的用词和单位（n/a、字节单位、标签），供页面使用
      /healthz           采集轮次持续进行时返回 200，停滞时返回 503
      /                  浏览器视图：设备、进程、原因、曲线（`gpuledger ui`）

    采集在后台每隔 --interval 进行一次；请求只读取最新一轮的结果。
    使用 --replay FILE 时按原样提供录制内容，并标明是回放。

    应答的名称（Host 请求头；其他名称返回 421 Misdirected Request，这样即使某个网页的 DNS
    名称指向本机也读不到数据）：localhost、127.0.0.1（任何 127/8 地址）、[::1] 和监听地址，
    端口不限，以及每个 --allow-host NAME。在非回环地址上使用 --allow-remote 时，还应答任何
    IP 地址（Prometheus 和 kubelet 探测按地址访问；指明地址的请求不可能来自重新绑定的网页）
    和本机的主机名（按节点名抓取）；其他名称（DNS 别名、FQDN、反向代理的上游名称）
    用 --allow-host 指定。

    { cli-exit-codes }
cli-after-ui =
    页面显示每块 GPU 及其显存账目、进程（可排序、可筛选；键盘：方向键和 Enter）、
    某个进程为什么占用这么多（实测、运行时报告、估算、依据）、根据服务最近样本画出的显存曲线，
    以及看不到的内容。只读，仅在 127.0.0.1 上；Ctrl-C 停止。使用 --replay FILE 时显示录制内容，
    并标明是回放。

    { cli-exit-codes }
cli-after-watch =
    告警表达式：FIELD OP VALUE [and FIELD OP VALUE ...]；OP 为 >、>=、< 或 <=。
      device.memory.used、device.memory.free、device.memory.unattributed：
          大小（8GiB、512MiB）或占设备总量的比例（90%）
      process.memory：大小，或占其所在设备总量的比例
      device.utilization.gpu、process.sm：百分比（90 或 90%）
      device.temperature：摄氏度（85）
      device.power：瓦（300）
    含 process.* 字段的告警按每个设备上的每个进程分别判断。未知的值永远不匹配。
    表达式持续成立 --for 之后告警触发一次，持续不成立 --for 之后解除一次。--exec 运行命令
    （通过 sh -c），并设置 GPULEDGER_ALERT、GPULEDGER_ALERT_STATE、GPULEDGER_ALERT_TIME、
    GPULEDGER_ALERT_TEXT、GPULEDGER_DEVICE_UUID、GPULEDGER_DEVICE_INDEX、GPULEDGER_PID、
    GPULEDGER_PROCESS_NAME 和 GPULEDGER_VALUE_<FIELD>（从不包含命令行）。
    GPULEDGER_ALERT_TEXT 是打印出的那一行（所选语言）；其余变量不随语言改变。

    示例：
      gpuledger watch --alert 'device.memory.used > 90%' \
          --alert 'process.memory > 8GiB' --for 30s
      gpuledger watch --for 1m \
          --alert 'device.temperature > 85 and device.utilization.gpu < 10' \
          --exec 'notify-send "$GPULEDGER_ALERT_TEXT"'

    { cli-exit-codes }

## clap's own words in --help and the man pages
cli-usage = 用法：{ $usage }
cli-heading-options = 选项
cli-heading-arguments = 参数
cli-help-flag = 显示帮助
cli-help-flag-more = 显示帮助（--help 显示更多）
cli-help-flag-summary = 显示帮助（-h 显示摘要）
cli-version-flag = 显示版本
cli-help-command = 显示本帮助或指定子命令的帮助
cli-help-command-arg = 要显示帮助的子命令
cli-spec-env = [环境变量：{ $env }]
cli-spec-default = [默认值：{ $value }]
cli-spec-possible = [可选值：{ $values }]
cli-man-name = 名称
cli-man-synopsis = 概要
cli-man-description = 描述
cli-man-extra = 附注
cli-man-version = 版本
cli-man-live-view-keys = 实时视图按键
cli-man-live-view-intro = 实时视图（不带子命令运行 gpuledger）响应以下按键；在视图中按 ? 或 F1 也会显示。

## each argument's help: cli-arg-<command>-<argument>, cli-arg-<argument> for gpuledger's own
## and the global ones (the CLI's test keeps them equal to the doc comments, and finds a key
## that names no argument)
cli-arg-proc-root = 从这个 procfs 目录树而不是 /proc 读取进程信息（录制的数据、测试）
cli-arg-sys-root = 从这个 sysfs 目录树而不是 /sys 读取设备信息
cli-arg-nvml-lib = 从这个文件加载 NVML，而不是查找 libnvidia-ml.so.1 / nvml.dll
cli-arg-kubelet-socket = kubelet 的 pod-resources 套接字，用来查询 Pod 的名称及其容器分到的设备（Kubernetes 节点；套接字不存在或 2 秒内没有应答时，Pod 里的 GPU 进程保留其 UID）
cli-arg-container-logs = kubelet 的容器日志链接（`<pod>_<namespace>_<container>-<id>.log`），用来把进程的容器 ID 对应到所属 Pod 的名称
cli-arg-no-probe = 不询问模型服务在本机回环地址上的 HTTP API（llama-server /props、vLLM /metrics、SGLang /get_server_info、Ollama /api/ps、LM Studio /api/v0/models）。不加此选项时，`explain` 和 `snapshot` 在采集时询问它们，实时视图、`serve`、`watch` 和 `record` 则在后台线程中询问（答复会晚一两轮显示）
cli-arg-replay = 显示保存的快照（`gpuledger snapshot --json` 输出的 JSON）或录制（`gpuledger record` 的数据库；用 `snapshot --at` 选择时刻），而不是这台正在运行的机器。输出会标明是回放
cli-arg-lang = 界面语言：en、zh-CN（简体中文）或 zh-TW（繁体中文，也用于香港和澳门）；`--lang list` 或单独的 `--lang` 列出所有语言。不指定时依次看 GPULEDGER_LANG、LANGUAGE（区域设置为 C 时除外）、LC_ALL、LC_MESSAGES、LANG，然后是 Windows 的显示语言。JSON、CSV、指标和录制在任何语言下都相同
cli-arg-interval = 实时视图：刷新间隔，单位为秒（`0.5`）或带单位（`500ms`、`2s`）。最小 100 ms；运行时可用 `+`/`-` 调整
cli-arg-theme = 实时视图：配色主题。环境变量 `NO_COLOR` 会强制单色
cli-arg-mono = 实时视图：不用颜色，只用粗体 / 反色 / 暗淡
cli-arg-at = 实时视图配合录制的 `--replay`：要显示的时刻（RFC 3339，或多久以前，如 `10m`）；不指定时为最新的样本
cli-arg-alerts = 实时视图：告警表达式（可重复），条件成立期间显示为 ALERT，例如 'device.memory.used > 90%'（语法见 `gpuledger watch --help`）
cli-arg-remote = 以只读方式查看另一台运行 `gpuledger serve` 的机器（例如 http://gpu-box:9835）：每个间隔取一次它的快照，本机不采集也不改动任何东西
cli-arg-snapshot-json = 以 JSON 输出快照（schema gpuledger.snapshot/1）；等同于 `--format json`
cli-arg-snapshot-format = 输出格式：表格、JSON（gpuledger.snapshot/1）或 CSV（一行表头，每个设备、设备上的每个进程、每个设备的未归属显存各一行）
cli-arg-snapshot-wide = 表格中不截短命令行
cli-arg-snapshot-at = 配合录制（`gpuledger record` 的数据库）的 `--replay`：要显示的时刻，RFC 3339 时间或多久以前（`10m`）。显示该时刻或之前最新的样本
cli-arg-snapshot-group-by = 按进程的 cgroup 在每块 GPU 上按所属汇总实测显存：pod（Kubernetes Pod UID）、namespace（由 kubelet 提供名称：--kubelet-socket、--container-logs；无法得知时归为一组并说明原因）、container、job（Slurm）、user、unit（systemd）或 owner（以上任一）。未归属显存单独成行。输出表格，或配合 --json 输出 JSON（gpuledger.groups/1）
cli-arg-explain-pid = 要解释的进程（任意 PID；有数据源报告其显存时会显示）
cli-arg-explain-json = 以 JSON 输出解释
cli-arg-explain-probe-timeout-ms = 每次回环 HTTP 探测的时间上限，单位毫秒
cli-arg-explain-log = 运行时的日志（以 `-lv 4` 启动的 llama-server）：它自己报告的缓冲区大小显示在估算旁边
cli-arg-probe-device = 要探测的 CUDA 设备序号
cli-arg-probe-sizes = 每种方式分配的大小，以逗号分隔（例如 256MiB,512MiB,1GiB）
cli-arg-probe-json = 以 JSON 而不是表格输出结果
cli-arg-probe-save = 保存结果，之后 `estimate` 和 `explain` 使用这台机器实测的额外开销
cli-arg-probe-probe-file = --save 写入的位置 [默认值：$XDG_DATA_HOME/gpuledger/probe.json，否则 ~/.local/share/gpuledger/probe.json；Windows 上为 %LOCALAPPDATA%\gpuledger\probe.json]
cli-arg-probe-cuda-lib = 从这个文件加载 CUDA 驱动，而不是 libcuda.so.1 / nvcuda.dll
cli-arg-probe-settle-ms = 释放后重新读取空闲显存之间的间隔（释放可能是异步的）
cli-arg-estimate-args = 模型（分片模型的任意一片），然后是 llama-server 参数和 gpuledger 选项；或在 `--` 之后给出完整的 llama-server 命令行（见下文）
cli-arg-selftest-json = 以 JSON 输出检查结果
cli-arg-diff-before = 较早的快照（`gpuledger snapshot --json` 输出的 JSON）
cli-arg-diff-after = 较晚的快照
cli-arg-diff-json = 以 JSON 输出差异（schema gpuledger.diff/1），包含所有进程
cli-arg-diff-all = 同时列出未变化的进程和估算部分（默认只列出有变化的，其余只给出数量）
cli-arg-record-interval = 采样间隔。某一轮运行超时则跳过错过的时刻
cli-arg-record-db = 数据库（默认值：$XDG_DATA_HOME/gpuledger/history.db，否则 ~/.local/share/gpuledger/history.db，其目录会自动创建）。指定路径时其所在目录必须已存在
cli-arg-record-retention = 样本保留时长；更早的样本在启动时和每小时清理一次
cli-arg-record-flush-every = 每隔这么久在一个事务中把样本提交到数据库；停止时也会提交。默认值 0s 表示每个样本都提交：kill -9 或 OOM 终止最多丢失正在采集的那个样本。提交不做 fsync（SQLite WAL，synchronous=NORMAL），所以断电或系统崩溃还可能丢失 SQLite 最后一次检查点之后的内容。更长的时间（如 10s）会把样本成批写入以减少磁盘写入，kill -9 最多丢失这么长时间的样本
cli-arg-record-count = 采集这么多个样本后停止（默认值：直到 Ctrl-C / SIGTERM）
cli-arg-history-db = 数据库（默认值：`--replay FILE`，否则为 `gpuledger record` 写入的那个）
cli-arg-history-since = 起始时间：RFC 3339（2026-11-29T08:00:00Z）或多久以前（1h、30m、7d）
cli-arg-history-until = 截止时间（格式同上；默认值为现在）
cli-arg-history-pid = 只看这个 PID
cli-arg-history-name = 只看这个名称的进程
cli-arg-history-device = 只看这个设备：它的序号（与 `snapshot` 的编号相同）或 UUID
cli-arg-history-devices = 输出设备行（显存、GPU %、温度、功耗）而不是进程行
cli-arg-history-format = table（表格）、csv（带表头，RFC 4180，RFC 3339 时间）或 json（行的数组）
cli-arg-watch-alerts = 告警表达式（可重复），例如 'device.memory.used > 90%'。详见 --help
cli-arg-watch-hold = 表达式须持续成立多久才触发，以及须持续不成立多久才解除
cli-arg-watch-exec = 每个告警触发或解除时运行这条命令（sh -c），告警内容放在环境变量中
cli-arg-watch-json = 以 JSON 行输出告警
cli-arg-watch-interval = 采样间隔
cli-arg-watch-count = 采集这么多个样本后停止（默认值：直到 Ctrl-C / SIGTERM）
cli-arg-plot-db = 数据库（默认值：`--replay FILE`，否则为 `gpuledger record` 写入的那个）
cli-arg-plot-since = 起始时间：RFC 3339（2026-11-29T08:00:00Z）或多久以前（1h、30m、7d）
cli-arg-plot-until = 截止时间（格式同上；默认值为现在）
cli-arg-plot-device = 只看这个设备：它的序号（与 `snapshot` 的编号相同）或 UUID
cli-arg-plot-top = 按名称堆叠显示的进程数；其余合计为“其他进程”
cli-arg-plot-out = 输出文件：`.svg`，或 `.png`（同一图表的位图；其中的文字需要安装字体，例如 Debian 的 fonts-dejavu-core）
cli-arg-serve-listen = 监听地址。除非加了 --allow-remote，否则只能是回环地址
cli-arg-serve-interval = 采集间隔（例如 5s、500ms、1m）
cli-arg-serve-processes = 哪些进程有单独的指标序列：按显存取前 N 个、all（全部）或 none（不输出）
cli-arg-serve-dcgm-compat = 同时按 NVIDIA dcgm-exporter 的名称导出设备指标（DCGM_FI_DEV_FB_USED、_FB_FREE（单位 MiB）、_GPU_UTIL、_MEM_COPY_UTIL、_GPU_TEMP、_POWER_USAGE、时钟）及其标签（gpu、UUID、device、modelName、Hostname），供为 dcgm-exporter 编写的仪表盘使用
cli-arg-serve-allow-remote = 允许监听非回环地址。这些端点没有身份验证，任何能访问到它们的人都能看到本机的进程名称和用户
cli-arg-serve-allow-hosts = 也应答以 NAME 称呼本服务的请求（主机名或 IP 地址，不带端口；可重复）：DNS 别名、反向代理的上游名称、Prometheus 抓取用的 FQDN
cli-arg-ui-interval = 采集间隔；页面以同样的节奏刷新（例如 2s、500ms）
cli-arg-ui-port = 127.0.0.1 上的端口；0 表示自动选一个空闲端口
cli-arg-ui-no-open = 只打印地址，不启动浏览器
cli-arg-ui-allow-hosts = 也应答以 NAME 称呼本服务的请求（主机名或 IP 地址，不带端口；可重复）。不加此选项时只应答 localhost、127.0.0.1 和 `[::1]`（其他返回 421），这样即使某个网页的 DNS 名称指向 127.0.0.1，也读不到本机的进程
cli-arg-kill-pids = 要终止的进程 ID
cli-arg-kill-force = 跳过正常结束这一步：立即 SIGKILL / TerminateProcess
cli-arg-kill-grace = SIGTERM / WM_CLOSE 之后等待多久再强制结束：`5s`、`500ms`、`1m` 或秒数，最多一小时
cli-arg-kill-yes = 不再询问：目标已确认
cli-arg-kill-yes-really = 终止显示服务器、窗口合成器、桌面外壳和会话外壳（登录 shell、sshd、tmux、screen）所需的二次确认
cli-arg-kill-dry-run = 只说明将会做什么，不发送任何信号
cli-arg-kill-json = 以 JSON 输出每个目标的结果
cli-arg-verify-size = 工作负载分配并写入的设备内存大小
cli-arg-verify-device = 运行工作负载的设备：CUDA 序号（默认 0），或 Vulkan 加载器列表中的序号（默认：第一个不是 CPU 的设备）。在 `--path auto` 下它是 CUDA 序号：如果 CUDA 无法启动而加载器列出多个设备，verify 会拒绝执行而不是猜测指的是哪一个
cli-arg-verify-path = 运行哪种工作负载：`cuda`（CUDA 驱动）、`vulkan`（Vulkan 加载器：AMD、Intel、NVIDIA、Mesa 的 lavapipe）或 `auto`（CUDA，CUDA 无法启动时用 Vulkan）
cli-arg-verify-json = 以 JSON 输出完整记录（每次读数、每个判定）
cli-arg-verify-save = 同时把完整记录写入 FILE（用 `gpuledger --replay FILE verify` 回放）
cli-arg-verify-yes = 分配超过空闲显存 10 %（Vulkan 路径上为堆预算的 10 %，驱动不报告预算时为整个堆的 10 %）之前不再询问，并允许使用空闲显存未知的设备
cli-arg-verify-cuda-lib = 从这个文件加载 CUDA 驱动，而不是 libcuda.so.1 / nvcuda.dll
cli-arg-verify-vulkan-lib = 从这个文件加载 Vulkan 加载器，而不是 libvulkan.so.1 / vulkan-1.dll / libvulkan.dylib（它能找到哪些驱动由加载器决定：VK_ICD_FILENAMES）
cli-arg-completions-shell = 要为之生成补全脚本的 shell
cli-arg-man-dir = 把 gpuledger.1 和每个子命令一页（gpuledger-snapshot.1 ……）写入这个目录，而不是把 gpuledger.1 打印到标准输出

## clap's usage errors (an unknown option, a missing one, a bad value); English shows clap's own text
cli-err-unknown-arg = 错误：无法识别的参数 '{ $arg }'
cli-err-unknown-subcommand = 错误：无法识别的子命令 '{ $name }'
cli-err-missing = 错误：缺少必需的参数：{ $args }
cli-err-invalid-value = 错误：'{ $arg }' 的值 '{ $value }' 无效
cli-err-because = { $line }：{ $why }
cli-err-conflict = 错误：参数 '{ $arg }' 不能与 '{ $other }' 一起使用
cli-err-possible = 可用的值：{ $values }
cli-err-tip-similar = 提示：是否要用 '{ $similar }'？
cli-err-more-info = 更多信息请运行 '--help'。

## ui, serve and record: what they say on starting and stopping
# A URL is followed by a space, so terminals that detect links stop there.
cli-ui-at = gpuledger ui：浏览器视图位于 { $url } （只读，仅限本机；按 Ctrl-C 停止）
cli-ui-at-replay = gpuledger ui：回放的浏览器视图位于 { $url } （只读，仅限本机；按 Ctrl-C 停止）
cli-ui-opened = gpuledger ui：已用 { $how } 打开
cli-ui-no-browser = gpuledger ui：无法启动浏览器（{ $why }）；请自行打开 { $url } 。服务仍在运行。
cli-serve-listening = gpuledger serve：正在监听 http://{ $addr } （/、/metrics、/api/v1/snapshot、/healthz）
cli-serve-listening-replay = gpuledger serve：正在监听 http://{ $addr } （/、/metrics、/api/v1/snapshot、/healthz）——提供的是回放
cli-record-start = gpuledger：每隔 { $interval } 录制一次，写入 { $path }（保留 { $retention }{ $pruned ->
        [0] { "" }
       *[other] ，已清理 { $pruned } 个旧样本
    }）；按 Ctrl-C 停止
cli-record-span = ，从 { $from } 到 { $to }
cli-record-done = gpuledger：已录制 { $samples } 个样本{ $span }，写入 { $path }{ $skipped ->
        [0] { "" }
       *[other] （跳过了 { $skipped } 个迟到的采样时刻）
    }
cli-record-stopped = 录制已停止：本次运行的 { $samples } 个样本保存在 { $path }{ $span }；{ $lost } 个未写入
cli-record-kept-span = （从 { $from } 到 { $to }）

## estimate: what of the command line was not used
cli-warning = gpuledger：警告：{ $text }
cli-warn-model-not-read = 命令行中的 -m { $m } 未被读取：估算的是 { $word }
cli-warn-not-flags = 不是 llama-server 的参数，已忽略：{ $flags }
cli-warn-ignored = 已忽略：{ $words }
cli-warn-env-not-read = 未读取的环境变量：{ $names }
cli-verify-interrupted = gpuledger verify：已中断；工作负载已释放它持有的一切

## Why a command could not go on (said where it fails; the OS's own words come as $error)
cli-err-option-value = { $option }：{ $why }
cli-err-size-zero = { $value }：大小必须大于 0 字节
cli-err-size-too-large = { $value }：比任何 GPU 都大
cli-err-plot-extension = 输出文件名必须以 .svg 或 .png 结尾
cli-err-remote-not-http = --remote：{ $url } 不是 `gpuledger serve` 的 http:// 地址
cli-err-remote-https = --remote：不支持 https（此构建不含 TLS）；请通过 SSH 隧道访问服务器，或在可信网络中使用 http
cli-err-remote-and-replay = --remote 和 --replay 都指定了要显示的内容：只能给一个
cli-err-no-data-dir = 没有数据目录：请设置 XDG_DATA_HOME 或 HOME，或用 --db 指定数据库
cli-err-record-replay = record 采样的是正在运行的机器，不能录制回放
cli-err-record-no-folder = --db { $db }：文件夹 { $folder } 不存在；请先创建它（只有默认数据库的文件夹会自动创建）
cli-err-cannot-read-log = { $path }：无法读取日志：{ $error }
cli-err-pid-not-replayed = 回放的快照 { $replay } 中没有 PID { $pid }
cli-err-no-such-pid = { $root } 中没有进程 { $pid }
cli-err-pid-unreadable = PID { $pid }：{ $error }
cli-err-no-buffer-lines = { $path }：没有找到 llama.cpp 的缓冲区大小行（请用 -lv 4 启动 llama-server）
cli-err-serve-not-loopback = 拒绝在 { $listen } 上监听：它不是回环地址。这些端点没有身份验证，会显示本机的进程名和用户；如仍要在网络上提供，请加 --allow-remote
cli-serve-not-loopback = gpuledger serve：警告：正在 { $listen } 上监听（不是回环地址）。任何能访问它的人都能读取本机的 GPU 进程、进程名和用户。没有身份验证，也没有 TLS：请用防火墙或反向代理限制访问。
cli-err-serve-cannot-listen = 无法在 { $listen } 上提供服务：{ $error }
cli-err-plot-png = { $path }：无法生成 PNG：{ $error }
cli-err-plot-no-font = 找不到绘制图表文字的字体（请安装一种，如 fonts-dejavu-core）；.svg 不需要字体
cli-replay-recording-at = { $path } 中 { $at } 的样本
cli-plot-title = 显存与 GPU %
cli-plot-title-range = 显存与 GPU % · { $from } → { $to }
cli-plot-wrote = gpuledger：已写入 { $path }（{ $devices } 个设备）
cli-plot-wrote-empty = gpuledger：已写入 { $path }（{ $devices } 个设备，时间范围内没有样本）
cli-err-cannot-write = { $path }：无法写入：{ $error }
cli-err-cannot-create = 无法创建 { $path }：{ $error }
cli-verify-saved = 记录已保存到 { $path }
cli-err-not-verify-record = { $path }：不是 gpuledger verify 记录：{ $error }
cli-err-verify-schema = { $path }：格式版本为 { $schema }，此 gpuledger 读取的是 { $reads }
cli-err-verify-timed-out = 工作负载没有按时完成 { $step } 步骤；它已被停止（退出状态 { $status }），驱动会释放它持有的内存
cli-err-verify-refused = { $why }；没有分配任何内存，工作负载已结束
cli-err-verify-failed = 工作负载失败：{ $why }；它持有的一切都已释放
cli-err-signal-handler = 无法安装 Ctrl-C/SIGTERM 处理程序：{ $error }
cli-err-own-executable = 找不到 gpuledger 自己的可执行文件：{ $error }
cli-err-workload-start = 无法启动工作负载进程：{ $error }
cli-err-needs-file = { $option } 需要一个文件
cli-err-needs-gpu-index = { $option } 需要一个 GPU 编号
cli-err-not-gpu-index = { $value } 不是 GPU 编号
cli-err-needs-build = { $option } 需要一个构建号
cli-err-not-build = { $value } 不是 llama.cpp 的构建号（如 8123）
cli-err-needs-backend = { $option } 需要 cuda、rocm、vulkan、metal 或 cpu
cli-err-not-backend = { $value } 不是 cuda、rocm、vulkan、metal 或 cpu
cli-err-needs-gpus = { $option } 需要 GPU 数量
cli-err-not-gpus = { $value } 不是 0 到 16 之间的 GPU 数量
cli-err-needs-free = { $option } 需要大小，如 24GiB,24GiB
cli-err-needs-tool = { $option } 需要 server、cli、mtmd 或 bench
cli-err-not-tool = { $value } 不是 server、cli、mtmd、bench，也不是 llama.cpp 的程序
cli-err-selftest-replay = selftest 检查的是正在运行的机器，不能在回放上运行
cli-err-watch-replay = watch 检查的是实时样本，不能监视回放
cli-err-no-model = 没有模型：请先给出 MODEL.gguf，或用 llama-server 的 -m FILE
cli-err-no-model-hf = 没有模型：请先给出 MODEL.gguf，或用 llama-server 的 -m FILE（-hf 会下载模型：请指定下载后的 .gguf 文件）
    { $cache }
cli-estimate-hf-cache = llama.cpp 把 -hf 下载的文件放在 $LLAMA_CACHE，否则放在 Hugging Face 缓存（$HF_HUB_CACHE、$HF_HOME/hub、~/.cache/huggingface/hub）中，路径为 models--ORG--NAME/snapshots/COMMIT/FILE.gguf；本机：{ $here }。更早的构建把它们直接放在 $LLAMA_CACHE 或 ~/.cache/llama.cpp/ 中。
cli-estimate-hf-cache-here = { $path }（来自 ${ $var }）
cli-estimate-hf-cache-unknown = 未知（LLAMA_CACHE、HF_* 和 HOME 都没有设置）
cli-err-snapshot-schema = { $path }：不是有效的快照：不支持的快照格式 { $found }（此 gpuledger 读取的是 { $expected }）
cli-remote-fetch-failed = GET { $url }：{ $error }（显示的是上次收到的快照）
cli-watch-start = gpuledger：每 { $every } 检查 { $alerts } 条告警；按 Ctrl-C 停止
cli-watch-exec-failed = gpuledger：--exec { $command } 无法启动：{ $error }
cli-explain-log-given = { $name }（用 --log 给出的日志）

## Where a runtime's flags were read; owners not taken at their word; --group-by's errors; several GPUs
cli-err-group-by-csv = --group-by 输出表格或 JSON（--json），不输出 CSV
