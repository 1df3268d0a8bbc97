# The browser page (crates/serve/assets), en: keys start with page-. The HTML's are filled in by
# the server (gpuledger_serve::page::html_in), the script's come with /api/v1/words
# (gpuledger_lang::catalogue_json(lang, Area::Page)); values stay as {$name} for the page.

## header and status
page-loading = loading…
page-loading-snapshot = loading the snapshot…
page-language = Language
page-noscript = This page needs JavaScript. The same data:
page-on-host = on { $host }
page-unknown-host = unknown host
page-host-not-collected = host CPU and RAM: not collected
page-replay-banner = REPLAY of { $path } (recorded { $at }, not the live machine)
page-status-failed = cannot reach gpuledger serve since { $time }: showing the last snapshot, retrying
page-status-replay = replay · snapshot { $at }
page-status-live = live · every { $seconds } s · snapshot { $at }
page-status-cannot-load = cannot load the snapshot ({ $error }); retrying
page-footer = Read-only. The same data:

## headings
page-devices = Devices
page-processes = Processes
page-measured-by-driver = measured by the driver
page-filter = Filter
page-filter-placeholder = pid, user, name, model…
page-table-help = ↑ ↓ move, Enter shows why, / filters; click a heading to sort.
page-why-heading = Why this much?
page-why-select = Select a process to see its measured, reported and estimated memory and the evidence.
page-curves-heading = Memory and GPU % over time
page-notes-heading = Notes and what was not seen
page-sources = Sources
page-notes-nothing = Nothing: every value was read.

## device cards
page-card-used = used
page-others = others ({ $count } processes)
page-others-na = others ({ $count } processes, { $na } of them n/a)
page-others-title = Every process is in the table below.
page-bar-no-total = no bar: the device total is unknown
page-bar-others = others, { $count } processes: { $bytes }
page-bar-unattributed = unattributed: { $bytes }
page-bar-label = memory ledger of GPU{ $gpu }
page-unattributed = unattributed (driver, system, other users, unknown processes)
page-over-attributed = over-attributed
page-over-attributed-note = Processes add up to { $bytes } more than the device uses (shared surfaces are charged to several processes); bars are normalised, labels are raw.
page-stat-mem-pct = MEM%
page-stat-temp = temp
page-stat-power = power
page-stat-processes = processes
page-ctx-driver = driver
page-ctx-link = { $now } (max { $max })
page-ctx-clocks = clocks
page-ctx-clock-values = SM { $sm } · memory { $memory }
page-ctx-power-state = power state
page-ctx-not-collected = Not collected by gpuledger yet: CUDA version, fan, P-state, ECC, MIG.
page-no-gpu = No GPU found. `gpuledger selftest` says what each source looked for.

## process table
page-group-members = { $count } processes
page-table-no-match = No process matches the filter.
page-table-empty = No process holds GPU memory that the sources can see.

## why this much
page-col-measured = Measured
page-col-measured-by = by the driver
page-col-reported = Reported
page-col-reported-by = by the runtime
page-col-estimated = Estimated
page-col-estimated-by = by a recipe
page-nothing-recorded = — nothing recorded
page-no-estimate = — no estimate
page-no-estimate-unread = The model or settings could not be read (`gpuledger explain { $pid }` says which).
page-no-recipe = Not an AI runtime gpuledger has a recipe for.
page-total-gpu = total GPU
page-context = context { $n }
page-floor = A part is unknown: the total counts only the known parts.
page-part-weights = weights
page-part-kv-cache = KV cache
page-part-compute = compute buffers
page-part-overhead = overhead
page-parts-label = estimated parts
page-not-identified = Not identified.
page-evidence = Evidence
page-evidence-kind = { $kind }:
page-confidence = confidence { $level }
page-missing = missing:
page-member = Part of a workload: { $role } ({ $evidence })
page-member-of = Part of a workload: { $role } of pid { $pid } ({ $evidence })
page-gone = pid { $pid } is gone.
page-why-pid = pid { $pid } · { $user }
page-no-runtime-figure = No figure from the runtime here (not asked with --no-probe, or no answer): `gpuledger explain { $pid }` asks a running server (/props, /api/ps, /metrics) and reads its log (--log).
page-why-label = Why:
page-not-modelled = not modelled: { $what }
page-overhead-source = overhead: { $source }
page-fact-command = command
page-fact-owner = owner
page-fact-started = started
page-fact-container = container
page-fact-listening = listening

## curves
page-curve-used = GPU{ $gpu } used
page-curve-card-total = card total
page-curve-label = memory and GPU % of GPU{ $gpu } over time
page-curve-one-sample = 1 sample
page-curve-samples = { $count } samples
page-curve-replay = a replay holds one moment: no curve
page-curve-next-round = the curve starts with the next round
page-curve-point = Point at the curve to read a moment.
page-ago-min = −{ $n } min
page-ago-s = −{ $n } s
page-latest = latest
page-no-samples = no samples yet
page-curve-total = total { $bytes }

## measured vs estimated
# A workload's measured-vs-estimated gap in a member's why pane ($text: report-vs-with-cause).
page-gap-workload = the workload's { $count } processes together: { $text }
