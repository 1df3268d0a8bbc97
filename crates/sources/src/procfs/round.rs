//! The per-round cache behind [`super::ProcReader`]: what each process's files said this round,
//! read lazily (a process nobody asks about costs nothing) through one reused buffer.

use super::kept::staggered;
use super::kept::KeptStats;
use super::parse::{parse_maps, parse_uid, split_cmdline, Stat};
use super::read::{read_into, read_stat, read_table, Records};
use std::collections::HashMap;
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long what rarely changes (user, executable, command line, cgroup) is kept across rounds
/// for a process with the same pid, start time and name (between half of it and all of it, by
/// pid: [`staggered`]). `stat` is read every round, or, for a process watched for its exit
/// (`kept`), kept until it exits: either way a reused pid (another start time, or an exit seen)
/// is never mistaken for the process that had it. A new name (`comm`) means an `exec` or a new
/// title (`setproctitle` sets both), so it re-reads as soon as `stat` shows it (every round on a
/// recorded tree, within 15-30 s for a watched process); the period catches what changes without
/// a rename (an `exec` of a program with the same name, a cgroup move, a `setuid`), at the cost
/// of about 8 system calls per process per period.
pub const SLOW_REFRESH: Duration = Duration::from_secs(60);

/// Bounds, whatever a recorded tree holds (real files are far smaller).
const MAX_STATUS_BYTES: usize = 64 << 10;
const MAX_CMDLINE_BYTES: usize = 256 << 10;
const MAX_CGROUP_BYTES: usize = 64 << 10;
/// A process with more descriptors than this is read only this far.
pub const MAX_FDS: usize = 65_536;

/// A descriptor table: (descriptor number, link target) sorted by number, shared between the
/// consumers of a round.
pub type FdLinks = Arc<Vec<(u32, Box<[u8]>)>>;

/// Files read in the current (or, from `end`, the last) round: for tests and the benchmark.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RoundStats {
    /// Files opened (or links read) by this reader.
    pub reads: usize,
    /// Reads answered from the round's cache instead.
    pub hits: usize,
}

/// A reading that failed, kept as kind and message (an `io::Error` cannot be cloned).
type Failed = (io::ErrorKind, String);
/// The distinct file paths of a `maps` file.
type MapsRead = Result<Arc<Vec<String>>, Failed>;

/// A reading kept by the round and across rounds: shared, so a warm round hands it on without
/// copying the text (one copy is made where a caller wants it owned).
type Shared<T> = Option<Arc<T>>;

/// One process's readings this round; `None`: not asked for yet.
#[derive(Default)]
struct Entry {
    /// The error kept as kind and message (an `io::Error` cannot be cloned).
    stat: Option<Result<Stat, Failed>>,
    /// `stat` was read this round (not a watched process's kept reading).
    stat_read: bool,
    uid: Option<Option<u32>>,
    exe: Option<Shared<String>>,
    args: Option<Shared<Vec<String>>>,
    cgroup: Option<Shared<String>>,
    owner: Option<Shared<gpuledger_model::Owner>>,
    started_at: Option<Shared<String>>,
    fds: Option<Result<FdLinks, io::ErrorKind>>,
    /// File paths from `maps` (identification's), only when a prefetch read them.
    maps: Option<MapsRead>,
}

/// What rarely changes, kept across rounds per (pid, start time).
struct Slow {
    start_time: u64,
    /// A hash of the name (`comm`) the facts were read under.
    name: u64,
    read_at: Instant,
    /// The round that last asked: a process no round asks about any more is forgotten.
    round: u64,
    uid: Option<Option<u32>>,
    exe: Option<Shared<String>>,
    args: Option<Shared<Vec<String>>>,
    cgroup: Option<Shared<String>>,
    /// Parsed from `cgroup`, and the start time as text: kept, not made again every round.
    owner: Option<Shared<gpuledger_model::Owner>>,
    started_at: Option<Shared<String>>,
}

