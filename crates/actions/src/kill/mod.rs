//! Safe, verified process termination.
//!
//! The flow for each target (see [`Killer::kill`]):
//! 1. guard rails on the PID (never 0, 1, ourselves or our parents);
//! 2. read the process (name, start-time token, state, owner) and compare with the identity the user
//!    saw: a different start time or name means the PID now names another process, so we skip it;
//! 3. guard rails on what we read (kernel threads, critical Windows processes refused; display
//!    servers and compositors only with a second confirmation);
//! 4. pin the process (Linux: a pidfd; Windows: a process handle), then re-read its start time: with
//!    the pin held a match proves the signals below reach the process we checked;
//! 5. graceful (SIGTERM, plus SIGCONT for a stopped process; Windows: WM_CLOSE to its top-level
//!    windows), wait up to the grace period, then forced (SIGKILL / TerminateProcess);
//! 6. verify by observation: the pidfd or handle becomes ready, or the process is gone from the
//!    process table; a zombie counts as gone and its parent is named; a survivor is reported with
//!    its state, kernel wait channel and the remedies that exist;
//! 7. whether the GPU memory was released, from a caller-supplied [`GpuMemory`] reader (a fresh
//!    collection round), polled for a short while after the exit.

mod flow;
pub mod guard;
mod outcome;

#[cfg(target_os = "linux")]
#[path = "linux.rs"]
mod sys;
#[cfg(target_os = "macos")]
#[path = "macos.rs"]
mod sys;
#[cfg(windows)]
#[path = "windows.rs"]
mod sys;
#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
#[path = "unsupported.rs"]
mod sys;

#[cfg(target_os = "linux")]
pub mod procfs;

use gpuledger_model::units::human_bytes;
use guard::{Os, Verdict};
use serde::Serialize;
use std::time::{Duration, Instant};

pub use outcome::*;

/// What the user saw: the process they chose. `start_time` and `name` are re-checked before acting;
/// `None` means "not known", and then only the PID identifies the target (the CLI fills both from a
/// fresh read before it asks for confirmation, so the check still spans the prompt).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Target {
    pub pid: u32,
    /// Platform start-time token: Linux clock ticks after boot (`/proc/PID/stat` field 22), Windows
    /// creation FILETIME, macOS microseconds since the epoch.
    pub start_time: Option<u64>,
    pub name: Option<String>,
}

impl Target {
    pub fn pid(pid: u32) -> Self {
        Target {
            pid,
            start_time: None,
            name: None,
        }
    }

    /// The identity of a process as read now.
    pub fn from_info(info: &ProcInfo) -> Self {
        Target {
            pid: info.pid,
            start_time: Some(info.start_time),
            name: Some(info.name.clone()),
        }
    }
}

/// What we read about a live process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProcInfo {
    pub pid: u32,
    /// Linux: `comm` (at most 15 bytes); Windows: image file name; macOS: `pbi_name`/`pbi_comm`.
    pub name: String,
    /// Base name of the executable, where readable (it can differ from `name`).
    pub exe_name: Option<String>,
    pub start_time: u64,
    /// Linux/macOS state letter (R, S, D, T, t, Z, ...); `None` where the platform has none.
    pub state: Option<char>,
    pub ppid: Option<u32>,
    pub uid: Option<u32>,
    pub user: Option<String>,
    pub kernel_thread: bool,
    /// Windows: marked critical (`IsProcessCritical`).
    pub critical: bool,
    /// Linux: this ID is a thread of that process (not a process of its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_of: Option<u32>,
}

/// Why a process could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InspectError {
    NotFound,
    PermissionDenied(String),
    Other(String),
}

/// Errors from pinning or signalling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ActError {
    /// The process has exited (or was never there).
    Gone,
    PermissionDenied,
    Os(String),
}

/// What to do, on every platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGTERM / WM_CLOSE to the top-level windows.
    Graceful,
    /// SIGCONT (a stopped process cannot act on SIGTERM until continued).
    Continue,
    /// SIGKILL / TerminateProcess.
    Forced,
    /// Windows only, after TerminateProcess failed to end it: ask WMI (`Win32_Process.Terminate`).
    Fallback,
}

