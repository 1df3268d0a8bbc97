# The browser page (crates/serve/assets), zh-CN: keys start with page-. The HTML's are filled in
# by the server, the script's come with /api/v1/words; values stay as {$name} for the page.

## header and status
page-loading = 加载中…
page-loading-snapshot = 正在加载快照…
page-language = 语言
page-noscript = 此页面需要 JavaScript。相同的数据：
page-on-host = 主机 { $host }
page-unknown-host = 未知主机
page-host-not-collected = 主机 CPU 和内存：未采集
page-replay-banner = 回放 { $path }（录制于 { $at }，不是本机的实时数据）
page-status-failed = 自 { $time } 起无法连接 gpuledger serve：显示最后一次快照，正在重试
page-status-replay = 回放 · 快照 { $at }
page-status-live = 实时 · 每 { $seconds } 秒 · 快照 { $at }
page-status-cannot-load = 无法加载快照（{ $error }）；正在重试
page-footer = 只读。相同的数据：

## headings
page-devices = 设备
page-processes = 进程
page-measured-by-driver = 由驱动实测
page-filter = 筛选
page-filter-placeholder = PID、用户、名称、模型…
page-table-help = ↑ ↓ 移动，Enter 查看原因，/ 筛选；点击表头排序。
page-why-heading = 为什么占用这么多？
page-why-select = 选择一个进程，查看其实测、报告和估算的显存以及依据。
page-curves-heading = 显存和 GPU% 随时间变化
page-notes-heading = 备注及未能看到的内容
page-sources = 数据源
page-notes-nothing = 无：所有数值均已读取。

## device cards
page-card-used = 已用
page-others = 其他（{ $count } 个进程）
page-others-na = 其他（{ $count } 个进程，其中 { $na } 个为 n/a）
page-others-title = 所有进程都在下方的表格中。
page-bar-no-total = 无条形图：设备总显存未知
page-bar-others = 其他，{ $count } 个进程：{ $bytes }
page-bar-unattributed = 未归属：{ $bytes }
page-bar-label = GPU{ $gpu } 的显存账目
page-unattributed = 未归属（驱动、系统、其他用户、未知进程）
page-over-attributed = 超额归属
page-over-attributed-note = 各进程合计比设备实际使用多 { $bytes }（共享的显存被计入多个进程）；条形图已按比例缩放，标签为原始数值。
page-stat-mem-pct = 显存%
page-stat-temp = 温度
page-stat-power = 功耗
page-stat-processes = 进程合计
page-ctx-driver = 驱动
page-ctx-link = { $now }（最高 { $max }）
page-ctx-clocks = 频率
page-ctx-clock-values = SM { $sm } · 显存 { $memory }
page-ctx-power-state = 电源状态
page-ctx-not-collected = gpuledger 尚未采集：CUDA 版本、风扇、P-state、ECC、MIG。
page-no-gpu = 未找到 GPU。`gpuledger selftest` 会说明每个数据源查找了什么。

## process table
page-group-members = { $count } 个进程
page-table-no-match = 没有进程符合筛选条件。
page-table-empty = 数据源看不到任何占用显存的进程。

## why this much
page-col-measured = 实测
page-col-measured-by = 由驱动
page-col-reported = 报告
page-col-reported-by = 由运行时
page-col-estimated = 估算
page-col-estimated-by = 由估算方法
page-nothing-recorded = 无记录
page-no-estimate = 无估算
page-no-estimate-unread = 无法读取模型或设置（`gpuledger explain { $pid }` 会说明原因）。
page-no-recipe = 不是 gpuledger 有估算方法的 AI 运行时。
page-total-gpu = GPU 合计
page-context = 上下文 { $n }
page-floor = 有一部分未知：合计只计入已知部分。
page-part-weights = 权重
page-part-kv-cache = KV 缓存
page-part-compute = 计算缓冲区
page-part-overhead = 额外开销
page-parts-label = 估算的各部分
page-not-identified = 未识别。
page-evidence = 依据
page-evidence-kind = { $kind }：
page-confidence = 可信度 { $level }
page-missing = 缺少：
page-member = 属于一个工作负载：{ $role }（{ $evidence }）
page-member-of = 属于一个工作负载：PID { $pid } 的 { $role }（{ $evidence }）
page-gone = PID { $pid } 已退出。
page-why-pid = PID { $pid } · { $user }
page-no-runtime-figure = 这里没有运行时给出的数值（使用了 --no-probe，或没有应答）：`gpuledger explain { $pid }` 会询问正在运行的服务（/props、/api/ps、/metrics）并读取其日志（--log）。
page-why-label = 原因：
page-not-modelled = 未建模：{ $what }
page-overhead-source = 额外开销：{ $source }
page-fact-command = 命令
page-fact-owner = 所属
page-fact-started = 启动于
page-fact-container = 容器
page-fact-listening = 监听端口

## curves
page-curve-used = GPU{ $gpu } 已用
page-curve-card-total = 显卡总量
page-curve-label = GPU{ $gpu } 的显存和 GPU% 随时间变化
page-curve-one-sample = 1 个样本
page-curve-samples = { $count } 个样本
page-curve-replay = 回放只有一个时刻：没有曲线
page-curve-next-round = 曲线从下一轮采集开始
page-curve-point = 将指针移到曲线上可读取某一时刻的数值。
page-ago-min = −{ $n } 分钟
page-ago-s = −{ $n } 秒
page-latest = 最新
page-no-samples = 尚无样本
page-curve-total = 总量 { $bytes }

## measured vs estimated
# A workload's measured-vs-estimated gap in a member's why pane ($text: report-vs-with-cause).
page-gap-workload = 该工作负载的 { $count } 个进程合计：{ $text }