impl Slow {
    /// Nothing kept yet for the process started at `start_time`, as of `read_at`.
    fn fresh((start_time, name): (u64, u64), read_at: Instant, round: u64) -> Slow {
        Slow {
            start_time,
            name,
            read_at,
            round,
            uid: None,
            exe: None,
            args: None,
            cgroup: None,
            owner: None,
            started_at: None,
        }
    }
}

pub(super) struct Round {
    active: bool,
    /// The root is a live procfs (not a recorded tree): the owner of `/proc/<pid>` is the
    /// process's effective uid.
    live: bool,
    round: u64,
    entries: HashMap<u32, Entry>,
    slow: HashMap<u32, Slow>,
    /// When the round began: the clock for [`SLOW_REFRESH`], read once per round.
    started: Instant,
    /// The last finished round's `stat` readings, kept until the next round begins: the live
    /// view's CPU and RSS columns take them instead of reading each file a second time.
    last_stats: HashMap<u32, Result<Stat, Failed>>,
    /// `stat` descriptors kept open between rounds (a live procfs only).
    kept: KeptStats,
    buf: Vec<u8>,
    path: PathBuf,
    stats: RoundStats,
}

impl Default for Round {
    fn default() -> Self {
        Round {
            active: false,
            live: false,
            round: 0,
            entries: HashMap::new(),
            slow: HashMap::new(),
            started: Instant::now(),
            last_stats: HashMap::new(),
            kept: KeptStats::default(),
            buf: Vec::new(),
            path: PathBuf::new(),
            stats: RoundStats::default(),
        }
    }
}

impl Round {
    /// The reader's own round, keeping `stat` descriptors as `kept` allows (helpers keep none).
    pub fn keeping(kept: KeptStats, live: bool) -> Round {
        Round {
            kept,
            live,
            ..Round::default()
        }
    }

    pub fn begin(&mut self) {
        self.kept.begin_round();
        self.entries.clear();
        self.last_stats.clear();
        self.stats = RoundStats::default();
        self.active = true;
        self.round += 1;
        self.started = Instant::now();
    }

    pub fn end(&mut self) -> RoundStats {
        self.active = false;
        self.last_stats.clear();
        // Only what was read this round: a watched process's kept reading has old CPU times.
        self.last_stats.extend(
            self.entries
                .drain()
                .filter(|(_, e)| e.stat_read)
                .filter_map(|(pid, e)| Some((pid, e.stat?))),
        );
        let round = self.round;
        self.slow.retain(|_, s| s.round == round);
        self.kept.retain_round(round);
        std::mem::take(&mut self.stats)
    }

    /// Of `pids`, those this round has read nothing of and no earlier round kept anything of:
    /// new processes, which need every file read.
    pub fn unknown(&self, pids: &[u32]) -> Vec<u32> {
        if !self.active {
            return Vec::new();
        }
        pids.iter()
            .copied()
            .filter(|p| !self.entries.contains_key(p) && !self.slow.contains_key(p))
            .collect()
    }

    /// An empty round for a helper thread of this one.
    pub fn helper(&self) -> Round {
        Round {
            active: true,
            live: self.live,
            round: self.round,
            started: self.started,
            ..Round::default()
        }
    }

    /// Read every file a new process needs this round (a helper thread's work).
    pub fn read_all(&mut self, root: &Path, pid: u32, maps: bool) {
        if self.stat(root, pid).is_err() {
            // Gone or unreadable: the round's consumers ask again and get the same answer.
            return;
        }
        self.uid(root, pid);
        self.exe(root, pid);
        self.args(root, pid);
        self.cgroup(root, pid);
        let _ = self.fd_links(root, pid);
        if maps {
            let _ = self.maps(root, pid);
        }
    }

    /// How many `stat` descriptors are kept open.
    #[cfg(all(test, target_os = "linux"))]
    pub fn kept_count(&self) -> usize {
        self.kept.len()
    }

    /// How many processes are watched for their exit.
    #[cfg(all(test, target_os = "linux"))]
    pub fn watched_count(&self) -> usize {
        self.kept.watched()
    }

