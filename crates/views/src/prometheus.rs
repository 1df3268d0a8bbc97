//! The snapshot in the Prometheus text exposition format (version 0.0.4), for `gpuledger serve`.
//!
//! Hand-written rather than built on `prometheus-client`: that crate's model is a registry of
//! long-lived metric objects updated in place, while a view here re-renders one immutable snapshot
//! per collection round. With the crate each round would build a fresh registry and families
//! (label sets as types), only to throw them away; and "unknown stays unknown" means a series is
//! simply absent, which is natural when we write the lines ourselves. The format is small: `# HELP`,
//! `# TYPE`, `name{label="value"} number` lines, with three escapes in label values.
//!
//! Rules this view keeps:
//! - **Unknown values are omitted, never exported as 0.** A device whose power NVML cannot read has
//!   no `gpuledger_device_power_watts` series; a process whose memory is `NOT_AVAILABLE` has no
//!   `gpuledger_process_memory_bytes` series (its share sits in the device's unattributed bytes).
//!   A label whose value is unknown is left out, which Prometheus treats like an empty value.
//! - **No secrets in labels.** Command lines never appear in labels at all; the process name and
//!   user go through [`redact_text`] and are truncated to [`MAX_LABEL_CHARS`].
//! - **Bounded cardinality.** Per-process series are limited by [`ProcessSeries`] (default: the
//!   top 50 processes by measured memory); `gpuledger_processes` and `gpuledger_processes_exported`
//!   say how many were left out.
//! - **Measured and estimated never mix.** Estimated breakdowns (`process.estimate`)
//!   go to their own metrics whose names contain `estimated`
//!   (`gpuledger_process_estimated_memory_bytes{component=...}`); no measured metric ever includes
//!   an estimate.
//! - Units are base units: bytes, seconds, watts, degrees Celsius, hertz; percentages become
//!   `_ratio` in 0..=1.

use gpuledger_model::{
    redact_text, Device, EstimatedMemory, Process, Snapshot, SourceState, Usage, WorkloadKind,
};
use std::fmt::Write;
use std::str::FromStr;

/// Metric names of the estimated ledger (computed by a recipe, never measured), listed so that
/// nothing measured is ever given one of these names.
/// `gpuledger_process_estimated_memory_bytes{pid,name,user,workload,model,recipe,component}`
/// with `component` one of `weights`, `kv_cache`, `compute`, `overhead`: the known parts. The
/// total is not a series of that family, or `sum by (pid)` would count every process twice
/// (issue 16): it is its own family, `gpuledger_process_estimated_total_bytes`, because the
/// parts' sum is the total only when every part is known (SGLang's total is its static pool,
/// its known parts only weights and KV cache). `gpuledger_process_estimated_partial` is 1 when
/// a part is unknown: the total is then a floor and the parts do not add up to it.
pub const ESTIMATED_METRICS: &[&str] = &[
    "gpuledger_process_estimated_memory_bytes",
    "gpuledger_process_estimated_total_bytes",
    "gpuledger_process_estimated_partial",
];

/// Content-Type of [`render_metrics`]'s output.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Label values longer than this (in characters) are cut, so one odd process name cannot bloat
/// every scrape.
pub const MAX_LABEL_CHARS: usize = 128;

/// Which processes get per-process series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessSeries {
    /// No per-process series (device and source metrics only).
    None,
    /// The N processes with the most measured memory (summed over devices).
    Top(usize),
    /// Every process: cardinality follows the machine's process count.
    All,
}

impl Default for ProcessSeries {
    fn default() -> Self {
        ProcessSeries::Top(50)
    }
}

impl FromStr for ProcessSeries {
    type Err = String;

    /// `top-N`, `all` or `none`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "all" => Ok(ProcessSeries::All),
            "none" => Ok(ProcessSeries::None),
            _ => {
                let n = s.strip_prefix("top-").ok_or_else(|| {
                    format!(
                        "{s:?} is not a process selection: use top-N (e.g. top-50), all or none"
                    )
                })?;
                let n: usize = n.parse().map_err(|_| {
                    format!("{s:?}: N in top-N must be a whole number (e.g. top-50)")
                })?;
                if n == 0 {
                    return Err("top-0 exports no process: say `none` instead".into());
                }
                Ok(ProcessSeries::Top(n))
            }
        }
    }
}

/// Counters kept by the serving loop (not part of a snapshot).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CollectionStats {
    /// Wall time of the latest collection round.
    pub duration_seconds: f64,
    /// Rounds completed since start.
    pub rounds_total: u64,
    /// Rounds in which at least one source reported an error.
    pub errors_total: u64,
    /// Rounds skipped because the previous one overran its interval.
    pub skipped_total: u64,
    /// Unix time at which the latest round finished.
    pub last_round_unix_seconds: f64,
}

#[derive(Debug, Clone, Default)]
pub struct MetricsOptions {
    pub processes: ProcessSeries,
    /// Collection-loop counters; `None` when serving a recording (no collection happens).
    pub collection: Option<CollectionStats>,
    /// The snapshot is a recording, not the live machine (`gpuledger_snapshot_replay 1`).
    pub replay: bool,
}

/// Render `snap` as a Prometheus text exposition.
pub fn render_metrics(snap: &Snapshot, opts: &MetricsOptions) -> String {
    let mut out = String::with_capacity(4096 + snap.processes.len() * 600);
    devices(&mut out, &snap.devices);
    processes(&mut out, snap, opts.processes);
    health(&mut out, snap, opts);
    out
}

/// A numeric sample value: integers stay exact, floats that are not finite are dropped.
#[derive(Clone, Copy)]
enum Val {
    U(u64),
    F(f64),
}

/// One metric family: header lines are written only if at least one sample is, so families with
/// nothing known do not appear at all.
struct Family<'a> {
    out: &'a mut String,
    name: &'static str,
    help: &'static str,
    kind: &'static str,
    started: bool,
}

