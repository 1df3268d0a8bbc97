//! Walking `/proc` directories without allocating per entry: the pids of a procfs tree and the
//! link targets of a process's descriptors (`/proc/PID/fd`). Shared by the DRM descriptor index
//! and the round's reader of open files.

use std::io;
use std::ops::ControlFlow;
use std::path::Path;

#[cfg(unix)]
pub(crate) use sys::Root;

/// Calls `f(name, Some(target))` for each link in `dir` (a `/proc/PID/fd`), `None` for one that
/// vanished before its readlink, until `f` breaks: the links after that are not read at all (a
/// process with more descriptors than a reader keeps costs no `readlinkat` for the rest). On
/// Linux through `getdents64` and `readlinkat` as the index does.
pub fn each_link(
    dir: &Path,
    f: impl FnMut(&[u8], Option<&[u8]>) -> ControlFlow<()>,
) -> io::Result<()> {
    sys::each_link(dir, f)
}

/// Numeric entries of a directory, sorted.
pub fn numeric_entries(dir: &Path) -> io::Result<Vec<u32>> {
    let mut v = Vec::with_capacity(512);
    sys::each_entry(dir, |name| {
        if let Some(n) = parse_u32(name) {
            v.push(n);
        }
    })?;
    v.sort_unstable();
    Ok(v)
}

/// A decimal file name (a pid, a descriptor number) without allocating; `None` for anything else.
pub(crate) fn parse_u32(name: &[u8]) -> Option<u32> {
    if name.is_empty() || name.len() > 10 || !name.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(name).ok()?.parse().ok()
}

/// Directory walking. On Unix: `opendir`/`readdir` and `readlinkat` relative to the directory,
/// with no allocation per entry and no path walk per link. This is the hot loop of the index
/// rebuild (20,000 links in the benchmark); std's `read_dir` + `read_link` cost about twice as
/// much.
#[cfg(unix)]
mod sys {
    use std::ffi::{CStr, CString};
    use std::io;
    use std::ops::ControlFlow;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    /// PATH_MAX: a long link target (an open model file deep in a cache) is read whole.
    const LINK_MAX: usize = 4096;

    struct Dir(*mut libc::DIR);
    impl Drop for Dir {
        fn drop(&mut self) {
            // SAFETY: opened by opendir, closed once.
            unsafe { libc::closedir(self.0) };
        }
    }

