//! The steps of one kill, in the order of the module documentation. Each step either hands the
//! next one what it needs or ends the kill with a status and a message ([`End`]).

use super::{
    gpu_release, guard, identity_mismatch, sys, ActError, Exit, GpuMemory, GpuMemoryReading,
    InspectError, KillOptions, Killer, Outcome, ParentInfo, ProcInfo, Run, Sent, Signal, Status,
    Target, Verdict,
};
use gpuledger_lang::said::Arg;
use gpuledger_lang::Said;
use std::time::Duration;

/// How a kill ended: the status and the sentence that says it.
pub(super) struct End(Status, Said);

/// The sentence `key` with its values (the kill's words are reports.ftl's `report-kill-…`).
fn said<const N: usize>(key: &'static str, args: [(&'static str, Arg); N]) -> Said {
    Said::new(key, args.into())
}

/// A PID as a sentence's value.
fn pid_arg(pid: u32) -> Arg {
    pid.to_string().into()
}

impl Killer {
    pub(super) fn kill_inner(
        &self,
        target: &Target,
        opts: &KillOptions,
        gpu: Option<&dyn GpuMemory>,
        run: &mut Run,
        out: &mut Outcome,
    ) {
        let (Ok(End(status, message)) | Err(End(status, message))) =
            self.kill_steps(target, opts, gpu, run, out);
        out.set(status, message);
    }

    fn kill_steps(
        &self,
        target: &Target,
        opts: &KillOptions,
        gpu: Option<&dyn GpuMemory>,
        run: &mut Run,
        out: &mut Outcome,
    ) -> Result<End, End> {
        let pid = target.pid;
        // 1. Guard rails on the PID alone.
        if let Verdict::Refused(why) =
            guard::check_pid(pid, self.self_pid, &self.ancestors, self.platform)
        {
            // The guard rail's reason, a sentence of its own (the live view shares it).
            let args = [("pid", pid_arg(pid)), ("why", why.into())];
            return Err(End(Status::Refused, said("report-kill-refused-pid", args)));
        }
        // 2. What the PID names now, and whether it is the process the user chose.
        let info = self.read_target(target)?;
        let who = format!("PID {pid} ({})", info.name);
        out.name = Some(info.name.clone());
        out.start_time = Some(info.start_time);
        // 3. Guard rails on what was read.
        self.check_guarded(&info, &who, opts)?;
        if info.state == Some('Z') {
            return Ok(self.already_zombie(&info, &who, out));
        }
        if opts.dry_run {
            return Ok(self.dry_run(pid, &info, &who, opts, gpu, out));
        }
        let before = gpu.map(|g| g.gpu_memory_of(pid));
        // 4. Pin, then prove the pin holds the process we checked.
        let handle = self.pin(&info, &who)?;
        out.gpu_memory.before = before.clone();
        // 5. Graceful, then forced.
        let exited = self.signal(run, &handle, &info, opts)?;
        // 6. and 7. Observe the end, and what the GPU memory did.
        if !exited {
            return Ok(self.survived(pid, &who, opts, gpu, before, out));
        }
        let exit = self
            .sys
            .observe_exit(&handle, pid, info.start_time, opts.reap_wait);
        out.gpu_memory = gpu_release(gpu, pid, before, opts.release_wait, true);
        Ok(self.exited(exit, &who, out))
    }

    /// Step 3, a process that had already exited: nothing to signal, its parent named.
    fn already_zombie(&self, info: &ProcInfo, who: &str, out: &mut Outcome) -> End {
        out.zombie_parent = info.ppid.map(|p| self.parent_info(p));
        let parent = describe_parent(out.zombie_parent.as_ref());
        let args = [("who", who.into()), ("parent", parent)];
        End(Status::Zombie, said("report-kill-already-zombie", args))
    }

    /// A dry run ends after step 3 with the plan. What the process holds now is read by the
    /// same reader a real kill would use, so the text and the JSON of a dry run say the same.
    fn dry_run(
        &self,
        pid: u32,
        info: &ProcInfo,
        who: &str,
        opts: &KillOptions,
        gpu: Option<&dyn GpuMemory>,
        out: &mut Outcome,
    ) -> End {
        if let Some(g) = gpu {
            out.gpu_memory.before = Some(g.gpu_memory_of(pid));
            out.gpu_memory.detail = said("report-kill-dry-run-read", []);
        }
        out.plan = self.plan(info, opts);
        let args = [("who", who.into()), ("plan", Arg::List(out.plan.clone()))];
        End(Status::DryRun, said("report-kill-dry-run", args))
    }

