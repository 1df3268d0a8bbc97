//! Which processes hold DRM descriptors: the expensive part of DRM collection (a `readlink` for
//! every descriptor of every process), so it is built once and then kept up to date cheaply.
//!
//! A descriptor is a DRM client when its link target is a DRM node (`/dev/dri/card*`,
//! `/dev/dri/renderD*`, `/dev/accel/accel*`). We classify by the link *path*, not by `stat`'s
//! device major (226, as nvtop does): recorded trees hold symlinks to paths that do not exist, and
//! the path is what amdgpu_top uses too. `/dev/kfd` (ROCm compute) and `/dev/dxg` (WSL2 GPU
//! paravirtualisation) are noted on the way, they are not DRM clients.

use std::collections::BTreeMap;
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

#[cfg(unix)]
use crate::procfs::dirs::Root;
use crate::procfs::dirs::{each_link, numeric_entries, parse_u32};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FdKind {
    /// A DRM node, by its name under `/dev/dri` or `/dev/accel` (`renderD128`, `card0`, `accel0`).
    Drm(String),
    Kfd,
    Dxg,
}

/// Classify a descriptor's link target.
pub fn classify(target: &[u8]) -> Option<FdKind> {
    if let Some(node) = target
        .strip_prefix(b"/dev/dri/")
        .or_else(|| target.strip_prefix(b"/dev/accel/"))
    {
        let node = std::str::from_utf8(node).ok()?;
        let ok = ["renderD", "card", "accel"].iter().any(|p| {
            node.strip_prefix(p)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        });
        return ok.then(|| FdKind::Drm(node.to_string()));
    }
    match target {
        b"/dev/kfd" => Some(FdKind::Kfd),
        b"/dev/dxg" => Some(FdKind::Dxg),
        _ => None,
    }
}

/// One process's GPU descriptors.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcEntry {
    /// (descriptor number, DRM node name).
    pub drm_fds: Vec<(u32, String)>,
    pub kfd: bool,
    pub dxg: bool,
}

impl ProcEntry {
    /// Descriptor `fd`, pointing at `target`, if it is a GPU one.
    fn note(&mut self, fd: u32, target: &[u8]) {
        match classify(target) {
            Some(FdKind::Drm(node)) => self.drm_fds.push((fd, node)),
            Some(FdKind::Kfd) => self.kfd = true,
            Some(FdKind::Dxg) => self.dxg = true,
            None => {}
        }
    }
}

/// The descriptor index of a procfs tree.
#[derive(Debug, Default)]
pub struct FdIndex {
    /// Processes holding at least one GPU descriptor.
    pub entries: BTreeMap<u32, ProcEntry>,
    /// Every PID seen by the last scan, sorted: the baseline for spotting starts and exits.
    pids: Vec<u32>,
    /// Processes whose descriptor list could not be read (other users without privileges).
    pub unreadable: usize,
    /// Descriptors looked at in the last full build (for figures and selftest).
    pub descriptors_seen: usize,
    /// An index of some pids ([`FdIndex::of_pids`]): when each was last walked (monotonic ns).
    scanned_ns: std::collections::HashMap<u32, u64>,
}

/// How often a known GPU process's descriptors are walked again in an index of some pids
/// (between half of it and all of it, by pid): to notice one that opens a DRM node of a device
/// NVML does not cover after it was first seen. Rare (all DRM devices NVML covers are skipped
/// anyway), so not every few seconds for every process: 500 processes cost 10 ms a walk.
pub const RESCAN: std::time::Duration = std::time::Duration::from_secs(60);

impl FdIndex {
    /// Scan every process below `proc_root`.
    pub fn build(proc_root: &Path) -> io::Result<FdIndex> {
        // The scan is syscall-bound (one readlink per descriptor): split it over a few threads
        // when there is enough to split.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self::build_with_threads(proc_root, threads.min(4))
    }

