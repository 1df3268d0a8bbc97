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
cli-about-verify = 验证这些数字：运行一个已知的负载（创建上下文、分配 N 字节、释放、退出），检查每个数据源在每一步看到了什么
cli-about-completions = 输出 shell 补全脚本（bash、zsh、fish、powershell、elvish）
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
cli-err-not-snapshot = { $path }：不是有效的快照
cli-err-at-needs-replay = --at 需要配合 --replay RECORDING.db（`gpuledger record` 录制的数据库）使用
cli-err-at-snapshot-file = --at 用于选择录制中的某个时刻，但 { $path } 是快照文件
