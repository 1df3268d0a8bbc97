# The live view (crates/tui), zh-CN: keys start with tui-, the same keys and values as en/tui.ftl.
# Terms from GLOSSARY.md (显存, 进程, 估算, 未归属, 回放); figures and key names stay as written.

## Title line and the notes under it
tui-title-replay = 回放 {$src}
tui-title-remote = 远程 {$url}（只读）
tui-title-stale = 数据过时 {$secs} 秒
tui-title-collecting = 正在采集第一轮…
tui-title-every = 每 {$interval} 刷新
tui-title-sort = 排序 {$column} {$arrow}
tui-title-per-gpu = 按 GPU 分组
tui-title-tree = 树状
tui-title-filter = 筛选：{$filter}
tui-title-machine = CPU {$cpu} 内存 {$ram}
tui-title-help = ? 帮助
tui-note-alert = 告警 {$alert}
tui-note-stale-nothing = {$secs} 秒内没有新一轮数据：某个数据源没有响应；尚未采集到任何数据
tui-note-stale-from = {$secs} 秒内没有新一轮数据：某个数据源没有响应；显示的是 {$time} 的数值
tui-note-over-attributed = GPU{$gpu}：各进程之和比设备已用显存多 {$bytes}（共享内存在每个进程中都计入）· 条形已归一化，标签为原始值
tui-not-live-replay = {$src} 的回放
tui-not-live-remote = {$url} 的远程视图

## Device cards
tui-cards-waiting = 正在等待第一轮采集…
tui-no-gpu = 未找到 GPU（原因见 `gpuledger selftest`）
tui-no-gpu-sample = 未找到 GPU（原因见 `gpuledger selftest`）；示例机器：gpuledger --replay examples/sample-snapshot.json
tui-cards-more = 还有 {$n} 个设备：请放大终端，或运行 `gpuledger snapshot`
tui-card-mem = 显存
tui-temp-na = 温度 n/a
tui-power-no-limit = {$watts} W / 功耗上限 n/a
tui-power-na = 功耗 n/a
tui-books-processes = 进程 {$bytes}
tui-books-unattributed = 未归属 {$bytes}
tui-books-unattributed-na = 未归属 n/a
tui-books-over = 超额归属（共享）
tui-compact-procs = 进程 {$bytes} · {$unattr}
tui-compact-unattr = 未归属 {$bytes}
tui-compact-unattr-na = 未归属 n/a
tui-compact-over = 超额归属

## The process table
tui-col-dev = 设备
tui-col-pid = PID
tui-col-user = 用户
tui-col-owner = 所属
tui-col-name = 名称
tui-col-workload = 工作负载
tui-col-type = 类型
tui-col-memory = 显存
tui-col-sm = SM%
tui-col-cpu = CPU%
tui-col-rss = RSS
tui-col-ram = 内存%
tui-col-time = 时长
tui-col-command = 命令
tui-table-hidden = 第 {$first}–{$last} 行，共 {$n} 行 · {$hidden} 行未显示（PgUp/PgDn、g/G）
tui-table-waiting = 正在等待数据…
tui-table-none = 没有任何数据源列出使用 GPU 的进程
tui-table-no-match = 没有进程匹配筛选条件 {$filter}（按 Esc 清除）

## The footer: keys and prompts
tui-key-quit = 退出
tui-key-help = 帮助
tui-key-filter = 筛选
tui-key-sort = 排序
tui-key-reverse = 反向
tui-key-tree = 树状
tui-key-details = 详情
tui-key-term = 终止
tui-key-kill = 强制终止
tui-key-env = 环境
tui-key-scroll = 滚动
tui-key-export = 导出
tui-key-copy = 复制
tui-key-interval = 间隔
tui-prompt-export = 导出 CSV 到：
tui-prompt-export-hint = Enter 写入（不会覆盖）· Esc 取消
tui-prompt-filter = 筛选：
tui-prompt-filter-hint = Enter 保留 · Esc 清除

