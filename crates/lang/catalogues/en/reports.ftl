# The text reports (`gpuledger snapshot` and the other commands' output), English: the reference
# every other language follows key for key. Leading spaces and column padding are the program's;
# the words, their order and plurals are here.

## snapshot: header
report-replay = REPLAY of { $file } (recorded { $taken }, not the live machine)
report-title = gpuledger snapshot · { $host } · { $taken }
report-title-wsl = gpuledger snapshot · { $host } · { $taken } · WSL2
report-unknown-host = unknown host
report-no-gpu = No GPU found. Run `gpuledger selftest` to see what each source looked for.

## snapshot: devices
report-devices = DEVICES
report-col-gpu = GPU
report-col-name = NAME
report-col-memory-used-total = MEMORY USED / TOTAL
report-col-gpu-pct = GPU%
report-col-mem-pct = MEM%
report-col-temp = TEMP
report-col-power-limit = POWER / LIMIT
report-col-processes = PROCESSES
report-col-unattributed = UNATTRIBUTED
report-system-memory-gtt = system memory (GTT)
report-power-suspended = suspended
report-power-suspending = suspending
report-over-attributed = over-attributed

## snapshot: processes
report-processes-measured = PROCESSES (measured)
report-col-pid = PID
report-col-user = USER
report-col-workload = WORKLOAD
report-col-type = TYPE
report-col-memory = MEMORY
report-col-sys-gtt = SYS/GTT
report-col-source = SOURCE
report-col-sm-pct = SM%
report-col-owner = OWNER
report-col-command = COMMAND

## snapshot: the unattributed rows (after the figure, which the program right-aligns)
report-unattributed-on = unattributed on GPU{ $gpu } (driver, system, other users, unknown processes)
report-over-attributed-on = over-attributed on GPU{ $gpu }: processes add up to more than the device uses (shared surfaces are charged to several processes); bars are normalised, labels are raw
report-unattributed-unknown = unattributed on GPU{ $gpu }: device used memory is unknown

