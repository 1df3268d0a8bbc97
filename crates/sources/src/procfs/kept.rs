//! `/proc/<pid>/stat` descriptors kept open between rounds, and the processes watched for their
//! exit, so that a live view or a recorder does not read every GPU process's `stat` every round.
//!
//! Only on a live procfs: a descriptor there belongs to the process it was opened for, so once
//! that process is gone (its pid perhaps reused) the read fails and the file is opened afresh by
//! path, giving the same answer as before. A recorded tree's files can be replaced under their
//! names, so there every round opens by path.
//!
//! A process read through its kept descriptor is then watched (Linux ≥ 5.3): a pidfd opened
//! *before* that read, so it is the same process, in one epoll set. A round asks the set once
//! (one `epoll_wait`, whatever the number of processes) which watched processes exited; the
//! others keep their reading until it is [`STAT_REFRESH`] old. What a reading says that does not
//! change while the process lives (start time, so its identity) is then exact; what does change
//! (name, parent, state) is at most that old; its CPU times and RSS are not current, which is why
//! the live view's columns ask for a fresh reading ([`KeptStats::fresh`]) of the rows it shows.

use super::parse::Stat;
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

/// At most this many descriptors, and at most a quarter of the descriptor limit.
#[cfg(unix)]
const MAX_KEPT: usize = 4096;

/// A watched process's reading is read again after at most this long (spread over the second
/// half by pid, so that processes started together are not all read in the same round).
pub const STAT_REFRESH: Duration = Duration::from_secs(30);

/// How long something read of `pid` is kept when it is re-read every `period`: between half of
/// `period` and all of it, by pid, so that hundreds of processes first seen in the same round
/// (every one, when a view starts) are not all read again in one later round.
pub fn staggered(pid: u32, period: Duration) -> Duration {
    let half = period / 2;
    let spread = (half.as_millis() as u64).max(1);
    half + Duration::from_millis(u64::from(pid).wrapping_mul(2_654_435_761) % spread)
}

/// Nothing is kept on other platforms (no procfs): there it is empty.
#[derive(Default)]
pub(super) struct KeptStats {
    /// Descriptors allowed (a watched process holds two); 0: keep none (a recorded tree, a
    /// helper thread's round).
    #[cfg(unix)]
    limit: usize,
    #[cfg(unix)]
    fds: std::collections::HashMap<u32, Kept>,
    /// Descriptors held by `fds` (kept up to date, not summed: a round asks for every process).
    #[cfg(unix)]
    open: usize,
    #[cfg(target_os = "linux")]
    watch: watch::Watch,
}

#[cfg(unix)]
struct Kept {
    stat: std::os::fd::OwnedFd,
    /// The round that last asked about the process.
    used: u64,
    #[cfg(target_os = "linux")]
    watched: Option<watch::Watched>,
}

#[cfg(unix)]
impl Kept {
    fn descriptors(&self) -> usize {
        #[cfg(target_os = "linux")]
        return 1 + usize::from(self.watched.is_some());
        #[cfg(not(target_os = "linux"))]
        return 1;
    }
}

impl KeptStats {
    /// Keeping for a live procfs (`live`, see [`is_procfs`]), none for a recorded tree.
    pub fn new(live: bool) -> KeptStats {
        #[cfg(unix)]
        return KeptStats {
            limit: if live { limit() } else { 0 },
            ..KeptStats::default()
        };
        #[cfg(not(unix))]
        {
            let _ = live;
            KeptStats::default()
        }
    }

    /// At the start of a round: forget the watched processes that exited since the last one.
    pub fn begin_round(&mut self) {
        #[cfg(target_os = "linux")]
        for pid in self.watch.exited() {
            self.forget(pid);
        }
    }

    /// `pid`'s reading without reading anything, when it is watched, has not exited and is
    /// younger than [`STAT_REFRESH`].
    pub fn current(&mut self, pid: u32, round: u64, now: Instant) -> Option<Stat> {
        #[cfg(target_os = "linux")]
        {
            let k = self.fds.get_mut(&pid)?;
            let w = k.watched.as_ref()?;
            if now.saturating_duration_since(w.read_at) >= staggered(pid, STAT_REFRESH) {
                return None;
            }
            k.used = round;
            Some(w.stat.clone())
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (pid, round, now);
            None
        }
    }

