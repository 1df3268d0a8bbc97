//! The pure half of the macOS source: IORegistry property dictionaries (recorded as JSON) become
//! the Apple GPU device and its client processes.
//!
//! What the registry offers without root (nvtop `src/extract_gpuinfo_apple.m`; other public tools):
//! - on the accelerator (class `AGXAccelerator…`, conforming to `IOAccelerator`), the
//!   `PerformanceStatistics` dictionary: `Device Utilization %`, `Renderer Utilization %`,
//!   `Tiler Utilization %`, `In use system memory`, `Alloc system memory`, ...;
//! - its children in the service plane, one user client per process that opened the GPU
//!   (`AGXDeviceUserClient`), with `IOUserClientCreator` = `"pid <pid>, <name>"` and, on Apple
//!   silicon, `AppUsage` = one dictionary per API with `accumulatedGPUTime` (ns). Intel-era drivers
//!   put `accumulatedGPUTime` on the client itself.
//!
//! Per-process GPU memory is not published: the GPU allocates from the one unified pool and the
//! allocation is part of each process's footprint. It stays `null` with that reason.

use gpuledger_lang::Said;
use gpuledger_model::{
    balance, Device, Memory, Process, Snapshot, SourceState, SourceStatus, Usage, Vendor,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

pub const SOURCE: &str = "iokit";
pub const UNIFIED_MEMORY: &str = "unified memory: macOS publishes no per-process GPU memory (the \
     GPU allocates from system RAM, inside each process's own footprint)";
pub const FIRST_ROUND: &str =
    "first IOKit round: GPU time is a rate between two readings; it is shown from the next refresh";
const NEW_CLIENT: &str = "no earlier reading of this process's GPU time (new since the last round)";
const NO_GPU_TIME: &str = "the GPU user client publishes no accumulatedGPUTime";

/// Keys of `PerformanceStatistics` read here.
pub mod keys {
    pub const DEVICE_UTILIZATION: &str = "Device Utilization %";
    pub const RENDERER_UTILIZATION: &str = "Renderer Utilization %";
    pub const TILER_UTILIZATION: &str = "Tiler Utilization %";
    pub const IN_USE_SYSTEM_MEMORY: &str = "In use system memory";
    pub const ALLOC_SYSTEM_MEMORY: &str = "Alloc system memory";
    pub const CREATOR: &str = "IOUserClientCreator";
    pub const APP_USAGE: &str = "AppUsage";
    pub const GPU_TIME: &str = "accumulatedGPUTime";
}

/// One GPU user client (a child of the accelerator in the service plane).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientRecord {
    /// `IOObjectGetClass`: `AGXDeviceUserClient` on Apple silicon.
    pub class: String,
    /// The client's registry properties (`IOUserClientCreator`, `AppUsage`, ...).
    pub properties: Map<String, Value>,
}

/// One `IOAccelerator` service.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcceleratorRecord {
    pub class: String,
    #[serde(default)]
    pub registry_id: Option<u64>,
    /// The `model` property (`Apple M2 Max`) where present.
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub gpu_core_count: Option<u32>,
    /// The `PerformanceStatistics` dictionary; `None` when the service has none.
    pub performance_statistics: Option<Map<String, Value>>,
    #[serde(default)]
    pub clients: Vec<ClientRecord>,
}

/// One read of the registry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IoRegRound {
    /// Monotonic time of the read, ns (only differences matter).
    pub taken_ns: u64,
    /// `hw.memsize`: the unified pool the GPU allocates from.
    pub host_memory_bytes: Option<u64>,
    pub accelerators: Vec<AcceleratorRecord>,
}

pub use crate::recording::LoadError;

const MAX_RECORDING: u64 = 16 << 20;

/// Load a recorded [`IoRegRound`] (JSON).
pub fn load_round(path: &Path) -> Result<IoRegRound, LoadError> {
    crate::recording::load(path, "an IOKit registry recording", MAX_RECORDING)
}

/// `"pid 533, WindowServer"` → (533, `WindowServer`). The name may hold commas and spaces.
pub fn parse_creator(s: &str) -> Option<(u32, String)> {
    let rest = s.trim().strip_prefix("pid ")?;
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let pid = rest[..end].parse::<u32>().ok()?;
    let name = rest[end..].trim_start_matches(',').trim().to_string();
    Some((pid, name))
}

