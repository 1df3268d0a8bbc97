# The live view (crates/tui), en: keys start with tui-. The reference: zh-CN and zh-TW have the
# same keys with the same values. Padding around a message is added by the code.

## Title line and the notes under it
tui-title-replay = REPLAY {$src}
tui-title-remote = REMOTE {$url} (read-only)
tui-title-stale = STALE {$secs} s
tui-title-collecting = collecting the first round…
tui-title-every = every {$interval}
tui-title-sort = sort {$column} {$arrow}
tui-title-per-gpu = per GPU
tui-title-tree = tree
tui-title-filter = filter: {$filter}
tui-title-machine = CPU {$cpu} RAM {$ram}
tui-title-help = ? help
tui-note-alert = ALERT {$alert}
tui-note-stale-nothing = no new round for {$secs} s: a source is not answering; nothing collected yet
tui-note-stale-from = no new round for {$secs} s: a source is not answering; the values shown are from {$time}
tui-note-over-attributed = GPU{$gpu}: processes sum to {$bytes} over device used (shared memory counted in each) · bars normalised, labels are raw
tui-not-live-replay = replay of {$src}
tui-not-live-remote = remote view of {$url}

## Device cards
tui-cards-waiting = waiting for the first collection round…
tui-no-gpu = no GPU found (see `gpuledger selftest`)
tui-no-gpu-sample = no GPU found (see `gpuledger selftest`); a sample machine: gpuledger --replay examples/sample-snapshot.json
tui-cards-more = +{$n} more devices: enlarge the terminal, or see `gpuledger snapshot`
tui-card-mem = MEM
tui-temp-na = temp n/a
tui-power-no-limit = {$watts} W / limit n/a
tui-power-na = power n/a
tui-books-processes = processes {$bytes}
tui-books-unattributed = unattributed {$bytes}
tui-books-unattributed-na = unattributed n/a
tui-books-over = over-attributed (shared)
tui-compact-procs = procs {$bytes} · {$unattr}
tui-compact-unattr = unattr {$bytes}
tui-compact-unattr-na = unattr n/a
tui-compact-over = over-attributed

## The process table
tui-col-dev = DEV
tui-col-pid = PID
tui-col-user = USER
tui-col-owner = OWNER
tui-col-name = NAME
tui-col-workload = WORKLOAD
tui-col-type = TYPE
tui-col-memory = GPU MEM
tui-col-sm = SM%
tui-col-cpu = CPU%
tui-col-rss = RSS
tui-col-ram = RAM%
tui-col-time = TIME
tui-col-command = COMMAND
tui-table-hidden = rows {$first}–{$last} of {$n} · {$hidden} hidden (PgUp/PgDn, g/G)
tui-table-waiting = waiting for data…
tui-table-none = no GPU processes listed by any source
tui-table-no-match = no process matches the filter {$filter} (Esc clears it)

## The footer: keys and prompts
tui-key-quit = quit
tui-key-help = help
tui-key-filter = filter
tui-key-sort = sort
tui-key-reverse = reverse
tui-key-tree = tree
tui-key-details = details
tui-key-term = term
tui-key-kill = kill
tui-key-env = env
tui-key-scroll = scroll
tui-key-export = export
tui-key-copy = copy
tui-key-interval = interval
tui-prompt-export = Export CSV to:
tui-prompt-export-hint = Enter writes (never overwrites) · Esc cancels
tui-prompt-filter = filter:
tui-prompt-filter-hint = Enter keep · Esc clear