impl<'a> Family<'a> {
    fn new(
        out: &'a mut String,
        name: &'static str,
        kind: &'static str,
        help: &'static str,
    ) -> Self {
        Family {
            out,
            name,
            help,
            kind,
            started: false,
        }
    }

    /// Write one sample; labels whose value is `None` are left out.
    fn sample(&mut self, labels: &[(&str, Option<&str>)], v: Option<Val>) {
        let Some(v) = v else { return };
        if let Val::F(f) = v {
            if !f.is_finite() {
                return;
            }
        }
        if !self.started {
            self.started = true;
            // HELP text escapes backslash and newline; ours are constants without either.
            let _ = writeln!(self.out, "# HELP {} {}", self.name, self.help);
            let _ = writeln!(self.out, "# TYPE {} {}", self.name, self.kind);
        }
        self.out.push_str(self.name);
        let mut first = true;
        for (k, val) in labels {
            let Some(val) = val else { continue };
            self.out.push(if first { '{' } else { ',' });
            first = false;
            self.out.push_str(k);
            self.out.push_str("=\"");
            escape_label_value(self.out, val);
            self.out.push('"');
        }
        if !first {
            self.out.push('}');
        }
        self.out.push(' ');
        let _ = match v {
            Val::U(u) => write!(self.out, "{u}"),
            Val::F(f) => write!(self.out, "{f}"),
        };
        self.out.push('\n');
    }
}

/// Label-value escaping of the text format: `\` → `\\`, `"` → `\"`, newline → `\n`. Values are
/// cut to [`MAX_LABEL_CHARS`] characters first.
fn escape_label_value(out: &mut String, v: &str) {
    for c in v.chars().take(MAX_LABEL_CHARS) {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

fn pct(p: Option<u32>) -> Option<Val> {
    p.map(|p| Val::F(f64::from(p) / 100.0))
}

fn bytes(b: Option<u64>) -> Option<Val> {
    b.map(Val::U)
}

/// The `device`, `index` and `name` labels every per-device metric carries.
fn device_labels<'a>(d: &'a Device, index: &'a str) -> [(&'static str, Option<&'a str>); 3] {
    [
        ("device", Some(d.uuid.as_str())),
        ("index", Some(index)),
        ("name", d.name.as_deref()),
    ]
}

/// A gauge read off a device: name, help, value (`None`: unknown, so no series).
type DeviceGauge = (&'static str, &'static str, fn(&Device) -> Option<Val>);

/// The device gauges, in exposition order.
const DEVICE_GAUGES: [DeviceGauge; 15] = [
    ("gpuledger_device_memory_total_bytes", "Device-local memory (VRAM) size, measured.", |d| bytes(d.memory.total_bytes)),
    ("gpuledger_device_memory_used_bytes", "Device-local memory in use, measured.", |d| bytes(d.memory.used_bytes)),
    ("gpuledger_device_memory_free_bytes", "Device-local memory free, measured.", |d| bytes(d.memory.free_bytes)),
    ("gpuledger_device_memory_reserved_bytes", "Device-local memory held back by the driver/firmware, measured.", |d| bytes(d.memory.reserved_bytes)),
    ("gpuledger_device_memory_attributed_bytes", "Sum of the known per-process memory on the device.", |d| Some(Val::U(d.ledger.attributed_bytes))),
    ("gpuledger_device_memory_unattributed_bytes", "Used minus attributed: driver, system, processes not visible or with unknown memory. Absent when used is unknown or processes add up to more than used.", |d| bytes(d.ledger.unattributed_bytes)),
    ("gpuledger_device_memory_over_attributed_bytes", "How far per-process memory exceeds device used (shared surfaces charged to several processes). Present only then.", |d| bytes(d.ledger.over_attributed_bytes)),
    ("gpuledger_device_processes_memory_unknown", "Processes on the device whose memory could not be read (their share is in unattributed).", |d| Some(Val::U(u64::from(d.ledger.unknown_processes)))),
    ("gpuledger_device_system_memory_total_bytes", "Device-visible system memory (GTT / WDDM shared) size, where reported.", |d| bytes(d.system_memory.and_then(|m| m.total_bytes))),
    ("gpuledger_device_system_memory_used_bytes", "Device-visible system memory in use, where reported.", |d| bytes(d.system_memory.and_then(|m| m.used_bytes))),
    ("gpuledger_device_utilization_ratio", "GPU busy over the driver's sample period (0..1).", |d| pct(d.utilization.gpu_percent)),
    ("gpuledger_device_memory_bandwidth_utilization_ratio", "Memory controller busy (bandwidth, not occupancy) over the driver's sample period (0..1).", |d| pct(d.utilization.memory_percent)),
    ("gpuledger_device_power_watts", "Power draw.", |d| d.power.usage_watts.map(Val::F)),
    ("gpuledger_device_power_limit_watts", "Enforced power limit.", |d| d.power.limit_watts.map(Val::F)),
    ("gpuledger_device_temperature_celsius", "GPU core temperature.", |d| d.temperature_c.map(|t| Val::F(f64::from(t)))),
];

/// Every device family: identity, the gauges of [`DEVICE_GAUGES`], then clocks by domain.
fn devices(out: &mut String, devs: &[Device]) {
    let idx: Vec<String> = devs.iter().map(|d| d.index.to_string()).collect();
    per_device(
        out,
        "gpuledger_device_info",
        "Device identity (value is always 1); other device metrics carry the device, index and name labels.",
        devs,
        &idx,
        |f, d, [device, index, name]| {
            f.sample(
                &[
                    device,
                    index,
                    name,
                    ("vendor", Some(d.vendor.as_str())),
                    ("pci_bus_id", d.pci_bus_id.as_deref()),
                    ("driver_version", d.driver_version.as_deref()),
                    ("source", Some(&d.source)),
                ],
                Some(Val::U(1)),
            )
        },
    );
    for (name, help, get) in DEVICE_GAUGES {
        per_device(out, name, help, devs, &idx, |f, d, labels| {
            f.sample(&labels, get(d))
        });
    }
    per_device(
        out,
        "gpuledger_device_clock_hertz",
        "Current clock frequency by clock domain (graphics, sm, memory).",
        devs,
        &idx,
        |f, d, [a, b, c]| {
            for (clock, mhz) in [
                ("graphics", d.clocks.graphics_mhz),
                ("sm", d.clocks.sm_mhz),
                ("memory", d.clocks.memory_mhz),
            ] {
                f.sample(
                    &[a, b, c, ("clock", Some(clock))],
                    mhz.map(|m| Val::U(u64::from(m) * 1_000_000)),
                );
            }
        },
    );
}

/// One gauge family over the devices: `each` writes a device's samples, given its
/// [`device_labels`]. `idx` holds each device's index as text (labels borrow it).
fn per_device<'d>(
    out: &mut String,
    name: &'static str,
    help: &'static str,
    devs: &'d [Device],
    idx: &'d [String],
    mut each: impl FnMut(&mut Family, &'d Device, [(&'static str, Option<&'d str>); 3]),
) {
    let mut f = Family::new(out, name, "gauge", help);
    for (d, i) in devs.iter().zip(idx) {
        each(&mut f, d, device_labels(d, i));
    }
}

/// Processes that get series under `sel`: the most measured memory first, ties by pid, so the
/// selection is stable between scrapes when nothing changes.
pub fn selected_processes(snap: &Snapshot, sel: ProcessSeries) -> Vec<&Process> {
    let n = match sel {
        ProcessSeries::None => return Vec::new(),
        ProcessSeries::Top(n) => n,
        ProcessSeries::All => usize::MAX,
    };
    let mut ps: Vec<(u64, &Process)> = snap
        .processes
        .iter()
        .map(|p| (Snapshot::process_memory(p), p))
        .collect();
    if n < ps.len() {
        // Only the first N need ordering.
        ps.select_nth_unstable_by(n, |a, b| b.0.cmp(&a.0).then(a.1.pid.cmp(&b.1.pid)));
        ps.truncate(n);
    }
    ps.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.pid.cmp(&b.1.pid)));
    ps.into_iter().map(|(_, p)| p).collect()
}