impl Signal {
    /// The platform's name for it, as shown to users.
    pub fn label(self) -> &'static str {
        match (self, cfg!(windows)) {
            (Signal::Graceful, false) => "SIGTERM",
            (Signal::Graceful, true) => "WM_CLOSE",
            (Signal::Continue, _) => "SIGCONT",
            (Signal::Forced, false) => "SIGKILL",
            (Signal::Forced, true) => "TerminateProcess",
            (Signal::Fallback, _) => "WMI Terminate",
        }
    }
}

/// What a delivery attempt did (Windows' graceful step can find nothing to send to).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(not(windows), allow(dead_code))]
pub(crate) enum Sent {
    Delivered(String),
    NotApplicable(String),
}

/// Options for one kill request.
#[derive(Debug, Clone)]
pub struct KillOptions {
    /// Skip the graceful step.
    pub force: bool,
    /// How long the graceful step may take before the forced one.
    pub grace: Duration,
    /// How long to wait for the exit after the forced step before reporting "still alive".
    pub kill_wait: Duration,
    /// How long a zombie may wait for its parent to reap it before we report it as a zombie.
    pub reap_wait: Duration,
    /// How long to poll the GPU memory reader for the release after the exit.
    pub release_wait: Duration,
    /// Describe, signal nothing.
    pub dry_run: bool,
    /// The second confirmation for display servers and compositors (`--yes-really`).
    pub confirmed_sensitive: bool,
}

impl Default for KillOptions {
    fn default() -> Self {
        KillOptions {
            force: false,
            grace: Duration::from_secs(3),
            kill_wait: Duration::from_secs(5),
            reap_wait: Duration::from_millis(200),
            release_wait: Duration::from_secs(2),
            dry_run: false,
            confirmed_sensitive: false,
        }
    }
}

