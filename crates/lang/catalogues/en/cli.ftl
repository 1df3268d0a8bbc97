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
cli-about-verify = Prove the numbers: run a known workload (context, N bytes allocated, freed, exit) and check what every source saw at each step
cli-about-completions = Print a shell completion script (bash, zsh, fish, powershell, elvish)
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
cli-err-not-snapshot = { $path }: not a valid snapshot
cli-err-at-needs-replay = --at needs --replay RECORDING.db (a `gpuledger record` database)
cli-err-at-snapshot-file = --at picks a moment of a recording, but { $path } is a snapshot file
