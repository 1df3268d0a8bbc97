//! Threshold alerts: a small expression language over device and process fields, and the
//! hysteresis that makes an alert fire once per excursion.
//!
//! # The language
//!
//! ```text
//! expr  := cond ("and" cond)*
//! cond  := field op value
//! op    := ">" | ">=" | "<" | "<="
//! ```
//!
//! | field | value |
//! | --- | --- |
//! | `device.memory.used`, `device.memory.free`, `device.memory.unattributed` | a size (`8GiB`, `512MiB`, `2GB`, bytes) or a percentage of the device total (`90%`) |
//! | `process.memory` (one process on one device) | a size, or a percentage of that device's total |
//! | `device.utilization.gpu`, `process.sm` | percent (`90` or `90%`) |
//! | `device.temperature` | degrees Celsius (`85`, `85C`) |
//! | `device.power` | watts (`300`, `300W`) |
//!
//! An expression that names a `process.*` field is checked per process per device (device fields
//! then refer to that process's device); otherwise per device. A value that is unknown (`n/a`)
//! never satisfies a condition: an alert is a claim, and we do not claim what we did not measure.
//!
//! # Hysteresis
//!
//! An alert fires when its expression has held for `for` (at least one sample), then stays firing
//! (no repeats) until the expression has been false for `for` (at least one sample), when it
//! resolves and is armed again. A subject (device, process) that disappears resolves.

use gpuledger_lang::said::Said;
use gpuledger_model::units::parse_bytes;
use gpuledger_model::{Device, Process, Snapshot, Usage};
use serde::Serialize;
use std::collections::BTreeMap;

mod parse;
pub use parse::{parse, ParseError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Field {
    DeviceMemoryUsed,
    DeviceMemoryFree,
    DeviceMemoryUnattributed,
    DeviceGpu,
    DeviceTemperature,
    DevicePower,
    ProcessMemory,
    ProcessSm,
}

const FIELDS: [(&str, Field); 8] = [
    ("device.memory.used", Field::DeviceMemoryUsed),
    ("device.memory.free", Field::DeviceMemoryFree),
    (
        "device.memory.unattributed",
        Field::DeviceMemoryUnattributed,
    ),
    ("device.utilization.gpu", Field::DeviceGpu),
    ("device.temperature", Field::DeviceTemperature),
    ("device.power", Field::DevicePower),
    ("process.memory", Field::ProcessMemory),
    ("process.sm", Field::ProcessSm),
];

impl Field {
    pub fn name(self) -> &'static str {
        FIELDS
            .iter()
            .find(|(_, f)| *f == self)
            .map(|(n, _)| *n)
            .unwrap_or("?")
    }
    fn is_memory(self) -> bool {
        matches!(
            self,
            Field::DeviceMemoryUsed
                | Field::DeviceMemoryFree
                | Field::DeviceMemoryUnattributed
                | Field::ProcessMemory
        )
    }
    fn is_process(self) -> bool {
        matches!(self, Field::ProcessMemory | Field::ProcessSm)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Op {
    Gt,
    Ge,
    Lt,
    Le,
}

impl Op {
    fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Op::Gt => a > b,
            Op::Ge => a >= b,
            Op::Lt => a < b,
            Op::Le => a <= b,
        }
    }
}

/// A threshold: absolute (bytes, percent, °C, W) or a share of the device's memory total.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Threshold {
    Absolute(f64),
    PercentOfTotal(f64),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cond {
    pub field: Field,
    pub op: Op,
    pub threshold: Threshold,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expr {
    /// The expression as the user wrote it.
    pub text: String,
    pub conds: Vec<Cond>,
}

impl Expr {
    pub fn per_process(&self) -> bool {
        self.conds.iter().any(|c| c.field.is_process())
    }
}

/// What an alert is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Subject {
    pub device_uuid: String,
    pub device_index: u32,
    pub device_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process_name: Option<String>,
}

impl Subject {
    fn key(&self) -> SubjectKey {
        (self.device_uuid.clone(), self.pid, self.start_time)
    }
}

