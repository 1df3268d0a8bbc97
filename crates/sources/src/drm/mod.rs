//! Per-process GPU memory and engine use from DRM fdinfo (amdgpu, i915, xe, panfrost, panthor,
//! accelerators such as amdxdna, and any driver that follows
//! `Documentation/gpu/drm-usage-stats.rst`), with device telemetry from [`crate::sysfs`].
//! Devices found in sysfs and devices known only from fdinfo are named by one rule
//! ([`sysfs::uuid_for_slot`]), so a device has one identity whichever source sees it.
//!
//! One round: bring the descriptor index up to date (full rebuild on a slow cadence, otherwise
//! only processes that started or exited), read the fdinfo of the known DRM descriptors, merge
//! descriptors into clients by `(drm-pdev, drm-client-id)`, charge each client once, and turn
//! engine counters into percentages against the previous round.
//!
//! Where each part lives: [`index`] (which descriptors are DRM nodes), [`fdinfo`] (the parser),
//! `clients` (descriptors into clients), `devices` (the round's devices), `charge` (clients to
//! processes), `usage` (memory classes, engine rates, per-process sums), `status` (the detail).

mod charge;
mod clients;
mod devices;
pub mod fdinfo;
pub mod index;
mod status;
mod usage;

use crate::procfs::ProcReader;
use crate::sysfs::{self, DrmCard};
use clients::ClientKey;
use devices::RoundDevices;
use gpuledger_model::{Snapshot, SourceState, SourceStatus};
use index::FdIndex;
use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use usage::EngineSample;
pub use usage::{region_class, RegionClass};

/// How clients are de-duplicated (the message key); written into the snapshot so a reader
/// knows the rule.
pub const DEDUPE_RULE: &str = "report-note-drm-dedupe-rule";

/// Full descriptor-index rebuild cadence by default. Between rebuilds only started/exited
/// processes are scanned, so a long-running process that opens its first DRM node is seen at the
/// next rebuild, or sooner: when a device's unattributed memory grows by more than
/// [`UNATTRIBUTED_JUMP`] (someone the index does not know allocated), at most every
/// [`MIN_REBUILD_NS`]. A rebuild walks every process's descriptors (42 ms of CPU for 2,000
/// processes and 20,000 descriptors): every 5 s that was 8 ms a round at a 1 s refresh.
pub const DEFAULT_REBUILD_NS: u64 = 60_000_000_000;
/// The shortest time between two rebuilds the memory trigger may cause.
pub const MIN_REBUILD_NS: u64 = 5_000_000_000;
/// Growth of a device's unattributed memory (used − what its known clients hold) that makes the
/// next round look for the process holding it.
pub const UNATTRIBUTED_JUMP: u64 = 64 << 20;

/// Counts from the last round, for the source detail, selftest and the benchmark.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoundStats {
    pub rebuilt: bool,
    pub started: usize,
    pub exited: usize,
    pub fdinfo_read: usize,
    /// Descriptors that were in the index but gone (or no longer DRM) when their fdinfo was read.
    pub vanished: usize,
    pub clients: usize,
    /// Clients open on more than one descriptor of the same process.
    pub dup_fd_clients: usize,
    /// Clients held by more than one process.
    pub shared_clients: usize,
    pub malformed_lines: usize,
    pub skipped_nvml_clients: usize,
    pub kfd_processes: usize,
    pub dxg_processes: usize,
}

/// Whose descriptors a round walks.
#[derive(Clone, Copy)]
pub enum Scope<'a> {
    /// Every process (incrementally between rebuilds): a DRM device NVML does not cover is
    /// present, or no GPU source names the processes, so DRM clients can only be found this way.
    All,
    /// Only these processes (the GPU processes NVML or the platform named), through the round's
    /// process view: on an NVIDIA-only machine nothing else can hold a client that counts.
    Only(&'a [u32]),
}

/// The DRM source, held across rounds by the collector.
pub struct DrmSource {
    proc_root: PathBuf,
    sys_root: PathBuf,
    index: Option<FdIndex>,
    /// The index holds only some processes (a [`Scope::Only`] round): rebuild before an `All`.
    partial: bool,
    last_build_ns: u64,
    pub rebuild_every_ns: u64,
    /// Per device uuid, the least unattributed memory seen since the last rebuild.
    unattributed_low: HashMap<String, u64>,
    /// A device's unattributed memory grew past [`UNATTRIBUTED_JUMP`]: rebuild soon.
    unknown_holder: bool,
    prev: HashMap<ClientKey, EngineSample>,
    buf: Vec<u8>,
    pub stats: RoundStats,
    /// The process view of [`DrmSource::collect`] (callers without a collector's own), kept.
    own_procs: Option<ProcReader>,
}

impl DrmSource {
    pub fn new(proc_root: &Path, sys_root: &Path) -> Self {
        DrmSource {
            proc_root: proc_root.to_path_buf(),
            sys_root: sys_root.to_path_buf(),
            index: None,
            partial: false,
            last_build_ns: 0,
            rebuild_every_ns: DEFAULT_REBUILD_NS,
            unattributed_low: HashMap::new(),
            unknown_holder: false,
            prev: HashMap::new(),
            buf: Vec::with_capacity(4096),
            stats: RoundStats::default(),
            own_procs: None,
        }
    }

