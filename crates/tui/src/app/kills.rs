//! Whether a process the user asked to end is gone: trust facts, not return values (the next
//! snapshot says it, with the cases a PID list hides).

use super::groups::root_of;
use super::PendingKill;
use gpuledger_model::Snapshot;

/// What a snapshot says of a process the user asked to end.
pub(super) enum KillSeen {
    /// Not listed at all.
    Gone,
    /// Listed with the same start time (or none to compare).
    Running,
    /// Its PID is still listed by the driver but it left /proc (the reason): it exited and its
    /// GPU memory is not released yet, so it is neither running nor gone.
    ExitedHeld(String),
}

pub(super) fn kill_seen(snap: &Snapshot, k: &PendingKill) -> KillSeen {
    // A workload's root is running while its members are (the API server of a vLLM group
    // holds no GPU memory and is not listed; its workers are).
    if snap
        .processes
        .iter()
        .any(|p| p.pid != k.pid && root_of(p) == k.pid)
    {
        return KillSeen::Running;
    }
    let mut seen = KillSeen::Gone;
    for p in snap.processes.iter().filter(|p| p.pid == k.pid) {
        if k.start_time.is_none() || p.start_time == k.start_time {
            return KillSeen::Running;
        }
        if let (None, Some(why)) = (p.start_time, &p.metadata_unavailable) {
            seen = KillSeen::ExitedHeld(why.clone());
        }
    }
    seen
}
