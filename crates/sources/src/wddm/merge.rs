//! The pure half of the WDDM source: two rounds of raw counters plus the DXGI adapter list become
//! devices and per-process usage, then merge with what NVML already put in the snapshot.

use super::accumulate::{engine_rate, parsed, pct, per_luid, per_pid_luid, Acc, EngineAcc};
use super::counters::{paths, DxgiAdapter, PciAddress, RawSample, Round};
use super::instance::{engine_class, EngineClass, Luid};
use gpuledger_lang::Said;
use gpuledger_model::{
    Device, Memory, Process, Snapshot, SourceState, SourceStatus, Usage, UsageKind, Vendor,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Source label of per-process values taken from `Local Usage` / `Non Local Usage`.
pub const LABEL_LOCAL: &str = "wddm-local";
/// Source label of per-process values taken from `Dedicated Usage` / `Shared Usage`.
pub const LABEL_DEDICATED: &str = "wddm-dedicated";
/// Label of a value both NVML and WDDM measured (the larger is shown, both are kept).
pub const LABEL_BOTH: &str = "cuda+wddm";

pub const FIRST_ROUND: &str =
    "first WDDM round: engine use is a rate between two readings; it is shown from the next refresh";
/// The message key: no earlier WDDM reading of this process's engines.
const NEW_INSTANCE: &str = "report-why-wddm-new-instance";
const NO_TELEMETRY: &str =
    "WDDM counters do not publish it; NVML does for NVIDIA devices when it is loaded";

/// Which pair of `GPU Process Memory` counters fed the per-process values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryMode {
    /// `Local Usage` (device memory) and `Non Local Usage` (system memory): what is resident.
    Local,
    /// `Dedicated Usage` and `Shared Usage`: the fallback when the local pair is missing.
    Dedicated,
    /// Neither pair could be read.
    Unavailable,
}

/// What one WDDM round saw, before it is merged into a snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct WddmView {
    pub devices: Vec<Device>,
    pub processes: Vec<Process>,
    pub notes: Vec<Said>,
    pub status: SourceStatus,
    pub memory_mode: MemoryMode,
    /// Per adapter LUID: the busiest engine and its percent, as Task Manager headlines it.
    pub busiest: BTreeMap<Luid, (String, f64)>,
}

/// The uuid of an adapter that no NVML device matched. LUIDs last until reboot only.
pub fn luid_uuid(luid: Luid) -> String {
    luid_uuid_with_prefix("wddm-luid", luid)
}

/// `<prefix>-0x<high>_0x<low>`.
pub fn luid_uuid_with_prefix(prefix: &str, luid: Luid) -> String {
    format!("{prefix}-{luid}")
}

fn vendor_of(id: u32) -> Vendor {
    match id {
        0x10DE => Vendor::Nvidia,
        0x1002 | 0x1022 => Vendor::Amd,
        0x8086 => Vendor::Intel,
        _ => Vendor::Unknown,
    }
}

struct Slot<'a> {
    luid: Luid,
    uuid: String,
    index: u32,
    dxgi: Option<&'a DxgiAdapter>,
    /// NVML device this adapter is, by PCI address.
    nvml: Option<&'a Device>,
}

/// Map DXGI adapters to NVML devices by PCI bus/device/function. Where D3DKMT gave no address,
/// a single NVIDIA adapter and a single NVML device are paired by elimination (and said so).
fn adapter_slots<'a>(
    adapters: &'a [DxgiAdapter],
    nvml: &'a [Device],
    notes: &mut Vec<Said>,
) -> Vec<Slot<'a>> {
    let hw: Vec<&DxgiAdapter> = adapters.iter().filter(|a| !a.is_software()).collect();
    let nvidia_hw = hw.iter().filter(|a| a.vendor_id == 0x10DE).count();
    let mut next_index = nvml.iter().map(|d| d.index + 1).max().unwrap_or(0);
    let mut used = BTreeSet::new();
    let mut slots = Vec::new();
    for a in hw {
        let by_pci = a.pci.and_then(|pci| {
            nvml.iter()
                .find(|d| d.pci_bus_id.as_deref().and_then(PciAddress::parse_bus_id) == Some(pci))
        });
        let nvml_dev = by_pci.or_else(|| {
            let alone =
                a.pci.is_none() && a.vendor_id == 0x10DE && nvidia_hw == 1 && nvml.len() == 1;
            if alone {
                notes.push(Said::new(
                    "report-wddm-paired-alone",
                    vec![("adapter", a.description.as_str().into())],
                ));
            }
            alone.then(|| &nvml[0])
        });
        let nvml_dev = nvml_dev.filter(|d| used.insert(d.uuid.clone()));
        let (uuid, index) = match nvml_dev {
            Some(d) => (d.uuid.clone(), d.index),
            None => {
                next_index += 1;
                (luid_uuid(a.luid), next_index - 1)
            }
        };
        slots.push(Slot {
            luid: a.luid,
            uuid,
            index,
            dxgi: Some(a),
            nvml: nvml_dev,
        });
    }
    slots
}

