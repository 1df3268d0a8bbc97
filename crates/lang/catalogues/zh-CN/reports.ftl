# 文本报告（`gpuledger snapshot` 及其他命令的输出），简体中文。术语见 crates/lang/GLOSSARY.md。

## snapshot：标题
report-replay = 回放 { $file }（录制于 { $taken }，不是本机的实时数据）
report-title = gpuledger 快照 · { $host } · { $taken }
report-title-wsl = gpuledger 快照 · { $host } · { $taken } · WSL2
report-unknown-host = 未知主机
report-no-gpu = 未发现 GPU。运行 `gpuledger selftest` 查看每个数据源查找了什么。

## snapshot：设备
report-devices = 设备
report-col-gpu = GPU
report-col-name = 名称
report-col-memory-used-total = 显存 已用 / 总量
report-col-gpu-pct = GPU%
report-col-mem-pct = 显存%
report-col-temp = 温度
report-col-power-limit = 功耗 / 上限
report-col-processes = 进程合计
report-col-unattributed = 未归属
report-system-memory-gtt = 系统内存（GTT）
report-power-suspended = 已休眠
report-power-suspending = 正在休眠
report-over-attributed = 超额归属

## snapshot：进程
report-processes-measured = 进程（实测）
report-col-pid = PID
report-col-user = 用户
report-col-workload = 工作负载
report-col-type = 类型
report-col-memory = 显存
report-col-sys-gtt = 系统内存/GTT
report-col-source = 来源
report-col-sm-pct = SM%
report-col-owner = 所属
report-col-command = 命令

## snapshot：未归属的行
report-unattributed-on = GPU{ $gpu } 上未归属（驱动、系统、其他用户、未知进程）
report-over-attributed-on = GPU{ $gpu } 超额归属：各进程之和超过设备实际用量（共享的显存表面会同时计入多个进程）；条形图按比例缩放，标签为原始数值
report-unattributed-unknown = GPU{ $gpu } 上未归属：设备已用显存未知

## snapshot：估算账目
report-estimated = 估算（根据模型文件和启动参数计算；不是实测值，不计入上面的合计）
report-col-role = 角色
report-col-recipe = 估算方法
report-col-context = 上下文
report-col-weights = 权重
report-col-kv-cache = KV 缓存
report-col-compute = 计算缓冲区
report-col-overhead = 额外开销
report-col-total = 合计
report-col-measured = 实测
report-pid-says = PID { $pid }：{ $text }
report-reported-no-estimate = { $pid } { $name }：无法估算；运行时自己报告了 { $figures }（{ $source }）
report-group = PID { $pid } 的进程组（{ $label }）：共 { $members } 个成员，估算合计 { $estimated }，实测 { $measured }
report-group-no-estimate = n/a（没有任何成员有估算）
report-explain-hint = （`gpuledger explain PID` 会列出每一部分的输入及其来源）

## snapshot：备注与数据源
report-notes = 备注及未能看到的内容
report-unknown-processes = GPU{ $gpu }：有 { $count } 个进程的显存未知，已计入未归属的数值
report-memory-na = PID { $pid }（{ $name }）在 GPU{ $gpu } 上的显存为 n/a：{ $reason }
report-engines-na = PID { $pid } 的引擎占用为 n/a：{ $reason }
report-process-note = PID { $pid }（{ $name }）：{ $note }
report-metadata-na = PID { $pid } 的名称、用户和命令未知：{ $reason }
report-sources = 数据源
report-source-ok = 正常
report-source-unavailable = 不可用
report-source-error = 错误
report-source-line = { $state }：{ $detail }

## 实测值与估算值并列（snapshot、explain、estimate）；$label 为空或以空格结尾
report-vs-more = 实测 { $measured } { $label }对比估算 { $estimated }：驱动报告的比估算多 { $difference }
report-vs-less = 实测 { $measured } { $label }对比估算 { $estimated }：驱动报告的比估算少 { $difference }
report-vs-with-cause = { $text }；{ $cause }
report-gap-above-estimate = 可能有估算方法未涵盖的分配（进程里还有别的模型或上下文、CUDA graphs、更大的批次），或实际上下文比读到的设置更大
report-gap-below-weights = 比估算的权重本身还少：可能放到 GPU 上的层数比读到的设置少，或模型仍在加载
report-gap-between = 可能上下文更小、槽位更少或批次比读到的设置更小（运行时可能在加载时调整过：llama-server 的 --fit、Ollama 的 num_ctx）

## explain（标题前空一行；其余各行由程序缩进）
report-explain-title = gpuledger explain { $pid } · { $name } · 用户 { $user }
report-explain-title-replay = gpuledger explain { $pid } · { $name } · 用户 { $user } · 回放
report-explain-command = 命令：{ $command }
report-explain-metadata-na = 名称、用户和命令为 n/a：{ $reason }
report-explain-owner = 所属：{ $label } · cgroup { $cgroup }
report-explain-pod-names-na = Pod 名称和命名空间为 n/a：{ $reason }
report-explain-slurm-names = Slurm 作业名称来自：{ $source }
report-explain-owner-note = 所属备注：{ $note }
report-explain-kubelet-devices = kubelet 分配的设备：{ $devices }
report-explain-measured = 实测（由驱动报告）
report-explain-memory-na = 显存为 n/a：{ $reason }
report-explain-what-it-is = 这是什么（识别结果及依据）
report-explain-identified = { $label }（可信度：{ $confidence }）
report-confidence-high = 高
report-confidence-medium = 中
report-confidence-low = 低
report-explain-missing = 缺少：{ $what }
report-explain-not-identified = 未能识别
report-explain-workload = 工作负载的进程（根进程 PID { $pid }；实测合计 { $measured }）
report-explain-workload-estimated = 工作负载的进程（根进程 PID { $pid }；实测合计 { $measured }，估算合计 { $estimated }）
report-explain-this-process = ← 即此进程
report-explain-no-gpu-memory = 未占用显存
report-explain-share = （估算份额 { $bytes }）
report-explain-live = 实时状态（运行时自身的 API，仅限本机回环地址）
report-explain-live-server = { $server }，位于 127.0.0.1:{ $port }
report-explain-auth = 该服务需要 API 密钥（HTTP 401）；gpuledger 不会发送密钥
report-explain-context-size = 上下文大小：{ $n }
report-explain-slots-busy = 槽位：{ $total } 个中 { $busy } 个忙碌
report-explain-slots = 槽位：{ $total }
report-explain-tokens-per-second = 每秒 token 数：{ $rate }
report-explain-model = 模型：{ $path }
report-explain-loaded = 已加载：{ $name }（运行时报告占用显存 { $vram }，上下文 { $context }）
report-explain-na = n/a：{ $reason }
report-explain-estimated-config = 估算（根据 config.json、safetensors 文件头和运行时设置计算；不是实测值）
report-explain-estimated-gguf-runtime = 估算（根据 GGUF 文件头和运行时设置计算；不是实测值）
report-explain-estimated-gguf-server = 估算（根据 GGUF 文件头和服务的启动参数计算；不是实测值）
report-explain-recipe = 估算方法：{ $recipe }
report-explain-not-modelled = 未纳入估算：{ $what }
report-explain-runtime-api-na = 运行时 API 为 n/a：{ $reason }
report-explain-side-by-side = 并列对比（三者从不相加）
report-explain-measured-driver = 实测（驱动）：
report-explain-reported-runtime = 报告（运行时）：
report-explain-reported-none = n/a（运行时在这里不公布数值）
report-explain-recorded = { $bytes }（快照中记录的值）
report-explain-estimated-recipe = 估算（估算方法）：
report-explain-why = 依据：{ $why }
report-explain-runtime-reported = 运行时报告（运行时自己的日志，与估算并列）

## estimate：llama.cpp 估算方法的账目（`gpuledger estimate`、explain）
report-est-header = 估算（{ $recipe }）：{ $path }：{ $arch }，{ $layers } 层，{ $size }，共 { $files } 个文件
report-est-context = 上下文：n_ctx { $n_ctx }（每个槽位 { $per_slot }），{ $slots } 个槽位，{ $cache }缓存，n_ubatch { $ubatch }，flash attention { $flash }
report-est-cache-unified = 统一
report-est-cache-per-slot = 按槽位分配的
report-est-on = 开
report-est-off = 关
report-est-approximate = 近似：此模型的部分内容是用通用规则估算的：
report-est-col-line = 项目
report-est-col-host = 主机
report-est-col-details = 说明
report-est-weights = 权重
report-est-kv-cache = KV 缓存
report-est-output = 输出
report-est-output-detail = 每个槽位一个 token 的 logits（主机内存）
report-est-compute = 计算缓冲区
report-est-overhead = 额外开销
report-est-total = 合计
report-est-weights-detail = { $gpu_layers }/{ $layers } 个重复层在 GPU 上，输出层{ $place ->
        [gpu] 在 GPU 上
       *[host] 在主机内存中
    }
