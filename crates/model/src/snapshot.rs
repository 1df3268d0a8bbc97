//! The snapshot: one collection round, and the versioned JSON contract (`gpuledger.snapshot/1`).
//!
//! Rules that hold for every field: a value that could not be read is `None` (JSON `null`), never 0,
//! and the reason sits next to it (`unavailable`, `unavailable_reason`, a source's `detail`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Schema id written into every snapshot. Bump the suffix on an incompatible change.
pub const SCHEMA: &str = "gpuledger.snapshot/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub schema: String,
    /// RFC 3339, UTC.
    pub taken_at: String,
    pub host: Host,
    pub devices: Vec<Device>,
    pub processes: Vec<Process>,
    pub sources: Vec<SourceStatus>,
    /// Things this round could not see, in words a user can act on: English in JSON, the
    /// reader's language in views (`note.in_lang(lang)`) when the note has a key.
    #[serde(default)]
    pub notes: Vec<gpuledger_lang::Said>,
    /// On a Kubernetes node: which container the kubelet assigned each GPU (or a replica of it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub device_assignments: Vec<crate::owner::DeviceAssignment>,
}

impl Snapshot {
    pub fn new(taken_at: String, host: Host) -> Self {
        Snapshot {
            schema: SCHEMA.to_string(),
            taken_at,
            host,
            devices: Vec::new(),
            processes: Vec::new(),
            sources: Vec::new(),
            notes: Vec::new(),
            device_assignments: Vec::new(),
        }
    }

    pub fn device_by_uuid(&self, uuid: &str) -> Option<&Device> {
        self.devices.iter().find(|d| d.uuid == uuid)
    }

    /// The processes of the workload rooted at `root` (docs/DESIGN.md concept 7): the root, when
    /// it holds GPU memory, and every process whose membership names it, by pid.
    pub fn workload_group(&self, root: u32) -> Vec<&Process> {
        let mut group: Vec<&Process> = self
            .processes
            .iter()
            .filter(|p| {
                p.pid == root
                    || p.workload
                        .as_ref()
                        .and_then(|w| w.member.as_ref())
                        .is_some_and(|m| m.root_pid == Some(root))
            })
            .collect();
        group.sort_by_key(|p| p.pid);
        group.dedup_by_key(|p| p.pid);
        group
    }

    /// Each workload of two or more processes among `with` (tensor-parallel workers, ranks),
    /// by root pid: the members' estimates summed beside their measured memory summed.
    pub fn group_totals(with: &[&Process]) -> Vec<GroupTotals> {
        let root_of = |p: &Process| {
            p.workload
                .as_ref()
                .and_then(|w| w.member.as_ref()?.root_pid)
                .unwrap_or(p.pid)
        };
        let mut roots: Vec<u32> = with.iter().map(|p| root_of(p)).collect();
        roots.sort_unstable();
        roots.dedup();
        let mut out = Vec::new();
        for r in roots {
            let members: Vec<&Process> = with.iter().copied().filter(|p| root_of(p) == r).collect();
            if members.len() < 2 {
                continue;
            }
            let label = members[0]
                .workload
                .as_ref()
                .map(|w| {
                    let mut w = (**w).clone();
                    w.member = None;
                    w.short_label()
                })
                .unwrap_or_default();
            let estimates = members.iter().filter_map(|p| p.estimate.as_ref());
            out.push(GroupTotals {
                root_pid: r,
                label,
                members: members.iter().map(|p| p.pid).collect(),
                // No member estimated: unknown, not 0.
                estimated_bytes: estimates
                    .clone()
                    .map(|e| e.total_gpu_bytes)
                    .reduce(|a, b| a.saturating_add(b)),
                // A member's total with an unknown part is a floor, and so is the sum.
                estimated_is_floor: estimates.clone().any(|e| e.is_partial()),
                measured_bytes: members
                    .iter()
                    .flat_map(|p| p.usage.iter().map(|u| u.memory_bytes))
                    .sum(),
            });
        }
        out
    }