/// The memory counters of one round, resolved: which pair is used (resident Local/Non Local, or
/// Dedicated/Shared where that is all there is), per process and per adapter.
struct MemoryCounters {
    mode: MemoryMode,
    label: &'static str,
    mem_path: &'static str,
    /// (pid, adapter) → device-local (or dedicated) bytes; `None` when the counter is missing.
    mem: Option<HashMap<(u32, Luid), Acc>>,
    /// (pid, adapter) → system (non-local or shared) bytes.
    sys: Option<HashMap<(u32, Luid), Acc>>,
    mem_missing: Option<String>,
    adapter_mem_path: &'static str,
    adapter_mem: Option<HashMap<Luid, Acc>>,
    adapter_sys: Option<HashMap<Luid, Acc>>,
}

/// Memory: prefer the resident pair, fall back to dedicated/shared.
fn memory_counters(cur: &Round, notes: &mut Vec<Said>) -> MemoryCounters {
    let (mode, label, mem_path, sys_path, mem_arr, sys_arr) = if cur.process_local.is_some() {
        (
            MemoryMode::Local,
            LABEL_LOCAL,
            paths::PROCESS_LOCAL,
            paths::PROCESS_NON_LOCAL,
            cur.process_local.as_ref(),
            cur.process_non_local.as_ref(),
        )
    } else if cur.process_dedicated.is_some() {
        notes.push(Said::new(
            "report-wddm-dedicated-usage",
            vec![("why", cur.missing_reason(paths::PROCESS_LOCAL).into())],
        ));
        (
            MemoryMode::Dedicated,
            LABEL_DEDICATED,
            paths::PROCESS_DEDICATED,
            paths::PROCESS_SHARED,
            cur.process_dedicated.as_ref(),
            cur.process_shared.as_ref(),
        )
    } else {
        (
            MemoryMode::Unavailable,
            LABEL_LOCAL,
            paths::PROCESS_LOCAL,
            paths::PROCESS_NON_LOCAL,
            None,
            None,
        )
    };
    let mem = per_pid_luid(mem_arr, mem_path, notes);
    let sys = per_pid_luid(sys_arr, sys_path, notes);
    let mem_missing = mem
        .is_none()
        .then(|| cur.missing_reason(paths::PROCESS_LOCAL));
    // Each mode's own adapter counters first, the other mode's as the fallback.
    let dedicated = (cur.adapter_dedicated.as_ref(), paths::ADAPTER_DEDICATED);
    let shared = (cur.adapter_shared.as_ref(), paths::ADAPTER_SHARED);
    let local = (cur.adapter_local.as_ref(), paths::ADAPTER_LOCAL);
    let non_local = (cur.adapter_non_local.as_ref(), paths::ADAPTER_NON_LOCAL);
    let ((own_mem, alt_mem), (own_sys, alt_sys)) = if mode == MemoryMode::Dedicated {
        ((dedicated, local), (shared, non_local))
    } else {
        ((local, dedicated), (non_local, shared))
    };
    let (a_mem, adapter_mem_path) = (own_mem.0.or(alt_mem.0), own_mem.1);
    let (a_sys, a_sys_path) = (own_sys.0.or(alt_sys.0), own_sys.1);
    MemoryCounters {
        mode,
        label,
        mem_path,
        mem,
        sys,
        mem_missing,
        adapter_mem_path,
        adapter_mem: per_luid(a_mem, adapter_mem_path, notes),
        adapter_sys: per_luid(a_sys, a_sys_path, notes),
    }
}

/// Engine use between the previous round and this one.
struct EngineRates {
    /// (pid, adapter) → that process's engines there.
    per_process: HashMap<(u32, Luid), EngineAcc>,
    /// adapter → its busiest engine type and rate (summed over processes).
    busiest: BTreeMap<Luid, (String, f64)>,
    /// Why there is no rate this round, where there is none for anyone.
    reason: Option<String>,
}

