//! The [`Killer`]: what it protects (its own PID and ancestors), reading a process for the
//! prompt, and the acts the steps in `flow` use (deliver a signal, wait, say who may act).

use super::{
    guard, sys, ActError, DeliveryFilter, GpuMemory, GpuRelease, InspectError, KillOptions, Os,
    Outcome, ParentInfo, ProcInfo, Sent, Signal, Status, Step, Target, Verdict,
};
use std::time::Duration;
use std::time::Instant;

/// Performs kill requests. One per program run is enough.
pub struct Killer {
    pub(super) sys: sys::Sys,
    pub(super) self_pid: u32,
    pub(super) ancestors: Vec<u32>,
    pub(super) platform: Os,
    filter: Option<DeliveryFilter>,
}

impl Default for Killer {
    fn default() -> Self {
        Self::new()
    }
}

impl Killer {
    /// Reads the live system.
    pub fn new() -> Self {
        Self::from_sys(sys::Sys::new())
    }

    /// Linux: read process identity and state under `root` instead of `/proc` (signals still go to
    /// real PIDs). For tests of the guard rails and for recorded trees.
    #[cfg(target_os = "linux")]
    pub fn with_proc_root(root: impl Into<std::path::PathBuf>) -> Self {
        Self::from_sys(sys::Sys::with_root(root.into()))
    }

    /// Linux: do not use pidfds (as on kernels before 5.3): kill(2) after a start-time re-check.
    #[cfg(target_os = "linux")]
    pub fn without_pidfd(mut self) -> Self {
        self.sys.use_pidfd = false;
        self
    }

    fn from_sys(sys: sys::Sys) -> Self {
        let self_pid = std::process::id();
        let ancestors = sys::ancestors(self_pid);
        Killer {
            sys,
            self_pid,
            ancestors,
            platform: Os::current(),
            filter: None,
        }
    }

    /// Installs a [`DeliveryFilter`] (tests only: a real kill must deliver what it reports).
    #[doc(hidden)]
    pub fn with_delivery_filter(mut self, filter: DeliveryFilter) -> Self {
        self.filter = Some(filter);
        self
    }

    /// Our own ancestors (protected), nearest first.
    pub fn ancestors(&self) -> &[u32] {
        &self.ancestors
    }

    /// Reads a process's identity and state (for the confirmation prompt).
    pub fn inspect(&self, pid: u32) -> Result<ProcInfo, InspectError> {
        if let Some(why) = guard::invalid_pid(pid) {
            return Err(InspectError::Other(why));
        }
        self.sys.inspect(pid)
    }

    /// The guard rails' verdict for a process, without acting (for the prompt).
    pub fn verdict(&self, info: &ProcInfo) -> Verdict {
        match guard::check_pid(info.pid, self.self_pid, &self.ancestors, self.platform) {
            Verdict::Allowed => guard::check_info(info, self.platform),
            other => other,
        }
    }

    /// Kills each target in turn.
    pub fn kill_all(
        &self,
        targets: &[Target],
        opts: &KillOptions,
        gpu: Option<&dyn GpuMemory>,
    ) -> Vec<Outcome> {
        targets.iter().map(|t| self.kill(t, opts, gpu)).collect()
    }

    /// Kills one target: see the module documentation for the flow.
    pub fn kill(
        &self,
        target: &Target,
        opts: &KillOptions,
        gpu: Option<&dyn GpuMemory>,
    ) -> Outcome {
        let mut run = Run {
            started: Instant::now(),
            steps: Vec::new(),
        };
        let mut out = Outcome {
            pid: target.pid,
            name: target.name.clone(),
            start_time: target.start_time,
            status: Status::Error,
            message: String::new(),
            plan: Vec::new(),
            steps: Vec::new(),
            zombie_parent: None,
            survivor: None,
            gpu_memory: GpuRelease {
                before: None,
                after: None,
                released: None,
                detail: if gpu.is_some() {
                    "not read: nothing was signalled".into()
                } else {
                    "unknown: no GPU memory reader was available".into()
                },
            },
            elapsed_ms: 0,
        };
        self.kill_inner(target, opts, gpu, &mut run, &mut out);
        out.steps = run.steps;
        out.elapsed_ms = run.started.elapsed().as_millis() as u64;
        out
    }