    /// `pid`'s `stat` read again through its kept descriptor; `None` when there is none or the
    /// read failed (the descriptor is then dropped and the caller opens the file by path). A
    /// process not watched yet is watched from now on, when there is room.
    pub fn reread(
        &mut self,
        pid: u32,
        round: u64,
        now: Instant,
        path: &Path,
        buf: &mut Vec<u8>,
    ) -> Option<io::Result<Stat>> {
        #[cfg(unix)]
        {
            let room = self.room();
            let k = self.fds.get_mut(&pid)?;
            // Opened before the read: if the read then succeeds through the descriptor of the
            // process first read, that process was alive after the pidfd was made, so the pidfd
            // is that process and not a later one under the same pid.
            #[cfg(target_os = "linux")]
            let pidfd = match k.watched {
                None if room >= 1 => self.watch.pidfd(pid),
                _ => None,
            };
            #[cfg(not(target_os = "linux"))]
            let _ = room;
            if super::read::reread_into(&k.stat, buf, super::parse::MAX_STAT_BYTES).is_err() {
                self.forget(pid);
                return None;
            }
            k.used = round;
            let st = super::parse::stat_from(path, buf);
            #[cfg(target_os = "linux")]
            if let Ok(s) = &st {
                match (&mut k.watched, pidfd) {
                    (Some(w), _) => w.refreshed(s, now),
                    (None, Some(fd)) => {
                        k.watched = self.watch.add(pid, fd, s, now);
                        self.open += usize::from(k.watched.is_some());
                    }
                    (None, None) => {}
                }
            }
            #[cfg(not(target_os = "linux"))]
            let _ = now;
            Some(st)
        }
        #[cfg(not(unix))]
        {
            let _ = (pid, round, now, path, buf);
            None
        }
    }

    /// `pid`'s `stat` as it is now, through the kept descriptor when there is one (no process is
    /// kept or watched by this); `None`: none kept, or it failed — read by path.
    pub fn fresh(&mut self, pid: u32, path: &Path, buf: &mut Vec<u8>) -> Option<io::Result<Stat>> {
        #[cfg(unix)]
        {
            let k = self.fds.get_mut(&pid)?;
            if super::read::reread_into(&k.stat, buf, super::parse::MAX_STAT_BYTES).is_err() {
                self.forget(pid);
                return None;
            }
            let st = super::parse::stat_from(path, buf);
            #[cfg(target_os = "linux")]
            if let (Ok(s), Some(w)) = (&st, &mut k.watched) {
                w.refreshed(s, Instant::now());
            }
            Some(st)
        }
        #[cfg(not(unix))]
        {
            let _ = (pid, path, buf);
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
        if self.room() >= 1 {
            let fd = super::read::read_keeping(path, buf, super::parse::MAX_STAT_BYTES)?;
            let st = super::parse::stat_from(path, buf)?;
            self.forget(pid);
            self.open += 1;
            self.fds.insert(
                pid,
                Kept {
                    stat: fd,
                    used: round,
                    #[cfg(target_os = "linux")]
                    watched: None,
                },
            );
            return Ok(st);
        }
        let _ = (pid, round);
        super::read::read_stat(path, buf)
    }

    /// Descriptors that may still be opened.
    #[cfg(unix)]
    fn room(&self) -> usize {
        self.limit.saturating_sub(self.open)
    }

    /// Close what is kept of `pid`.
    #[cfg(unix)]
    fn forget(&mut self, pid: u32) {
        if let Some(k) = self.fds.remove(&pid) {
            self.open -= k.descriptors();
        }
    }

    #[cfg(all(test, target_os = "linux"))]
    pub fn len(&self) -> usize {
        let open: usize = self.fds.values().map(Kept::descriptors).sum();
        assert_eq!(open, self.open, "the descriptor count drifted");
        self.fds.len()
    }

    #[cfg(all(test, target_os = "linux"))]
    pub fn watched(&self) -> usize {
        self.fds.values().filter(|k| k.watched.is_some()).count()
    }

    /// Close the descriptors of processes `round` did not ask about: gone, or no longer GPU
    /// processes.
    pub fn retain_round(&mut self, round: u64) {
        #[cfg(unix)]
        {
            let open = &mut self.open;
            self.fds.retain(|_, k| {
                let keep = k.used == round;
                if !keep {
                    *open -= k.descriptors();
                }
                keep
            });
        }
        #[cfg(not(unix))]
        let _ = round;
    }
}

#[cfg(target_os = "linux")]
mod watch {
    use super::super::Stat;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::time::Instant;

