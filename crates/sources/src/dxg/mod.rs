//! WSL2: per-process GPU memory and engine time through `/dev/dxg` (dxgkrnl's D3DKMT
//! `QueryStatistics` ioctl), where NVML shows device totals only.
//!
//! How it works, and when it cannot:
//! - WSL2 paravirtualises the GPU: Linux processes reach the Windows driver through `/dev/dxg`, and
//!   the Windows video memory manager owns their memory, exactly as under WDDM on the host.
//! - `LX_DXQUERYSTATISTICS` forwards a `D3DKMTQueryStatistics` to the host. Microsoft's patch
//!   "drivers: hv: dxgkrnl: Handle process ID in D3DKMTQueryStatistics" (Iouri Tarassov; in
//!   Microsoft's 6.1/6.6 WSL kernels) lets `process` name another Linux process: dxgkrnl looks the
//!   pid up among the processes that opened `/dev/dxg` (by the pid they had in their namespace when
//!   they opened it) and answers `EINVAL` ("Invalid process ID") for any other. Without that patch
//!   only the caller's own statistics come back — the source probes for it and says so.
//! - Per process: `PROCESS_SEGMENT` (bytes committed per memory segment; aperture segments are
//!   system memory) and `PROCESS_NODE` (running time per engine node, 100 ns). Per adapter:
//!   `ADAPTER` (segment and node counts) and `SEGMENT` (size, use, aperture flag).
//! - Not available here: engine names (node metadata is not in the WSL uapi), the PCI address of an
//!   adapter (so pairing with NVML is by elimination only), processes that never opened `/dev/dxg`.
//!
//! [`abi`] holds the raw buffers (offsets checked against Windows' definitions on Windows builds);
//! this module is the pure merge into the WDDM view ([`crate::wddm::WddmView`], label
//! `wddm-dxg`), [`pids_with_dxg`] finds the candidate processes under a procfs root, and `os`
//! (Linux only) issues the ioctls — `DxgSource`.

pub mod abi;

#[cfg(target_os = "linux")]
mod os;
#[cfg(target_os = "linux")]
pub use os::{DxgError, DxgSource};

use crate::wddm::merge::{luid_uuid_with_prefix, MemoryMode, WddmView};
use crate::wddm::Luid;
use abi::{QueryBuf, SegmentInfo};
use gpuledger_lang::Said;
use gpuledger_model::{Device, Memory, Process, SourceState, SourceStatus, Usage, Vendor};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Label of per-process values read through `/dev/dxg`.
pub const LABEL: &str = "wddm-dxg";
pub const FIRST_ROUND: &str =
    "first /dev/dxg round: engine use is a rate between two readings; it is shown from the next refresh";

/// One adapter's answers, as raw hex buffers (what a recorder writes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdapterRecord {
    pub luid: Luid,
    /// The ADAPTER answer.
    pub adapter: String,
    /// SEGMENT answers, one per segment id.
    pub segments: Vec<String>,
}

/// One process's answers on one adapter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessRecord {
    pub pid: u32,
    pub luid: Luid,
    /// PROCESS_SEGMENT answers.
    pub segments: Vec<String>,
    /// PROCESS_NODE answers.
    pub nodes: Vec<String>,
}

/// One round of `/dev/dxg` statistics.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DxgRound {
    /// Monotonic time of the round, 100 ns units (the unit of running times).
    pub taken_100ns: u64,
    pub adapters: Vec<AdapterRecord>,
    pub processes: Vec<ProcessRecord>,
    /// Why processes could not be queried (kernel without pid support, ...), if so.
    #[serde(default)]
    pub process_query_unavailable: Option<String>,
}

/// The largest `/dev/dxg` recording loaded (a round is a few kilobytes per process).
const MAX_RECORDING: u64 = 64 << 20;

/// A recorded round; the error names the file.
pub fn load_round(path: &Path) -> Result<DxgRound, String> {
    crate::recording::load(path, "a /dev/dxg recording", MAX_RECORDING).map_err(|e| e.to_string())
}

/// Pids whose file descriptors include `/dev/dxg`, under a procfs root, and how many processes
/// could not be inspected (other users' fds need privileges).
pub fn pids_with_dxg(proc_root: &Path) -> (Vec<u32>, usize) {
    const MAX_FDS: usize = 1 << 16;
    let mut pids = Vec::new();
    let mut unreadable = 0;
    let Ok(entries) = std::fs::read_dir(proc_root) else {
        return (pids, 0);
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(e.path().join("fd")) else {
            unreadable += 1;
            continue;
        };
        let holds = fds
            .take(MAX_FDS)
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|t| t == Path::new("/dev/dxg")));
        if holds {
            pids.push(pid);
        }
    }
    pids.sort_unstable();
    (pids, unreadable)
}