    /// What the last finished round read of `/proc/<pid>/stat`; `None`: it did not read it (or a
    /// round is on).
    pub fn last_stat(&self, pid: u32) -> Option<io::Result<Stat>> {
        if self.active {
            return None;
        }
        let r = self.last_stats.get(&pid)?;
        Some(r.clone().map_err(|(kind, msg)| io::Error::new(kind, msg)))
    }

    /// Take in what a helper read (this round's own readings win).
    pub fn absorb(&mut self, helper: Round) {
        for (pid, e) in helper.entries {
            self.entries.entry(pid).or_insert(e);
        }
        for (pid, s) in helper.slow {
            self.slow.entry(pid).or_insert(s);
        }
        self.stats.reads += helper.stats.reads;
        self.stats.hits += helper.stats.hits;
    }

    /// The distinct file paths of `/proc/<pid>/maps`: read by a prefetch (on a helper thread),
    /// else by identification itself; `None` here means not read this round.
    pub fn take_maps(&mut self, pid: u32) -> Option<Result<Arc<Vec<String>>, io::Error>> {
        let m = self.entries.get_mut(&pid)?.maps.take()?;
        Some(m.map_err(|(kind, msg)| io::Error::new(kind, msg)))
    }

    fn maps(&mut self, root: &Path, pid: u32) -> MapsRead {
        self.cached(
            pid,
            |e| &mut e.maps,
            |r| {
                r.path(root, pid, "maps");
                read_table(&r.path, &mut r.buf)
                    .map(|()| Arc::new(parse_maps(&String::from_utf8_lossy(&r.buf))))
                    .map_err(|e| (e.kind(), e.to_string()))
            },
        )
    }

    /// Like [`Round::cached`] for a value that rarely changes: also kept across rounds while the
    /// process keeps its start time and name, for [`SLOW_REFRESH`].
    fn slow_cached<T: Clone>(
        &mut self,
        root: &Path,
        pid: u32,
        get: impl Fn(&mut Entry) -> &mut Option<T> + Copy,
        get_slow: impl Fn(&mut Slow) -> &mut Option<T>,
        read: impl FnOnce(&mut Self) -> T,
    ) -> T {
        if !self.active {
            return self.cached(pid, get, read);
        }
        // Start time and name: who the process is, without cloning the whole reading per call.
        let who = |s: &Stat| (s.start_time, name_hash(&s.comm));
        let cached = self
            .entries
            .get(&pid)
            .and_then(|e| e.stat.as_ref())
            .map(|r| r.as_ref().ok().map(who));
        let start = match cached {
            Some(s) => s,
            None => self.stat(root, pid).ok().map(|s| who(&s)),
        };
        let round = self.round;
        let now = self.started;
        let period = staggered(pid, SLOW_REFRESH);
        let same = |s: &Slow, (st, name): (u64, u64)| {
            s.start_time == st && s.name == name && now.duration_since(s.read_at) < period
        };
        let kept = match (start, self.slow.get_mut(&pid)) {
            (Some(w), Some(s)) if same(s, w) => {
                s.round = round;
                get_slow(s).clone()
            }
            _ => None,
        };
        if let Some(v) = kept {
            self.stats.hits += 1;
            *get(self.entries.entry(pid).or_default()) = Some(v.clone());
            return v;
        }
        let v = self.cached(pid, get, read);
        if let Some(st) = start {
            let s = self
                .slow
                .entry(pid)
                .or_insert_with(|| Slow::fresh(st, now, round));
            if !same(s, st) {
                // Another process under this pid, renamed, or stale: start afresh.
                *s = Slow::fresh(st, now, round);
            }
            s.round = round;
            *get_slow(s) = Some(v.clone());
        }
        v
    }

    /// `<root>/<pid>/<name>` in the reused path buffer.
    fn path(&mut self, root: &Path, pid: u32, name: &str) -> &Path {
        self.path.clear();
        self.path.push(root);
        self.path.push(itoa(pid).as_str());
        self.path.push(name);
        &self.path
    }