report-est-tied-copy = ，含 token_embd 的绑定输出副本 { $size }
report-est-override = ；{ $given }：{ $count } 个张量（{ $size }）{ $place ->
        [gpu] 在 GPU 上
       *[host] 在主机内存中
    }
report-est-kv-detail = { $cells } 个单元 x { $streams } 个流 x { $layers } 个全注意力层
report-est-kv-swa = + { $cells } 个单元 x { $layers } 个 SWA 层
report-est-kv-recurrent = ，循环状态 { $size }
report-est-kv-indexer = ，含索引器缓存 { $size }（{ $layers } 层，每个键 { $head }）
report-est-kv-compressed = ，含压缩缓存与压缩器状态 { $size }（{ $count } 项）
report-precision-exact = 精确
report-precision-approximate = 近似
report-est-compute-approximate = 可信度 { $confidence }；{ $word }：{ $parts }
report-est-compute-exact = { $word }：按此模型的层回放了 llama.cpp 的计算图预留
report-est-total-no-overhead = GPU 合计不含未知的额外开销
report-est-total-without-overhead = 不含额外开销为 { $size }
report-est-col-device = 设备
report-est-col-layers = 层数
report-est-plus-output = + 输出层
report-est-per-device = 按设备（llama.cpp 的设备顺序；不含额外开销）：
report-fit-unchanged = 未改变
report-fit-fitted = 已适配
report-fit-failed = 失败
report-fit-stopped = 已停止
report-est-fit = 回放了 --fit（{ $outcome }）：空闲 { $free }，预留 { $margin }；llama-server 会以如下参数加载：
report-est-fit-log = llama.cpp 为这次 --fit 打印的日志（原文）：
report-est-inputs = 输入：
report-est-notes = 备注：
report-source-gguf = gguf { $detail }
report-source-tensors = 张量：{ $detail }
report-source-flag = 参数 { $detail }
report-source-env = 环境变量 { $detail }
report-source-server = 服务：{ $detail }
report-source-default = 默认值（{ $detail }）
report-source-derived = 推导：{ $detail }
report-source-assumed = 假定：{ $detail }
report-source-file = 文件：{ $detail }
report-source-measured = 实测：{ $detail }
report-cmp-heading = 估算值与 llama.cpp 自身日志的对比（日志是运行时自己给出的数字）：
report-cmp-estimated = 估算
report-cmp-logged = 日志
report-cmp-not-in-log = 日志中没有
report-cmp-not-modelled = 未纳入估算

## estimate：能否放进 GPU 当前的空闲显存
report-fit-na = 能否放下：{ $reason }
report-fit-not-requested = 未要求检查能否放下（--no-fit-check）
report-fit-no-snapshot = 无法检查：未能为本机拍下快照
report-fit-not-available = 无法检查：{ $why }
report-fit-no-gpu = 未发现 GPU（{ $sources }）
report-fit-source = { $name }：{ $detail }
report-fit-no-such-gpu = 没有 GPU { $device }（找到的是 { $found }）
report-fit-free-unknown = 无法检查：{ $device } 的空闲显存未知{ $why }
report-fit-replay = 能否放下（回放 { $file }，不是本机的实时数据）：
report-fit-on = 能否放进 { $device }：需要约 { $needed }（估算），空闲 { $free }，总量 { $total }（实测）-> { $verdict }
report-fit-on-overhead-unknown = 能否放进 { $device }：需要约 { $needed }（估算，额外开销未知），空闲 { $free }，总量 { $total }（实测）-> { $verdict }
report-fit-fits = 放得下，还剩 { $size }
report-fit-short = 放不下，还差 { $size }
report-fit-held-by = 目前占用者：
report-fit-unattributed = 未归属
report-fit-changes = 任选以下一项修改即可放下（每项都重新估算验证过）：
report-fit-col-change = 修改
report-fit-col-needs = 需要
report-fit-col-free = 空闲
report-fit-col-what = 作用

## explain：快照中记录的估算，以及运行时估算方法（vLLM、SGLang、PyTorch）的估算
report-recorded = 采集快照时记录的估算（{ $recipe }，模型 { $model }）：
report-recorded-context = 采集快照时记录的估算（{ $recipe }，模型 { $model }，上下文 { $context }）：
report-recorded-compute-buffers = 计算缓冲区
report-recorded-total-gpu = GPU 合计
report-runtime-recipe-model = 估算方法 { $recipe } · 模型 { $model }
report-runtime-input = { $name } = { $value }（{ $source }）
report-runtime-overhead = { $bytes }（{ $source }）
report-runtime-not-modelled = n/a（未纳入估算）
report-runtime-kv-holds = KV 缓存容量
report-runtime-tokens = { $n } 个 token
report-runtime-reports = 运行时报告（运行时自己的数字，不计入任何一本账）：
report-runtime-driver = （驱动）

## snapshot --group-by
report-groups-title = gpuledger snapshot --group-by { $by } · { $host } · { $taken }
report-groups-device = GPU{ $gpu }  { $name }  已用 { $used }
report-groups-by-pod = Pod
report-groups-by-namespace = 命名空间
report-groups-by-container = 容器
report-groups-by-job = 作业
report-groups-by-user = 用户
report-groups-by-unit = systemd 单元
report-groups-by-owner = 所属
report-groups-col-processes = 进程数
report-groups-unattributed = 未归属（驱动、系统、其他用户、未知进程）
report-groups-over-attributed = 超额归属（各进程之和超过设备实际用量）
report-groups-unattributed-unknown = 未归属：设备已用显存未知
report-groups-notes = 备注

## what a process is (the model's kinds that are words, not product names)
report-kind-browser = 浏览器
report-kind-compositor = 窗口合成器
report-kind-cuda-app = CUDA 程序
report-kind-graphics-app = 图形程序
report-kind-ollama-runner = Ollama 运行器
report-kind-unknown = 未识别

## explain: the kinds of evidence
report-evidence-executable = 可执行文件
report-evidence-cmdline = 命令行
report-evidence-library = 库
report-evidence-model-file = 模型文件
report-evidence-listening-port = 监听端口
report-evidence-parent = 父进程
report-evidence-http = HTTP 响应
report-evidence-log = 日志
report-evidence-gguf-header = GGUF 文件头
report-evidence-workload = 工作负载

## selftest (the sources' own findings stay as they wrote them)
report-selftest-title = gpuledger { $version } 自检 · { $host } · 内核 { $kernel }
report-selftest-title-wsl = gpuledger { $version } 自检 · { $host } · 内核 { $kernel } · WSL2
report-selftest-ok = 正常
report-selftest-not-found = 未找到
report-selftest-error = 错误
report-selftest-sees = 能看到：{ $what }
report-selftest-cannot-see = 看不到：{ $what }

## diff
report-diff-title = gpuledger diff · { $before }（{ $before_taken }）→ { $after }（{ $after_taken }）
report-diff-absent = 不存在
report-diff-appeared = 新出现
report-diff-gone = 已消失
report-diff-grew = 增加
report-diff-shrank = 减少
report-diff-unchanged = 未变
report-diff-unknown = 未知
report-diff-processes = 进程（实测）
report-diff-no-processes = 两个快照里都没有进程
report-diff-none-changed = 没有进程发生变化
report-diff-paired-by = 按 { $rule } 配对
report-diff-quiet = （另有 { $count } 个进程未变或未知；--all 会全部列出）
report-diff-devices = 设备（实测）
report-diff-device = { $device }  已用 { $used }  未归属 { $unattributed }
report-diff-estimates = 估算（计算得出，不是实测）

## history (its table's columns; the rows are figures)
report-history-col-time = 时间
report-history-col-used = 已用
report-history-col-free = 空闲
report-history-col-power-w = 功耗 W

# The machine's driver in the live view's title (`n/a` when no device says).
report-driver-item = 驱动 { $version }
report-context-mem-clock = 显存 { $clock }
report-context-pcie-below = PCIe { $now }（最高 { $max }）

