# The command line: --help summaries, headings and common errors, English. The summaries are the
# doc comments clap reads (crates/cli/src/main.rs); a test keeps them equal.

cli-about = Who is using my GPU memory, and why.
cli-long-about =
    Who is using my GPU memory, and why.

    gpuledger lists GPU memory per device and per process from the driver's own counters (the measured ledger), shows what no process accounts for as an explicit 'unattributed' row, and keeps every unknown value visible as n/a with its reason.
cli-about-snapshot = One collection round, as a table or as JSON (the stable gpuledger.snapshot/1 contract)
cli-about-explain = Everything known about one process: measured memory, what it is and why we think so, its live server state, and (llama.cpp) the estimated ledger beside the measurement
cli-about-probe = Measure what the CUDA driver charges to VRAM on this machine for a context and for pinned host memory (cuMemHostAlloc, cuMemHostRegister), with device memory as the control
cli-about-estimate = What llama-server would allocate for a GGUF model with llama-server's flags (weights, KV cache, output, compute, overhead; every input with its source), and whether it fits in what is free now on a GPU
cli-about-selftest = Check every data source on this machine: what it sees, what it cannot see, and why
cli-about-diff = What changed between two snapshots, per device and per process, with the pairing rule
cli-about-record = Record samples into an SQLite database until Ctrl-C / SIGTERM
cli-about-history = Query a recording: process or device rows as a table, CSV or JSON
cli-about-watch = Threshold alerts: print (and optionally run a command) when an expression holds
cli-about-plot = Chart a recording (device memory, GPU %, top processes stacked) as SVG or PNG
cli-about-serve = Read-only HTTP: Prometheus metrics, the JSON snapshot and the browser view, collected in the background
cli-about-ui = The browser view: serve this machine on a free loopback port and open it in the default browser
cli-about-kill = Terminate processes safely: graceful first, forced after a grace period, verified gone
    .long =
        Terminate processes safely: graceful first, forced after a grace period, verified gone.

        Before acting, each process's name and start time are re-read and compared with what you confirmed (a reused PID is skipped). Never PID 1, kernel threads, gpuledger or its parents, or critical Windows processes; display servers and compositors need --yes-really. Without --yes it asks on the terminal, naming each process and its measured GPU memory.
cli-about-verify = Prove the numbers: run a known workload (context, N bytes allocated, freed, exit) and check what every source saw at each step
cli-about-completions = Print a shell completion script (bash, zsh, fish, powershell, elvish)
    .long =
        Print a shell completion script (bash, zsh, fish, powershell, elvish).

        bash: `gpuledger completions bash > /etc/bash_completion.d/gpuledger`; zsh: into a folder on $fpath as `_gpuledger`; fish: `~/.config/fish/completions/gpuledger.fish`.
cli-about-man = Print the man page (roff), or write one page per command into a folder with --dir
cli-heading-commands = Commands
cli-heading-sources = Where to read from
cli-exit-codes =
    Exit status:
      0  success (no GPU found is a normal outcome, not an error)
      1  an error: unreadable or invalid input file, failed output
      2  bad command-line usage
cli-unknown-lang = unknown language '{ $lang }': one of { $known } (`gpuledger --lang list`)

## common errors (reading a --replay file)
cli-err-cannot-read = { $path }: cannot read: { $error }
cli-err-too-large = { $path }: too large for a snapshot ({ $error })
cli-err-not-utf8 = { $path }: not a snapshot: not UTF-8 text ({ $error })
cli-err-not-snapshot = { $path }: not a valid snapshot: { $error }
cli-err-at-needs-replay = --at needs --replay RECORDING.db (a `gpuledger record` database)
cli-err-at-snapshot-file = --at picks a moment of a recording, but { $path } is a snapshot file

## commands that act on or measure the live machine
cli-err-kill-replay = kill acts on the live machine: --replay cannot be used with it
cli-err-kill-proc-root = kill acts on live processes: --proc-root { $path } cannot be used with it
cli-err-probe-replay = probe measures the live machine; it cannot run on a replay

## the commands' own exit statuses (after their --help) and the longer summaries
cli-exit-codes-kill =
    Exit status:
      0  every target verified gone (exited; a zombie waiting for its parent counts)
      1  an unexpected error
      2  bad command-line usage
      3  a target is still alive after SIGKILL / TerminateProcess (see the remedies)
      4  refused: a guard rail (PID 1, kernel thread, gpuledger or its parents, critical system
         process), a display server or session shell without --yes-really, declined at the
         prompt, or no terminal to ask on and no --yes
      5  permission denied: another user's (or an elevated) process
      6  no such process, or the PID now names a different process (skipped)
      7  dry run: nothing was signalled
    With several targets the most serious code wins (3 > 1 > 5 > 4 > 6 > 7).
