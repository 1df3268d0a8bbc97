//! Connecting to a unix socket within a deadline. `UnixStream::connect` blocks without limit
//! when the listener's backlog is full (a kubelet that stopped accepting), so the socket is
//! made non-blocking, `connect` retried or polled until the deadline, then made blocking again
//! for the caller (which bounds every read and write by the time left).

use super::grpc_error::CallError;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

pub fn connect(path: &Path, deadline: Instant) -> Result<UnixStream, CallError> {
    let shown = path.display();
    let bytes = path.as_os_str().as_bytes();
    // SAFETY: zeroed sockaddr_un is a valid value; the path is copied in bounds below.
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    if bytes.len() >= addr.sun_path.len() || bytes.contains(&0) {
        return Err(CallError::Connect(format!(
            "{shown}: not usable as a unix socket path (too long or contains NUL)"
        )));
    }
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    for (d, s) in addr.sun_path.iter_mut().zip(bytes) {
        *d = *s as libc::c_char;
    }
    let len = (std::mem::size_of::<libc::sa_family_t>() + bytes.len() + 1) as libc::socklen_t;
    // SAFETY: plain socket(2); the descriptor is owned right away.
    let fd = unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) };
    if fd < 0 {
        return Err(CallError::Connect(format!(
            "{shown}: socket(): {}",
            io::Error::last_os_error()
        )));
    }
    // SAFETY: fd is a fresh descriptor nobody else owns.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    set_nonblocking(fd, true).map_err(|e| CallError::Connect(format!("{shown}: {e}")))?;
    loop {
        // SAFETY: addr is a valid sockaddr_un of `len` bytes.
        let rc = unsafe { libc::connect(fd, &addr as *const _ as *const libc::sockaddr, len) };
        if rc == 0 {
            break;
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            // The backlog is full: try again until the deadline.
            Some(libc::EAGAIN) => {
                if Instant::now() >= deadline {
                    return Err(timeout(deadline));
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Some(libc::EINPROGRESS) => {
                wait_writable(fd, deadline)?;
                break;
            }
            _ => return Err(connect_error(path, e)),
        }
    }
    set_nonblocking(fd, false).map_err(|e| CallError::Connect(format!("{shown}: {e}")))?;
    Ok(UnixStream::from(owned))
}

fn timeout(deadline: Instant) -> CallError {
    CallError::Timeout {
        stage: "connecting (the listener's backlog is full)",
        after: deadline.saturating_duration_since(Instant::now()),
    }
}

fn wait_writable(fd: i32, deadline: Instant) -> Result<(), CallError> {
    let left = deadline.saturating_duration_since(Instant::now());
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    let rc = unsafe { libc::poll(&mut p, 1, left.as_millis().min(60_000) as i32) };
    if rc == 0 {
        return Err(timeout(deadline));
    }
    let mut err: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: err and len are valid for getsockopt(SO_ERROR).
    unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_ERROR,
            &mut err as *mut _ as *mut libc::c_void,
            &mut len,
        )
    };
    if rc < 0 || err != 0 {
        return Err(CallError::Connect(format!(
            "connect: {}",
            io::Error::from_raw_os_error(if err != 0 { err } else { libc::EIO })
        )));
    }
    Ok(())
}

fn set_nonblocking(fd: i32, on: bool) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    let flags = if on {
        flags | libc::O_NONBLOCK
    } else {
        flags & !libc::O_NONBLOCK
    };
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Which failure it was: the three a user can act on (absent, refused: nothing listens,
/// denied: needs root) by kind, any other in the OS's words with the path.
fn connect_error(path: &Path, e: io::Error) -> CallError {
    let shown = path.display();
    match e.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::ENOTDIR) => CallError::Absent,
        Some(libc::ECONNREFUSED) => CallError::Refused,
        Some(libc::EACCES) | Some(libc::EPERM) => CallError::Denied,
        _ => CallError::Connect(format!("{shown}: {e}")),
    }
}