## kill: the confirmation and the report's frame (the kill's own sentences stay as it wrote them)
report-kill-would = 将会：{ $text }
report-kill-at-ms = { $ms } ms
report-kill-waiting-in = 内核中等待于：{ $text }
report-kill-remedy = 可尝试：{ $text }
report-kill-now = 当前：{ $text }
report-kill-gpu-memory = 显存：{ $text }
report-kill-holds = { $bytes } 显存（实测）
report-kill-not-listed = 没有实测的显存占用
report-kill-unknown = 显存未知：{ $reason }
report-kill-about-to = 即将终止：
report-kill-target = PID { $pid } { $name }：{ $memory }
report-kill-target-user = PID { $pid } { $name }，用户 { $user }：{ $memory }
report-kill-target-workload = 工作负载：{ $what }（可信度：{ $confidence }）
# The answers stay y / yes in every language (what the program reads).
report-kill-ask-graceful = 终止 { $count } 个进程（先正常结束，宽限期过后强制结束）？[y/N]
report-kill-ask-forced = 立即强制终止 { $count } 个进程？[y/N]
report-kill-sensitive = { $why }。
report-kill-ask-yes = 仍要终止 PID { $pid }，请输入 'yes'：
report-kill-no-terminal = 没有可用于确认的终端；可用 --yes 预先确认；未发送任何信号
report-kill-not-confirmed = 未确认；未发送任何信号

## probe (its notes are the probe's own sentences)
report-probe-title = gpuledger probe：{ $device }（CUDA 设备 { $ordinal }），{ $total } 显存
report-probe-versions = 驱动 { $driver }，CUDA { $cuda }，{ $os }，测量于 { $at }
report-probe-context = 上下文开销：NVML 测得 { $first_nvml }（第一个上下文）；按驱动的空闲显存为 { $second_driver }，NVML 测得 { $second_nvml }（第二个上下文）
report-probe-col-method = 分配方式
report-probe-col-host-bytes = 主机字节数
report-probe-col-delta-driver = 显存变化（驱动）
report-probe-col-delta-nvml = 显存变化（NVML）
report-probe-col-ratio-driver = 比例（驱动）
report-probe-col-ratio-nvml = 比例（NVML）
report-probe-col-released = 已释放
report-probe-method-device = cuMemAlloc（设备内存，对照组）
report-probe-method-pinned = cuMemHostAlloc（锁页内存）
report-probe-method-devicemap = cuMemHostAlloc DEVICEMAP
report-probe-method-register = cuMemHostRegister
report-probe-released = 是，读取 { $reads } 次
report-probe-not-released = 否：读取 { $reads } 次后仍少 { $missing }
report-probe-note = 注：{ $text }
report-probe-saved = 已保存到 { $path }；estimate 和 explain 今后以“{ $label }”使用它

## verify (the verdicts, the paths' reasons and the notes are the judge's own sentences)
report-verify-replay = 回放 { $path }（记录于 { $taken_at }）
report-verify-title = gpuledger verify：PID { $pid } 分配并写入了 { $size }，位于 { $device }
report-verify-path = 路径 { $path }：{ $why }
report-verify-system-ledger = 按系统内存（GTT）判定：{ $why }
report-verify-expected-cpu = 预期：任何数据源都看不到：{ $device } 是 CPU 设备，它的内存就是主机内存（没有显存，也没有 GPU 计数器）。
report-verify-expected = 预期：子进程起初不存在，随后带着一个上下文出现，分配时 +{ $size }，释放时 -{ $size }，退出后消失；设备已用量随之变化；未归属量不变。容差 { $tolerance }（2 MiB 分配粒度加上驱动的簿记开销）。
report-verify-second-witness = [旁证]
report-verify-note = 注：{ $text }
report-verify-no-uuid = 无 UUID
report-verify-cuda-device = CUDA 设备 { $ordinal } { $name }（{ $uuid }），CUDA { $cuda }
report-verify-pci-unknown = 未报告
report-verify-vulkan-device = Vulkan 设备 { $ordinal } { $name }（{ $about }，PCI { $pci }），Vulkan { $vulkan }
report-verify-nothing = 这台机器上无法验证：
report-verify-needs-any = （verify 需要带 CUDA 或 Vulkan 驱动的 GPU）
report-verify-needs-cuda = （verify --path cuda 需要 NVIDIA GPU 及其驱动；--path vulkan 运行 Vulkan 工作负载）
report-verify-needs-vulkan = （verify --path vulkan 需要 Vulkan 加载器和 Vulkan 驱动；--path cuda 运行 CUDA 工作负载）

## kill: the sentences the kill writes (its outcome, steps, plan, remedies); --json carries the English
report-kill-refused-pid = 拒绝终止 PID { $pid }：{ $why }；未发送任何信号
report-kill-already-zombie = { $who } 已经退出，是僵尸进程：它不占用内存；只有它的父进程 { $parent } 能把它从进程表中移除（通过等待它）
report-kill-parent-unknown = （未知）
report-kill-dry-run-read = 刚刚读取；未发送任何信号（演练）
report-kill-dry-run = 对 { $who } 的演练：未发送任何信号；计划：{ $plan }
report-kill-dry-run-head = 对 { $who } 的演练：未发送任何信号
report-kill-unknown-state = 状态未知
report-kill-still-alive = { $signal } 之后 { $ms } ms，{ $who } 仍然存活（{ $state }）；见可尝试的补救办法
report-kill-gone = { $who } 已结束{ $detail }
report-kill-zombie-now = { $who } 已退出，现在是僵尸进程（不占用内存；算作已结束），直到它的父进程 { $parent } 回收它
report-kill-no-such-process = 没有 PID 为 { $pid } 的进程（它可能已经退出）
report-kill-who-why = { $who }：{ $why }
report-kill-cannot-read = 无法读取 PID { $pid }：{ $why }
report-kill-skipped-other = 已跳过 PID { $pid }：{ $why }，所以这个 PID 现在指向另一个进程（{ $name }）；未发送任何信号
report-kill-start-time-differs = 它的启动时间是 { $now }，而你选择的进程启动于 { $chosen }
report-kill-name-differs = 它的名称是 { $now }，不是 { $chosen }
report-kill-refused = 拒绝终止 { $who }：{ $why }；未发送任何信号
report-kill-needs-second = 不终止 { $who }：{ $why }。需要再次确认（--yes-really）才能继续；未发送任何信号
report-kill-exited-before = { $who } 在发送信号之前已自行退出
report-kill-cannot-open = 无法打开 { $who }：{ $error }
report-kill-reused = 已跳过 PID { $pid }：在检查和锁定之间它被 { $name } 重用了；未发送任何信号
report-kill-cannot-reread = 无法重新读取 { $who }：{ $error }
report-kill-not-read = 未读取：未发送任何信号
report-kill-no-reader = 未知：没有可用的显存读取方式
report-kill-step-suppressed = 被测试用的投递过滤器拦下（未发送）
report-kill-step-sent = 已发送
report-kill-step-sent-detail = 已发送 { $detail }
report-kill-step-not-sent = 未发送：{ $why }
report-kill-step-already-exited = 未发送：进程已经退出
report-kill-step-permission = 未发送：权限不足
report-kill-step-failed = 失败：{ $error }
report-kill-step-exited = { $ms } ms 后退出
report-kill-step-still-running = { $ms } ms 后仍在运行
report-kill-step-cannot-wait = 无法等待：{ $error }
report-kill-owner-user = 用户 { $user }（uid { $uid }）
report-kill-owner-uid = uid { $uid }
report-kill-owner-other = 其他用户（或以提升的权限运行）
report-kill-permission = 权限不足：PID { $pid }（{ $name }）属于 { $owner }，而 gpuledger 以 { $me } 身份运行；只有进程的所有者或管理员能向它发送信号。请以该用户身份运行 gpuledger，或使用 sudo / 在提升权限的提示符下运行。未发送任何信号。
report-kill-plan-send = 向 PID { $pid }（{ $name }）发送 { $signal }
report-kill-plan-continue = 发送 SIGCONT（它处于停止状态，继续运行之前无法响应 SIGTERM）
report-kill-plan-wait = 最多等待 { $ms } ms 让它退出
report-kill-plan-then-force = 如果它还没有退出，发送 { $signal }
report-kill-plan-wmi = 如果它在 TerminateProcess 之后仍然存活，请求 WMI 终止它
report-kill-plan-verify = 确认它在 { $ms } ms 内结束，否则报告它仍然存活
report-kill-plan-expect-denied = （预计权限不足：它属于 uid { $uid }，gpuledger 以 uid { $me } 运行）
report-kill-released = 已释放：它原先占用 { $bytes }，现在已不再列出
report-kill-not-released = 未释放：它原先占用 { $before }，{ $ms } ms 后仍列出 { $after }
report-kill-held-none = 终止之前它没有实测的显存占用
report-kill-release-unknown = 未知：{ $reason }
report-kill-still-listed = 仍列出 { $bytes }
report-kill-not-listed-after = 终止之后不再列出
report-kill-remedy-uninterruptible = 它处于不可中断睡眠{ $where }：只有该调用返回后，内核才会处理 { $signal }。如果它在等待 GPU 驱动，请让 GPU 上的工作完成，或重置 GPU：NVIDIA 用 `nvidia-smi --gpu-reset -i N`（仅当没有其他进程使用该 GPU 时）；AMD 以 root 运行 `cat /sys/kernel/debug/dri/N/amdgpu_gpu_recover`。
report-kill-remedy-wchan = （位于 { $wchan }）
report-kill-remedy-reload = 在没有其他程序使用时，卸载并重新加载 GPU 驱动模块。
report-kill-remedy-debugger = 它被调试器停住了：先让调试器脱离或结束调试器（ptrace），然后再终止一次。
report-kill-remedy-teardown = { $signal } 已发送，但内核还没有拆除完它（解除映射很大的地址空间或锁定的显存需要时间）：稍等后用 `gpuledger snapshot` 再检查。
report-kill-remedy-reboot = 重启：总是有效的补救办法。
report-kill-remedy-win-pending = { $signal } 已被接受，但进程还没有退出：Windows 会先让它完成未决的 I/O（通常是驱动调用）。请稍等后再检查。
report-kill-remedy-win-wmi = 在有 PowerShell 的地方，gpuledger 也请求了 WMI（Win32_Process.Terminate）；请以管理员身份重试：Get-CimInstance Win32_Process -Filter "ProcessId={ $pid }" | Invoke-CimMethod -MethodName Terminate
report-kill-remedy-win-reset = 如果它在等待 GPU 驱动：重置图形驱动（Win+Ctrl+Shift+B），或重启 Windows：总是有效的补救办法。
report-kill-remedy-mac-blocked = { $signal } 已发送，但进程还没有退出；它可能阻塞在内核中（例如在等待 GPU 驱动）。请稍等后再检查。
report-kill-remedy-mac-restart = 重启 Mac：总是有效的补救办法。