## The help screen
tui-help-title = Help — any of ? F1 Esc closes
tui-help-quit = quit (Esc first clears a filter or a message)
tui-help-help = this help
tui-help-move = move; the selection follows its process
tui-help-sort = sort by next / previous column; r reverses the order
tui-help-filter = filter: PID, user, name, command, device
tui-help-tree = tree view: children under their parent; f folds a group
tui-help-per-gpu = group the rows per GPU (the sort applies within each)
tui-help-details = details, why each n/a is unknown (↑↓ PgUp/PgDn scroll)
tui-help-kill = terminate / force kill the selected process (asks)
tui-help-tag = tag / untag, then down; with tags T/K act on tagged only
tui-help-env = the process's environment (safe names' values), nvitop's e
tui-help-scroll = scroll rows left / right; help is ? or F1, not nvitop's h
tui-help-copy = copy the PID (OSC 52)
tui-help-open = open the executable's folder in the file manager
tui-help-export = export the rows as shown to CSV (in the data directory)
tui-help-interval = refresh interval longer / shorter (100 ms minimum)
tui-help-window = history window 1/5/10 min  /  theme  /  monochrome
tui-help-not-live = {$why}: T K Space e o{$keys} act on the live machine, not here
tui-help-note-type = TYPE C compute, G graphics, C+G both · SM% the process's share of the GPU
tui-help-note-mem = MEM% memory controller busy · bars: device share · n/a = unknown, never 0

## Details, kill confirmation, environment
tui-details-title = Details — Esc closes
tui-details-lines = lines {$from}–{$to} of {$total} · ↑↓ PgUp/PgDn Home/End
tui-details-estimate = ESTIMATE (calculated, not measured)
tui-details-evidence = Workload · evidence
tui-kill-term = Terminate
tui-kill-force = Force kill
tui-confirm-term = Terminate PID {$pid} ({$name})?
tui-confirm-force = Force kill PID {$pid} ({$name})?
tui-confirm-holds = It holds {$memory}.
tui-confirm-second = SECOND CONFIRMATION: {$name} {$warning}.
tui-confirm-really-term = Really terminate it? y = yes, anything else = no
tui-confirm-really-force = Really force kill it? y = yes, anything else = no
tui-confirm-yes-no = y = yes, anything else = no
tui-confirm-tagged-term = Terminate the { $n ->
    [one] {$n} tagged process
   *[other] {$n} tagged processes
  }?
tui-confirm-tagged-force = Force kill the { $n ->
    [one] {$n} tagged process
   *[other] {$n} tagged processes
  }?
tui-confirm-and-pids = and PIDs {$pids} ({$more} more)
tui-confirm-only-these = Only these are signalled (the row under the cursor only if tagged).
tui-env-title = Environment of PID {$pid} ({$name}) · values of safe names only
tui-env-empty = (empty environment)
tui-env-scroll = {$from}–{$to} of {$total} · ↑↓ PgUp/PgDn scroll · any other key closes
tui-env-closes = any key closes

## The details pane: measured ledger, estimated ledger, evidence
tui-det-measured-title = Measured (what counters reported)
tui-det-none-selected = no process selected
tui-det-group = Workload group {$label}
tui-det-group-root = root PID {$root} · {$n} processes
tui-det-group-figures = measured {$measured} (driver) · estimated {$estimated} (calculated)
tui-det-group-no-estimate = n/a (no member carries an estimate)
tui-det-member = member
tui-det-group-note = T / K signal the root; below, the first member's own details
tui-det-who = {$name}  user {$user}  ppid {$ppid}
tui-det-started = started {$time}
tui-det-host = host CPU {$cpu}  RSS {$rss} [procfs]
tui-det-host-ram = host CPU {$cpu}  RSS {$rss} ({$ram}% of RAM) [procfs]
tui-det-na = n/a {$what}: {$why}
tui-det-exe = exe {$exe}
tui-det-cmd = cmd {$cmd}
tui-det-no-estimate-unread = no estimate: the model or settings could not be read (`gpuledger explain PID` says which)
tui-det-no-estimate-unseen = no estimate: what this process runs is unknown ({$why})
tui-det-no-estimate-not-ai = no estimate: not an AI runtime gpuledger has a recipe for
tui-det-no-estimate = no estimate: {$why}
tui-det-runtime-reports = runtime reports {$what} {$value}
tui-det-recipe-context = {$recipe} · context {$n}
# The ledger's labels are padded to ten columns by the code.
tui-det-total = total GPU
tui-det-estimated-note = (estimated)
tui-det-weights = weights
tui-det-kv = KV cache
tui-det-compute = compute
tui-det-overhead = overhead
tui-det-overhead-note = (`explain` says from what)
tui-det-measured = measured
tui-det-driver = (driver)
tui-det-driver-more = (driver; {$difference} more than estimated)
tui-det-driver-less = (driver; {$difference} less than estimated)
tui-det-driver-more-cause = (driver; {$difference} more than estimated; {$cause})
tui-det-driver-less-cause = (driver; {$difference} less than estimated; {$cause})
tui-det-compute-word = ({$word})
tui-det-compute-labelled = ({$label}, {$word})
tui-det-evidence-kind = {$kind}:{" "}
tui-det-why = why: {$why}
tui-det-not-modelled = not modelled: {$part}
tui-det-runtime-says = runtime says {$what}: {$value}
tui-det-confidence = confidence {$word}
tui-det-no-evidence = no evidence items
tui-det-missing = missing: {$what}
tui-det-not-identified-saved = not identified in this saved snapshot
tui-det-not-identified = not identified: no evidence pointed to a known runtime
tui-det-live-state = live server state: not shown here yet (gpuledger explain PID)

