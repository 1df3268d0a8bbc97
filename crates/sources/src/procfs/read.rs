//! Reading one `/proc` file into a reused buffer: open + read + close, nothing else.
//!
//! std's `fs::read` asks for the file's size first (a `statx` per file: 3,500 of them in a
//! 500-process round) and allocates a new buffer each time; [`crate::regular::read_regular`]
//! adds a `stat` before the open and an `fstat` after it. Here the open itself is what keeps the
//! read safe on a recorded tree that holds something odd: `O_NONBLOCK` (a FIFO or terminal
//! returns at once instead of waiting), `O_NOCTTY`, and a read bounded by `max` whatever the
//! file reports (a `/dev/zero` swapped in costs at most `max` bytes, then an error).

use std::io;
#[cfg(unix)]
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;

use super::parse::{stat_from, Stat, MAX_STAT_BYTES};

/// How the end of a file is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Records {
    /// A file the kernel produces in one piece (`single_open` seq files: `stat`, `status`,
    /// `cgroup`, `fdinfo/N`; and `cmdline` and `environ`, whose reads loop until the buffer is
    /// full): a short read is the end, so no extra `read` returning 0 is needed (procps reads
    /// them the same way).
    One,
    /// A multi-record seq file (`maps`, `net/tcp`): a read can stop at a page boundary before
    /// the end, so read until 0.
    Many,
}

fn too_large(max: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("larger than the limit of {max} bytes"),
    )
}

/// Replace `buf`'s contents with the file at `path`, at most `max` bytes (a longer file is an
/// `InvalidData` error, and `buf` then holds its first `max + 1` bytes, for readers that use a
/// prefix). `buf` keeps its capacity between calls.
#[cfg(unix)]
pub fn read_into(path: &Path, buf: &mut Vec<u8>, max: usize, records: Records) -> io::Result<()> {
    buf.clear();
    // The descriptor is closed at the end of the statement.
    read_fd(open(path)?.as_raw_fd(), buf, max, records)
}

/// [`read_into`] for a single-record file, keeping the descriptor open so that a later round
/// can read the file again with [`reread_into`].
#[cfg(unix)]
pub fn read_keeping(path: &Path, buf: &mut Vec<u8>, max: usize) -> io::Result<OwnedFd> {
    buf.clear();
    let fd = open(path)?;
    read_fd(fd.as_raw_fd(), buf, max, Records::One)?;
    Ok(fd)
}

/// Read a single-record file again from its start through a descriptor kept open: one `pread`
/// where [`read_into`] costs open + read + close. A seq file made by the kernel (`stat`) is
/// produced afresh for a read at offset 0.
#[cfg(unix)]
pub fn reread_into(fd: &OwnedFd, buf: &mut Vec<u8>, max: usize) -> io::Result<()> {
    buf.clear();
    buf.reserve(max + 1);
    loop {
        // SAFETY: the buffer is writable for `max + 1` bytes; len is set to what was read.
        let n = unsafe { libc::pread(fd.as_raw_fd(), buf.as_mut_ptr().cast(), max + 1, 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        // SAFETY: the kernel wrote `n` bytes.
        unsafe { buf.set_len(n as usize) };
        return if n as usize > max {
            Err(too_large(max))
        } else {
            Ok(())
        };
    }
}

#[cfg(unix)]
fn open(path: &Path) -> io::Result<OwnedFd> {
    use std::os::fd::FromRawFd;
    use std::os::unix::ffi::OsStrExt;
    let mut c = [0u8; 512];
    let bytes = path.as_os_str().as_bytes();
    let owned;
    let cpath: &std::ffi::CStr = if bytes.len() < c.len() && !bytes.contains(&0) {
        c[..bytes.len()].copy_from_slice(bytes);
        // NUL-terminated in place: no allocation for the usual short path.
        std::ffi::CStr::from_bytes_until_nul(&c).map_err(|_| io::ErrorKind::InvalidInput)?
    } else {
        owned = std::ffi::CString::new(bytes)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))?;
        &owned
    };
    // SAFETY: a valid NUL-terminated path.
    let fd = unsafe {
        libc::open(
            cpath.as_ptr(),
            libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just opened, owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(unix)]
fn read_fd(fd: libc::c_int, buf: &mut Vec<u8>, max: usize, records: Records) -> io::Result<()> {
    loop {
        if buf.capacity() - buf.len() < 1024 {
            // One byte past `max` tells "exactly max" from "longer".
            let want = (buf.capacity() * 2).max(4096).min(max + 1);
            if want <= buf.len() {
                return Err(too_large(max));
            }
            buf.reserve_exact(want - buf.len());
        }
        let spare = (buf.capacity() - buf.len()).min(max + 1 - buf.len());
        // SAFETY: the spare capacity is writable for `spare` bytes; len is set to what was read.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().add(buf.len()).cast(), spare) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            if e.kind() == io::ErrorKind::WouldBlock {
                // A FIFO or terminal in a recorded tree: nothing to read now, and never waited for.
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "not a regular file: reading it would block",
                ));
            }
            return Err(e);
        }
        let n = n as usize;
        // SAFETY: the kernel wrote `n` bytes into the spare capacity.
        unsafe { buf.set_len(buf.len() + n) };
        if buf.len() > max {
            return Err(too_large(max));
        }
        if n == 0 || (records == Records::One && n < spare) {
            return Ok(());
        }
    }
}

