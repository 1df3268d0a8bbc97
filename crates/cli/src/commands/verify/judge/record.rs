//! The record `verify` keeps: every raw reading of every step (the child's reports, each round's
//! snapshot, the witnesses' raw output), so a saved record replays and re-derives its verdicts,
//! and the verdicts themselves.

use gpuledger_cuda::workload::{ChildDevice, StepReport};
use gpuledger_lang::said::Said;
use gpuledger_model::verdict::VerdictKind;
use gpuledger_model::Snapshot;
use serde::{Deserialize, Serialize};

pub const SCHEMA: &str = "gpuledger.verify/1";

/// The steps, in order. The child's memory is expected to be: absent, present, +N, −N, absent.
pub const STEPS: [&str; 5] = ["idle", "context", "allocated", "freed", "exited"];

/// A step's name in the reader's language: the record's steps ([`STEPS`]) and the workload's
/// protocol steps (`allocate`, `free`, `exit`), as the record and the protocol spell them.
pub fn step_said(step: &str) -> Said {
    let key = match step {
        "idle" => "report-verify-step-idle",
        "context" => "report-verify-step-context",
        "allocated" => "report-verify-step-allocated",
        "freed" => "report-verify-step-freed",
        "exited" => "report-verify-step-exited",
        "allocate" => "report-verify-step-allocate",
        "free" => "report-verify-step-free",
        "exit" => "report-verify-step-exit",
        _ => return Said::verbatim(step),
    };
    Said::new(key, vec![])
}

/// How far a step's change may differ from N: the driver rounds allocations up to its 2 MiB
/// granularity and may add a 2 MiB page of its own bookkeeping on the first allocation.
pub const TOLERANCE: u64 = 4 << 20;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    pub schema: String,
    pub taken_at: String,
    pub gpuledger_version: String,
    pub machine: Machine,
    /// The path that ran: `cuda` or `vulkan` (`none` when neither could start).
    pub path: String,
    /// Each path: whether it ran, and why it did not (absent in records from before the Vulkan
    /// path, which ran `cuda` only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<PathNote>,
    pub size_bytes: u64,
    pub tolerance_bytes: u64,
    pub child_pid: Option<u32>,
    pub device: Option<ChildDevice>,
    pub steps: Vec<Step>,
    pub verdicts: Vec<Verdict>,
    #[serde(default)]
    pub notes: Vec<Said>,
}

/// One workload path and what became of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathNote {
    /// `cuda` or `vulkan`.
    pub path: String,
    pub ran: bool,
    /// In words: `ran (...)`, `the CUDA workload cannot start: ...`, `not tried: ...`.
    pub why: gpuledger_lang::Said,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Machine {
    pub os: String,
    pub arch: String,
    pub hostname: Option<String>,
    pub kernel: Option<String>,
    pub wsl: bool,
    /// The display driver's version as the first round's devices report it.
    pub driver_version: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Step {
    pub name: String,
    /// What the child said after the step (none for `exited`).
    pub child: Option<StepReport>,
    /// The whole collection round taken after the step.
    pub snapshot: Snapshot,
    /// The vendor tool's raw answer, taken right after the round.
    pub nvidia_smi: Option<ToolRun>,
    /// The AMD and Intel tools' raw answers, taken right after the round, by query
    /// (`amd-smi process`, `rocm-smi --showpids`, `xpu-smi ps`, ...; see `vendor`). Absent in
    /// records from before they were asked.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub witnesses: std::collections::BTreeMap<String, ToolRun>,
    /// Extra rounds taken before this one because the release had not shown yet (the driver
    /// frees asynchronously); only this last round is kept.
    #[serde(default)]
    pub settle_reads: u32,
}

/// One run of an external tool, kept raw.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolRun {
    pub command: String,
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Why it did not run or did not finish (not installed, timed out).
    pub error: Option<Said>,
    /// The tool is not installed (not on PATH): what decides "not installed" and "not asked
    /// again", rather than the words of `error`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub missing: bool,
    /// The tool did not answer within the limit and was stopped.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    /// Whether stdout or stderr was cut at the bound on what is kept ([`ToolRun::MAX_OUTPUT`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

impl ToolRun {
    /// What is kept of each of a tool's stdout and stderr: more than any process list; output
    /// past this is cut and `truncated` says so (a broken tool is not a reason to grow).
    pub const MAX_OUTPUT: usize = 1 << 20;
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// `nvml (per process)`, `nvml (device used)`, `unattributed`, `nvidia-smi`, ...
    pub source: String,
    pub verdict: VerdictKind,
    /// The verdict in words: `ok`, `off by 300 MiB at context (why)`, `cannot see (why)`; its
    /// English in the record, the reader's language in the report (a replayed record's words
    /// are the English it recorded).
    pub text: gpuledger_lang::Said,
    /// Whether this is gpuledger's own reading (counts for the exit status) or a witness.
    pub witness: bool,
    pub checks: Vec<Check>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub step: String,
    pub expected: String,
    pub observed: String,
    pub ok: bool,
}