    fn open(dir: &Path) -> io::Result<Dir> {
        let c = CString::new(dir.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))?;
        // SAFETY: valid NUL-terminated path.
        let d = unsafe { libc::opendir(c.as_ptr()) };
        if d.is_null() {
            return Err(io::Error::last_os_error());
        }
        Ok(Dir(d))
    }

    fn each(d: &Dir, mut f: impl FnMut(&CStr)) {
        loop {
            // SAFETY: `d` is an open DIR; the entry is valid until the next readdir.
            let ent = unsafe { libc::readdir(d.0) };
            if ent.is_null() {
                break;
            }
            // SAFETY: d_name is NUL-terminated.
            let name = unsafe { CStr::from_ptr((*ent).d_name.as_ptr()) };
            f(name);
        }
    }

    pub fn each_entry(dir: &Path, mut f: impl FnMut(&[u8])) -> io::Result<()> {
        let d = open(dir)?;
        each(&d, |n| f(n.to_bytes()));
        Ok(())
    }

    /// An open directory that other paths are resolved against.
    pub struct Root(libc::c_int);
    impl Drop for Root {
        fn drop(&mut self) {
            // SAFETY: opened by `Root::open`, closed once.
            unsafe { libc::close(self.0) };
        }
    }
    impl Root {
        pub fn open(dir: &Path) -> io::Result<Root> {
            let c = CString::new(dir.as_os_str().as_bytes())
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))?;
            // SAFETY: valid NUL-terminated path.
            let fd = unsafe {
                libc::open(
                    c.as_ptr(),
                    libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
                )
            };
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(Root(fd))
        }

        /// [`each_link`] for this directory itself.
        #[cfg(target_os = "linux")]
        fn links(&self, f: impl FnMut(&[u8], Option<&[u8]>) -> ControlFlow<()>) -> io::Result<()> {
            links_getdents(self.0, f)
        }

        /// [`each_link`] for `rel` (NUL-terminated, relative to this root).
        pub fn each_link(
            &self,
            rel: &[u8],
            f: impl FnMut(&[u8], Option<&[u8]>) -> ControlFlow<()>,
        ) -> io::Result<()> {
            let rel = CStr::from_bytes_with_nul(rel)
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "bad relative path"))?;
            // SAFETY: self.0 is an open directory, rel NUL-terminated.
            let fd = unsafe {
                libc::openat(
                    self.0,
                    rel.as_ptr(),
                    libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
                )
            };
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            #[cfg(target_os = "linux")]
            return Root(fd).links(f);
            #[cfg(not(target_os = "linux"))]
            {
                // SAFETY: fd is an open directory; fdopendir takes ownership of it.
                let d = unsafe { libc::fdopendir(fd) };
                if d.is_null() {
                    let e = io::Error::last_os_error();
                    // SAFETY: fdopendir failed, so fd is still ours to close.
                    unsafe { libc::close(fd) };
                    return Err(e);
                }
                links(Dir(d), f)
            }
        }
    }

    /// `getdents64` straight into a stack buffer: no `fstat`/`fcntl`/buffer allocation per
    /// directory as `fdopendir` does, and names are passed to `readlinkat` in place.
    #[cfg(target_os = "linux")]
    fn links_getdents(
        dfd: libc::c_int,
        mut f: impl FnMut(&[u8], Option<&[u8]>) -> ControlFlow<()>,
    ) -> io::Result<()> {
        // linux_dirent64: d_ino u64, d_off i64, d_reclen u16, d_type u8, d_name NUL-terminated.
        const NAME: usize = 19;
        // 8 KiB, 8-byte aligned as the kernel writes it.
        let mut dents = [0u64; 1024];
        let mut link = [0u8; LINK_MAX];
        loop {
            // SAFETY: dfd is an open directory; the buffer is writable for its byte length.
            let n = unsafe {
                libc::syscall(
                    libc::SYS_getdents64,
                    dfd,
                    dents.as_mut_ptr(),
                    std::mem::size_of_val(&dents),
                )
            };
            if n < 0 {
                return Err(io::Error::last_os_error());
            }
            if n == 0 {
                return Ok(());
            }
            // SAFETY: viewing the u64 buffer as bytes; `n` bytes were written by the kernel.
            let bytes =
                unsafe { std::slice::from_raw_parts(dents.as_ptr().cast::<u8>(), n as usize) };
            let mut off = 0usize;
            while off + NAME < bytes.len() {
                let reclen = u16::from_ne_bytes([bytes[off + 16], bytes[off + 17]]) as usize;
                if reclen == 0 || off + reclen > bytes.len() {
                    break;
                }
                let rec = &bytes[off + NAME..off + reclen];
                off += reclen;
                let Some(len) = rec.iter().position(|&b| b == 0) else {
                    continue;
                };
                let name = &rec[..len];
                if name.first() == Some(&b'.') {
                    continue;
                }
                // SAFETY: name is NUL-terminated inside `rec`; link is writable for its length.
                let r = unsafe {
                    libc::readlinkat(
                        dfd,
                        rec.as_ptr().cast(),
                        link.as_mut_ptr().cast(),
                        link.len(),
                    )
                };
                if f(name, (r >= 0).then(|| &link[..r as usize])).is_break() {
                    return Ok(());
                }
            }
        }
    }

    /// Calls `f(name, Some(target))` per symlink, `None` when it vanished before readlink, until
    /// `f` breaks.
    pub fn each_link(
        dir: &Path,
        f: impl FnMut(&[u8], Option<&[u8]>) -> ControlFlow<()>,
    ) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        return Root::open(dir)?.links(f);
        #[cfg(not(target_os = "linux"))]
        links(open(dir)?, f)
    }

    #[cfg(not(target_os = "linux"))]
    fn links(d: Dir, mut f: impl FnMut(&[u8], Option<&[u8]>) -> ControlFlow<()>) -> io::Result<()> {
        // SAFETY: `d` is open.
        let dfd = unsafe { libc::dirfd(d.0) };
        let mut buf = [0u8; LINK_MAX];
        let mut stopped = false;
        each(&d, |name| {
            let b = name.to_bytes();
            if stopped || b.first() == Some(&b'.') {
                return;
            }
            // SAFETY: dfd is open, name NUL-terminated, buf writable for its length.
            let n =
                unsafe { libc::readlinkat(dfd, name.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
            let target = (n >= 0).then(|| &buf[..n as usize]);
            stopped = f(b, target).is_break();
        });
        Ok(())
    }
}

#[cfg(not(unix))]
mod sys {
    use std::io;
    use std::ops::ControlFlow;
    use std::path::Path;

    pub fn each_entry(dir: &Path, mut f: impl FnMut(&[u8])) -> io::Result<()> {
        for e in std::fs::read_dir(dir)?.flatten() {
            f(e.file_name().to_string_lossy().as_bytes());
        }
        Ok(())
    }

    pub fn each_link(
        dir: &Path,
        mut f: impl FnMut(&[u8], Option<&[u8]>) -> ControlFlow<()>,
    ) -> io::Result<()> {
        for e in std::fs::read_dir(dir)?.flatten() {
            let t = std::fs::read_link(e.path()).ok();
            let t = t.as_ref().map(|t| t.to_string_lossy().into_owned());
            let flow = f(
                e.file_name().to_string_lossy().as_bytes(),
                t.as_deref().map(str::as_bytes),
            );
            if flow.is_break() {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn pid_names_parse_without_allocating() {
        assert_eq!(parse_u32(b"4242"), Some(4242));
        assert_eq!(parse_u32(b"4294967295"), Some(u32::MAX));
        for bad in [&b""[..], b"self", b"12a", b"4294967296", b"00000000001"] {
            assert_eq!(parse_u32(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn a_walk_that_breaks_reads_no_further() {
        let t = tempfile::tempdir().unwrap();
        for fd in 0..5 {
            symlink("/dev/null", t.path().join(fd.to_string())).unwrap();
        }
        let mut all = 0;
        each_link(t.path(), |_, target| {
            assert_eq!(target, Some(&b"/dev/null"[..]));
            all += 1;
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(all, 5);
        let mut seen = 0;
        each_link(t.path(), |_, _| {
            seen += 1;
            if seen < 2 {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            }
        })
        .unwrap();
        assert_eq!(seen, 2);
    }
}
