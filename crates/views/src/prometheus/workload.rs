//! Per-workload sums: a workload of several processes (a vLLM server, its engine core and its
//! tensor-parallel workers; an Ollama server and its runners) as one series, with the same total
//! `snapshot --json`'s `workload_groups`, the table and the page show (one owner:
//! `Snapshot::group_totals`). Measured and estimated in families of their own, never added.

use super::family::{safe, Family, Val};
use gpuledger_model::Snapshot;

/// The families' names.
pub const WORKLOAD_MEMORY: &str = "gpuledger_workload_memory_bytes";
pub const WORKLOAD_ESTIMATED: &str = "gpuledger_workload_estimated_memory_bytes";

pub(super) fn workloads(out: &mut String, snap: &Snapshot) {
    let all: Vec<&gpuledger_model::Process> = snap.processes.iter().collect();
    let groups = Snapshot::group_totals(&all);
    if groups.is_empty() {
        return;
    }
    let labels = |g: &gpuledger_model::GroupTotals| {
        (
            g.root_pid.to_string(),
            safe(Some(&g.label)),
            g.members.len().to_string(),
        )
    };
    let mut f = Family::new(
        out,
        WORKLOAD_MEMORY,
        "gauge",
        "Measured device memory of every process of one workload of several (its root's pid in workload_root), over all devices; absent when a member's memory is unknown.",
    );
    for g in &groups {
        let (root, label, members) = labels(g);
        f.sample(
            &[
                ("workload_root", Some(root.as_str())),
                ("workload_label", label.as_deref()),
                ("members", Some(members.as_str())),
            ],
            g.measured_bytes.map(Val::U),
        );
    }
    let mut f = Family::new(
        out,
        WORKLOAD_ESTIMATED,
        "gauge",
        "Estimated (not measured) device memory of one workload of several: its members' estimated shares summed; floor=\"true\" when a member's estimate has an unknown part.",
    );
    for g in &groups {
        let (root, label, _) = labels(g);
        let floor = if g.estimated_is_floor {
            "true"
        } else {
            "false"
        };
        f.sample(
            &[
                ("workload_root", Some(root.as_str())),
                ("workload_label", label.as_deref()),
                ("floor", Some(floor)),
            ],
            g.estimated_bytes.map(Val::U),
        );
    }
}