fn field_value(field: Field, d: &Device, u: Option<&Usage>) -> Option<f64> {
    match field {
        Field::DeviceMemoryUsed => d.memory.used_bytes.map(|v| v as f64),
        Field::DeviceMemoryFree => d.memory.free_bytes.map(|v| v as f64),
        Field::DeviceMemoryUnattributed => d.ledger.unattributed_bytes.map(|v| v as f64),
        Field::DeviceGpu => d.utilization.gpu_percent.map(f64::from),
        Field::DeviceTemperature => d.temperature_c.map(f64::from),
        Field::DevicePower => d.power.usage_watts,
        Field::ProcessMemory => u?.memory_bytes.map(|v| v as f64),
        Field::ProcessSm => u?.engines.sm_percent.map(f64::from),
    }
}

/// One condition's measured value, for the alert line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observed {
    pub field: &'static str,
    pub value: f64,
    /// For memory: the value as a share of the device total, when the total is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percent_of_total: Option<f64>,
}

fn check(e: &Expr, d: &Device, u: Option<&Usage>) -> Option<Vec<Observed>> {
    let mut seen = Vec::with_capacity(e.conds.len());
    for c in &e.conds {
        let v = field_value(c.field, d, u)?;
        let pct = if c.field.is_memory() {
            d.memory
                .total_bytes
                .filter(|t| *t > 0)
                .map(|t| v / t as f64 * 100.0)
        } else {
            None
        };
        let holds = match c.threshold {
            Threshold::Absolute(t) => c.op.holds(v, t),
            Threshold::PercentOfTotal(t) => c.op.holds(pct?, t),
        };
        if !holds {
            return None;
        }
        seen.push(Observed {
            field: c.field.name(),
            value: v,
            percent_of_total: pct,
        });
    }
    Some(seen)
}

