//! Process metadata from a procfs tree (`/proc` or a recorded copy).
//!
//! Processes vanish mid-round and some cannot be read (other users, other namespaces): both are
//! normal and come back as a reason, never as an error that stops the round.
//!
//! One way down, never back into this file: the facade ([`ProcReader`], here; `facts` adds
//! identification's reading to it) → the round cache (`round`: each file once a round, what
//! rarely changes kept across rounds) → a kept descriptor (`kept`: `stat` re-read with one
//! `pread`, watched processes not read at all) or a fresh read by path (`read`, `dirs`) → the
//! parsers (`parse`: bytes in, typed facts out). For one pid's `stat` in a live round:
//! `ProcReader::stat` → `Round::stat` → `KeptStats::current` (watched, not exited: its reading,
//! no system call), else `KeptStats::reread` (`pread` on the kept descriptor) or
//! `KeptStats::read` (`read::read_keeping`, keeping the descriptor) → `parse::stat_from`.
//! Outside a round or on a recorded tree: `Round::stat` → `read::read_stat` → `parse::stat_from`.

pub mod dirs;
mod facts;
mod kept;
pub use kept::{staggered, STAT_REFRESH};
pub mod nvidia_gpus;
mod parse;
pub mod read;
mod round;

pub use facts::ProcessFacts;
pub use parse::{
    parse_listening, parse_maps, parse_stat, parse_uid, split_cmdline, Stat, MAX_STAT_BYTES,
    PF_KTHREAD,
};
pub use read::read_stat;
pub use round::{FdLinks, RoundStats};

use parse::{parse_btime, parse_passwd};

use gpuledger_lang::Said;
use gpuledger_model::Process;
use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Prefetch threads at most, and the fewest new processes worth a thread: /proc reads are
/// syscall-bound, and below this a thread costs more than it saves.
const PREFETCH_THREADS: usize = 4;
const PREFETCH_MIN_PER_THREAD: usize = 32;

/// Reads `/proc/<pid>/...` below `root`, with the user table and boot time cached.
///
/// It is also the per-round process view: between [`ProcReader::begin_round`] and
/// [`ProcReader::end_round`] each file of a process (`stat`, `status`, `exe`, `cmdline`,
/// `cgroup`, the descriptor table) is read at most once, on first use, and every consumer of the
/// round (procfs facts, DRM, containers, identification) gets that one reading. Outside a round
/// every call reads afresh: kill and explain poll a process and must see it change.
pub struct ProcReader {
    root: PathBuf,
    users: HashMap<u32, String>,
    boot_time: Option<u64>,
    ticks_per_sec: u64,
    round: Mutex<round::Round>,
    /// Whether the root is this machine's procfs (not a recorded tree).
    live: bool,
}

/// What [`ProcReader::fill`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fill {
    Filled,
    /// No entry: exited during the round, or in another PID namespace.
    NotVisible,
    /// An entry that could not be read or parsed (permissions, a malformed file).
    Unreadable,
}

