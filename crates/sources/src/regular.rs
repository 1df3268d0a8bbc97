//! Opening files that someone else named: a model path on a process's command line, a replay
//! file, a log. Such a path can be a FIFO (opening it blocks until a writer appears), a character
//! device (`/dev/zero` never ends and reports a length of 0) or a directory. Only regular files are
//! opened, without ever blocking, and reads are bounded whatever length the file reports.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

fn not_regular(ft: &std::fs::FileType) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "not a regular file: it is {}",
            gpuledger_model::files::file_kind(ft)
        ),
    )
}

/// Open `path` for reading only if it is a regular file (symlinks followed), never blocking: the
/// type is checked before opening, the open is non-blocking (a FIFO swapped in meanwhile opens at
/// once instead of waiting for a writer) and the type is checked again on the open descriptor.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let md = std::fs::metadata(path)?;
    if !md.is_file() {
        return Err(not_regular(&md.file_type()));
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NOCTTY: a terminal swapped in must not become our controlling terminal.
        opts.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let f = opts.open(path)?;
    let md = f.metadata()?;
    if !md.is_file() {
        return Err(not_regular(&md.file_type()));
    }
    Ok(f)
}

/// The whole of a regular file of at most `max` bytes. At most `max + 1` bytes are read, so a file
/// that grows (or lies about its length) cannot make this allocate more.
pub fn read_regular(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let f = open_regular(path)?;
    let reported = f.metadata().map(|m| m.len()).unwrap_or(0);
    if reported > max {
        return Err(too_large(max));
    }
    let mut bytes = Vec::with_capacity(reported as usize);
    f.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large(max));
    }
    Ok(bytes)
}

/// Like [`read_regular`], but a file longer than `max` is cut at `max` bytes instead of refused
/// (logs, where the lines that matter come first).
pub fn read_regular_prefix(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let f = open_regular(path)?;
    let mut bytes = Vec::new();
    f.take(max).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The payload of [`read_regular`]'s refusal of a file over its limit, so that callers can tell
/// it from an I/O error ([`is_too_large`]).
#[derive(Debug)]
struct TooLarge(u64);

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "larger than the limit of {} bytes", self.0)
    }
}

impl std::error::Error for TooLarge {}

fn too_large(max: u64) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, TooLarge(max))
}

/// Whether `e` is [`read_regular`]'s refusal of a file over its limit.
pub fn is_too_large(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<TooLarge>())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn mkfifo(p: &Path) {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[test]
    fn fifo_is_refused_without_blocking() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("m.gguf");
        mkfifo(&p);
        // No writer exists: a blocking open would never return.
        let e = open_regular(&p).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        assert!(read_regular(&p, 10).is_err());
    }

    #[test]
    fn devices_and_directories_are_refused() {
        let e = read_regular(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        let d = tempfile::tempdir().unwrap();
        let e = open_regular(d.path()).unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
    }

    #[test]
    fn reads_are_bounded() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, b"0123456789").unwrap();
        assert_eq!(read_regular(&p, 10).unwrap(), b"0123456789");
        let e = read_regular(&p, 9).unwrap_err();
        assert!(e.to_string().contains("limit of 9 bytes"), "{e}");
        assert!(is_too_large(&e));
        assert!(!is_too_large(
            &read_regular(&d.path().join("none"), 9).unwrap_err()
        ));
        assert_eq!(read_regular_prefix(&p, 4).unwrap(), b"0123");
    }
}
