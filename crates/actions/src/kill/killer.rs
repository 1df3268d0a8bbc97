//! The [`Killer`]: what it protects (its own PID and ancestors), reading a process for the
//! prompt, and the acts the steps in `flow` use (deliver a signal, wait, say who may act).

use super::{
    guard, sys, ActError, DeliveryFilter, GpuMemory, GpuRelease, InspectError, KillOptions, Os,
    Outcome, ParentInfo, ProcInfo, Sent, Signal, Status, Step, Target, Verdict,
};
use gpuledger_lang::Said;
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
            return Err(InspectError::Other(why.to_string()));
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
            message: Said::default(),
            plan: Vec::new(),
            steps: Vec::new(),
            zombie_parent: None,
            survivor: None,
            gpu_memory: GpuRelease {
                before: None,
                after: None,
                released: None,
                detail: Said::new(
                    if gpu.is_some() {
                        "report-kill-not-read"
                    } else {
                        "report-kill-no-reader"
                    },
                    vec![],
                ),
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
                    Said::new("report-kill-step-suppressed", vec![]),
                );
                return Ok(Sent::Delivered(String::new()));
            }
        }
        let res = self.sys.send(handle, pid, sig);
        // The platform's own details (a window count, the OS's error) go in as written.
        let text = match &res {
            Ok(Sent::Delivered(d)) if d.is_empty() => Said::new("report-kill-step-sent", vec![]),
            Ok(Sent::Delivered(d)) => Said::new(
                "report-kill-step-sent-detail",
                vec![("detail", d.as_str().into())],
            ),
            Ok(Sent::NotApplicable(why)) => Said::new(
                "report-kill-step-not-sent",
                vec![("why", why.as_str().into())],
            ),
            Err(ActError::Gone) => Said::new("report-kill-step-already-exited", vec![]),
            Err(ActError::PermissionDenied) => Said::new("report-kill-step-permission", vec![]),
            Err(ActError::Os(e)) => Said::new(
                "report-kill-step-failed",
                vec![("error", e.to_string().into())],
            ),
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
        let ms = |d: Duration| vec![("ms", d.as_millis().to_string().into())];
        let text = match &res {
            Ok(true) => Said::new("report-kill-step-exited", ms(t.elapsed())),
            Ok(false) => Said::new("report-kill-step-still-running", ms(timeout)),
            Err(e) => Said::new(
                "report-kill-step-cannot-wait",
                vec![("error", e.to_string().into())],
            ),
        };
        run.step("wait", text);
        res.unwrap_or(false)
    }

    /// Why a process of another user (or an elevated one) cannot be signalled, and what to do.
    pub(super) fn permission_message(&self, info: &ProcInfo) -> Said {
        let owner = match (&info.user, info.uid) {
            (Some(u), Some(id)) => Said::new(
                "report-kill-owner-user",
                vec![("user", u.as_str().into()), ("uid", id.to_string().into())],
            ),
            (None, Some(id)) => Said::new(
                "report-kill-owner-uid",
                vec![("uid", id.to_string().into())],
            ),
            _ => Said::new("report-kill-owner-other", vec![]),
        };
        let args = vec![
            ("pid", info.pid.to_string().into()),
            ("name", info.name.as_str().into()),
            ("owner", owner.into()),
            ("me", sys::current_user().to_string().into()),
        ];
        Said::new("report-kill-permission", args)
    }

    pub(super) fn parent_info(&self, ppid: u32) -> ParentInfo {
        ParentInfo {
            pid: ppid,
            name: self.sys.inspect(ppid).ok().map(|p| p.name),
        }
    }

    pub(super) fn plan(&self, info: &ProcInfo, opts: &KillOptions) -> Vec<Said> {
        let send = |sig: Signal| {
            let args = vec![
                ("signal", sig.label().into()),
                ("pid", info.pid.to_string().into()),
                ("name", info.name.as_str().into()),
            ];
            Said::new("report-kill-plan-send", args)
        };
        let ms = |d: Duration| vec![("ms", d.as_millis().to_string().into())];
        let mut plan = Vec::new();
        if !opts.force {
            plan.push(send(Signal::Graceful));
            if info.state == Some('T') {
                plan.push(Said::new("report-kill-plan-continue", vec![]));
            }
            plan.push(Said::new("report-kill-plan-wait", ms(opts.grace)));
            let forced = vec![("signal", Signal::Forced.label().into())];
            plan.push(Said::new("report-kill-plan-then-force", forced));
        } else {
            plan.push(send(Signal::Forced));
        }
        if cfg!(windows) {
            plan.push(Said::new("report-kill-plan-wmi", vec![]));
        }
        plan.push(Said::new("report-kill-plan-verify", ms(opts.kill_wait)));
        if let (Some(uid), Some(me)) = (info.uid, sys::current_uid()) {
            if me != 0 && uid != me {
                let args = vec![
                    ("uid", uid.to_string().into()),
                    ("me", me.to_string().into()),
                ];
                plan.push(Said::new("report-kill-plan-expect-denied", args));
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
    pub(super) fn step(&mut self, action: &str, result: Said) {
        self.steps.push(Step {
            action: action.into(),
            at_ms: self.started.elapsed().as_millis() as u64,
            result,
        });
    }
}

impl Outcome {
    pub(super) fn set(&mut self, status: Status, message: Said) {
        self.status = status;
        self.message = message;
    }
}