    /// `<root>/<pid>/<name>`, a single-record file of at most `max` bytes, read into the reused
    /// buffer; `None` when it cannot be read.
    fn read_small(&mut self, root: &Path, pid: u32, name: &str, max: usize) -> Option<&[u8]> {
        self.path(root, pid, name);
        read_into(&self.path, &mut self.buf, max, Records::One).ok()?;
        Some(&self.buf)
    }

    /// The cached value for `pid`, or `read` it (and keep it if a round is on).
    fn cached<T: Clone>(
        &mut self,
        pid: u32,
        get: impl Fn(&mut Entry) -> &mut Option<T>,
        read: impl FnOnce(&mut Self) -> T,
    ) -> T {
        if self.active {
            if let Some(v) = self.entries.get_mut(&pid).and_then(|e| get(e).clone()) {
                self.stats.hits += 1;
                return v;
            }
        }
        self.stats.reads += 1;
        let v = read(self);
        if self.active {
            *get(self.entries.entry(pid).or_default()) = Some(v.clone());
        }
        v
    }

    pub fn stat(&mut self, root: &Path, pid: u32) -> io::Result<Stat> {
        if self.active {
            if let Some(st) = self.kept.current(pid, self.round, self.started) {
                // Watched and not exited: its reading stands (no `stat_read`).
                let e = self.entries.entry(pid).or_default();
                if e.stat.is_none() {
                    e.stat = Some(Ok(st.clone()));
                }
                self.stats.hits += 1;
                return Ok(st);
            }
        }
        let r = self.cached(
            pid,
            |e| &mut e.stat,
            |r| {
                r.path(root, pid, "stat");
                let read = if r.active {
                    let (round, now) = (r.round, r.started);
                    match r.kept.reread(pid, round, now, &r.path, &mut r.buf) {
                        Some(read) => read,
                        None => r.kept.read(pid, round, &r.path, &mut r.buf),
                    }
                } else {
                    read_stat(&r.path, &mut r.buf)
                };
                read.map_err(|e| (e.kind(), e.to_string()))
            },
        );
        if self.active {
            if let Some(e) = self.entries.get_mut(&pid) {
                e.stat_read = true;
            }
        }
        r.map_err(|(kind, msg)| io::Error::new(kind, msg))
    }

    /// `/proc/<pid>/stat` as it is now, whatever the round kept: through the kept descriptor
    /// when there is one (one `pread`), else by path.
    pub fn fresh_stat(&mut self, root: &Path, pid: u32) -> io::Result<Stat> {
        self.path(root, pid, "stat");
        match self.kept.fresh(pid, &self.path, &mut self.buf) {
            Some(read) => read,
            None => read_stat(&self.path, &mut self.buf),
        }
    }

    pub fn uid(&mut self, root: &Path, pid: u32) -> Option<u32> {
        self.slow_cached(
            root,
            pid,
            |e| &mut e.uid,
            |s| &mut s.uid,
            |r| {
                #[cfg(unix)]
                if r.live {
                    use std::os::unix::fs::MetadataExt;
                    r.path(root, pid, ".");
                    return std::fs::metadata(&r.path).ok().map(|m| m.uid());
                }
                let text = r.read_small(root, pid, "status", MAX_STATUS_BYTES)?;
                parse_uid(&String::from_utf8_lossy(text))
            },
        )
    }

    pub fn exe(&mut self, root: &Path, pid: u32) -> Shared<String> {
        self.slow_cached(
            root,
            pid,
            |e| &mut e.exe,
            |s| &mut s.exe,
            |r| {
                r.path(root, pid, "exe");
                let t = std::fs::read_link(&r.path).ok()?;
                // A path is text the process chose too (a file named after a token).
                Some(Arc::new(gpuledger_model::redact_text(
                    t.to_string_lossy().trim_end_matches(" (deleted)"),
                )))
            },
        )
    }

