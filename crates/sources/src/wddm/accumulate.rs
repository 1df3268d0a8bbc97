//! Counter arrays summed per (process, adapter) and per adapter, and engine rates between two
//! readings of one instance.

use super::counters::{CounterArray, RawSample};
use super::instance::{parse_instance, EngineClass, Instance, Luid};
use gpuledger_lang::Said;
use std::collections::{BTreeMap, HashMap};

/// Running sum of one quantity over the instances (physical adapters) of one key.
#[derive(Default, Clone, Copy)]
pub(super) struct Acc {
    pub(super) sum: u64,
    pub(super) bad: bool,
}

impl Acc {
    pub(super) fn add(&mut self, s: &RawSample) {
        match u64::try_from(s.first) {
            Ok(v) if s.usable() => self.sum = self.sum.saturating_add(v),
            _ => self.bad = true,
        }
    }
    pub(super) fn value(self) -> Option<u64> {
        (!self.bad).then_some(self.sum)
    }
}

/// Parse every instance of an array, counting the names that did not parse.
pub(super) fn parsed<'a>(
    arr: &'a CounterArray,
    path: &str,
    notes: &mut Vec<Said>,
) -> Vec<(Instance, &'a RawSample)> {
    let mut out = Vec::with_capacity(arr.samples.len());
    let mut bad = 0usize;
    let mut example = None;
    for s in &arr.samples {
        match parse_instance(&s.instance) {
            Ok(i) => out.push((i, s)),
            Err(e) => {
                bad += 1;
                example.get_or_insert(e);
            }
        }
    }
    if let Some(e) = example {
        notes.push(Said::new(
            "report-wddm-instances-skipped",
            vec![
                ("path", path.into()),
                ("count", bad.into()),
                ("example", e.to_string().into()),
            ],
        ));
    }
    out
}

pub(super) fn per_pid_luid(
    arr: Option<&CounterArray>,
    path: &str,
    notes: &mut Vec<Said>,
) -> Option<HashMap<(u32, Luid), Acc>> {
    let arr = arr?;
    let mut m: HashMap<(u32, Luid), Acc> = HashMap::new();
    for (i, s) in parsed(arr, path, notes) {
        if let Some(pid) = i.pid {
            m.entry((pid, i.luid)).or_default().add(s);
        }
    }
    Some(m)
}

pub(super) fn per_luid(
    arr: Option<&CounterArray>,
    path: &str,
    notes: &mut Vec<Said>,
) -> Option<HashMap<Luid, Acc>> {
    let arr = arr?;
    let mut m: HashMap<Luid, Acc> = HashMap::new();
    for (i, s) in parsed(arr, path, notes) {
        if i.pid.is_none() {
            m.entry(i.luid).or_default().add(s);
        }
    }
    Some(m)
}

/// One process's engines on one adapter.
#[derive(Default)]
pub(super) struct EngineAcc {
    /// engine type → busiest rate of that type.
    pub(super) by_type: BTreeMap<String, f64>,
    pub(super) rated: bool,
    /// Classes with any running time at all, for the compute / graphics kinds.
    pub(super) active_classes: Vec<EngineClass>,
    pub(super) cumulative: u64,
}

/// Rate of one engine instance between two readings, in percent. `None` when it cannot be known.
pub(super) fn engine_rate(prev: &RawSample, cur: &RawSample, arrays_dt: i64) -> Option<f64> {
    if !prev.usable() || !cur.usable() {
        return None;
    }
    let busy = cur.first.checked_sub(prev.first)?;
    if busy < 0 {
        // A reused instance name or a driver reset: no rate rather than a negative one.
        return None;
    }
    // A timer counter carries its own time base; otherwise the collection timestamps.
    let dt = if prev.second > 0 && cur.second > prev.second {
        cur.second - prev.second
    } else {
        arrays_dt
    };
    if dt <= 0 {
        return None;
    }
    Some((busy as f64 / dt as f64 * 100.0).clamp(0.0, 100.0))
}

pub(super) fn pct(v: f64) -> u32 {
    v.round().clamp(0.0, 100.0) as u32
}
