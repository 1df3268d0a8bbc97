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

pub mod fdinfo;
pub mod index;

use crate::sysfs::{self, DrmCard};
use fdinfo::FdInfo;
use gpuledger_model::{Device, Process, Snapshot, SourceState, SourceStatus, Usage, UsageKind};
use index::FdIndex;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// How clients are de-duplicated; written into the snapshot so a reader knows the rule.
pub const DEDUPE_RULE: &str = "DRM clients de-duplicated by (drm-pdev, drm-client-id): a client open on several descriptors counts once; a client shared by several processes is charged to one holder (PID 1 and systemd descriptor holders last, then the lowest PID) and shown as 0 with a note on the others";

/// Full descriptor-index rebuild cadence by default. Between rebuilds only started/exited
/// processes are scanned, so a long-running process that opens its first DRM node is seen at the
/// next rebuild.
pub const DEFAULT_REBUILD_NS: u64 = 5_000_000_000;

/// Engines that are not 3D/compute: excluded from the per-process "GPU %" summary.
const MEDIA_COPY_ENGINES: [&str; 13] = [
    "dma",
    "copy",
    "bcs",
    "dec",
    "enc",
    "enc_1",
    "jpeg",
    "vcn",
    "vpe",
    "video",
    "video-enhance",
    "vcs",
    "vecs",
];

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum ClientIdent {
    Id(u64),
    /// No `drm-client-id` (very old kernels): one client per descriptor, cannot de-duplicate.
    Fd(u32, u32),
}

type ClientKey = (String, ClientIdent);

#[derive(Debug, Clone, Default)]
struct EngineSample {
    t_ns: u64,
    engine_ns: BTreeMap<String, u64>,
    cycles: BTreeMap<String, u64>,
    total_cycles: BTreeMap<String, u64>,
}

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

struct Client {
    slot: String,
    node: String,
    info: FdInfo,
    /// (pid, fd, fdinfo path) for every descriptor of the client.
    fds: Vec<(u32, u32, PathBuf)>,
}

