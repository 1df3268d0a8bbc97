//! Safe, verified process termination.
//!
//! The flow for each target (see [`Killer::kill`]):
//! 1. guard rails on the PID (never 0, 1, ourselves or our parents);
//! 2. read the process (name, start-time token, state, owner) and compare with the identity the user
//!    saw: a different start time or name means the PID now names another process, so we skip it;
//! 3. guard rails on what we read (kernel threads, critical Windows processes refused; display
//!    servers, compositors and session shells only with a second confirmation);
//! 4. pin the process (Linux: a pidfd; Windows: a process handle), then re-read its start time: with
//!    the pin held a match proves the signals below reach the process we checked;
//! 5. graceful (SIGTERM, plus SIGCONT for a stopped process; Windows: WM_CLOSE to its top-level
//!    windows), wait up to the grace period, then forced (SIGKILL / TerminateProcess);
//! 6. verify by observation: the pidfd or handle becomes ready, or the process is gone from the
//!    process table; a zombie counts as gone and its parent is named; a survivor is reported with
//!    its state, kernel wait channel and the remedies that exist;
//! 7. whether the GPU memory was released, from a caller-supplied [`GpuMemory`] reader (a fresh
//!    collection round), polled for a short while after the exit.
//!
//! Here: what a request and a read hold (targets, process info, signals, options). The
//! [`Killer`] is in `killer`, the steps above in `flow`, the identity rule of step 2 in
//! `identity`, guard rails in `guard`, outcomes in `outcome`, one backend per platform in `sys`
//! (with `unix` for what Linux and macOS share).

mod flow;
pub mod guard;
mod identity;
mod killer;
mod outcome;
#[cfg(unix)]
mod unix;

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

use guard::{Os, Verdict};
use serde::Serialize;
use std::time::Duration;

pub use killer::Killer;
use outcome::gpu_release;
pub use outcome::{
    combined_exit_code, exit_code, DeliveryFilter, GpuMemory, GpuMemoryReading, GpuRelease,
    Outcome, ParentInfo, Status, Step, Survivor,
};

use identity::identity_mismatch;
use killer::Run;
#[cfg(unix)]
pub(crate) use unix::{
    ancestors_by, current_uid, current_user, exited_by, observe_exit_by, unix_user_name,
};

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
    /// The second confirmation for display servers, compositors and session shells
    /// (`--yes-really`).
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

/// How the process ended, as observed after its pin became ready.
pub(crate) enum Exit {
    /// Reaped; the string adds detail (e.g. Windows exit code), starting with a separator.
    Gone(String),
    #[cfg_attr(windows, allow(dead_code))]
    Zombie { ppid: Option<u32> },
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
            message: String::new().into(),
            plan: vec![],
            steps: vec![],
            zombie_parent: None,
            survivor: None,
            gpu_memory: GpuRelease {
                before: None,
                after: None,
                released: None,
                detail: String::new().into(),
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
