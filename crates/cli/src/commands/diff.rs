//! `gpuledger diff A.json B.json`: what changed between two snapshots.

use crate::Global;
use anyhow::Context;
use gpuledger_compare::diff::diff;
use gpuledger_model::{parse_snapshot, Snapshot};
use std::path::{Path, PathBuf};
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

fn load(path: &Path) -> anyhow::Result<Snapshot> {
    let text = crate::global::read_snapshot_text(path)?;
    parse_snapshot(&text).with_context(|| format!("{}: not a valid snapshot", path.display()))
}

pub fn run(args: &Args, _global: &Global) -> anyhow::Result<ExitCode> {
    let a = load(&args.before)?;
    let b = load(&args.after)?;
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
            gpuledger_views::DiffOptions { all: args.all },
        )
    };
    crate::commands::print(&text)
}