/// A non-negative integer from a registry number (integers, or floats holding one).
fn as_u64(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0)
            .map(|f| f as u64)
    })
}

/// GPU time of one client in ns: the sum over `AppUsage[].accumulatedGPUTime`, or the value on the
/// client itself. `None` when neither is there.
pub fn client_gpu_time_ns(props: &Map<String, Value>) -> Option<u64> {
    if let Some(v) = props.get(keys::GPU_TIME).and_then(as_u64) {
        return Some(v);
    }
    let usage = props.get(keys::APP_USAGE)?.as_array()?;
    let mut total: Option<u64> = None;
    for entry in usage {
        if let Some(t) = entry.get(keys::GPU_TIME).and_then(as_u64) {
            total = Some(total.unwrap_or(0).saturating_add(t));
        }
    }
    total
}

/// Device-level figures from `PerformanceStatistics`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DeviceStats {
    pub utilization_percent: Option<u32>,
    pub renderer_percent: Option<u32>,
    pub tiler_percent: Option<u32>,
    pub in_use_system_memory: Option<u64>,
    pub alloc_system_memory: Option<u64>,
}

pub fn device_stats(perf: &Map<String, Value>) -> DeviceStats {
    let pct = |k: &str| {
        perf.get(k)
            .and_then(as_u64)
            .filter(|v| *v <= 100)
            .map(|v| v as u32)
    };
    let bytes = |k: &str| perf.get(k).and_then(as_u64);
    DeviceStats {
        utilization_percent: pct(keys::DEVICE_UTILIZATION),
        renderer_percent: pct(keys::RENDERER_UTILIZATION),
        tiler_percent: pct(keys::TILER_UTILIZATION),
        in_use_system_memory: bytes(keys::IN_USE_SYSTEM_MEMORY),
        alloc_system_memory: bytes(keys::ALLOC_SYSTEM_MEMORY),
    }
}

/// What one IOKit round saw.
#[derive(Debug, Clone, PartialEq)]
pub struct IokitView {
    pub devices: Vec<Device>,
    pub processes: Vec<Process>,
    pub notes: Vec<Said>,
    pub status: SourceStatus,
}

fn device_uuid(a: &AcceleratorRecord, i: usize) -> String {
    match a.registry_id {
        Some(id) => format!("iokit-{id:x}"),
        None => format!("iokit-gpu{i}"),
    }
}

/// Per pid: GPU time summed over its clients (`None` unless every client had one).
fn gpu_times(a: &AcceleratorRecord, bad: &mut usize) -> GpuTimes {
    let mut out = GpuTimes::new();
    for c in &a.clients {
        let Some((pid, name)) = c
            .properties
            .get(keys::CREATOR)
            .and_then(Value::as_str)
            .and_then(parse_creator)
        else {
            *bad += 1;
            continue;
        };
        let t = client_gpu_time_ns(&c.properties);
        let e = out.entry(pid).or_insert((name, Some(0)));
        e.1 = match (e.1, t) {
            (Some(sum), Some(t)) => Some(sum.saturating_add(t)),
            _ => None,
        };
    }
    out
}

