//! What a kill reports: its status (and exit code), the steps it took, and whether the GPU memory
//! the process held was released.

use super::Signal;
use gpuledger_lang::Said;
use gpuledger_model::units::human_bytes;
use serde::Serialize;
use std::time::Duration;
use std::time::Instant;

/// GPU memory held by a process, as a fresh collection round sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum GpuMemoryReading {
    /// Listed as a GPU user holding this many bytes (measured).
    Holds { bytes: u64 },
    /// Not listed as a GPU user on any device that reports per-process memory.
    NotListed,
    /// Could not tell (no per-process source on this machine, a source failed, ...).
    Unknown { reason: gpuledger_lang::Said },
}

/// Reads a process's measured GPU memory. The CLI implements it with a fresh collection round; the
/// actions crate does not depend on any GPU source.
pub trait GpuMemory {
    fn gpu_memory_of(&self, pid: u32) -> GpuMemoryReading;
}

/// Whether the GPU memory came back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GpuRelease {
    /// Before the first signal; `None` when no reader was given.
    pub before: Option<GpuMemoryReading>,
    /// After the exit (or after giving up); `None` when not read.
    pub after: Option<GpuMemoryReading>,
    /// `Some(true)`: held before, no longer listed after. `Some(false)`: still listed. `None`: unknown.
    pub released: Option<bool>,
    pub detail: Said,
}

/// Final state of one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Verified gone: exited and reaped.
    Gone,
    /// Exited, but its parent has not reaped it yet; holds no memory; counts as gone.
    Zombie,
    /// Survived the forced step for the whole wait.
    StillAlive,
    /// No process with that PID.
    NotFound,
    /// The PID now names a different process than the one the user chose; nothing was signalled.
    IdentityMismatch,
    /// A guard rail refused it; nothing was signalled.
    Refused,
    /// A display server or compositor: needs the second confirmation; nothing was signalled.
    NeedsConfirmation,
    /// Another user's process (or an elevated one); nothing was signalled.
    PermissionDenied,
    /// Dry run: nothing was signalled.
    DryRun,
    /// An unexpected OS error.
    Error,
}

/// Exit codes of `gpuledger kill`, documented in its `--help`.
pub mod exit_code {
    /// Every target verified gone (exited; a zombie awaiting its parent counts).
    pub const ALL_GONE: u8 = 0;
    /// An unexpected error.
    pub const ERROR: u8 = 1;
    /// Bad command line (clap's own code).
    pub const USAGE: u8 = 2;
    /// A target survived the forced step.
    pub const STILL_ALIVE: u8 = 3;
    /// Refused: a guard rail, a missing second confirmation, or the user declined / no terminal.
    pub const REFUSED: u8 = 4;
    /// Permission denied: another user's or an elevated process.
    pub const PERMISSION_DENIED: u8 = 5;
    /// No such process, or the PID now names another process (skipped).
    pub const NOT_FOUND_OR_REUSED: u8 = 6;
    /// Dry run: nothing was signalled.
    pub const DRY_RUN: u8 = 7;
}

impl Status {
    pub fn exit_code(self) -> u8 {
        use exit_code::{
            ALL_GONE, DRY_RUN, ERROR, NOT_FOUND_OR_REUSED, PERMISSION_DENIED, REFUSED, STILL_ALIVE,
        };
        match self {
            Status::Gone | Status::Zombie => ALL_GONE,
            Status::Error => ERROR,
            Status::StillAlive => STILL_ALIVE,
            Status::Refused | Status::NeedsConfirmation => REFUSED,
            Status::PermissionDenied => PERMISSION_DENIED,
            Status::NotFound | Status::IdentityMismatch => NOT_FOUND_OR_REUSED,
            Status::DryRun => DRY_RUN,
        }
    }

    /// Which code wins when targets differ: the most serious.
    fn severity(self) -> u8 {
        match self {
            Status::StillAlive => 7,
            Status::Error => 6,
            Status::PermissionDenied => 5,
            Status::Refused | Status::NeedsConfirmation => 4,
            Status::NotFound | Status::IdentityMismatch => 3,
            Status::DryRun => 2,
            Status::Gone | Status::Zombie => 0,
        }
    }

    pub fn is_gone(self) -> bool {
        matches!(self, Status::Gone | Status::Zombie)
    }
}

