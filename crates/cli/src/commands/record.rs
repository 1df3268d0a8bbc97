//! `gpuledger record`: samples into the SQLite recording until stopped.

use crate::commands::sampling;
use crate::flags::db_path;
use crate::Global;
use gpuledger_history::store::Recorder;
use gpuledger_model::time::{format_ms, now_ms, parse_duration};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Time between samples. A round that runs late skips the ticks it missed.
    #[arg(long, default_value = "1s", value_parser = crate::flags::sampling)]
    pub interval: Duration,
    /// The database (default: $XDG_DATA_HOME/gpuledger/history.db, else
    /// ~/.local/share/gpuledger/history.db, whose folder is created). A given path's folder must
    /// exist.
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Keep samples this long; older ones are pruned at start and every hour.
    #[arg(long, default_value = "7d", value_parser = parse_duration)]
    pub retention: Duration,
    /// Commit samples to the database this often, in one transaction; also on stop. The default,
    /// 0s, commits every sample: a kill -9 or an OOM kill loses at most the sample being taken.
    /// Commits are not fsynced (SQLite WAL, synchronous=NORMAL), so a power loss or OS crash can
    /// also lose what came after SQLite's last checkpoint. A longer time, e.g. 10s, batches
    /// samples for fewer disk writes, and a kill -9 loses up to that much.
    #[arg(long, default_value = "0s", value_parser = parse_duration, value_name = "DURATION")]
    pub flush_every: Duration,
    /// Stop after this many samples (default: until Ctrl-C / SIGTERM).
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    if global.args.replay.is_some() {
        return Err(crate::failed::failed("cli-err-record-replay", vec![]));
    }
    let path = db_path(&args.db)?;
    // Folders are made only for the default database: a typo in --db must not silently grow a
    // new tree of folders somewhere.
    if let Some(dir) = args.db.as_deref().and_then(|p| p.parent()) {
        if !dir.as_os_str().is_empty() && !dir.is_dir() {
            use crate::failed::{failed, path as shown};
            let said = vec![("db", shown(&path)), ("folder", shown(dir))];
            return Err(failed("cli-err-record-no-folder", said));
        }
    }
    let mut rec = Recorder::open(&path)?;
    let retention_ms = args.retention.as_millis().min(i64::MAX as u128) as i64;
    let pruned = rec.prune(now_ms().saturating_sub(retention_ms))?;
    let lang = global.lang;
    let pruned_n = pruned.samples.max(pruned.device_samples);
    let start_args = [
        (
            "interval",
            humantime::format_duration(args.interval).to_string().into(),
        ),
        ("path", path.display().to_string().into()),
        (
            "retention",
            humantime::format_duration(args.retention)
                .to_string()
                .into(),
        ),
        ("pruned", pruned_n.into()),
    ];
    eprintln!("{}", lang.t_args("cli-record-start", &start_args));
    let mut last_flush = now_ms();
    let mut last_prune = now_ms();
    let flush_ms = args.flush_every.as_millis() as i64;
    let mut first: Option<i64> = None;
    let stats = sampling::run(global, args.interval, args.count, |snap, ts| {
        first.get_or_insert(ts);
        rec.add(snap, ts);
        if ts - last_flush >= flush_ms {
            rec.flush()?;
            last_flush = ts;
        }
        if ts - last_prune >= 3_600_000 {
            rec.prune(ts.saturating_sub(retention_ms))?;
            last_prune = ts;
        }
        Ok(())
    });
    // Whatever ended the loop, keep what was sampled.
    let flushed = rec.flush();
    let stats = match stats.and_then(|s| flushed.map(|()| s).map_err(anyhow::Error::from)) {
        Ok(s) => s,
        Err(e) => return Err(e.context(stopped(&rec, lang))),
    };
    let span = match first {
        Some(t) => lang.t_args(
            "cli-record-span",
            &[
                ("from", format_ms(t).into()),
                ("to", format_ms(now_ms()).into()),
            ],
        ),
        None => String::new(),
    };
    let done_args = [
        ("samples", stats.rounds.into()),
        ("span", span.into()),
        ("path", path.display().to_string().into()),
        ("skipped", stats.skipped.into()),
    ];
    eprintln!("{}", lang.t_args("cli-record-done", &done_args));
    Ok(ExitCode::SUCCESS)
}

/// What a recorder stopped by an error (a full disk, a lost file) leaves: how many samples of
/// this run are kept, from when to when, and how many were not written.
fn stopped(rec: &Recorder, lang: gpuledger_lang::Lang) -> String {
    let k = rec.kept();
    let span = match (k.first_ms, k.last_ms) {
        (Some(a), Some(b)) => lang.t_args(
            "cli-record-kept-span",
            &[("from", format_ms(a).into()), ("to", format_ms(b).into())],
        ),
        _ => String::new(),
    };
    let args = [
        ("samples", k.samples.into()),
        ("path", rec.path().display().to_string().into()),
        ("span", span.into()),
        ("lost", rec.pending().into()),
    ];
    lang.t_args("cli-record-stopped", &args)
}
