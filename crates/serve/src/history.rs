//! The server's own memory of recent rounds, for the browser view's curves: a bounded ring of
//! small samples (each device's used memory and GPU %, and its top processes' memory), kept in
//! memory only. `GET /api/v1/history?since=MS` answers the samples taken after `MS` (Unix
//! milliseconds), so a page that polls receives each sample once.
//!
//! Each sample is rendered to JSON once, when its round is published; an answer only joins the
//! rendered samples. The ring is bounded both in time ([`WINDOW`]) and in count ([`CAPACITY`]),
//! and a sample in the number of processes it keeps ([`TOP_PER_DEVICE`] per device), so its
//! memory stays bounded whatever the interval, the number of GPUs or processes.

use gpuledger_model::{Snapshot, Usage};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::time::Duration;

/// How far back the ring reaches.
pub const WINDOW: Duration = Duration::from_secs(15 * 60);
/// Most samples kept (15 minutes at one round a second; fewer minutes at a shorter interval).
pub const CAPACITY: usize = 900;
/// Processes kept per device in a sample: the largest by measured memory.
pub const TOP_PER_DEVICE: usize = 8;
/// Schema id of the history answer.
pub const SCHEMA: &str = "gpuledger.history/1";

/// The recent samples, oldest first.
pub struct Ring {
    /// Collection interval in ms; `None` for a replay (nothing is collected).
    interval_ms: Option<u64>,
    /// What a replay shows (the file), as JSON: a string, or `null` for the live machine.
    replay: String,
    samples: VecDeque<(i64, String)>,
}

impl Ring {
    /// The ring of a live server collecting every `interval`.
    pub fn live(interval: Duration) -> Ring {
        Ring::new(Some(interval), None)
    }

    /// The ring of a server showing the recording `path`.
    pub fn replay(path: &str) -> Ring {
        Ring::new(None, Some(path))
    }

    fn new(interval: Option<Duration>, replay: Option<&str>) -> Ring {
        Ring {
            interval_ms: interval.map(|d| d.as_millis() as u64),
            replay: Value::from(replay).to_string(),
            samples: VecDeque::new(),
        }
    }

    /// Add the sample of `snap` taken at `at_ms`, dropping what fell out of the window or
    /// beyond the capacity. A sample not later than the newest replaces nothing and is dropped:
    /// the times of the ring only grow, so `since` never skips or repeats one.
    pub fn push(&mut self, snap: &Snapshot, at_ms: i64) {
        if self.samples.back().is_some_and(|&(t, _)| t >= at_ms) {
            return;
        }
        self.samples
            .push_back((at_ms, sample(snap, at_ms).to_string()));
        let oldest = at_ms - WINDOW.as_millis() as i64;
        while self.samples.len() > CAPACITY || self.samples.front().is_some_and(|s| s.0 < oldest) {
            self.samples.pop_front();
        }
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The answer to `?since=MS`: the samples taken after `since` (all when `None`), as JSON.
    pub fn answer(&self, since: Option<i64>) -> String {
        let mut out = format!(
            "{{\"schema\":\"{SCHEMA}\",\"interval_ms\":{},\"replay\":{},\"window_ms\":{},\"capacity\":{CAPACITY},\"samples\":[",
            self.interval_ms
                .map_or_else(|| "null".to_string(), |ms| ms.to_string()),
            self.replay,
            WINDOW.as_millis(),
        );
        let from = match since {
            Some(s) => self.samples.partition_point(|&(t, _)| t <= s),
            None => 0,
        };
        for (i, (_, s)) in self.samples.range(from..).enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(s);
        }
        out.push_str("]}\n");
        out
    }
}

/// The query of a history request: `since=MS` or nothing. Other parameters are ignored.
pub fn parse_since(query: &str) -> Result<Option<i64>, String> {
    for pair in query.split('&') {
        if let Some(v) = pair.strip_prefix("since=") {
            return v
                .parse::<i64>()
                .map(Some)
                .map_err(|_| format!("since={v:?} is not a time in Unix milliseconds"));
        }
    }
    Ok(None)
}