#[derive(Default)]
struct Decoded {
    /// luid → segments
    segments: BTreeMap<Luid, Vec<SegmentInfo>>,
    processes: BTreeMap<(u32, Luid), ProcStats>,
}

/// One process on one adapter: committed bytes (device-local and aperture) and running time per
/// node (100 ns).
#[derive(Default)]
struct ProcStats {
    dev: u64,
    sys: u64,
    nodes: BTreeMap<u32, u64>,
}

fn decode(r: &DxgRound, notes: &mut Vec<Said>) -> Decoded {
    let mut d = Decoded::default();
    let mut bad = 0usize;
    let mut first_err = None;
    let mut fail = |e: String| {
        bad += 1;
        first_err.get_or_insert(e);
    };
    for a in &r.adapters {
        let mut segs = Vec::new();
        for s in &a.segments {
            match QueryBuf::from_hex(s).and_then(|b| b.segment_info()) {
                Ok(si) => segs.push(si),
                Err(e) => fail(e),
            }
        }
        d.segments.insert(a.luid, segs);
    }
    for p in &r.processes {
        let aperture = |id: u32| {
            d.segments
                .get(&p.luid)
                .and_then(|s| s.iter().find(|s| s.id == id))
                .is_some_and(|s| s.aperture)
        };
        let (mut dev, mut sys, mut nodes) = (0u64, 0u64, BTreeMap::new());
        for s in &p.segments {
            match QueryBuf::from_hex(s)
                .and_then(|b| Ok((b.query_id(), b.process_segment_committed()?)))
            {
                Ok((id, bytes)) if aperture(id) => sys = sys.saturating_add(bytes),
                Ok((_, bytes)) => dev = dev.saturating_add(bytes),
                Err(e) => fail(e),
            }
        }
        for n in &p.nodes {
            match QueryBuf::from_hex(n)
                .and_then(|b| Ok((b.query_id(), b.process_node_running_time()?)))
            {
                Ok((id, t)) => {
                    nodes.insert(id, t);
                }
                Err(e) => fail(e),
            }
        }
        d.processes
            .insert((p.pid, p.luid), ProcStats { dev, sys, nodes });
    }
    if let Some(e) = first_err {
        notes.push(Said::new(
            "report-dxg-buffers-skipped",
            vec![("count", bad.into()), ("example", e.to_string().into())],
        ));
    }
    d
}

/// Turn `/dev/dxg` rounds into the WDDM view (devices, per-process usage), pairing an adapter with
/// NVML's device only when there is one of each (no PCI address is available in WSL).
///
/// Order: decode both rounds' buffers, adapters into devices (`adapter_devices`), each process's
/// statistics on each adapter into usage (`process_usage`), then the status line.
pub fn merge_round(prev: Option<&DxgRound>, cur: &DxgRound, nvml_devices: &[Device]) -> WddmView {
    let mut notes = Vec::new();
    let now = decode(cur, &mut notes);
    let before = prev.map(|p| decode(p, &mut Vec::new()));
    let dt = prev.map(|p| cur.taken_100ns as i64 - p.taken_100ns as i64);
    let (devices, uuid_of) = adapter_devices(&now, nvml_devices, &mut notes);

    let mut processes: BTreeMap<u32, Process> = BTreeMap::new();
    for ((pid, luid), stats) in &now.processes {
        let Some(uuid) = uuid_of.get(luid) else {
            continue;
        };
        let prev_nodes = before
            .as_ref()
            .and_then(|b| b.processes.get(&(*pid, *luid)))
            .map(|p| &p.nodes);
        if let Some(u) = process_usage(stats, uuid, prev_nodes, dt) {
            processes
                .entry(*pid)
                .or_insert_with(|| Process::new(*pid))
                .usage
                .push(u);
        }
    }
    if let Some(why) = &cur.process_query_unavailable {
        notes.push(Said::new(
            "report-dxg-no-process-stats",
            vec![("why", why.to_string().into())],
        ));
    }
    let status = round_status(cur, devices.len(), processes.len());
    WddmView {
        devices,
        processes: processes.into_values().collect(),
        notes,
        status,
        memory_mode: MemoryMode::Dedicated,
        busiest: BTreeMap::new(),
    }
}

