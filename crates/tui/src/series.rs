//! Ring buffers of recent rounds for the charts and sparklines, bounded by time *and* by count so
//! memory stays flat however long the view runs and whatever the interval.
//!
//! Size: a point is 32 bytes. Devices keep up to [`DEVICE_POINTS`] points (10 min at 100 ms = 6000,
//! so ≈192 KB a device); processes up to [`PROCESS_POINTS`] each (10 min at 1 s; at shorter
//! intervals the time window shrinks instead) and at most [`MAX_PROCESS_SERIES`] processes
//! (≈4.9 MB worst case). Process series not updated within the window are dropped.

use gpuledger_model::Snapshot;
use std::collections::{HashMap, VecDeque};

pub const DEVICE_POINTS: usize = 6000;
pub const PROCESS_POINTS: usize = 600;
pub const MAX_PROCESS_SERIES: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Seconds since the history started.
    pub t: f64,
    pub memory_bytes: Option<u64>,
    pub gpu_percent: Option<u32>,
}

#[derive(Debug, Clone, Default)]
pub struct Series {
    pub points: VecDeque<Point>,
}

impl Series {
    fn push(&mut self, p: Point, window: f64, cap: usize) {
        while self.points.len() >= cap {
            self.points.pop_front();
        }
        // Grow at most to `cap`: doubling would leave a 600-point series with room for 1024.
        if self.points.len() == self.points.capacity() {
            let extra = self.points.len().clamp(8, cap).min(cap - self.points.len());
            self.points.reserve_exact(extra);
        }
        self.points.push_back(p);
        while self.points.front().is_some_and(|f| p.t - f.t > window) {
            self.points.pop_front();
        }
    }

    pub fn last_t(&self) -> Option<f64> {
        self.points.back().map(|p| p.t)
    }
}

/// A process series is keyed by PID, start time and device: a reused PID starts a new series.
pub type ProcKey = (u32, Option<u64>, String);

#[derive(Debug)]
pub struct History {
    /// Seconds kept.
    pub window: f64,
    pub devices: HashMap<String, Series>,
    /// Per device (its UUID), then per process (PID, start time): a round finds each series
    /// without building a key (at 200 processes, cloning and hashing a device string per row
    /// was most of applying a round).
    processes: HashMap<String, HashMap<(u32, Option<u64>), Series>>,
    /// Process series held, over every device (bounded by [`MAX_PROCESS_SERIES`]).
    nprocesses: usize,
}

impl History {
    pub fn new(window_secs: f64) -> Self {
        History {
            window: window_secs,
            devices: HashMap::new(),
            processes: HashMap::new(),
            nprocesses: 0,
        }
    }

    /// The series of process `pid` (started at `start`) on the device with UUID `device`.
    pub fn process(&self, pid: u32, start: Option<u64>, device: &str) -> Option<&Series> {
        self.processes.get(device)?.get(&(pid, start))
    }

    /// How many process series are held.
    pub fn process_series(&self) -> usize {
        self.nprocesses
    }

    /// Add one round seen at `t` seconds. At [`MAX_PROCESS_SERIES`], processes without a series
    /// get none (no churn of evicting and re-creating series every round), except `keep` (the
    /// selected row), which takes the slot of the series updated longest ago.
    pub fn push(&mut self, t: f64, snap: &Snapshot, keep: Option<&ProcKey>) {
        // Series gone for longer than the window go first, so that a full table makes room
        // for this round's newcomers before turning them away.
        let window = self.window;
        for d in self.processes.values_mut() {
            d.retain(|_, s| s.last_t().is_some_and(|l| t - l <= window));
        }
        self.processes.retain(|_, d| !d.is_empty());
        self.nprocesses = self.processes.values().map(HashMap::len).sum();
        for d in &snap.devices {
            self.devices.entry(d.uuid.clone()).or_default().push(
                Point {
                    t,
                    memory_bytes: d.memory.used_bytes,
                    gpu_percent: d.utilization.gpu_percent,
                },
                self.window,
                DEVICE_POINTS,
            );
        }
        for p in &snap.processes {
            for u in &p.usage {
                let point = Point {
                    t,
                    memory_bytes: u.memory_bytes,
                    gpu_percent: u.engines.sm_percent,
                };
                let key = (p.pid, p.start_time);
                if let Some(s) = self
                    .processes
                    .get_mut(u.device.as_str())
                    .and_then(|d| d.get_mut(&key))
                {
                    s.push(point, self.window, PROCESS_POINTS);
                    continue;
                }
                if self.nprocesses >= MAX_PROCESS_SERIES {
                    let kept = keep.is_some_and(|k| (k.0, k.1) == key && k.2 == u.device);
                    if !kept {
                        continue;
                    }
                    self.evict_oldest();
                }
                let mut s = Series::default();
                s.push(point, self.window, PROCESS_POINTS);
                self.processes
                    .entry(u.device.clone())
                    .or_default()
                    .insert(key, s);
                self.nprocesses += 1;
            }
        }
        self.devices
            .retain(|_, s| s.last_t().is_some_and(|l| t - l <= window));
    }