    pub fn args(&mut self, root: &Path, pid: u32) -> Shared<Vec<String>> {
        self.slow_cached(
            root,
            pid,
            |e| &mut e.args,
            |s| &mut s.args,
            |r| {
                let text = r.read_small(root, pid, "cmdline", MAX_CMDLINE_BYTES)?;
                // Redacted once here, not by each consumer each round.
                Some(Arc::new(gpuledger_model::redact_arg_list(&split_cmdline(
                    text,
                ))))
            },
        )
    }

    pub fn cgroup(&mut self, root: &Path, pid: u32) -> Shared<String> {
        self.slow_cached(
            root,
            pid,
            |e| &mut e.cgroup,
            |s| &mut s.cgroup,
            |r| {
                let text = r.read_small(root, pid, "cgroup", MAX_CGROUP_BYTES)?;
                Some(Arc::new(String::from_utf8_lossy(text).into_owned()))
            },
        )
    }

    /// The owner `cgroup` names ([`crate::owner::owner_from_cgroup`]), without user names.
    pub fn owner(&mut self, root: &Path, pid: u32) -> Shared<gpuledger_model::Owner> {
        self.slow_cached(
            root,
            pid,
            |e| &mut e.owner,
            |s| &mut s.owner,
            |r| {
                let text = r.cgroup(root, pid)?;
                crate::owner::owner_from_cgroup(&text).map(Arc::new)
            },
        )
    }

    /// `text(start time)`, kept with the process: the start time does not change.
    pub fn started_at(
        &mut self,
        root: &Path,
        pid: u32,
        text: impl FnOnce() -> Option<String>,
    ) -> Shared<String> {
        self.slow_cached(
            root,
            pid,
            |e| &mut e.started_at,
            |s| &mut s.started_at,
            |_| text().map(Arc::new),
        )
    }

    pub fn fd_links(&mut self, root: &Path, pid: u32) -> Result<FdLinks, io::ErrorKind> {
        self.cached(
            pid,
            |e| &mut e.fds,
            |r| {
                r.path(root, pid, "fd");
                let mut links = Vec::new();
                super::dirs::each_link(&r.path, |name, target| {
                    // Not a number, or closed between readdir and readlink: nothing to keep.
                    if let (Some(fd), Some(t)) = (super::dirs::parse_u32(name), target) {
                        links.push((fd, Box::from(t)));
                    }
                    // A full table: the remaining descriptors are not read at all.
                    if links.len() < MAX_FDS {
                        ControlFlow::Continue(())
                    } else {
                        ControlFlow::Break(())
                    }
                })
                .map_err(|e| e.kind())?;
                links.sort_unstable_by_key(|l| l.0);
                Ok(Arc::new(links))
            },
        )
    }
}

/// A process name as a number to compare (names are at most 64 bytes; a collision only delays a
/// re-read to the period's end).
fn name_hash(name: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    name.hash(&mut h);
    h.finish()
}

/// A pid as decimal text without a heap allocation.
fn itoa(mut n: u32) -> ItoaBuf {
    let mut b = ItoaBuf([0; 10], 10);
    loop {
        b.1 -= 1;
        b.0[b.1] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return b;
        }
    }
}

struct ItoaBuf([u8; 10], usize);
impl ItoaBuf {
    fn as_str(&self) -> &str {
        // Only ASCII digits were written.
        std::str::from_utf8(&self.0[self.1..]).unwrap_or("0")
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::super::ProcReader;
    use std::fs;

    fn tree() -> (tempfile::TempDir, ProcReader) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("proc/4242");
        fs::create_dir_all(p.join("fd")).unwrap();
        fs::write(
            p.join("stat"),
            "4242 (llama-server) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 98765 1 2\n",
        )
        .unwrap();
        fs::write(p.join("status"), "Name:\tx\nUid:\t1000\t1000\t1000\t1000\n").unwrap();
        fs::write(p.join("cmdline"), "/opt/llama-server\0-m\0a b.gguf\0").unwrap();
        std::os::unix::fs::symlink("/dev/dri/renderD128", p.join("fd/5")).unwrap();
        std::os::unix::fs::symlink("socket:[77]", p.join("fd/3")).unwrap();
        let r = ProcReader::new(&d.path().join("proc"));
        (d, r)
    }