# Sentences in a row (a dry run's plan).
report-said-list = { $a }；{ $b }

# Sentences in a row, joined by report-said-list (a source's finding and the problems it met).
report-said-row = { $items }

## the sources' sentences (selftest, the snapshot's sources, the live view's warnings); JSON has the English
report-src-unknown = 未知
report-src-recording = 来自 { $path } 的 { $at } 样本
report-src-nvml-absent = 这个平台上没有 NVML
report-src-nvml-not-found = 未找到 { $name }（试过 { $tried }）：没有安装 NVIDIA 驱动，或者它不在库搜索路径上
report-src-nvml-no-init = { $path }：不是 NVML 库（没有 nvmlInit_v2 或 nvmlInit）
report-src-nvml-init-failed = { $path }：nvmlInit 失败：{ $message }（NVML 错误 { $code }）
report-src-nvml-ok = { $path }（驱动 { $driver }）：{ $count } 个设备，{ $procs } 个进程
report-src-procfs = { $root }：{ $count } 个 GPU 进程中有 { $seen } 个有元数据
report-src-drm-none = { $dir } 下没有 DRM 设备{ $why }，也没有进程打开 DRM 节点
report-src-drm-only-nvml = 除 NVML 报告的设备外没有 DRM 设备；已跳过 NVIDIA 设备上的 { $count } 个客户端（由 NVML 报告）
report-src-drm-unreadable = { $first }；{ $count } 个进程的文件描述符无法读取（权限不足；以 root 运行才能看到其他用户的进程）

## Sentences found while collecting (gpuledger_lang::Said): the snapshot's notes
report-note-pods-by-uid = { $count } 个 Kubernetes Pod 中的 GPU 进程按 Pod UID 显示：{ $why }
report-note-pid-namespace = gpuledger 运行在 PID 命名空间中（容器：{ $why }）；NVML 报告的是宿主机的 PID，与这里看到的 PID 对不上，因此 NVML 列出的进程可能没有名称，或被认成别的进程；要让两者对上，请在宿主机的 PID 命名空间中运行（docker --pid=host）
report-note-proc-unreadable = { $count ->
        [1] 1 个 GPU 进程的 /proc 条目无法读取：{ $first }
       *[other] { $count } 个 GPU 进程的 /proc 条目无法读取：{ $first }（还有其他）
    }
report-note-proc-unseen = { $count } 个 GPU 进程在 { $root } 中不可见（在本轮采集期间已退出，或在另一个 PID 命名空间中）
report-note-wsl2 = 运行在 WSL2 下：NVML 只给出设备总量，平台不提供每个进程的显存用量（由 Windows 管理）；NVML 列出的 PID 可能属于 Windows 宿主机
report-note-no-gpu = 所有数据源都没有找到 GPU（见 `gpuledger selftest`）
report-note-doubted-owners = { $count } 个 GPU 进程（PID { $pids }）所在的 cgroup 形似 Pod 或作业，却不在 kubelet 和 slurmd 的 cgroup 根目录下，因此按所在的用户或单元显示，而不算作 Pod 或作业：见 `explain PID`
report-note-replay-v1 = 从录制回放：录制中保存了每个设备的显存、GPU %、显存控制器 %、温度和功耗，以及每个进程的名称、用户、命令行、显存和 SM %；没有保存工作负载识别、估算、监听端口、所属（Pod、Slurm 作业、容器、单元）、ROCm /dev/kfd 使用、编码器/解码器 %、各数据源的读数、设备时钟、PCIe 链路和功耗上限，也没有保存（由较旧的 gpuledger 录制）系统内存和各类引擎的忙碌 %，以及每项使用的类型（C/G）
report-note-replay-v2 = 从录制回放：录制中保存了每个设备的显存、GPU %、显存控制器 %、温度和功耗，以及每个进程的名称、用户、命令行、显存、SM %、系统内存和各类引擎的忙碌 %；没有保存工作负载识别、估算、监听端口、所属（Pod、Slurm 作业、容器、单元）、ROCm /dev/kfd 使用、编码器/解码器 %、各数据源的读数、设备时钟、PCIe 链路和功耗上限，也没有保存（由较旧的 gpuledger 录制）每项使用的类型（C/G）
report-note-replay = 从录制回放：录制中保存了每个设备的显存、GPU %、显存控制器 %、温度和功耗，以及每个进程的名称、用户、命令行、显存、SM %、系统内存、各类引擎的忙碌 %，和最后一次识别出的工作负载、估算与类型（C/G）；没有保存监听端口、所属（Pod、Slurm 作业、容器、单元）、ROCm /dev/kfd 使用、编码器/解码器 %、各数据源的读数、设备时钟、PCIe 链路和功耗上限
report-note-drm-dedupe-rule = DRM 客户端按 (drm-pdev, drm-client-id) 去重：在多个文件描述符上打开的同一客户端只计一次；被多个进程共享的客户端只记在一个持有者名下（PID 1 和 systemd 的描述符持有者排在最后，其余取 PID 最小者），其他进程显示为 0 并附说明
report-note-drm-dedupe = { $rule }（{ $dup } 个客户端在同一进程的多个描述符上打开，{ $shared } 个由多个进程共享）
report-note-kfd-without-drm = { $count } 个进程打开了 /dev/kfd（ROCm）却没有打开 DRM 节点：无法归属它们的显存
report-note-fdinfo-line = { $path } 第 { $line } 行：{ $text }：{ $why }
report-drm-client = { $slot } 上的 { $id }
report-drm-client-fd = { $slot } 上，PID { $pid } 的 fd { $fd }
report-drm-shared-client = 与 PID { $owner } 共用 DRM 客户端（{ $client }），该客户端计入 PID { $owner }

## Why a process's name, user and command line are missing
report-meta-not-visible = 在此 /proc 中看不到：进程在本轮采集中已退出，或运行在另一个 PID 命名空间中（容器或宿主机）
report-meta-permission = 读取此进程的 /proc 时权限被拒绝
report-meta-unreadable = 无法读取 { $path }：{ $error }
report-note-fdinfo-more = 另有 { $count } 行格式错误的 fdinfo 未列出

