//! The measured per-process families, bounded by [`ProcessSeries`], and the process counts.

use super::family::{bytes, pct, safe, single, Family, Val};
use super::ProcessSeries;
use gpuledger_model::{OwnerKind, Process, Snapshot, Usage, WorkloadKind};

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

/// `workload` is the identified kind's stable id (`llama-cpp`, `ollama`, `pytorch`, ...; absent
/// when unidentified); `model` is the model file's base name without `.gguf` (a full path says
/// more about the machine than about the model), redacted like every label.
pub(super) fn workload_labels(p: &Process) -> (Option<String>, Option<String>) {
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
pub(super) struct ProcessLabels {
    pub(super) pid: String,
    pub(super) name: Option<String>,
    pub(super) user: Option<String>,
    pub(super) container: Option<String>,
    /// Its owner's ids (from the cgroup): the pod, the Slurm job, the systemd unit.
    pub(super) pod_uid: Option<String>,
    pub(super) slurm_job: Option<String>,
    pub(super) unit: Option<String>,
    pub(super) workload: Option<String>,
    pub(super) model: Option<String>,
    /// For a process of a workload of several: its role (`worker TP1/2`) and the root's pid, so
    /// a dashboard can sum a workload's GPUs.
    pub(super) role: Option<String>,
    pub(super) workload_root: Option<String>,
}

impl ProcessLabels {
    pub(super) fn of(p: &Process) -> Self {
        let (workload, model) = workload_labels(p);
        let member = p.workload.as_ref().and_then(|w| w.member.as_ref());
        let owner = p.owner.as_ref();
        ProcessLabels {
            pid: p.pid.to_string(),
            name: safe(p.name.as_deref()),
            user: safe(p.user.as_deref()),
            container: safe(p.container.as_deref()),
            pod_uid: owner.and_then(|o| o.pod_uid.clone()),
            slurm_job: owner.and_then(|o| o.slurm_job).map(|j| j.to_string()),
            unit: owner
                .filter(|o| o.kind == OwnerKind::Unit)
                .and_then(|o| safe(o.unit.as_deref())),
            workload,
            model,
            role: member.map(|m| m.role.clone()),
            workload_root: member.and_then(|m| m.root_pid).map(|r| r.to_string()),
        }
    }

    /// Labels of the process's use of one device (measured families).
    fn on_device<'a>(&'a self, u: &'a Usage) -> [(&'static str, Option<&'a str>); 13] {
        [
            ("device", Some(u.device.as_str())),
            ("pid", Some(self.pid.as_str())),
            ("name", self.name.as_deref()),
            ("user", self.user.as_deref()),
            ("container", self.container.as_deref()),
            ("pod_uid", self.pod_uid.as_deref()),
            ("slurm_job", self.slurm_job.as_deref()),
            ("unit", self.unit.as_deref()),
            ("workload", self.workload.as_deref()),
            ("model", self.model.as_deref()),
            ("role", self.role.as_deref()),
            ("workload_root", self.workload_root.as_deref()),
            ("source", Some(u.memory_source.as_str())),
        ]
    }
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