fn engine_rates(prev: Option<&Round>, cur: &Round, notes: &mut Vec<Said>) -> EngineRates {
    let mut engines: HashMap<(u32, Luid), EngineAcc> = HashMap::new();
    // (luid, phys, ordinal) → (type, Σ rate over processes)
    let mut per_engine: HashMap<(Luid, u32, u32), (String, f64)> = HashMap::new();
    let reason: Option<String> = match (&cur.engine_running_time, prev) {
        (None, _) => Some(cur.missing_reason(paths::ENGINE_RUNNING_TIME)),
        (Some(_), None) => Some(FIRST_ROUND.to_string()),
        (Some(_), Some(p)) if p.engine_running_time.is_none() => Some(FIRST_ROUND.to_string()),
        _ => None,
    };
    if let Some(cur_arr) = &cur.engine_running_time {
        let prev_arr = prev.and_then(|p| p.engine_running_time.as_ref());
        let prev_by_name: HashMap<&str, &RawSample> = prev_arr
            .map(|a| a.samples.iter().map(|s| (s.instance.as_str(), s)).collect())
            .unwrap_or_default();
        let arrays_dt = prev_arr
            .map(|p| cur_arr.timestamp_100ns as i64 - p.timestamp_100ns as i64)
            .unwrap_or(0);
        for (inst, s) in parsed(cur_arr, paths::ENGINE_RUNNING_TIME, notes) {
            let (Some(pid), Some(eng)) = (inst.pid, inst.engine) else {
                continue;
            };
            let acc = engines.entry((pid, inst.luid)).or_default();
            if s.usable() && s.first > 0 {
                acc.cumulative = acc.cumulative.saturating_add(s.first as u64);
                let class = engine_class(&eng.engine_type);
                if !acc.active_classes.contains(&class) {
                    acc.active_classes.push(class);
                }
            }
            let rate = prev_by_name
                .get(s.instance.as_str())
                .and_then(|p| engine_rate(p, s, arrays_dt));
            if let Some(r) = rate {
                acc.rated = true;
                let e = acc.by_type.entry(eng.engine_type.clone()).or_insert(0.0);
                *e = e.max(r);
                let d = per_engine
                    .entry((inst.luid, inst.phys, eng.ordinal))
                    .or_insert_with(|| (eng.engine_type.clone(), 0.0));
                d.1 += r;
            }
        }
    }
    let mut busiest: BTreeMap<Luid, (String, f64)> = BTreeMap::new();
    for ((luid, _, _), (ty, sum)) in &per_engine {
        let sum = sum.min(100.0);
        let e = busiest.entry(*luid).or_insert_with(|| (ty.clone(), -1.0));
        // Ties go to the alphabetically first type so the answer does not depend on hashing.
        if sum > e.1 || (sum == e.1 && ty < &e.0) {
            *e = (ty.clone(), sum);
        }
    }
    EngineRates {
        per_process: engines,
        busiest,
        reason,
    }
}

/// Adapters that only the counters know (DXGI failed or skipped them) get a slot of their own.
fn add_counter_only_adapters(
    slots: &mut Vec<Slot<'_>>,
    software: &BTreeSet<Luid>,
    seen: BTreeSet<Luid>,
    nvml_devices: &[Device],
    notes: &mut Vec<Said>,
) {
    let mut next_index = slots
        .iter()
        .map(|s| s.index + 1)
        .chain(nvml_devices.iter().map(|d| d.index + 1))
        .max()
        .unwrap_or(0);
    for luid in seen {
        if software.contains(&luid) || slots.iter().any(|s| s.luid == luid) {
            continue;
        }
        notes.push(Said::new(
            "report-wddm-luid-not-in-dxgi",
            vec![("luid", luid.to_string().into())],
        ));
        slots.push(Slot {
            luid,
            uuid: luid_uuid(luid),
            index: next_index,
            dxgi: None,
            nvml: None,
        });
        next_index += 1;
    }
}