/// Turn a registry round (and the previous one, for GPU-time rates) into devices and processes.
///
/// Per accelerator, in order: its device row from `PerformanceStatistics`
/// (`accelerator_device`), then its user clients' GPU time as a rate per process
/// (`add_client_usage`). Then the notes and the status line.
pub fn merge_round(prev: Option<&IoRegRound>, cur: &IoRegRound) -> IokitView {
    let mut notes = Vec::new();
    let mut devices = Vec::new();
    let mut processes: BTreeMap<u32, Process> = BTreeMap::new();
    let dt = prev.map(|p| cur.taken_ns.saturating_sub(p.taken_ns));
    let mut bad_creators = 0usize;
    for (i, a) in cur.accelerators.iter().enumerate() {
        let Some(perf) = &a.performance_statistics else {
            notes.push(Said::new(
                "report-iokit-no-statistics",
                vec![("class", a.class.as_str().into())],
            ));
            continue;
        };
        let uuid = device_uuid(a, i);
        let d = accelerator_device(
            a,
            perf,
            devices.len() as u32,
            uuid.clone(),
            cur.host_memory_bytes,
            &mut notes,
        );
        let cur_times = gpu_times(a, &mut bad_creators);
        let prev_times = prev.and_then(|p| {
            p.accelerators
                .iter()
                .enumerate()
                .find(|(j, pa)| device_uuid(pa, *j) == uuid)
                .map(|(_, pa)| gpu_times(pa, &mut 0))
        });
        add_client_usage(&mut processes, &uuid, cur_times, prev_times.as_ref(), dt);
        devices.push(d);
    }
    if bad_creators > 0 {
        notes.push(Said::new(
            "report-iokit-clients-left-out",
            vec![("count", bad_creators.into())],
        ));
    }
    let status = if devices.is_empty() {
        SourceStatus::new(
            SOURCE,
            SourceState::Unavailable,
            "no IOAccelerator with PerformanceStatistics in the IORegistry",
        )
    } else {
        SourceStatus::new(
            SOURCE,
            SourceState::Ok,
            format!(
                "{} GPU(s), {} client process(es); per-process memory unavailable (unified \
                 memory)",
                devices.len(),
                processes.len()
            ),
        )
    };
    IokitView {
        devices,
        processes: processes.into_values().collect(),
        notes,
        status,
    }
}

/// One accelerator's device row. Unified memory: the GPU's pool is system RAM (`host_memory`),
/// and `used` is what the GPU driver holds.
fn accelerator_device(
    a: &AcceleratorRecord,
    perf: &Map<String, Value>,
    index: u32,
    uuid: String,
    host_memory: Option<u64>,
    notes: &mut Vec<Said>,
) -> Device {
    let stats = device_stats(perf);
    let mut d = Device::new(index, Vendor::Apple, uuid, SOURCE);
    d.name = a.model.clone().or_else(|| Some(a.class.clone()));
    d.memory = Memory {
        total_bytes: host_memory,
        used_bytes: stats.in_use_system_memory.or(stats.alloc_system_memory),
        free_bytes: None,
        reserved_bytes: None,
    };
    if stats.in_use_system_memory.is_none() && stats.alloc_system_memory.is_some() {
        notes.push(Said::new(
            "report-iokit-alloc-as-used",
            vec![("class", a.class.as_str().into())],
        ));
    }
    if d.memory.used_bytes.is_none() {
        d.mark_unavailable(
            "memory.used_bytes",
            "PerformanceStatistics has neither In use nor Alloc system memory",
        );
    }
    d.mark_unavailable(
        "memory.free_bytes",
        "unified memory: free GPU memory is free system RAM, shared with the CPU",
    );
    d.utilization.gpu_percent = stats.utilization_percent;
    if d.utilization.gpu_percent.is_none() {
        d.mark_unavailable(
            "utilization.gpu_percent",
            "PerformanceStatistics has no Device Utilization %",
        );
    }
    if stats.renderer_percent.is_some() || stats.tiler_percent.is_some() {
        d.busiest_engine = match (stats.renderer_percent, stats.tiler_percent) {
            (Some(r), Some(t)) if t > r => Some("Tiler".into()),
            (Some(_), _) => Some("Renderer".into()),
            _ => Some("Tiler".into()),
        };
    }
    for f in ["temperature_c", "power.usage_watts"] {
        d.mark_unavailable(f, "not in the public IORegistry statistics");
    }
    d
}

/// Per pid on one device: GPU time summed over its clients, and the client's name.
type GpuTimes = BTreeMap<u32, (String, Option<u64>)>;

