//! `gpuledger plot`: a recording as an SVG chart.

use crate::commands::record::db_path;
use crate::Global;
use anyhow::Context;
use gpuledger_history::plot::{gather, render_svg};
use gpuledger_history::store::{Query, Reader};
use gpuledger_history::time::{format_ms, now_ms, parse_time_arg};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The database (default: the one `gpuledger record` writes).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// From this time: RFC 3339 or a duration ago (1h, 30m, 7d).
    #[arg(long, default_value = "1h", value_name = "TIME")]
    pub since: String,
    /// Up to this time (same forms; default now).
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// Only this device (its UUID).
    #[arg(long, value_name = "UUID")]
    pub device: Option<String>,
    /// How many processes to stack by name; the rest are summed as "other processes".
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// Output file. SVG only (a .png name is refused: convert the SVG, e.g. with rsvg-convert).
    #[arg(long, value_name = "FILE.svg")]
    pub out: PathBuf,
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    let ext = args
        .out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("svg") => {}
        Some("png") => anyhow::bail!(
            "{}: PNG output is not implemented; write an .svg and convert it (rsvg-convert -o chart.png chart.svg)",
            args.out.display()
        ),
        _ => anyhow::bail!("{}: the output file must end in .svg", args.out.display()),
    }
    let path = match (&args.db, &global.args.replay) {
        (Some(p), _) => p.clone(),
        (None, Some(r)) => r.clone(),
        (None, None) => db_path(&None)?,
    };
    let reader = Reader::open(&path)?;
    let now = now_ms();
    let q = Query {
        since_ms: Some(
            parse_time_arg(&args.since, now).map_err(|e| anyhow::anyhow!("--since: {e}"))?,
        ),
        until_ms: match &args.until {
            Some(u) => Some(parse_time_arg(u, now).map_err(|e| anyhow::anyhow!("--until: {e}"))?),
            None => None,
        },
        device: args.device.clone(),
        ..Query::default()
    };
    let plots = gather(&reader, &q, 1000, args.top)?;
    let title = match plots
        .iter()
        .filter_map(|p| p.times.first().zip(p.times.last()))
        .next()
    {
        Some((a, b)) => format!(
            "GPU memory and GPU % · {} → {}",
            format_ms(*a),
            format_ms(*b)
        ),
        None => "GPU memory and GPU %".to_string(),
    };
    let svg = render_svg(&plots, &title);
    std::fs::write(&args.out, svg)
        .with_context(|| format!("{}: cannot write", args.out.display()))?;
    eprintln!(
        "gpuledger: wrote {} ({} device{}{})",
        args.out.display(),
        plots.len(),
        if plots.len() == 1 { "" } else { "s" },
        if plots.is_empty() {
            ", no samples in the time range"
        } else {
            ""
        }
    );
    Ok(ExitCode::SUCCESS)
}