## Why a figure is unknown (Usage::unavailable_reason, the engines' reason)
report-why-drm-no-memory-keys = 在这个内核上，{ $driver } 不在 fdinfo 中输出内存字段
report-why-drm-no-memory-keys-unnamed = 在这个内核上，驱动不在 fdinfo 中输出内存字段
report-why-drm-line-malformed = { $path } 第 { $line } 行格式错误，因此 { $region } 的数值未知
report-why-drm-malformed = { $path } 格式错误，因此 { $region } 的数值未知
report-why-engines-kfd = ROCm 计算（已打开 /dev/kfd）：amdkfd 驱动不在 fdinfo 中报告引擎时间，所以 GPU % 未知，而不是 0 %
report-why-engines-shared = 引擎时间记在持有该共享客户端的进程名下
report-why-engines-first = 这是该 DRM 客户端的第一次采样：引擎占用是一个速率，需要第二轮才能算出
report-why-nvml-wddm = 在 WDDM 下，NVML 报告每个进程的显存不可用（显存由 Windows 管理）
report-why-nvml-not-available = NVML 报告这个进程的显存不可用（没有权限的 MIG，或驱动没有跟踪）
report-why-wddm-no-instance = 这个进程没有 { $counter } 计数器实例
report-why-wddm-counter-invalid = { $counter }：计数器状态无效
report-why-wddm-new-instance = 此前没有这个进程引擎的 WDDM 读数（上一轮之后才出现）
report-why-wddm-no-engine = 这个进程没有 GPU Engine 计数器实例

## The kill guard rails' reasons (crates/actions kill::guard; the live view shares them)
report-guard-pid-zero = PID 0 不是单个进程（kill(2) 会向我们自己的进程组发送信号）
report-guard-pid-range = PID { $pid } 超出范围（它会成为负的 pid_t，那是向整个进程组发送信号）
report-guard-init = PID 1 是 init：终止它会让整个系统（或容器）停机
report-guard-windows-system = PID 4 是 Windows 的 System 进程
report-guard-self = 这是 gpuledger 自己
report-guard-ancestor = 这是 gpuledger 的父进程（启动它的 shell 或程序）
report-guard-kernel-thread = { $name } 是内核线程：信号无法结束它，它也不占用用户内存
report-guard-thread = { $pid } 是进程 { $tgid } 的一个线程，不是进程：要结束它，请终止 PID { $tgid }
report-guard-critical-flag = { $name } 被 Windows 标记为关键进程：终止它会让系统崩溃
report-guard-windows-critical = { $name } 是 Windows 的关键系统进程：终止它会让系统崩溃或注销当前用户
report-guard-ends-display = 看起来是显示服务器、窗口合成器或桌面外壳：终止它会结束整个图形会话及其中的所有窗口
report-guard-ends-shell = 是 shell 或会话进程（登录 shell、sshd、tmux、screen）：结束它可能会关闭你的终端会话及其中运行的一切
report-guard-session = { $name } { $ends }
report-guard-session-program = { $name }（其程序为 { $program }）{ $ends }
report-selftest-process-gap = 每个进程的显存：{ $reason }

## probe's notes (crates/cuda probe, the CLI's probe command)
report-probe-note-no-nvml = 看不到这个设备的 NVML 数据：NVML 各列和第一个上下文的开销未知
report-probe-note-device-wide = NVML 的已用显存是整个设备的：探测期间其他进程分配或释放的显存也会出现在 NVML 各列中
report-probe-note-not-released = 有些内存在 { $reads } 次读取（每次间隔 { $ms } ms）内没有重新显示为空闲；驱动可能稍后才释放
report-probe-note-nvml-not-loaded = 无法加载 NVML：{ $problem }

## the DRM round's finding (SourceStatus::detail of drm)
report-src-drm-round = { $devices } 个 DRM 设备（{ $names }），{ $clients } 个客户端{ $sysfs }，分布在 { $procs } { $entries ->
       *[other] 个进程
    }的 { $read } 个文件描述符上；已按 (drm-pdev, drm-client-id) 去重{ $remarks }
report-src-drm-no-sysfs = ；没有 sysfs 设备数据：{ $error }
report-src-drm-remarks = ；{ $items }
report-src-drm-vanished = { $count } 个文件描述符在本轮中被关闭
report-src-drm-skipped-nvml = 已跳过 NVIDIA 设备上的 { $count } 个客户端（由 NVML 报告）
report-src-drm-unreadable-procs = { $count } 个进程的文件描述符无法读取（权限不足；要看到其他用户的 GPU 使用需要 root）
report-src-drm-dxg = { $count } 个进程打开了 /dev/dxg（WSL2 GPU 半虚拟化：由 dxg 数据源测量，而不是 fdinfo）

## explain: what each piece of evidence showed (the JSON keeps this English; views drop the
## kind's own words in English, and the other languages are written without them)
report-said-comma = { $a }，{ $b }
report-ev-executable = { $path }
report-ev-process-name = 进程名 { $name }
report-ev-model-file = { $path }
report-ev-parent = { $name }（PID { $pid }）
report-ev-port = TCP 端口 { $port }
report-ev-library = { $what } { $path }
report-lib-ggml = llama.cpp / ggml 库
report-lib-mlx = MLX 库
report-lib-torch = PyTorch CUDA 库
report-lib-cuda = CUDA/HIP 运行时库
report-lib-graphics = 显卡驱动库
report-ev-in-cmdline = 命令行中有 { $what }
report-ev-browser-gpu = 浏览器的 GPU 进程（--type=gpu-process）
report-ev-ollama-runner = `ollama runner`，模型 { $model }
report-ev-llama-flags = llama.cpp 参数：{ $flags }
report-ev-flag-model = 模型 { $value }
report-ev-flag-context = 上下文 { $value }
report-ev-flag-gpu-layers = { $value } 层在 GPU 上
report-ev-flag-slots = { $value } 个槽位
report-ev-sglang-title = SGLang 进程标题 `{ $title }`
report-ev-vllm-engine = vLLM 引擎（vllm.entrypoints 或 VLLM:: 进程标题）
report-ev-descendant = PID { $pid } `{ $command }` 的后代进程，该进程运行 { $kind }
report-ev-runtime-names = 运行时称此模型为 { $name }
report-ev-gguf = 架构 { $arch }，{ $layers } 层，{ $size }
report-ev-vllm-metrics = vLLM 指标
report-ev-sglang-info = SGLang 服务信息
report-ev-sglang-info-tokens = SGLang 服务信息，max_total_num_tokens { $tokens }
report-ev-ollama-none = Ollama：未加载模型
report-ev-ollama-loaded = Ollama：已加载 { $n } 个模型（{ $names }）
report-ev-lmstudio-loaded = LM Studio：已加载 { $n } 个模型
report-ev-props-401 = HTTP 401：服务启动时设置了 API 密钥
report-ev-health-200 = HTTP 200（无需密钥）
report-ev-slots-busy = { $total } 个槽位中 { $busy } 个忙碌

## explain: what was looked for and not found
report-missing-model-named = 模型文件：命令行指定了 { $path }，但它未被映射也未打开（尚未加载，或未用 mmap 读取后已关闭）
report-missing-model = 模型文件：没有映射或打开的模型文件
report-missing-port = 监听端口：未找到（不是服务，或无法读取其套接字）
report-missing-unreadable = 无法读取 { $what }
report-facts-unreadable = { $path }：{ $why }
report-facts-permission-denied = 权限不足（其他用户的进程；请以该用户或 root 身份运行）
report-facts-exited = 进程已退出
report-facts-macos-pidpath = PID { $pid }：proc_pidpath 失败（其他用户的进程？）
report-facts-macos-not-read = 已加载的库、命令行和端口：macOS 上暂不读取
report-facts-windows-cmdline = 命令行：Windows 上不读取（模型参数只来自已加载的文件）
report-facts-windows-open = PID { $pid }：OpenProcess：{ $error }（其他用户的进程或受保护的进程）
report-facts-windows-modules = PID { $pid } 的模块：无法读取（拒绝访问，或 32/64 位不匹配）
report-missing-log = 运行时日志：{ $error }