/// Text safe for a label: secrets redacted by the one detector (a process can set its own name
/// to anything: `--api-key=...`, a bare token).
fn safe(s: Option<&str>) -> Option<String> {
    s.map(redact_text)
}

/// `workload` is the identified kind's stable id (`llama-cpp`, `ollama`, `pytorch`, ...; absent
/// when unidentified); `model` is the model file's base name without `.gguf` (a full path says
/// more about the machine than about the model), redacted like every label.
fn workload_labels(p: &Process) -> (Option<String>, Option<String>) {
    let Some(w) = &p.workload else {
        return (None, None);
    };
    let kind = match w.kind {
        WorkloadKind::Unknown => None,
        k => serde_json::to_value(k)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string)),
    };
    let model = w.model.as_deref().map(|m| {
        let base = m.rsplit(['/', '\\']).next().unwrap_or(m);
        base.strip_suffix(".gguf").unwrap_or(base)
    });
    (kind, safe(model))
}

/// The labels that say which process a series is about, built once per process and shared by
/// every per-process family.
struct ProcessLabels {
    pid: String,
    name: Option<String>,
    user: Option<String>,
    container: Option<String>,
    workload: Option<String>,
    model: Option<String>,
    /// For a process of a workload of several: its role (`worker TP1/2`) and the root's pid, so
    /// a dashboard can sum a workload's GPUs.
    role: Option<String>,
    workload_root: Option<String>,
}

impl ProcessLabels {
    fn of(p: &Process) -> Self {
        let (workload, model) = workload_labels(p);
        let member = p.workload.as_ref().and_then(|w| w.member.as_ref());
        ProcessLabels {
            pid: p.pid.to_string(),
            name: safe(p.name.as_deref()),
            user: safe(p.user.as_deref()),
            container: safe(p.container.as_deref()),
            workload,
            model,
            role: member.map(|m| m.role.clone()),
            workload_root: member.and_then(|m| m.root_pid).map(|r| r.to_string()),
        }
    }

    /// Labels of the process's use of one device (measured families).
    fn on_device<'a>(&'a self, u: &'a Usage) -> [(&'static str, Option<&'a str>); 10] {
        [
            ("device", Some(u.device.as_str())),
            ("pid", Some(self.pid.as_str())),
            ("name", self.name.as_deref()),
            ("user", self.user.as_deref()),
            ("container", self.container.as_deref()),
            ("workload", self.workload.as_deref()),
            ("model", self.model.as_deref()),
            ("role", self.role.as_deref()),
            ("workload_root", self.workload_root.as_deref()),
            ("source", Some(u.memory_source.as_str())),
        ]
    }
}

/// A gauge read off a process's use of one device: name, help, value.
type UsageGauge = (&'static str, &'static str, fn(&Usage) -> Option<Val>);

/// The measured per-process gauges, in exposition order.
const PROCESS_GAUGES: [UsageGauge; 4] = [
    ("gpuledger_process_memory_bytes", "Device-local memory charged to the process, measured (source label names the counter).", |u| bytes(u.memory_bytes)),
    ("gpuledger_process_system_memory_bytes", "Device-visible system memory (GTT / shared) charged to the process, where the source separates it.", |u| bytes(u.system_memory_bytes)),
    ("gpuledger_process_gpu_utilization_ratio", "Share of the device's SM/compute time the process used over the last sample interval (0..1).", |u| pct(u.engines.sm_percent)),
    ("gpuledger_process_memory_bandwidth_utilization_ratio", "Share of the device's memory-controller time the process used over the last sample interval (0..1).", |u| pct(u.engines.memory_percent)),
];