## The history chart
tui-chart-history = History
tui-chart-one-snapshot = History GPU{$gpu}: one snapshot, no history
tui-chart-recorded = History GPU{$gpu} as recorded, last {$minutes} min (w: window)
tui-chart-building = History GPU{$gpu}: builds up as rounds arrive
tui-chart-last = History GPU{$gpu}, last {$minutes} min (w: window)
tui-chart-short-none = GPU{$gpu}: no history
tui-chart-short-building = GPU{$gpu}: history builds up
tui-chart-short-last = GPU{$gpu}, last {$minutes} min
tui-chart-now = now
tui-chart-gpu-memory = GPU{$gpu} memory
tui-chart-gpu-percent = GPU{$gpu} % (right)
tui-chart-process-memory = {$who} memory
tui-chart-total-off-scale = card total {$bytes} (off scale)
tui-chart-top-is-total = top = card total {$bytes}
tui-chart-total-na = card total n/a

## Why a value is n/a (the details pane; the sources' own reasons stay as they came)
tui-na-what-metadata = name, user, command
tui-na-what-memory = GPU memory
tui-na-what-workload = workload
tui-na-what-host = CPU %, RSS
tui-na-no-value = {$source} gave no value and no reason
tui-na-no-samples = no per-process utilisation samples
tui-na-not-identified = not identified: no evidence pointed to a known runtime (see the evidence pane)
tui-na-not-read = not read
tui-na-host-replay = a saved snapshot has no host CPU/RSS figures
tui-na-host-remote = the remote server does not send host CPU/RSS figures
tui-na-host-not-sampled = not sampled yet
tui-na-host-off-screen = not read: host CPU/RSS are read for the rows on screen (sort by CPU %, RSS or %MEM to read every row)

## Messages on the footer line
tui-list-separator = {", "}
tui-msg-replay-no-interval = replay of {$src}: nothing is refreshed, so there is no interval to change
tui-msg-refresh-every = refresh every {$interval}
tui-msg-longest-interval = {$interval} is the longest interval
tui-msg-shortest-interval = 100 ms is the shortest interval
tui-msg-copied = PID {$pid} sent to the clipboard (OSC 52: works where the terminal allows it)
tui-msg-folder-elsewhere = the executable's folder is on the other machine
tui-msg-opening-folder = opening {$dir} (folder of {$name} pid {$pid}) in the file manager
tui-msg-exe-not-readable = not readable: another user's process?
tui-msg-exe-unknown = pid {$pid}: the executable's path is unknown ({$why})
tui-msg-remote-no-kill = remote view of {$url}: read-only, nothing is terminated from here
tui-msg-replay-no-kill = replay of {$src}: nothing to terminate (this is a recording)
tui-msg-will-not-end = will not end PID {$pid} ({$name}): {$why}
tui-msg-nothing-to-tag = {$why}: nothing to tag for T / K
tui-msg-tagged = {$n} tagged: T / K signal these only (one confirmation lists them); Space again untags
tui-msg-tagged-refused = tagged PID {$pid} ({$name}): {$why}; untag it (Space) and signal it on its own
tui-msg-replay-no-env = replay of {$src}: a snapshot does not keep environments
tui-msg-remote-no-env = remote view of {$url}: environments are not served
tui-msg-cancelled = cancelled: PID {$pid} ({$name}) left running
tui-msg-cancelled-tagged = cancelled: the { $n ->
    [one] {$n} tagged process
   *[other] {$n} tagged processes
  } left running (still tagged)