/// Performs kill requests. One per program run is enough.
pub struct Killer {
    sys: sys::Sys,
    self_pid: u32,
    ancestors: Vec<u32>,
    platform: Os,
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
    fn deliver(
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

    fn wait(&self, run: &mut Run, handle: &sys::Handle, pid: u32, timeout: Duration) -> bool {
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
    fn permission_message(&self, info: &ProcInfo) -> String {
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

    fn parent_info(&self, ppid: u32) -> ParentInfo {
        ParentInfo {
            pid: ppid,
            name: self.sys.inspect(ppid).ok().map(|p| p.name),
        }
    }

    fn plan(&self, info: &ProcInfo, opts: &KillOptions) -> Vec<String> {
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

/// Our effective UID.
#[cfg(unix)]
pub(crate) fn current_uid() -> Option<u32> {
    // SAFETY: geteuid cannot fail.
    Some(unsafe { libc::geteuid() })
}

/// `alice (uid 1000)`, for permission messages.
#[cfg(unix)]
pub(crate) fn current_user() -> String {
    let uid = current_uid().unwrap_or(u32::MAX);
    match unix_user_name(uid) {
        Some(n) => format!("{n} (uid {uid})"),
        None => format!("uid {uid}"),
    }
}

/// Our parent, its parent, ... up to PID 1 (bounded, and safe against a cycle in odd data).
#[cfg(unix)]
pub(crate) fn ancestors_by(self_pid: u32, parent_of: impl Fn(u32) -> Option<u32>) -> Vec<u32> {
    let mut out = Vec::new();
    let mut pid = self_pid;
    for _ in 0..128 {
        let Some(ppid) = parent_of(pid) else { break };
        if ppid == 0 || out.contains(&ppid) {
            break;
        }
        out.push(ppid);
        pid = ppid;
    }
    out
}

/// The account name for a UID (`getpwuid_r`), `None` when it has none.
#[cfg(unix)]
pub(crate) fn unix_user_name(uid: u32) -> Option<String> {
    let mut buf = vec![0 as libc::c_char; 4096];
    // SAFETY: passwd is plain data; getpwuid_r fills it with pointers into `buf`.
    let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
    let mut res: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: all pointers are valid for the sizes given.
    let rc = unsafe { libc::getpwuid_r(uid, &mut pw, buf.as_mut_ptr(), buf.len(), &mut res) };
    if rc != 0 || res.is_null() || pw.pw_name.is_null() {
        return None;
    }
    // SAFETY: pw_name points into `buf`, NUL-terminated by getpwuid_r.
    let name = unsafe { std::ffi::CStr::from_ptr(pw.pw_name) };
    Some(name.to_string_lossy().into_owned())
}

/// How the process ended, as observed after its pin became ready.
pub(crate) enum Exit {
    /// Reaped; the string adds detail (e.g. Windows exit code), starting with a separator.
    Gone(String),
    #[cfg_attr(windows, allow(dead_code))]
    Zombie { ppid: Option<u32> },
}

pub(super) struct Run {
    started: Instant,
    steps: Vec<Step>,
}

impl Run {
    fn step(&mut self, action: &str, result: String) {
        self.steps.push(Step {
            action: action.into(),
            at_ms: self.started.elapsed().as_millis() as u64,
            result,
        });
    }
}

impl Outcome {
    fn set(&mut self, status: Status, message: String) {
        self.status = status;
        self.message = message;
    }
}

fn describe_parent(p: Option<&ParentInfo>) -> String {
    match p {
        Some(ParentInfo { pid, name: Some(n) }) => format!("PID {pid} ({n})"),
        Some(ParentInfo { pid, name: None }) => format!("PID {pid}"),
        None => "(unknown)".into(),
    }
}

/// Why the process read now is not the one the user chose, if it is not.
fn identity_mismatch(target: &Target, info: &ProcInfo) -> Option<String> {
    if let Some(st) = target.start_time {
        if st != info.start_time {
            return Some(format!(
                "its start time is {} but the process you chose started at {st}",
                info.start_time
            ));
        }
    }
    if let Some(name) = &target.name {
        if !names_match(name, info) {
            return Some(format!("its name is {:?}, not {name:?}", info.name));
        }
    }
    None
}

/// Names compare without case and `.exe`; Linux `comm` is cut to 15 bytes, so a 15-byte name
/// matches a longer one it begins.
fn names_match(wanted: &str, info: &ProcInfo) -> bool {
    let w = guard::normalise_name(wanted);
    std::iter::once(info.name.as_str())
        .chain(info.exe_name.as_deref())
        .any(|have| {
            let h = guard::normalise_name(have);
            h == w || (h.len() == 15 && w.starts_with(&h)) || (w.len() == 15 && h.starts_with(&w))
        })
}

/// After the pidfd (or kill(2)) says the process ended: gone, or a zombie its parent has not reaped
/// within `reap_wait` (checked by pid and start time, so a reused pid is "gone").
#[cfg(unix)]
pub(crate) fn observe_exit_by(
    inspect: impl Fn(u32) -> Result<ProcInfo, InspectError>,
    pid: u32,
    start_time: u64,
    reap_wait: std::time::Duration,
) -> Exit {
    let deadline = std::time::Instant::now() + reap_wait;
    loop {
        match inspect(pid) {
            Ok(now) if now.start_time == start_time && now.state == Some('Z') => {
                if std::time::Instant::now() >= deadline {
                    return Exit::Zombie { ppid: now.ppid };
                }
            }
            _ => return Exit::Gone(String::new()),
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(status: Status) -> Outcome {
        Outcome {
            pid: 1,
            name: None,
            start_time: None,
            status,
            message: String::new(),
            plan: vec![],
            steps: vec![],
            zombie_parent: None,
            survivor: None,
            gpu_memory: GpuRelease {
                before: None,
                after: None,
                released: None,
                detail: String::new(),
            },
            elapsed_ms: 0,
        }
    }

    #[test]
    fn exit_codes_zero_only_when_all_gone() {
        let c =
            |s: &[Status]| combined_exit_code(&s.iter().map(|&s| outcome(s)).collect::<Vec<_>>());
        assert_eq!(c(&[Status::Gone, Status::Zombie]), 0);
        assert_eq!(c(&[]), exit_code::ERROR);
        assert_eq!(c(&[Status::Gone, Status::DryRun]), exit_code::DRY_RUN);
        assert_eq!(
            c(&[Status::NotFound, Status::Gone]),
            exit_code::NOT_FOUND_OR_REUSED
        );
        assert_eq!(
            c(&[Status::IdentityMismatch, Status::Refused]),
            exit_code::REFUSED
        );
        assert_eq!(c(&[Status::NeedsConfirmation]), exit_code::REFUSED);
        assert_eq!(
            c(&[Status::Refused, Status::PermissionDenied]),
            exit_code::PERMISSION_DENIED
        );
        assert_eq!(
            c(&[Status::PermissionDenied, Status::Error]),
            exit_code::ERROR
        );
        assert_eq!(
            c(&[Status::Error, Status::StillAlive, Status::Gone]),
            exit_code::STILL_ALIVE
        );
    }

    fn info(name: &str, exe: Option<&str>) -> ProcInfo {
        ProcInfo {
            pid: 5,
            name: name.into(),
            exe_name: exe.map(Into::into),
            start_time: 77,
            state: Some('S'),
            ppid: None,
            uid: None,
            user: None,
            kernel_thread: false,
            critical: false,
            thread_of: None,
        }
    }

    #[test]
    fn identity_rules() {
        let t = |st: Option<u64>, n: Option<&str>| Target {
            pid: 5,
            start_time: st,
            name: n.map(Into::into),
        };
        let i = info("llama-server", None);
        assert_eq!(
            identity_mismatch(&t(Some(77), Some("llama-server")), &i),
            None
        );
        assert_eq!(identity_mismatch(&t(None, None), &i), None);
        assert!(identity_mismatch(&t(Some(78), None), &i)
            .unwrap()
            .contains("start time"));
        assert!(identity_mismatch(&t(None, Some("python3")), &i)
            .unwrap()
            .contains("python3"));
        // comm truncation to 15 bytes, case and .exe.
        let long = info("text-generation", Some("text-generation-launcher"));
        assert_eq!(
            identity_mismatch(&t(None, Some("text-generation-launcher")), &long),
            None
        );
        assert_eq!(
            identity_mismatch(&t(None, Some("Ollama.EXE")), &info("ollama", None)),
            None
        );
        // A 14-byte comm is not truncated: a longer name is a different program.
        assert!(identity_mismatch(
            &t(None, Some("llama-server-x")),
            &info("llama-server", None)
        )
        .is_some());
    }

    struct Fixed(Vec<GpuMemoryReading>, std::cell::Cell<usize>);
    impl GpuMemory for Fixed {
        fn gpu_memory_of(&self, _pid: u32) -> GpuMemoryReading {
            let i = self.1.get();
            self.1.set(i + 1);
            self.0[i.min(self.0.len() - 1)].clone()
        }
    }

    #[test]
    fn gpu_release_verdicts() {
        let holds = |b| GpuMemoryReading::Holds { bytes: b };
        let before = Some(holds(1 << 30));
        // Released after two more polls.
        let g = Fixed(
            vec![holds(1 << 30), holds(1 << 30), GpuMemoryReading::NotListed],
            0.into(),
        );
        let r = gpu_release(Some(&g), 5, before.clone(), Duration::from_secs(2), true);
        assert_eq!(r.released, Some(true));
        assert_eq!(r.after, Some(GpuMemoryReading::NotListed));
        assert_eq!(g.1.get(), 3);
        // Never released within the wait.
        let g = Fixed(vec![holds(5)], 0.into());
        let r = gpu_release(
            Some(&g),
            5,
            before.clone(),
            Duration::from_millis(250),
            true,
        );
        assert_eq!(r.released, Some(false));
        assert!(r.detail.contains("still listed with 5 B"), "{}", r.detail);
        // Unknown stays unknown.
        let g = Fixed(
            vec![GpuMemoryReading::Unknown {
                reason: "no NVML".into(),
            }],
            0.into(),
        );
        let r = gpu_release(Some(&g), 5, before, Duration::ZERO, true);
        assert_eq!(r.released, None);
        assert!(r.detail.contains("no NVML"));
        let r = gpu_release(None, 5, None, Duration::ZERO, true);
        assert_eq!((r.released, r.after), (None, None));
    }

    #[test]
    fn outcome_json_shape() {
        let mut o = outcome(Status::StillAlive);
        o.survivor = Some(Survivor {
            state: Some("D (uninterruptible sleep)".into()),
            wchan: None,
            remedies: vec!["reboot".into()],
        });
        let v: serde_json::Value = serde_json::to_value(&o).unwrap();
        assert_eq!(v["status"], "still_alive");
        assert_eq!(v["survivor"]["remedies"][0], "reboot");
        assert!(v.get("zombie_parent").is_none());
        assert!(v["gpu_memory"]["released"].is_null());
        let r = GpuMemoryReading::Holds { bytes: 3 };
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            serde_json::json!({"state": "holds", "bytes": 3})
        );
    }
}
