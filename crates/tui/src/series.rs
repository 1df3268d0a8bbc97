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
    pub processes: HashMap<ProcKey, Series>,
}

impl History {
    pub fn new(window_secs: f64) -> Self {
        History {
            window: window_secs,
            devices: HashMap::new(),
            processes: HashMap::new(),
        }
    }

    /// Add one round seen at `t` seconds. At [`MAX_PROCESS_SERIES`], processes without a series
    /// get none (no churn of evicting and re-creating series every round), except `keep` (the
    /// selected row), which takes the slot of the series updated longest ago.
    pub fn push(&mut self, t: f64, snap: &Snapshot, keep: Option<&ProcKey>) {
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
                let key = (p.pid, p.start_time, u.device.clone());
                if !self.processes.contains_key(&key) && self.processes.len() >= MAX_PROCESS_SERIES
                {
                    if keep != Some(&key) {
                        continue;
                    }
                    self.evict_oldest();
                }
                self.processes.entry(key).or_default().push(
                    Point {
                        t,
                        memory_bytes: u.memory_bytes,
                        gpu_percent: u.engines.sm_percent,
                    },
                    self.window,
                    PROCESS_POINTS,
                );
            }
        }
        let window = self.window;
        self.processes
            .retain(|_, s| s.last_t().is_some_and(|l| t - l <= window));
        self.devices
            .retain(|_, s| s.last_t().is_some_and(|l| t - l <= window));
    }

    fn evict_oldest(&mut self) {
        if let Some(k) = self
            .processes
            .iter()
            .min_by(|a, b| a.1.last_t().partial_cmp(&b.1.last_t()).unwrap())
            .map(|(k, _)| k.clone())
        {
            self.processes.remove(&k);
        }
    }

    /// Points held in all series (for the memory bound).
    pub fn len(&self) -> usize {
        self.devices.values().map(|s| s.points.len()).sum::<usize>()
            + self
                .processes
                .values()
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
            h.processes[&(1, Some(1), "G".into())].points.len(),
            PROCESS_POINTS
        );
    }

    #[test]
    fn process_series_are_capped_and_expire() {
        let mut h = History::new(10.0);
        let many: Vec<u32> = (1..=(MAX_PROCESS_SERIES as u32 + 40)).collect();
        h.push(0.0, &snap(&many[..MAX_PROCESS_SERIES], 1), None);
        h.push(1.0, &snap(&many, 1), None);
        assert_eq!(h.processes.len(), MAX_PROCESS_SERIES);
        // Full: the 40 newcomers get no series, the first ones keep theirs (two points each).
        let last = many[MAX_PROCESS_SERIES + 39];
        assert!(!h.processes.contains_key(&(last, Some(1), "G".into())));
        assert_eq!(h.processes[&(1, Some(1), "G".into())].points.len(), 2);
        // Except the one the view is showing, which takes the stalest slot.
        let keep = (last, Some(1), "G".to_string());
        h.push(2.0, &snap(&many, 1), Some(&keep));
        assert_eq!(h.processes.len(), MAX_PROCESS_SERIES);
        assert!(h.processes.contains_key(&keep));
        // Gone for longer than the window: dropped.
        h.push(20.0, &snap(&[1], 1), None);
        assert_eq!(h.processes.len(), 1);
    }
}