    /// Step 6 for a process that outlived the forced signal: its state and the remedies.
    fn survived(
        &self,
        pid: u32,
        who: &str,
        opts: &KillOptions,
        gpu: Option<&dyn GpuMemory>,
        before: Option<GpuMemoryReading>,
        out: &mut Outcome,
    ) -> End {
        let survivor = self.sys.survivor(pid, Signal::Forced.label());
        // The platform's state letter and word, as it wrote them.
        let state: Arg = match &survivor.state {
            Some(s) => s.as_str().into(),
            None => said("report-kill-unknown-state", []).into(),
        };
        out.survivor = Some(survivor);
        out.gpu_memory = gpu_release(gpu, pid, before, Duration::ZERO, false);
        let args = [
            ("who", who.into()),
            ("ms", opts.kill_wait.as_millis().to_string().into()),
            ("signal", Signal::Forced.label().into()),
            ("state", state),
        ];
        End(Status::StillAlive, said("report-kill-still-alive", args))
    }

    /// Step 6 for a process that exited: gone, or a zombie until its parent reaps it.
    fn exited(&self, exit: Exit, who: &str, out: &mut Outcome) -> End {
        match exit {
            // The platform's detail (Windows' exit code) as it wrote it.
            Exit::Gone(detail) => {
                let args = [("who", who.into()), ("detail", detail.into())];
                End(Status::Gone, said("report-kill-gone", args))
            }
            Exit::Zombie { ppid } => {
                out.zombie_parent = ppid.map(|p| self.parent_info(p));
                let parent = describe_parent(out.zombie_parent.as_ref());
                let args = [("who", who.into()), ("parent", parent)];
                End(Status::Zombie, said("report-kill-zombie-now", args))
            }
        }
    }

    /// Step 2: read the process and refuse when the PID now names another one.
    fn read_target(&self, target: &Target) -> Result<ProcInfo, End> {
        let pid = target.pid;
        let info = self.sys.inspect(pid).map_err(|e| match e {
            InspectError::NotFound => End(
                Status::NotFound,
                said("report-kill-no-such-process", [("pid", pid_arg(pid))]),
            ),
            InspectError::PermissionDenied(why) => {
                let args = [("who", format!("PID {pid}").into()), ("why", why.into())];
                End(Status::PermissionDenied, said("report-kill-who-why", args))
            }
            InspectError::Other(why) => {
                let args = [("pid", pid_arg(pid)), ("why", why.into())];
                End(Status::Error, said("report-kill-cannot-read", args))
            }
        })?;
        if let Some(why) = identity_mismatch(target, &info) {
            // `name`/`start_time` stay what the user chose; the other process is in the message.
            let args = [
                ("pid", pid_arg(pid)),
                ("why", why.into()),
                ("name", info.name.as_str().into()),
            ];
            return Err(End(
                Status::IdentityMismatch,
                said("report-kill-skipped-other", args),
            ));
        }
        Ok(info)
    }

    /// Step 3: the guard rails on what was read.
    fn check_guarded(&self, info: &ProcInfo, who: &str, opts: &KillOptions) -> Result<(), End> {
        match guard::check_info(info, self.platform) {
            Verdict::Allowed => Ok(()),
            Verdict::Refused(why) => Err(End(
                Status::Refused,
                said(
                    "report-kill-refused",
                    [("who", who.into()), ("why", why.into())],
                ),
            )),
            Verdict::NeedsSecondConfirmation(why) if !opts.confirmed_sensitive => Err(End(
                Status::NeedsConfirmation,
                said(
                    "report-kill-needs-second",
                    [("who", who.into()), ("why", why.into())],
                ),
            )),
            Verdict::NeedsSecondConfirmation(_) => Ok(()),
        }
    }

