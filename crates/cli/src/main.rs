//! `gpuledger`: one binary, one sub-command per job. Each command lives in `commands/<name>.rs`
//! with its own `Args` and `run`.

mod commands;
mod failed;
mod flags;
mod global;
mod help_lang;
mod live_view;
mod overhead;
mod stop;
mod usage_errors;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

pub use global::Global;

/// mimalloc on Linux: a collection round builds and drops thousands of small strings, and glibc's
/// allocator took about a third of a warm live-view round's user time (benches/snapshot.rs:
/// 0.94 -> 0.77 ms CPU with 500 processes). Other platforms keep their system allocator (no C
/// cross-compiler is needed to check them).
#[cfg(target_os = "linux")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The common exit statuses, as a literal so other help texts can `concat!` it.
macro_rules! exit_codes {
    () => {
        "\
Exit status:
  0  success (no GPU found is a normal outcome, not an error)
  1  an error: unreadable or invalid input file, failed output
  2  bad command-line usage"
    };
}
pub(crate) use exit_codes;
const EXIT_CODES: &str = exit_codes!();

/// `0.1.0 (commit 1a2b3c4d5e6f, 2026-12-01)`: what a bug report needs to say what was run.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("GPULEDGER_COMMIT"),
    ", ",
    env!("GPULEDGER_BUILD_DATE"),
    ")"
);

#[derive(Parser)]
#[command(
    name = "gpuledger",
    version = VERSION,
    about = "Who is using my GPU memory, and why.",
    long_about = "Who is using my GPU memory, and why.\n\n\
        gpuledger lists GPU memory per device and per process from the driver's own counters \
        (the measured ledger), shows what no process accounts for as an explicit 'unattributed' \
        row, and keeps every unknown value visible as n/a with its reason.",
    after_help = EXIT_CODES
)]
pub struct Cli {
    #[command(flatten)]
    global: global::GlobalArgs,
    #[command(flatten)]
    view: live_view::ViewArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// One collection round, as a table or as JSON (the stable gpuledger.snapshot/1 contract).
    #[command(after_help = EXIT_CODES)]
    Snapshot(commands::snapshot::Args),
    /// Everything known about one process: measured memory, what it is and why we think so, its
    /// live server state, and (llama.cpp) the estimated ledger beside the measurement.
    #[command(after_help = EXIT_CODES)]
    Explain(commands::explain::Args),
    /// Measure what the CUDA driver charges to VRAM on this machine for a context and for pinned
    /// host memory (cuMemHostAlloc, cuMemHostRegister), with device memory as the control.
    #[command(after_help = commands::probe::EXIT_CODES)]
    Probe(commands::probe::Args),
    /// What llama-server would allocate for a GGUF model with llama-server's flags (weights, KV
    /// cache, output, compute, overhead; every input with its source), and whether it fits in
    /// what is free now on a GPU.
    #[command(
        after_help = commands::estimate::LONG_HELP,
        override_usage = "gpuledger estimate MODEL.gguf [FLAGS]...\n       \
                          gpuledger estimate [OPTIONS] -- llama-server -m MODEL.gguf [FLAGS]..."
    )]
    Estimate(commands::estimate::Args),
    /// Check every data source on this machine: what it sees, what it cannot see, and why.
    #[command(after_help = EXIT_CODES)]
    Selftest(commands::selftest::Args),
    /// What changed between two snapshots, per device and per process, with the pairing rule.
    #[command(after_help = EXIT_CODES)]
    Diff(commands::diff::Args),
    /// Record samples into an SQLite database until Ctrl-C / SIGTERM.
    #[command(after_help = EXIT_CODES)]
    Record(commands::record::Args),
    /// Query a recording: process or device rows as a table, CSV or JSON.
    #[command(after_help = EXIT_CODES)]
    History(commands::history::Args),
    /// Threshold alerts: print (and optionally run a command) when an expression holds.
    #[command(after_help = EXIT_CODES)]
    Watch(commands::watch::Args),
    /// Chart a recording (device memory, GPU %, top processes stacked) as SVG or PNG.
    #[command(after_help = EXIT_CODES)]
    Plot(commands::plot::Args),
    /// Read-only HTTP: Prometheus metrics, the JSON snapshot and the browser view, collected in
    /// the background.
    #[command(after_help = concat!(
        "Endpoints (GET/HEAD only; nothing on the machine can be changed through them):\n",
        "  /metrics           Prometheus text format; unknown values are absent, never 0\n",
        "  /api/v1/snapshot   the snapshot as JSON (schema gpuledger.snapshot/1), as snapshot --json\n",
        "  /api/v1/history    recent samples kept in memory (?since=UNIX_MS), for the page's curves\n",
        "  /api/v1/words      the text views' words and units (n/a, byte units, labels), for the page\n",
        "  /healthz           200 while collection rounds keep coming, 503 when they stall\n",
        "  /                  the browser view: devices, processes, why, curves (`gpuledger ui`)\n\n",
        "Collection runs in the background every --interval; requests only read the latest round.\n",
        "With --replay FILE the recording is served as it is, marked as a replay.\n\n",
        "Names answered (the Host header; anything else gets 421 Misdirected Request, so a web\n",
        "page whose DNS name is pointed at this machine cannot read it): localhost, 127.0.0.1\n",
        "(any 127/8 address), [::1] and the listen address, with any port, plus each\n",
        "--allow-host NAME. With --allow-remote on a non-loopback address, also any IP address\n",
        "(Prometheus and kubelet probes ask by address; a request naming an address cannot come\n",
        "from a rebound page) and this machine's host name (scraping by node name); give other\n",
        "names (a DNS alias, a FQDN, a reverse proxy's upstream name) with --allow-host.\n\n",
        exit_codes!()
    ))]
    Serve(commands::serve::Args),
    /// The browser view: serve this machine on a free loopback port and open it in the default
    /// browser.
    #[command(after_help = concat!(
        "The page shows each GPU with its memory ledger, the processes (sortable, filterable;\n",
        "keyboard: arrows and Enter), why a process holds what it holds (measured, reported by\n",
        "the runtime, estimated, the evidence), memory curves from the server's recent samples,\n",
        "and what could not be seen. Read-only, on 127.0.0.1 only; Ctrl-C stops it. With\n",
        "--replay FILE the recording is shown, marked as a replay.\n\n",
        exit_codes!()
    ))]
    Ui(commands::ui::Args),
    /// Terminate processes safely: graceful first, forced after a grace period, verified gone.
    ///
    /// Before acting, each process's name and start time are re-read and compared with what you
    /// confirmed (a reused PID is skipped). Never PID 1, kernel threads, gpuledger or its parents,
    /// or critical Windows processes; display servers and compositors need --yes-really. Without
    /// --yes it asks on the terminal, naming each process and its measured GPU memory.
    #[command(after_help = commands::kill::EXIT_CODES)]
    Kill(commands::kill::Args),
    /// Prove the numbers: run a known workload (context, N bytes allocated, freed, exit) and check
    /// what every source saw at each step.
    #[command(after_help = commands::verify::EXIT_CODES)]
    Verify(commands::verify::Args),
    /// The child process `verify` runs (internal).
    #[command(hide = true)]
    VerifyWorkload(commands::verify::ChildArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    ///
    /// bash: `gpuledger completions bash > /etc/bash_completion.d/gpuledger`;
    /// zsh: into a folder on $fpath as `_gpuledger`; fish: `~/.config/fish/completions/gpuledger.fish`.
    #[command(after_help = EXIT_CODES)]
    Completions(commands::completions::Args),
    /// Print the man page (roff), or write one page per command into a folder with --dir.
    #[command(after_help = EXIT_CODES)]
    Man(commands::completions::ManArgs),
}

