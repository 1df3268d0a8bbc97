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
