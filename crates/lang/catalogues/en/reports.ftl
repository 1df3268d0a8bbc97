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