## The help screen
tui-help-title = 帮助 — 按 ? F1 或 Esc 关闭
tui-help-quit = 退出（Esc 会先清除筛选条件或消息）
tui-help-help = 本帮助
tui-help-move = 移动；选中项跟随其进程
tui-help-sort = 按下一列 / 上一列排序；r 反转顺序
tui-help-filter = 筛选：PID、用户、名称、命令、设备
tui-help-tree = 树状视图：子进程列在父进程下；f 折叠一组
tui-help-per-gpu = 按 GPU 分组显示各行（排序在组内进行）
tui-help-details = 详情，以及每个 n/a 为何未知（↑↓ PgUp/PgDn 滚动）
tui-help-kill = 终止 / 强制终止选中的进程（会先确认）
tui-help-tag = 标记 / 取消标记并下移；有标记时 T/K 只作用于已标记的进程
tui-help-env = 进程的环境变量（只显示安全变量的值），即 nvitop 的 e
tui-help-scroll = 左右滚动各行；帮助是 ? 或 F1，不是 nvitop 的 h
tui-help-copy = 复制 PID（OSC 52）
tui-help-open = 在文件管理器中打开可执行文件所在的文件夹
tui-help-export = 把当前显示的各行导出为 CSV（保存在数据目录中）
tui-help-interval = 延长 / 缩短刷新间隔（最短 100 ms）
tui-help-window = 历史窗口 1/5/10 分钟  /  主题  /  单色
tui-help-not-live = {$why}：T K Space e o{$keys} 作用于实时运行的机器，在这里不可用
tui-help-note-type = 类型：C 计算，G 图形，C+G 两者都有 · SM%：进程占用 GPU 的份额
tui-help-note-mem = MEM%：显存控制器繁忙程度 · 条形：占设备的份额 · n/a = 未知，绝不是 0

## Details, kill confirmation, environment
tui-details-title = 详情 — 按 Esc 关闭
tui-details-lines = 第 {$from}–{$to} 行，共 {$total} 行 · ↑↓ PgUp/PgDn Home/End
tui-details-estimate = 估算（计算所得，不是实测）
tui-details-evidence = 工作负载 · 证据
tui-kill-term = 终止
tui-kill-force = 强制终止
tui-confirm-term = 终止 PID {$pid}（{$name}）？
tui-confirm-force = 强制终止 PID {$pid}（{$name}）？
tui-confirm-holds = 它占用 {$memory}。
tui-confirm-second = 二次确认：{$name} {$warning}。
tui-confirm-really-term = 确定要终止它吗？y = 是，其他任意键 = 否
tui-confirm-really-force = 确定要强制终止它吗？y = 是，其他任意键 = 否
tui-confirm-yes-no = y = 是，其他任意键 = 否
tui-confirm-tagged-term = 终止已标记的 {$n} 个进程？
tui-confirm-tagged-force = 强制终止已标记的 {$n} 个进程？
tui-confirm-and-pids = 以及 PID {$pids}（另外 {$more} 个）
tui-confirm-only-these = 只向这些进程发送信号（光标所在行仅在已标记时才包括在内）。
tui-env-title = PID {$pid}（{$name}）的环境变量 · 只显示安全变量的值
tui-env-empty = （环境变量为空）
tui-env-scroll = 第 {$from}–{$to} 个，共 {$total} 个 · ↑↓ PgUp/PgDn 滚动 · 按其他任意键关闭
tui-env-closes = 按任意键关闭

## The details pane: measured ledger, estimated ledger, evidence
tui-det-measured-title = 实测（计数器报告的数值）
tui-det-none-selected = 未选中进程
tui-det-group = 工作负载组 {$label}
tui-det-group-root = 根进程 PID {$root} · {$n} 个进程
tui-det-group-figures = 实测 {$measured}（驱动）· 估算 {$estimated}（计算所得）
tui-det-group-no-estimate = n/a（没有成员带有估算）
tui-det-member = 成员
tui-det-group-note = T / K 向根进程发送信号；下面是第一个成员自己的详情
tui-det-who = {$name}  用户 {$user}  父进程 {$ppid}
tui-det-started = 启动于 {$time}
tui-det-host = 主机 CPU {$cpu}  RSS {$rss} [procfs]
tui-det-host-ram = 主机 CPU {$cpu}  RSS {$rss}（占内存 {$ram}%）[procfs]
tui-det-na = n/a {$what}：{$why}
tui-det-exe = 可执行文件 {$exe}
tui-det-cmd = 命令行 {$cmd}
tui-det-no-estimate-unread = 无估算：无法读取模型或设置（`gpuledger explain PID` 会说明是哪一项）
tui-det-no-estimate-unseen = 无估算：不知道这个进程在运行什么（{$why}）
tui-det-no-estimate-not-ai = 无估算：不是 gpuledger 有估算方法的 AI 运行时
tui-det-no-estimate = 无估算：{$why}
tui-det-runtime-reports = 运行时报告 {$what} {$value}
tui-det-recipe-context = {$recipe} · 上下文 {$n}
# The ledger's labels are padded to ten columns by the code.
tui-det-total = GPU 合计
tui-det-estimated-note = （估算）
tui-det-weights = 权重
tui-det-kv = KV 缓存
tui-det-compute = 计算缓冲区
tui-det-overhead = 额外开销
tui-det-overhead-note = （来源见 `explain`）
tui-det-measured = 实测
tui-det-driver = （驱动）
tui-det-driver-more = （驱动；比估算多 {$difference}）
tui-det-driver-less = （驱动；比估算少 {$difference}）
tui-det-driver-more-cause = （驱动；比估算多 {$difference}；{$cause}）
tui-det-driver-less-cause = （驱动；比估算少 {$difference}；{$cause}）
tui-det-compute-word = （{$word}）
tui-det-compute-labelled = （{$label}，{$word}）
tui-det-evidence-kind = {$kind}：
tui-det-why = 原因：{$why}
tui-det-not-modelled = 未建模：{$part}
tui-det-runtime-says = 运行时报告 {$what}：{$value}
tui-det-confidence = 可信度 {$word}
tui-det-no-evidence = 没有证据条目
tui-det-missing = 缺少：{$what}
tui-det-not-identified-saved = 在这份保存的快照中未识别
tui-det-not-identified = 未识别：没有证据指向已知的运行时
tui-det-live-state = 服务的实时状态：这里暂不显示（见 gpuledger explain PID）