/// An error in how the command was asked for (options that cannot go together), found after
/// clap's own checks: reported like clap's usage errors, with exit status 2.
#[derive(Debug)]
pub struct Usage(pub gpuledger_lang::said::Said);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

fn main() -> ExitCode {
    // --help is printed while clap parses: its language is read from the arguments first.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let asked = help_lang::from_args(&args);
    let command = help_lang::localise(Cli::command(), asked);
    let cli = command
        .try_get_matches_from(args)
        .and_then(|m| Cli::from_arg_matches(&m))
        .unwrap_or_else(|e| usage_errors::exit(e, asked));
    let lang = match cli.global.lang.as_deref() {
        Some("list") => {
            print!("{}", gpuledger_lang::list());
            return ExitCode::SUCCESS;
        }
        flag => gpuledger_lang::choose(flag),
    };
    let mut global = Global::new(cli.global);
    global.lang = match lang {
        Ok(l) => l,
        Err(e) => {
            // Said in the locale's language: the flag's is unknown.
            let lang = gpuledger_lang::choose(None).unwrap_or_default();
            eprintln!("gpuledger: {}", e.message(lang));
            return ExitCode::from(2);
        }
    };
    let result = match &cli.command {
        Some(Command::Snapshot(a)) => commands::snapshot::run(a, &global),
        Some(Command::Explain(a)) => commands::explain::run(a, &global),
        Some(Command::Probe(a)) => commands::probe::run(a, &global),
        Some(Command::Estimate(a)) => commands::estimate::run(a, &global),
        Some(Command::Selftest(a)) => commands::selftest::run(a, &global),
        Some(Command::Diff(a)) => commands::diff::run(a, &global),
        Some(Command::Record(a)) => commands::record::run(a, &global),
        Some(Command::History(a)) => commands::history::run(a, &global),
        Some(Command::Watch(a)) => commands::watch::run(a, &global),
        Some(Command::Plot(a)) => commands::plot::run(a, &global),
        Some(Command::Serve(a)) => commands::serve::run(a, &global),
        Some(Command::Ui(a)) => commands::ui::run(a, &global),
        Some(Command::Kill(a)) => commands::kill::run(a, &global),
        Some(Command::Verify(a)) => commands::verify::run(a, &global),
        Some(Command::VerifyWorkload(a)) => commands::verify::run_workload(a),
        Some(Command::Completions(a)) => commands::completions::run(a),
        Some(Command::Man(a)) => commands::completions::run_man(a, global.lang),
        None => live_view::run(&cli.view, &global),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // Errors quote files, GGUF metadata and names from outside: escaped like all output.
            eprintln!(
                "gpuledger: {}",
                gpuledger_views::term_safe_text(&failed::in_lang(&e, global.lang))
            );
            ExitCode::from(if e.is::<Usage>() { 2 } else { 1 })
        }
    }
}
