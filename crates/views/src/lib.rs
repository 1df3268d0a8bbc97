//! Views render; they never collect. Each rendering is a pure function of model values and
//! options, so it is tested on constructed values: the snapshot (table, JSON, CSV, Prometheus),
//! its memory per owner ([`groups`]), a diff of two, the estimated ledgers ([`estimate`]: the llama.cpp recipe's, a runtime
//! recipe's, a recorded one) and what `gpuledger probe` measured ([`cost_report`]); and the
//! commands' reports: one process explained ([`explain`]), a recording ([`history`]), a fit check
//! ([`fit`]), a kill ([`kill`]), a verification ([`verify`]). Text tables line up through one aligner ([`columns`]).

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
pub mod prometheus;
pub mod table;
#[cfg(test)]
mod test_support;
pub mod verify;

// The escaping rule lives with the redaction rule in the model; views re-export it.
pub use csv::snapshot_csv;
pub use diff::{render_diff, DiffOptions};
pub use gpuledger_model::{term_safe, term_safe_text};
pub use groups::{render_groups_json, render_groups_table};
pub use prometheus::{render_metrics, MetricsOptions, ProcessSeries};
pub use table::{render_table, TableOptions};

/// The JSON contract: the snapshot itself, pretty-printed.
pub fn render_json(snap: &gpuledger_model::Snapshot) -> String {
    /// The snapshot, then its workloads of several processes in one place each (derived, like
    /// `total_is_floor`).
    #[derive(serde::Serialize)]
    struct WithGroups<'a> {
        #[serde(flatten)]
        snap: &'a gpuledger_model::Snapshot,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        workload_groups: Vec<gpuledger_model::GroupTotals>,
    }
    let all: Vec<&gpuledger_model::Process> = snap.processes.iter().collect();
    let out = WithGroups {
        snap,
        workload_groups: gpuledger_model::Snapshot::group_totals(&all),
    };
    let mut s =
        serde_json::to_string_pretty(&out).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    s.push('\n');
    s
}
