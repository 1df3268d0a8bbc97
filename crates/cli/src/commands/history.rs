//! `gpuledger history`: query a recording and export it (table, CSV, JSON).

use crate::flags::Range;
use crate::Global;
use gpuledger_history::csv::{DeviceCsv, HistoryCsv};
use gpuledger_history::store::{Query, Reader, Skipped};
use gpuledger_model::time::format_ms;
use gpuledger_views::history;
use gpuledger_views::term_safe_text;
use std::io::Write;
use std::process::ExitCode;

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Csv,
    Json,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub range: Range,
    /// Only this PID.
    #[arg(long, conflicts_with = "name")]
    pub pid: Option<u32>,
    /// Only processes with this name.
    #[arg(long)]
    pub name: Option<String>,
    /// Only this device: its index (as `snapshot` numbers them) or its UUID.
    #[arg(long, value_name = "INDEX|UUID")]
    pub device: Option<String>,
    /// Device rows (memory, GPU %, temperature, power) instead of process rows.
    #[arg(long, conflicts_with_all = ["pid", "name"])]
    pub devices: bool,
    /// table, csv (header row, RFC 4180, RFC 3339 times) or json (an array of rows).
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    let (reader, range) = args.range.open(global)?;
    let q = Query {
        pid: args.pid,
        name: args.name.clone(),
        device: args.device.clone(),
        ..range
    };
    // A device that is not in the recording fails here, before the header is written.
    reader.check(&q)?;
    let stdout = std::io::stdout().lock();
    let out = std::io::BufWriter::with_capacity(1 << 16, stdout);
    let result = write(args, &reader, &q, out, global.lang);
    match result {
        Err(e) if is_broken_pipe(&e) => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e),
        Ok(skipped) => {
            if skipped.samples > 0 {
                eprintln!(
                    "gpuledger: {}: {} sample{} from {} to {} left out: no keyframe precedes them (a damaged or edited recording)",
                    reader.path().display(),
                    skipped.samples,
                    if skipped.samples == 1 { "" } else { "s" },
                    format_ms(skipped.first.unwrap_or_default()),
                    format_ms(skipped.last.unwrap_or_default())
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<csv::Error>().is_some_and(|ce| {
                matches!(ce.kind(), csv::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe)
            })
    })
}

/// Writes the rows; returns what could not be decoded, for a warning.
fn write(
    args: &Args,
    reader: &Reader,
    q: &Query,
    out: impl Write,
    lang: gpuledger_lang::Lang,
) -> anyhow::Result<Skipped> {
    match args.format {
        Format::Csv => write_csv(args.devices, reader, q, out),
        Format::Json => write_json(args.devices, reader, q, out),
        Format::Table => write_table(args.devices, reader, q, out, lang),
    }
}

/// Errors from the writer, carried out of the row callbacks (which cannot return them): the
/// first one is kept, and no row is written after it.
#[derive(Default)]
struct FirstError(Option<anyhow::Error>);

impl FirstError {
    /// Runs `write` unless an error came before.
    fn keep<E: Into<anyhow::Error>>(&mut self, write: impl FnOnce() -> Result<(), E>) {
        if self.0.is_none() {
            self.0 = write().err().map(Into::into);
        }
    }

    fn or(self, skipped: Skipped) -> anyhow::Result<Skipped> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(skipped),
        }
    }
}

fn write_csv(
    devices: bool,
    reader: &Reader,
    q: &Query,
    out: impl Write,
) -> anyhow::Result<Skipped> {
    let mut err = FirstError::default();
    let mut skipped = Skipped::default();
    if devices {
        let mut w = DeviceCsv::new(out)?;
        reader.for_each_device_row(q, |r| err.keep(|| w.device_row(r)))?;
        w.finish()?;
    } else {
        let mut w = HistoryCsv::processes(out)?;
        skipped = reader.for_each_process_row(q, |r| err.keep(|| w.process_row(r)))?;
        w.finish()?;
    }
    err.or(skipped)
}

