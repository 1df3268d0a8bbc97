//! The collection thread. The UI never collects (docs/DESIGN.md §5): one thread owns the sources and
//! sends each round over a channel of capacity one. A round that finds the channel still full is
//! dropped (the UI has not drawn the previous one yet), and a round that overran the interval makes
//! the next one wait for the following tick: late rounds are skipped, never queued back to back.

use crate::hoststats::{HostProc, HostSampler};
use crate::hostwide::{Machine, MachineSampler};
use gpuledger_model::Snapshot;
use gpuledger_sources::Collector;
use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TrySendError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One collection round as the UI receives it.
#[derive(Debug, Clone)]
pub struct Update {
    pub snapshot: Snapshot,
    /// Host CPU % and RSS per PID of the snapshot's processes.
    pub host: HashMap<u32, HostProc>,
    /// How long the round took.
    pub took: Duration,
    /// Rounds dropped since the previous delivered one (UI busy).
    pub dropped: u64,
    /// The host's CPU % and RAM, where the source reads this machine.
    pub machine: Option<Machine>,
}

/// Something that produces rounds; the real one is [`LiveSource`], tests use slow fakes.
pub trait RoundSource: Send + 'static {
    fn round(&mut self) -> (Snapshot, HashMap<u32, HostProc>);

    /// Which processes' host figures the view needs from now on (a source without host figures
    /// ignores it).
    fn host_need(&mut self, _need: HostNeed) {}

    /// The host as a whole after a round (`None`: the rounds come from elsewhere).
    fn machine(&mut self) -> Option<Machine> {
        None
    }
}

impl RoundSource for Box<dyn RoundSource> {
    fn round(&mut self) -> (Snapshot, HashMap<u32, HostProc>) {
        (**self).round()
    }

    fn host_need(&mut self, need: HostNeed) {
        (**self).host_need(need)
    }

    fn machine(&mut self) -> Option<Machine> {
        (**self).machine()
    }
}

/// Whose host CPU % and RSS a round reads (one `stat` each): every process when the view sorts
/// by one of those columns, else only the processes it shows (docs/DESIGN.md concept 7: the
/// cost of a round follows what is on screen, not how many GPU processes there are).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum HostNeed {
    /// Before the first frame, and when sorting by CPU %, RSS or %MEM.
    #[default]
    All,
    /// These pids, sorted.
    Pids(Vec<u32>),
}

impl HostNeed {
    fn wants(&self, pid: u32) -> bool {
        match self {
            HostNeed::All => true,
            HostNeed::Pids(p) => p.binary_search(&pid).is_ok(),
        }
    }
}

/// The live machine: the collector plus the host CPU/RSS sampler on the same procfs root.
pub struct LiveSource {
    collector: Collector,
    host: HostSampler,
    machine: MachineSampler,
    need: HostNeed,
}

impl LiveSource {
    pub fn new(collector: Collector) -> Self {
        let host = HostSampler::new(collector.config.proc_root.clone());
        let machine = MachineSampler::new(collector.config.proc_root.clone());
        LiveSource {
            collector,
            host,
            machine,
            need: HostNeed::All,
        }
    }
}

impl RoundSource for LiveSource {
    fn round(&mut self) -> (Snapshot, HashMap<u32, HostProc>) {
        let snap = self.collector.collect();
        let pids: Vec<u32> = snap
            .processes
            .iter()
            .map(|p| p.pid)
            .filter(|&p| self.need.wants(p))
            .collect();
        let host = self
            .host
            .sample_after(&pids, Instant::now(), Some(self.collector.procs()));
        (snap, host)
    }

    fn host_need(&mut self, need: HostNeed) {
        self.need = need;
    }

    fn machine(&mut self) -> Option<Machine> {
        Some(self.machine.sample())
    }
}

enum Ctl {
    Interval(Duration),
    HostNeed(HostNeed),
    /// A round the view is done with, dropped where it was allocated.
    Recycle(Box<Snapshot>),
    Quit,
}

/// Handle to the running collection thread.
pub struct Feed {
    pub rx: Receiver<Update>,
    ctl: Sender<Ctl>,
    handle: Option<JoinHandle<()>>,
}

/// The smallest refresh interval accepted anywhere.
pub const MIN_INTERVAL: Duration = gpuledger_model::time::REFRESH.min;

impl Feed {
    pub fn spawn(source: impl RoundSource, interval: Duration) -> Feed {
        Feed::spawn_waking(source, interval, || ())
    }

    /// As [`Feed::spawn`], and call `wake` after each round it hands over, so the UI can sleep
    /// until there is something to draw instead of waking on a timer to look.
    pub fn spawn_waking(
        source: impl RoundSource,
        interval: Duration,
        wake: impl Fn() + Send + 'static,
    ) -> Feed {
        let (tx, rx) = mpsc::sync_channel(1);
        let (ctl, ctl_rx) = mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("gpuledger-collect".into())
            .spawn(move || collect_loop(source, interval.max(MIN_INTERVAL), tx, ctl_rx, wake))
            .expect("spawn collection thread");
        Feed {
            rx,
            ctl,
            handle: Some(handle),
        }
    }