/// Every process family: the measured gauges per device, the estimated parts apart, then how
/// many processes there are and how many got series.
fn processes(out: &mut String, snap: &Snapshot, sel: ProcessSeries) {
    let chosen = selected_processes(snap, sel);
    let labels: Vec<ProcessLabels> = chosen.iter().map(|p| ProcessLabels::of(p)).collect();
    for (name, help, get) in PROCESS_GAUGES {
        let mut f = Family::new(out, name, "gauge", help);
        for (p, l) in chosen.iter().zip(&labels) {
            for u in &p.usage {
                f.sample(&l.on_device(u), get(u));
            }
        }
    }
    estimated_parts(out, &chosen, &labels);
    let n = |n: usize| Val::U(n as u64);
    single(
        out,
        "gpuledger_processes",
        "gauge",
        "GPU processes in the snapshot.",
        n(snap.processes.len()),
    );
    single(
        out,
        "gpuledger_processes_exported",
        "gauge",
        "GPU processes with per-process series in this exposition (bounded by --processes).",
        n(chosen.len()),
    );
}

/// The estimated ledger: its own families, never summed with the measured one. The parts
/// family holds only the parts, so that summing it never counts the total as well; the total
/// and whether it is a floor are families of their own.
fn estimated_parts(out: &mut String, chosen: &[&Process], labels: &[ProcessLabels]) {
    let estimated: Vec<(&EstimatedMemory, &ProcessLabels)> = chosen
        .iter()
        .zip(labels)
        .filter_map(|(p, l)| Some((p.estimate.as_deref()?, l)))
        .collect();
    let mut f = Family::new(
        out,
        ESTIMATED_METRICS[0],
        "gauge",
        "ESTIMATED GPU memory of an AI process by component, computed by a recipe from the model file and the runtime's settings (not measured). Unknown parts have no series: see gpuledger_process_estimated_partial.",
    );
    for (e, l) in &estimated {
        for (component, v) in [
            ("weights", Some(e.weights_gpu_bytes)),
            ("kv_cache", e.kv_cache_gpu_bytes),
            ("compute", e.compute_gpu_bytes),
            ("overhead", e.overhead_gpu_bytes),
        ] {
            let mut ls = estimate_labels(l, e);
            ls.push(("component", Some(component)));
            f.sample(&ls, bytes(v));
        }
    }
    let mut f = Family::new(
        out,
        ESTIMATED_METRICS[1],
        "gauge",
        "ESTIMATED total GPU memory of an AI process (not measured): the sum of its parts, or the runtime's reservation; a floor when gpuledger_process_estimated_partial is 1.",
    );
    for (e, l) in &estimated {
        f.sample(&estimate_labels(l, e), Some(Val::U(e.total_gpu_bytes)));
    }
    let mut f = Family::new(
        out,
        ESTIMATED_METRICS[2],
        "gauge",
        "1 when a part of the ESTIMATED memory is unknown: the estimated total is then a floor and the parts do not sum to it; 0 otherwise.",
    );
    for (e, l) in &estimated {
        f.sample(
            &estimate_labels(l, e),
            Some(Val::U(u64::from(e.is_partial()))),
        );
    }
}

/// The labels every estimated series of a process carries (the parts add `component`).
fn estimate_labels<'a>(
    l: &'a ProcessLabels,
    e: &'a EstimatedMemory,
) -> Vec<(&'static str, Option<&'a str>)> {
    vec![
        ("pid", Some(l.pid.as_str())),
        ("name", l.name.as_deref()),
        ("user", l.user.as_deref()),
        ("workload", l.workload.as_deref()),
        ("model", l.model.as_deref()),
        ("role", l.role.as_deref()),
        ("workload_root", l.workload_root.as_deref()),
        ("recipe", Some(e.recipe.as_str())),
    ]
}

/// A family with one unlabelled sample.
fn single(out: &mut String, name: &'static str, kind: &'static str, help: &'static str, v: Val) {
    Family::new(out, name, kind, help).sample(&[], Some(v));
}