    /// Step 4: the pin (pidfd, process handle), and its start time re-read through it.
    fn pin(&self, info: &ProcInfo, who: &str) -> Result<sys::Handle, End> {
        let pid = info.pid;
        let gone = || {
            End(
                Status::Gone,
                said("report-kill-exited-before", [("who", who.into())]),
            )
        };
        let handle = self.sys.open(pid, info).map_err(|e| match e {
            ActError::Gone => gone(),
            ActError::PermissionDenied => {
                End(Status::PermissionDenied, self.permission_message(info))
            }
            ActError::Os(e) => {
                let args = [("who", who.into()), ("error", e.to_string().into())];
                End(Status::Error, said("report-kill-cannot-open", args))
            }
        })?;
        match self.sys.inspect_pinned(&handle, pid) {
            Ok(now) if now.start_time == info.start_time => Ok(handle),
            Ok(now) => {
                let args = [("pid", pid_arg(pid)), ("name", now.name.into())];
                Err(End(
                    Status::IdentityMismatch,
                    said("report-kill-reused", args),
                ))
            }
            Err(InspectError::NotFound) => Err(gone()),
            Err(InspectError::PermissionDenied(why)) => {
                let args = [("who", who.into()), ("why", why.into())];
                Err(End(
                    Status::PermissionDenied,
                    said("report-kill-who-why", args),
                ))
            }
            Err(InspectError::Other(e)) => {
                let args = [("who", who.into()), ("error", e.to_string().into())];
                Err(End(Status::Error, said("report-kill-cannot-reread", args)))
            }
        }
    }

    /// Step 5: graceful (with SIGCONT for a stopped process) unless forced, then forced, then the
    /// platform's fallback. Whether the process exited.
    fn signal(
        &self,
        run: &mut Run,
        handle: &sys::Handle,
        info: &ProcInfo,
        opts: &KillOptions,
    ) -> Result<bool, End> {
        let pid = info.pid;
        let mut exited = false;
        if !opts.force {
            match self.deliver(run, handle, pid, Signal::Graceful) {
                Ok(Sent::Delivered(_)) => {
                    if matches!(info.state, Some('T')) {
                        // A stopped process keeps SIGTERM pending until continued.
                        if let Err(e) = self.deliver(run, handle, pid, Signal::Continue) {
                            self.unless_gone(e, info)?;
                        }
                    }
                    exited = self.wait(run, handle, pid, opts.grace);
                }
                Ok(Sent::NotApplicable(_)) => {}
                Err(ActError::Gone) => exited = true,
                Err(e) => self.unless_gone(e, info)?,
            }
        }
        if !exited {
            match self.deliver(run, handle, pid, Signal::Forced) {
                Ok(_) => exited = self.wait(run, handle, pid, opts.kill_wait),
                Err(ActError::Gone) => exited = true,
                Err(e) => self.unless_gone(e, info)?,
            }
        }
        if !exited && cfg!(windows) {
            match self.deliver(run, handle, pid, Signal::Fallback) {
                Ok(Sent::Delivered(_)) => exited = self.wait(run, handle, pid, opts.kill_wait),
                Err(ActError::Gone) => exited = true,
                // Not available or failed: the step says so; the report is the same.
                Ok(Sent::NotApplicable(_)) | Err(_) => {}
            }
        }
        Ok(exited)
    }

    /// A signal that failed ends the kill, unless the process was already gone.
    fn unless_gone(&self, e: ActError, info: &ProcInfo) -> Result<(), End> {
        match e {
            ActError::Gone => Ok(()),
            ActError::PermissionDenied => {
                Err(End(Status::PermissionDenied, self.permission_message(info)))
            }
            ActError::Os(e) => {
                let who = format!("PID {} ({})", info.pid, info.name);
                let args = [("who", who.into()), ("why", e.to_string().into())];
                Err(End(Status::Error, said("report-kill-who-why", args)))
            }
        }
    }
}

/// The zombie's parent as the messages name it.
fn describe_parent(p: Option<&ParentInfo>) -> Arg {
    match p {
        Some(ParentInfo { pid, name: Some(n) }) => format!("PID {pid} ({n})").into(),
        Some(ParentInfo { pid, name: None }) => format!("PID {pid}").into(),
        None => said("report-kill-parent-unknown", []).into(),
    }
}
