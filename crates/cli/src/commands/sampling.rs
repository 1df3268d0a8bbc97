//! The loop shared by `record` and `watch`: one collection round per interval, a late round
//! skipped rather than queued (the next round waits for the next tick), and a clean stop on
//! Ctrl-C / SIGTERM.

use gpuledger_model::Snapshot;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Set by Ctrl-C / SIGTERM / SIGHUP. The handler is installed once per process.
pub fn stop_flag() -> anyhow::Result<Arc<AtomicBool>> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    if let Some(f) = FLAG.get() {
        return Ok(f.clone());
    }
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    ctrlc::set_handler(move || f.store(true, Ordering::SeqCst))
        .map_err(|e| anyhow::anyhow!("cannot install the Ctrl-C/SIGTERM handler: {e}"))?;
    let _ = FLAG.set(flag.clone());
    Ok(flag)
}

pub struct LoopStats {
    pub rounds: u64,
    /// Ticks that passed while a round was still running: skipped, never made up.
    pub skipped: u64,
}

/// Parse an interval option: at least 10 ms.
pub fn interval_arg(s: &str) -> Result<Duration, String> {
    let d = gpuledger_history::time::parse_duration(s)?;
    if d < Duration::from_millis(10) {
        return Err(format!("{s:?} is too short (at least 10ms)"));
    }
    Ok(d)
}

/// Call `round` with a fresh snapshot and its Unix ms time once per `interval` until stopped,
/// `count` rounds are done, or `round` fails.
pub fn run(
    global: &crate::Global,
    interval: Duration,
    count: Option<u64>,
    mut round: impl FnMut(&Snapshot, i64) -> anyhow::Result<()>,
) -> anyhow::Result<LoopStats> {
    let stop = stop_flag()?;
    let mut collector = global.collector();
    let mut stats = LoopStats {
        rounds: 0,
        skipped: 0,
    };
    let mut next = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        if count.is_some_and(|c| stats.rounds >= c) {
            break;
        }
        let now = Instant::now();
        if now < next {
            // Short sleeps so a stop request is seen promptly.
            std::thread::sleep((next - now).min(Duration::from_millis(50)));
            continue;
        }
        let snap = collector.collect();
        round(&snap, gpuledger_history::time::now_ms())?;
        stats.rounds += 1;
        next += interval;
        let after = Instant::now();
        if after > next {
            let late = after - next;
            let missed = (late.as_nanos() / interval.as_nanos()) as u32 + 1;
            stats.skipped += missed as u64;
            next += interval * missed;
        }
    }
    Ok(stats)
}
