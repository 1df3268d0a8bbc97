//! macOS: `sysctl {CTL_KERN, KERN_PROCARGS2, pid}`, the top of the process's stack as the kernel
//! keeps it (arguments, then the environment it started with); parsed by
//! [`super::procargs2_environment`].

use super::{procargs2_environment, redacted_lines, MAX_BYTES};

pub(super) fn read_environ(pid: u32) -> Result<Vec<String>, String> {
    let Ok(pid_c) = libc::c_int::try_from(pid) else {
        return Err(format!("PID {pid} is out of range"));
    };
    let mut mib = [libc::CTL_KERN, libc::KERN_PROCARGS2, pid_c];
    // The size first (no buffer): the argument area's length plus argc.
    let mut len: libc::size_t = 0;
    // SAFETY: a size query; `mib` and `len` outlive the call.
    let rc = unsafe {
        libc::sysctl(
            mib.as_mut_ptr(),
            mib.len() as libc::c_uint,
            std::ptr::null_mut(),
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 {
        return Err(sysctl_error(pid, std::io::Error::last_os_error()));
    }
    // Bounded: the kernel copies only what fits, and the parser keeps the complete strings.
    let mut len = len.min(MAX_BYTES + 4);
    let mut buf = vec![0u8; len];
    // SAFETY: `buf` holds `len` bytes; the kernel writes at most that and updates `len`.
    let rc = unsafe {
        libc::sysctl(
            mib.as_mut_ptr(),
            mib.len() as libc::c_uint,
            buf.as_mut_ptr().cast(),
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 {
        return Err(sysctl_error(pid, std::io::Error::last_os_error()));
    }
    buf.truncate(len);
    let entries = procargs2_environment(&buf).map_err(|e| format!("PID {pid}: {e}"))?;
    Ok(redacted_lines(entries))
}

/// The kernel answers EINVAL (not EPERM) for another user's process, and for one that exited.
fn sysctl_error(pid: u32, e: std::io::Error) -> String {
    let why = match e.raw_os_error() {
        Some(libc::EINVAL) => " (another user's process, or it has exited)",
        Some(libc::EPERM) | Some(libc::EACCES) => " (permission denied: another user's process)",
        Some(libc::ESRCH) => " (no such process)",
        _ => "",
    };
    format!("sysctl KERN_PROCARGS2 for PID {pid}: {e}{why}")
}