    /// The epoll set of pidfds; made on first use. `Off`: pidfds or epoll are not available
    /// (an old kernel, a sandbox that forbids them): every round reads as before.
    #[derive(Default)]
    pub enum Watch {
        #[default]
        Unset,
        On(OwnedFd),
        Off,
    }

    /// A watched process: its pidfd (in the set) and its last reading.
    pub struct Watched {
        _pidfd: OwnedFd,
        pub stat: Stat,
        pub read_at: Instant,
    }

    impl Watched {
        pub fn refreshed(&mut self, s: &Stat, now: Instant) {
            self.stat = s.clone();
            self.read_at = now;
        }
    }

    impl Watch {
        /// A pidfd for `pid`, or `None` (gone, or pidfds unavailable: then watching stops).
        pub fn pidfd(&mut self, pid: u32) -> Option<OwnedFd> {
            if matches!(self, Watch::Off) {
                return None;
            }
            let pid = libc::pid_t::try_from(pid).ok()?;
            // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
            let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
            if fd < 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::ESRCH) {
                    // ENOSYS (before 5.3), EPERM (seccomp), EMFILE: read as before.
                    *self = Watch::Off;
                }
                return None;
            }
            // SAFETY: a descriptor just made, owned by nobody else.
            Some(unsafe { OwnedFd::from_raw_fd(fd as i32) })
        }

        /// Put `pidfd` in the set (made now if need be); `None` if that fails.
        pub fn add(&mut self, pid: u32, pidfd: OwnedFd, s: &Stat, now: Instant) -> Option<Watched> {
            if matches!(self, Watch::Unset) {
                // SAFETY: epoll_create1 takes flags and returns a new descriptor or -1.
                let fd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
                *self = if fd < 0 {
                    Watch::Off
                } else {
                    // SAFETY: a descriptor just made, owned by nobody else.
                    Watch::On(unsafe { OwnedFd::from_raw_fd(fd) })
                };
            }
            let Watch::On(ep) = self else { return None };
            let mut ev = libc::epoll_event {
                // Reported once: `exited` can then ask for more than one batch.
                events: (libc::EPOLLIN | libc::EPOLLONESHOT) as u32,
                u64: u64::from(pid),
            };
            // SAFETY: both descriptors are open; ev is a valid event. Closing the pidfd later
            // takes it out of the set.
            let r = unsafe {
                libc::epoll_ctl(
                    ep.as_raw_fd(),
                    libc::EPOLL_CTL_ADD,
                    pidfd.as_raw_fd(),
                    &mut ev,
                )
            };
            (r == 0).then(|| Watched {
                _pidfd: pidfd,
                stat: s.clone(),
                read_at: now,
            })
        }

        /// The watched processes that exited (their pidfd became readable) since the last call:
        /// one `epoll_wait` per 256 of them, none waiting.
        pub fn exited(&mut self) -> Vec<u32> {
            let Watch::On(ep) = self else {
                return Vec::new();
            };
            let mut out = Vec::new();
            let mut evs = [libc::epoll_event { events: 0, u64: 0 }; 256];
            loop {
                // SAFETY: evs is writable for its length; timeout 0 returns at once.
                let n = unsafe {
                    libc::epoll_wait(ep.as_raw_fd(), evs.as_mut_ptr(), evs.len() as i32, 0)
                };
                if n <= 0 {
                    // An error (EINTR) only delays the news to the next round.
                    return out;
                }
                // A pid is a u32 put there by `add`.
                out.extend(evs[..n as usize].iter().map(|e| e.u64 as u32));
                if (n as usize) < evs.len() {
                    return out;
                }
                // One-shot events: those reported are not reported again, so the next call
                // gives the rest.
            }
        }
    }
}