/// One process's usage of one adapter, or `None` for the zeroed instances every D3D process has.
fn process_usage(
    key: (u32, Luid),
    uuid: &str,
    m: &MemoryCounters,
    e: &EngineRates,
) -> Option<Usage> {
    let mem = m.mem.as_ref().and_then(|x| x.get(&key).copied());
    let sys = m.sys.as_ref().and_then(|x| x.get(&key).copied());
    let eng = e.per_process.get(&key);
    let idle_memory =
        mem.is_none_or(|a| a.value() == Some(0)) && sys.is_none_or(|a| a.value() == Some(0));
    if idle_memory && eng.is_none_or(|e| e.cumulative == 0) {
        return None;
    }
    let mut u = Usage::new(uuid, m.label);
    match (&m.mem, mem) {
        (None, _) => u.unavailable_reason = m.mem_missing.clone().map(Said::from),
        (Some(_), None) => {
            let args = vec![("counter", m.mem_path.to_string().into())];
            u.unavailable_reason = Some(Said::new("report-why-wddm-no-instance", args))
        }
        (Some(_), Some(a)) => {
            u.memory_bytes = a.value();
            if u.memory_bytes.is_none() {
                let args = vec![("counter", m.mem_path.to_string().into())];
                u.unavailable_reason = Some(Said::new("report-why-wddm-counter-invalid", args));
            }
        }
    }
    u.system_memory_bytes = sys.and_then(Acc::value);
    match eng {
        Some(acc) if acc.rated => {
            let class_max = |want: &[EngineClass]| {
                acc.by_type
                    .iter()
                    .filter(|(t, _)| want.contains(&engine_class(t)))
                    .map(|(_, v)| *v)
                    .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
            };
            u.engines.sm_percent =
                class_max(&[EngineClass::Graphics, EngineClass::Compute]).map(pct);
            u.engines.encoder_percent = class_max(&[EngineClass::VideoEncode]).map(pct);
            u.engines.decoder_percent = class_max(&[EngineClass::VideoDecode]).map(pct);
            u.engines_by_type = acc
                .by_type
                .iter()
                .map(|(t, v)| (t.clone(), pct(*v)))
                .collect();
        }
        Some(_) => {
            u.engines.unavailable_reason = Some(
                e.reason
                    .clone()
                    .map_or_else(|| Said::new(NEW_INSTANCE, vec![]), Said::from),
            )
        }
        None => {
            u.engines.unavailable_reason = Some(e.reason.clone().map_or_else(
                || Said::new("report-why-wddm-no-engine", vec![]),
                Said::from,
            ))
        }
    }
    if let Some(acc) = eng {
        if acc.active_classes.contains(&EngineClass::Compute) {
            u.kinds.push(UsageKind::Compute);
        }
        if acc.active_classes.contains(&EngineClass::Graphics) {
            u.kinds.push(UsageKind::Graphics);
        }
    }
    Some(u)
}

/// One adapter as a device: DXGI's identity and total, the counters' used memory and engine use.
fn adapter_device(s: &Slot<'_>, cur: &Round, m: &MemoryCounters, e: &EngineRates) -> Device {
    let vendor = s.dxgi.map_or(Vendor::Unknown, |a| vendor_of(a.vendor_id));
    let mut d = Device::new(s.index, vendor, s.uuid.clone(), "wddm");
    if let Some(a) = s.dxgi {
        d.name = Some(a.description.clone());
        d.pci_bus_id = a
            .pci
            .map(|p| format!("00000000:{:02X}:{:02X}.{:X}", p.bus, p.device, p.function));
        // A zero size means DXGI has none to report (integrated GPUs), not 0 bytes.
        d.memory.total_bytes = (a.dedicated_video_memory > 0).then_some(a.dedicated_video_memory);
    } else {
        d.mark_unavailable("memory.total_bytes", "adapter not in DXGI's list");
    }
    d.memory.used_bytes = m
        .adapter_mem
        .as_ref()
        .and_then(|x| x.get(&s.luid))
        .and_then(|a| a.value());
    if m.adapter_mem.is_none() {
        d.mark_unavailable("memory.used_bytes", cur.missing_reason(m.adapter_mem_path));
    }
    if let (Some(t), Some(u)) = (d.memory.total_bytes, d.memory.used_bytes) {
        d.memory.free_bytes = t.checked_sub(u);
    }
    let sys_total = s
        .dxgi
        .and_then(|a| (a.shared_system_memory > 0).then_some(a.shared_system_memory));
    let sys_used = m
        .adapter_sys
        .as_ref()
        .and_then(|x| x.get(&s.luid))
        .and_then(|a| a.value());
    if sys_total.is_some() || sys_used.is_some() {
        d.system_memory = Some(Memory {
            total_bytes: sys_total,
            used_bytes: sys_used,
            free_bytes: sys_total.zip(sys_used).and_then(|(t, u)| t.checked_sub(u)),
            reserved_bytes: None,
        });
    }
    match e.busiest.get(&s.luid) {
        Some((ty, v)) => {
            d.utilization.gpu_percent = Some(pct(*v));
            d.busiest_engine = Some(ty.clone());
        }
        None => d.mark_unavailable(
            "utilization.gpu_percent",
            e.reason
                .clone()
                .unwrap_or_else(|| "no engine of this adapter ran in the interval".into()),
        ),
    }
    if s.nvml.is_none() {
        for f in ["temperature_c", "power.usage_watts", "clocks.graphics_mhz"] {
            d.mark_unavailable(f, NO_TELEMETRY);
        }
    }
    d
}

