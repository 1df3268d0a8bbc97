//! `gpuledger diff A.json B.json`: what changed between two snapshots.

use crate::global::load_snapshot;
use crate::Global;
use gpuledger_compare::diff::diff;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The earlier snapshot (JSON from `gpuledger snapshot --json`).
    pub before: PathBuf,
    /// The later snapshot.
    pub after: PathBuf,
    /// Print the diff as JSON (schema gpuledger.diff/1), every process included.
    #[arg(long)]
    pub json: bool,
    /// List unchanged processes and estimate parts too (by default only what changed, and a
    /// count of the rest).
    #[arg(long)]
    pub all: bool,
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    // Read as every snapshot file is: bounded, and redacted (a file can hold anything).
    let a = load_snapshot(&args.before)?;
    let b = load_snapshot(&args.after)?;
    let d = diff(&a, &b);
    let text = if args.json {
        serde_json::to_string_pretty(&d)? + "\n"
    } else {
        gpuledger_views::render_diff(
            &d,
            (
                &args.before.display().to_string(),
                &args.after.display().to_string(),
            ),
            gpuledger_views::DiffOptions {
                all: args.all,
                lang: global.lang,
            },
        )
    };
    crate::commands::print(&text)
}