    pub fn set_interval(&self, d: Duration) {
        let _ = self.ctl.send(Ctl::Interval(d.max(MIN_INTERVAL)));
    }

    /// Hand back a round the view has replaced, to be freed by the collection thread that
    /// allocated it: the allocator then frees locally, instead of the view freeing thousands of
    /// another thread's blocks and that thread collecting them on its next allocations.
    pub fn recycle(&self, old: Snapshot) {
        let _ = self.ctl.send(Ctl::Recycle(Box::new(old)));
    }

    /// Read host figures for `need` from the next round on.
    pub fn set_host_need(&self, need: HostNeed) {
        let _ = self.ctl.send(Ctl::HostNeed(need));
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        let _ = self.ctl.send(Ctl::Quit);
        // Do not join: a source stuck in a driver call must not keep the user from quitting. The
        // thread ends at its next check, or with the process.
        drop(self.handle.take());
    }
}

/// How long to wait after a round that started at `start` and ended at `end`: until the next tick
/// of the interval grid, skipping the ticks the round overran.
pub fn wait_after(start: Instant, end: Instant, interval: Duration) -> Duration {
    let took = end.saturating_duration_since(start);
    if took < interval {
        interval - took
    } else {
        let iv = interval.as_nanos().max(1);
        let over = took.as_nanos() % iv;
        Duration::from_nanos((iv - over) as u64)
    }
}

fn collect_loop(
    mut source: impl RoundSource,
    mut interval: Duration,
    tx: SyncSender<Update>,
    ctl: Receiver<Ctl>,
    wake: impl Fn(),
) {
    let mut dropped = 0u64;
    loop {
        let start = Instant::now();
        let (snapshot, host) = source.round();
        let machine = source.machine();
        let end = Instant::now();
        let upd = Update {
            snapshot,
            host,
            took: end - start,
            dropped,
            machine,
        };
        match tx.try_send(upd) {
            Ok(()) => {
                dropped = 0;
                wake();
            }
            Err(TrySendError::Full(_)) => dropped += 1,
            Err(TrySendError::Disconnected(_)) => return,
        }
        let mut deadline = end + wait_after(start, end, interval);
        loop {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            match ctl.recv_timeout(deadline - now) {
                Ok(Ctl::Interval(d)) => {
                    interval = d;
                    // Apply at once: a shorter interval should not wait out the old one.
                    deadline = start + interval;
                }
                Ok(Ctl::HostNeed(n)) => source.host_need(n),
                Ok(Ctl::Recycle(old)) => drop(old),
                Ok(Ctl::Quit) | Err(RecvTimeoutError::Disconnected) => return,
                Err(RecvTimeoutError::Timeout) => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::Host;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;

    #[test]
    fn overrun_waits_for_next_tick() {
        let t0 = Instant::now();
        let iv = Duration::from_millis(100);
        assert_eq!(
            wait_after(t0, t0 + Duration::from_millis(30), iv),
            Duration::from_millis(70)
        );
        // 250 ms round on a 100 ms grid: next start at 300 ms, not immediately.
        assert_eq!(
            wait_after(t0, t0 + Duration::from_millis(250), iv),
            Duration::from_millis(50)
        );
        assert_eq!(
            wait_after(t0, t0 + Duration::from_millis(200), iv),
            Duration::from_millis(100)
        );
    }

    struct Slow {
        delay: Duration,
        calls: Arc<AtomicU32>,
    }
    impl RoundSource for Slow {
        fn round(&mut self) -> (Snapshot, HashMap<u32, HostProc>) {
            self.calls.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(self.delay);
            (Snapshot::new("t".into(), Host::default()), HashMap::new())
        }
    }

    #[test]
    fn slow_rounds_are_skipped_not_queued() {
        let calls = Arc::new(AtomicU32::new(0));
        let feed = Feed::spawn(
            Slow {
                delay: Duration::from_millis(150),
                calls: calls.clone(),
            },
            MIN_INTERVAL,
        );
        let t0 = Instant::now();
        std::thread::sleep(Duration::from_millis(1000));
        let n = calls.load(Ordering::SeqCst);
        let elapsed = t0.elapsed().as_millis() as u32;
        // 150 ms rounds on a 100 ms grid start at 0, 200, 400, ... ms: at most one per 200 ms
        // (back to back would be one per 150 ms: 7 in the first second). A loaded machine only
        // makes rounds slower, so the bound holds however late the sleep returns.
        assert!(
            n >= 1 && n <= elapsed / 200 + 1,
            "{n} rounds in {elapsed} ms"
        );
        // The UI did not read: one round waited in the channel, the later ones were dropped,
        // and the next delivered round says how many (all but the first and the one in flight).
        let first = feed.rx.try_recv().unwrap();
        assert_eq!(first.dropped, 0);
        assert!(first.took >= Duration::from_millis(150));
        let next = feed.rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(
            next.dropped >= (n as u64).saturating_sub(2),
            "{} dropped of {n}",
            next.dropped
        );
    }
}