fn health(out: &mut String, snap: &Snapshot, opts: &MetricsOptions) {
    let mut f = Family::new(
        out,
        "gpuledger_source_up",
        "gauge",
        "1 when the source worked in the latest round, 0 when it was unavailable or failed.",
    );
    for s in &snap.sources {
        let up = u64::from(s.status == SourceState::Ok);
        let state = match s.status {
            SourceState::Ok => "ok",
            SourceState::Unavailable => "unavailable",
            SourceState::Error => "error",
        };
        f.sample(
            &[("source", Some(&s.name)), ("state", Some(state))],
            Some(Val::U(up)),
        );
    }
    single(
        out,
        "gpuledger_snapshot_replay",
        "gauge",
        "1 when the served snapshot is a recording, not the live machine.",
        Val::U(u64::from(opts.replay)),
    );
    let Some(c) = opts.collection else { return };
    single(
        out,
        "gpuledger_collection_duration_seconds",
        "gauge",
        "Wall time of the latest collection round.",
        Val::F(c.duration_seconds),
    );
    single(
        out,
        "gpuledger_collection_last_round_timestamp_seconds",
        "gauge",
        "Unix time at which the latest collection round finished.",
        Val::F(c.last_round_unix_seconds),
    );
    for (name, help, v) in [
        (
            "gpuledger_collection_rounds_total",
            "Collection rounds completed.",
            c.rounds_total,
        ),
        (
            "gpuledger_collection_errors_total",
            "Collection rounds in which at least one source reported an error.",
            c.errors_total,
        ),
        (
            "gpuledger_collection_skipped_rounds_total",
            "Rounds skipped because the previous round overran the interval (never queued).",
            c.skipped_total,
        ),
    ] {
        single(out, name, "counter", help, Val::U(v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::llama_workload;
    use gpuledger_model::*;

    const G0: &str = "GPU-0000";
    const G1: &str = "GPU-1111";

    fn proc_(pid: u32, name: &str, user: Option<&str>, mem: &[(&str, Option<u64>)]) -> Process {
        let mut p = Process::new(pid);
        p.name = Some(name.into());
        p.user = user.map(Into::into);
        p.cmdline = Some(vec![
            "/bin/srv".into(),
            "--api-key".into(),
            REDACTED_IN_SNAPSHOT.into(),
        ]);
        for (dev, m) in mem {
            let mut u = Usage::new(*dev, "nvml");
            u.memory_bytes = *m;
            p.usage.push(u);
        }
        p
    }

    // A snapshot never holds a raw secret (sources redact), but labels must not even carry the
    // redacted command line: this marker must never reach the output.
    const REDACTED_IN_SNAPSHOT: &str = "CMDLINE-MARKER";

    fn sample() -> Snapshot {
        let mut s = Snapshot::new("2026-11-29T08:00:00Z".into(), Host::default());
        let mut d = Device::new(0, Vendor::Nvidia, G0, "nvml");
        d.name = Some("NVIDIA H200".into());
        d.memory = Memory {
            total_bytes: Some(150_754_820_096),
            used_bytes: Some(40_000_000_000),
            free_bytes: Some(110_754_820_096),
            reserved_bytes: Some(600_000_000),
        };
        d.utilization.gpu_percent = Some(37);
        d.utilization.memory_percent = Some(12);
        d.temperature_c = Some(54);
        d.power.usage_watts = Some(215.5);
        d.power.limit_watts = Some(700.0);
        d.clocks.sm_mhz = Some(1980);
        s.devices.push(d);
        // Second device: nothing but the total is known.
        let mut d1 = Device::new(1, Vendor::Nvidia, G1, "nvml");
        d1.memory.total_bytes = Some(25_757_220_864);
        d1.mark_unavailable("power.usage_watts", "not supported");
        s.devices.push(d1);

        let mut llama = proc_(
            4242,
            "llama-server",
            Some("alice"),
            &[(G0, Some(17_179_869_184))],
        );
        llama.usage[0].engines.sm_percent = Some(85);
        s.processes.push(llama);
        s.processes
            .push(proc_(6001, "ollama", Some("root"), &[(G0, None)]));
        s.sources
            .push(SourceStatus::new("nvml", SourceState::Ok, "2 devices"));
        s.sources.push(SourceStatus::new(
            "procfs",
            SourceState::Error,
            "permission denied",
        ));
        balance(&mut s);
        s
    }

    fn lines_of<'a>(text: &'a str, metric: &str) -> Vec<&'a str> {
        text.lines()
            .filter(|l| {
                l.strip_prefix(metric)
                    .is_some_and(|r| r.starts_with('{') || r.starts_with(' '))
            })
            .collect()
    }

    #[test]
    fn device_gauges_have_conventional_names_labels_and_base_units() {
        let t = render_metrics(&sample(), &MetricsOptions::default());
        let dl = r#"{device="GPU-0000",index="0",name="NVIDIA H200"}"#;
        for want in [
            format!("gpuledger_device_memory_total_bytes{dl} 150754820096"),
            format!("gpuledger_device_memory_used_bytes{dl} 40000000000"),
            format!("gpuledger_device_memory_free_bytes{dl} 110754820096"),
            format!("gpuledger_device_memory_reserved_bytes{dl} 600000000"),
            format!("gpuledger_device_memory_attributed_bytes{dl} 17179869184"),
            format!("gpuledger_device_memory_unattributed_bytes{dl} 22820130816"),
            format!("gpuledger_device_processes_memory_unknown{dl} 1"),
            format!("gpuledger_device_utilization_ratio{dl} 0.37"),
            format!("gpuledger_device_memory_bandwidth_utilization_ratio{dl} 0.12"),
            format!("gpuledger_device_temperature_celsius{dl} 54"),
            format!("gpuledger_device_power_watts{dl} 215.5"),
            format!("gpuledger_device_power_limit_watts{dl} 700"),
            r#"gpuledger_device_clock_hertz{device="GPU-0000",index="0",name="NVIDIA H200",clock="sm"} 1980000000"#.to_string(),
            r#"gpuledger_device_info{device="GPU-0000",index="0",name="NVIDIA H200",vendor="nvidia",source="nvml"} 1"#.to_string(),
            "# TYPE gpuledger_device_memory_used_bytes gauge".to_string(),
        ] {
            assert!(t.lines().any(|l| l == want), "missing line {want:?} in\n{t}");
        }
    }

    #[test]
    fn unknown_values_are_omitted_never_zero() {
        let t = render_metrics(&sample(), &MetricsOptions::default());
        // GPU-1111 knows only its total: exactly one memory series, and its unknown name is
        // left out of the labels rather than exported as "".
        let g1: Vec<&str> = t.lines().filter(|l| l.contains("GPU-1111")).collect();
        assert!(
            g1.contains(
                &r#"gpuledger_device_memory_total_bytes{device="GPU-1111",index="1"} 25757220864"#
            ),
            "{g1:?}"
        );
        for absent in [
            "gpuledger_device_memory_used_bytes",
            "gpuledger_device_memory_unattributed_bytes",
            "gpuledger_device_power_watts",
            "gpuledger_device_temperature_celsius",
            "gpuledger_device_utilization_ratio",
            "gpuledger_device_clock_hertz",
        ] {
            assert!(
                !g1.iter().any(|l| l.starts_with(absent)),
                "{absent} exported for a device that does not know it: {g1:?}"
            );
        }
        // ollama's memory is unknown: no memory series for it, no utilisation either.
        assert!(!t.contains(r#"pid="6001""#), "{t}");
        assert!(
            !t.contains("name=\"\""),
            "empty label values are not written"
        );
        // Families with no known sample have no HELP/TYPE either.
        assert!(!t.contains("gpuledger_device_memory_over_attributed_bytes"));
        assert!(!t.contains("gpuledger_process_system_memory_bytes"));
    }

    #[test]
    fn process_series_carry_identity_labels() {
        let t = render_metrics(&sample(), &MetricsOptions::default());
        let pl = r#"{device="GPU-0000",pid="4242",name="llama-server",user="alice",source="nvml"}"#;
        let want_mem = format!("gpuledger_process_memory_bytes{pl} 17179869184");
        let want_util = format!("gpuledger_process_gpu_utilization_ratio{pl} 0.85");
        assert!(t.lines().any(|l| l == want_mem), "{t}");
        assert!(t.lines().any(|l| l == want_util), "{t}");
        assert!(t.lines().any(|l| l == "gpuledger_processes 2"));
        assert!(t.lines().any(|l| l == "gpuledger_processes_exported 2"));
    }

    #[test]
    fn workload_and_model_labels_when_identified() {
        let mut s = sample();
        s.processes[0].workload =
            Some(llama_workload("/home/alice/models/Qwen3-8B-Q4_K_M.gguf").into());
        let t = render_metrics(&s, &MetricsOptions::default());
        let want = r#"gpuledger_process_memory_bytes{device="GPU-0000",pid="4242",name="llama-server",user="alice",workload="llama-cpp",model="Qwen3-8B-Q4_K_M",source="nvml"} 17179869184"#;
        assert!(t.lines().any(|l| l == want), "{t}");
        assert!(
            !t.contains("/home/alice"),
            "model paths are cut to the base name"
        );
        // A member of a workload of several processes: its role and its root.
        std::sync::Arc::make_mut(s.processes[0].workload.as_mut().unwrap()).member =
            Some(gpuledger_model::Member {
                root_pid: Some(4200),
                role: "worker TP1/2".into(),
                evidence: "test".into(),
            });
        let t = render_metrics(&s, &MetricsOptions::default());
        assert!(
            t.contains(r#"model="Qwen3-8B-Q4_K_M",role="worker TP1/2",workload_root="4200",source="nvml"} 17179869184"#),
            "{t}"
        );
        std::sync::Arc::make_mut(s.processes[0].workload.as_mut().unwrap()).member = None;
        // An unidentified kind is no label, not "unknown".
        std::sync::Arc::make_mut(s.processes[0].workload.as_mut().unwrap()).kind =
            WorkloadKind::Unknown;
        std::sync::Arc::make_mut(s.processes[0].workload.as_mut().unwrap()).model = None;
        let t = render_metrics(&s, &MetricsOptions::default());
        assert!(!t.contains("workload=") && !t.contains("model="), "{t}");
    }

    #[test]
    fn source_health_and_collection_stats() {
        let mut opts = MetricsOptions::default();
        let t = render_metrics(&sample(), &opts);
        assert!(t.contains("gpuledger_source_up{source=\"nvml\",state=\"ok\"} 1\n"));
        assert!(t.contains("gpuledger_source_up{source=\"procfs\",state=\"error\"} 0\n"));
        assert!(t.contains("gpuledger_snapshot_replay 0\n"));
        // No collection loop, no collection metrics (rather than zeros).
        assert!(!t.contains("gpuledger_collection_"));

        opts.collection = Some(CollectionStats {
            duration_seconds: 0.0125,
            rounds_total: 7,
            errors_total: 2,
            skipped_total: 1,
            last_round_unix_seconds: 1_795_900_000.5,
        });
        opts.replay = true;
        let t = render_metrics(&sample(), &opts);
        for want in [
            "gpuledger_collection_duration_seconds 0.0125",
            "gpuledger_collection_rounds_total 7",
            "gpuledger_collection_errors_total 2",
            "gpuledger_collection_skipped_rounds_total 1",
            "gpuledger_collection_last_round_timestamp_seconds 1795900000.5",
            "# TYPE gpuledger_collection_errors_total counter",
            "gpuledger_snapshot_replay 1",
        ] {
            assert!(t.lines().any(|l| l == want), "missing {want:?}");
        }
    }

    #[test]
    fn label_values_are_escaped() {
        let mut s = sample();
        s.processes[0].name = Some("we\"ird\\na\nme".into());
        s.processes[0].user = Some("x\"}evil{y=\"1".into());
        let t = render_metrics(&s, &MetricsOptions::default());
        let line = lines_of(&t, "gpuledger_process_memory_bytes")[0];
        assert!(
            line.contains(r#"name="we\"ird\\na\nme""#),
            "escaped name in {line}"
        );
        assert!(line.contains(r#"user="x\"}evil{y=\"1""#), "{line}");
        // The raw newline did not split the sample: every line is a comment or a sample.
        for l in t.lines() {
            assert!(
                l.starts_with("# HELP ") || l.starts_with("# TYPE ") || l.starts_with("gpuledger_"),
                "stray line {l:?}"
            );
        }
    }

    /// Undo the text format's label-value escaping (what Prometheus's parser does).
    fn unescape(v: &str) -> String {
        let mut out = String::new();
        let mut it = v.chars();
        while let Some(c) = it.next() {
            if c == '\\' {
                match it.next() {
                    Some('n') => out.push('\n'),
                    Some(o) => out.push(o),
                    None => panic!("dangling backslash in {v:?}"),
                }
            } else {
                assert!(c != '"' && c != '\n', "unescaped {c:?} in {v:?}");
                out.push(c);
            }
        }
        out
    }

    /// The `name="..."` value of a sample line, still escaped.
    fn raw_label<'a>(line: &'a str, key: &str) -> &'a str {
        let start = line.find(&format!("{key}=\"")).unwrap() + key.len() + 2;
        let bytes = line.as_bytes();
        let mut i = start;
        while bytes[i] != b'"' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        &line[start..i]
    }

    proptest::proptest! {
        #[test]
        fn any_label_value_round_trips(name in "[a-zA-Z0-9 _.\\\\\"\n{}é,-]{1,40}") {
            let mut s = sample();
            s.processes[0].name = Some(name.clone());
            let t = render_metrics(&s, &MetricsOptions::default());
            let line = lines_of(&t, "gpuledger_process_memory_bytes")[0];
            // One sample is one line, whatever the name holds.
            proptest::prop_assert!(line.ends_with(" 17179869184"));
            let back = unescape(raw_label(line, "name"));
            let want = safe(Some(&name)).unwrap();
            proptest::prop_assert_eq!(back, want.chars().take(MAX_LABEL_CHARS).collect::<String>());
        }
    }

    #[test]
    fn long_label_values_are_cut() {
        let mut s = sample();
        s.processes[0].name = Some("é".repeat(1000));
        let t = render_metrics(&s, &MetricsOptions::default());
        let line = lines_of(&t, "gpuledger_process_memory_bytes")[0];
        assert!(line.contains(&format!("name=\"{}\"", "é".repeat(MAX_LABEL_CHARS))));
        assert!(!line.contains(&"é".repeat(MAX_LABEL_CHARS + 1)));
    }

    #[test]
    fn no_secrets_and_no_command_lines_in_labels() {
        let mut s = sample();
        // A process can name itself anything, including a secret-bearing string.
        s.processes[0].name = Some("--api-key=sk-live-TOPSECRET".into());
        s.processes[0].exe = Some("/opt/token=hf_EXESECRET/bin".into());
        let t = render_metrics(&s, &MetricsOptions::default());
        assert!(!t.contains("TOPSECRET"), "{t}");
        assert!(!t.contains("EXESECRET"), "exe paths are not labels");
        assert!(
            !t.contains(REDACTED_IN_SNAPSHOT),
            "command lines are never labels"
        );
        assert!(
            t.contains(r#"name="--api-key=<redacted>""#),
            "the redacted name is still exported"
        );
    }

    fn many(n: u32) -> Snapshot {
        let mut s = sample();
        s.processes.clear();
        for pid in 1..=n {
            // Memory grows with pid; pid 3 is unknown.
            let m = if pid == 3 {
                None
            } else {
                Some(u64::from(pid) * 1000)
            };
            s.processes
                .push(proc_(pid, "w", None, &[(G0, m), (G1, Some(1))]));
        }
        balance(&mut s);
        s
    }

    #[test]
    fn per_process_series_are_bounded_to_the_top_n_by_memory() {
        let s = many(200);
        let opts = MetricsOptions {
            processes: ProcessSeries::Top(5),
            ..Default::default()
        };
        let t = render_metrics(&s, &opts);
        let mem = lines_of(&t, "gpuledger_process_memory_bytes");
        // 5 processes × 2 devices.
        assert_eq!(mem.len(), 10, "{mem:?}");
        for pid in 196..=200 {
            assert!(mem.iter().any(|l| l.contains(&format!("pid=\"{pid}\""))));
        }
        assert!(!t.contains("pid=\"195\""));
        assert!(t.contains("gpuledger_processes 200\n"));
        assert!(t.contains("gpuledger_processes_exported 5\n"));
        // Device totals still count every process, exported or not.
        let attributed: u64 = (1..=200u64).filter(|&p| p != 3).map(|p| p * 1000).sum();
        assert!(t.contains(&format!(
            "gpuledger_device_memory_attributed_bytes{{device=\"GPU-0000\",index=\"0\",name=\"NVIDIA H200\"}} {attributed}\n"
        )));

        let none = render_metrics(
            &s,
            &MetricsOptions {
                processes: ProcessSeries::None,
                ..Default::default()
            },
        );
        assert!(!none.contains("gpuledger_process_"));
        assert!(none.contains("gpuledger_processes_exported 0\n"));
        let all = render_metrics(
            &s,
            &MetricsOptions {
                processes: ProcessSeries::All,
                ..Default::default()
            },
        );
        // 200 processes on GPU1, 199 known on GPU0.
        assert_eq!(lines_of(&all, "gpuledger_process_memory_bytes").len(), 399);
        // Default is top 50.
        let def = render_metrics(&s, &MetricsOptions::default());
        assert!(def.contains("gpuledger_processes_exported 50\n"));
    }

    #[test]
    fn selection_order_is_memory_then_pid() {
        let mut s = many(4);
        s.processes[0].usage[0].memory_bytes = Some(4000); // pid 1 ties with pid 4
        let pids: Vec<u32> = selected_processes(&s, ProcessSeries::Top(3))
            .iter()
            .map(|p| p.pid)
            .collect();
        assert_eq!(pids, vec![1, 4, 2]);
        let pids: Vec<u32> = selected_processes(&s, ProcessSeries::All)
            .iter()
            .map(|p| p.pid)
            .collect();
        assert_eq!(pids, vec![1, 4, 2, 3]);
    }

    #[test]
    fn process_selection_parses_and_explains_errors() {
        assert_eq!("top-7".parse(), Ok(ProcessSeries::Top(7)));
        assert_eq!("all".parse(), Ok(ProcessSeries::All));
        assert_eq!("none".parse(), Ok(ProcessSeries::None));
        let e = "top-x".parse::<ProcessSeries>().unwrap_err();
        assert!(e.contains("whole number"), "{e}");
        let e = "50".parse::<ProcessSeries>().unwrap_err();
        assert!(e.contains("top-N"), "{e}");
        assert!("top-0"
            .parse::<ProcessSeries>()
            .unwrap_err()
            .contains("none"));
        assert_eq!(ProcessSeries::default(), ProcessSeries::Top(50));
    }

    #[test]
    fn only_estimated_metrics_say_estimated() {
        let t = render_metrics(&many(3), &MetricsOptions::default());
        assert!(
            !t.contains("estimated"),
            "measured metrics never carry 'estimated'"
        );
        assert!(ESTIMATED_METRICS.iter().all(|m| m.contains("_estimated_")));
    }

    /// A llama.cpp estimate of 1000 + 200 + 30 bytes, plus the overhead when it is known.
    fn estimate(overhead: Option<u64>, overhead_source: &str) -> gpuledger_model::EstimatedMemory {
        gpuledger_model::EstimatedMemory {
            recipe: "llama.cpp/llama-server".into(),
            model: "/m/q.gguf".into(),
            n_ctx: Some(4096),
            weights_gpu_bytes: 1000,
            kv_cache_gpu_bytes: Some(200),
            compute_gpu_bytes: Some(30),
            overhead_gpu_bytes: overhead,
            overhead_source: overhead_source.into(),
            total_gpu_bytes: 1230 + overhead.unwrap_or(0),
            ..Default::default()
        }
    }

    #[test]
    fn estimates_are_their_own_family_and_containers_label_processes() {
        let mut s = many(2);
        s.processes[0].container = Some("docker://0123456789ab".into());
        s.processes[0].estimate = Some(estimate(None, "unknown for this backend").into());
        let t = render_metrics(&s, &MetricsOptions::default());
        let est = lines_of(&t, "gpuledger_process_estimated_memory_bytes");
        // weights, kv_cache, compute; the unknown overhead is left out, not 0.
        assert_eq!(est.len(), 3, "{est:?}");
        assert!(est
            .iter()
            .any(|l| l.contains("component=\"kv_cache\"") && l.ends_with(" 200")));
        assert!(!est.iter().any(|l| l.contains("overhead")));
        // The measured family is untouched by the estimate.
        let measured = lines_of(&t, "gpuledger_process_memory_bytes");
        assert!(
            measured
                .iter()
                .any(|l| l.contains("container=\"docker://0123456789ab\"")),
            "{measured:?}"
        );
    }

    /// Issue 16: a `component="total"` series beside the parts made `sum by (pid)` count every
    /// process twice. The total is its own family, once per process; summing the parts gives it
    /// only when no part is unknown, which the partial flag says (SGLang: total = static pool,
    /// parts only weights and KV cache).
    #[test]
    fn estimated_parts_sum_to_the_total_only_when_complete() {
        let mut s = many(3);
        for (i, overhead) in [(0, Some(300)), (1, None)] {
            s.processes[i].estimate = Some(estimate(overhead, "test").into());
        }
        let sglang = gpuledger_model::EstimatedMemory {
            recipe: "sglang".into(),
            weights_gpu_bytes: 1000,
            kv_cache_gpu_bytes: Some(500),
            compute_gpu_bytes: None,
            overhead_gpu_bytes: None,
            overhead_included: true,
            total_gpu_bytes: 2000,
            ..Default::default()
        };
        s.processes[2].estimate = Some(sglang.into());
        let t = render_metrics(&s, &MetricsOptions::default());
        let per_pid = |family: &str| {
            let mut m = std::collections::BTreeMap::<u32, u64>::new();
            for l in lines_of(&t, family) {
                assert!(!l.contains("component=\"total\""), "{l}");
                let pid = l.split("pid=\"").nth(1).unwrap().split('"').next().unwrap();
                let v: u64 = l.rsplit(' ').next().unwrap().parse().unwrap();
                *m.entry(pid.parse().unwrap()).or_default() += v;
            }
            m
        };
        let parts = per_pid("gpuledger_process_estimated_memory_bytes");
        let totals = per_pid("gpuledger_process_estimated_total_bytes");
        let partial = per_pid("gpuledger_process_estimated_partial");
        for p in &s.processes[..3] {
            let e = p.estimate.as_ref().unwrap();
            assert_eq!(totals[&p.pid], e.total_gpu_bytes, "one total per process");
            assert_eq!(partial[&p.pid], u64::from(e.is_partial()));
            if !e.is_partial() {
                assert_eq!(parts[&p.pid], e.total_gpu_bytes);
            }
        }
        // The SGLang shape: flagged, and its parts fall short of the total it reports.
        let pid = s.processes[2].pid;
        assert_eq!((partial[&pid], parts[&pid], totals[&pid]), (1, 1500, 2000));
        assert_eq!(partial[&s.processes[0].pid], 0);
        assert_eq!(partial[&s.processes[1].pid], 1, "unknown overhead");
    }

    #[test]
    fn every_sample_line_parses_as_text_format() {
        // A small checker of the 0.0.4 grammar: name, optional {k="v",...}, one number; every
        // family's TYPE precedes its samples and families are contiguous.
        let t = render_metrics(&many(30), &MetricsOptions::default());
        let mut seen_families = std::collections::HashSet::new();
        let mut current = String::new();
        for l in t.lines() {
            if let Some(rest) = l.strip_prefix("# TYPE ") {
                let name = rest.split(' ').next().unwrap().to_string();
                assert!(seen_families.insert(name.clone()), "family {name} split");
                current = name;
                continue;
            }
            if l.starts_with("# HELP ") {
                continue;
            }
            let name_end = l.find(['{', ' ']).unwrap();
            assert_eq!(&l[..name_end], current, "sample outside its family: {l}");
            assert!(l[..name_end]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_'));
            let value = l.rsplit(' ').next().unwrap();
            let v: f64 = value.parse().unwrap_or_else(|_| panic!("value in {l}"));
            assert!(v.is_finite() && v >= 0.0, "{l}");
        }
        assert!(seen_families.len() > 15);
    }
}