    #[test]
    fn a_round_reads_each_file_once_and_sees_changes_next_round() {
        let (d, r) = tree();
        r.begin_round();
        for _ in 0..3 {
            assert_eq!(r.stat(4242).unwrap().start_time, 98765);
            assert_eq!(r.uid(4242), Some(1000));
            assert_eq!(
                r.args(4242).unwrap(),
                ["/opt/llama-server", "-m", "a b.gguf"]
            );
            let fds = r.fd_links(4242).unwrap();
            assert_eq!(fds[0], (3, Box::from(&b"socket:[77]"[..])));
            assert_eq!(fds[1].0, 5);
        }
        // A pid that is not there is asked once too.
        assert!(r.stat(1).is_err() && r.stat(1).is_err());
        let s = r.end_round();
        // stat, status, cmdline, fd table and the missing pid's stat: read once each.
        assert_eq!(s.reads, 5);

        let proc_dir = d.path().join("proc/4242");
        fs::write(proc_dir.join("status"), "Name:\tx\nUid:\t0\t0\t0\t0\n").unwrap();
        // Outside a round nothing is cached: a change shows at once.
        assert_eq!(r.uid(4242), Some(0));
        // The next round keeps what rarely changes for the same process (same start time)...
        r.begin_round();
        assert_eq!(r.uid(4242), Some(1000));
        assert_eq!(r.end_round().reads, 1, "only stat is read again");
        // A new name (exec, or a title set) under the same start time: read afresh.
        fs::write(
            proc_dir.join("stat"),
            "4242 (VLLM::Engine) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 98765 1 2\n",
        )
        .unwrap();
        r.begin_round();
        assert_eq!(r.uid(4242), Some(0));
        assert_eq!(r.end_round().reads, 2, "stat, then status again");
        // ...and a reused pid (another start time) is read afresh.
        fs::write(
            proc_dir.join("stat"),
            "4242 (other) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 99999 1 2\n",
        )
        .unwrap();
        r.begin_round();
        assert_eq!(r.uid(4242), Some(0));
        assert_eq!(r.end_round().reads, 2);
    }

    #[test]
    fn a_prefetch_reads_new_processes_on_threads_and_gives_the_same_facts() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("proc");
        let pids: Vec<u32> = (1000..1200).collect();
        for &pid in &pids {
            let p = root.join(pid.to_string());
            fs::create_dir_all(p.join("fd")).unwrap();
            fs::write(
                p.join("stat"),
                format!("{pid} (w) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 {pid} 1 2\n"),
            )
            .unwrap();
            fs::write(p.join("status"), "Uid:\t7\t7\t7\t7\n").unwrap();
            fs::write(p.join("cmdline"), "w\0--token=s3cret\0").unwrap();
            fs::write(
                p.join("maps"),
                "7f00-7f01 r-xp 00000000 fd:01 1 /usr/lib/libtorch_cuda.so\n",
            )
            .unwrap();
            std::os::unix::fs::symlink("/m/x.gguf", p.join("fd/3")).unwrap();
        }
        let r = ProcReader::new(&root);
        let want: Vec<_> = pids.iter().map(|&p| r.facts(p)).collect();
        let r = ProcReader::new(&root);
        r.begin_round();
        r.prefetch(&pids, true);
        let got: Vec<_> = pids.iter().map(|&p| r.facts(p)).collect();
        let s = r.end_round();
        assert_eq!(got, want);
        assert_eq!(got[0].cmdline, ["w", "--token=<redacted>"]);
        if std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2 {
            // The prefetch read stat, status, exe, cmdline, cgroup, fd table and maps of each
            // (facts alone would not read status and cgroup); facts then read only the parent's
            // stat (pid 1, not in the tree), once.
            assert_eq!(s.reads, 7 * pids.len() + 1);
        }
    }

    #[test]
    fn itoa_matches_display() {
        for n in [0, 7, 10, 4242, u32::MAX] {
            assert_eq!(super::itoa(n).as_str(), n.to_string());
        }
    }
}
