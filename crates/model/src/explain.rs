//! What `gpuledger explain PID` knows about one process: the measured ledger (the process as the
//! snapshot has it), what it is, its live state, the estimated ledger apart, and the workload of
//! several processes it belongs to. The CLI gathers it; views render it as text; the JSON is
//! this, serialised.

use crate::live::LiveState;
use crate::llama_estimate::{Comparison, Estimate};
use crate::runtime_estimate::RuntimeEstimate;
use crate::{EstimatedMemory, Process, ReportedFigure, Snapshot, Workload};
use serde::Serialize;

/// The estimated ledger for the process, kept apart from the measured one.
#[derive(Debug, Serialize, Default)]
pub struct EstimatedLedger {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Estimate>,
    /// vLLM, SGLang, PyTorch: the runtime's ledger (parts, why, reported figures, inputs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<RuntimeEstimate>,
    /// Why there is no estimate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<gpuledger_lang::Said>,
    /// What the runtime itself logged for each line (`--log`), beside the estimate.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runtime_reported: Vec<Comparison>,
    /// Measured (driver) total for the process across devices, and measured − estimated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_gpu_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_minus_estimated_bytes: Option<i64>,
    /// The recipe as the runtime runs it (`ollama/runner (llama.cpp)`), where not llama-server's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recipe: Option<String>,
    /// One plain sentence: why this much.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<gpuledger_lang::Said>,
    /// The runtime's own figures (Ollama `/api/ps`, LM Studio `/api/v0/models`): beside the
    /// estimate and the measurement, never added to either.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reported: Vec<ReportedFigure>,
    /// What holds memory and no recipe sizes here, in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_modelled: Vec<gpuledger_lang::Said>,
    /// Why the runtime's own API gave nothing, when it was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_api_unavailable: Option<gpuledger_lang::Said>,
    /// A replay whose model file is not on this machine: the estimate the snapshot recorded when
    /// it was taken (the recipe ran then, on that machine).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded: Option<EstimatedMemory>,
}

impl EstimatedLedger {
    /// vLLM, SGLang, PyTorch: the runtime's own ledger, and the difference with the measurement.
    pub fn set_runtime(&mut self, r: RuntimeEstimate) {
        // A difference with a floor (a part unknown) would mean nothing.
        if !r.summary.is_partial() {
            self.measured_minus_estimated_bytes = self
                .measured_gpu_bytes
                .map(|m| m as i64 - r.summary.total_gpu_bytes as i64);
        }
        self.runtime = Some(r);
    }
}

/// Everything `explain` shows of one process.
#[derive(Debug, Serialize)]
pub struct Explanation {
    pub pid: u32,
    /// The process as the snapshot has it (measured usage per device, metadata).
    pub process: Option<Process>,
    /// Why the process is not in the measured ledger, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_measured: Option<gpuledger_lang::Said>,
    pub workload: Option<Workload>,
    pub live: Option<LiveState>,
    /// Why there is no live state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_unavailable: Option<gpuledger_lang::Said>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated: Option<EstimatedLedger>,
    /// The workload of several processes this one belongs to (or roots), as measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<Group>,
    pub replay: bool,
}

/// The processes of one workload in the snapshot, each with its role and measured memory.
#[derive(Debug, Serialize)]
pub struct Group {
    pub root_pid: u32,
    pub members: Vec<GroupMember>,
    /// Σ of the members' measured memory (unknown values not counted).
    pub measured_gpu_bytes: u64,
    /// Σ of the members' estimated totals (each member's share, from the collection round);
    /// `None` when no member carries an estimate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_gpu_bytes: Option<u64>,
}

#[derive(Debug, Serialize)]
pub struct GroupMember {
    pub pid: u32,
    pub role: String,
    /// Device index and measured bytes (`None`: the source could not say).
    pub usage: Vec<(Option<u32>, Option<u64>)>,
    /// This member's estimated share (its recipe's total; a floor when a part is unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_gpu_bytes: Option<u64>,
}

/// A process's role in its group: its member role, else what the root is to its workload (the
/// server the user started, or a launcher), never `root`, which reads like the user root.
fn role_in_group(p: &Process) -> String {
    let w = p.workload.as_ref();
    match w.and_then(|w| w.member.as_ref()) {
        Some(m) => m.role.clone(),
        None if w.is_some_and(|w| w.kind == crate::WorkloadKind::Pytorch) => "launcher".into(),
        None => "server".into(),
    }
}

/// The workload `pid` belongs to or roots, when it has more than this process in the snapshot.
pub fn group_of(snap: &Snapshot, pid: u32, w: Option<&Workload>) -> Option<Group> {
    let root = w
        .and_then(|w| w.member.as_ref())
        .and_then(|m| m.root_pid)
        .unwrap_or(pid);
    let procs = snap.workload_group(root);
    if procs.is_empty() || (procs.len() == 1 && procs[0].pid == pid && root == pid) {
        return None;
    }
    let members = procs
        .iter()
        .map(|p| GroupMember {
            pid: p.pid,
            role: role_in_group(p),
            usage: p
                .usage
                .iter()
                .map(|u| {
                    (
                        snap.device_by_uuid(&u.device).map(|d| d.index),
                        u.memory_bytes,
                    )
                })
                .collect(),
            estimated_gpu_bytes: p.estimate.as_ref().map(|e| e.total_gpu_bytes),
        })
        .collect::<Vec<GroupMember>>();
    let estimated = members
        .iter()
        .filter_map(|m| m.estimated_gpu_bytes)
        .reduce(|a, b| a.saturating_add(b));
    Some(Group {
        root_pid: root,
        members,
        measured_gpu_bytes: procs.iter().map(|p| Snapshot::process_memory(p)).sum(),
        estimated_gpu_bytes: estimated,
    })
}
