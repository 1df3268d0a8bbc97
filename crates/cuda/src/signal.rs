//! Ctrl-C handling for the probe. The handler only sets a flag, in the signal handler itself, so
//! the sequence sees it at its next check and unwinds through its guards (freeing what it
//! allocated and destroying its context) instead of dying with pinned memory and a context
//! held. A second Ctrl-C gets the default behaviour (the process ends), in case clean-up hangs.
//!
//! Written here rather than with the `ctrlc` crate because that crate sets the user's flag from
//! a separate thread, later than the signal; setting it in the handler makes the interruption
//! point deterministic, which the tests rely on.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The flag the handler sets.
pub fn flag() -> &'static AtomicBool {
    &INTERRUPTED
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

#[cfg(unix)]
extern "C" fn on_signal(_sig: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Installs the handler for SIGINT and SIGTERM (Unix) or Ctrl-C / Ctrl-Break (Windows).
#[cfg(unix)]
pub fn install() -> std::io::Result<()> {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction is a valid starting point; the handler only stores to an
        // atomic, which is async-signal-safe. SA_RESETHAND restores the default after one hit.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESETHAND;
            libc::sigemptyset(&mut sa.sa_mask);
            if libc::sigaction(sig, &sa, std::ptr::null_mut()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

#[cfg(windows)]
unsafe extern "system" fn on_ctrl(kind: u32) -> windows_sys::Win32::Foundation::BOOL {
    use windows_sys::Win32::System::Console::{CTRL_BREAK_EVENT, CTRL_C_EVENT};
    if kind != CTRL_C_EVENT && kind != CTRL_BREAK_EVENT {
        return 0;
    }
    // The second press falls through to the default handler, which ends the process.
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        0
    } else {
        1
    }
}

#[cfg(windows)]
pub fn install() -> std::io::Result<()> {
    use windows_sys::Win32::System::Console::SetConsoleCtrlHandler;
    // SAFETY: registers a handler with the signature the API expects.
    if unsafe { SetConsoleCtrlHandler(Some(on_ctrl), 1) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(any(unix, windows)))]
pub fn install() -> std::io::Result<()> {
    Ok(())
}
