//! macOS: no pidfd, so the identity is the start time from `proc_pidinfo(PROC_PIDTBSDINFO)`,
//! re-checked immediately before every kill(2) (a small race window remains; the kernel offers
//! nothing that closes it). Compiled in CI for aarch64-apple-darwin; never run here.

use super::{ActError, Exit, InspectError, ProcInfo, Sent, Signal, Survivor};
use gpuledger_lang::Said;
use std::io;
use std::time::{Duration, Instant};

pub(crate) struct Sys;

pub(crate) struct Handle {
    start_time: u64,
}

// sys/proc.h process states (`pbi_status`).
const SSTOP: u32 = 4;
const SZOMB: u32 = 5;

fn bsdinfo(pid: u32) -> Result<libc::proc_bsdinfo, InspectError> {
    // SAFETY: proc_bsdinfo is plain data.
    let mut info: libc::proc_bsdinfo = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::proc_bsdinfo>() as libc::c_int;
    // SAFETY: the buffer is `size` bytes.
    let n = unsafe {
        libc::proc_pidinfo(
            pid as libc::c_int,
            libc::PROC_PIDTBSDINFO,
            0,
            (&mut info as *mut libc::proc_bsdinfo).cast(),
            size,
        )
    };
    if n == size {
        return Ok(info);
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ESRCH) | Some(0) | None => Err(InspectError::NotFound),
        Some(libc::EPERM) => Err(InspectError::PermissionDenied(
            "macOS does not let gpuledger read this process (another user's, or protected)".into(),
        )),
        _ => Err(InspectError::Other(format!("proc_pidinfo: {e}"))),
    }
}

fn c_name(bytes: &[libc::c_char]) -> String {
    let b: Vec<u8> = bytes
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&b).into_owned()
}

impl Sys {
    pub(crate) fn new() -> Self {
        Sys
    }

    pub(crate) fn inspect(&self, pid: u32) -> Result<ProcInfo, InspectError> {
        let i = bsdinfo(pid)?;
        let name = c_name(&i.pbi_name);
        let name = if name.is_empty() {
            c_name(&i.pbi_comm)
        } else {
            name
        };
        let state = match i.pbi_status {
            SZOMB => 'Z',
            SSTOP => 'T',
            1 => 'I',
            2 => 'R',
            _ => 'S',
        };
        Ok(ProcInfo {
            pid,
            name,
            exe_name: None,
            start_time: i
                .pbi_start_tvsec
                .saturating_mul(1_000_000)
                .saturating_add(i.pbi_start_tvusec),
            state: Some(state),
            ppid: Some(i.pbi_ppid),
            uid: Some(i.pbi_uid),
            user: super::unix_user_name(i.pbi_uid),
            // kernel_task is PID 0, already refused; launchd is PID 1.
            kernel_thread: false,
            critical: false,
            thread_of: None,
        })
    }

    pub(crate) fn open(&self, _pid: u32, info: &ProcInfo) -> Result<Handle, ActError> {
        Ok(Handle {
            start_time: info.start_time,
        })
    }

    pub(crate) fn inspect_pinned(&self, _h: &Handle, pid: u32) -> Result<ProcInfo, InspectError> {
        self.inspect(pid)
    }

    pub(crate) fn send(&self, h: &Handle, pid: u32, sig: Signal) -> Result<Sent, ActError> {
        match self.inspect(pid) {
            Ok(now) if now.start_time == h.start_time => {}
            Ok(_) | Err(InspectError::NotFound) => return Err(ActError::Gone),
            Err(InspectError::PermissionDenied(_)) => return Err(ActError::PermissionDenied),
            Err(InspectError::Other(e)) => return Err(ActError::Os(e)),
        }
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
        // SAFETY: kill(2) on a positive PID.
        if unsafe { libc::kill(pid as libc::pid_t, signo) } == 0 {
            return Ok(Sent::Delivered(String::new()));
        }
        let e = io::Error::last_os_error();
        Err(match e.raw_os_error() {
            Some(libc::ESRCH) => ActError::Gone,
            Some(libc::EPERM) => ActError::PermissionDenied,
            _ => ActError::Os(format!("sending {}: {e}", sig.label())),
        })
    }

    fn exited(&self, pid: u32, start_time: u64) -> bool {
        super::exited_by(self.inspect(pid), start_time)
    }

    pub(crate) fn wait_exit(
        &self,
        h: &Handle,
        pid: u32,
        timeout: Duration,
    ) -> Result<bool, String> {
        let deadline = Instant::now() + timeout;
        loop {
            if self.exited(pid, h.start_time) {
                return Ok(true);
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub(crate) fn observe_exit(
        &self,
        _h: &Handle,
        pid: u32,
        start_time: u64,
        reap_wait: Duration,
    ) -> Exit {
        super::observe_exit_by(|p| self.inspect(p), pid, start_time, reap_wait)
    }

    pub(crate) fn survivor(&self, pid: u32, forced: &str) -> Survivor {
        let state = self.inspect(pid).ok().and_then(|i| i.state);
        Survivor {
            state: state.map(|c| c.to_string()),
            wchan: None,
            remedies: vec![
                Said::new(
                    "report-kill-remedy-mac-blocked",
                    vec![("signal", forced.into())],
                ),
                Said::new("report-kill-remedy-mac-restart", vec![]),
            ],
        }
    }
}

pub(crate) fn ancestors(self_pid: u32) -> Vec<u32> {
    super::ancestors_by(self_pid, |pid| bsdinfo(pid).ok().map(|i| i.pbi_ppid))
}

pub(crate) use super::{current_uid, current_user};