## explain: how a process was placed in its workload
report-member-title = 其进程标题 `{ $title }`
report-member-rank-vars = /proc/{ $pid }/environ 中的 RANK 和 WORLD_SIZE
report-member-descendant = 一个后代进程
report-member-rooted = { $how }；工作负载的根进程是 PID { $root }（`{ $command }`），依据 /proc/{ $pid }/stat 的父进程链
report-member-rpc-client = PID { $client } 的 --rpc 指定了 127.0.0.1:{ $port }，此 rpc-server 正在该端口监听（/proc/{ $client }/cmdline、/proc/{ $pid }/net/tcp）
report-member-rpc-no-client = 本机没有 llama-server 在 --rpc 中指定它的端口：其客户端在别处或已退出
report-member-rpc-no-client-ports = 本机没有 llama-server 在 --rpc 中指定它的端口（{ $ports }）：其客户端在别处或已退出

## explain: why the runtime's own API was not asked, why no process figure
report-live-replay = 回放：不询问实时服务
report-live-no-probe = 指定了 --no-probe
report-live-other-netns = 未询问运行时的 API：该进程在另一个网络命名空间（容器）中运行，它的 127.0.0.1 不是本机的
report-live-not-server = 不是模型服务
report-live-no-port = 看不到该进程监听任何 TCP 端口
report-live-no-answer = 端口 { $ports } 上没有 { $kind } API 应答
report-explain-not-measured = 没有数据源报告此进程的显存
report-explain-deferred = 此进程自身不占显存：它所在工作负载的 { $holders } 持有模型，估算合计 { $total }（见“工作负载的进程”）

## kill: why the GPU memory a process holds is not known
report-kill-reason-not-reported = 没有报告它的显存
report-kill-reason-wsl = WSL2 不提供每个进程的显存
report-kill-reason-no-gpu = 没有任何数据源发现 GPU
report-kill-reason-no-gpu-why = 没有任何数据源发现 GPU（{ $why }）
report-kill-source-failed = { $name }：{ $detail }

## A workload member's role: its leading words (what follows, TP1/2 or DP0, as written)
report-role-node-helper = 引擎（node 辅助进程）
report-role-engine-core = 引擎核心
report-role-engine = 引擎
report-role-worker = 工作进程
report-role-scheduler = 调度进程
report-role-detokenizer = 反分词进程
report-role-runner = 运行器
report-role-rpc-device = RPC 设备
report-role-child = 子进程
report-explain-member = { $role }：{ $how }

## verify: each source's verdict in words (the record keeps the English)
report-verify-ok = 正常
report-verify-off-by = 在“{ $step }”一步偏差 { $by }
report-verify-source-per-process = { $name }（按进程）
report-verify-source-device-used = { $name }（设备已用）
report-verify-source-unattributed = 未归属
report-verify-source-unattributed-of = 未归属 { $name }
report-verify-off-at = 在“{ $step }”一步有偏差
report-verify-off-why = { $off }（{ $why }）
report-verify-cannot-see = 看不到（{ $why }）
report-verify-step-idle = 空闲
report-verify-step-context = 创建上下文
report-verify-step-allocated = 分配后
report-verify-step-freed = 释放后
report-verify-step-exited = 退出后
report-verify-step-allocate = 分配
report-verify-step-free = 释放
report-verify-step-exit = 退出
report-verify-never-listed = 它从未列出子进程
report-verify-why-lag = 它慢了一轮：每一步显示的是上一步应有的数值
report-verify-why-twice = 约为分配量的两倍：这部分显存被重复计算
report-verify-why-no-show = 分配完全没有体现出来
report-verify-why-still-listed = 进程结束后仍被列出
report-verify-used-unknown = 设备的已用显存未知
report-verify-unattributed-unknown = 设备已用量未知，或各进程之和超过了它
report-verify-why-unaccounted = 按进程统计的数字没有如实反映子进程的显存
report-verify-no-rss = 工作负载没有报告常驻内存：只在 Linux 上读取
report-verify-cpu-device = 看不到：CPU 设备（{ $driver }）没有显存
report-verify-no-device = 没有数据源报告设备 { $uuid }
report-verify-smi-not-run = 未运行（只有 CUDA 路径会询问 nvidia-smi 作为旁证）
report-verify-not-installed = 未安装（{ $tool } 不在 PATH 上）

## selftest: the saved probe result
report-probe-missing = { $path } 处没有 probe 结果（运行 `gpuledger probe --save` 测量本机的上下文和锁页内存开销）
report-probe-present = { $at } 的 probe 结果（{ $age }前），设备 { $device }，位于 { $path }
report-probe-unreadable = probe 结果无法读取：{ $error }
report-probe-no-dir = 没有 probe 结果：没有数据目录（请设置 XDG_DATA_HOME 或 HOME）
report-age-days = { $n } 天
report-age-hours = { $n } 小时
report-age-minutes = { $n } 分钟
report-age-seconds = { $n } 秒

## history: a recording that is not there
report-history-no-recording = 没有这个录制（用 `gpuledger record` 开始录制）

## estimate --fit-advice: what a change does
report-fit-other-device = 改用 { $device }
report-fit-first-experts-on-host = 把前面几层的专家放在主机上
report-fit-most-that-fits = 能放下的最大值

## snapshot --group-by: the group of processes without such an owner, and other fixed labels
report-groups-outside-pod = 不在 Kubernetes Pod 中
report-groups-outside-container = 不在容器中
report-groups-outside-job = 不在 Slurm 作业中
report-groups-outside-user = 用户未知
report-groups-outside-unit = 不在 systemd 单元中
report-groups-outside-owner = 所属未知（cgroup 无法读取，或是根 cgroup）
report-groups-namespace-unknown = 命名空间未知（kubelet 无法给出 Pod 的名称；见附注）
report-pod-names-unavailable = Pod 名称和命名空间来自 kubelet，而这里没有询问它；Pod UID 来自 cgroup 路径
report-kubelet-no-log-link = 没有容器日志链接指向它的容器 ID
report-kubelet-logs-unreadable = 容器日志链接无法读取（{ $error }）
report-kubelet-uid-only = 只有 Pod UID：{ $logs }；{ $error }
report-kubelet-uid-only-shared = 只有 Pod UID：{ $logs }，而且它使用的 GPU 没有恰好分配给 kubelet 列出的某一个 Pod（共享的 GPU，或没有通过设备插件分配）
report-groups-user = 用户 { $name }
report-groups-namespace = 命名空间 { $name }

## Windows (WDDM) and WSL (/dev/dxg): what the counters could not say
report-wddm-paired-alone = WDDM 适配器 { $adapter } 没有来自 D3DKMT 的 PCI 地址；用排除法与唯一的 NVML 设备配对
report-wddm-dedicated-usage = 每进程显存来自 Dedicated/Shared Usage：{ $why }
report-wddm-luid-not-in-dxgi = 适配器 LUID { $luid } 出现在 GPU 计数器中，却不在 DXGI 的适配器列表里；显示时没有名称和总量
report-wddm-basic-render = 已略去 Microsoft Basic Render Driver（软件适配器）上的 { $count } 条进程记录：那是 CPU 在系统内存中渲染
report-wddm-instances-skipped = { $path }：跳过了 { $count } 个实例名称，例如 { $example }
report-wddm-no-dxgi = 无法取得 DXGI 适配器列表（{ $error }）：适配器按 LUID 显示，没有名称和总量
report-wddm-over-attributed = { $device }：各进程的 WDDM 数值加起来比适配器实际使用的多 { $over }：共享表面会计入每个映射它的进程（{ $who }承载桌面的表面）；条形按总和缩放，标签保留每个进程自己的数值
report-wddm-carriers-usual = 通常是 dwm.exe 和 csrss.exe
report-wddm-carriers-here = 这里是 { $list }
report-dxg-buffers-skipped = /dev/dxg：跳过了 { $count } 个统计缓冲区，例如 { $example }
report-dxg-no-process-stats = WSL 中无法取得每进程的 GPU 统计：{ $why }
report-dxg-paired-alone = /dev/dxg 适配器用排除法与唯一的 NVML 设备配对（WSL 不提供 PCI 地址）

## macOS (IOKit): what the registry could not say
report-iokit-no-statistics = IOAccelerator { $class } 没有 PerformanceStatistics；已略去
report-iokit-clients-left-out = 已略去 { $count } 个没有可读 IOUserClientCreator 的 GPU 用户客户端
report-iokit-alloc-as-used = { $class }：没有 "In use system memory"；已用 = "Alloc system memory"