tui-msg-term-requested = terminate requested for PID {$pid} ({$name}): waiting to see it gone
tui-msg-kill-requested = kill requested for PID {$pid} ({$name}): waiting to see it gone
tui-msg-term-refused = terminate PID {$pid} ({$name}) refused: {$why}
tui-msg-kill-refused = kill PID {$pid} ({$name}) refused: {$why}
tui-msg-term-cannot = cannot terminate PID {$pid}: {$why}
tui-msg-kill-cannot = cannot kill PID {$pid}: {$why}
tui-msg-outcome-requested = {$pid} ({$name}) requested
tui-msg-outcome-not-signalled = {$pid} ({$name}) not signalled: {$why}
tui-msg-tagged-term-sent = terminate of the { $n ->
    [one] {$n} tagged process
   *[other] {$n} tagged processes
  }: {$outcomes}; waiting to see them gone
tui-msg-tagged-kill-sent = kill of the { $n ->
    [one] {$n} tagged process
   *[other] {$n} tagged processes
  }: {$outcomes}; waiting to see them gone
tui-msg-term-gone = PID {$pid} ({$name}) is gone: no longer listed at {$time} after the terminate request
tui-msg-kill-gone = PID {$pid} ({$name}) is gone: no longer listed at {$time} after the kill request
tui-msg-term-held = PID {$pid} ({$name}) has exited, but the driver still lists it with GPU memory {$secs} s after the terminate request
tui-msg-kill-held = PID {$pid} ({$name}) has exited, but the driver still lists it with GPU memory {$secs} s after the kill request
tui-msg-term-running = PID {$pid} ({$name}) is still running {$secs} s after the terminate request
tui-msg-kill-running = PID {$pid} ({$name}) is still running {$secs} s after the kill request
tui-msg-exited-waiting = PID {$pid} ({$name}) has exited ({$why}); waiting for the driver to release its GPU memory
tui-msg-fold-needs-tree = f folds workload groups in the tree view: t first
tui-msg-nothing-to-unfold = not a workload of several processes: nothing to unfold
tui-msg-export-cancelled = export cancelled
tui-msg-export-no-name = export: type a file name first (Esc cancels)
tui-msg-exported = exported {$n} rows to {$path}
tui-group-root-name = {$label} (workload root)
tui-confirm-user = user {$user}
tui-confirm-running = running {$time}
tui-confirm-command = command: {$cmd}
tui-confirm-memory-on = {$bytes} on {$dev}
tui-confirm-memory-unknown = unknown memory on {$dev}
tui-confirm-no-memory = no GPU memory listed
tui-confirm-tagged-detail = user {$user} · {$memory} · {$cmd}
tui-msg-export-failed = cannot export to {$path}: {$error}
tui-confirm-group-memory = {$bytes} measured over its {$n} processes
tui-confirm-group-unknown = unknown memory
tui-confirm-group-detail = the root is signalled and the runtime ends its members: {$members}

## The kill key's reasons (crates/tui actions, the binary's live_view.rs): sentences as `Said`
tui-guard-init = PID 1 is the init system: ending it brings the whole machine down
tui-guard-it = it { $ends }
tui-kill-not-available = kill is not available in this build
tui-check-gone = no such process any more
tui-check-pid-reused = the PID now names a different process than the one listed (PID reused)
tui-kill-not-started = could not start the kill: { $error }
tui-kill-pid-message = PID { $pid }: { $message }

## Why a process's host CPU % or RSS is missing (the details pane)
tui-host-no-proc = host CPU % and RSS are read from /proc, which this platform does not have
tui-host-two-rounds = CPU % needs two rounds: this process was first seen this round
tui-host-cannot-read = cannot read { $path }: { $error }
