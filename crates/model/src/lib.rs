//! The domain model of gpuledger: the snapshot contract (what one collection round saw) and the
//! accounting rules that make the books balance. Pure code: no I/O, no clocks, no platform calls, so
//! every rule here is tested on plain values.
//!
//! Besides the snapshot, the model holds the data other crates produce and views render: the
//! llama.cpp recipe's estimate ([`llama_estimate`]), a runtime recipe's estimate
//! ([`runtime_estimate`]), a model server's live state ([`live`]), what `explain` knows of one
//! process ([`explain`]) and what `gpuledger probe` measured ([`probe_report`]).

pub mod desktop;
pub mod escape;
pub mod estimate_input;
pub mod explain;
pub mod files;
pub mod ledger;
pub mod live;
pub mod llama_estimate;
pub mod owner;
pub mod probe_report;
pub mod redact;
pub mod runtime_estimate;
pub mod snapshot;
#[cfg(any(test, feature = "test-support"))]
pub mod test_support;
pub mod time;
pub mod units;
pub mod verdict;
pub mod words;
pub mod workload;

pub use escape::{term_safe, term_safe_text};
pub use ledger::{balance, bar_fraction};
pub use owner::{group_memory, DeviceAssignment, GroupBy, Owner, OwnerGroups, OwnerKind};
pub use redact::{
    redact_arg_list, redact_env_var, redact_process_names, redact_snapshot, redact_text,
};
pub use snapshot::{
    parse_snapshot, Clocks, Device, Engines, GroupTotals, Host, Ledger, Memory, Pcie, Power,
    Process, Snapshot, SnapshotError, SourceState, SourceStatus, Usage, UsageKind, Utilization,
    Vendor, SCHEMA,
};
pub use workload::{
    Confidence, EstimatedMemory, Evidence, EvidenceKind, Member, NoEstimate, ReportedFigure,
    RoleKind, Workload, WorkloadKind,
};
