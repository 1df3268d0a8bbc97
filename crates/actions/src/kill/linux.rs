//! Linux: identity from `/proc` (through an injectable root), pinning and signalling through a
//! pidfd (Linux >= 5.3), kill(2) with a start-time re-check where pidfds are unavailable.

use super::procfs::{describe_state, parse_stat, parse_status_tgid, parse_status_uid, PF_KTHREAD};
use super::{ActError, Exit, InspectError, ProcInfo, Sent, Signal, Survivor};
use gpuledger_lang::Said;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub(crate) struct Sys {
    root: PathBuf,
    pub(crate) use_pidfd: bool,
}

/// What pins the target.
pub(crate) enum Handle {
    /// The kernel resolves signals sent through it to the exact process: no PID-reuse race.
    Pidfd(OwnedFd),
    /// No pidfd: the PID and the start time that must still match before every kill(2).
    Plain { pid: u32, start_time: u64 },
}

impl Sys {
    pub(crate) fn new() -> Self {
        Self::with_root(PathBuf::from("/proc"))
    }

    pub(crate) fn with_root(root: PathBuf) -> Self {
        Sys {
            root,
            use_pidfd: true,
        }
    }

    pub(crate) fn inspect(&self, pid: u32) -> Result<ProcInfo, InspectError> {
        let dir = self.root.join(pid.to_string());
        let stat_path = dir.join("stat");
        let stat = match gpuledger_sources::procfs::read_stat(&stat_path, &mut Vec::new()) {
            Ok(s) => s,
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT) | Some(libc::ESRCH)) => {
                return Err(InspectError::NotFound)
            }
            // A malformed file's message already names the file.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Err(InspectError::Other(e.to_string()))
            }
            Err(e) => return Err(InspectError::Other(format!("{}: {e}", stat_path.display()))),
        };
        let status = std::fs::read_to_string(dir.join("status")).ok();
        let uid = status.as_deref().and_then(parse_status_uid);
        let tgid = status.as_deref().and_then(parse_status_tgid);
        let exe_name = std::fs::read_link(dir.join("exe"))
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            // A replaced binary reads as "name (deleted)".
            .map(|n| n.trim_end_matches(" (deleted)").to_string());
        Ok(ProcInfo {
            pid,
            // PF_KTHREAD, not "parent is PID 2": inside a PID namespace PID 2 is an ordinary process.
            kernel_thread: stat.flags & PF_KTHREAD != 0,
            name: stat.comm,
            exe_name,
            start_time: stat.start_time,
            state: Some(stat.state),
            ppid: Some(stat.ppid),
            user: uid.and_then(super::unix_user_name),
            uid,
            critical: false,
            thread_of: tgid.filter(|&t| t != pid),
        })
    }

    pub(crate) fn open(&self, pid: u32, info: &ProcInfo) -> Result<Handle, ActError> {
        if self.use_pidfd {
            // SAFETY: pidfd_open(pid, flags) takes two integers and returns a new fd or -1.
            let fd = unsafe {
                libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0 as libc::c_uint)
            };
            if fd >= 0 {
                // SAFETY: the kernel just gave us this descriptor; we own it.
                return Ok(Handle::Pidfd(unsafe { OwnedFd::from_raw_fd(fd as i32) }));
            }
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::ESRCH) => return Err(ActError::Gone),
                // Kernel before 5.3 (or seccomp forbids it): fall back to kill(2).
                Some(libc::ENOSYS) | Some(libc::EPERM) => {}
                _ => return Err(ActError::Os(format!("pidfd_open: {e}"))),
            }
        }
        Ok(Handle::Plain {
            pid,
            start_time: info.start_time,
        })
    }

    /// Re-reads the process with the pin held (for a pidfd the PID cannot be recycled into the
    /// process the fd names, so a matching start time proves the fd names what we checked).
    pub(crate) fn inspect_pinned(&self, _h: &Handle, pid: u32) -> Result<ProcInfo, InspectError> {
        self.inspect(pid)
    }

    pub(crate) fn send(&self, h: &Handle, pid: u32, sig: Signal) -> Result<Sent, ActError> {
        let signo = match sig {
            Signal::Graceful => libc::SIGTERM,
            Signal::Continue => libc::SIGCONT,
            Signal::Forced => libc::SIGKILL,
            Signal::Fallback => {
                return Ok(Sent::NotApplicable(
                    "there is no fallback after SIGKILL".into(),
                ))
            }
        };
        let rc = match h {
            Handle::Pidfd(fd) => {
                // SAFETY: pidfd_send_signal(fd, sig, NULL, 0): a NULL siginfo behaves like kill(2).
                unsafe {
                    libc::syscall(
                        libc::SYS_pidfd_send_signal,
                        fd.as_raw_fd(),
                        signo,
                        std::ptr::null::<libc::siginfo_t>(),
                        0 as libc::c_uint,
                    )
                }
            }
            Handle::Plain { start_time, .. } => {
                // The race window the pidfd closes: re-check just before kill(2).
                match self.inspect(pid) {
                    Ok(now) if now.start_time == *start_time => {}
                    Ok(_) | Err(InspectError::NotFound) => return Err(ActError::Gone),
                    Err(InspectError::PermissionDenied(_)) => {
                        return Err(ActError::PermissionDenied)
                    }
                    Err(InspectError::Other(e)) => return Err(ActError::Os(e)),
                }
                // SAFETY: plain kill(2) on a positive PID (guard rails rejected 0 and > i32::MAX).
                unsafe { libc::kill(pid as libc::pid_t, signo) as libc::c_long }
            }
        };
        if rc == 0 {
            return Ok(Sent::Delivered(String::new()));
        }
        let e = io::Error::last_os_error();
        Err(match e.raw_os_error() {
            Some(libc::ESRCH) => ActError::Gone,
            Some(libc::EPERM) => ActError::PermissionDenied,
            _ => ActError::Os(format!("sending {}: {e}", sig.label())),
        })
    }

    pub(crate) fn wait_exit(
        &self,
        h: &Handle,
        _pid: u32,
        timeout: Duration,
    ) -> Result<bool, String> {
        let deadline = Instant::now() + timeout;
        match h {
            Handle::Pidfd(fd) => loop {
                let left = deadline.saturating_duration_since(Instant::now());
                let mut p = libc::pollfd {
                    fd: fd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                // Round up: poll's millisecond timeout must not end the grace period early.
                let ms = left.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as libc::c_int;
                // SAFETY: one valid pollfd.
                let n = unsafe { libc::poll(&mut p, 1, ms) };
                if n > 0 {
                    return Ok(true);
                }
                if n == 0 {
                    return Ok(false);
                }
                let e = io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EINTR) {
                    return Err(format!("poll on pidfd: {e}"));
                }
            },
            Handle::Plain { pid, start_time } => loop {
                if self.exited(*pid, *start_time) {
                    return Ok(true);
                }
                if Instant::now() >= deadline {
                    return Ok(false);
                }
                std::thread::sleep(Duration::from_millis(10));
            },
        }
    }

    /// Exited: gone from the table, replaced by another process, or a zombie.
    fn exited(&self, pid: u32, start_time: u64) -> bool {
        super::exited_by(self.inspect(pid), start_time)
    }

    pub(crate) fn observe_exit(
        &self,
        _h: &Handle,
        pid: u32,
        start_time: u64,
        reap_wait: Duration,
    ) -> Exit {
        // The pidfd is ready as soon as the process is a zombie; give a waiting parent a moment
        // to reap it before calling it a zombie.
        super::observe_exit_by(|p| self.inspect(p), pid, start_time, reap_wait)
    }

    pub(crate) fn survivor(&self, pid: u32, forced: &str) -> Survivor {
        let info = self.inspect(pid).ok();
        let state = info.as_ref().and_then(|i| i.state);
        let wchan = std::fs::read_to_string(self.root.join(pid.to_string()).join("wchan"))
            .ok()
            .map(|w| w.trim().to_string())
            .filter(|w| !w.is_empty() && w != "0");
        let mut remedies = Vec::new();
        let forced_arg = || vec![("signal", forced.into())];
        match state {
            Some('D') => {
                let place = wchan.as_ref().map_or_else(
                    || Said::verbatim(""),
                    |w| {
                        Said::new(
                            "report-kill-remedy-wchan",
                            vec![("wchan", w.as_str().into())],
                        )
                    },
                );
                let mut args = forced_arg();
                args.push(("where", place.into()));
                remedies.push(Said::new("report-kill-remedy-uninterruptible", args));
                remedies.push(Said::new("report-kill-remedy-reload", vec![]));
            }
            Some('t') => remedies.push(Said::new("report-kill-remedy-debugger", vec![])),
            _ => remedies.push(Said::new("report-kill-remedy-teardown", forced_arg())),
        }
        remedies.push(Said::new("report-kill-remedy-reboot", vec![]));
        Survivor {
            state: state.map(|c| format!("{c} ({})", describe_state(c))),
            wchan,
            remedies,
        }
    }
}

/// Our ancestors, nearest first, from the real `/proc` (they are real processes whatever root the
/// identity reads use).
pub(crate) fn ancestors(self_pid: u32) -> Vec<u32> {
    super::ancestors_by(self_pid, |pid| {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        parse_stat(&text).ok().map(|s| s.ppid)
    })
}

pub(crate) use super::{current_uid, current_user};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_has_a_name() {
        assert_eq!(super::super::unix_user_name(0).as_deref(), Some("root"));
    }

    #[test]
    fn ancestors_include_our_parent() {
        let me = std::process::id();
        let ppid = parse_stat(&std::fs::read_to_string("/proc/self/stat").unwrap())
            .unwrap()
            .ppid;
        let a = ancestors(me);
        assert_eq!(a.first(), Some(&ppid));
        assert!(!a.contains(&me));
    }
}