    /// Total measured memory of a process across devices (unknown values are not counted).
    pub fn process_memory(p: &Process) -> u64 {
        p.usage.iter().filter_map(|u| u.memory_bytes).sum()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Host {
    pub hostname: Option<String>,
    /// `linux`, `windows`, `macos`.
    pub os: String,
    pub kernel: Option<String>,
    pub wsl: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Vendor {
    Nvidia,
    Amd,
    Intel,
    Apple,
    Unknown,
}

impl Vendor {
    pub fn as_str(self) -> &'static str {
        match self {
            Vendor::Nvidia => "nvidia",
            Vendor::Amd => "amd",
            Vendor::Intel => "intel",
            Vendor::Apple => "apple",
            Vendor::Unknown => "unknown",
        }
    }
}

/// A CUDA compute capability, `major.minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ComputeCapability {
    pub major: u32,
    pub minor: u32,
}

impl std::fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Device {
    pub index: u32,
    pub vendor: Vendor,
    pub name: Option<String>,
    /// Stable identity; per-process usage refers to devices by this value.
    pub uuid: String,
    pub pci_bus_id: Option<String>,
    /// The UUIDs of its MIG devices (`MIG-…`) when MIG is on: NVIDIA's device plugin hands
    /// these out instead of the GPU's own UUID.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mig_devices: Vec<String>,
    pub driver_version: Option<String>,
    /// Device-local memory (VRAM; dedicated memory under WDDM).
    pub memory: Memory,
    /// Device-visible system memory (amdgpu GTT, WDDM shared), where the platform reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_memory: Option<Memory>,
    pub utilization: Utilization,
    pub temperature_c: Option<i32>,
    pub power: Power,
    pub clocks: Clocks,
    pub pcie: Pcie,
    /// The engine behind `utilization.gpu_percent` where the platform reports engines by type
    /// (WDDM: Task Manager's headline is the busiest engine, e.g. `3D` or `Compute_0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busiest_engine: Option<String>,
    /// The CUDA compute capability (`8.9`, `9.0`), where NVML reports it: which kernels a
    /// runtime picks (vLLM's MXFP4 MoE kernel) depends on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_capability: Option<ComputeCapability>,
    /// Filled in by [`crate::balance`]; never by a source.
    pub ledger: Ledger,
    /// Ledger of `system_memory`, when the device has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_ledger: Option<Ledger>,
    /// Which source measured the device-level values (`nvml`, `sysfs`, ...).
    pub source: String,
    /// Runtime power state where the platform reports it (`active`, `suspended`). A suspended
    /// device is not sampled (sampling would wake it); its live values are null with that reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_state: Option<String>,
    /// Field path (e.g. `power.usage_watts`) → why it is null.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unavailable: BTreeMap<String, String>,
}

impl Device {
    /// A device with every measured value unknown; sources fill in what they can read.
    pub fn new(index: u32, vendor: Vendor, uuid: impl Into<String>, source: &str) -> Self {
        Device {
            index,
            vendor,
            name: None,
            uuid: uuid.into(),
            pci_bus_id: None,
            mig_devices: Vec::new(),
            driver_version: None,
            memory: Memory::default(),
            system_memory: None,
            utilization: Utilization::default(),
            temperature_c: None,
            power: Power::default(),
            clocks: Clocks::default(),
            pcie: Pcie::default(),
            busiest_engine: None,
            compute_capability: None,
            ledger: Ledger::default(),
            system_ledger: None,
            source: source.to_string(),
            power_state: None,
            unavailable: BTreeMap::new(),
        }
    }

    /// Record why `field` is unknown. The first reason wins: it is the most specific one.
    pub fn mark_unavailable(&mut self, field: &str, reason: impl Into<String>) {
        self.unavailable
            .entry(field.to_string())
            .or_insert_with(|| reason.into());
    }

