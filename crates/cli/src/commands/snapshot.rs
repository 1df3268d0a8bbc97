//! `gpuledger snapshot`: one collection round (or one moment of a replayed recording).

use crate::Global;
use gpuledger_model::GroupBy;
use gpuledger_views::{
    render_groups_json, render_groups_table_in, render_json, render_table, TableOptions,
};
use std::process::ExitCode;

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print the snapshot as JSON (schema gpuledger.snapshot/1); same as `--format json`.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output format: a table, JSON (gpuledger.snapshot/1), or CSV (a header row, one row per
    /// device, per process on a device, and per device's unattributed memory).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Do not shorten command lines in the table.
    #[arg(long)]
    pub wide: bool,
    /// With `--replay` of a recording (a `gpuledger record` database): the moment to show, an
    /// RFC 3339 time or a duration ago (`10m`). The latest sample at or before it is shown.
    #[arg(long, value_name = "TIME", value_parser = crate::flags::time)]
    pub at: Option<String>,
    /// Sum measured memory per owner on each GPU, from the processes' cgroups: pod (Kubernetes
    /// pod UID), namespace (named by the kubelet: --kubelet-socket, --container-logs; when it
    /// cannot say, one group that says why),
    /// container, job (Slurm), user, unit (systemd) or owner (any of them). Unattributed memory
    /// stays a row of its own. A table, or JSON (gpuledger.groups/1) with --json.
    #[arg(long, value_name = "pod|namespace|container|job|user|unit|owner", value_parser = clap::value_parser!(GroupBy))]
    pub group_by: Option<GroupBy>,
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    let (snap, replay) = global.snapshot_at(args.at.as_deref())?;
    let format = match (args.json, args.format) {
        (true, _) => Format::Json,
        (false, Some(f)) => f,
        (false, None) => Format::Table,
    };
    if let Some(by) = args.group_by {
        let groups = gpuledger_model::group_memory(&snap, by);
        let text = match format {
            Format::Json => render_groups_json(&groups),
            Format::Csv => return Err(crate::failed::failed("cli-err-group-by-csv", vec![])),
            Format::Table => {
                let host = snap.host.hostname.as_deref();
                render_groups_table_in(&groups, host, replay.as_deref(), global.lang)
            }
        };
        return crate::commands::print(&text);
    }
    let text = match format {
        Format::Json => render_json(&snap),
        Format::Csv => gpuledger_views::snapshot_csv(&snap)?,
        Format::Table => render_table(
            &snap,
            &TableOptions {
                replay,
                wide: args.wide,
                lang: global.lang,
            },
        ),
    };
    crate::commands::print(&text)
}