/// A JSON array, one object per row, in the CSV's vocabulary (`gpuledger_views::csv::col`).
fn write_json(
    devices: bool,
    reader: &Reader,
    q: &Query,
    mut out: impl Write,
) -> anyhow::Result<Skipped> {
    use gpuledger_views::csv::col;
    let mut err = FirstError::default();
    let mut skipped = Skipped::default();
    out.write_all(b"[")?;
    let mut first = true;
    let mut emit = |v: serde_json::Value, out: &mut dyn Write| {
        err.keep(|| {
            let sep: &[u8] = if first { b"\n" } else { b",\n" };
            first = false;
            // C1 controls escaped too (serde_json leaves them raw): the output may be a terminal.
            out.write_all(sep)
                .and_then(|_| out.write_all(term_safe_text(&v.to_string()).as_bytes()))
        })
    };
    if devices {
        reader.for_each_device_row(q, |r| {
            let mut m = serde_json::Map::new();
            m.insert(col::TAKEN_AT.into(), format_ms(r.ts_ms).into());
            m.insert(col::DEVICE_UUID.into(), r.device.uuid.clone().into());
            m.insert(col::DEVICE_INDEX.into(), r.device.index.into());
            m.insert(col::DEVICE_NAME.into(), r.device.name.clone().into());
            m.insert(col::DEVICE_TOTAL_BYTES.into(), r.device.total_bytes.into());
            m.insert(col::DEVICE_USED_BYTES.into(), r.vals.used.into());
            m.insert(col::DEVICE_FREE_BYTES.into(), r.vals.free.into());
            m.insert(col::GPU_PERCENT.into(), r.vals.gpu.into());
            m.insert(col::MEMORY_BANDWIDTH_PERCENT.into(), r.vals.mem_util.into());
            m.insert(col::TEMPERATURE_C.into(), r.vals.temp.into());
            m.insert(
                col::POWER_WATTS.into(),
                r.vals.power_mw.map(|mw| mw as f64 / 1000.0).into(),
            );
            emit(m.into(), &mut out)
        })?;
    } else {
        skipped = reader.for_each_process_row(q, |r| {
            let mut m = serde_json::Map::new();
            m.insert(col::TAKEN_AT.into(), format_ms(r.ts_ms).into());
            m.insert(col::DEVICE_UUID.into(), r.device.uuid.clone().into());
            m.insert(col::DEVICE_INDEX.into(), r.device.index.into());
            m.insert(col::PID.into(), r.process.pid.into());
            m.insert(col::START_TIME.into(), r.process.start_time.into());
            m.insert(col::NAME.into(), r.process.name.clone().into());
            m.insert(col::USER.into(), r.process.user.clone().into());
            m.insert(col::MEMORY_BYTES.into(), r.vals.memory_bytes.into());
            m.insert(col::MEMORY_SOURCE.into(), r.source.into());
            m.insert(col::MEMORY_UNAVAILABLE_REASON.into(), r.reason.into());
            m.insert(col::SM_PERCENT.into(), r.vals.sm_percent.into());
            // JSON keeps the argument list as the snapshot does (`cmdline`), redacted.
            m.insert(
                "cmdline".into(),
                serde_json::to_value(
                    r.process
                        .cmdline
                        .as_ref()
                        .map(|c| gpuledger_model::redact_arg_list(c)),
                )
                .unwrap_or_default(),
            );
            emit(m.into(), &mut out)
        })?;
    }
    out.write_all(b"\n]\n")?;
    err.or(skipped)
}

fn write_table(
    devices: bool,
    reader: &Reader,
    q: &Query,
    mut out: impl Write,
    lang: gpuledger_lang::Lang,
) -> anyhow::Result<Skipped> {
    let mut err = FirstError::default();
    let mut skipped = Skipped::default();
    if devices {
        out.write_all(history::device_header_in(lang).as_bytes())?;
        reader.for_each_device_row(q, |r| {
            err.keep(|| {
                let line = history::device_line(&history::DeviceLine {
                    time: format_ms(r.ts_ms),
                    index: r.device.index,
                    used: r.vals.used,
                    free: r.vals.free,
                    gpu_percent: r.vals.gpu,
                    temperature_c: r.vals.temp,
                    power_mw: r.vals.power_mw,
                });
                out.write_all(line.as_bytes())
            })
        })?;
    } else {
        out.write_all(history::process_header_in(lang).as_bytes())?;
        skipped = reader.for_each_process_row(q, |r| {
            err.keep(|| {
                let line = history::process_line(
                    &history::ProcessLine {
                        time: format_ms(r.ts_ms),
                        index: r.device.index,
                        pid: r.process.pid,
                        name: r.process.name.as_deref(),
                        memory_bytes: r.vals.memory_bytes,
                        sm_percent: r.vals.sm_percent,
                        source: r.source,
                        reason: r.reason,
                    },
                    lang,
                );
                out.write_all(line.as_bytes())
            })
        })?;
    }
    err.or(skipped)
}