/// The exit code for a set of outcomes: 0 only when every target is verified gone, otherwise the
/// code of the most serious outcome (still alive > error > permission > refused > not found/reused >
/// dry run). An empty set is an error (nothing was verified).
pub fn combined_exit_code(outcomes: &[Outcome]) -> u8 {
    outcomes
        .iter()
        .map(|o| o.status)
        .max_by_key(|s| s.severity())
        .map_or(exit_code::ERROR, Status::exit_code)
}

/// One thing we did, and what happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// `SIGTERM`, `SIGCONT`, `SIGKILL`, `WM_CLOSE`, `TerminateProcess`, `wait`.
    pub action: String,
    /// Milliseconds after the request started.
    pub at_ms: u64,
    pub result: Said,
}

/// The parent a zombie waits for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParentInfo {
    pub pid: u32,
    pub name: Option<String>,
}

/// What we know about a process that survived the forced step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Survivor {
    /// State letter and its meaning, e.g. `D (uninterruptible sleep)`.
    pub state: Option<String>,
    /// The kernel function it waits in (`/proc/PID/wchan`), where readable.
    pub wchan: Option<String>,
    pub remedies: Vec<Said>,
}

/// The outcome for one target (serialised for `--json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub pid: u32,
    pub name: Option<String>,
    pub start_time: Option<u64>,
    pub status: Status,
    /// One human sentence.
    pub message: Said,
    /// Dry run: what would be done.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub plan: Vec<Said>,
    pub steps: Vec<Step>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zombie_parent: Option<ParentInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub survivor: Option<Survivor>,
    pub gpu_memory: GpuRelease,
    pub elapsed_ms: u64,
}

impl Outcome {
    /// Whether any signal was actually sent.
    pub fn signalled(&self) -> bool {
        self.steps.iter().any(|s| {
            matches!(
                s.result.key(),
                Some("report-kill-step-sent" | "report-kill-step-sent-detail")
            )
        })
    }
}

/// Test seam: decides whether a signal is really delivered. Tests use it to make a real process
/// survive SIGKILL (the kernel offers no reliable way to make one unkillable on demand), so the
/// "still alive" report runs on a real process with real state. Returns `false` to suppress.
pub type DeliveryFilter = Box<dyn Fn(u32, Signal) -> bool + Send + Sync>;

/// Reads the GPU memory after the exit, polling for up to `wait` while it is still listed (drivers
/// free memory a little after the process is gone).
pub(super) fn gpu_release(
    gpu: Option<&dyn GpuMemory>,
    pid: u32,
    before: Option<GpuMemoryReading>,
    wait: Duration,
    exited: bool,
) -> GpuRelease {
    let Some(gpu) = gpu else {
        return GpuRelease {
            before: None,
            after: None,
            released: None,
            detail: Said::new("report-kill-no-reader", vec![]),
        };
    };
    let start = Instant::now();
    let mut after = gpu.gpu_memory_of(pid);
    while exited && matches!(after, GpuMemoryReading::Holds { .. }) && start.elapsed() < wait {
        std::thread::sleep(Duration::from_millis(100).min(wait));
        after = gpu.gpu_memory_of(pid);
    }
    let said = Said::new;
    let (released, detail) = match (&before, &after) {
        (Some(GpuMemoryReading::Holds { bytes }), GpuMemoryReading::NotListed) => (
            Some(true),
            said(
                "report-kill-released",
                vec![("bytes", human_bytes(*bytes).into())],
            ),
        ),
        (Some(GpuMemoryReading::Holds { bytes: b }), GpuMemoryReading::Holds { bytes: a }) => {
            let args = vec![
                ("before", human_bytes(*b).into()),
                ("after", human_bytes(*a).into()),
                ("ms", start.elapsed().as_millis().to_string().into()),
            ];
            (Some(false), said("report-kill-not-released", args))
        }
        (Some(GpuMemoryReading::NotListed), GpuMemoryReading::NotListed) => {
            (None, said("report-kill-held-none", vec![]))
        }
        (_, GpuMemoryReading::Unknown { reason })
        | (Some(GpuMemoryReading::Unknown { reason }), _) => (
            None,
            said(
                "report-kill-release-unknown",
                vec![("reason", reason.clone().into())],
            ),
        ),
        (_, GpuMemoryReading::Holds { bytes }) => (
            Some(false),
            said(
                "report-kill-still-listed",
                vec![("bytes", human_bytes(*bytes).into())],
            ),
        ),
        (_, GpuMemoryReading::NotListed) => (None, said("report-kill-not-listed-after", vec![])),
    };
    GpuRelease {
        before,
        after: Some(after),
        released,
        detail,
    }
}