/// One device per adapter, and each adapter's uuid: NVML's when the one GPU adapter is paired
/// with the one NVML device by elimination, else one made from the LUID.
fn adapter_devices(
    now: &Decoded,
    nvml_devices: &[Device],
    notes: &mut Vec<Said>,
) -> (Vec<Device>, BTreeMap<Luid, String>) {
    // Adapters with device-local (non-aperture) segments are the GPUs worth a device row.
    let gpus: Vec<Luid> = now
        .segments
        .iter()
        .filter(|(_, s)| s.iter().any(|s| !s.aperture))
        .map(|(l, _)| *l)
        .collect();
    let paired = (gpus.len() == 1 && nvml_devices.len() == 1).then(|| &nvml_devices[0]);
    if paired.is_some() {
        notes.push(Said::new("report-dxg-paired-alone", vec![]));
    }
    let mut next_index = nvml_devices.iter().map(|d| d.index + 1).max().unwrap_or(0);
    let mut uuid_of = BTreeMap::new();
    let mut devices = Vec::new();
    for (luid, segs) in &now.segments {
        let uuid = match paired {
            Some(d) if gpus.first() == Some(luid) => d.uuid.clone(),
            _ => luid_uuid_with_prefix("wsl-dxg-luid", *luid),
        };
        uuid_of.insert(*luid, uuid.clone());
        let index = match paired {
            Some(d) if uuid == d.uuid => d.index,
            _ => {
                next_index += 1;
                next_index - 1
            }
        };
        devices.push(adapter_device(index, uuid, segs));
    }
    (devices, uuid_of)
}

/// An adapter's device row: device-local segments as its memory, aperture segments as system
/// memory.
fn adapter_device(index: u32, uuid: String, segs: &[SegmentInfo]) -> Device {
    let local: Vec<&SegmentInfo> = segs.iter().filter(|s| !s.aperture).collect();
    let aperture: Vec<&SegmentInfo> = segs.iter().filter(|s| s.aperture).collect();
    let sum = |v: &[&SegmentInfo], f: fn(&SegmentInfo) -> u64| -> Option<u64> {
        (!v.is_empty()).then(|| v.iter().map(|s| f(s)).sum())
    };
    let mut d = Device::new(index, Vendor::Unknown, uuid, "dxg");
    d.memory = Memory {
        total_bytes: sum(&local, |s| s.commit_limit),
        used_bytes: sum(&local, |s| s.bytes_committed),
        free_bytes: None,
        reserved_bytes: None,
    };
    if let (Some(t), Some(u)) = (d.memory.total_bytes, d.memory.used_bytes) {
        d.memory.free_bytes = t.checked_sub(u);
    }
    if !aperture.is_empty() {
        d.system_memory = Some(Memory {
            total_bytes: sum(&aperture, |s| s.commit_limit),
            used_bytes: sum(&aperture, |s| s.bytes_committed),
            free_bytes: None,
            reserved_bytes: None,
        });
    }
    d.mark_unavailable("name", "WSL's /dev/dxg gives adapters by LUID only");
    d
}

/// One process's usage of one adapter; engine use per node is a rate against the previous
/// round's running times (`dt` in 100 ns). `None` when the process holds nothing there.
fn process_usage(
    stats: &ProcStats,
    uuid: &str,
    prev_nodes: Option<&BTreeMap<u32, u64>>,
    dt: Option<i64>,
) -> Option<Usage> {
    let ProcStats { dev, sys, nodes } = stats;
    let total_time: u64 = nodes.values().sum();
    if *dev == 0 && *sys == 0 && total_time == 0 {
        return None;
    }
    let mut u = Usage::new(uuid.to_string(), LABEL);
    u.memory_bytes = Some(*dev);
    u.system_memory_bytes = Some(*sys);
    match (prev_nodes, dt) {
        (Some(pn), Some(dt)) if dt > 0 => {
            for (node, t) in nodes {
                if let Some(b) = pn.get(node).filter(|b| *b <= t) {
                    let pct = ((t - b) as f64 / dt as f64 * 100.0).clamp(0.0, 100.0);
                    u.engines_by_type
                        .insert(format!("node{node}"), pct.round() as u32);
                }
            }
            u.engines.sm_percent = u.engines_by_type.values().max().copied();
        }
        (None, Some(_)) => {
            u.engines.unavailable_reason = Some(
                "no earlier /dev/dxg reading of this process (new since the last round)".into(),
            )
        }
        _ => u.engines.unavailable_reason = Some(FIRST_ROUND.into()),
    }
    Some(u)
}

fn round_status(cur: &DxgRound, devices: usize, processes: usize) -> SourceStatus {
    if cur.adapters.is_empty() {
        SourceStatus::new(
            "dxg",
            SourceState::Unavailable,
            "no adapter behind /dev/dxg",
        )
    } else if let Some(why) = &cur.process_query_unavailable {
        SourceStatus::new(
            "dxg",
            SourceState::Ok,
            format!("{devices} adapter(s); per-process statistics unavailable: {why}"),
        )
    } else {
        SourceStatus::new(
            "dxg",
            SourceState::Ok,
            format!("{devices} adapter(s), {processes} process(es) holding /dev/dxg"),
        )
    }
}

#[cfg(test)]
mod tests;
