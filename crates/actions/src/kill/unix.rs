//! What Linux and macOS share: our UID and user name, the ancestors walk, and the exit checks
//! (while waiting, and after a pin is ready).

use super::{Exit, InspectError, ProcInfo};

/// Our effective UID.
pub(crate) fn current_uid() -> Option<u32> {
    // SAFETY: geteuid cannot fail.
    Some(unsafe { libc::geteuid() })
}

/// `alice (uid 1000)`, for permission messages.
pub(crate) fn current_user() -> String {
    let uid = current_uid().unwrap_or(u32::MAX);
    match unix_user_name(uid) {
        Some(n) => format!("{n} (uid {uid})"),
        None => format!("uid {uid}"),
    }
}

/// Our parent, its parent, ... up to PID 1 (bounded, and safe against a cycle in odd data).
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

/// After the pidfd (or kill(2)) says the process ended: gone, or a zombie its parent has not reaped
/// within `reap_wait` (checked by pid and start time, so a reused pid is "gone").
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

/// Exited, from a read of its PID now: gone from the table, replaced by another process, or a
/// zombie. An unreadable process is not called exited.
pub(crate) fn exited_by(now: Result<ProcInfo, InspectError>, start_time: u64) -> bool {
    match now {
        Ok(now) => now.start_time != start_time || now.state == Some('Z'),
        Err(InspectError::NotFound) => true,
        Err(_) => false,
    }
}