/// `root` is a live procfs (Linux), not a recorded tree.
#[cfg(target_os = "linux")]
pub(super) fn is_procfs(root: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    const PROC_SUPER_MAGIC: u64 = 0x9fa0;
    let Ok(c) = std::ffi::CString::new(root.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: statfs fills the struct we pass; the path is NUL-terminated.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    (unsafe { libc::statfs(c.as_ptr(), &mut fs) }) == 0 && fs.f_type as u64 == PROC_SUPER_MAGIC
}

#[cfg(not(target_os = "linux"))]
pub(super) fn is_procfs(_root: &Path) -> bool {
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

    /// `sleep` children, killed and reaped when stopped or dropped (a failed assert included).
    struct Sleepers(Vec<std::process::Child>);

    impl Sleepers {
        fn start(n: usize) -> Sleepers {
            let spawn = || {
                std::process::Command::new("sleep")
                    .arg("100")
                    .spawn()
                    .unwrap()
            };
            Sleepers((0..n).map(|_| spawn()).collect())
        }

        fn pids(&self) -> Vec<u32> {
            self.0.iter().map(|c| c.id()).collect()
        }

        fn stop(&mut self) {
            for c in &mut self.0 {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }

    impl Drop for Sleepers {
        fn drop(&mut self) {
            self.stop();
        }
    }

    /// After `pid` exited: the next round finds it gone and keeps nothing of it.
    #[test]
    fn staggered_rereads_spread_over_the_second_half_of_the_period() {
        let period = std::time::Duration::from_secs(30);
        let ds: Vec<std::time::Duration> =
            (1000..1500).map(|p| super::staggered(p, period)).collect();
        assert!(ds.iter().all(|d| *d >= period / 2 && *d <= period));
        // 500 consecutive pids (a view's first round) land in many different seconds.
        let secs: std::collections::HashSet<u64> = ds.iter().map(|d| d.as_secs()).collect();
        assert!(secs.len() >= 14, "{secs:?}");
    }

    fn assert_gone(r: &ProcReader, pid: u32) {
        r.begin_round();
        let e = r.stat(pid).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound, "{e}");
        r.end_round();
        assert_eq!(r.with_round(|r| r.kept_count()), 0);
    }

    /// A live procfs with room for `fds` kept descriptors.
    fn live(fds: usize) -> bool {
        super::is_procfs(Path::new("/proc")) && super::limit() >= fds
    }

    #[test]
    fn a_kept_stat_follows_its_process_and_a_gone_one_reads_as_before() {
        if !live(4) {
            return;
        }
        let mut kids = Sleepers::start(1);
        let pid = kids.pids()[0];
        let r = ProcReader::new(Path::new("/proc"));
        for _ in 0..3 {
            r.begin_round();
            let st = r.stat(pid).unwrap();
            assert_eq!(st.comm, "sleep");
            r.end_round();
            assert_eq!(r.with_round(|r| r.kept_count()), 1);
        }
        kids.stop();
        assert_gone(&r, pid);
    }

    #[test]
    fn a_watched_process_is_not_read_again_until_it_exits() {
        if !live(4) {
            return;
        }
        let mut kids = Sleepers::start(1);
        let pid = kids.pids()[0];
        let r = ProcReader::new(Path::new("/proc"));
        // Round 1 opens and keeps; round 2 reads through the kept descriptor and watches.
        for _ in 0..2 {
            r.begin_round();
            r.stat(pid).unwrap();
            assert_eq!(r.end_round().reads, 1);
        }
        if r.with_round(|r| r.watched_count()) == 0 {
            // No pidfds here (kernel < 5.3 or a sandbox): every round reads, as before.
            return;
        }
        r.begin_round();
        let st = r.stat(pid).unwrap();
        let s = r.end_round();
        assert_eq!((s.reads, s.hits), (0, 1), "a watched process costs no read");
        assert_eq!(r.with_round(|r| r.kept_count()), 1);
        assert_eq!(st.comm, "sleep");
        // The round did not read it, so the live view's columns read it themselves, fresh.
        assert!(r.last_round_stat(pid).is_none());
        assert_eq!(r.fresh_stat(pid).unwrap().start_time, st.start_time);

        kids.stop();
        assert_gone(&r, pid);
    }

    #[test]
    fn many_exits_in_one_round_are_all_seen() {
        if !live(1200) {
            return;
        }
        // More than one epoll batch (256) exits between two rounds.
        let mut kids = Sleepers::start(300);
        let pids = kids.pids();
        let r = ProcReader::new(Path::new("/proc"));
        for _ in 0..2 {
            r.begin_round();
            for &p in &pids {
                r.stat(p).unwrap();
            }
            r.end_round();
        }
        if r.with_round(|r| r.watched_count()) == 0 {
            return;
        }
        kids.stop();
        r.begin_round();
        let gone = pids.iter().filter(|&&p| r.stat(p).is_err()).count();
        r.end_round();
        assert_eq!(gone, pids.len());
        // Every descriptor closed, and counted as closed.
        assert_eq!(r.with_round(|r| r.kept_count()), 0);
    }

    #[test]
    fn a_recorded_tree_keeps_nothing() {
        let d = tempfile::tempdir().unwrap();
        assert!(!super::is_procfs(d.path()));
        assert_eq!(super::KeptStats::new(super::is_procfs(d.path())).limit, 0);
    }
}
