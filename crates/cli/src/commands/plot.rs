//! `gpuledger plot`: a recording as an SVG chart.

use crate::Global;
use anyhow::Context;
use gpuledger_history::plot::{gather, render_svg};
use gpuledger_history::store::Query;
use gpuledger_model::time::format_ms;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub range: crate::commands::history::Range,
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
    let (reader, range) = args.range.open(global)?;
    let q = Query {
        device: args.device.clone(),
        ..range
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
