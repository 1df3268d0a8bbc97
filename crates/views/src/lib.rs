//! Views render a snapshot; they never collect. Each rendering is a pure function of a snapshot
//! and options, so it is tested on constructed snapshots.

pub mod csv;
pub mod diff;
pub mod prometheus;
pub mod table;

// The escaping rule lives with the redaction rule in the model; views re-export it.
pub use csv::snapshot_csv;
pub use diff::{render_diff, DiffOptions};
pub use gpuledger_model::{term_safe, term_safe_text};
pub use prometheus::{render_metrics, MetricsOptions, ProcessSeries};
pub use table::{render_table, TableOptions};

/// The JSON contract: the snapshot itself, pretty-printed.
pub fn render_json(snap: &gpuledger_model::Snapshot) -> String {
    let mut s =
        serde_json::to_string_pretty(snap).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    s.push('\n');
    s
}
