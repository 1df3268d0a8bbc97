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
//!   user go through [`gpuledger_model::redact_text`] and are truncated to [`MAX_LABEL_CHARS`].
//! - **Bounded cardinality.** Per-process series are limited by [`ProcessSeries`] (default: the
//!   top 50 processes by measured memory); `gpuledger_processes` and `gpuledger_processes_exported`
//!   say how many were left out.
//! - **Measured and estimated never mix.** Estimated breakdowns (`process.estimate`)
//!   go to their own metrics whose names contain `estimated`
//!   (`gpuledger_process_estimated_memory_bytes{component=...}`); no measured metric ever includes
//!   an estimate.
//! - **Who, not only which process.** Per-process series carry their owner's ids (`pod_uid`,
//!   `container`, `slurm_job`, `unit`); `gpuledger_owner_memory_bytes` sums every process per
//!   owner per device, unbounded by the process selection (`owner.rs`).
//! - Units are base units: bytes, seconds, watts, degrees Celsius, hertz; percentages become
//!   `_ratio` in 0..=1. The one exception is opt-in: `--dcgm-compat` writes dcgm-exporter's own
//!   names and units (MiB, %), for the dashboards built on them (`dcgm.rs`).
//!
//! One file per family: `device`, `process`, `estimated`, `owner`, `workload`, `dcgm`, `health`; `family`
//! writes the text format.

use gpuledger_model::Snapshot;
use std::str::FromStr;

mod dcgm;
mod device;
mod estimated;
mod family;
mod health;
mod labels;
mod owner;
mod process;
mod reported;
mod workload;

pub use dcgm::dcgm_metric_names;
pub use owner::OWNER_MEMORY;
pub use process::selected_processes;
pub use reported::RUNTIME_REPORTED;
pub use workload::{WORKLOAD_ESTIMATED, WORKLOAD_MEMORY};

/// Metric names of the estimated ledger (computed by a recipe, never measured), listed so that
/// nothing measured is ever given one of these names.
/// `gpuledger_process_estimated_memory_bytes{device,pid,name,user,workload,model,role,
/// workload_root,recipe,component}` (`device` when the process holds one GPU: a tensor-parallel
/// worker's share joins that GPU's measured memory; `role`/`workload_root` for a member of a
/// workload of several) with `component` one of `weights`, `kv_cache`, `compute`, `overhead`:
/// the known parts. The total is not a series of that family, or `sum by (pid)` would count
/// every process twice: it is its own family, `gpuledger_process_estimated_total_bytes`, as the
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
    /// Also write dcgm-exporter's device family (`DCGM_FI_DEV_*`, [`dcgm_metric_names`]).
    pub dcgm_compat: bool,
}

/// Render `snap` as a Prometheus text exposition.
pub fn render_metrics(snap: &Snapshot, opts: &MetricsOptions) -> String {
    let mut out = String::with_capacity(4096 + snap.processes.len() * 600);
    device::devices(&mut out, &snap.devices);
    process::processes(&mut out, snap, opts.processes);
    owner::owners(&mut out, snap);
    workload::workloads(&mut out, snap);
    if opts.dcgm_compat {
        dcgm::dcgm(&mut out, snap);
    }
    health::health(&mut out, snap, opts);
    out
}

#[cfg(test)]
mod tests;