    /// Sends one signal through the filter, recording the step.
    pub(super) fn deliver(
        &self,
        run: &mut Run,
        handle: &sys::Handle,
        pid: u32,
        sig: Signal,
    ) -> Result<Sent, ActError> {
        if let Some(filter) = &self.filter {
            if !filter(pid, sig) {
                run.step(
                    sig.label(),
                    "suppressed by the test delivery filter (not sent)".into(),
                );
                return Ok(Sent::Delivered(String::new()));
            }
        }
        let res = self.sys.send(handle, pid, sig);
        let text = match &res {
            Ok(Sent::Delivered(d)) if d.is_empty() => "sent".to_string(),
            Ok(Sent::Delivered(d)) => format!("sent {d}"),
            Ok(Sent::NotApplicable(why)) => format!("not sent: {why}"),
            Err(ActError::Gone) => "not sent: the process has already exited".into(),
            Err(ActError::PermissionDenied) => "not sent: permission denied".into(),
            Err(ActError::Os(e)) => format!("failed: {e}"),
        };
        run.step(sig.label(), text);
        res
    }

    pub(super) fn wait(
        &self,
        run: &mut Run,
        handle: &sys::Handle,
        pid: u32,
        timeout: Duration,
    ) -> bool {
        let t = Instant::now();
        let res = self.sys.wait_exit(handle, pid, timeout);
        let text = match &res {
            Ok(true) => format!("exited after {} ms", t.elapsed().as_millis()),
            Ok(false) => format!("still running after {} ms", timeout.as_millis()),
            Err(e) => format!("could not wait: {e}"),
        };
        run.step("wait", text);
        res.unwrap_or(false)
    }

    /// Turns a delivery error into a final outcome; `None` means carry on.
    pub(super) fn permission_message(&self, info: &ProcInfo) -> String {
        let owner = match (&info.user, info.uid) {
            (Some(u), Some(id)) => format!("user {u} (uid {id})"),
            (None, Some(id)) => format!("uid {id}"),
            _ => "another user (or runs elevated)".into(),
        };
        format!(
            "permission denied: PID {} ({}) belongs to {owner}, and gpuledger runs as {}; only the \
             process's owner or an administrator may signal it. Run gpuledger as that user, or with \
             sudo / from an elevated prompt. Nothing was signalled.",
            info.pid,
            info.name,
            sys::current_user()
        )
    }

    pub(super) fn parent_info(&self, ppid: u32) -> ParentInfo {
        ParentInfo {
            pid: ppid,
            name: self.sys.inspect(ppid).ok().map(|p| p.name),
        }
    }

    pub(super) fn plan(&self, info: &ProcInfo, opts: &KillOptions) -> Vec<String> {
        let mut plan = Vec::new();
        if !opts.force {
            plan.push(format!(
                "send {} to PID {} ({})",
                Signal::Graceful.label(),
                info.pid,
                info.name
            ));
            if info.state == Some('T') {
                plan.push(
                    "send SIGCONT (it is stopped and cannot act on SIGTERM until continued)".into(),
                );
            }
            plan.push(format!(
                "wait up to {} ms for it to exit",
                opts.grace.as_millis()
            ));
            plan.push(format!(
                "if it has not exited, send {}",
                Signal::Forced.label()
            ));
        } else {
            plan.push(format!(
                "send {} to PID {} ({})",
                Signal::Forced.label(),
                info.pid,
                info.name
            ));
        }
        if cfg!(windows) {
            plan.push("if it survives TerminateProcess, ask WMI to terminate it".into());
        }
        plan.push(format!(
            "verify it is gone within {} ms, else report it as still alive",
            opts.kill_wait.as_millis()
        ));
        if let (Some(uid), Some(me)) = (info.uid, sys::current_uid()) {
            if me != 0 && uid != me {
                plan.push(format!(
                    "(expect permission denied: it belongs to uid {uid}, gpuledger runs as uid {me})"
                ));
            }
        }
        plan
    }
}

pub(super) struct Run {
    started: Instant,
    steps: Vec<Step>,
}

impl Run {
    pub(super) fn step(&mut self, action: &str, result: String) {
        self.steps.push(Step {
            action: action.into(),
            at_ms: self.started.elapsed().as_millis() as u64,
            result,
        });
    }
}

impl Outcome {
    pub(super) fn set(&mut self, status: Status, message: String) {
        self.status = status;
        self.message = message;
    }
}
