//! Views render; they never collect. Each rendering is a pure function of model values and
//! options, so it is tested on constructed values: the snapshot (table, JSON, CSV, Prometheus),
//! its memory per owner ([`groups`]), a diff of two, the estimated ledgers ([`estimate`]: the llama.cpp recipe's, a runtime
//! recipe's, a recorded one) and what `gpuledger probe` measured ([`cost_report`]); and the
//! commands' reports: one process explained ([`explain`]), a recording ([`history`]), a fit check
//! ([`fit`]), a kill ([`kill`]), a verification ([`verify`]). Text tables line up through one aligner ([`columns`]).

pub mod alerts;
pub mod columns;
pub mod context;
pub mod cost_report;
pub mod csv;
pub mod diff;
pub mod estimate;
pub mod explain;
pub mod fit;
pub mod groups;
pub mod history;
pub mod kill;
pub mod labels;
pub mod plot;
pub mod prometheus;
pub mod table;
#[cfg(test)]
mod test_support;
pub mod verify;
pub mod web;

// The escaping rule lives with the redaction rule in the model; views re-export it.
pub use csv::snapshot_csv;
pub use diff::{render_diff, DiffOptions};
pub use gpuledger_model::{term_safe, term_safe_text};
pub use groups::{render_groups_json, render_groups_table, render_groups_table_in};
pub use prometheus::{render_metrics, MetricsOptions, ProcessSeries};
pub use table::{render_table, TableOptions};

/// The snapshot, then its workloads of several processes in one place each and its large
/// measured-vs-estimated gaps (derived, like `total_is_floor`): what `snapshot --json` and `serve`'s `/api/v1/snapshot` both write.
#[derive(serde::Serialize)]
struct WithGroups<'a> {
    #[serde(flatten)]
    snap: &'a gpuledger_model::Snapshot,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    workload_groups: Vec<gpuledger_model::GroupTotals>,
    /// Large measured-vs-estimated gaps, of processes and of workloads, with their likely cause.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    estimate_gaps: Vec<estimate::gaps::EstimateGap>,
}

fn with_groups(snap: &gpuledger_model::Snapshot) -> WithGroups<'_> {
    let all: Vec<&gpuledger_model::Process> = snap.processes.iter().collect();
    let workload_groups = gpuledger_model::Snapshot::group_totals(&all);
    WithGroups {
        snap,
        estimate_gaps: estimate::gaps::gaps(&all, &workload_groups),
        workload_groups,
    }
}

/// The JSON contract: the snapshot itself, pretty-printed.
pub fn render_json(snap: &gpuledger_model::Snapshot) -> String {
    let mut s = serde_json::to_string_pretty(&with_groups(snap))
        .unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    s.push('\n');
    s
}

/// The same JSON on one line, as `serve` answers `/api/v1/snapshot`: one serialiser for both.
pub fn render_json_compact(snap: &gpuledger_model::Snapshot) -> String {
    let mut s = serde_json::to_string(&with_groups(snap))
        .unwrap_or_else(|e| format!("{{\"error\":{}}}", serde_json::Value::String(e.to_string())));
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use gpuledger_model::test_support::{device, process, snapshot, TAKEN_AT};

    /// `serve`'s one-line JSON and `snapshot --json` carry the same fields and values, the
    /// workload groups included.
    #[test]
    fn the_compact_json_is_the_pretty_one_on_one_line() {
        let mut members = Vec::new();
        for pid in [41u32, 42] {
            let mut p = process(pid, "GPU-A", Some(u64::from(pid) << 20));
            let mut w = crate::test_support::llama_workload("Qwen2-72B");
            w.member = Some(gpuledger_model::Member {
                root_pid: Some(40),
                role: format!("worker TP{}/2", pid - 41),
                role_kind: gpuledger_model::RoleKind::Worker,
                evidence: "test".into(),
            });
            p.workload = Some(std::sync::Arc::new(w));
            members.push(p);
        }
        let dev = device(0, "GPU-A", Some(1 << 30), Some(1 << 29));
        let snap = snapshot(TAKEN_AT, vec![dev], members);
        let line = super::render_json_compact(&snap);
        assert_eq!(line.lines().count(), 1);
        let compact: serde_json::Value = serde_json::from_str(&line).unwrap();
        let pretty: serde_json::Value = serde_json::from_str(&super::render_json(&snap)).unwrap();
        assert_eq!(compact, pretty);
        assert_eq!(
            compact["workload_groups"][0]["members"],
            serde_json::json!([41, 42])
        );
    }
}
