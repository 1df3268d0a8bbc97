//! `gpuledger snapshot`: one collection round.

use crate::Global;
use gpuledger_views::{render_json, render_table, TableOptions};
use std::io::Write;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print the snapshot as JSON (schema gpuledger.snapshot/1) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Do not shorten command lines in the table.
    #[arg(long)]
    pub wide: bool,
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    let (snap, replay) = global.snapshot()?;
    let text = if args.json {
        render_json(&snap)
    } else {
        render_table(
            &snap,
            &TableOptions {
                replay,
                wide: args.wide,
            },
        )
    };
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth a message.
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}