/// Subjects of one snapshot for `e`, with the observed values where the expression holds.
pub fn evaluate(e: &Expr, snap: &Snapshot) -> Vec<(Subject, Option<Vec<Observed>>)> {
    let mut out = Vec::new();
    for d in &snap.devices {
        let dev_subject = |p: Option<&Process>| Subject {
            device_uuid: d.uuid.clone(),
            device_index: d.index,
            device_name: d.name.clone(),
            pid: p.map(|p| p.pid),
            start_time: p.and_then(|p| p.start_time),
            process_name: p.and_then(|p| p.name.clone()),
        };
        if e.per_process() {
            for p in &snap.processes {
                for u in p.usage.iter().filter(|u| u.device == d.uuid) {
                    out.push((dev_subject(Some(p)), check(e, d, Some(u))));
                }
            }
        } else {
            out.push((dev_subject(None), check(e, d, None)));
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Firing,
    Resolved,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    pub state: State,
    /// Unix ms of the sample that made the change.
    pub at_ms: i64,
    pub alert: String,
    pub subject: Subject,
    /// The values that made it fire (empty on resolve).
    pub observed: Vec<Observed>,
    /// Why it resolved, when it did not simply go back under the threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<Said>,
}

#[derive(Debug, Default, Clone)]
struct Track {
    true_since: Option<i64>,
    false_since: Option<i64>,
    firing: bool,
}

/// (device uuid, pid, start time): one device, or one process on one device.
type SubjectKey = (String, Option<u32>, Option<u64>);

/// Per alert and subject: the hysteresis state machine.
pub struct Tracker {
    exprs: Vec<Expr>,
    for_ms: i64,
    state: Vec<BTreeMap<SubjectKey, (Subject, Track)>>,
}

impl Tracker {
    pub fn new(exprs: Vec<Expr>, for_ms: i64) -> Self {
        let n = exprs.len();
        Tracker {
            exprs,
            for_ms: for_ms.max(0),
            state: vec![BTreeMap::new(); n],
        }
    }

    pub fn exprs(&self) -> &[Expr] {
        &self.exprs
    }

    /// Feed one sample taken at `at_ms`; returns the alerts that fired or resolved with it.
    pub fn observe(&mut self, snap: &Snapshot, at_ms: i64) -> Vec<Event> {
        let mut events = Vec::new();
        for (i, e) in self.exprs.iter().enumerate() {
            let states = &mut self.state[i];
            let mut present = std::collections::BTreeSet::new();
            for (subject, hit) in evaluate(e, snap) {
                let key = subject.key();
                present.insert(key.clone());
                let (subj, t) = states
                    .entry(key)
                    .or_insert_with(|| (subject.clone(), Track::default()));
                *subj = subject;
                match hit {
                    Some(observed) => {
                        t.false_since = None;
                        let since = *t.true_since.get_or_insert(at_ms);
                        if !t.firing && at_ms - since >= self.for_ms {
                            t.firing = true;
                            events.push(Event {
                                state: State::Firing,
                                at_ms,
                                alert: e.text.clone(),
                                subject: subj.clone(),
                                observed,
                                note: None,
                            });
                        }
                    }
                    None => {
                        t.true_since = None;
                        let since = *t.false_since.get_or_insert(at_ms);
                        if t.firing && at_ms - since >= self.for_ms {
                            t.firing = false;
                            events.push(Event {
                                state: State::Resolved,
                                at_ms,
                                alert: e.text.clone(),
                                subject: subj.clone(),
                                observed: Vec::new(),
                                note: None,
                            });
                        }
                    }
                }
            }
            // Gone subjects: resolve what was firing, forget the rest.
            let gone: Vec<_> = states
                .keys()
                .filter(|k| !present.contains(*k))
                .cloned()
                .collect();
            for k in gone {
                if let Some((subj, t)) = states.remove(&k) {
                    if t.firing {
                        events.push(Event {
                            state: State::Resolved,
                            at_ms,
                            alert: e.text.clone(),
                            subject: subj,
                            observed: Vec::new(),
                            note: Some(Said::new("report-alert-gone", vec![])),
                        });
                    }
                }
            }
        }
        events
    }

    /// Alerts firing now: (expression, subject).
    pub fn active(&self) -> Vec<(&str, &Subject)> {
        self.exprs
            .iter()
            .zip(&self.state)
            .flat_map(|(e, s)| {
                s.values()
                    .filter(|(_, t)| t.firing)
                    .map(move |(subj, _)| (e.text.as_str(), subj))
            })
            .collect()
    }
}

/// Environment for `--exec`: what the alert is about, never a command line (it can hold secrets).
/// `text` is the event's line, as `GPULEDGER_ALERT_TEXT`.
pub fn env_vars(ev: &Event, text: String) -> Vec<(String, String)> {
    let mut v = vec![
        ("GPULEDGER_ALERT".into(), ev.alert.clone()),
        (
            "GPULEDGER_ALERT_STATE".into(),
            match ev.state {
                State::Firing => "firing".into(),
                State::Resolved => "resolved".into(),
            },
        ),
        (
            "GPULEDGER_ALERT_TIME".into(),
            gpuledger_model::time::format_ms(ev.at_ms),
        ),
        ("GPULEDGER_ALERT_TEXT".into(), text),
        (
            "GPULEDGER_DEVICE_UUID".into(),
            ev.subject.device_uuid.clone(),
        ),
        (
            "GPULEDGER_DEVICE_INDEX".into(),
            ev.subject.device_index.to_string(),
        ),
    ];
    if let Some(pid) = ev.subject.pid {
        v.push(("GPULEDGER_PID".into(), pid.to_string()));
    }
    if let Some(n) = &ev.subject.process_name {
        v.push(("GPULEDGER_PROCESS_NAME".into(), n.clone()));
    }
    for o in &ev.observed {
        let key = format!(
            "GPULEDGER_VALUE_{}",
            o.field.replace('.', "_").to_ascii_uppercase()
        );
        v.push((key, format!("{}", o.value)));
    }
    v
}

#[cfg(test)]
mod tests;