    /// [`FdIndex::build`] with at most `threads` threads (one per 256 processes at least).
    pub fn build_with_threads(proc_root: &Path, threads: usize) -> io::Result<FdIndex> {
        let pids = numeric_entries(proc_root)?;
        let threads = threads.min(pids.len() / 256).max(1);
        let scan = |chunk: &[u32]| {
            let mut part = FdIndex::default();
            part.scan_many(proc_root, chunk);
            part
        };
        let mut idx = if threads == 1 {
            scan(&pids)
        } else {
            let chunk = pids.len().div_ceil(threads);
            let parts: Vec<FdIndex> = std::thread::scope(|s| {
                let handles: Vec<_> = pids
                    .chunks(chunk)
                    .map(|c| s.spawn(move || scan(c)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_default())
                    .collect()
            });
            let mut idx = FdIndex::default();
            for p in parts {
                idx.entries.extend(p.entries);
                idx.unreadable += p.unreadable;
                idx.descriptors_seen += p.descriptors_seen;
            }
            idx
        };
        idx.pids = pids;
        Ok(idx)
    }

    /// An index of only `pids`, from their descriptor tables as the round's process view read
    /// them (the same tables identification uses): for a machine where no DRM device needs
    /// every process's descriptors walked.
    pub fn of_pids(procs: &crate::procfs::ProcReader, pids: &[u32], now_ns: u64) -> FdIndex {
        let mut idx = FdIndex::default();
        let mut sorted = pids.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        for &pid in &sorted {
            idx.scan_links(procs, pid);
            idx.scanned_ns.insert(pid, now_ns);
        }
        idx.pids = sorted;
        idx
    }

    /// [`FdIndex::refresh`] for an index of only some processes ([`FdIndex::of_pids`]): `pids`
    /// is this round's list; processes new to it are scanned, those no longer in it dropped, and
    /// a known one walked again once its [`RESCAN`] period (staggered by pid) has passed.
    /// Returns (started, exited).
    pub fn refresh_pids(
        &mut self,
        procs: &crate::procfs::ProcReader,
        pids: &[u32],
        now_ns: u64,
    ) -> (usize, usize) {
        let mut now = pids.to_vec();
        now.sort_unstable();
        now.dedup();
        let changed = self.merge(now, |idx, pid| {
            idx.scan_links(procs, pid);
            idx.scanned_ns.insert(pid, now_ns);
        });
        let pids = std::mem::take(&mut self.pids);
        self.scanned_ns.retain(|p, _| pids.binary_search(p).is_ok());
        for &pid in &pids {
            let last = self.scanned_ns.get(&pid).copied().unwrap_or(0);
            let due = crate::procfs::staggered(pid, RESCAN).as_nanos() as u64;
            if now_ns.saturating_sub(last) >= due {
                self.rescan_links(procs, pid);
                self.scanned_ns.insert(pid, now_ns);
            }
        }
        self.pids = pids;
        changed
    }

    /// Walk a known process's descriptors again: it may have opened or closed a DRM node since.
    fn rescan_links(&mut self, procs: &crate::procfs::ProcReader, pid: u32) {
        // Counted once, at its first scan.
        let (unreadable, seen) = (self.unreadable, self.descriptors_seen);
        self.entries.remove(&pid);
        self.scan_links(procs, pid);
        (self.unreadable, self.descriptors_seen) = (unreadable, seen);
    }

    fn scan_links(&mut self, procs: &crate::procfs::ProcReader, pid: u32) {
        let mut entry = ProcEntry::default();
        let mut seen = 0usize;
        let res = match procs.fd_links(pid) {
            Ok(links) => {
                for (fd, target) in links.iter() {
                    seen += 1;
                    entry.note(*fd, target);
                }
                Ok(())
            }
            Err(kind) => Err(io::Error::from(kind)),
        };
        self.finish_pid(pid, entry, seen, res);
    }

    /// Bring the index up to date with processes that started or exited since the last scan,
    /// scanning only the new ones. Returns (started, exited). A process that opens a DRM node
    /// after it was scanned is found by the next full [`FdIndex::build`].
    pub fn refresh(&mut self, proc_root: &Path) -> io::Result<(usize, usize)> {
        let now = numeric_entries(proc_root)?;
        let mut buf = PathBuf::from(proc_root);
        Ok(self.merge(now, |idx, pid| idx.scan_into(&mut buf, pid)))
    }

    /// Compare the sorted pid list `now` with the last one: scan the new pids, forget the gone.
    fn merge(&mut self, now: Vec<u32>, mut scan: impl FnMut(&mut Self, u32)) -> (usize, usize) {
        let (mut started, mut exited) = (0, 0);
        let (mut i, mut j) = (0, 0);
        // Both lists are sorted: one merge pass finds the differences.
        while i < self.pids.len() || j < now.len() {
            match (self.pids.get(i), now.get(j)) {
                (Some(&a), Some(&b)) if a == b => {
                    i += 1;
                    j += 1;
                }
                (Some(&a), Some(&b)) if a < b => {
                    self.entries.remove(&a);
                    exited += 1;
                    i += 1;
                }
                (Some(&a), None) => {
                    self.entries.remove(&a);
                    exited += 1;
                    i += 1;
                }
                (_, Some(&b)) => {
                    scan(self, b);
                    started += 1;
                    j += 1;
                }
                (None, None) => break,
            }
        }
        self.pids = now;
        (started, exited)
    }

    /// Forget one descriptor (it was closed, or now refers to something else).
    pub fn drop_fd(&mut self, pid: u32, fd: u32) {
        if let Some(e) = self.entries.get_mut(&pid) {
            e.drm_fds.retain(|(f, _)| *f != fd);
            if e.drm_fds.is_empty() && !e.kfd && !e.dxg {
                self.entries.remove(&pid);
            }
        }
    }

    pub fn drm_fd_count(&self) -> usize {
        self.entries.values().map(|e| e.drm_fds.len()).sum()
    }

    /// `buf` is the procfs root on entry and on return (reused to avoid an allocation per pid).
    fn scan_into(&mut self, buf: &mut PathBuf, pid: u32) {
        buf.push(pid.to_string());
        buf.push("fd");
        let mut entry = ProcEntry::default();
        let mut seen = 0usize;
        let res = each_link(buf, |fd_name, target| {
            Self::note_link(&mut entry, &mut seen, fd_name, target)
        });
        buf.pop();
        buf.pop();
        self.finish_pid(pid, entry, seen, res);
    }

    /// One link of a directory walk into `entry` (the whole table is always read).
    fn note_link(
        entry: &mut ProcEntry,
        seen: &mut usize,
        fd_name: &[u8],
        target: Option<&[u8]>,
    ) -> ControlFlow<()> {
        if let Some(fd) = parse_u32(fd_name) {
            *seen += 1;
            // `None`: gone between readdir and readlink (closed); nothing to index.
            if let Some(t) = target {
                entry.note(fd, t);
            }
        }
        ControlFlow::Continue(())
    }

    fn finish_pid(&mut self, pid: u32, mut entry: ProcEntry, seen: usize, res: io::Result<()>) {
        self.descriptors_seen += seen;
        if let Err(e) = res {
            if e.kind() == io::ErrorKind::PermissionDenied {
                self.unreadable += 1;
            }
            // Otherwise the process exited: nothing to index.
            return;
        }
        if !entry.drm_fds.is_empty() || entry.kfd || entry.dxg {
            entry.drm_fds.sort_unstable();
            self.entries.insert(pid, entry);
        }
    }

    /// Scan `pids` with every path resolved relative to an open procfs root (Unix), which
    /// saves the path walk from `/` for each process.
    fn scan_many(&mut self, proc_root: &Path, pids: &[u32]) {
        #[cfg(unix)]
        if let Ok(root) = Root::open(proc_root) {
            let mut rel = Vec::with_capacity(24);
            for &pid in pids {
                use std::io::Write;
                rel.clear();
                let _ = write!(rel, "{pid}/fd\0");
                let mut entry = ProcEntry::default();
                let mut seen = 0usize;
                let res = root.each_link(&rel, |n, t| Self::note_link(&mut entry, &mut seen, n, t));
                self.finish_pid(pid, entry, seen, res);
            }
            return;
        }
        let mut buf = PathBuf::from(proc_root);
        for &pid in pids {
            self.scan_into(&mut buf, pid);
        }
    }
}

#[cfg(all(test, unix))]
mod tests;
