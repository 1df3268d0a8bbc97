//! macOS: `sysctl {CTL_KERN, KERN_PROCARGS2, pid}`, the top of the process's stack as the kernel
//! keeps it (arguments, then the environment it started with); parsed by
//! [`super::procargs2_environment`].

use super::{procargs2_environment, redacted_lines, with_cut_note, MAX_BYTES};

pub(super) fn read_environ(pid: u32) -> Result<Vec<String>, String> {
    // The size first (no buffer): the argument area's length plus argc. Bounded: the kernel
    // copies only what fits, and the parser keeps the complete strings.
    let needed = procargs2(pid, None)?;
    let len = needed.min(MAX_BYTES + 4);
    let mut buf = vec![0u8; len];
    let len = procargs2(pid, Some(&mut buf))?;
    buf.truncate(len);
    let entries = procargs2_environment(&buf).map_err(|e| format!("PID {pid}: {e}"))?;
    Ok(with_cut_note(
        redacted_lines(entries),
        needed > MAX_BYTES + 4,
    ))
}

/// `sysctl {CTL_KERN, KERN_PROCARGS2, pid}` into `buf` (or, without one, the size it needs):
/// the bytes written (or needed).
fn procargs2(pid: u32, buf: Option<&mut [u8]>) -> Result<usize, String> {
    let Ok(pid_c) = libc::c_int::try_from(pid) else {
        return Err(format!("PID {pid} is out of range"));
    };
    let mut mib = [libc::CTL_KERN, libc::KERN_PROCARGS2, pid_c];
    let (ptr, mut len) = match buf {
        Some(b) => (b.as_mut_ptr().cast::<libc::c_void>(), b.len()),
        None => (std::ptr::null_mut(), 0),
    };
    // SAFETY: `ptr` is null (a size query) or holds `len` bytes; the kernel writes at most `len`
    // and updates it. `mib` and `len` outlive the call.
    let rc = unsafe {
        libc::sysctl(
            mib.as_mut_ptr(),
            mib.len() as libc::c_uint,
            ptr,
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 {
        return Err(sysctl_error(pid, std::io::Error::last_os_error()));
    }
    Ok(len)
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