/// Whose descriptors a round walks.
#[derive(Clone, Copy)]
pub enum Scope<'a> {
    /// Every process (incrementally between rebuilds): a DRM device NVML does not cover is
    /// present, or no GPU source names the processes, so DRM clients can only be found this way.
    All,
    /// Only these processes (the GPU processes NVML or the platform named), through the round's
    /// process view: on an NVIDIA-only machine nothing else can hold a client that counts.
    Only(&'a crate::procfs::ProcReader, &'a [u32]),
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
    prev: HashMap<ClientKey, EngineSample>,
    buf: Vec<u8>,
    pub stats: RoundStats,
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
            prev: HashMap::new(),
            buf: Vec::with_capacity(4096),
            stats: RoundStats::default(),
        }
    }

    /// Rebuild the descriptor index from scratch now.
    pub fn rebuild_index(&mut self, now_ns: u64) -> io::Result<()> {
        self.index = Some(FdIndex::build(&self.proc_root)?);
        self.partial = false;
        self.last_build_ns = now_ns;
        Ok(())
    }

    fn update_index(&mut self, now_ns: u64, scope: Scope) -> io::Result<()> {
        if let Scope::Only(procs, pids) = scope {
            // The same cadence as the full index: new GPU processes are scanned each round, a
            // known one's descriptors again at the next rebuild.
            let due = !self.partial
                || self.index.is_none()
                || now_ns.saturating_sub(self.last_build_ns) >= self.rebuild_every_ns;
            match &mut self.index {
                Some(idx) if !due => {
                    let (s, e) = idx.refresh_pids(procs, pids);
                    self.stats.started = s;
                    self.stats.exited = e;
                }
                _ => {
                    self.index = Some(FdIndex::of_pids(procs, pids));
                    self.partial = true;
                    self.last_build_ns = now_ns;
                    self.stats.rebuilt = true;
                }
            }
            return Ok(());
        }
        let due = match &self.index {
            None => true,
            Some(_) if self.partial => true,
            Some(_) => now_ns.saturating_sub(self.last_build_ns) >= self.rebuild_every_ns,
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
        self.collect_scoped(snap, now_ns, nvml_bus_ids, |_| Scope::All)
    }

    /// [`DrmSource::collect`], walking the descriptors `scope` chooses once the DRM cards are
    /// known (it is given them).
    pub fn collect_scoped<'a>(
        &mut self,
        snap: &mut Snapshot,
        now_ns: u64,
        nvml_bus_ids: &HashSet<String>,
        scope: impl FnOnce(&[DrmCard]) -> Scope<'a>,
    ) -> SourceStatus {
        self.stats = RoundStats::default();
        let cards = match sysfs::discover(&self.sys_root) {
            Ok(c) => Ok(c),
            Err(e) => Err(format!(
                "{}: {e}",
                self.sys_root.join("class/drm").display()
            )),
        };
        let cards_list: &[DrmCard] = cards.as_deref().unwrap_or(&[]);
        if let Err(e) = self.update_index(now_ns, scope(cards_list)) {
            return SourceStatus::new(
                "drm",
                SourceState::Unavailable,
                format!("cannot list processes in {}: {e}", self.proc_root.display()),
            );
        }
        let nodes = sysfs::node_map(cards_list);
        let clients = self.read_clients(&nodes, nvml_bus_ids);

        // Devices: every sysfs card NVML does not already report, then any slot a client names
        // that sysfs did not show.
        let mut by_slot: BTreeMap<String, String> = BTreeMap::new();
        let mut shown = Vec::new();
        for card in cards_list {
            if nvml_bus_ids.contains(&card.slot) {
                continue;
            }
            let dev = sysfs::device(card, snap.devices.len() as u32);
            by_slot.insert(card.slot.clone(), dev.uuid.clone());
            shown.push(format!(
                "{} {}{}",
                card.driver.as_deref().unwrap_or("?"),
                card.slot,
                if dev.power_state.as_deref() == Some("suspended") {
                    " suspended"
                } else {
                    ""
                }
            ));
            snap.devices.push(dev);
        }
        for c in &clients {
            if by_slot.contains_key(&c.slot) {
                continue;
            }
            let vendor = sysfs::vendor_of(None, c.info.driver.as_deref());
            // The same rule as for sysfs devices, so a device has one identity either way.
            let uuid = sysfs::uuid_for_slot(&c.slot);
            let mut dev = Device::new(snap.devices.len() as u32, vendor, uuid.clone(), "fdinfo");
            dev.pci_bus_id = fdinfo::is_pci_slot(&c.slot).then(|| c.slot.clone());
            dev.name = c.info.driver.clone();
            let why = format!(
                "device seen only in DRM fdinfo (node {}), not under {}",
                c.node,
                self.sys_root.join("class/drm").display()
            );
            for f in [
                "memory.total_bytes",
                "memory.used_bytes",
                "utilization.gpu_percent",
            ] {
                dev.mark_unavailable(f, why.clone());
            }
            shown.push(format!(
                "{} {} (fdinfo only)",
                c.info.driver.as_deref().unwrap_or("?"),
                c.slot
            ));
            by_slot.insert(c.slot.clone(), uuid);
            snap.devices.push(dev);
        }

        let usage = self.charge(&clients, &by_slot, now_ns, snap);
        self.merge(snap, usage);

        let class = self.sys_root.join("class/drm");
        if shown.is_empty() && self.stats.clients == 0 {
            let why = match &cards {
                Ok(_) => String::new(),
                Err(e) => format!(" ({e})"),
            };
            let mut detail = format!(
                "no DRM devices under {}{why} and no process with a DRM node open",
                class.display()
            );
            if self.stats.skipped_nvml_clients > 0 {
                detail = format!(
                    "no DRM devices besides those NVML reports; {} client{} on NVIDIA devices skipped (NVML reports them)",
                    self.stats.skipped_nvml_clients,
                    plural(self.stats.skipped_nvml_clients)
                );
            }
            if let Some(i) = self.index.as_ref().filter(|i| i.unreadable > 0) {
                detail.push_str(&format!(
                    "; descriptors of {} processes not readable (permission denied; run as root to see other users)",
                    i.unreadable
                ));
            }
            return SourceStatus::new("drm", SourceState::Unavailable, detail);
        }
        let mut detail = format!(
            "{} DRM device{} ({}), {} client{}",
            shown.len(),
            plural(shown.len()),
            shown.join(", "),
            self.stats.clients,
            plural(self.stats.clients)
        );
        if let Err(e) = &cards {
            detail.push_str(&format!("; no sysfs device data: {e}"));
        }
        let idx = self.index.as_ref();
        detail.push_str(&format!(
            " on {} descriptor{} in {} process{}; {}",
            self.stats.fdinfo_read - self.stats.vanished,
            plural(self.stats.fdinfo_read - self.stats.vanished),
            idx.map_or(0, |i| i
                .entries
                .values()
                .filter(|e| !e.drm_fds.is_empty())
                .count()),
            if idx.map_or(0, |i| i.entries.len()) == 1 {
                ""
            } else {
                "es"
            },
            "de-duplicated by (drm-pdev, drm-client-id)"
        ));
        let s = &self.stats;
        let mut extra = Vec::new();
        if s.vanished > 0 {
            extra.push(format!(
                "{} descriptor{} closed during the round",
                s.vanished,
                plural(s.vanished)
            ));
        }
        if s.skipped_nvml_clients > 0 {
            extra.push(format!(
                "{} client{} on NVIDIA devices skipped (NVML reports them)",
                s.skipped_nvml_clients,
                plural(s.skipped_nvml_clients)
            ));
        }
        if let Some(i) = idx.filter(|i| i.unreadable > 0) {
            extra.push(format!(
                "descriptors of {} process{} not readable (permission denied; other users' GPU use needs root)",
                i.unreadable,
                if i.unreadable == 1 { "" } else { "es" }
            ));
        }
        if s.dxg_processes > 0 {
            extra.push(format!(
                "{} process{} with /dev/dxg open (WSL2 GPU paravirtualisation: measured by the dxg source, not by fdinfo)",
                s.dxg_processes,
                if s.dxg_processes == 1 { "" } else { "es" }
            ));
        }
        if !extra.is_empty() {
            detail.push_str("; ");
            detail.push_str(&extra.join("; "));
        }
        SourceStatus::new("drm", SourceState::Ok, detail)
    }

    /// Read the fdinfo of every indexed DRM descriptor and group descriptors into clients.
    fn read_clients(
        &mut self,
        nodes: &BTreeMap<String, String>,
        nvml_bus_ids: &HashSet<String>,
    ) -> Vec<Client> {
        let Some(idx) = self.index.as_mut() else {
            return Vec::new();
        };
        let mut clients: BTreeMap<ClientKey, Client> = BTreeMap::new();
        let mut gone: Vec<(u32, u32)> = Vec::new();
        let mut path = self.proc_root.clone();
        for (&pid, entry) in &idx.entries {
            if entry.kfd {
                self.stats.kfd_processes += 1;
            }
            if entry.dxg {
                self.stats.dxg_processes += 1;
            }
            for (fd, node) in &entry.drm_fds {
                path.push(pid.to_string());
                path.push("fdinfo");
                path.push(fd.to_string());
                self.stats.fdinfo_read += 1;
                let read = read_bounded(&path, &mut self.buf);
                let file = path.clone();
                path.pop();
                path.pop();
                path.pop();
                if read.is_err() {
                    // Closed between the index scan and now, or the process exited.
                    self.stats.vanished += 1;
                    gone.push((pid, *fd));
                    continue;
                }
                let info = fdinfo::parse(&String::from_utf8_lossy(&self.buf));
                if !info.is_drm() {
                    // The number was reused for something that is not a DRM client.
                    self.stats.vanished += 1;
                    gone.push((pid, *fd));
                    continue;
                }
                self.stats.malformed_lines += info.problems.len();
                let slot = info
                    .pdev
                    .clone()
                    .or_else(|| nodes.get(node).cloned())
                    .unwrap_or_else(|| node.clone());
                if nvml_bus_ids.contains(&slot) {
                    self.stats.skipped_nvml_clients += 1;
                    continue;
                }
                let ident = match info.client_id {
                    Some(id) => ClientIdent::Id(id),
                    None => ClientIdent::Fd(pid, *fd),
                };
                match clients.entry((slot, ident)) {
                    std::collections::btree_map::Entry::Occupied(mut o) => {
                        o.get_mut().fds.push((pid, *fd, file));
                    }
                    std::collections::btree_map::Entry::Vacant(v) => {
                        let slot = v.key().0.clone();
                        v.insert(Client {
                            slot,
                            node: node.clone(),
                            info,
                            fds: vec![(pid, *fd, file)],
                        });
                    }
                }
            }
        }
        for (pid, fd) in gone {
            idx.drop_fd(pid, fd);
        }
        // Skipped NVIDIA clients are not clients of this source.
        let mut out: Vec<Client> = clients.into_values().collect();
        self.stats.clients = out.len();
        for c in &mut out {
            let mut pids: Vec<u32> = c.fds.iter().map(|f| f.0).collect();
            let nfds = pids.len();
            pids.dedup();
            if pids.len() > 1 {
                self.stats.shared_clients += 1;
            }
            if nfds > pids.len() {
                self.stats.dup_fd_clients += 1;
            }
        }
        out
    }

    /// Charge each client to one process and compute engine rates; returns per-pid usage.
    fn charge(
        &mut self,
        clients: &[Client],
        by_slot: &BTreeMap<String, String>,
        now_ns: u64,
        snap: &mut Snapshot,
    ) -> BTreeMap<u32, BTreeMap<String, Agg>> {
        let mut out: BTreeMap<u32, BTreeMap<String, Agg>> = BTreeMap::new();
        let mut next_prev = HashMap::with_capacity(clients.len());
        let mut notes = Vec::new();
        let mut problem_notes = 0usize;
        for c in clients {
            let uuid = by_slot[&c.slot].clone();
            let mut holders: Vec<u32> = c.fds.iter().map(|f| f.0).collect();
            holders.dedup();
            let owner = if holders.len() > 1 {
                *holders
                    .iter()
                    .min_by_key(|&&p| (is_fd_store(&self.proc_root, p), p))
                    .unwrap_or(&holders[0])
            } else {
                holders[0]
            };
            let key = (c.slot.clone(), ident_of(c));
            let (sample, rates) = rates(self.prev.get(&key), &c.info, now_ns);
            next_prev.insert(key, sample);

            let (vram, sys) = memory_of(c);
            let agg = out
                .entry(owner)
                .or_default()
                .entry(uuid.clone())
                .or_default();
            agg.clients += 1;
            agg.add_memory(vram, sys);
            match rates {
                Some(r) => agg.add_rates(&r),
                None => agg.engines_missing = true,
            }
            for p in &c.info.problems {
                if problem_notes < 10 {
                    notes.push(format!(
                        "{} line {}: {:?}: {}",
                        c.fds[0].2.display(),
                        p.line,
                        p.text,
                        p.why
                    ));
                }
                problem_notes += 1;
            }
            for &h in holders.iter().filter(|&&h| h != owner) {
                let a = out.entry(h).or_default().entry(uuid.clone()).or_default();
                a.notes.push(format!(
                    "shares DRM client {} with pid {owner}, which is charged for it",
                    client_label(c)
                ));
                a.shared_only_clients += 1;
            }
        }
        if problem_notes > 10 {
            notes.push(format!(
                "{} more malformed fdinfo lines not listed",
                problem_notes - 10
            ));
        }
        self.prev = next_prev;
        if self.stats.shared_clients > 0 || self.stats.dup_fd_clients > 0 {
            notes.insert(
                0,
                format!(
                    "{DEDUPE_RULE} ({} client{} on several descriptors of one process, {} shared between processes)",
                    self.stats.dup_fd_clients,
                    plural(self.stats.dup_fd_clients),
                    self.stats.shared_clients
                ),
            );
        }
        snap.notes.extend(notes);
        out
    }

    /// Add the per-process usage to the snapshot (merging with processes other sources found).
    fn merge(&self, snap: &mut Snapshot, usage: BTreeMap<u32, BTreeMap<String, Agg>>) {
        let kfd: BTreeSet<u32> = self
            .index
            .as_ref()
            .map(|i| {
                i.entries
                    .iter()
                    .filter(|(_, e)| e.kfd)
                    .map(|(p, _)| *p)
                    .collect()
            })
            .unwrap_or_default();
        let mut kfd_without_drm = 0;
        for pid in &kfd {
            if !usage.contains_key(pid) {
                kfd_without_drm += 1;
            }
        }
        for (pid, devs) in usage {
            let pos = match snap.processes.iter().position(|p| p.pid == pid) {
                Some(i) => i,
                None => {
                    snap.processes.push(Process::new(pid));
                    snap.processes.len() - 1
                }
            };
            let p = &mut snap.processes[pos];
            let is_kfd = kfd.contains(&pid);
            p.rocm_kfd |= is_kfd;
            for (uuid, agg) in devs {
                p.usage.push(agg.into_usage(uuid, is_kfd));
            }
        }
        if kfd_without_drm > 0 {
            snap.notes.push(format!(
                "{kfd_without_drm} process{} /dev/kfd (ROCm) open but no DRM node: {} GPU memory cannot be attributed",
                if kfd_without_drm == 1 { " has" } else { "es have" },
                if kfd_without_drm == 1 { "its" } else { "their" }
            ));
        }
    }

    pub fn index(&self) -> Option<&FdIndex> {
        self.index.as_ref()
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn ident_of(c: &Client) -> ClientIdent {
    match c.info.client_id {
        Some(id) => ClientIdent::Id(id),
        None => ClientIdent::Fd(c.fds[0].0, c.fds[0].1),
    }
}

fn client_label(c: &Client) -> String {
    match c.info.client_id {
        Some(id) => format!("{id} on {}", c.slot),
        None => format!("on {} (fd {} of pid {})", c.slot, c.fds[0].1, c.fds[0].0),
    }
}

/// Read at most [`fdinfo::MAX_FDINFO_BYTES`] of a file into `buf`.
/// An fdinfo file into `buf`, cut at [`fdinfo::MAX_FDINFO_BYTES`]: open + read + close (no size
/// query first, as `read_to_end` on a `File` makes).
fn read_bounded(path: &Path, buf: &mut Vec<u8>) -> io::Result<()> {
    use crate::procfs::read::{read_into, Records};
    match read_into(path, buf, fdinfo::MAX_FDINFO_BYTES, Records::One) {
        Err(e) if e.kind() == io::ErrorKind::InvalidData => {
            buf.truncate(fdinfo::MAX_FDINFO_BYTES);
            Ok(())
        }
        r => r,
    }
}

/// PID 1 and systemd's descriptor holders (logind keeps the compositor's DRM fds) hold clients
/// that some other process really uses; amdgpu_top excludes them for the same reason.
fn is_fd_store(proc_root: &Path, pid: u32) -> bool {
    if pid == 1 {
        return true;
    }
    let mut raw = Vec::new();
    let ok = fs::File::open(proc_root.join(pid.to_string()).join("cmdline"))
        .and_then(|f| f.take(512).read_to_end(&mut raw));
    ok.is_ok() && (raw.starts_with(b"/lib/systemd/") || raw.starts_with(b"/usr/lib/systemd/"))
}

/// Region classes: device-local memory, GPU-visible system memory, or neither.
#[derive(Debug, PartialEq, Eq)]
pub enum RegionClass {
    Vram,
    System,
    /// Not a memory pool of either ledger: amdgpu `cpu` (not GPU-mapped), `gds`/`gws`/`oa`/
    /// `doorbell` (on-chip resources), xe `stolen`, unknown names.
    Other,
}

pub fn region_class(name: &str) -> RegionClass {
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if let Some(n) = name
        .strip_prefix("vram")
        .or_else(|| name.strip_prefix("local"))
    {
        if digits(n) {
            return RegionClass::Vram;
        }
    }
    if let Some(n) = name.strip_prefix("stolen-local") {
        if digits(n) {
            return RegionClass::Vram;
        }
    }
    if name == "gtt" || name == "memory" {
        return RegionClass::System;
    }
    if let Some(n) = name
        .strip_prefix("system")
        .or_else(|| name.strip_prefix("stolen-system"))
    {
        if digits(n) {
            return RegionClass::System;
        }
    }
    RegionClass::Other
}

/// VRAM and system memory held by one client; `Err` says why a figure is unknown. System memory
/// is `Ok(None)` when the driver printed no system-memory region.
type MemFigures = (Result<u64, String>, Result<Option<u64>, String>);

fn memory_of(c: &Client) -> MemFigures {
    let info = &c.info;
    if info.regions.is_empty() && info.bad_regions.is_empty() {
        return (
            Err(format!(
                "{} prints no memory keys in fdinfo on this kernel",
                info.driver.as_deref().unwrap_or("the driver")
            )),
            Ok(None),
        );
    }
    let bad = |class: RegionClass| {
        info.bad_regions
            .iter()
            .find(|r| region_class(r) == class)
            .map(|r| {
                let line = info
                    .problems
                    .iter()
                    .find(|p| p.text.contains(r.as_str()))
                    .map(|p| format!(" line {}", p.line))
                    .unwrap_or_default();
                format!(
                    "{}{line} is malformed, so the {r} figure is unknown",
                    c.fds[0].2.display()
                )
            })
    };
    let mut vram = 0u64;
    let mut sys: Option<u64> = None;
    for (name, r) in &info.regions {
        let Some(h) = r.held() else { continue };
        match region_class(name) {
            RegionClass::Vram => vram = vram.saturating_add(h),
            RegionClass::System => sys = Some(sys.unwrap_or(0).saturating_add(h)),
            RegionClass::Other => {}
        }
    }
    (
        bad(RegionClass::Vram).map_or(Ok(vram), Err),
        bad(RegionClass::System).map_or(Ok(sys), Err),
    )
}

/// Engine percentages since the previous sample (None on the first sample of a client).
fn rates(
    prev: Option<&EngineSample>,
    info: &FdInfo,
    now_ns: u64,
) -> (EngineSample, Option<BTreeMap<String, f64>>) {
    // Counters may go backwards; the spec says to keep the larger previous value until a
    // monotonic update is seen.
    let keep = |new: &BTreeMap<String, u64>, old: Option<&BTreeMap<String, u64>>| {
        new.iter()
            .map(|(k, &v)| {
                let p = old.and_then(|o| o.get(k)).copied().unwrap_or(0);
                (k.clone(), v.max(p))
            })
            .collect::<BTreeMap<_, _>>()
    };
    let sample = EngineSample {
        t_ns: now_ns,
        engine_ns: keep(&info.engine_ns, prev.map(|p| &p.engine_ns)),
        cycles: keep(&info.cycles, prev.map(|p| &p.cycles)),
        total_cycles: keep(&info.total_cycles, prev.map(|p| &p.total_cycles)),
    };
    let Some(prev) = prev else {
        return (sample, None);
    };
    let dt = now_ns.saturating_sub(prev.t_ns);
    if dt == 0 {
        return (sample, None);
    }
    let mut out = BTreeMap::new();
    for (k, &v) in &sample.engine_ns {
        let d = v - prev.engine_ns.get(k).copied().unwrap_or(0).min(v);
        let pct = d as f64 * 100.0 / dt as f64 / info.capacity_of(k) as f64;
        out.insert(k.clone(), pct.clamp(0.0, 100.0));
    }
    for (k, &c) in &sample.cycles {
        let (Some(&t), Some(&pt)) = (sample.total_cycles.get(k), prev.total_cycles.get(k)) else {
            continue;
        };
        let pc = prev.cycles.get(k).copied().unwrap_or(0).min(c);
        let dtc = t.saturating_sub(pt);
        let pct = if dtc == 0 {
            0.0
        } else {
            (c - pc) as f64 * 100.0 / dtc as f64 / info.capacity_of(k) as f64
        };
        out.insert(k.clone(), pct.clamp(0.0, 100.0));
    }
    (sample, Some(out))
}

/// One process on one device, summed over the clients charged to it.
#[derive(Debug, Default)]
struct Agg {
    clients: usize,
    shared_only_clients: usize,
    vram: Option<u64>,
    vram_unknown: bool,
    sys: Option<u64>,
    sys_unknown: bool,
    why: Option<String>,
    engines: BTreeMap<String, f64>,
    engines_missing: bool,
    notes: Vec<String>,
}

impl Agg {
    fn add_memory(&mut self, vram: Result<u64, String>, sys: Result<Option<u64>, String>) {
        match vram {
            Ok(v) => self.vram = Some(self.vram.unwrap_or(0).saturating_add(v)),
            Err(why) => {
                self.vram_unknown = true;
                self.why.get_or_insert(why);
            }
        }
        match sys {
            Ok(Some(v)) => self.sys = Some(self.sys.unwrap_or(0).saturating_add(v)),
            Ok(None) => {}
            Err(why) => {
                self.sys_unknown = true;
                self.why.get_or_insert(why);
            }
        }
    }

    fn add_rates(&mut self, r: &BTreeMap<String, f64>) {
        for (k, v) in r {
            *self.engines.entry(k.clone()).or_default() += v;
        }
    }

    fn into_usage(self, uuid: String, kfd: bool) -> Usage {
        let mut u = Usage::new(uuid, "fdinfo");
        if self.clients == 0 {
            // Holds only clients charged to another process.
            u.memory_bytes = Some(0);
        } else {
            // The reason covers whichever figure is unknown (VRAM or system memory).
            u.memory_bytes = if self.vram_unknown { None } else { self.vram };
            u.unavailable_reason = self.why.clone();
        }
        if !self.sys_unknown {
            u.system_memory_bytes = self.sys.or((self.clients == 0).then_some(0));
        }
        if kfd {
            u.kinds.push(UsageKind::Compute);
            u.engines.unavailable_reason = Some(
                "ROCm compute (/dev/kfd open): the amdkfd driver does not report engine time in fdinfo, so GPU % is unknown, not 0 %".into(),
            );
        } else if self.clients == 0 {
            u.engines.unavailable_reason =
                Some("engine time is charged to the process that holds the shared client".into());
        } else if self.engines_missing {
            u.engines.unavailable_reason = Some(
                "first sample of this DRM client: engine use is a rate and needs a second round"
                    .into(),
            );
        } else {
            let sm = self
                .engines
                .iter()
                .filter(|(k, _)| !MEDIA_COPY_ENGINES.contains(&k.as_str()))
                .map(|(_, v)| *v)
                .fold(0.0f64, f64::max);
            // amdgpu prints only engines with non-zero time: a missing engine is idle.
            u.engines.sm_percent = Some(sm.min(100.0).round() as u32);
            u.engines_by_type = self
                .engines
                .iter()
                .map(|(k, v)| (k.clone(), v.min(100.0).round() as u32))
                .collect();
        }
        if !self.notes.is_empty() {
            u.accounting_note = Some(self.notes.join("; "));
        }
        u
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_classes() {
        for v in ["vram", "vram0", "local0", "stolen-local0"] {
            assert_eq!(region_class(v), RegionClass::Vram, "{v}");
        }
        for s in ["gtt", "system", "system0", "stolen-system0", "memory"] {
            assert_eq!(region_class(s), RegionClass::System, "{s}");
        }
        for o in ["cpu", "gds", "gws", "oa", "doorbell", "stolen", "vramx"] {
            assert_eq!(region_class(o), RegionClass::Other, "{o}");
        }
    }

    fn info(text: &str) -> FdInfo {
        fdinfo::parse(text)
    }

    #[test]
    fn ns_rates_capacity_and_backwards_counters() {
        let a = info("drm-driver: i915\ndrm-engine-render: 1000000000 ns\ndrm-engine-video: 0 ns\ndrm-engine-capacity-video: 2\n");
        let (s1, r) = rates(None, &a, 10_000_000_000);
        assert!(r.is_none(), "first sample has no rate");
        // 0.25 s of render in 1 s; 1 s of video on a 2-engine group in 1 s.
        let b = info("drm-driver: i915\ndrm-engine-render: 1250000000 ns\ndrm-engine-video: 1000000000 ns\ndrm-engine-capacity-video: 2\n");
        let (s2, r) = rates(Some(&s1), &b, 11_000_000_000);
        let r = r.unwrap();
        assert!((r["render"] - 25.0).abs() < 1e-9, "{r:?}");
        assert!((r["video"] - 50.0).abs() < 1e-9, "{r:?}");
        // Render went backwards: keep the previous value, 0 % this interval, and do not
        // count the drop again when it comes back.
        let c = info("drm-driver: i915\ndrm-engine-render: 900000000 ns\n");
        let (s3, r) = rates(Some(&s2), &c, 12_000_000_000);
        assert_eq!(r.unwrap()["render"], 0.0);
        assert_eq!(s3.engine_ns["render"], 1_250_000_000);
        let d = info("drm-driver: i915\ndrm-engine-render: 1350000000 ns\n");
        let (_, r) = rates(Some(&s3), &d, 13_000_000_000);
        assert!((r.unwrap()["render"] - 10.0).abs() < 1e-9);
    }

    #[test]
    fn cycle_rates_use_the_gpu_clock() {
        let a = info("drm-driver: xe\ndrm-cycles-rcs: 28257900\ndrm-total-cycles-rcs: 7655183225\ndrm-cycles-ccs: 0\ndrm-total-cycles-ccs: 7655183225\ndrm-engine-capacity-ccs: 4\n");
        let (s1, _) = rates(None, &a, 1);
        let b = info("drm-driver: xe\ndrm-cycles-rcs: 328257900\ndrm-total-cycles-rcs: 8655183225\ndrm-cycles-ccs: 2000000000\ndrm-total-cycles-ccs: 8655183225\ndrm-engine-capacity-ccs: 4\n");
        // The wall clock barely moved: cycles do not depend on it.
        let (_, r) = rates(Some(&s1), &b, 2);
        let r = r.unwrap();
        assert!((r["rcs"] - 30.0).abs() < 1e-9, "{r:?}");
        assert!((r["ccs"] - 50.0).abs() < 1e-9, "{r:?}");
    }
}