impl ProcReader {
    pub fn new(root: &Path) -> Self {
        // The user table belongs to the same tree: `<root>/../etc/passwd` (live: /etc/passwd).
        let passwd = root.parent().unwrap_or(Path::new("/")).join("etc/passwd");
        let users = fs::read_to_string(passwd)
            .map(|t| parse_passwd(&t))
            .unwrap_or_default();
        let boot_time = fs::read_to_string(root.join("stat"))
            .ok()
            .and_then(|t| parse_btime(&t));
        let live = kept::is_procfs(root);
        ProcReader {
            root: root.to_path_buf(),
            users,
            boot_time,
            ticks_per_sec: clock_ticks(),
            round: Mutex::new(round::Round::keeping(kept::KeptStats::new(live), live)),
            live,
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether the root is this machine's own procfs: a recorded tree's processes and ports are
    /// another moment, or another machine. On Windows a process's facts (ports included) come
    /// from the OS itself, never from this root ([`crate::process_facts`]), so they are live.
    pub fn is_live(&self) -> bool {
        cfg!(windows) || self.live
    }

    /// Whether `pid` shares our network namespace, so that its loopback ports are ours to ask
    /// (`/proc/PID/ns/net` against `/proc/self/ns/net`); `None` when either cannot be read (a
    /// process of another user without the capability to see its namespaces).
    pub fn shares_our_network(&self, pid: u32) -> Option<bool> {
        let ns = |who: &str| fs::read_link(self.root.join(who).join("ns/net")).ok();
        Some(ns(&pid.to_string())? == ns("self")?)
    }

    /// `/proc/<pid>/stat`. A file that is there but cannot be parsed is an `InvalidData` error
    /// whose message names the file and what is wrong, never "not found": the process did not
    /// exit, its entry (or a recorded tree) is broken. In a live round, a process watched since
    /// an earlier round gives that round's reading (same process, not exited; name and parent at
    /// most [`kept::STAT_REFRESH`] old): for CPU times and RSS use [`ProcReader::fresh_stat`].
    pub fn stat(&self, pid: u32) -> io::Result<Stat> {
        self.with_round(|r| r.stat(&self.root, pid))
    }

    /// `/proc/<pid>/stat` read now, for figures that change every moment (CPU times, RSS): in a
    /// live round [`ProcReader::stat`] may give a watched process's reading of up to
    /// [`kept::STAT_REFRESH`] ago. One `pread` where the descriptor is kept.
    pub fn fresh_stat(&self, pid: u32) -> io::Result<Stat> {
        self.with_round(|r| r.fresh_stat(&self.root, pid))
    }

    /// The effective UID, as ps, top and htop show it: on a live procfs the owner of the
    /// `/proc/<pid>` directory (one `statx`; the kernel gives that directory the effective uid
    /// even for a non-dumpable process, whose files it gives to root), else from
    /// `/proc/<pid>/status`.
    pub fn uid(&self, pid: u32) -> Option<u32> {
        self.with_round(|r| r.uid(&self.root, pid))
    }

    /// Where `/proc/<pid>/exe` points (without " (deleted)"); `None` for kernel threads and
    /// other users' processes without privileges.
    pub fn exe(&self, pid: u32) -> Option<String> {
        self.with_round(|r| r.exe(&self.root, pid))
            .map(|e| e.as_ref().clone())
    }

    /// The arguments from `/proc/<pid>/cmdline`, secrets redacted; `None` when unreadable.
    pub fn args(&self, pid: u32) -> Option<Vec<String>> {
        self.with_round(|r| r.args(&self.root, pid))
            .map(|a| a.as_ref().clone())
    }

    /// The text of `/proc/<pid>/cgroup`.
    pub fn cgroup(&self, pid: u32) -> Option<String> {
        self.with_round(|r| r.cgroup(&self.root, pid))
            .map(|c| c.as_ref().clone())
    }

    /// The owner `/proc/<pid>/cgroup` names ([`crate::owner::owner_from_cgroup`]), parsed once
    /// per process, not every round; user names are not filled in ([`ProcReader::user_name`]).
    pub fn owner(&self, pid: u32) -> Option<std::sync::Arc<gpuledger_model::Owner>> {
        self.with_round(|r| r.owner(&self.root, pid))
    }

    /// The container id in `/proc/<pid>/cgroup` (`<runtime>://<id>`), from its owner.
    pub fn container(&self, pid: u32) -> Option<String> {
        self.owner(pid).and_then(|o| o.container_ref())
    }

    /// The name of `uid` in this tree's user table (`<root>/../etc/passwd`).
    pub fn user_name(&self, uid: u32) -> Option<String> {
        self.users.get(&uid).cloned()
    }

    /// The descriptor table: (number, link target) per open descriptor.
    pub fn fd_links(&self, pid: u32) -> Result<FdLinks, io::ErrorKind> {
        self.with_round(|r| r.fd_links(&self.root, pid))
    }

    /// Read, on a few threads, every file this round will need of the processes in `pids` that
    /// it has not seen before (all of them in a one-shot snapshot; only new ones in a live
    /// view, whose known processes need only `stat`). `maps`: identification will want them.
    /// With few new processes this does nothing: they are read lazily as before.
    pub fn prefetch(&self, pids: &[u32], maps: bool) {
        let (todo, template) = self.with_round(|r| (r.unknown(pids), r.helper()));
        if todo.len() < 2 * PREFETCH_MIN_PER_THREAD {
            return;
        }
        // Asked once: std reads the cgroup's CPU quota files each time.
        static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        let cores =
            *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let threads = cores
            .min(PREFETCH_THREADS)
            .min(todo.len() / PREFETCH_MIN_PER_THREAD);
        if threads < 2 {
            return;
        }
        let chunk = todo.len().div_ceil(threads);
        let root = self.root.as_path();
        let parts: Vec<round::Round> = std::thread::scope(|s| {
            let handles: Vec<_> = todo
                .chunks(chunk)
                .map(|c| {
                    let mut r = template.helper();
                    s.spawn(move || {
                        for &pid in c {
                            r.read_all(root, pid, maps);
                        }
                        r
                    })
                })
                .collect();
            // A helper that panicked read nothing usable: its processes are read lazily.
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        self.with_round(|r| {
            for p in parts {
                r.absorb(p);
            }
        });
    }

    /// What [`ProcReader::prefetch`] read of `maps`, taken (each is used once).
    pub(crate) fn take_maps(&self, pid: u32) -> Option<io::Result<std::sync::Arc<Vec<String>>>> {
        self.with_round(|r| r.take_maps(pid))
    }

    /// What the last finished round read of `/proc/<pid>/stat` (the same file at the same moment
    /// as the round's other facts), until the next round begins; `None` when that round did not
    /// read it: the caller reads the file itself.
    pub fn last_round_stat(&self, pid: u32) -> Option<io::Result<Stat>> {
        self.with_round(|r| r.last_stat(pid))
    }

    /// Start a round: from now until [`ProcReader::end_round`] each file is read once.
    pub fn begin_round(&self) {
        self.with_round(|r| r.begin());
    }

    /// End the round: forget what it read (the buffers are kept) and return its counts.
    pub fn end_round(&self) -> RoundStats {
        self.with_round(|r| r.end())
    }

    fn with_round<T>(&self, f: impl FnOnce(&mut round::Round) -> T) -> T {
        // A panic elsewhere while holding the lock leaves only a cache behind: keep using it.
        let mut g = self.round.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut g)
    }

    /// Fill `p`'s metadata. On failure `metadata_unavailable` says why, in words, and the outcome
    /// tells a process that is not there from one whose entry could not be read.
    pub fn fill(&self, p: &mut Process) -> Fill {
        match self.stat(p.pid) {
            Ok(st) => {
                p.start_time = Some(st.start_time);
                p.ppid = Some(st.ppid);
                p.name = Some(st.comm);
                let (boot, ticks) = (self.boot_time, self.ticks_per_sec);
                let text = || {
                    Some(gpuledger_model::time::format_secs(
                        boot? + st.start_time / (ticks > 0).then_some(ticks)?,
                    ))
                };
                p.started_at = self
                    .with_round(|r| r.started_at(&self.root, p.pid, text))
                    .map(|t| t.as_ref().clone());
            }
            Err(e) => {
                let (why, fill) = match e.kind() {
                    io::ErrorKind::NotFound => (
                        Said::new("report-meta-not-visible", vec![]),
                        Fill::NotVisible,
                    ),
                    io::ErrorKind::PermissionDenied => (
                        Said::new("report-meta-permission", vec![]),
                        Fill::Unreadable,
                    ),
                    // The message already names the file and what is wrong with it.
                    io::ErrorKind::InvalidData => (e.to_string().into(), Fill::Unreadable),
                    _ => (
                        Said::new(
                            "report-meta-unreadable",
                            vec![
                                (
                                    "path",
                                    self.root
                                        .join(p.pid.to_string())
                                        .join("stat")
                                        .display()
                                        .to_string()
                                        .into(),
                                ),
                                ("error", e.to_string().into()),
                            ],
                        ),
                        Fill::Unreadable,
                    ),
                };
                p.metadata_unavailable = Some(why);
                return fill;
            }
        }
        if let Some(uid) = self.uid(p.pid) {
            p.uid = Some(uid);
            p.user = Some(
                self.users
                    .get(&uid)
                    .cloned()
                    .unwrap_or_else(|| uid.to_string()),
            );
        }
        // Kernel threads and other users' processes (without privileges) have no readable exe.
        p.exe = self.exe(p.pid);
        if let Some(args) = self.args(p.pid) {
            if !args.is_empty() {
                p.cmdline = Some(args);
            }
        }
        // A process can vanish between reading stat and the rest: keep what we got.
        Fill::Filled
    }

    /// PIDs present in the tree.
    pub fn pids(&self) -> io::Result<Vec<u32>> {
        let mut v: Vec<u32> = fs::read_dir(&self.root)?
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .collect();
        v.sort_unstable();
        Ok(v)
    }

    /// Host facts that live under /proc.
    pub fn host(&self) -> gpuledger_model::Host {
        let read = |p: &str| {
            fs::read_to_string(self.root.join(p))
                .ok()
                .map(|s| s.trim().to_string())
        };
        let kernel = read("sys/kernel/osrelease");
        let wsl = kernel.as_deref().is_some_and(|k| {
            k.contains("microsoft") || k.contains("Microsoft") || k.contains("WSL")
        });
        gpuledger_model::Host {
            hostname: read("sys/kernel/hostname"),
            os: std::env::consts::OS.to_string(),
            kernel,
            wsl,
        }
    }
}

/// Clock ticks per second (`sysconf(_SC_CLK_TCK)`): the unit of stat's times.
pub fn clock_ticks() -> u64 {
    #[cfg(unix)]
    {
        // SAFETY: sysconf has no preconditions.
        let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        if t > 0 {
            return t as u64;
        }
    }
    100
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process names itself: a title such as `--token=X` (prctl, setproctitle) or a token cut
    /// to 15 bytes is redacted where the name is read, for every reader (collection, facts,
    /// the kill prompt).
    #[test]
    fn a_secret_shaped_command_name_is_redacted_where_it_is_read() {
        for (comm, shown) in [
            ("--token=S3CR3Tx", "--token=<redacted>"),
            ("ghp_AbC123dEf45", "ghp_<redacted>"),
            ("llama-server", "llama-server"),
        ] {
            let s = format!("1234 ({comm}) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 98765 1000000 200 18446744073709551615");
            assert_eq!(parse_stat(&s).unwrap().comm, shown);
        }
    }

    #[test]
    fn stat_with_hostile_comm() {
        let s = "1234 (evil) name) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 98765 1000000 200 18446744073709551615";
        let st = parse_stat(s).unwrap();
        assert_eq!(st.comm, "evil) name");
        assert_eq!(st.state, 'S');
        assert_eq!(st.ppid, 1);
        assert_eq!(st.start_time, 98765);
        assert_eq!(
            parse_stat("garbage").unwrap_err(),
            "no '(' opening the command name (field 2)"
        );
        assert_eq!(
            parse_stat("1 (x) S 1").unwrap_err(),
            "it ends after 4 fields, before field 22 (start time)"
        );
        assert_eq!(
            parse_stat("1 (x) S one").unwrap_err(),
            "field 4 (parent pid) is \"one\", not a number"
        );
        assert_eq!(parse_stat("").unwrap_err(), "the file is empty");
        assert_eq!(
            parse_stat("1 )x( S").unwrap_err(),
            "no ')' closing the command name (field 2)"
        );
    }

    fn tree(stat: &[u8]) -> (tempfile::TempDir, ProcReader) {
        let d = tempfile::tempdir().unwrap();
        let proc = d.path().join("proc");
        std::fs::create_dir_all(proc.join("4242")).unwrap();
        std::fs::write(proc.join("4242/stat"), stat).unwrap();
        let r = ProcReader::new(&proc);
        (d, r)
    }

    #[test]
    fn a_malformed_stat_is_reported_as_malformed_not_as_exited() {
        let (d, r) = tree(b"4242 (llama-server) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 notanumber 1 2\n");
        let mut p = Process::new(4242);
        assert_eq!(r.fill(&mut p), Fill::Unreadable);
        let why = p.metadata_unavailable.unwrap();
        let file = d.path().join("proc").join("4242").join("stat");
        assert_eq!(
            why.as_str(),
            format!(
                "{} is malformed: field 22 (start time) is \"notanumber\", not a number",
                file.display()
            )
        );
        assert!(!why.contains("exited"));
        // Gone is still gone.
        let mut q = Process::new(1);
        assert_eq!(r.fill(&mut q), Fill::NotVisible);
        assert!(q
            .metadata_unavailable
            .unwrap()
            .contains("exited during the round"));
    }

    #[test]
    fn a_command_name_that_is_not_utf8_still_reads() {
        let (_d, r) = tree(
            b"4242 (caf\xe9) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 98765 1 2\n",
        );
        let st = r.stat(4242).unwrap();
        assert_eq!((st.comm.as_str(), st.start_time), ("caf\u{fffd}", 98765));
    }

    #[test]
    fn cmdline_split() {
        assert_eq!(split_cmdline(b"a\0b c\0"), ["a", "b c"]);
        assert!(split_cmdline(b"").is_empty());
        assert_eq!(split_cmdline(b"a\0\0b\0"), ["a", "", "b"]);
        // A title set by setproctitle, as vLLM 0.32's worker reads (the title, then the rest
        // of the argument area as NULs): one argument, not a title and 150 empty ones.
        let mut titled = b"VLLM::Worker_TP0".to_vec();
        titled.resize(titled.len() + 150, 0);
        assert_eq!(split_cmdline(&titled), ["VLLM::Worker_TP0"]);
    }

    #[test]
    fn passwd_and_uid() {
        let users = parse_passwd(
            "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/a:/bin/sh\nbroken\n",
        );
        assert_eq!(users[&1000], "alice");
        assert_eq!(
            parse_uid("Name:\tx\nUid:\t1000\t1000\t1000\t1000\n"),
            Some(1000)
        );
        // A setuid program: real 1000, effective 0. ps, top and htop show the effective one.
        assert_eq!(parse_uid("Uid:\t1000\t0\t0\t0\n"), Some(0));
    }

    /// On the live /proc the user comes from the owner of /proc/PID (one statx), and it is the
    /// effective uid, as from `status`.
    #[cfg(target_os = "linux")]
    #[test]
    fn live_uid_is_the_effective_one_without_reading_status() {
        let root = Path::new("/proc");
        if !kept::is_procfs(root) {
            return;
        }
        let me = std::process::id();
        // SAFETY: geteuid cannot fail.
        let euid = unsafe { libc::geteuid() };
        let r = ProcReader::new(root);
        assert_eq!(r.uid(me), Some(euid));
        let status = std::fs::read_to_string(format!("/proc/{me}/status")).unwrap();
        assert_eq!(parse_uid(&status), Some(euid));
        r.begin_round();
        assert_eq!(r.uid(me), Some(euid));
        r.end_round();
    }

    proptest::proptest! {
        #[test]
        fn stat_parser_never_panics(s in ".{0,300}") {
            let _ = parse_stat(&s);
        }
    }
}
