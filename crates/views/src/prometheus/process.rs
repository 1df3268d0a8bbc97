//! The measured per-process families, bounded by [`ProcessSeries`], and the process counts.

use super::family::{bytes, pct, single, Family, Val};
use super::labels::ProcessLabels;
use super::ProcessSeries;
use gpuledger_model::{Process, Snapshot, Usage};

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

/// A gauge read off a process's use of one device: name, help, value.
pub(super) type UsageGauge = (&'static str, &'static str, fn(&Usage) -> Option<Val>);

/// The measured per-process gauges, in exposition order.
pub(super) const PROCESS_GAUGES: [UsageGauge; 4] = [
    ("gpuledger_process_memory_bytes", "Device-local memory charged to the process, measured (source label names the counter).", |u| bytes(u.memory_bytes)),
    ("gpuledger_process_system_memory_bytes", "Device-visible system memory (GTT / shared) charged to the process, where the source separates it.", |u| bytes(u.system_memory_bytes)),
    ("gpuledger_process_gpu_utilization_ratio", "Share of the device's SM/compute time the process used over the last sample interval (0..1).", |u| pct(u.engines.sm_percent)),
    ("gpuledger_process_memory_bandwidth_utilization_ratio", "Share of the device's memory-controller time the process used over the last sample interval (0..1).", |u| pct(u.engines.memory_percent)),
];

/// Every process family: the measured gauges per device, the estimated parts apart, then how
/// many processes there are and how many got series.
pub(super) fn processes(out: &mut String, snap: &Snapshot, sel: ProcessSeries) {
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
    super::estimated::estimated_parts(out, &chosen, &labels);
    super::reported::runtime_reported(out, &chosen, &labels);
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