    /// Short label for tables: `GPU0 NVIDIA H200`, on one line (the name may come from a
    /// replayed file: its control characters are escaped).
    pub fn label(&self) -> String {
        match &self.name {
            Some(n) => format!("GPU{} {}", self.index, crate::term_safe(n)),
            None => format!("GPU{}", self.index),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    pub total_bytes: Option<u64>,
    pub used_bytes: Option<u64>,
    pub free_bytes: Option<u64>,
    /// Held back by the driver/firmware (NVML v2 memory info); not usable by processes.
    pub reserved_bytes: Option<u64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Utilization {
    pub gpu_percent: Option<u32>,
    /// Memory-controller (bandwidth) busy, not memory occupancy.
    pub memory_percent: Option<u32>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Power {
    pub usage_watts: Option<f64>,
    pub limit_watts: Option<f64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Clocks {
    pub graphics_mhz: Option<u32>,
    pub sm_mhz: Option<u32>,
    pub memory_mhz: Option<u32>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Pcie {
    pub link_gen: Option<u32>,
    pub link_width: Option<u32>,
    pub max_link_gen: Option<u32>,
    pub max_link_width: Option<u32>,
}

/// How a device's memory is accounted for. Computed, never read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    /// Σ of the known per-process values on this device.
    pub attributed_bytes: u64,
    /// used − attributed: the driver, the system, processes we cannot see (other users, other
    /// containers), and processes whose value is unknown. `None` when `used` is unknown or when the
    /// processes add up to more than `used` (see `over_attributed`).
    pub unattributed_bytes: Option<u64>,
    /// Σ per-process > device used: shared surfaces are charged to several processes. Views
    /// normalise bars to the attributed sum and keep the raw labels.
    pub over_attributed: bool,
    /// How far the processes exceed `used` when `over_attributed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over_attributed_bytes: Option<u64>,
    /// Processes on this device whose memory is unknown; their share sits in `unattributed`.
    #[serde(default)]
    pub unknown_processes: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Process {
    pub pid: u32,
    /// Platform start-time token (Linux: clock ticks after boot, `/proc/PID/stat` field 22). With
    /// `pid` it names one process: a reused PID has a different start time.
    pub start_time: Option<u64>,
    /// RFC 3339 form of the start time, when the boot time is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    pub name: Option<String>,
    pub exe: Option<String>,
    /// The effective user (Linux: the owner of `/proc/PID`), as ps, top and htop show it.
    pub user: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ppid: Option<u32>,
    /// Arguments with secrets redacted (see [`crate::redact`]). Never store the raw command line.
    pub cmdline: Option<Vec<String>>,
    /// Why name/exe/user/cmdline are missing (exited mid-round, permission denied, other namespace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata_unavailable: Option<gpuledger_lang::Said>,
    /// Container the process runs in, from its cgroup: `docker://<id>`, `podman://<id>`,
    /// `containerd://<id>`, `cri-o://<id>`, `kubepods://<id>` (runtime not named in the path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Who the process belongs to (a pod, a Slurm job, a unit, a session), from its cgroup.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<crate::Owner>,
    /// The process has `/dev/kfd` open (ROCm compute): its memory shows in DRM fdinfo, but its
    /// engine time does not, so its engine figures are unknown rather than 0 %.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rocm_kfd: bool,
    /// TCP ports the process listens on (its own sockets), e.g. a model server's API.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub listen_ports: Vec<u16>,
    /// What the process is, with the evidence (identification, not measurement). Shared with
    /// the identifier's cache, so a live-view round hands it on without copying it; it
    /// serialises as the bare object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<std::sync::Arc<crate::Workload>>,
    /// The estimated ledger (computed, not measured), for runtimes gpuledger has a recipe for;
    /// shared like `workload`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<std::sync::Arc<crate::EstimatedMemory>>,
    /// Why an AI process has no estimate, and what its runtime reported of it meanwhile (an
    /// Ollama engine no recipe models still has `/api/ps`'s figures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_estimate: Option<std::sync::Arc<crate::NoEstimate>>,
    pub usage: Vec<Usage>,
}

impl Process {
    pub fn new(pid: u32) -> Self {
        Process {
            pid,
            start_time: None,
            started_at: None,
            name: None,
            exe: None,
            user: None,
            uid: None,
            ppid: None,
            cmdline: None,
            metadata_unavailable: None,
            container: None,
            owner: None,
            rocm_kfd: false,
            listen_ports: Vec::new(),
            workload: None,
            estimate: None,
            no_estimate: None,
            usage: Vec::new(),
        }
    }

    /// The name, or `n/a` when it could not be read (the one spelling of unknown).
    pub fn display_name(&self) -> &str {
        self.name.as_deref().unwrap_or(crate::words::UNKNOWN)
    }
}

/// One process on one device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Device uuid.
    pub device: String,
    /// Device-local memory charged to the process.
    pub memory_bytes: Option<u64>,
    /// `nvml`, `fdinfo`, `wddm-local`, ...: who measured `memory_bytes`.
    pub memory_source: String,
    /// Why `memory_bytes` is unknown: English in JSON, the reader's language in views.
    pub unavailable_reason: Option<gpuledger_lang::Said>,
    /// System memory (GTT / shared) charged to the process, where the source separates it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_memory_bytes: Option<u64>,
    /// Every reading of this process's device memory when more than one source measured it
    /// (Windows: NVML and WDDM for a CUDA process): source label → bytes. `memory_bytes` shows
    /// the larger; both are kept here.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub memory_by_source: BTreeMap<String, u64>,
    pub kinds: Vec<UsageKind>,
    pub engines: Engines,
    /// Busy percent per engine type where the platform names its engines (WDDM: `3D`, `Copy`,
    /// `Compute_0`, `VideoDecode`, ...; WSL: `node<N>`): the busiest engine of that type over the
    /// last interval. DRM fdinfo: the driver's engine classes (`gfx`, `compute`, `dma`, `dec`,
    /// `render`, `video`, `rcs`, `ccs`, ...), summed over the process's clients and divided by the
    /// class capacity; there `engines.sm_percent` is the busiest 3D/compute class.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub engines_by_type: BTreeMap<String, u32>,
    /// How this figure was accounted when it differs from the plain reading (e.g. a DRM client
    /// shared with another process and charged there), in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accounting_note: Option<gpuledger_lang::Said>,
}

impl Usage {
    pub fn new(device: impl Into<String>, source: &str) -> Self {
        Usage {
            device: device.into(),
            memory_bytes: None,
            memory_source: source.to_string(),
            unavailable_reason: None,
            system_memory_bytes: None,
            memory_by_source: BTreeMap::new(),
            kinds: Vec::new(),
            engines: Engines::default(),
            engines_by_type: BTreeMap::new(),
            accounting_note: None,
        }
    }

    /// `C`, `G`, `C+G`, ... as nvidia-smi users expect.
    pub fn kinds_label(&self) -> String {
        let mut s: Vec<&str> = self.kinds.iter().map(|k| k.letter()).collect();
        s.dedup();
        if s.is_empty() {
            "-".into()
        } else {
            s.join("+")
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UsageKind {
    Compute,
    Graphics,
    Mps,
}

impl UsageKind {
    pub fn letter(self) -> &'static str {
        match self {
            UsageKind::Compute => "C",
            UsageKind::Graphics => "G",
            UsageKind::Mps => "M",
        }
    }
}

/// Per-process engine use over the last interval, in percent. `None` = not measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Engines {
    pub sm_percent: Option<u32>,
    pub memory_percent: Option<u32>,
    pub encoder_percent: Option<u32>,
    pub decoder_percent: Option<u32>,
    /// Why the engine figures are missing (no samples in the interval, not supported, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable_reason: Option<gpuledger_lang::Said>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceState {
    Ok,
    Unavailable,
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceStatus {
    /// `nvml`, `procfs`, `drm`, ...
    pub name: String,
    pub status: SourceState,
    /// What the source saw, or why it saw nothing, in plain words: English in JSON, the
    /// reader's language in views (`detail.in_lang(lang)`) when the source gave it a key.
    pub detail: gpuledger_lang::Said,
}

impl SourceStatus {
    pub fn new(name: &str, status: SourceState, detail: impl Into<gpuledger_lang::Said>) -> Self {
        SourceStatus {
            name: name.to_string(),
            status,
            detail: detail.into(),
        }
    }
}

/// Errors reading a snapshot document (replay files, diffs).
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    // The parser's words are in the message, so it is not also a `source` (no doubled text).
    #[error("not a gpuledger snapshot: {0}")]
    Parse(serde_json::Error),
    #[error("unsupported snapshot schema {found:?} (this gpuledger reads {expected:?})")]
    Schema {
        found: String,
        expected: &'static str,
    },
}

impl From<serde_json::Error> for SnapshotError {
    fn from(e: serde_json::Error) -> Self {
        SnapshotError::Parse(e)
    }
}

/// Parse and check a snapshot document. The schema id is checked before the body so that a
/// snapshot from a newer gpuledger gets a clear message instead of a field error.
pub fn parse_snapshot(text: &str) -> Result<Snapshot, SnapshotError> {
    #[derive(Deserialize)]
    struct Head {
        schema: Option<String>,
    }
    let head: Head = serde_json::from_str(text)?;
    match head.schema.as_deref() {
        Some(SCHEMA) => Ok(serde_json::from_str(text)?),
        other => Err(SnapshotError::Schema {
            found: other.unwrap_or("<missing>").to_string(),
            expected: SCHEMA,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vLLM server and its worker, neither estimated: the group's estimate is unknown (null,
    /// `n/a`), never 0 bytes marked exact.
    #[test]
    fn a_group_with_no_estimate_is_unknown_not_zero() {
        let proc_of = |pid: u32, root: Option<u32>| {
            let mut p = Process::new(pid);
            p.workload = Some(std::sync::Arc::new(crate::Workload {
                kind: crate::WorkloadKind::Vllm,
                model: None,
                model_name: None,
                confidence: crate::Confidence::High,
                evidence: Vec::new(),
                missing: Vec::new(),
                member: root.map(|r| crate::Member {
                    root_pid: Some(r),
                    role: "worker TP0/2".into(),
                    role_kind: crate::RoleKind::Worker,
                    evidence: Default::default(),
                }),
            }));
            p
        };
        let (server, worker) = (proc_of(10, None), proc_of(11, Some(10)));
        let g = Snapshot::group_totals(&[&server, &worker]);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].estimated_bytes, None);
        let json = serde_json::to_value(&g[0]).unwrap();
        assert!(json["estimated_bytes"].is_null(), "{json}");
    }

    fn sample() -> Snapshot {
        let mut s = Snapshot::new("2026-11-29T08:00:00Z".into(), Host::default());
        let mut d = Device::new(0, Vendor::Nvidia, "GPU-1", "nvml");
        d.memory.total_bytes = Some(100);
        d.mark_unavailable("power.usage_watts", "not supported");
        d.mark_unavailable("power.usage_watts", "second reason loses");
        s.devices.push(d);
        let mut p = Process::new(42);
        let mut u = Usage::new("GPU-1", "nvml");
        u.unavailable_reason = Some("WDDM".into());
        p.usage.push(u);
        s.processes.push(p);
        s
    }

    #[test]
    fn unknown_values_serialise_as_null_not_zero() {
        let v: serde_json::Value = serde_json::to_value(sample()).unwrap();
        assert_eq!(v["schema"], "gpuledger.snapshot/1");
        assert!(v["devices"][0]["memory"]["used_bytes"].is_null());
        assert!(v["devices"][0]["temperature_c"].is_null());
        assert_eq!(
            v["devices"][0]["unavailable"]["power.usage_watts"],
            "not supported"
        );
        assert!(v["processes"][0]["usage"][0]["memory_bytes"].is_null());
        assert_eq!(v["processes"][0]["usage"][0]["unavailable_reason"], "WDDM");
    }

    #[test]
    fn round_trip_is_lossless() {
        let s = sample();
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(parse_snapshot(&text).unwrap(), s);
    }

    #[test]
    fn wrong_schema_is_named() {
        let err = parse_snapshot(r#"{"schema":"gpuledger.snapshot/9"}"#).unwrap_err();
        assert!(err.to_string().contains("gpuledger.snapshot/9"), "{err}");
        let err = parse_snapshot(r#"{"devices":[]}"#).unwrap_err();
        assert!(err.to_string().contains("<missing>"), "{err}");
        assert!(parse_snapshot("[1,2").is_err());
    }

    proptest::proptest! {
        /// Any text, and any truncation of a valid snapshot, gives a value or an error: never a
        /// panic, and never a half-read snapshot.
        #[test]
        fn parse_never_panics(cut in 0usize..2000, junk in ".{0,200}") {
            let text = serde_json::to_string(&sample()).unwrap();
            let cut = cut.min(text.len());
            if let Ok(s) = parse_snapshot(&text[..cut]) {
                proptest::prop_assert_eq!(s, sample());
            }
            let _ = parse_snapshot(&junk);
        }
    }

    #[test]
    fn kinds_label_reads_like_nvidia_smi() {
        let mut u = Usage::new("x", "nvml");
        assert_eq!(u.kinds_label(), "-");
        u.kinds = vec![UsageKind::Compute, UsageKind::Graphics];
        assert_eq!(u.kinds_label(), "C+G");
    }
}

/// A workload of several processes in one line: its members' estimated shares summed beside
/// their measured memory summed (never added to each other).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupTotals {
    pub root_pid: u32,
    /// `vLLM · Qwen2-72B`.
    pub label: String,
    pub members: Vec<u32>,
    /// The members' estimated shares summed; `None` (null) when no member carries an estimate.
    pub estimated_bytes: Option<u64>,
    /// A member's estimate has an unknown part: the sum is a floor.
    pub estimated_is_floor: bool,
    /// `None` when a member's memory is unknown.
    pub measured_bytes: Option<u64>,
}
