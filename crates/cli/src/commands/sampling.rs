//! The loop shared by `record` and `watch`: one collection round per interval, a late round
//! skipped rather than queued (the next round waits for the next tick), and a clean stop on
//! Ctrl-C / SIGTERM.

use gpuledger_model::Snapshot;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::stop::stop_flag;

pub struct LoopStats {
    pub rounds: u64,
    /// Ticks that passed while a round was still running: skipped, never made up.
    pub skipped: u64,
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
    let mut collector = global.asking_collector(true);
    let mut stats = LoopStats {
        rounds: 0,
        skipped: 0,
    };
    let start = Instant::now();
    let mut next = start;
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
        round(&snap, gpuledger_model::time::now_ms())?;
        stats.rounds += 1;
        let (n, missed) = advance(next - start, Instant::now() - start, interval);
        next = start + n;
        stats.skipped += missed;
    }
    Ok(stats)
}

/// After a round due at `due` (time since the loop started) that finished at `now`: the next tick,
/// and how many ticks passed while the round ran. Those are skipped, never run back to back.
pub fn advance(due: Duration, now: Duration, interval: Duration) -> (Duration, u64) {
    let next = due + interval;
    if now <= next {
        return (next, 0);
    }
    let missed = ((now - next).as_nanos() / interval.as_nanos()) as u64 + 1;
    (next + interval * missed as u32, missed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_rounds_skip_the_ticks_they_missed() {
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        // On time: the next tick.
        assert_eq!(advance(s(0), ms(300), s(1)), (s(1), 0));
        assert_eq!(advance(s(0), s(1), s(1)), (s(1), 0));
        // A 2.5 s round: the ticks at 1 s and 2 s are skipped, the next round is at 3 s.
        assert_eq!(advance(s(0), ms(2500), s(1)), (s(3), 2));
        // Just past a tick.
        assert_eq!(advance(s(5), ms(6001), s(1)), (s(7), 1));
    }
}