/// A usage row per client process of one device, its GPU % the rate of its GPU time since the
/// previous round (`dt` ns); the creator's name fills a process name not yet known.
fn add_client_usage(
    processes: &mut BTreeMap<u32, Process>,
    uuid: &str,
    cur_times: GpuTimes,
    prev_times: Option<&GpuTimes>,
    dt: Option<u64>,
) {
    for (pid, (name, t)) in cur_times {
        let mut u = Usage::new(uuid.to_string(), SOURCE);
        u.unavailable_reason = Some(UNIFIED_MEMORY.into());
        let rate = match (t, prev_times, dt) {
            (None, _, _) => Err(NO_GPU_TIME),
            (Some(_), None, _) | (Some(_), _, None) => Err(FIRST_ROUND),
            (Some(now), Some(pt), Some(dt)) => match pt.get(&pid).and_then(|p| p.1) {
                // A client closed and reopened can make the sum go down: no rate then.
                Some(before) if now >= before && dt > 0 => {
                    Ok(((now - before) as f64 / dt as f64 * 100.0).clamp(0.0, 100.0))
                }
                Some(_) => Err("GPU time went backwards (a client closed); no rate this round"),
                None => Err(NEW_CLIENT),
            },
        };
        match rate {
            Ok(r) => u.engines.sm_percent = Some(r.round() as u32),
            Err(why) => u.engines.unavailable_reason = Some(why.into()),
        }
        let p = processes.entry(pid).or_insert_with(|| Process::new(pid));
        if p.name.is_none() && !name.is_empty() {
            p.name = Some(name);
        }
        p.usage.push(u);
    }
}

/// Add an IOKit view to a snapshot and balance the books. Processes already in the snapshot (from
/// process metadata) get the usage rows; names from `IOUserClientCreator` only fill gaps.
pub fn apply(snap: &mut Snapshot, view: IokitView) {
    snap.devices.extend(view.devices);
    for vp in view.processes {
        match snap.processes.iter_mut().find(|p| p.pid == vp.pid) {
            Some(p) => {
                if p.name.is_none() {
                    p.name = vp.name;
                }
                p.usage.extend(vp.usage);
            }
            None => snap.processes.push(vp),
        }
    }
    snap.notes.extend(view.notes);
    snap.sources.push(view.status);
    balance(snap);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn creators_parse_as_nvtop_reads_them() {
        assert_eq!(
            parse_creator("pid 533, WindowServer"),
            Some((533, "WindowServer".into()))
        );
        assert_eq!(
            parse_creator("pid 6100, Google Chrome Helper (GPU)"),
            Some((6100, "Google Chrome Helper (GPU)".into()))
        );
        assert_eq!(parse_creator("pid 77"), Some((77, String::new())));
        assert_eq!(parse_creator("process 5, x"), None);
        assert_eq!(parse_creator("pid , x"), None);
        assert_eq!(parse_creator("pid 99999999999, x"), None);
    }

    #[test]
    fn gpu_time_from_app_usage_or_the_client() {
        let p = json!({"AppUsage": [
            {"API": "Metal", "accumulatedGPUTime": 1000},
            {"API": "CoreML", "accumulatedGPUTime": 500},
            {"API": "GL"}
        ]});
        assert_eq!(client_gpu_time_ns(p.as_object().unwrap()), Some(1500));
        let p = json!({"accumulatedGPUTime": 42});
        assert_eq!(client_gpu_time_ns(p.as_object().unwrap()), Some(42));
        let p = json!({"AppUsage": [{"API": "Metal"}]});
        assert_eq!(client_gpu_time_ns(p.as_object().unwrap()), None);
        let p = json!({"AppUsage": "junk", "accumulatedGPUTime": -3});
        assert_eq!(client_gpu_time_ns(p.as_object().unwrap()), None);
    }

    #[test]
    fn device_stats_read_known_keys_and_reject_nonsense() {
        let p = json!({
            "Device Utilization %": 42, "Renderer Utilization %": 40, "Tiler Utilization %": 130,
            "In use system memory": 1234, "Alloc system memory": 5678.0
        });
        let s = device_stats(p.as_object().unwrap());
        assert_eq!(s.utilization_percent, Some(42));
        assert_eq!(s.renderer_percent, Some(40));
        assert_eq!(s.tiler_percent, None, "over 100 % is not a percent");
        assert_eq!(s.in_use_system_memory, Some(1234));
        assert_eq!(s.alloc_system_memory, Some(5678));
    }

    proptest::proptest! {
        #[test]
        fn creator_never_panics(s in "\\PC{0,64}") {
            let _ = parse_creator(&s);
        }

        #[test]
        fn creator_round_trips(pid: u32, name in "[A-Za-z][A-Za-z0-9 ().,_-]{0,40}") {
            let got = parse_creator(&format!("pid {pid}, {name}")).unwrap();
            proptest::prop_assert_eq!(got, (pid, name.trim_end().to_string()));
        }
    }
}