/// One round, small: per device its used and total memory, GPU %, and the sum and count of the
/// processes beyond its top; and its top processes.
fn sample(snap: &Snapshot, at_ms: i64) -> Value {
    let mut devices = Vec::new();
    let mut processes = Vec::new();
    for d in &snap.devices {
        let mut on: Vec<(&gpuledger_model::Process, &Usage, u64)> = snap
            .processes
            .iter()
            .flat_map(|p| p.usage.iter().map(move |u| (p, u)))
            .filter(|(_, u)| u.device == d.uuid)
            .filter_map(|(p, u)| Some((p, u, u.memory_bytes?)))
            .collect();
        on.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.pid.cmp(&b.0.pid)));
        // The processes beyond the top, as one sum: the page's "others" curve.
        let rest = on.get(TOP_PER_DEVICE..).unwrap_or_default();
        devices.push(json!({
            "uuid": d.uuid,
            "index": d.index,
            "used_bytes": d.memory.used_bytes,
            "total_bytes": d.memory.total_bytes,
            "gpu_percent": d.utilization.gpu_percent,
            "others_bytes": rest.iter().map(|x| x.2).sum::<u64>(),
            "others_count": rest.len(),
        }));
        for (p, _, bytes) in on.into_iter().take(TOP_PER_DEVICE) {
            processes.push(json!({
                "pid": p.pid,
                "name": p.display_name(),
                "device": d.uuid,
                "memory_bytes": bytes,
            }));
        }
    }
    json!({ "t": at_ms, "taken_at": snap.taken_at, "devices": devices, "processes": processes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::test_support::{device, process, snapshot, TAKEN_AT};

    fn snap(used: u64, procs: u32) -> Snapshot {
        let procs =
            (1..=procs).map(|pid| process(pid, "GPU-A", (pid != 3).then_some(u64::from(pid) * 10)));
        snapshot(
            TAKEN_AT,
            vec![device(0, "GPU-A", Some(1000), Some(used))],
            procs.collect(),
        )
    }

    fn samples(answer: &str) -> Vec<Value> {
        let v: Value = serde_json::from_str(answer).unwrap();
        assert_eq!(v["schema"], SCHEMA);
        v["samples"].as_array().unwrap().clone()
    }

    #[test]
    fn since_gives_each_sample_once() {
        let mut r = Ring::live(Duration::from_secs(1));
        for i in 0..5 {
            r.push(&snap(100 + i, 2), 1000 * (i as i64 + 1));
        }
        assert_eq!(samples(&r.answer(None)).len(), 5);
        let later = samples(&r.answer(Some(3000)));
        assert_eq!(later.len(), 2);
        assert_eq!(later[0]["t"], 4000);
        assert_eq!(later[0]["devices"][0]["used_bytes"], 103);
        assert!(samples(&r.answer(Some(5000))).is_empty());
        // A round with the same or an earlier time adds nothing.
        r.push(&snap(1, 2), 5000);
        assert_eq!(r.len(), 5);
        let v: Value = serde_json::from_str(&r.answer(None)).unwrap();
        assert_eq!(v["interval_ms"], 1000);
        assert_eq!(v["replay"], Value::Null);
        let v: Value = serde_json::from_str(&Ring::replay("a \"b\".json").answer(None)).unwrap();
        assert_eq!(v["interval_ms"], Value::Null);
        assert_eq!(v["replay"], "a \"b\".json");
    }

    #[test]
    fn bounded_in_time_count_and_processes() {
        let mut r = Ring::live(Duration::from_millis(100));
        for i in 0..(CAPACITY as i64 + 50) {
            r.push(&snap(1, 20), i * 100);
        }
        assert_eq!(r.len(), CAPACITY);
        let mut r = Ring::live(Duration::from_secs(60));
        r.push(&snap(1, 1), 0);
        r.push(&snap(1, 1), WINDOW.as_millis() as i64 + 1);
        assert_eq!(r.len(), 1, "the first fell out of the window");
        let s = &samples(&r.answer(None))[0];
        assert_eq!(s["processes"].as_array().unwrap().len(), 1);
        r.push(&snap(1, 20), WINDOW.as_millis() as i64 + 2);
        let last = samples(&r.answer(None)).pop().unwrap();
        let procs = last["processes"].as_array().unwrap();
        assert_eq!(procs.len(), TOP_PER_DEVICE);
        // Largest first; a process whose memory is unknown is left out, not drawn as 0.
        assert_eq!(procs[0]["pid"], 20);
        assert!(procs.iter().all(|p| p["pid"] != 3));
        // The rest, summed for the "others" curve: every known value not in the top.
        let all: u64 = (1..=20u64).filter(|&p| p != 3).map(|p| p * 10).sum();
        let top: u64 = procs
            .iter()
            .map(|p| p["memory_bytes"].as_u64().unwrap())
            .sum();
        assert_eq!(last["devices"][0]["others_bytes"], all - top);
        assert_eq!(last["devices"][0]["others_count"], 19 - TOP_PER_DEVICE);
    }

    #[test]
    fn the_since_parameter() {
        assert_eq!(parse_since(""), Ok(None));
        assert_eq!(parse_since("since=12"), Ok(Some(12)));
        assert_eq!(parse_since("x=1&since=-5"), Ok(Some(-5)));
        assert!(parse_since("since=soon").unwrap_err().contains("soon"));
    }
}