/// The source's line for this round: what was read and what was not.
fn round_status(
    cur: &Round,
    mode: MemoryMode,
    e: &EngineRates,
    devices: usize,
    processes: usize,
) -> SourceStatus {
    let counters_read = {
        let mut c = cur.clone();
        c.slots_mut().iter().filter(|(_, a)| a.is_some()).count()
    };
    if counters_read == 0 {
        let why: Vec<String> = cur
            .missing
            .iter()
            .map(|(p, w)| format!("{p}: {w}"))
            .collect();
        return SourceStatus::new(
            "wddm",
            SourceState::Unavailable,
            format!(
                "no GPU performance counter could be read ({})",
                why.join("; ")
            ),
        );
    }
    let mem_words = match mode {
        MemoryMode::Local => "per-process memory from Local/Non Local Usage",
        MemoryMode::Dedicated => "per-process memory from Dedicated/Shared Usage",
        MemoryMode::Unavailable => "per-process memory unavailable",
    };
    let eng_words = if e.reason.as_deref() == Some(FIRST_ROUND) {
        "engine rates from the next round"
    } else if cur.engine_running_time.is_none() {
        "engine rates unavailable"
    } else {
        "engine rates over the last interval"
    };
    SourceStatus::new(
        "wddm",
        SourceState::Ok,
        format!("{devices} adapter(s), {processes} process(es); {mem_words}; {eng_words}"),
    )
}

/// The devices NVML already put in `snap`: what a WDDM or `/dev/dxg` round pairs its adapters
/// with.
pub fn nvml_devices(snap: &Snapshot) -> Vec<Device> {
    snap.devices
        .iter()
        .filter(|d| d.source == "nvml")
        .cloned()
        .collect()
}

/// Turn a round (and the one before it, for engine rates) into devices and per-process usage.
/// `nvml_devices` are the devices NVML already reported; adapters are paired with them by PCI
/// address so that both sources describe one device. The steps: pair adapters, resolve the
/// memory counters, rate the engines, give counter-only adapters a slot, then processes, devices
/// and the round's status.
pub fn merge_round(
    prev: Option<&Round>,
    cur: &Round,
    adapters: &[DxgiAdapter],
    nvml_devices: &[Device],
) -> WddmView {
    let mut notes = Vec::new();
    let mut slots = adapter_slots(adapters, nvml_devices, &mut notes);
    let software: BTreeSet<Luid> = adapters
        .iter()
        .filter(|a| a.is_software())
        .map(|a| a.luid)
        .collect();
    let memory = memory_counters(cur, &mut notes);
    let engines = engine_rates(prev, cur, &mut notes);

    let mut seen: BTreeSet<Luid> = BTreeSet::new();
    seen.extend(memory.mem.iter().flat_map(|m| m.keys().map(|k| k.1)));
    seen.extend(engines.per_process.keys().map(|k| k.1));
    seen.extend(memory.adapter_mem.iter().flat_map(|m| m.keys().copied()));
    add_counter_only_adapters(&mut slots, &software, seen, nvml_devices, &mut notes);
    let uuid_of: HashMap<Luid, &str> = slots.iter().map(|s| (s.luid, s.uuid.as_str())).collect();

    let mut keys: BTreeSet<(u32, Luid)> = BTreeSet::new();
    keys.extend(memory.mem.iter().flat_map(|m| m.keys().copied()));
    keys.extend(engines.per_process.keys().copied());
    let mut processes: BTreeMap<u32, Process> = BTreeMap::new();
    let mut skipped_software = 0usize;
    for key in keys {
        let Some(uuid) = uuid_of.get(&key.1) else {
            skipped_software += 1;
            continue;
        };
        if let Some(u) = process_usage(key, uuid, &memory, &engines) {
            processes
                .entry(key.0)
                .or_insert_with(|| Process::new(key.0))
                .usage
                .push(u);
        }
    }
    if skipped_software > 0 {
        notes.push(Said::new(
            "report-wddm-basic-render",
            vec![("count", skipped_software.into())],
        ));
    }

    let devices: Vec<Device> = slots
        .iter()
        .map(|s| adapter_device(s, cur, &memory, &engines))
        .collect();
    let status = round_status(cur, memory.mode, &engines, devices.len(), processes.len());
    WddmView {
        devices,
        processes: processes.into_values().collect(),
        notes,
        status,
        memory_mode: memory.mode,
        busiest: engines.busiest,
    }
}