## The history chart
tui-chart-history = 历史
tui-chart-one-snapshot = GPU{$gpu} 历史：只有一份快照，没有历史
tui-chart-recorded = GPU{$gpu} 历史（录制数据），最近 {$minutes} 分钟（w：时间窗口）
tui-chart-building = GPU{$gpu} 历史：随着每轮数据到来逐渐积累
tui-chart-last = GPU{$gpu} 历史，最近 {$minutes} 分钟（w：时间窗口）
tui-chart-short-none = GPU{$gpu}：没有历史
tui-chart-short-building = GPU{$gpu}：历史积累中
tui-chart-short-last = GPU{$gpu}，最近 {$minutes} 分钟
tui-chart-now = 现在
tui-chart-gpu-memory = GPU{$gpu} 显存
tui-chart-gpu-percent = GPU{$gpu} %（右轴）
tui-chart-process-memory = {$who} 显存
tui-chart-total-off-scale = 显卡总量 {$bytes}（超出刻度）
tui-chart-top-is-total = 顶部 = 显卡总量 {$bytes}
tui-chart-total-na = 显卡总量 n/a

## Why a value is n/a (the details pane; the sources' own reasons stay as they came)
tui-na-what-metadata = 名称、用户、命令
tui-na-what-memory = 显存
tui-na-what-workload = 工作负载
tui-na-what-host = CPU %、RSS
tui-na-no-value = {$source} 既没有给出数值，也没有给出原因
tui-na-no-samples = 没有按进程的利用率采样
tui-na-not-identified = 未识别：没有证据指向已知的运行时（见证据面板）
tui-na-not-read = 未读取
tui-na-host-replay = 保存的快照中没有主机 CPU/RSS 数据
tui-na-host-remote = 远程服务不发送主机 CPU/RSS 数据
tui-na-host-not-sampled = 尚未采样
tui-na-host-off-screen = 未读取：只读取屏幕上各行的主机 CPU/RSS（按 CPU %、RSS 或 %MEM 排序可读取所有行）