## snapshot: the estimated ledger
report-estimated = ESTIMATED (calculated from the model file and settings; not measured, not in the totals above)
report-col-role = ROLE
report-col-recipe = RECIPE
report-col-context = CONTEXT
report-col-weights = WEIGHTS
report-col-kv-cache = KV CACHE
report-col-compute = COMPUTE
report-col-overhead = OVERHEAD
report-col-total = TOTAL
report-col-measured = MEASURED
report-pid-says = pid { $pid }: { $text }
report-reported-no-estimate = { $pid } { $name }: no estimate; the runtime reports { $figures } ({ $source })
report-group = group of pid { $pid } ({ $label }): { $members } members, estimated { $estimated } in all beside { $measured } measured
report-group-no-estimate = n/a (no member has an estimate)
report-explain-hint = (`gpuledger explain PID` shows each part's inputs and where they came from)

## snapshot: notes and sources
report-notes = NOTES AND WHAT WAS NOT SEEN
report-unknown-processes = GPU{ $gpu }: memory of { $count ->
        [one] { $count } process is
       *[other] { $count } processes is
    } unknown; it is inside the unattributed figure
report-memory-na = pid { $pid } ({ $name }) on GPU{ $gpu }: memory n/a: { $reason }
report-engines-na = pid { $pid } engine use n/a: { $reason }
report-process-note = pid { $pid } ({ $name }): { $note }
report-metadata-na = pid { $pid }: name, user and command unknown: { $reason }
report-sources = SOURCES
report-source-ok = ok
report-source-unavailable = unavailable
report-source-error = ERROR
report-source-line = { $state }: { $detail }

## a measurement beside an estimate (snapshot, explain, estimate); $label ends in a space or is empty
report-vs-more = measured { $measured } { $label }vs estimated { $estimated }: the driver reports { $difference } more
report-vs-less = measured { $measured } { $label }vs estimated { $estimated }: the driver reports { $difference } less
report-vs-with-cause = { $text }; { $cause }
report-gap-above-estimate = likely allocations the recipe does not model (another model or context in the process, CUDA graphs, a larger batch) or a larger context than the settings read
report-gap-below-weights = below the estimated weights alone: likely fewer layers on the GPU than the settings read, or the model still loading
report-gap-between = likely a smaller context, fewer slots or a smaller batch than the settings read (the runtime may have changed them at load: llama-server's --fit, Ollama's num_ctx)

## explain (headings follow an empty line; the other lines are indented by the program)
report-explain-title = gpuledger explain { $pid } · { $name } · user { $user }
report-explain-title-replay = gpuledger explain { $pid } · { $name } · user { $user } · REPLAY
report-explain-command = command: { $command }
report-explain-metadata-na = name, user and command n/a: { $reason }
report-explain-owner = owner: { $label } · cgroup { $cgroup }
report-explain-pod-names-na = pod name and namespace n/a: { $reason }
report-explain-slurm-names = Slurm job names: { $source }
report-explain-owner-note = owner note: { $note }
report-explain-kubelet-devices = devices the kubelet assigned: { $devices }
report-explain-measured = MEASURED (reported by the driver)
report-explain-memory-na = memory n/a: { $reason }
report-explain-what-it-is = WHAT IT IS (identification, with evidence)
report-explain-identified = { $label } (confidence { $confidence })
report-confidence-high = high
report-confidence-medium = medium
report-confidence-low = low
report-explain-missing = missing: { $what }
report-explain-not-identified = not identified
report-explain-workload = WORKLOAD PROCESSES (rooted at pid { $pid }; { $measured } measured in all)
report-explain-workload-estimated = WORKLOAD PROCESSES (rooted at pid { $pid }; { $measured } measured in all, { $estimated } estimated in all)
report-explain-this-process = ← this process
report-explain-no-gpu-memory = no GPU memory
report-explain-share = (estimated share { $bytes })
report-explain-live = LIVE STATE (the runtime's own API, loopback only)
report-explain-live-server = { $server } on 127.0.0.1:{ $port }
report-explain-auth = the server requires an API key (HTTP 401); gpuledger does not send one
report-explain-context-size = context size: { $n }
report-explain-slots-busy = slots: { $busy } busy of { $total }
report-explain-slots = slots: { $total }
report-explain-tokens-per-second = tokens per second: { $rate }
report-explain-model = model: { $path }
report-explain-loaded = loaded: { $name } (runtime says { $vram } in VRAM, context { $context })
report-explain-na = n/a: { $reason }
report-explain-estimated-config = ESTIMATED (computed from config.json, safetensors headers and the runtime's settings; not measured)
report-explain-estimated-gguf-runtime = ESTIMATED (computed from the GGUF header and the runtime's settings; not measured)
report-explain-estimated-gguf-server = ESTIMATED (computed from the GGUF header and the server's settings; not measured)
report-explain-recipe = recipe: { $recipe }
report-explain-not-modelled = not modelled: { $what }
report-explain-runtime-api-na = runtime API n/a: { $reason }
report-explain-side-by-side = SIDE BY SIDE (never added together)
report-explain-measured-driver = measured (driver):
report-explain-reported-runtime = reported (runtime):
report-explain-reported-none = n/a (the runtime publishes no figure here)
report-explain-recorded = { $bytes } (recorded in the snapshot)
report-explain-estimated-recipe = estimated (recipe):
report-explain-why = why: { $why }
report-explain-runtime-reported = RUNTIME-REPORTED (the runtime's own log, beside the estimate)

## estimate: the llama.cpp recipe's ledger (`gpuledger estimate`, explain)
report-est-header = ESTIMATE ({ $recipe }) for { $path }: { $arch }, { $layers } layers, { $size } in { $files ->
        [one] { $files } file
       *[other] { $files } files
    }
report-est-context = context: n_ctx { $n_ctx } ({ $per_slot } per slot), { $slots ->
        [one] { $slots } slot
       *[other] { $slots } slots
    }, { $cache } cache, n_ubatch { $ubatch }, flash attention { $flash }
report-est-cache-unified = unified
report-est-cache-per-slot = per-slot
report-est-on = on
report-est-off = off
report-est-approximate = APPROXIMATE: part of this model is estimated with a generic rule:
report-est-col-line = line
report-est-col-host = host
report-est-col-details = details
report-est-weights = weights
report-est-kv-cache = KV cache
report-est-output = output
report-est-output-detail = logits for one token per slot (host)
report-est-compute = compute
report-est-overhead = overhead
report-est-total = total
report-est-weights-detail = { $gpu_layers }/{ $layers } repeating layers on GPU, output layer on { $place ->
        [gpu] GPU
       *[host] host
    }
report-est-tied-copy = , incl. { $size } tied-output copy of token_embd
report-est-override = ; { $given }: { $count ->
        [one] { $count } tensor
       *[other] { $count } tensors
    } ({ $size }) on { $place ->
        [gpu] GPU
       *[host] host
    }
report-est-kv-detail = { $cells } cells x { $streams ->
        [one] { $streams } stream
       *[other] { $streams } streams
    } x { $layers } full layers
report-est-kv-swa = + { $cells } cells x { $layers } SWA layers
report-est-kv-recurrent = , recurrent state { $size }
report-est-kv-indexer = , incl. { $size } indexer cache ({ $layers } layers, { $head } per key)
report-est-kv-compressed = , incl. { $size } in { $count } compressed caches and compressor states
report-precision-exact = exact
report-precision-approximate = approximate
report-est-compute-approximate = confidence { $confidence }; { $word }: { $parts }
report-est-compute-exact = { $word }: llama.cpp's graph reservation replayed for this model's layers
report-est-total-no-overhead = GPU total excludes the unknown overhead
report-est-total-without-overhead = { $size } without overhead
report-est-col-device = device
report-est-col-layers = layers
report-est-plus-output = + output
report-est-per-device = per device (llama.cpp's device order; overhead not included):
report-fit-unchanged = unchanged
report-fit-fitted = fitted
report-fit-failed = failed
report-fit-stopped = stopped
report-est-fit = --fit replayed ({ $outcome }): for { $free } free, leaving { $margin }; llama-server would load with:
report-est-fit-log = llama.cpp's own log lines for this --fit, as it prints them:
report-est-inputs = inputs:
report-est-notes = notes:
report-source-gguf = gguf { $detail }
report-source-tensors = tensors: { $detail }
report-source-flag = flag { $detail }
report-source-env = env { $detail }
report-source-server = server: { $detail }
report-source-default = default ({ $detail })
report-source-derived = derived: { $detail }
report-source-assumed = assumed: { $detail }
report-source-file = file: { $detail }
report-source-measured = measured: { $detail }
report-cmp-heading = estimate vs llama.cpp's own log (the log is the runtime's word):
report-cmp-estimated = estimated
report-cmp-logged = logged
report-cmp-not-in-log = not in log
report-cmp-not-modelled = not modelled

## estimate: whether it fits in what a GPU has free now
report-fit-na = fit: { $reason }
report-fit-not-requested = fit check not requested (--no-fit-check)
report-fit-no-snapshot = fit check not available: no snapshot of this machine could be taken
report-fit-not-available = fit check not available: { $why }
report-fit-no-gpu = no GPU found ({ $sources })
report-fit-source = { $name }: { $detail }
report-fit-no-such-gpu = there is no GPU { $device } (found { $found })
report-fit-free-unknown = fit check not available: free memory of { $device } is unknown{ $why }
report-fit-replay = fit (REPLAY of { $file }, not the live machine):
report-fit-on = fit on { $device }: needs ~{ $needed } (estimated), { $free } free of { $total } (measured) -> { $verdict }
report-fit-on-overhead-unknown = fit on { $device }: needs ~{ $needed } (estimated, overhead unknown), { $free } free of { $total } (measured) -> { $verdict }
report-fit-fits = fits, { $size } to spare
report-fit-short = does NOT fit, short by { $size }
report-fit-held-by = held now by:
report-fit-unattributed = unattributed
report-fit-changes = would fit with any one of (each checked by estimating again):
report-fit-col-change = change
report-fit-col-needs = needs
report-fit-col-free = free
report-fit-col-what = what

## explain: an estimate recorded in a snapshot, and a runtime recipe's (vLLM, SGLang, PyTorch)
report-recorded = recorded in the snapshot when it was taken ({ $recipe }, model { $model }):
report-recorded-context = recorded in the snapshot when it was taken ({ $recipe }, model { $model }, context { $context }):
report-recorded-compute-buffers = compute buffers
report-recorded-total-gpu = total GPU
report-runtime-recipe-model = recipe { $recipe } · model { $model }
report-runtime-input = { $name } = { $value }  ({ $source })
report-runtime-overhead = { $bytes } ({ $source })
report-runtime-not-modelled = n/a (not modelled)
report-runtime-kv-holds = KV cache holds
report-runtime-tokens = { $n } tokens
report-runtime-reports = runtime reports (its own figures, not added to either ledger):
report-runtime-driver = (driver)

## snapshot --group-by
report-groups-title = gpuledger snapshot --group-by { $by } · { $host } · { $taken }
report-groups-device = GPU{ $gpu }  { $name }  used { $used }
report-groups-by-pod = POD
report-groups-by-namespace = NAMESPACE
report-groups-by-container = CONTAINER
report-groups-by-job = JOB
report-groups-by-user = USER
report-groups-by-unit = UNIT
report-groups-by-owner = OWNER
report-groups-col-processes = PROCESSES
report-groups-unattributed = unattributed (driver, system, other users, unknown processes)
report-groups-over-attributed = over-attributed (processes add up to more than the device uses)
report-groups-unattributed-unknown = unattributed: device used memory is unknown
report-groups-notes = NOTES

## what a process is (the model's kinds that are words, not product names)
report-kind-browser = browser
report-kind-compositor = compositor
report-kind-cuda-app = CUDA app
report-kind-graphics-app = graphics app
report-kind-ollama-runner = Ollama runner
report-kind-unknown = unknown

## explain: the kinds of evidence
report-evidence-executable = executable
report-evidence-cmdline = command line
report-evidence-library = library
report-evidence-model-file = model file
report-evidence-listening-port = listening port
report-evidence-parent = parent
report-evidence-http = HTTP answer
report-evidence-log = log
report-evidence-gguf-header = GGUF header
report-evidence-workload = workload

## selftest (the sources' own findings stay as they wrote them)
report-selftest-title = gpuledger { $version } selftest · { $host } · kernel { $kernel }
report-selftest-title-wsl = gpuledger { $version } selftest · { $host } · kernel { $kernel } · WSL2
report-selftest-ok = ok
report-selftest-not-found = not found
report-selftest-error = ERROR
report-selftest-sees = sees: { $what }
report-selftest-cannot-see = cannot see: { $what }

## diff
report-diff-title = gpuledger diff · { $before } ({ $before_taken }) → { $after } ({ $after_taken })
report-diff-absent = absent
report-diff-appeared = appeared
report-diff-gone = gone
report-diff-grew = grew
report-diff-shrank = shrank
report-diff-unchanged = unchanged
report-diff-unknown = unknown
report-diff-processes = processes (measured)
report-diff-no-processes = none in either snapshot
report-diff-none-changed = no process changed
report-diff-paired-by = paired by { $rule }
report-diff-quiet = ({ $count ->
        [one] { $count } process
       *[other] { $count } processes
    } unchanged or unknown; --all lists them)
report-diff-devices = devices (measured)
report-diff-device = { $device }  used { $used }  unattributed { $unattributed }
report-diff-estimates = estimates (calculated, not measured)

## history (its table's columns; the rows are figures)
report-history-col-time = TIME
report-history-col-used = USED
report-history-col-free = FREE
report-history-col-power-w = POWER W

# The machine's driver in the live view's title (`n/a` when no device says).
report-driver-item = driver { $version }
report-context-mem-clock = mem { $clock }
report-context-pcie-below = PCIe { $now } of { $max }

## kill: the confirmation and the report's frame (the kill's own sentences stay as it wrote them)
report-kill-would = would: { $text }
report-kill-at-ms = { $ms } ms
report-kill-waiting-in = waiting in: { $text }
report-kill-remedy = remedy: { $text }
report-kill-now = now: { $text }
report-kill-gpu-memory = GPU memory: { $text }
report-kill-holds = { $bytes } GPU memory (measured)
report-kill-not-listed = no measured GPU memory
report-kill-unknown = GPU memory unknown: { $reason }
report-kill-about-to = About to terminate:
report-kill-target = PID { $pid } { $name }: { $memory }
report-kill-target-user = PID { $pid } { $name }, user { $user }: { $memory }
report-kill-target-workload = workload: { $what } ({ $confidence } confidence)
# The answers stay y / yes in every language (what the program reads).
report-kill-ask-graceful = Terminate { $count ->
        [one] { $count } process
       *[other] { $count } processes
    } (graceful first, forced after the grace period)? [y/N]
report-kill-ask-forced = Terminate { $count ->
        [one] { $count } process
       *[other] { $count } processes
    } (forced at once)? [y/N]
report-kill-sensitive = { $why }.
report-kill-ask-yes = Type 'yes' to kill PID { $pid } anyway:
report-kill-no-terminal = no terminal to ask for confirmation on; pass --yes to confirm in advance; nothing was signalled
report-kill-not-confirmed = not confirmed; nothing was signalled

## probe (its notes are the probe's own sentences)
report-probe-title = gpuledger probe: { $device } (CUDA device { $ordinal }), { $total } of VRAM
report-probe-versions = driver { $driver }, CUDA { $cuda }, { $os }, measured { $at }
report-probe-context = context cost: { $first_nvml } by NVML (first context); { $second_driver } by driver free memory, { $second_nvml } by NVML (a second context)
report-probe-col-method = method
report-probe-col-host-bytes = host bytes
report-probe-col-delta-driver = VRAM delta (driver)
report-probe-col-delta-nvml = VRAM delta (NVML)
report-probe-col-ratio-driver = ratio (driver)
report-probe-col-ratio-nvml = ratio (NVML)
report-probe-col-released = released
report-probe-method-device = cuMemAlloc (device, control)
report-probe-method-pinned = cuMemHostAlloc (pinned)
report-probe-method-devicemap = cuMemHostAlloc DEVICEMAP
report-probe-method-register = cuMemHostRegister
report-probe-released = yes, read { $reads }
report-probe-not-released = NO: { $missing } still missing after { $reads } reads
report-probe-note = note: { $text }
report-probe-saved = saved to { $path }; estimate and explain now use it as { $label }

## verify (the verdicts, the paths' reasons and the notes are the judge's own sentences)
report-verify-replay = REPLAY of { $path } (recorded { $taken_at })
report-verify-title = gpuledger verify: { $size } allocated and written by PID { $pid } on { $device }
report-verify-path = path { $path }: { $why }
report-verify-system-ledger = judged on system memory (GTT): { $why }
report-verify-expected-cpu = expected: nothing any source can see: { $device } is a CPU device, its memory is the host's (no VRAM, no GPU counter).
report-verify-expected = expected: the child absent, then listed with a context, +{ $size } when it allocates, -{ $size } when it frees, gone after it exits; device used moving with it; unattributed not moving. Tolerance { $tolerance } (2 MiB allocation granularity plus driver bookkeeping).
report-verify-second-witness = [second witness]
report-verify-note = note: { $text }
report-verify-no-uuid = no UUID
report-verify-cuda-device = CUDA device { $ordinal } { $name } ({ $uuid }), CUDA { $cuda }
report-verify-pci-unknown = not reported
report-verify-vulkan-device = Vulkan device { $ordinal } { $name } ({ $about }, PCI { $pci }), Vulkan { $vulkan }
report-verify-nothing = nothing can be verified on this machine:
report-verify-needs-any = (verify needs a GPU with a CUDA or a Vulkan driver)
report-verify-needs-cuda = (verify --path cuda needs an NVIDIA GPU and its driver; --path vulkan runs the Vulkan workload)
report-verify-needs-vulkan = (verify --path vulkan needs the Vulkan loader and a Vulkan driver; --path cuda runs the CUDA workload)

## kill: the sentences the kill writes (its outcome, steps, plan, remedies); --json carries the English
report-kill-refused-pid = refused PID { $pid }: { $why }; nothing was signalled
report-kill-already-zombie = { $who } has already exited and is a zombie: it holds no memory; only its parent { $parent } can remove it from the process table (by waiting for it)
report-kill-parent-unknown = (unknown)
report-kill-dry-run-read = read now; nothing was signalled (dry run)
report-kill-dry-run = dry run for { $who }: nothing was signalled; the plan: { $plan }
report-kill-dry-run-head = dry run for { $who }: nothing was signalled
report-kill-unknown-state = unknown state
report-kill-still-alive = { $who } is still alive { $ms } ms after { $signal } ({ $state }); see the remedies
report-kill-gone = { $who } is gone{ $detail }
report-kill-zombie-now = { $who } has exited and is now a zombie (holds no memory; counts as gone) until its parent { $parent } reaps it
report-kill-no-such-process = no process with PID { $pid } (it may have exited already)
report-kill-who-why = { $who }: { $why }
report-kill-cannot-read = could not read PID { $pid }: { $why }
report-kill-skipped-other = skipped PID { $pid }: { $why }, so the PID now names a different process ({ $name }); nothing was signalled
report-kill-start-time-differs = its start time is { $now } but the process you chose started at { $chosen }
report-kill-name-differs = its name is { $now }, not { $chosen }
report-kill-refused = refused { $who }: { $why }; nothing was signalled
report-kill-needs-second = not killing { $who }: { $why }. Confirm a second time (--yes-really) to go ahead; nothing was signalled
report-kill-exited-before = { $who } exited on its own before it was signalled
report-kill-cannot-open = could not open { $who }: { $error }
report-kill-reused = skipped PID { $pid }: it was reused by { $name } between the check and the pin; nothing was signalled
report-kill-cannot-reread = could not re-read { $who }: { $error }
report-kill-not-read = not read: nothing was signalled
report-kill-no-reader = unknown: no GPU memory reader was available
report-kill-step-suppressed = suppressed by the test delivery filter (not sent)
report-kill-step-sent = sent
report-kill-step-sent-detail = sent { $detail }
report-kill-step-not-sent = not sent: { $why }
report-kill-step-already-exited = not sent: the process has already exited
report-kill-step-permission = not sent: permission denied
report-kill-step-failed = failed: { $error }
report-kill-step-exited = exited after { $ms } ms
report-kill-step-still-running = still running after { $ms } ms
report-kill-step-cannot-wait = could not wait: { $error }
report-kill-owner-user = user { $user } (uid { $uid })
report-kill-owner-uid = uid { $uid }
report-kill-owner-other = another user (or runs elevated)
report-kill-permission = permission denied: PID { $pid } ({ $name }) belongs to { $owner }, and gpuledger runs as { $me }; only the process's owner or an administrator may signal it. Run gpuledger as that user, or with sudo / from an elevated prompt. Nothing was signalled.
report-kill-plan-send = send { $signal } to PID { $pid } ({ $name })
report-kill-plan-continue = send SIGCONT (it is stopped and cannot act on SIGTERM until continued)
report-kill-plan-wait = wait up to { $ms } ms for it to exit
report-kill-plan-then-force = if it has not exited, send { $signal }
report-kill-plan-wmi = if it survives TerminateProcess, ask WMI to terminate it
report-kill-plan-verify = verify it is gone within { $ms } ms, else report it as still alive
report-kill-plan-expect-denied = (expect permission denied: it belongs to uid { $uid }, gpuledger runs as uid { $me })
report-kill-released = released: it held { $bytes }, and is no longer listed
report-kill-not-released = not released: it held { $before } before and is still listed with { $after } { $ms } ms later
report-kill-held-none = it held no measured GPU memory before the kill
report-kill-release-unknown = unknown: { $reason }
report-kill-still-listed = still listed with { $bytes }
report-kill-not-listed-after = not listed after the kill
report-kill-remedy-uninterruptible = It is in uninterruptible sleep{ $where }: the kernel acts on { $signal } only when that call returns. If it waits on the GPU driver, let the GPU work finish or reset the GPU: NVIDIA `nvidia-smi --gpu-reset -i N` (only when no other process uses that GPU); AMD `cat /sys/kernel/debug/dri/N/amdgpu_gpu_recover` as root.
report-kill-remedy-wchan = { " " }in { $wchan }
report-kill-remedy-reload = Unload and reload the GPU driver module once nothing else uses it.
report-kill-remedy-debugger = It is stopped by a debugger: detach or end the debugger (ptrace), then kill again.
report-kill-remedy-teardown = { $signal } was sent but the kernel has not finished tearing it down (unmapping a large address space or pinned GPU memory takes time): wait and check again with `gpuledger snapshot`.
report-kill-remedy-reboot = Reboot: the remedy that always works.
report-kill-remedy-win-pending = { $signal } was accepted but the process has not exited: Windows lets it finish pending I/O first (often a driver call). Wait and check again.
report-kill-remedy-win-wmi = gpuledger also asked WMI (Win32_Process.Terminate) where PowerShell is available; retry it as Administrator: Get-CimInstance Win32_Process -Filter "ProcessId={ $pid }" | Invoke-CimMethod -MethodName Terminate
report-kill-remedy-win-reset = If it waits on the GPU driver: reset the graphics driver (Win+Ctrl+Shift+B), or restart Windows: the remedy that always works.
report-kill-remedy-mac-blocked = { $signal } was sent but the process has not exited; it may be blocked in the kernel (e.g. waiting on the GPU driver). Wait and check again.
report-kill-remedy-mac-restart = Restart the Mac: the remedy that always works.

# Sentences in a row (a dry run's plan).
report-said-list = { $a }; { $b }

# Sentences in a row, joined by report-said-list (a source's finding and the problems it met).
report-said-row = { $items }

## the sources' sentences (selftest, the snapshot's sources, the live view's warnings); JSON has the English
report-src-unknown = unknown
report-src-recording = sample at { $at } from { $path }
report-src-nvml-absent = NVML does not exist on this platform
report-src-nvml-not-found = { $name } not found (tried { $tried }): no NVIDIA driver is installed, or it is not on the library path
report-src-nvml-no-init = { $path }: not an NVML library (no nvmlInit_v2 or nvmlInit)
report-src-nvml-init-failed = { $path }: nvmlInit failed: { $message } (NVML error { $code })
report-src-nvml-ok = { $path } (driver { $driver }): { $count ->
        [one] { $count } device
       *[other] { $count } devices
    }, { $procs ->
        [one] { $procs } process
       *[other] { $procs } processes
    }
report-src-procfs = { $root }: metadata for { $seen } of { $count ->
        [one] { $count } GPU process
       *[other] { $count } GPU processes
    }
report-src-drm-none = no DRM devices under { $dir }{ $why } and no process with a DRM node open
report-src-drm-only-nvml = no DRM devices besides those NVML reports; { $count ->
        [one] { $count } client
       *[other] { $count } clients
    } on NVIDIA devices skipped (NVML reports them)
report-src-drm-unreadable = { $first }; descriptors of { $count } processes not readable (permission denied; run as root to see other users)

## Sentences found while collecting (gpuledger_lang::Said): the snapshot's notes
report-note-pods-by-uid = { $count ->
        [one] { $count } GPU process
       *[other] { $count } GPU processes
    } in Kubernetes pods shown by pod UID: { $why }
report-note-pid-namespace = gpuledger runs inside a PID namespace (a container: { $why }); NVML reports host PIDs, which do not match the PIDs visible here, so NVML processes may show without names or as the wrong process; run with the host's PID namespace (docker --pid=host) to match them
report-note-proc-unreadable = { $count ->
        [one] { $count } GPU process has a /proc entry that could not be read: { $first }
       *[other] { $count } GPU processes have a /proc entry that could not be read: { $first } (and others)
    }
report-note-proc-unseen = { $count ->
        [one] { $count } GPU process is
       *[other] { $count } GPU processes are
    } not visible in { $root } (exited during the round, or in another PID namespace)
report-note-wsl2 = running under WSL2: NVML gives device totals, but the platform does not expose per-process GPU memory (Windows manages it); PIDs NVML lists may belong to the Windows host
report-note-no-gpu = no GPU found by any source (see `gpuledger selftest`)
report-note-doubted-owners = { $count ->
        [one] { $count } GPU process
       *[other] { $count } GPU processes
    } (PID { $pids }) in a pod- or job-shaped cgroup outside the kubelet's and slurmd's cgroup roots, shown as the user or unit it sits in, not as a pod or job: see `explain PID`
report-note-replay-v1 = replayed from a recording, which keeps per device memory, GPU %, memory-controller %, temperature and power, and per process its name, user, command line, device memory, SM %; it does not keep workload identification, estimates, listening ports, owners (pods, Slurm jobs, containers, units), ROCm /dev/kfd use, encoder/decoder %, per-source readings, device clocks, PCIe links or power limits, nor (recorded by an older gpuledger) system memory and busy % per engine type, nor (recorded by an older gpuledger) the type (C/G) of each use
report-note-replay-v2 = replayed from a recording, which keeps per device memory, GPU %, memory-controller %, temperature and power, and per process its name, user, command line, device memory, SM %, system memory and busy % per engine type; it does not keep workload identification, estimates, listening ports, owners (pods, Slurm jobs, containers, units), ROCm /dev/kfd use, encoder/decoder %, per-source readings, device clocks, PCIe links or power limits, nor (recorded by an older gpuledger) the type (C/G) of each use
report-note-replay = replayed from a recording, which keeps per device memory, GPU %, memory-controller %, temperature and power, and per process its name, user, command line, device memory, SM %, system memory and busy % per engine type, and the workload, estimate and type (C/G) last identified for each process; it does not keep listening ports, owners (pods, Slurm jobs, containers, units), ROCm /dev/kfd use, encoder/decoder %, per-source readings, device clocks, PCIe links or power limits
report-note-drm-dedupe-rule = DRM clients de-duplicated by (drm-pdev, drm-client-id): a client open on several descriptors counts once; a client shared by several processes is charged to one holder (PID 1 and systemd descriptor holders last, then the lowest PID) and shown as 0 with a note on the others
report-note-drm-dedupe = { $rule } ({ $dup ->
        [one] { $dup } client
       *[other] { $dup } clients
    } on several descriptors of one process, { $shared } shared between processes)
report-note-kfd-without-drm = { $count ->
        [one] { $count } process has /dev/kfd (ROCm) open but no DRM node: its GPU memory cannot be attributed
       *[other] { $count } processes have /dev/kfd (ROCm) open but no DRM node: their GPU memory cannot be attributed
    }
report-note-fdinfo-line = { $path } line { $line }: { $text }: { $why }
report-drm-client = { $id } on { $slot }
report-drm-client-fd = on { $slot } (fd { $fd } of pid { $pid })
report-drm-shared-client = shares DRM client { $client } with pid { $owner }, which is charged for it

## Why a process's name, user and command line are missing
report-meta-not-visible = not visible in this /proc: the process exited during the round, or runs in another PID namespace (container or host)
report-meta-permission = permission denied reading /proc for this process
report-meta-unreadable = could not read { $path }: { $error }
report-note-fdinfo-more = { $count } more malformed fdinfo lines not listed

## Why a figure is unknown (Usage::unavailable_reason, the engines' reason)
report-why-drm-no-memory-keys = { $driver } prints no memory keys in fdinfo on this kernel
report-why-drm-no-memory-keys-unnamed = the driver prints no memory keys in fdinfo on this kernel
report-why-drm-line-malformed = { $path } line { $line } is malformed, so the { $region } figure is unknown
report-why-drm-malformed = { $path } is malformed, so the { $region } figure is unknown
report-why-engines-kfd = ROCm compute (/dev/kfd open): the amdkfd driver does not report engine time in fdinfo, so GPU % is unknown, not 0 %
report-why-engines-shared = engine time is charged to the process that holds the shared client
report-why-engines-first = first sample of this DRM client: engine use is a rate and needs a second round
report-why-nvml-wddm = NVML reports per-process memory as not available under WDDM (Windows manages video memory)
report-why-nvml-not-available = NVML reports this process's memory as not available (MIG without privileges, or not tracked by the driver)
report-why-wddm-no-instance = no { $counter } instance for this process
report-why-wddm-counter-invalid = { $counter }: counter status not valid
report-why-wddm-new-instance = no earlier WDDM reading of this process's engines (new since the last round)
report-why-wddm-no-engine = no GPU Engine instance for this process

## The kill guard rails' reasons (crates/actions kill::guard; the live view shares them)
report-guard-pid-zero = PID 0 is not a single process (kill(2) would signal our own process group)
report-guard-pid-range = PID { $pid } is out of range (it would be a negative pid_t, which signals a group)
report-guard-init = PID 1 is init: killing it brings down the whole system (or container)
report-guard-windows-system = PID 4 is the Windows System process
report-guard-self = this is gpuledger itself
report-guard-ancestor = this is a parent of gpuledger (the shell or program that started it)
report-guard-kernel-thread = { $name } is a kernel thread: signals cannot end it and it holds no user memory
report-guard-thread = { $pid } is a thread of process { $tgid }, not a process: kill PID { $tgid } to end it
report-guard-critical-flag = { $name } is marked critical by Windows: terminating it crashes the machine
report-guard-windows-critical = { $name } is a critical Windows system process: terminating it crashes or logs out the machine
report-guard-ends-display = looks like a display server, compositor or desktop shell: killing it ends the graphical session and every window in it
report-guard-ends-shell = is a shell or session process (a login shell, sshd, tmux, screen): ending it can close your terminal session and what runs in it
report-guard-session = { $name } { $ends }
report-guard-session-program = { $name } (its program is { $program }) { $ends }
report-selftest-process-gap = per-process memory: { $reason }

## probe's notes (crates/cuda probe, the CLI's probe command)
report-probe-note-no-nvml = no NVML view of this device: the NVML columns and the first context's cost are unknown
report-probe-note-device-wide = NVML's used memory is device-wide: other processes allocating or freeing during the probe show up in the NVML columns
report-probe-note-not-released = some memory did not show as free again within { $reads } reads { $ms } ms apart; the driver may release it later
report-probe-note-nvml-not-loaded = NVML could not be loaded: { $problem }

## the DRM round's finding (SourceStatus::detail of drm)
report-src-drm-round = { $devices ->
        [one] { $devices } DRM device
       *[other] { $devices } DRM devices
    } ({ $names }), { $clients ->
        [one] { $clients } client
       *[other] { $clients } clients
    }{ $sysfs } on { $read ->
        [one] { $read } descriptor
       *[other] { $read } descriptors
    } in { $procs } { $entries ->
        [one] process
       *[other] processes
    }; de-duplicated by (drm-pdev, drm-client-id){ $remarks }
report-src-drm-no-sysfs = ; no sysfs device data: { $error }
report-src-drm-remarks = ; { $items }
report-src-drm-vanished = { $count ->
        [one] { $count } descriptor
       *[other] { $count } descriptors
    } closed during the round
report-src-drm-skipped-nvml = { $count ->
        [one] { $count } client
       *[other] { $count } clients
    } on NVIDIA devices skipped (NVML reports them)
report-src-drm-unreadable-procs = descriptors of { $count ->
        [one] { $count } process
       *[other] { $count } processes
    } not readable (permission denied; other users' GPU use needs root)
report-src-drm-dxg = { $count ->
        [one] { $count } process
       *[other] { $count } processes
    } with /dev/dxg open (WSL2 GPU paravirtualisation: measured by the dxg source, not by fdinfo)

## explain: what each piece of evidence showed (the JSON keeps this English; views drop the
## kind's own words in English, and the other languages are written without them)
report-said-comma = { $a }, { $b }
report-ev-executable = executable { $path }
report-ev-process-name = process name { $name }
report-ev-model-file = model file { $path }
report-ev-parent = parent { $name } (pid { $pid })
report-ev-port = listens on TCP port { $port }
report-ev-library = { $what } { $path }
report-lib-ggml = llama.cpp / ggml library
report-lib-mlx = MLX library
report-lib-torch = PyTorch CUDA library
report-lib-cuda = CUDA/HIP runtime library
report-lib-graphics = graphics driver library
report-ev-in-cmdline = { $what } in the command line
report-ev-browser-gpu = browser GPU process (--type=gpu-process)
report-ev-ollama-runner = `ollama runner` for model { $model }
report-ev-llama-flags = llama.cpp flags: { $flags }
report-ev-flag-model = model { $value }
report-ev-flag-context = context { $value }
report-ev-flag-gpu-layers = { $value } GPU layers
report-ev-flag-slots = { $value } slots
report-ev-sglang-title = SGLang process title `{ $title }`
report-ev-vllm-engine = vLLM engine (vllm.entrypoints or VLLM:: process title)
report-ev-descendant = a descendant of pid { $pid } `{ $command }`, which runs { $kind }
report-ev-runtime-names = the runtime names this model { $name }
report-ev-gguf = GGUF header: architecture { $arch }, { $layers } layers, { $size }
report-ev-vllm-metrics = vLLM metrics
report-ev-sglang-info = SGLang server info
report-ev-sglang-info-tokens = SGLang server info, max_total_num_tokens { $tokens }
report-ev-ollama-none = Ollama: 0 models loaded
report-ev-ollama-loaded = Ollama: { $n } { $n ->
        [one] model
       *[other] models
    } loaded ({ $names })
report-ev-lmstudio-loaded = LM Studio: { $n } model(s) loaded
report-ev-props-401 = HTTP 401: the server was started with an API key
report-ev-health-200 = HTTP 200 (no key needed)
report-ev-slots-busy = { $busy } of { $total } slots busy

## explain: what was looked for and not found
report-missing-model-named = model file: { $path } is named on the command line but not mapped or open (not loaded yet, or read without mmap and closed)
report-missing-model = model file: none mapped or open
report-missing-port = listening port: none found (not a server, or its sockets are not readable)
report-missing-unreadable = could not read { $what }
report-facts-unreadable = { $path }: { $why }
report-facts-permission-denied = permission denied (another user's process; run as that user or root)
report-facts-exited = process exited
report-facts-macos-pidpath = pid { $pid }: proc_pidpath failed (another user's process?)
report-facts-macos-not-read = loaded libraries, command line and ports: not read on macOS yet
report-facts-windows-cmdline = command line: not read on Windows (model flags come from loaded files only)
report-facts-windows-open = pid { $pid }: OpenProcess: { $error } (another user's or a protected process)
report-facts-windows-modules = modules of pid { $pid }: not readable (access denied, or a 32/64-bit mismatch)
report-missing-log = runtime log: { $error }

## explain: how a process was placed in its workload
report-member-title = its title `{ $title }`
report-member-rank-vars = RANK and WORLD_SIZE in /proc/{ $pid }/environ
report-member-descendant = a descendant
report-member-rooted = { $how }; the workload's root is pid { $root } (`{ $command }`), from /proc/{ $pid }/stat's parent chain
report-member-rpc-client = pid { $client }'s --rpc names 127.0.0.1:{ $port }, where this rpc-server listens (/proc/{ $client }/cmdline, /proc/{ $pid }/net/tcp)
report-member-rpc-no-client = no llama-server on this machine names its port in --rpc: its client is elsewhere or gone
report-member-rpc-no-client-ports = no llama-server on this machine names its port ({ $ports }) in --rpc: its client is elsewhere or gone

## explain: why the runtime's own API was not asked, why no process figure
report-live-replay = replay: the live server is not asked
report-live-no-probe = --no-probe given
report-live-other-netns = the runtime's API was not asked: the process runs in another network namespace (a container), whose 127.0.0.1 is not this one's
report-live-not-server = not a model server
report-live-no-port = the process listens on no TCP port we can see
report-live-no-answer = no { $kind } API answered on port(s) { $ports }
report-explain-not-measured = no source reports GPU memory for this process
report-explain-deferred = this process holds no GPU memory of its own: its workload's { $holders } hold the model, { $total } estimated in all (WORKLOAD PROCESSES)

## kill: why the GPU memory a process holds is not known
report-kill-reason-not-reported = its GPU memory was not reported
report-kill-reason-wsl = WSL2 does not expose per-process GPU memory
report-kill-reason-no-gpu = no GPU found by any source
report-kill-reason-no-gpu-why = no GPU found by any source ({ $why })
report-kill-source-failed = { $name }: { $detail }

## A workload member's role: its leading words (what follows, TP1/2 or DP0, as written)
report-role-node-helper = engine (node helper)
report-role-engine-core = engine core
report-role-engine = engine
report-role-worker = worker
report-role-scheduler = scheduler
report-role-detokenizer = detokenizer
report-role-runner = runner
report-role-rpc-device = rpc device
report-role-child = child
report-explain-member = { $role }: { $how }

## verify: each source's verdict in words (the record keeps the English)
report-verify-ok = ok
report-verify-off-by = off by { $by } at { $step }
report-verify-source-per-process = { $name } (per process)
report-verify-source-device-used = { $name } (device used)
report-verify-source-unattributed = unattributed
report-verify-source-unattributed-of = unattributed { $name }
report-verify-off-at = off at { $step }
report-verify-off-why = { $off } ({ $why })
report-verify-cannot-see = cannot see ({ $why })
report-verify-step-idle = idle
report-verify-step-context = context
report-verify-step-allocated = allocated
report-verify-step-freed = freed
report-verify-step-exited = exited
report-verify-step-allocate = allocate
report-verify-step-free = free
report-verify-step-exit = exit
report-verify-never-listed = it never listed the child process
report-verify-why-lag = it lags a round: each step shows what the step before should
report-verify-why-twice = about twice the allocation: the memory is counted twice
report-verify-why-no-show = the allocation did not show at all
report-verify-why-still-listed = still listed after the process ended
report-verify-used-unknown = the device's used memory is unknown
report-verify-unattributed-unknown = device used is unknown, or the processes add up to more than it
report-verify-why-unaccounted = the per-process figures do not account for the child's memory as they should
report-verify-no-rss = the workload reported no resident memory: only read on Linux
report-verify-cpu-device = cannot see: a CPU device ({ $driver }) has no VRAM
report-verify-no-device = no source reports the device { $uuid }
report-verify-smi-not-run = not run (only the CUDA path asks nvidia-smi as a second witness)
report-verify-not-installed = not installed ({ $tool } is not on PATH)

## selftest: the saved probe result
report-probe-missing = no probe result at { $path } (run `gpuledger probe --save` to measure this machine's context and pinned-memory cost)
report-probe-present = probe result from { $at } ({ $age } old) for { $device } at { $path }
report-probe-unreadable = probe result unreadable: { $error }
report-probe-no-dir = no probe result: no data directory (set XDG_DATA_HOME or HOME)
report-age-days = { $n ->
        [one] { $n } day
       *[other] { $n } days
    }
report-age-hours = { $n ->
        [one] { $n } hour
       *[other] { $n } hours
    }
report-age-minutes = { $n ->
        [one] { $n } minute
       *[other] { $n } minutes
    }
report-age-seconds = { $n ->
        [one] { $n } second
       *[other] { $n } seconds
    }

## history: a recording that is not there
report-history-no-recording = no such recording (start one with `gpuledger record`)

## estimate --fit-advice: what a change does
report-fit-other-device = { $device } instead
report-fit-first-experts-on-host = the experts of the first layers on the host
report-fit-most-that-fits = the most that fits

## snapshot --group-by: the group of processes without such an owner, and other fixed labels
report-groups-outside-pod = not in a Kubernetes pod
report-groups-outside-container = not in a container
report-groups-outside-job = not in a Slurm job
report-groups-outside-user = user unknown
report-groups-outside-unit = not in a systemd unit
report-groups-outside-owner = owner unknown (cgroup unreadable, or the root cgroup)
report-groups-namespace-unknown = namespace unknown (the kubelet could not name the pod; see notes)
report-pod-names-unavailable = pod name and namespace come from the kubelet, which was not asked; the pod UID is from the cgroup path
report-kubelet-no-log-link = no container log link names its container id
report-kubelet-logs-unreadable = container log links unreadable ({ $error })
report-kubelet-uid-only = pod UID only: { $logs }; { $error }
report-kubelet-uid-only-shared = pod UID only: { $logs }, and the GPUs it uses were not assigned to exactly one pod the kubelet lists (a shared GPU, or not assigned through a device plugin)
report-groups-user = user { $name }
report-groups-namespace = namespace { $name }

## Windows (WDDM) and WSL (/dev/dxg): what the counters could not say
report-wddm-paired-alone = WDDM adapter { $adapter } has no PCI address from D3DKMT; paired with the only NVML device by elimination
report-wddm-dedicated-usage = per-process memory from Dedicated/Shared Usage: { $why }
report-wddm-luid-not-in-dxgi = adapter LUID { $luid } appears in the GPU counters but not in DXGI's adapter list; shown without a name or total
report-wddm-basic-render = { $count } process entries on the Microsoft Basic Render Driver (software adapter) left out: that is CPU rendering in system memory
report-wddm-instances-skipped = { $path }: { $count } instance name(s) skipped, e.g. { $example }
report-wddm-no-dxgi = DXGI adapter list unavailable ({ $error }): adapters are shown by LUID without names or totals
report-wddm-over-attributed = { $device }: the processes' WDDM figures add up to { $over } more than the adapter uses: shared surfaces are charged to every process that maps them ({ $who } carry the desktop's); bars are scaled to the sum, labels keep each process's own figure
report-wddm-carriers-usual = usually dwm.exe and csrss.exe
report-wddm-carriers-here = here { $list }
report-dxg-buffers-skipped = /dev/dxg: { $count } statistics buffer(s) skipped, e.g. { $example }
report-dxg-no-process-stats = per-process GPU statistics unavailable in WSL: { $why }
report-dxg-paired-alone = /dev/dxg adapter paired with the only NVML device by elimination (WSL gives no PCI address)

## macOS (IOKit): what the registry could not say
report-iokit-no-statistics = IOAccelerator { $class } has no PerformanceStatistics; left out
report-iokit-clients-left-out = { $count } GPU user client(s) without a readable IOUserClientCreator left out
report-iokit-alloc-as-used = { $class }: no "In use system memory"; used = "Alloc system memory"

## verify: what became of each workload path
report-verify-path-cannot-start = the { $api } workload cannot start: { $why }
report-verify-path-ran-first = ran (--path auto: the first that could start)
report-verify-path-ran-cuda-first = ran (--path auto: CUDA is tried first)
report-verify-path-ran-asked = ran (asked for with --path)
report-verify-path-not-tried = not tried: the { $ran } path ran (--path { $other } runs this one)
report-verify-path-not-asked = not asked for (--path { $ran })

## The values people type (durations, sizes, times): what was wrong and what is accepted
report-parse-not-a-duration = { $value } is not a duration (use e.g. 500ms, 2s, 1.5s, 5m, 1h, 7d or a number of seconds)
report-parse-below-minimum = { $value } is below the minimum of { $bound }
report-parse-above-maximum = { $value } is above the maximum of { $bound }
report-parse-not-a-size = { $value } is not a size (expected e.g. 512MiB, 8GiB, 4096)
report-parse-unknown-unit = { $value }: unknown unit { $unit } (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)
report-parse-too-large = { $value } is too large
report-parse-not-rfc3339 = { $value } is not an RFC 3339 time (expected e.g. 2026-11-29T08:00:00Z)
report-parse-before-1970 = { $value } is before 1970
report-parse-not-a-time = { $value } is neither an RFC 3339 time (2026-11-29T08:00:00Z) nor a duration ago (1h, 30m, 7d)

## watch --alert: what is wrong in an alert expression (the expression and a caret follow)
report-alert-at-column = { $message } (column { $column })
report-alert-not-a-number = { $value } is not a number
report-alert-unexpected-character = unexpected character { $char }
report-alert-unexpected-comparison = unexpected character { $char } (comparisons are >, >=, <, <=)
report-alert-unknown-field = unknown field { $name } (fields: { $fields })
report-alert-field-after = expected a field after this point
report-alert-expected-field = expected a field (one of { $fields })
report-alert-expected-comparison = expected >, >=, < or <= after { $field }
report-alert-expected-value = expected a value for { $field }
report-alert-no-or = "or" is not supported: give each alternative its own --alert
report-alert-expected-and = expected "and" or the end of the expression
report-alert-bare-number = { $field }: a bare number would be bytes; write a percentage of the device total like { $n }% or a size like { $n }GiB
report-alert-expected-size = { $field }: expected a size like 8GiB or a percentage of the device total like 90%, not { $value }
report-alert-expected-celsius = { $field }: expected degrees Celsius like 85, not { $value }
report-alert-expected-watts = { $field }: expected watts like 300, not { $value }
report-alert-expected-percentage = { $field }: expected a percentage like 90, not { $value }

## GGUF headers: what is wrong with a model file (the file's name comes first)
report-gguf-error = { $file }: { $message }
report-gguf-cannot-open = cannot open: { $error }
report-gguf-cannot-stat = cannot stat: { $error }
report-gguf-not-gguf = not a GGUF file (it does not start with "GGUF")
report-gguf-byte-swapped = version { $version } looks byte-swapped: big-endian GGUF files are not supported
report-gguf-version-1 = GGUF version 1 is no longer supported (llama.cpp rejects it too)
report-gguf-version = unsupported GGUF version { $version } (2 and 3 are known)
report-gguf-split-pattern = split.count is { $count } but the file name does not follow the NAME-00001-of-{ $padded }.gguf pattern, so the other parts cannot be found
report-gguf-split-count = split.count is { $count } but the file name says { $parts } parts
report-gguf-split-no = split.no is { $no } but this is part { $part } of { $count }
report-gguf-exabytes = with this file the model passes 4 EiB (2^62 bytes): sizes no disk holds, not read
report-gguf-truncated = { $field }: file ends after { $len } bytes, { $more } more needed (truncated file?)
report-gguf-reading = reading { $field }: { $error }
report-gguf-eof = { $field }: unexpected end of file
report-gguf-header-too-long = { $field }: the header goes on for more than { $limit } (read so far), far beyond any real model's header
report-gguf-skip-too-large = skip too large
report-gguf-seeking = seeking: { $error }
report-gguf-too-big = { $what } exceeds what a { $size } file can hold
report-gguf-too-big-rest = { $what } exceeds what the remaining { $left } of a { $size } file can hold
report-gguf-what-length = { $field } length { $n }
report-gguf-what-array = { $field }: array of { $len } { $type } elements
report-gguf-length-limit = { $field } length { $n } is above the limit of { $max } bytes
report-gguf-value-type = { $field }: unknown metadata value type { $id }
report-gguf-nested = { $field }: arrays nested deeper than { $depth }
report-gguf-alignment = general.alignment must be a non-zero power of two stored as u32, got { $value }
report-gguf-dims = { $field } has { $n } dimensions (ggml allows at most { $max })
report-gguf-negative = { $field } ne[{ $d }] is negative ({ $ne })
report-gguf-type-id = { $field } has unknown ggml type id { $id }
report-gguf-type-dropped = { $field } uses ggml type { $type } (id { $id }), which ggml no longer supports
report-gguf-dims-overflow = { $field } dimensions { $dims } overflow
report-gguf-row-length = { $field } row length { $ne0 } is not a multiple of the { $type } block size { $block }
report-gguf-size-overflow = { $field } size overflows
report-gguf-offset-alignment = tensor '{ $name }' offset { $offset } is not a multiple of the alignment { $alignment }
report-gguf-beyond-end = tensor '{ $name }' ({ $bytes } bytes at data offset { $offset }) ends beyond the end of the { $size } file (truncated download?)
report-gguf-count-negative = { $field } is negative ({ $n })
report-gguf-count-too-big = { $field } { $n } exceeds what a { $size } file can hold
report-gguf-count-limit = { $field } { $n } is above the limit of { $max }

## verify: why the workload stopped, the guard rails' question and refusals, the record's notes
report-verify-workload-gone = the workload process is gone
report-verify-workload-unreadable = the workload said something unreadable: { $error }
report-verify-workload-ended = the workload process ended before the { $step } step
report-verify-not-written = the driver has no cuMemsetD8: the allocation was not written, only reserved
report-verify-cleanup-failed = its clean-up at exit failed: { $error }
report-verify-ambiguous-device = --device { $n } is a CUDA ordinal under --path auto, but CUDA could not start and the Vulkan loader numbers its { $count } devices its own way ({ $n }: { $name } ({ $type }); also { $others }); run again with --path vulkan --device M to choose one of those
report-verify-the-device = the device
report-verify-device-label = { $api } device { $ordinal } ({ $name })
report-verify-cpu-device-unverifiable = { $device } is a CPU device ({ $driver }): its memory is the host's, which no GPU source can see; nothing was allocated (a --size within 10 % of its heap, or --yes, runs the sequence anyway, to show the allocation in the workload's own memory)
report-verify-no-answer = no answer to the question: { $error }
report-verify-release-late = { $step }: the release showed only after { $rounds } more round(s) { $ms } ms apart
report-verify-release-missing = { $step }: the release had not shown after { $rounds } more rounds
report-verify-room-heap = its heap
report-verify-room-heap-amount = { $bytes }, the driver reports no memory budget
report-verify-room-free = free memory
report-verify-room-free-amount = { $bytes } free
report-verify-room-unknown = the free memory of { $device } is unknown, so verify will not allocate { $size } there without --yes
report-verify-does-not-fit = { $size } does not fit: { $device } has { $amount } and verify uses at most 90 % of that; choose a smaller --size
report-verify-needs-yes = { $size } on { $device } is more than 10 % of { $what } ({ $amount }); pass --yes to allow it (there is no terminal to ask on)
report-verify-ask = Allocate { $size } on { $device }? That is more than 10 % of { $what } ({ $amount }). [y/N]{ " " }
report-verify-not-confirmed = not confirmed; nothing was allocated
report-verify-rederived-differ = re-derived verdicts differ from the saved ones for: { $sources }
report-verify-stopped-early = stopped early: { $why }
report-verify-failed = failed: { $why }
report-verify-no-device-reported = the workload reported no device
report-verify-no-cuda-uuid = the CUDA driver gave no device UUID, so its device cannot be matched to what the sources report
report-verify-vulkan-unmatched = no source reports the Vulkan device { $ordinal } ({ $name }; PCI { $pci }, UUID { $uuid })
report-verify-gtt-no-vram = the device reports no VRAM, so its device-local heap is system memory (GTT)
report-verify-gtt-heap = the device-local heap ({ $heap }) is larger than the device's VRAM ({ $vram }), so it is system memory (GTT)
report-verify-no-reason = no reason given
report-verify-no-gtt = the source reports no system memory (GTT) for this process
report-verify-pid-unknown = the workload's PID is unknown
report-verify-tool-not-run = not run
report-verify-pci-unknown-not-asked = the device's PCI address is unknown, so the tool could not be asked for it
report-verify-pci-address-unknown = the device's PCI address is unknown
report-verify-tool-exited = { $tool } exited with { $code }: { $line }
report-verify-not-json = { $query }: not the JSON its documentation shows ({ $error }); its output is kept raw in the record
report-verify-not-json-cut = { $query }: not the JSON its documentation shows ({ $error }, and it was cut at { $size }); its output is kept raw in the record
report-verify-shape = { $query }: { $what }; its output is kept raw in the record
report-verify-shape-not-gpus = not a list of GPUs
report-verify-shape-no-process-list = a GPU without a process_list
report-verify-shape-not-object = not an object
report-verify-shape-system = "system" is not an object
report-verify-shape-no-proc-list = no device_util_by_proc_list
report-verify-shape-gpus = { $count } GPUs listed for --gpu { $bdf }
report-verify-not-process-query = not a process query
report-verify-not-device-query = not a device query
report-verify-tool-prints = { $tool } prints { $value }
report-verify-tool-prints-no = { $tool } prints no { $field }
report-verify-no-card = rocm-smi lists no card at PCI { $bdf }
report-verify-no-xpum = xpu-smi reports no XPUM_STATS_MEMORY_USED
report-verify-tool-missing = { $tool } is not installed (not on PATH)
report-verify-tool-cannot-run = cannot run { $program }: { $error }
report-verify-tool-timed-out = { $tool } did not answer within { $seconds } s (stopped; what it printed is kept)
report-verify-not-asked-again = not asked again: { $why }

## probe (and verify's CUDA path): why the driver could not be used or the probe stopped
report-probe-err-load-open = cannot load the CUDA driver library { $path }: { $cause } (is the NVIDIA driver installed? --cuda-lib PATH loads it from elsewhere)
report-probe-err-load-symbol = the CUDA driver library { $path } has no symbol { $symbol }: { $cause }
report-probe-err-no-sizes = no sizes to probe
report-probe-err-zero-size = a size of 0 bytes cannot be probed
report-probe-err-host-unknown = cannot tell how much host memory is free ({ $why }), so the probe will not pin any
report-probe-err-host-too-small = refusing to pin { $size }: only { $available } of host memory is available ({ $source }), and the probe pins at most half of that; choose smaller --sizes
report-probe-err-vram-too-small = refusing to allocate { $size }: device { $device } has only { $free } of VRAM free, and the probe uses at most 90% of that; choose smaller --sizes
report-probe-err-no-devices = the CUDA driver reports no devices
report-probe-err-bad-device = there is no CUDA device { $ordinal }: the driver reports { $count } (ordinals 0 to { $last })
report-probe-err-context = could not create a CUDA context on device { $device } ({ $name }): { $cause }. Another process may hold the device in exclusive mode, or the driver may be in a bad state
report-probe-err-out-of-memory = out of memory: { $step } of { $size } failed: { $cause }. Everything the probe had allocated was released; choose smaller --sizes
report-probe-err-host-alloc = could not allocate { $size } of ordinary host memory to register
report-probe-err-interrupted = interrupted; everything the probe had allocated was released
report-selftest-version = version { $version }

# gpuledger plot: the chart's words (data-* attributes stay English).
report-plot-no-samples = no samples in the chosen time range
report-plot-used = used
report-plot-gpu-right-axis = GPU % (right axis)
report-plot-total-dashed = card total { $total } (dashed line)
report-plot-total-above = card total { $total } (above the scale)
report-plot-total-na = card total n/a
report-plot-other-processes = other processes
report-plot-unattributed = unattributed (driver/system/other users)
report-plot-time-range = { $from } → { $to } (UTC)

# watch's event lines and the live view's active alerts (the expression and field names stay as written).
report-alert-firing = FIRING
report-alert-resolved = RESOLVED
report-alert-subject-process = { $name } (pid { $pid }) on { $device }
report-alert-of-total = { $value } ({ $percent }% of total)
report-alert-gone = no longer present

## Where a runtime's flags were read; owners not taken at their word; --group-by's errors; several GPUs
report-owner-shape-pod = a Kubernetes pod's (kubepods…)
report-owner-shape-job = a Slurm job's (job_<id>)
report-owner-doubt-delegated = the cgroup path is shaped like { $what } but lies in a user's delegated systemd subtree ({ $manager }), where that user may create any cgroup: shown as that user's
report-owner-doubt-not-kubelet = the cgroup path is shaped like { $what } but is not under the kubelet's cgroup root (/kubepods, /kubepods.slice, a kind node's /kubelet): not taken as a pod
report-owner-doubt-not-slurmd = the cgroup path is shaped like { $what } but is not under slurmd's cgroup root (/slurm, /slurm_<node>, /system.slice/slurmstepd.scope): not taken as a job
report-err-not-grouping = { $given } is not a grouping: use one of { $choices }

## The kubelet source's status (sources/owner/kubelet)
report-kubelet-api-error = kubelet pod-resources API at { $path }: { $error }
report-kubelet-no-socket = kubelet pod-resources API: no socket at { $path } (not a Kubernetes node, or the kubelet's pod-resources directory is not mounted here)
report-kubelet-refused = kubelet pod-resources API: { $path }: connection refused (nothing listens: the kubelet is not running, or the socket is stale)
report-kubelet-denied = kubelet pod-resources API: { $path }: permission denied (the socket is root's; run as root or give this user access)
report-kubelet-mig-unmatched = { $n } MIG device ids not matched to a GPU (NVML lists no such MIG device: MIG off, or a driver without the MIG calls)
report-kubelet-driver-unreadable = the driver's GPU list is unreadable: { $error }
report-kubelet-no-gpu-node = no GPU with that device node
report-kubelet-node-unmatched = { $n } device-node ids (GKE) not matched ({ $why })
report-kubelet-allocatable-failed = GetAllocatableResources failed: { $error }
report-kubelet-allocatable = { $n } allocatable GPU device ids
report-kubelet-ok = { $pods } pods listed, { $gpus }; { $named } GPU processes named, { $unnamed } by pod UID only
report-kubelet-unavailable = { $error }; { $named } GPU processes named from container log links, { $unnamed } by pod UID only
report-kubelet-connect-failed = kubelet pod-resources API: { $error }
