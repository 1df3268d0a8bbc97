//! `gpuledger completions SHELL` and `gpuledger man`: generated from the same clap definitions
//! that parse the command line, so they cannot drift from it.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::CommandFactory;

#[derive(clap::Args)]
pub struct Args {
    /// The shell to write a completion script for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(clap::Args)]
pub struct ManArgs {
    /// Write gpuledger.1 and one page per sub-command (gpuledger-snapshot.1, ...) into this
    /// folder instead of printing gpuledger.1 to standard output.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn run(a: &Args) -> anyhow::Result<ExitCode> {
    let mut cmd = crate::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "gpuledger", &mut out);
    super::print(&String::from_utf8_lossy(&out))
}

pub fn run_man(a: &ManArgs) -> anyhow::Result<ExitCode> {
    let cmd = crate::Cli::command();
    let Some(dir) = &a.dir else {
        let mut out = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut out)?;
        return super::print(&String::from_utf8_lossy(&out));
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // clap_mangen names sub-command pages `gpuledger-<sub>.1` and writes the main page too.
    clap_mangen::generate_to(cmd, dir)
        .with_context(|| format!("cannot write man pages into {}", dir.display()))?;
    Ok(ExitCode::SUCCESS)
}