#[cfg(not(unix))]
pub fn read_into(path: &Path, buf: &mut Vec<u8>, max: usize, _records: Records) -> io::Result<()> {
    use std::io::Read;
    buf.clear();
    std::fs::File::open(path)?
        .take(max as u64 + 1)
        .read_to_end(buf)?;
    if buf.len() > max {
        return Err(too_large(max));
    }
    Ok(())
}

/// Read and parse one stat file. A file that is there but cannot be parsed is an `InvalidData`
/// error whose message names the file and what is wrong, never "not found".
pub fn read_stat(path: &Path, buf: &mut Vec<u8>) -> io::Result<Stat> {
    read_into(path, buf, MAX_STAT_BYTES, Records::One)?;
    stat_from(path, buf)
}

/// `maps` and `net/tcp` are read this far (200,000 map lines are about 30 MB).
const MAX_TABLE_BYTES: usize = 32 << 20;

/// A multi-record table, its first [`MAX_TABLE_BYTES`] when longer (the parsers stop at a
/// bounded number of lines anyway).
pub(super) fn read_table(path: &Path, buf: &mut Vec<u8>) -> io::Result<()> {
    match read_into(path, buf, MAX_TABLE_BYTES, Records::Many) {
        Err(e) if e.kind() == io::ErrorKind::InvalidData => Ok(()),
        r => r,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn reads_whole_files_and_refuses_long_ones() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        let big: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
        std::fs::write(&p, &big).unwrap();
        let mut buf = Vec::new();
        for records in [Records::One, Records::Many] {
            read_into(&p, &mut buf, 10_000, records).unwrap();
            assert_eq!(buf, big);
        }
        let e = read_into(&p, &mut buf, 9_999, Records::Many).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("limit of 9999 bytes"), "{e}");
        let e = read_into(&d.path().join("gone"), &mut buf, 10, Records::One).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn devices_fifos_and_directories_neither_block_nor_grow() {
        let mut buf = Vec::new();
        // /dev/zero never ends: the read stops one byte past the limit.
        let e = read_into(Path::new("/dev/zero"), &mut buf, 1 << 16, Records::Many).unwrap_err();
        assert!(e.to_string().contains("limit"), "{e}");
        assert!(buf.capacity() <= (1 << 16) + 1);
        let d = tempfile::tempdir().unwrap();
        assert!(read_into(d.path(), &mut buf, 100, Records::One).is_err());
        let fifo = d.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // No writer: a blocking open would never return; this one reads nothing at once.
        let r = read_into(&fifo, &mut buf, 100, Records::One);
        assert!(r.is_err() || buf.is_empty(), "{r:?}");
    }
}