    fn evict_oldest(&mut self) {
        let oldest = self
            .processes
            .iter()
            .flat_map(|(dev, d)| d.iter().map(move |(k, s)| (dev, *k, s.last_t())))
            .min_by(|a, b| a.2.partial_cmp(&b.2).unwrap())
            .map(|(dev, k, _)| (dev.clone(), k));
        if let Some((dev, k)) = oldest {
            if let Some(d) = self.processes.get_mut(&dev) {
                d.remove(&k);
                self.nprocesses -= 1;
            }
        }
    }

    /// Points held in all series (for the memory bound).
    pub fn len(&self) -> usize {
        self.devices.values().map(|s| s.points.len()).sum::<usize>()
            + self
                .processes
                .values()
                .flat_map(HashMap::values)
                .map(|s| s.points.len())
                .sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::test_support::{device, process, snapshot};

    fn snap(pids: &[u32], used: u64) -> Snapshot {
        let procs = pids.iter().map(|&pid| {
            let mut p = process(pid, "G", Some(u64::from(pid)));
            p.start_time = Some(1);
            p
        });
        snapshot("t", vec![device(0, "G", None, Some(used))], procs.collect())
    }

    #[test]
    fn bounded_by_time_and_count() {
        let mut h = History::new(60.0);
        for i in 0..200 {
            h.push(i as f64, &snap(&[1], i), None);
        }
        let d = &h.devices["G"];
        // 60 s window at 1 s: 61 points (both ends inclusive), oldest at t=139.
        assert_eq!(d.points.len(), 61);
        assert_eq!(d.points.front().unwrap().t, 139.0);
        assert_eq!(d.points.back().unwrap().memory_bytes, Some(199));
        // Count bound at a fast interval.
        let mut h = History::new(600.0);
        for i in 0..(PROCESS_POINTS + 50) {
            h.push(i as f64 * 0.1, &snap(&[1], 5), None);
        }
        assert_eq!(
            h.process(1, Some(1), "G").unwrap().points.len(),
            PROCESS_POINTS
        );
    }

    #[test]
    fn process_series_are_capped_and_expire() {
        let mut h = History::new(10.0);
        let many: Vec<u32> = (1..=(MAX_PROCESS_SERIES as u32 + 40)).collect();
        h.push(0.0, &snap(&many[..MAX_PROCESS_SERIES], 1), None);
        h.push(1.0, &snap(&many, 1), None);
        assert_eq!(h.process_series(), MAX_PROCESS_SERIES);
        // Full: the 40 newcomers get no series, the first ones keep theirs (two points each).
        let last = many[MAX_PROCESS_SERIES + 39];
        assert!(h.process(last, Some(1), "G").is_none());
        assert_eq!(h.process(1, Some(1), "G").unwrap().points.len(), 2);
        // Except the one the view is showing, which takes the stalest slot.
        let keep = (last, Some(1), "G".to_string());
        h.push(2.0, &snap(&many, 1), Some(&keep));
        assert_eq!(h.process_series(), MAX_PROCESS_SERIES);
        assert!(h.process(last, Some(1), "G").is_some());
        // Gone for longer than the window: dropped, and the room they leave is there for this
        // round's processes (process 1 may have been the slot the shown one took: each series
        // was last seen at 2.0, so which one goes is the hash map's order).
        h.push(20.0, &snap(&[1], 1), None);
        assert_eq!(h.process_series(), 1);
        assert_eq!(h.process(1, Some(1), "G").unwrap().points.len(), 1);
        // A full table whose series all expire still admits every newcomer.
        let mut h = History::new(10.0);
        h.push(0.0, &snap(&many[..MAX_PROCESS_SERIES], 1), None);
        let newcomers = &many[MAX_PROCESS_SERIES..];
        h.push(11.0, &snap(newcomers, 1), None);
        assert_eq!(h.process_series(), newcomers.len());
    }
}