## verify: what became of each workload path
report-verify-path-cannot-start = { $api } 工作负载无法启动：{ $why }
report-verify-path-ran-first = 已运行（--path auto：第一个能启动的）
report-verify-path-ran-cuda-first = 已运行（--path auto：先尝试 CUDA）
report-verify-path-ran-asked = 已运行（由 --path 指定）
report-verify-path-not-tried = 未尝试：已运行 { $ran } 路径（--path { $other } 会运行这一个）
report-verify-path-not-asked = 未要求（--path { $ran }）

## The values people type (durations, sizes, times): what was wrong and what is accepted
report-parse-not-a-duration = { $value } 不是时长（可写 500ms、2s、1.5s、5m、1h、7d 或秒数）
report-parse-below-minimum = { $value } 低于下限 { $bound }
report-parse-above-maximum = { $value } 超过上限 { $bound }
report-parse-not-a-size = { $value } 不是大小（可写 512MiB、8GiB、4096 等）
report-parse-unknown-unit = { $value }：未知单位 { $unit }（可用 B、KiB、MiB、GiB、TiB、KB、MB、GB、TB）
report-parse-too-large = { $value } 太大
report-parse-not-rfc3339 = { $value } 不是 RFC 3339 时间（如 2026-11-29T08:00:00Z）
report-parse-before-1970 = { $value } 早于 1970 年
report-parse-not-a-time = { $value } 既不是 RFC 3339 时间（2026-11-29T08:00:00Z），也不是“多久以前”的时长（1h、30m、7d）

## watch --alert: what is wrong in an alert expression (the expression and a caret follow)
report-alert-at-column = { $message }（第 { $column } 列）
report-alert-not-a-number = { $value } 不是数字
report-alert-unexpected-character = 意外的字符 { $char }
report-alert-unexpected-comparison = 意外的字符 { $char }（比较符为 >、>=、<、<=）
report-alert-unknown-field = 未知字段 { $name }（可用字段：{ $fields }）
report-alert-field-after = 此处之后应有一个字段
report-alert-expected-field = 此处应为字段（{ $fields } 之一）
report-alert-expected-comparison = { $field } 之后应为 >、>=、< 或 <=
report-alert-expected-value = { $field } 缺少取值
report-alert-no-or = 不支持 "or"：每个备选条件请各用一个 --alert
report-alert-expected-and = 此处应为 "and" 或表达式结束
report-alert-bare-number = { $field }：不带单位的数字会被当作字节；请写设备总量的百分比（如 { $n }%）或大小（如 { $n }GiB）
report-alert-expected-size = { $field }：应为大小（如 8GiB）或设备总量的百分比（如 90%），而不是 { $value }
report-alert-expected-celsius = { $field }：应为摄氏度（如 85），而不是 { $value }
report-alert-expected-watts = { $field }：应为瓦数（如 300），而不是 { $value }
report-alert-expected-percentage = { $field }：应为百分比（如 90），而不是 { $value }

## GGUF headers: what is wrong with a model file (the file's name comes first)
report-gguf-error = { $file }：{ $message }
report-gguf-cannot-open = 无法打开：{ $error }
report-gguf-cannot-stat = 无法读取文件信息：{ $error }
report-gguf-not-gguf = 不是 GGUF 文件（开头不是 "GGUF"）
report-gguf-byte-swapped = 版本号 { $version } 的字节序像是反的：不支持大端序的 GGUF 文件
report-gguf-version-1 = 已不再支持 GGUF 版本 1（llama.cpp 也拒绝它）
report-gguf-version = 不支持的 GGUF 版本 { $version }（已知的是 2 和 3）
report-gguf-split-pattern = split.count 为 { $count }，但文件名不符合 NAME-00001-of-{ $padded }.gguf 的格式，因此找不到其他分片
report-gguf-split-count = split.count 为 { $count }，但文件名表明共有 { $parts } 个分片
report-gguf-split-no = split.no 为 { $no }，但这是 { $count } 个分片中的第 { $part } 个
report-gguf-exabytes = 加上这个文件，模型超过 4 EiB（2^62 字节）：没有磁盘能装下这样的大小，未读取
report-gguf-truncated = { $field }：文件在 { $len } 字节处结束，还需要 { $more } 字节（文件被截断？）
report-gguf-reading = 读取 { $field } 时出错：{ $error }
report-gguf-eof = { $field }：文件意外结束
report-gguf-header-too-long = { $field }：文件头已超过 { $limit }（目前已读取），远超任何真实模型的文件头
report-gguf-skip-too-large = 要跳过的长度太大
report-gguf-seeking = 定位时出错：{ $error }
report-gguf-too-big = { $what } 超出了一个 { $size } 文件能容纳的大小
report-gguf-too-big-rest = { $what } 超出了 { $size } 文件剩余 { $left } 能容纳的大小
report-gguf-what-length = { $field } 的长度 { $n }
report-gguf-what-array = { $field }：包含 { $len } 个 { $type } 元素的数组
report-gguf-length-limit = { $field } 的长度 { $n } 超过上限 { $max } 字节
report-gguf-value-type = { $field }：未知的元数据值类型 { $id }
report-gguf-nested = { $field }：数组嵌套超过 { $depth } 层
report-gguf-alignment = general.alignment 必须是以 u32 存储的非零 2 的幂，实际为 { $value }
report-gguf-dims = { $field } 有 { $n } 个维度（ggml 最多允许 { $max } 个）
report-gguf-negative = { $field } ne[{ $d }] 为负数（{ $ne }）
report-gguf-type-id = { $field } 的 ggml 类型 ID { $id } 未知
report-gguf-type-dropped = { $field } 使用 ggml 类型 { $type }（ID { $id }），ggml 已不再支持该类型
report-gguf-dims-overflow = { $field } 的维度 { $dims } 溢出
report-gguf-row-length = { $field } 的行长度 { $ne0 } 不是 { $type } 块大小 { $block } 的整数倍
report-gguf-size-overflow = { $field } 的大小溢出
report-gguf-offset-alignment = 张量 '{ $name }' 的偏移 { $offset } 不是对齐值 { $alignment } 的整数倍
report-gguf-beyond-end = 张量 '{ $name }'（数据偏移 { $offset } 处的 { $bytes } 字节）超出了 { $size } 文件的末尾（下载不完整？）
report-gguf-count-negative = { $field } 为负数（{ $n }）
report-gguf-count-too-big = { $field } { $n } 超出了一个 { $size } 文件能容纳的数量
report-gguf-count-limit = { $field } { $n } 超过上限 { $max }