cli-exit-codes-probe =
    Exit status:
      0    success
      1    an error (no driver, no device, out of memory, a size that does not fit); everything the
           probe allocated has been released
      2    bad command-line usage
      130  interrupted (Ctrl-C); everything the probe allocated has been released
cli-exit-codes-verify =
    Exit status:
      0    every source gpuledger reads saw the workload as expected
      1    an error (the workload could not run to the end); everything it allocated was released
      2    bad command-line usage
      3    nothing could be verified: neither a CUDA nor a Vulkan workload could start (no driver,
           no device: the message says which), or the only device is a CPU device (lavapipe),
           whose memory no GPU source can see
      4    a source gpuledger reads is off or cannot see the workload (the verdicts say which);
           the vendor tool's verdict is shown but does not change the status
      130  interrupted (Ctrl-C); everything the workload allocated was released

## the longer texts after some commands' --help (their exit statuses at the end)
cli-after-estimate =
    llama-server flags (same names and defaults as llama-server), read by one table made from
    llama.cpp's own list (build b11434, and older builds' flags) as for a running server:
      -c, --ctx-size N            context (0 = the model's training context; padded to 256)
      -np, --parallel N           slots (default auto: 4 slots sharing one unified cache)
      -kvu, --kv-unified          one cache shared by all slots
      -no-kvu, --no-kv-unified    one cache per slot
      -ngl, --n-gpu-layers N      layers on the GPU: a number, auto or all (default auto = all here)
      -b, --batch-size N          logical batch (default 2048)
      -ub, --ubatch-size N        physical batch (default 512)
      -ctk, --cache-type-k T      K cache type: f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1
      -ctv, --cache-type-v T      V cache type (quantised V needs flash attention)
      -fa, --flash-attn on|off|auto
                                  (a bare -fa, the switch of older builds, is on)
      --swa-full                  full-size cache for sliding-window layers
      -nkvo, --no-kv-offload      keep the KV cache on the host
      --no-mmap, -lm none         load weights into host memory instead of mapping the file
                                  (-lm/--load-mode is the spelling of current builds)
      -ot, --override-tensor PATTERN=TYPE[,...]
                                  tensors whose name matches PATTERN (a regex) in buffer type CPU
                                  (host) or a device's (CUDA0, Vulkan0): the first match wins,
                                  whatever -ngl says of the tensor's layer; repeatable
      -cmoe, --cpu-moe            every MoE expert tensor on the host
      -ncmoe, --n-cpu-moe N       the expert tensors of the first N layers on the host
      -ncffn, --n-cpu-ffn N       the dense FFN tensors of the first N layers on the host
      --rpc HOST:PORT[,...]       RPC servers: one device each, first in llama.cpp's device order
      -ts, --tensor-split N,N     layer proportions per device (default: by free memory)
      -sm, --split-mode none|layer
                                  none: only --main-gpu's device (row and tensor not modelled)
      -mg, --main-gpu N           the device -sm none keeps
      -fit, --fit on|off          fit an unset -c and -ngl to free memory before loading (llama.cpp's
                                  default: on). Replayed when each device's free memory is known
                                  (--free, or the live GPU): the estimate is for what it would pick,
                                  and shows the flags that pin it, one per line, each runnable
      -fitt, --fit-target MiB[,MiB...]
                                  free memory --fit leaves on each device (default 1024)
      -fitc, --fit-ctx N          the smallest context --fit may pick (default 4096; -c 0 asks for
                                  the full context)
      Every other llama-server flag is accepted, never refused: one that changes memory in a way not
      modelled yet (-md, --mmproj, -sm row ...) is named in a
      note with its value; one with no effect on memory (--host, --port, -t, --jinja, -a, --api-key
    {"  ."}..) is listed by name; an unknown one is named in a warning.
    A whole llama-server command line can follow `--` (or start at its program, llama-server or a
    path to it): its -m names the model when no MODEL.gguf comes first, LLAMA_ARG_* assignments in
    front of it are read as its environment, and every flag after it is llama-server's:
      gpuledger estimate --json -- llama-server -m m.gguf -c 8192 -fa on --port 8080
    gpuledger options (before `--` or the program):
      --json                      the estimate (and fit check) as JSON
      --device N                  GPU index for the fit check (default 0); a device name
                                  (--device CUDA0,CUDA1) is llama-server's own --device
      --backend cuda|rocm|vulkan|metal|cpu
                                  which kind of device buffers to model (default: from the device's
                                  vendor when a GPU is found, else cuda)
      --tool server|cli|mtmd|bench
                                  the llama.cpp program that runs the model (or its name:
                                  llama-cli, llama-mtmd-cli, llama-bench); default server. The
                                  one-sequence tools get 1 sequence (-np) and no unified cache
                                  instead of the server's 4 auto slots; bench a context of 640
                                  (its default -p 512 -n 128) unless -c is given
      --llama-build N             the llama.cpp build to follow (as `llama-server --version` prints
                                  it: 8123 or b8123); compute-buffer rules changed between builds
                                  (default: the newest rules)
      --gpus N                    local GPUs llama.cpp uses, from --device on (default 1, though
                                  llama-server uses every GPU it sees: a note says when this machine
                                  has more); with --rpc servers (first in its device order) and
                                  -ts/-sm/-mg, the estimate shows each device's layers, weights, KV
                                  cache and compute buffer, and reads their free memory live
      --free SIZE,SIZE            free memory per device, in that order (24GiB,24GiB): --fit's
                                  budget, and without -ts llama.cpp splits the layers by it (default:
                                  evenly); with no device (cpu), the host's total memory
      --no-fit-check              do not look at the live machine
      --log FILE                  llama-server's log for this model (-lv 4): show its own buffer
                                  figures beside the estimate
    When the estimate does not fit the checked GPU's free memory, the cheapest changes that would
    (--n-cpu-moe N, a smaller -c, fewer -ngl, another GPU) are listed, each checked by estimating
    again, and the exit status is 3.

    { cli-exit-codes }
cli-after-serve =
    Endpoints (GET/HEAD only; nothing on the machine can be changed through them):
      /metrics           Prometheus text format; unknown values are absent, never 0
      /api/v1/snapshot   the snapshot as JSON (schema gpuledger.snapshot/1), as snapshot --json
      /api/v1/history    recent samples kept in memory (?since=UNIX_MS), for the page's curves
      /api/v1/words      the text views' words and units (n/a, byte units, labels), for the page
      /healthz           200 while collection rounds keep coming, 503 when they stall
      /                  the browser view: devices, processes, why, curves (`gpuledger ui`)

    Collection runs in the background every --interval; requests only read the latest round.
    With --replay FILE the recording is served as it is, marked as a replay.

    Names answered (the Host header; anything else gets 421 Misdirected Request, so a web
    page whose DNS name is pointed at this machine cannot read it): localhost, 127.0.0.1
    (any 127/8 address), [::1] and the listen address, with any port, plus each
    --allow-host NAME. With --allow-remote on a non-loopback address, also any IP address
    (Prometheus and kubelet probes ask by address; a request naming an address cannot come
    from a rebound page) and this machine's host name (scraping by node name); give other
    names (a DNS alias, a FQDN, a reverse proxy's upstream name) with --allow-host.

    { cli-exit-codes }
cli-after-ui =
    The page shows each GPU with its memory ledger, the processes (sortable, filterable;
    keyboard: arrows and Enter), why a process holds what it holds (measured, reported by
    the runtime, estimated, the evidence), memory curves from the server's recent samples,
    and what could not be seen. Read-only, on 127.0.0.1 only; Ctrl-C stops it. With
    --replay FILE the recording is shown, marked as a replay.

    { cli-exit-codes }
cli-after-watch =
    Alert expressions: FIELD OP VALUE [and FIELD OP VALUE ...]; OP is >, >=, < or <=.
      device.memory.used, device.memory.free, device.memory.unattributed:
          a size (8GiB, 512MiB) or a share of the device total (90%)
      process.memory: a size, or a share of its device's total
      device.utilization.gpu, process.sm: percent (90 or 90%)
      device.temperature: degrees Celsius (85)
      device.power: watts (300)
    A process.* field makes the alert per process per device. Unknown values never match.
    An alert fires once when its expression has held for --for, and resolves once it has been false
    for --for. --exec runs the command (via sh -c) with GPULEDGER_ALERT, GPULEDGER_ALERT_STATE,
    GPULEDGER_ALERT_TIME, GPULEDGER_ALERT_TEXT, GPULEDGER_DEVICE_UUID, GPULEDGER_DEVICE_INDEX,
    GPULEDGER_PID, GPULEDGER_PROCESS_NAME and GPULEDGER_VALUE_<FIELD> set (never command lines).
    GPULEDGER_ALERT_TEXT is the line as printed, in the chosen language; the others never change with it.

    Examples:
      gpuledger watch --alert 'device.memory.used > 90%' \
          --alert 'process.memory > 8GiB' --for 30s
      gpuledger watch --for 1m \
          --alert 'device.temperature > 85 and device.utilization.gpu < 10' \
          --exec 'notify-send "$GPULEDGER_ALERT_TEXT"'

    { cli-exit-codes }

## clap's own words in --help and the man pages
cli-usage = Usage: { $usage }
cli-heading-options = Options
cli-heading-arguments = Arguments
cli-help-flag = Print help
cli-help-flag-more = Print help (see more with '--help')
cli-help-flag-summary = Print help (see a summary with '-h')
cli-version-flag = Print version
cli-help-command = Print this message or the help of the given subcommand(s)
cli-help-command-arg = Print help for the subcommand(s)
cli-spec-env = [env: { $env }]
cli-spec-default = [default: { $value }]
cli-spec-possible = [possible values: { $values }]
cli-man-name = NAME
cli-man-synopsis = SYNOPSIS
cli-man-description = DESCRIPTION
cli-man-extra = EXTRA
cli-man-version = VERSION
cli-man-live-view-keys = LIVE VIEW KEYS
cli-man-live-view-intro = The live view (gpuledger with no sub-command) answers these keys; ? or F1 shows them there.

## each argument's help: cli-arg-<command>-<argument>, cli-arg-<argument> for gpuledger's own
## and the global ones (the CLI's test keeps them equal to the doc comments, and finds a key
## that names no argument)
cli-arg-proc-root = Read process information from this procfs tree instead of /proc (recorded data, tests)
cli-arg-sys-root = Read device information from this sysfs tree instead of /sys
cli-arg-nvml-lib = Load NVML from this file instead of searching for libnvidia-ml.so.1 / nvml.dll
cli-arg-kubelet-socket = The kubelet's pod-resources socket, asked for the names of pods and the devices their containers were assigned (Kubernetes nodes; a GPU process in a pod keeps its UID when the socket is absent or does not answer within 2 s)
cli-arg-container-logs = The kubelet's container log links (`<pod>_<namespace>_<container>-<id>.log`), which join a process's container id to its pod's name
cli-arg-no-probe = Do not ask model servers' own HTTP APIs on loopback (llama-server /props, vLLM /metrics, SGLang /get_server_info, Ollama /api/ps, LM Studio /api/v0/models). Without it, `explain` and `snapshot` ask them while they collect, and the live view, `serve`, `watch` and `record` ask from a background thread (the answers show a round or two later)
cli-arg-replay = Show a saved snapshot (JSON from `gpuledger snapshot --json`) or a recording (the database of `gpuledger record`; pick the moment with `snapshot --at`) instead of the live machine. The output is marked as a replay
cli-arg-lang = The language people read: en, zh-CN (Simplified Chinese) or zh-TW (Traditional, also for Hong Kong and Macau); `--lang list` or `--lang` alone lists them. Without it: GPULEDGER_LANG, LANGUAGE (unless the locale is C), LC_ALL, LC_MESSAGES, LANG, then the Windows display language. JSON, CSV, metrics and recordings are the same in every language
cli-arg-interval = Live view: refresh interval, in seconds (`0.5`) or with a unit (`500ms`, `2s`). Minimum 100 ms; `+`/`-` change it while running
cli-arg-theme = Live view: colour theme. `NO_COLOR` in the environment forces monochrome
cli-arg-mono = Live view: no colours, only bold / reverse / dim
cli-arg-at = Live view with `--replay` of a recording: the moment to show (RFC 3339, or a duration ago such as `10m`); the latest sample when absent
cli-arg-alerts = Live view: an alert expression (repeatable) shown as ALERT while it holds, e.g. 'device.memory.used > 90%' (the language of `gpuledger watch --help`)
cli-arg-remote = Live view of another machine running `gpuledger serve` (e.g. http://gpu-box:9835), read-only: its snapshot is fetched every interval, nothing is collected or changed here
cli-arg-snapshot-json = Print the snapshot as JSON (schema gpuledger.snapshot/1); same as `--format json`
cli-arg-snapshot-format = Output format: a table, JSON (gpuledger.snapshot/1), or CSV (a header row, one row per device, per process on a device, and per device's unattributed memory)
cli-arg-snapshot-wide = Do not shorten command lines in the table
cli-arg-snapshot-at = With `--replay` of a recording (a `gpuledger record` database): the moment to show, an RFC 3339 time or a duration ago (`10m`). The latest sample at or before it is shown
cli-arg-snapshot-group-by = Sum measured memory per owner on each GPU, from the processes' cgroups: pod (Kubernetes pod UID), namespace (named by the kubelet: --kubelet-socket, --container-logs; when it cannot say, one group that says why), container, job (Slurm), user, unit (systemd) or owner (any of them). Unattributed memory stays a row of its own. A table, or JSON (gpuledger.groups/1) with --json
cli-arg-explain-pid = The process to explain (any PID; GPU memory is shown when a source reports some)
cli-arg-explain-json = Print the explanation as JSON
cli-arg-explain-probe-timeout-ms = Time limit for each loopback HTTP probe, in milliseconds
cli-arg-explain-log = The runtime's log (llama-server started with `-lv 4`): its own buffer sizes are shown beside the estimate
cli-arg-probe-device = CUDA device ordinal to probe
cli-arg-probe-sizes = Sizes to allocate with each method, comma-separated (e.g. 256MiB,512MiB,1GiB)
cli-arg-probe-json = Print the result as JSON instead of a table
cli-arg-probe-save = Save the result, so `estimate` and `explain` use this machine's measured overhead
cli-arg-probe-probe-file = Where --save writes [default: $XDG_DATA_HOME/gpuledger/probe.json, else ~/.local/share/gpuledger/probe.json; %LOCALAPPDATA%\gpuledger\probe.json on Windows]
cli-arg-probe-cuda-lib = Load the CUDA driver from this file instead of libcuda.so.1 / nvcuda.dll
cli-arg-probe-settle-ms = Pause between re-reads of free memory after a free (release can be asynchronous)
cli-arg-estimate-args = The model (any part of a split model), then llama-server flags and gpuledger options; or a whole llama-server command line after `--` (see below)
cli-arg-selftest-json = Print the findings as JSON
cli-arg-diff-before = The earlier snapshot (JSON from `gpuledger snapshot --json`)
cli-arg-diff-after = The later snapshot
cli-arg-diff-json = Print the diff as JSON (schema gpuledger.diff/1), every process included
cli-arg-diff-all = List unchanged processes and estimate parts too (by default only what changed, and a count of the rest)
cli-arg-record-interval = Time between samples. A round that runs late skips the ticks it missed
cli-arg-record-db = The database (default: $XDG_DATA_HOME/gpuledger/history.db, else ~/.local/share/gpuledger/history.db, whose folder is created). A given path's folder must exist
cli-arg-record-retention = Keep samples this long; older ones are pruned at start and every hour
cli-arg-record-flush-every = Commit samples to the database this often, in one transaction; also on stop. The default, 0s, commits every sample: a kill -9 or an OOM kill loses at most the sample being taken. Commits are not fsynced (SQLite WAL, synchronous=NORMAL), so a power loss or OS crash can also lose what came after SQLite's last checkpoint. A longer time, e.g. 10s, batches samples for fewer disk writes, and a kill -9 loses up to that much
cli-arg-record-count = Stop after this many samples (default: until Ctrl-C / SIGTERM)
cli-arg-history-db = The database (default: `--replay FILE`, else the one `gpuledger record` writes)
cli-arg-history-since = From this time: RFC 3339 (2026-11-29T08:00:00Z) or a duration ago (1h, 30m, 7d)
cli-arg-history-until = Up to this time (same forms; default now)
cli-arg-history-pid = Only this PID
cli-arg-history-name = Only processes with this name
cli-arg-history-device = Only this device: its index (as `snapshot` numbers them) or its UUID
cli-arg-history-devices = Device rows (memory, GPU %, temperature, power) instead of process rows
cli-arg-history-format = table, csv (header row, RFC 4180, RFC 3339 times) or json (an array of rows)
cli-arg-watch-alerts = An alert expression (repeatable), e.g. 'device.memory.used > 90%'. See --help
cli-arg-watch-hold = How long an expression must hold before firing, and be false before resolving
cli-arg-watch-exec = Run this command (sh -c) for every alert that fires or resolves, with the alert in the environment
cli-arg-watch-json = Print alerts as JSON lines
cli-arg-watch-interval = Time between samples
cli-arg-watch-count = Stop after this many samples (default: until Ctrl-C / SIGTERM)
cli-arg-plot-db = The database (default: `--replay FILE`, else the one `gpuledger record` writes)
cli-arg-plot-since = From this time: RFC 3339 (2026-11-29T08:00:00Z) or a duration ago (1h, 30m, 7d)
cli-arg-plot-until = Up to this time (same forms; default now)
cli-arg-plot-device = Only this device: its index (as `snapshot` numbers them) or its UUID
cli-arg-plot-top = How many processes to stack by name; the rest are summed as "other processes"
cli-arg-plot-out = Output file: `.svg`, or `.png` (the same chart rasterised; its text needs a font installed, e.g. Debian's fonts-dejavu-core)
cli-arg-serve-listen = Address to listen on. Loopback unless --allow-remote is given
cli-arg-serve-interval = Time between collection rounds (e.g. 5s, 500ms, 1m)
cli-arg-serve-processes = Which processes get per-process series: top-N by memory, all, or none
cli-arg-serve-dcgm-compat = Also export NVIDIA dcgm-exporter's device metrics (DCGM_FI_DEV_FB_USED, _FB_FREE in MiB, _GPU_UTIL, _MEM_COPY_UTIL, _GPU_TEMP, _POWER_USAGE, clocks) with its labels (gpu, UUID, device, modelName, Hostname), for dashboards written for dcgm-exporter
cli-arg-serve-allow-remote = Allow listening on a non-loopback address. The endpoints have no authentication and show process names and users of this machine to anyone who can reach them
cli-arg-serve-allow-hosts = Also answer requests that call this server NAME (a host name or an IP address, no port; repeatable): a DNS alias, a reverse proxy's upstream name, a FQDN Prometheus scrapes
cli-arg-ui-interval = Time between collection rounds; the page refreshes at the same pace (e.g. 2s, 500ms)
cli-arg-ui-port = Port on 127.0.0.1; 0 picks a free one
cli-arg-ui-no-open = Print the address without starting a browser
cli-arg-ui-allow-hosts = Also answer requests that call this server NAME (a host name or an IP address, no port; repeatable). Without it only localhost, 127.0.0.1 and `[::1]` are answered (421 otherwise), so a web page whose DNS name is pointed at 127.0.0.1 cannot read this machine's processes
cli-arg-kill-pids = Process IDs to terminate
cli-arg-kill-force = Skip the graceful step: SIGKILL / TerminateProcess at once
cli-arg-kill-grace = How long to wait after SIGTERM / WM_CLOSE before forcing: `5s`, `500ms`, `1m` or a number of seconds, at most an hour
cli-arg-kill-yes = Do not ask: the targets are confirmed
cli-arg-kill-yes-really = The second confirmation needed for display servers, compositors, desktop shells and session shells (a login shell, sshd, tmux, screen)
cli-arg-kill-dry-run = Say what would be done; signal nothing
cli-arg-kill-json = Print each target's outcome as JSON
cli-arg-verify-size = How much device memory the workload allocates and writes
cli-arg-verify-device = The device to run the workload on: the CUDA ordinal (default 0), or the index in the Vulkan loader's list (default: the first device that is not a CPU device). Under `--path auto` it is a CUDA ordinal: should CUDA not start and the loader list several devices, verify refuses rather than guess which one is meant
cli-arg-verify-path = Which workload runs: `cuda` (the CUDA driver), `vulkan` (the Vulkan loader: AMD, Intel, NVIDIA, Mesa's lavapipe), or `auto` (CUDA, and Vulkan when CUDA cannot start)
cli-arg-verify-json = Print the whole record (every reading, every verdict) as JSON
cli-arg-verify-save = Also write the whole record to FILE (replay it with `gpuledger --replay FILE verify`)
cli-arg-verify-yes = Do not ask before allocating more than 10 % of free memory (on the Vulkan path: of the heap's budget, or of the heap where the driver reports no budget), and allow a device whose free memory is unknown
cli-arg-verify-cuda-lib = Load the CUDA driver from this file instead of libcuda.so.1 / nvcuda.dll
cli-arg-verify-vulkan-lib = Load the Vulkan loader from this file instead of libvulkan.so.1 / vulkan-1.dll / libvulkan.dylib (which drivers it finds is the loader's business: VK_ICD_FILENAMES)
cli-arg-completions-shell = The shell to write a completion script for
cli-arg-man-dir = Write gpuledger.1 and one page per sub-command (gpuledger-snapshot.1, ...) into this folder instead of printing gpuledger.1 to standard output

## clap's usage errors (an unknown option, a missing one, a bad value); English shows clap's own text
cli-err-unknown-arg = error: unexpected argument '{ $arg }' found
cli-err-unknown-subcommand = error: unrecognized subcommand '{ $name }'
cli-err-missing = error: the following required arguments were not provided: { $args }
cli-err-invalid-value = error: invalid value '{ $value }' for '{ $arg }'
cli-err-because = { $line }: { $why }
cli-err-conflict = error: the argument '{ $arg }' cannot be used with '{ $other }'
cli-err-possible = [possible values: { $values }]
cli-err-tip-similar = tip: did you mean '{ $similar }'?
cli-err-more-info = For more information, try '--help'.

## ui, serve and record: what they say on starting and stopping
cli-ui-at = gpuledger ui: the browser view is at { $url } (read-only, this machine only; Ctrl-C stops)
cli-ui-at-replay = gpuledger ui: the browser view of a REPLAY is at { $url } (read-only, this machine only; Ctrl-C stops)
cli-ui-opened = gpuledger ui: opened it with { $how }
cli-ui-no-browser = gpuledger ui: could not start a browser ({ $why }); open { $url } yourself. Still serving.
cli-serve-listening = gpuledger serve: listening on http://{ $addr } (/, /metrics, /api/v1/snapshot, /healthz)
cli-serve-listening-replay = gpuledger serve: listening on http://{ $addr } (/, /metrics, /api/v1/snapshot, /healthz) — serving a REPLAY
cli-record-start = gpuledger: recording every { $interval } into { $path } (retention { $retention }{ $pruned ->
        [0] { "" }
       *[other] , pruned { $pruned } old samples
    }); Ctrl-C to stop
cli-record-span = { " " }from { $from } to { $to }
cli-record-done = gpuledger: recorded { $samples } samples{ $span } into { $path }{ $skipped ->
        [0] { "" }
       *[other] { " " }({ $skipped } late ticks skipped)
    }
cli-record-stopped = recording stopped: { $samples ->
        [one] { $samples } sample of this run is
       *[other] { $samples } samples of this run are
    } kept in { $path }{ $span }; { $lost } not written
cli-record-kept-span = { " " }(from { $from } to { $to })

## estimate: what of the command line was not used
cli-warning = gpuledger: warning: { $text }
cli-warn-model-not-read = -m { $m } in the command line is not read: estimating { $word }
cli-warn-not-flags = not llama-server flags, ignored: { $flags }
cli-warn-ignored = ignored: { $words }
cli-warn-env-not-read = environment not read: { $names }
cli-verify-interrupted = gpuledger verify: interrupted; the workload released everything it held

## Why a command could not go on (said where it fails; the OS's own words come as $error)
cli-err-option-value = { $option }: { $why }
cli-err-size-zero = { $value }: a size must be more than 0 bytes
cli-err-size-too-large = { $value }: larger than any GPU
cli-err-plot-extension = the output file must end in .svg or .png
cli-err-remote-not-http = --remote: { $url } is not an http:// URL of `gpuledger serve`
cli-err-remote-https = --remote: https is not supported (this build has no TLS); put the server behind an SSH tunnel or use http on a trusted network
cli-err-remote-and-replay = --remote and --replay both name what to show: give one
cli-err-no-data-dir = no data directory: set XDG_DATA_HOME or HOME, or give the database with --db
cli-err-record-replay = record samples the live machine; it cannot record a replay
cli-err-record-no-folder = --db { $db }: the folder { $folder } does not exist; create it first (only the default database's folder is created)
cli-err-cannot-read-log = { $path }: cannot read the log: { $error }
cli-err-pid-not-replayed = pid { $pid } is not in the replayed snapshot { $replay }
cli-err-no-such-pid = no process { $pid } in { $root }
cli-err-pid-unreadable = pid { $pid }: { $error }
cli-err-no-buffer-lines = { $path }: no llama.cpp buffer-size lines found (start llama-server with -lv 4)
cli-err-serve-not-loopback = refusing to listen on { $listen }: it is not a loopback address. The endpoints have no authentication and show process names and users of this machine; pass --allow-remote to serve them on the network anyway
cli-serve-not-loopback = gpuledger serve: WARNING: listening on { $listen } (not loopback). Anyone who can reach it can read this machine's GPU processes, their names and users. There is no authentication or TLS: restrict access with a firewall or a reverse proxy.
cli-err-serve-cannot-listen = cannot serve on { $listen }: { $error }
cli-err-plot-png = { $path }: cannot make the PNG: { $error }
cli-err-plot-no-font = no font found for the chart's text (install one, e.g. fonts-dejavu-core); the .svg needs none
cli-replay-recording-at = { $path } at { $at }
cli-plot-title = GPU memory and GPU %
cli-plot-title-range = GPU memory and GPU % · { $from } → { $to }
cli-plot-wrote = gpuledger: wrote { $path } ({ $devices ->
        [one] { $devices } device
       *[other] { $devices } devices
    })
cli-plot-wrote-empty = gpuledger: wrote { $path } ({ $devices } devices, no samples in the time range)
cli-err-cannot-write = { $path }: cannot write: { $error }
cli-err-cannot-create = cannot create { $path }: { $error }
cli-verify-saved = saved the record to { $path }
cli-err-not-verify-record = { $path }: not a gpuledger verify record: { $error }
cli-err-verify-schema = { $path }: schema { $schema }, this gpuledger reads { $reads }
cli-err-verify-timed-out = the workload did not finish the { $step } step in time; it was stopped (exit { $status }) and the driver frees what it held
cli-err-verify-refused = { $why }; nothing was allocated, and the workload has ended
cli-err-verify-failed = the workload failed: { $why }; everything it held was released
cli-err-signal-handler = cannot install the Ctrl-C/SIGTERM handler: { $error }
cli-err-own-executable = cannot find gpuledger's own executable: { $error }
cli-err-workload-start = cannot start the workload process: { $error }
cli-err-needs-file = { $option } needs a file
cli-err-needs-gpu-index = { $option } needs a GPU index
cli-err-not-gpu-index = { $value } is not a GPU index
cli-err-needs-build = { $option } needs a build number
cli-err-not-build = { $value } is not a llama.cpp build number (like 8123)
cli-err-needs-backend = { $option } needs cuda, rocm, vulkan, metal or cpu
cli-err-not-backend = { $value } is not cuda, rocm, vulkan, metal or cpu
cli-err-needs-gpus = { $option } needs a number of GPUs
cli-err-not-gpus = { $value } is not 0 to 16 GPUs
cli-err-needs-free = { $option } needs sizes, like 24GiB,24GiB
cli-err-needs-tool = { $option } needs server, cli, mtmd or bench
cli-err-not-tool = { $value } is not server, cli, mtmd, bench or a llama.cpp program
cli-err-selftest-replay = selftest checks the live machine; it cannot run on a replay
cli-err-watch-replay = watch checks live samples; it cannot watch a replay
cli-err-no-model = no model: give MODEL.gguf first, or llama-server's -m FILE
cli-err-no-model-hf = no model: give MODEL.gguf first, or llama-server's -m FILE (-hf downloads it: name the downloaded .gguf file)
    { $cache }
cli-estimate-hf-cache = llama.cpp keeps -hf downloads in $LLAMA_CACHE, else the Hugging Face cache ($HF_HUB_CACHE, $HF_HOME/hub, ~/.cache/huggingface/hub) as models--ORG--NAME/snapshots/COMMIT/FILE.gguf; here: { $here }. Builds before that cache kept them flat in $LLAMA_CACHE or ~/.cache/llama.cpp/.
cli-estimate-hf-cache-here = { $path } (from ${ $var })
cli-estimate-hf-cache-unknown = not known (no LLAMA_CACHE, HF_* or HOME set)
cli-err-snapshot-schema = { $path }: not a valid snapshot: unsupported snapshot schema { $found } (this gpuledger reads { $expected })
cli-remote-fetch-failed = GET { $url }: { $error } (showing the last snapshot received)
cli-watch-start = gpuledger: watching { $alerts ->
        [one] { $alerts } alert
       *[other] { $alerts } alerts
    } every { $every }; Ctrl-C to stop
cli-watch-exec-failed = gpuledger: --exec { $command } could not start: { $error }
cli-explain-log-given = { $name } (the log given with --log)

## Where a runtime's flags were read; owners not taken at their word; --group-by's errors; several GPUs
cli-err-group-by-csv = --group-by prints a table or JSON (--json), not CSV