## Messages on the footer line
tui-list-separator = {"，"}
tui-msg-replay-no-interval = {$src} 的回放：不会刷新，所以没有可调整的间隔
tui-msg-refresh-every = 每 {$interval} 刷新一次
tui-msg-longest-interval = {$interval} 已是最长间隔
tui-msg-shortest-interval = 100 ms 已是最短间隔
tui-msg-copied = PID {$pid} 已发送到剪贴板（OSC 52：终端允许时才有效）
tui-msg-folder-elsewhere = 可执行文件所在的文件夹在另一台机器上
tui-msg-opening-folder = 正在文件管理器中打开 {$dir}（{$name}，PID {$pid} 所在的文件夹）
tui-msg-exe-not-readable = 无法读取：可能是其他用户的进程？
tui-msg-exe-unknown = PID {$pid}：可执行文件的路径未知（{$why}）
tui-msg-remote-no-kill = {$url} 的远程视图：只读，不能从这里终止任何进程
tui-msg-replay-no-kill = {$src} 的回放：没有可终止的进程（这是一份录制数据）
tui-msg-will-not-end = 不会结束 PID {$pid}（{$name}）：{$why}
tui-msg-nothing-to-tag = {$why}：没有可供 T / K 标记的进程
tui-msg-tagged = 已标记 {$n} 个：T / K 只向这些进程发送信号（确认框会逐一列出）；再按 Space 取消标记
tui-msg-tagged-refused = 已标记的 PID {$pid}（{$name}）：{$why}；请先取消标记（Space），再单独处理它
tui-msg-replay-no-env = {$src} 的回放：快照不保存环境变量
tui-msg-remote-no-env = {$url} 的远程视图：不提供环境变量
tui-msg-cancelled = 已取消：PID {$pid}（{$name}）继续运行
tui-msg-cancelled-tagged = 已取消：已标记的 {$n} 个进程继续运行（仍保持标记）
tui-msg-term-requested = 已请求终止 PID {$pid}（{$name}）：正在等待确认它已退出
tui-msg-kill-requested = 已请求强制终止 PID {$pid}（{$name}）：正在等待确认它已退出
tui-msg-term-refused = 终止 PID {$pid}（{$name}）被拒绝：{$why}
tui-msg-kill-refused = 强制终止 PID {$pid}（{$name}）被拒绝：{$why}
tui-msg-term-cannot = 无法终止 PID {$pid}：{$why}
tui-msg-kill-cannot = 无法强制终止 PID {$pid}：{$why}
tui-msg-outcome-requested = {$pid}（{$name}）已请求
tui-msg-outcome-not-signalled = {$pid}（{$name}）未发送信号：{$why}
tui-msg-tagged-term-sent = 终止已标记的 {$n} 个进程：{$outcomes}；正在等待确认它们已退出
tui-msg-tagged-kill-sent = 强制终止已标记的 {$n} 个进程：{$outcomes}；正在等待确认它们已退出
tui-msg-term-gone = PID {$pid}（{$name}）已退出：请求终止后，{$time} 的数据中已不再列出
tui-msg-kill-gone = PID {$pid}（{$name}）已退出：请求强制终止后，{$time} 的数据中已不再列出
tui-msg-term-held = PID {$pid}（{$name}）已退出，但请求终止 {$secs} 秒后，驱动仍列出它占用显存
tui-msg-kill-held = PID {$pid}（{$name}）已退出，但请求强制终止 {$secs} 秒后，驱动仍列出它占用显存
tui-msg-term-running = 请求终止 {$secs} 秒后，PID {$pid}（{$name}）仍在运行
tui-msg-kill-running = 请求强制终止 {$secs} 秒后，PID {$pid}（{$name}）仍在运行
tui-msg-exited-waiting = PID {$pid}（{$name}）已退出（{$why}）；正在等待驱动释放它的显存
tui-msg-fold-needs-tree = f 在树状视图中折叠工作负载组：请先按 t
tui-msg-nothing-to-unfold = 不是由多个进程组成的工作负载：没有可展开的内容
tui-msg-export-cancelled = 已取消导出
tui-msg-export-no-name = 导出：请先输入文件名（Esc 取消）
tui-msg-exported = 已把 {$n} 行导出到 {$path}
tui-group-root-name = {$label}（工作负载根进程）
tui-confirm-user = 用户 {$user}
tui-confirm-running = 已运行 {$time}
tui-confirm-command = 命令：{$cmd}
tui-confirm-memory-on = {$dev} 上 {$bytes}
tui-confirm-memory-unknown = {$dev} 上显存未知
tui-confirm-no-memory = 没有列出显存占用
tui-confirm-tagged-detail = 用户 {$user} · {$memory} · {$cmd}
tui-msg-export-failed = 无法导出到 {$path}：{$error}
tui-confirm-group-memory = 其 {$n} 个进程实测共 {$bytes}
tui-confirm-group-unknown = 显存未知
tui-confirm-group-detail = 信号发给根进程，由运行时结束各成员：{$members}

## The kill key's reasons (crates/tui actions, the binary's live_view.rs): sentences as `Said`
tui-guard-init = PID 1 是 init 系统：结束它会让整台机器停机
tui-guard-it = 它{ $ends }
tui-kill-not-available = 此版本不支持终止进程
tui-check-gone = 该进程已不存在
tui-check-pid-reused = 这个 PID 现在指向的已不是列表中的那个进程（PID 被重用）
tui-kill-not-started = 无法启动终止操作：{ $error }
tui-kill-pid-message = PID { $pid }：{ $message }

## Why a process's host CPU % or RSS is missing (the details pane)
tui-host-no-proc = 主机 CPU % 和 RSS 从 /proc 读取，而此平台没有 /proc
tui-host-two-rounds = CPU % 需要两轮采集：此进程是本轮才首次出现
tui-host-cannot-read = 无法读取 { $path }：{ $error }