    /// Rebuild the descriptor index from scratch now.
    pub fn rebuild_index(&mut self, now_ns: u64) -> io::Result<()> {
        self.index = Some(FdIndex::build(&self.proc_root)?);
        self.partial = false;
        self.last_build_ns = now_ns;
        Ok(())
    }

    fn update_index(&mut self, procs: &ProcReader, now_ns: u64, scope: Scope) -> io::Result<()> {
        if let Scope::Only(pids) = scope {
            // New GPU processes are scanned each round, a known one's descriptors again on its
            // own staggered cadence (index::RESCAN), never all at once.
            let due = !self.partial || self.index.is_none();
            match &mut self.index {
                Some(idx) if !due => {
                    let (s, e) = idx.refresh_pids(procs, pids, now_ns);
                    self.stats.started = s;
                    self.stats.exited = e;
                }
                _ => {
                    self.index = Some(FdIndex::of_pids(procs, pids, now_ns));
                    self.partial = true;
                    self.last_build_ns = now_ns;
                    self.stats.rebuilt = true;
                }
            }
            return Ok(());
        }
        let since = now_ns.saturating_sub(self.last_build_ns);
        let due = match &self.index {
            None => true,
            Some(_) if self.partial => true,
            Some(_) => {
                since >= self.rebuild_every_ns
                    || (self.unknown_holder && since >= MIN_REBUILD_NS.min(self.rebuild_every_ns))
            }
        };
        if due {
            self.rebuild_index(now_ns)?;
            self.stats.rebuilt = true;
        } else if let Some(idx) = &mut self.index {
            let (s, e) = idx.refresh(&self.proc_root)?;
            self.stats.started = s;
            self.stats.exited = e;
        }
        Ok(())
    }

    /// One round into `snap`. `now_ns` is a monotonic clock reading (engine rates divide by its
    /// difference between rounds); `nvml_bus_ids` are PCI addresses NVML already reports, whose
    /// DRM nodes are skipped so that no device or client is counted twice.
    pub fn collect(
        &mut self,
        snap: &mut Snapshot,
        now_ns: u64,
        nvml_bus_ids: &HashSet<String>,
    ) -> SourceStatus {
        let procs = self
            .own_procs
            .take()
            .unwrap_or_else(|| ProcReader::new(&self.proc_root));
        let status = self.collect_scoped(&procs, snap, now_ns, nvml_bus_ids, |_| Scope::All);
        self.own_procs = Some(procs);
        status
    }

    /// [`DrmSource::collect`], walking the descriptors `scope` chooses once the DRM cards are
    /// known (it is given them).
    ///
    /// The steps of a round, in order: sysfs cards; the descriptor index ([`Scope`]); fdinfo read
    /// and grouped into clients (`clients`); devices from sysfs, then from fdinfo alone
    /// (`devices`); each client charged to one process with its engine rates (`charge`); the
    /// per-process sums merged into `snap`; the status line (`status`).
    pub fn collect_scoped<'a>(
        &mut self,
        procs: &ProcReader,
        snap: &mut Snapshot,
        now_ns: u64,
        nvml_bus_ids: &HashSet<String>,
        scope: impl FnOnce(&[DrmCard]) -> Scope<'a>,
    ) -> SourceStatus {
        self.stats = RoundStats::default();
        let cards = sysfs::discover(&self.sys_root)
            .map_err(|e| format!("{}: {e}", self.class_dir().display()));
        let cards_list: &[DrmCard] = cards.as_deref().unwrap_or(&[]);
        if let Err(e) = self.update_index(procs, now_ns, scope(cards_list)) {
            return SourceStatus::new(
                "drm",
                SourceState::Unavailable,
                format!("cannot list processes in {}: {e}", self.proc_root.display()),
            );
        }
        let nodes = sysfs::node_map(cards_list);
        let clients = self.read_clients(&nodes, nvml_bus_ids);
        let devices =
            RoundDevices::add(snap, cards_list, &clients, nvml_bus_ids, &self.class_dir());
        let usage = self.charge(procs, &clients, &devices.by_slot, now_ns, snap);
        self.merge(snap, usage);
        self.watch_unattributed(snap, devices.by_slot.values());
        self.round_status(&devices.shown, &cards)
    }

    /// Note whether a device's unattributed memory grew since the last rebuild: a process the
    /// index does not know (one that opened its first DRM node after it was scanned) allocated.
    fn watch_unattributed<'s>(&mut self, snap: &Snapshot, uuids: impl Iterator<Item = &'s String>) {
        if self.stats.rebuilt {
            self.unattributed_low.clear();
            self.unknown_holder = false;
        }
        for uuid in uuids {
            let Some(used) = snap
                .devices
                .iter()
                .find(|d| &d.uuid == uuid)
                .and_then(|d| d.memory.used_bytes)
            else {
                continue;
            };
            let held: u64 = snap
                .processes
                .iter()
                .flat_map(|p| &p.usage)
                .filter(|u| &u.device == uuid)
                .filter_map(|u| u.memory_bytes)
                .sum();
            let now = used.saturating_sub(held);
            let low = self.unattributed_low.entry(uuid.clone()).or_insert(now);
            *low = (*low).min(now);
            if now > *low + UNATTRIBUTED_JUMP {
                self.unknown_holder = true;
            }
        }
    }

    /// `<sys>/class/drm`, where DRM devices are listed.
    fn class_dir(&self) -> PathBuf {
        self.sys_root.join("class/drm")
    }

    pub fn index(&self) -> Option<&FdIndex> {
        self.index.as_ref()
    }
}