## verify: why the workload stopped, the guard rails' question and refusals, the record's notes
report-verify-workload-gone = 工作负载进程已不存在
report-verify-workload-unreadable = 工作负载的输出无法读取：{ $error }
report-verify-workload-ended = 工作负载进程在“{ $step }”步骤之前就结束了
report-verify-not-written = 驱动没有 cuMemsetD8：分配的内存只被预留，没有被写入
report-verify-cleanup-failed = 退出时的清理失败：{ $error }
report-verify-ambiguous-device = 在 --path auto 下，--device { $n } 是 CUDA 序号，但 CUDA 无法启动，而 Vulkan 加载器按自己的方式给它的 { $count } 个设备编号（{ $n }：{ $name }（{ $type }）；另有 { $others }）；请用 --path vulkan --device M 重新运行，从中选择一个
report-verify-the-device = 该设备
report-verify-device-label = { $api } 设备 { $ordinal }（{ $name }）
report-verify-cpu-device-unverifiable = { $device } 是 CPU 设备（{ $driver }）：它的内存就是主机内存，任何 GPU 数据源都看不到；没有分配任何内存（--size 不超过其堆的 10 %，或加 --yes，仍会运行整个流程，以便在工作负载自己的内存中显示这次分配）
report-verify-no-answer = 没有得到回答：{ $error }
report-verify-release-late = { $step }：又过了 { $rounds } 轮（每轮间隔 { $ms } 毫秒）才显示出释放
report-verify-release-missing = { $step }：又过了 { $rounds } 轮仍未显示出释放
report-verify-room-heap = 它的堆
report-verify-room-heap-amount = { $bytes }，驱动没有报告内存预算
report-verify-room-free = 空闲显存
report-verify-room-free-amount = 空闲 { $bytes }
report-verify-room-unknown = { $device } 的空闲显存未知，因此没有 --yes 时 verify 不会在那里分配 { $size }
report-verify-does-not-fit = { $size } 放不下：{ $device } 有 { $amount }，verify 最多使用其中的 90 %；请选择更小的 --size
report-verify-needs-yes = 在 { $device } 上分配 { $size } 超过了{ $what }（{ $amount }）的 10 %；请加 --yes 允许（没有可以提问的终端）
report-verify-ask = 在 { $device } 上分配 { $size }？这超过了{ $what }（{ $amount }）的 10 %。[y/N]{ " " }
report-verify-not-confirmed = 未确认；没有分配任何内存
report-verify-rederived-differ = 重新推导的判定与保存的判定不同：{ $sources }
report-verify-stopped-early = 提前停止：{ $why }
report-verify-failed = 失败：{ $why }
report-verify-no-device-reported = 工作负载没有报告设备
report-verify-no-cuda-uuid = CUDA 驱动没有给出设备 UUID，因此无法把它的设备与各数据源报告的设备对应起来
report-verify-vulkan-unmatched = 没有数据源报告 Vulkan 设备 { $ordinal }（{ $name }；PCI { $pci }，UUID { $uuid }）
report-verify-gtt-no-vram = 该设备没有报告显存，因此它的设备本地堆是系统内存（GTT）
report-verify-gtt-heap = 设备本地堆（{ $heap }）大于设备的显存（{ $vram }），因此它是系统内存（GTT）
report-verify-no-reason = 没有给出原因
report-verify-no-gtt = 数据源没有报告这个进程的系统内存（GTT）
report-verify-pid-unknown = 工作负载的 PID 未知
report-verify-tool-not-run = 未运行
report-verify-pci-unknown-not-asked = 设备的 PCI 地址未知，因此无法向该工具查询它
report-verify-pci-address-unknown = 设备的 PCI 地址未知
report-verify-tool-exited = { $tool } 退出，状态 { $code }：{ $line }
report-verify-not-json = { $query }：不是其文档所示的 JSON（{ $error }）；其输出原样保存在记录中
report-verify-not-json-cut = { $query }：不是其文档所示的 JSON（{ $error }，且输出在 { $size } 处被截断）；其输出原样保存在记录中
report-verify-shape = { $query }：{ $what }；其输出原样保存在记录中
report-verify-shape-not-gpus = 不是 GPU 列表
report-verify-shape-no-process-list = 有 GPU 没有 process_list
report-verify-shape-not-object = 不是对象
report-verify-shape-system = "system" 不是对象
report-verify-shape-no-proc-list = 没有 device_util_by_proc_list
report-verify-shape-gpus = 为 --gpu { $bdf } 列出了 { $count } 块 GPU
report-verify-not-process-query = 不是进程查询
report-verify-not-device-query = 不是设备查询
report-verify-tool-prints = { $tool } 输出的是 { $value }
report-verify-tool-prints-no = { $tool } 没有输出 { $field }
report-verify-no-card = rocm-smi 没有列出 PCI { $bdf } 上的卡
report-verify-no-xpum = xpu-smi 没有报告 XPUM_STATS_MEMORY_USED
report-verify-tool-missing = { $tool } 未安装（不在 PATH 中）
report-verify-tool-cannot-run = 无法运行 { $program }：{ $error }
report-verify-tool-timed-out = { $tool } 在 { $seconds } 秒内没有回应（已停止；已保存它的输出）
report-verify-not-asked-again = 不再询问：{ $why }

## probe (and verify's CUDA path): why the driver could not be used or the probe stopped
report-probe-err-load-open = 无法加载 CUDA 驱动库 { $path }：{ $cause }（是否安装了 NVIDIA 驱动？--cuda-lib PATH 可从其他位置加载）
report-probe-err-load-symbol = CUDA 驱动库 { $path } 中没有符号 { $symbol }：{ $cause }
report-probe-err-no-sizes = 没有要测量的大小
report-probe-err-zero-size = 无法测量 0 字节的大小
report-probe-err-host-unknown = 无法得知主机空闲内存有多少（{ $why }），因此 probe 不会锁定任何内存
report-probe-err-host-too-small = 拒绝锁定 { $size }：主机只有 { $available } 可用内存（{ $source }），probe 最多锁定其中一半；请选择更小的 --sizes
report-probe-err-vram-too-small = 拒绝分配 { $size }：设备 { $device } 只有 { $free } 空闲显存，probe 最多使用其中的 90%；请选择更小的 --sizes
report-probe-err-no-devices = CUDA 驱动没有报告任何设备
report-probe-err-bad-device = 没有 CUDA 设备 { $ordinal }：驱动报告了 { $count } 个（序号 0 到 { $last }）
report-probe-err-context = 无法在设备 { $device }（{ $name }）上创建 CUDA 上下文：{ $cause }。可能有其他进程以独占模式占用该设备，或者驱动处于异常状态
report-probe-err-out-of-memory = 内存不足：{ $size } 的 { $step } 失败：{ $cause }。probe 分配的一切都已释放；请选择更小的 --sizes
report-probe-err-host-alloc = 无法分配 { $size } 的普通主机内存用于注册
report-probe-err-interrupted = 已中断；probe 分配的一切都已释放
report-selftest-version = 版本 { $version }

# gpuledger plot: the chart's words (data-* attributes stay English).
report-plot-no-samples = 所选时间范围内没有样本
report-plot-used = 已用
report-plot-gpu-right-axis = GPU %（右轴）
report-plot-total-dashed = 显卡总量 { $total }（虚线）
report-plot-total-above = 显卡总量 { $total }（超出刻度）
report-plot-total-na = 显卡总量 n/a
report-plot-other-processes = 其他进程
report-plot-unattributed = 未归属（驱动/系统/其他用户）
report-plot-time-range = { $from } → { $to }（UTC）

# watch's event lines and the live view's active alerts (the expression and field names stay as written).
report-alert-firing = 触发
report-alert-resolved = 解除
report-alert-subject-process = { $device } 上的 { $name }（PID { $pid }）
report-alert-of-total = { $value }（占总量 { $percent }%）
report-alert-gone = 已不存在

## Where a runtime's flags were read; owners not taken at their word; --group-by's errors; several GPUs
report-owner-shape-pod = Kubernetes Pod 的路径（kubepods…）
report-owner-shape-job = Slurm 作业的路径（job_<id>）
report-owner-doubt-delegated = cgroup 路径形似 { $what }，却位于委派给用户的 systemd 子树（{ $manager }）中，该用户可在其中创建任意 cgroup：按该用户显示
report-owner-doubt-not-kubelet = cgroup 路径形似 { $what }，却不在 kubelet 的 cgroup 根目录（/kubepods、/kubepods.slice、kind 节点的 /kubelet）下：不算作 Pod
report-owner-doubt-not-slurmd = cgroup 路径形似 { $what }，却不在 slurmd 的 cgroup 根目录（/slurm、/slurm_<node>、/system.slice/slurmstepd.scope）下：不算作 Slurm 作业
report-err-not-grouping = { $given } 不是分组方式：请使用 { $choices } 之一

## The kubelet source's status (sources/owner/kubelet)
report-kubelet-api-error = kubelet pod-resources API（{ $path }）：{ $error }
report-kubelet-no-socket = kubelet pod-resources API：{ $path } 处没有套接字（不是 Kubernetes 节点，或者 kubelet 的 pod-resources 目录没有挂载到这里）
report-kubelet-refused = kubelet pod-resources API：{ $path }：连接被拒绝（没有程序在监听：kubelet 没有运行，或者套接字是残留的旧文件）
report-kubelet-denied = kubelet pod-resources API：{ $path }：权限不足（套接字属于 root；请以 root 运行，或授予该用户访问权限）
report-kubelet-mig-unmatched = { $n } 个 MIG 设备 ID 无法匹配到 GPU（NVML 没有列出这些 MIG 设备：MIG 未启用，或者驱动不支持 MIG 相关调用）
report-kubelet-driver-unreadable = 无法读取驱动的 GPU 列表：{ $error }
report-kubelet-no-gpu-node = 没有 GPU 对应该设备节点
report-kubelet-node-unmatched = { $n } 个设备节点 ID（GKE）无法匹配（{ $why }）
report-kubelet-allocatable-failed = GetAllocatableResources 失败：{ $error }
report-kubelet-allocatable = { $n } 个可分配的 GPU 设备 ID
report-kubelet-ok = 列出了 { $pods } 个 Pod，{ $gpus }；{ $named } 个 GPU 进程查到了 Pod 名称，{ $unnamed } 个只有 Pod UID
report-kubelet-unavailable = { $error }；{ $named } 个 GPU 进程通过容器日志链接查到了 Pod 名称，{ $unnamed } 个只有 Pod UID
report-kubelet-connect-failed = kubelet pod-resources API：{ $error }
