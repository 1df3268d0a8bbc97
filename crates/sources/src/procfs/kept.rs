//! `/proc/<pid>/stat` descriptors kept open between rounds, so that a live view or a recorder
//! reads each GPU process's `stat` with one `pread` per round instead of open + read + close.
//!
//! Only on a live procfs: a descriptor there belongs to the process it was opened for, so once
//! that process is gone (its pid perhaps reused) the read fails and the file is opened afresh by
//! path, giving the same answer as before. A recorded tree's files can be replaced under their
//! names, so there every round opens by path.

use super::Stat;
use std::io;
use std::path::Path;

/// At most this many descriptors, and at most a quarter of the descriptor limit.
#[cfg(unix)]
const MAX_KEPT: usize = 4096;

/// Nothing is kept on other platforms (no procfs): there it is empty.
#[derive(Default)]
pub(super) struct KeptStats {
    /// 0: keep none (a recorded tree, a helper thread's round).
    #[cfg(unix)]
    limit: usize,
    /// pid → (open `stat`, the round that last read it).
    #[cfg(unix)]
    fds: std::collections::HashMap<u32, (std::os::fd::OwnedFd, u64)>,
}

impl KeptStats {
    /// Keeping for `root` when it is a live procfs (Linux), none otherwise.
    pub fn for_root(root: &Path) -> KeptStats {
        #[cfg(unix)]
        return KeptStats {
            limit: if is_procfs(root) { limit() } else { 0 },
            fds: Default::default(),
        };
        #[cfg(not(unix))]
        {
            let _ = root;
            KeptStats {}
        }
    }

    /// `pid`'s `stat` read again through its kept descriptor; `None` when there is none or the
    /// read failed (the descriptor is then dropped and the caller opens the file by path).
    pub fn reread(
        &mut self,
        pid: u32,
        round: u64,
        path: &Path,
        buf: &mut Vec<u8>,
    ) -> Option<io::Result<Stat>> {
        #[cfg(unix)]
        {
            let (fd, used) = self.fds.get_mut(&pid)?;
            if super::read::reread_into(fd, buf, super::MAX_STAT_BYTES).is_err() {
                self.fds.remove(&pid);
                return None;
            }
            *used = round;
            Some(super::stat_from(path, buf))
        }
        #[cfg(not(unix))]
        {
            let _ = (pid, round, path, buf);
            None
        }
    }

    /// `pid`'s `stat` read by path, its descriptor kept when there is room.
    pub fn read(
        &mut self,
        pid: u32,
        round: u64,
        path: &Path,
        buf: &mut Vec<u8>,
    ) -> io::Result<Stat> {
        #[cfg(unix)]
        if self.fds.len() < self.limit {
            let fd = super::read::read_keeping(path, buf, super::MAX_STAT_BYTES)?;
            let st = super::stat_from(path, buf)?;
            self.fds.insert(pid, (fd, round));
            return Ok(st);
        }
        let _ = (pid, round);
        super::read_stat(path, buf)
    }

    #[cfg(all(test, target_os = "linux"))]
    pub fn len(&self) -> usize {
        self.fds.len()
    }

    /// Close the descriptors of processes `round` did not read: gone, or no longer asked about.
    pub fn retain_round(&mut self, round: u64) {
        #[cfg(unix)]
        self.fds.retain(|_, (_, used)| *used == round);
        #[cfg(not(unix))]
        let _ = round;
    }
}

#[cfg(target_os = "linux")]
fn is_procfs(root: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    const PROC_SUPER_MAGIC: u64 = 0x9fa0;
    let Ok(c) = std::ffi::CString::new(root.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: statfs fills the struct we pass; the path is NUL-terminated.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    (unsafe { libc::statfs(c.as_ptr(), &mut fs) }) == 0 && fs.f_type as u64 == PROC_SUPER_MAGIC
}

#[cfg(all(unix, not(target_os = "linux")))]
fn is_procfs(_root: &Path) -> bool {
    false
}

/// A quarter of the soft descriptor limit, at most [`MAX_KEPT`]: the rest stays for the others.
#[cfg(unix)]
fn limit() -> usize {
    // SAFETY: getrlimit fills the struct we pass.
    let mut rl: libc::rlimit = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } != 0 {
        return 0;
    }
    usize::try_from(rl.rlim_cur / 4).map_or(MAX_KEPT, |n| n.min(MAX_KEPT))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::super::ProcReader;
    use std::path::Path;

    #[test]
    fn a_kept_stat_follows_its_process_and_a_gone_one_reads_as_before() {
        if !super::is_procfs(Path::new("/proc")) || super::limit() == 0 {
            return;
        }
        let mut child = std::process::Command::new("sleep")
            .arg("100")
            .spawn()
            .unwrap();
        let pid = child.id();
        let r = ProcReader::new(Path::new("/proc"));
        for _ in 0..3 {
            r.begin_round();
            let st = r.stat(pid).unwrap();
            assert_eq!(st.comm, "sleep");
            r.end_round();
            assert_eq!(r.with_round(|r| r.kept_count()), 1);
        }
        let _ = child.kill();
        let _ = child.wait();
        r.begin_round();
        let e = r.stat(pid).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound, "{e}");
        r.end_round();
        assert_eq!(r.with_round(|r| r.kept_count()), 0);
    }

    #[test]
    fn a_recorded_tree_keeps_nothing() {
        let d = tempfile::tempdir().unwrap();
        assert!(!super::is_procfs(d.path()));
        assert_eq!(super::KeptStats::for_root(d.path()).limit, 0);
    }
}
