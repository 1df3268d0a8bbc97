//! Fake NVML. See README.md for the scenario format. Every exported function re-checks the
//! scenario file (by size and mtime) so tests can change it between collection rounds.
#![allow(non_snake_case, clippy::missing_safety_doc)]
#![cfg_attr(feature = "legacy", allow(dead_code))]

use std::collections::HashMap;
use std::os::raw::{c_char, c_int, c_uint, c_ulonglong, c_void};
use std::sync::Mutex;
use std::time::SystemTime;

type Ret = c_int;
/// (list, device index, pid, memory; None = NVML_VALUE_NOT_AVAILABLE)
type ProcRow = (String, u32, u32, Option<u64>);
const SUCCESS: Ret = 0;
const UNINITIALIZED: Ret = 1;
const INVALID_ARGUMENT: Ret = 2;
const NOT_SUPPORTED: Ret = 3;
const NOT_FOUND: Ret = 6;
const INSUFFICIENT_SIZE: Ret = 7;

#[derive(Default, Clone)]
struct Scenario {
    driver: Option<String>,
    /// `driver|cuda=…`: what nvmlSystemGetCudaDriverVersion reports, if not derived from `version`.
    cuda: Option<c_int>,
    init_error: Option<Ret>,
    devices: Vec<HashMap<String, String>>,
    procs: Vec<ProcRow>,
    util: Vec<(u32, [u32; 5], u64)>, // (dev, [pid, sm, mem, enc, dec], ts)
    fails: Vec<(String, Option<u32>, Ret)>,
    lie: Lie,
}

/// How the fake misreports the processes it learns from the fake CUDA driver's shared state
/// (`cuda|...` directive), so tests can check that `gpuledger verify` catches each lie.
#[derive(Default, Clone, Copy)]
struct Lie {
    /// `mem=NA`: their memory is NVML_VALUE_NOT_AVAILABLE.
    na: bool,
    /// `lag=N`: the newest N events are not seen yet (a driver a round behind).
    lag: usize,
    /// `count=K`: each process's memory is reported K times over (double counting).
    count: u64,
    /// `release_reads=K`: after a free, the next K device memory reads still show it as used
    /// (a driver that releases asynchronously).
    release_reads: u32,
}

/// (state file length, device memory reads since it last changed), for `release_reads`.
static RELEASE: Mutex<(u64, u32)> = Mutex::new((0, 0));

struct State {
    key: Option<(SystemTime, u64)>,
    scenario: Scenario,
    initialised: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    key: None,
    scenario: Scenario {
        driver: None,
        cuda: None,
        init_error: None,
        devices: Vec::new(),
        procs: Vec::new(),
        util: Vec::new(),
        fails: Vec::new(),
        lie: Lie {
            na: false,
            lag: 0,
            count: 1,
            release_reads: 0,
        },
    },
    initialised: false,
});

fn parse(text: &str) -> Scenario {
    let mut s = Scenario::default();
    s.lie.count = 1;
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split('|');
        let kind = parts.next().unwrap_or("").trim().to_string();
        let kv: HashMap<String, String> = parts
            .filter_map(|p| p.split_once('='))
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .collect();
        let num = |k: &str| kv.get(k).and_then(|v| v.parse::<u64>().ok());
        match kind.as_str() {
            "driver" => {
                s.driver = kv.get("version").cloned();
                s.cuda = num("cuda").map(|c| c as c_int);
            }
            "init_error" => s.init_error = num("code").map(|c| c as Ret),
            "device" => s.devices.push(kv),
            "compute" | "graphics" | "mps" => {
                let mem = match kv.get("mem").map(String::as_str) {
                    Some("NA") => None,
                    _ => num("mem"),
                };
                s.procs.push((
                    kind,
                    num("dev").unwrap_or(0) as u32,
                    num("pid").unwrap_or(0) as u32,
                    mem,
                ));
            }
            "util" => {
                let g = |k: &str| num(k).unwrap_or(0) as u32;
                s.util.push((
                    g("dev"),
                    [g("pid"), g("sm"), g("mem"), g("enc"), g("dec")],
                    num("ts").unwrap_or(1),
                ));
            }
            "cuda" => {
                s.lie = Lie {
                    na: kv.get("mem").is_some_and(|v| v == "NA"),
                    lag: num("lag").unwrap_or(0) as usize,
                    count: num("count").unwrap_or(1).max(1),
                    release_reads: num("release_reads").unwrap_or(0) as u32,
                }
            }
            "fail" => s.fails.push((
                kv.get("fn").cloned().unwrap_or_default(),
                num("dev").map(|d| d as u32),
                num("code").unwrap_or(999) as Ret,
            )),
            _ => {}
        }
    }
    s
}

/// Current scenario, re-read when the file changed.
fn with<T>(f: impl FnOnce(&mut State) -> T) -> T {
    let mut st = STATE.lock().unwrap_or_else(|e| e.into_inner());
    if let Ok(path) = std::env::var("FAKE_NVML_SCENARIO") {
        if let Ok(md) = std::fs::metadata(&path) {
            let key = (md.modified().unwrap_or(SystemTime::UNIX_EPOCH), md.len());
            if st.key != Some(key) {
                st.scenario = parse(&std::fs::read_to_string(&path).unwrap_or_default());
                st.key = Some(key);
            }
        }
    }
    f(&mut st)
}

/// The processes the fake CUDA driver has recorded in `FAKE_GPU_STATE` (see fake-cuda): per
/// (device, pid) still alive, the bytes it holds, after the scenario's `cuda|...` lie. A process
/// is listed while it has a context, as a real driver lists it; dead processes are dropped, as the
/// driver frees what a process held when it ends.
fn cuda_state(lie: Lie) -> Vec<(u32, u32, Option<u64>)> {
    let Ok(path) = std::env::var("FAKE_GPU_STATE") else {
        return Vec::new();
    };
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let seen = lines.len().saturating_sub(lie.lag);
    // (dev, pid) -> (contexts, bytes)
    let mut held: std::collections::BTreeMap<(u32, u32), (i64, i64)> = Default::default();
    for line in &lines[..seen] {
        let f: Vec<&str> = line.split('|').collect();
        let [pid, dev, kind, delta] = f[..] else {
            continue;
        };
        let (Ok(pid), Ok(dev), Ok(delta)) = (pid.parse(), dev.parse(), delta.parse::<i64>()) else {
            continue;
        };
        let e = held.entry((dev, pid)).or_default();
        if kind == "ctx" {
            e.0 += delta.signum();
        }
        e.1 += delta;
    }
    held.into_iter()
        .filter(|((_, pid), (ctx, _))| {
            *ctx > 0 && std::path::Path::new(&format!("/proc/{pid}")).exists()
        })
        .map(|((dev, pid), (_, bytes))| {
            let b = bytes.max(0) as u64 * lie.count;
            (dev, pid, (!lie.na).then_some(b))
        })
        .collect()
}

/// What the live CUDA processes add to device `dev`'s used memory (the truth, whatever the
/// lie, except `release_reads`, which delays a free's newest event for that many reads).
fn cuda_used(dev: u32, release_reads: u32) -> u64 {
    let mut lie = Lie {
        count: 1,
        ..Lie::default()
    };
    if release_reads > 0 {
        let path = std::env::var("FAKE_GPU_STATE").unwrap_or_default();
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let mut r = RELEASE.lock().unwrap_or_else(|e| e.into_inner());
        if r.0 != len {
            *r = (len, 0);
        }
        r.1 += 1;
        let last = std::fs::read_to_string(&path).unwrap_or_default();
        let newest_is_free = last.lines().last().is_some_and(|l| l.contains("|mem|-"));
        if newest_is_free && r.1 <= release_reads {
            lie.lag = 1;
        }
    }
    cuda_state(lie)
        .iter()
        .filter(|(d, _, _)| *d == dev)
        .filter_map(|(_, _, b)| *b)
        .sum()
}

fn injected(st: &State, func: &str, dev: Option<u32>) -> Option<Ret> {
    st.scenario
        .fails
        .iter()
        .find(|(f, d, _)| f == func && (d.is_none() || *d == dev))
        .map(|(_, _, c)| *c)
}

fn dev_index(h: *mut c_void) -> Option<u32> {
    (h as usize).checked_sub(1).map(|i| i as u32)
}

/// Shared prologue: initialised, valid device, no injected failure.
fn device(func: &str, h: *mut c_void, f: impl FnOnce(&HashMap<String, String>, u32) -> Ret) -> Ret {
    with(|st| {
        if !st.initialised {
            return UNINITIALIZED;
        }
        let Some(i) = dev_index(h) else {
            return INVALID_ARGUMENT;
        };
        if let Some(rc) = injected(st, func, Some(i)) {
            return rc;
        }
        match st.scenario.devices.get(i as usize) {
            Some(d) => f(d, i),
            None => INVALID_ARGUMENT,
        }
    })
}

fn field(d: &HashMap<String, String>, k: &str) -> Option<u64> {
    d.get(k).and_then(|v| v.parse().ok())
}

unsafe fn put_u32(out: *mut c_uint, v: Option<u64>) -> Ret {
    match v {
        Some(v) if !out.is_null() => {
            *out = v as c_uint;
            SUCCESS
        }
        Some(_) => INVALID_ARGUMENT,
        None => NOT_SUPPORTED,
    }
}

unsafe fn put_str(buf: *mut c_char, len: c_uint, s: &str) -> Ret {
    if buf.is_null() || (len as usize) < s.len() + 1 {
        return INSUFFICIENT_SIZE;
    }
    std::ptr::copy_nonoverlapping(s.as_ptr() as *const c_char, buf, s.len());
    *buf.add(s.len()) = 0;
    SUCCESS
}

fn init(func: &str) -> Ret {
    with(|st| {
        if let Some(rc) = injected(st, func, None).or(st.scenario.init_error) {
            return rc;
        }
        st.initialised = true;
        SUCCESS
    })
}

#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub extern "C" fn nvmlInit_v2() -> Ret {
    init("nvmlInit_v2")
}

/// What tools built on nvidia-ml-py (nvitop) call first; the flags change nothing here.
#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub extern "C" fn nvmlInitWithFlags(_flags: u32) -> Ret {
    init("nvmlInitWithFlags")
}

#[no_mangle]
pub extern "C" fn nvmlInit() -> Ret {
    init("nvmlInit")
}

#[no_mangle]
pub extern "C" fn nvmlShutdown() -> Ret {
    with(|st| {
        st.initialised = false;
        SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn nvmlErrorString(rc: Ret) -> *const c_char {
    let s: &'static [u8] = match rc {
        0 => b"Success\0",
        1 => b"Uninitialized\0",
        2 => b"Invalid Argument\0",
        3 => b"Not Supported\0",
        4 => b"Insufficient Permissions\0",
        6 => b"Not Found\0",
        7 => b"Insufficient Size\0",
        9 => b"Driver Not Loaded\0",
        15 => b"GPU is lost\0",
        _ => b"Unknown Error\0",
    };
    s.as_ptr() as *const c_char
}

#[no_mangle]
pub unsafe extern "C" fn nvmlSystemGetDriverVersion(buf: *mut c_char, len: c_uint) -> Ret {
    let v = with(|st| {
        if let Some(rc) = injected(st, "nvmlSystemGetDriverVersion", None) {
            return Err(rc);
        }
        st.scenario.driver.clone().ok_or(NOT_SUPPORTED)
    });
    match v {
        Ok(v) => put_str(buf, len, &v),
        Err(rc) => rc,
    }
}

/// What nvmlSystemGetCudaDriverVersion reports when the scenario names no driver version (or
/// one older than any CUDA 11 driver): CUDA 12.4, what the 550 driver of the H200 scenarios
/// (scripts/bench-vs-nvitop.sh, the README's example) supports.
const DEFAULT_CUDA: c_int = 12040;

/// The CUDA version (1000 × major + 10 × minor) a Linux driver supports, from its branch (the
/// version's first number): the branch each CUDA release shipped with. A branch newer than the
/// table answers its newest entry.
fn cuda_of_driver(version: &str) -> Option<c_int> {
    const BRANCHES: &[(u32, c_int)] = &[
        (450, 11000),
        (455, 11010),
        (460, 11020),
        (465, 11030),
        (470, 11040),
        (495, 11050),
        (510, 11060),
        (515, 11070),
        (520, 11080),
        (525, 12000),
        (530, 12010),
        (535, 12020),
        (545, 12030),
        (550, 12040),
        (555, 12050),
        (560, 12060),
        (565, 12070),
        (570, 12080),
        (575, 12090),
        (580, 13000),
    ];
    let branch: u32 = version.split('.').next()?.trim().parse().ok()?;
    BRANCHES
        .iter()
        .rev()
        .find(|(b, _)| branch >= *b)
        .map(|(_, c)| *c)
}

unsafe fn cuda_version(func: &str, out: *mut c_int) -> Ret {
    with(|st| {
        if let Some(rc) = injected(st, func, None) {
            return rc;
        }
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        *out = st
            .scenario
            .cuda
            .or_else(|| st.scenario.driver.as_deref().and_then(cuda_of_driver))
            .unwrap_or(DEFAULT_CUDA);
        SUCCESS
    })
}

#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub unsafe extern "C" fn nvmlSystemGetCudaDriverVersion(out: *mut c_int) -> Ret {
    cuda_version("nvmlSystemGetCudaDriverVersion", out)
}

#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub unsafe extern "C" fn nvmlSystemGetCudaDriverVersion_v2(out: *mut c_int) -> Ret {
    cuda_version("nvmlSystemGetCudaDriverVersion_v2", out)
}

unsafe fn count(func: &str, out: *mut c_uint) -> Ret {
    with(|st| {
        if !st.initialised {
            return UNINITIALIZED;
        }
        if let Some(rc) = injected(st, func, None) {
            return rc;
        }
        *out = st.scenario.devices.len() as c_uint;
        SUCCESS
    })
}

#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetCount_v2(out: *mut c_uint) -> Ret {
    count("nvmlDeviceGetCount_v2", out)
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetCount(out: *mut c_uint) -> Ret {
    count("nvmlDeviceGetCount", out)
}

unsafe fn handle(func: &str, i: c_uint, out: *mut *mut c_void) -> Ret {
    with(|st| {
        if let Some(rc) = injected(st, func, Some(i)) {
            return rc;
        }
        if (i as usize) >= st.scenario.devices.len() {
            return INVALID_ARGUMENT;
        }
        *out = (i as usize + 1) as *mut c_void;
        SUCCESS
    })
}

#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetHandleByIndex_v2(i: c_uint, out: *mut *mut c_void) -> Ret {
    handle("nvmlDeviceGetHandleByIndex_v2", i, out)
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetHandleByIndex(i: c_uint, out: *mut *mut c_void) -> Ret {
    handle("nvmlDeviceGetHandleByIndex", i, out)
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetName(h: *mut c_void, buf: *mut c_char, len: c_uint) -> Ret {
    device("nvmlDeviceGetName", h, |d, _| match d.get("name") {
        Some(n) => put_str(buf, len, n),
        None => NOT_SUPPORTED,
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetUUID(h: *mut c_void, buf: *mut c_char, len: c_uint) -> Ret {
    device("nvmlDeviceGetUUID", h, |d, _| match d.get("uuid") {
        Some(n) => put_str(buf, len, n),
        None => NOT_SUPPORTED,
    })
}

#[repr(C)]
pub struct PciInfo {
    bus_id_legacy: [c_char; 16],
    domain: c_uint,
    bus: c_uint,
    device: c_uint,
    pci_device_id: c_uint,
    pci_subsystem_id: c_uint,
    bus_id: [c_char; 32],
}

#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPciInfo_v3(h: *mut c_void, out: *mut PciInfo) -> Ret {
    device("nvmlDeviceGetPciInfo_v3", h, |d, _| match d.get("pci") {
        Some(p) => put_str((*out).bus_id.as_mut_ptr(), 32, p),
        None => NOT_SUPPORTED,
    })
}

#[repr(C)]
pub struct MemoryV2 {
    version: c_uint,
    total: c_ulonglong,
    reserved: c_ulonglong,
    free: c_ulonglong,
    used: c_ulonglong,
}

#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMemoryInfo_v2(h: *mut c_void, out: *mut MemoryV2) -> Ret {
    // Read before device(), which holds the state lock.
    let rr = with(|st| st.scenario.lie.release_reads);
    device("nvmlDeviceGetMemoryInfo_v2", h, |d, i| {
        // A real driver checks the struct version; so do we.
        if (*out).version != (std::mem::size_of::<MemoryV2>() as c_uint | 2 << 24) {
            return 25; // NVML_ERROR_ARGUMENT_VERSION_MISMATCH
        }
        match (field(d, "total"), field(d, "used"), field(d, "free")) {
            (Some(t), Some(u), Some(f)) => {
                let c = cuda_used(i, rr);
                (*out).total = t;
                (*out).used = u + c;
                (*out).free = f.saturating_sub(c);
                (*out).reserved = field(d, "reserved").unwrap_or(0);
                SUCCESS
            }
            _ => NOT_SUPPORTED,
        }
    })
}

#[repr(C)]
pub struct Memory {
    total: c_ulonglong,
    free: c_ulonglong,
    used: c_ulonglong,
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMemoryInfo(h: *mut c_void, out: *mut Memory) -> Ret {
    // Read before device(), which holds the state lock.
    let rr = with(|st| st.scenario.lie.release_reads);
    device("nvmlDeviceGetMemoryInfo", h, |d, i| {
        match (field(d, "total"), field(d, "used"), field(d, "free")) {
            // v1 "used" includes the reserved memory.
            (Some(t), Some(u), Some(f)) => {
                let c = cuda_used(i, rr);
                (*out).total = t;
                (*out).used = u + c + field(d, "reserved").unwrap_or(0);
                (*out).free = f.saturating_sub(c);
                SUCCESS
            }
            _ => NOT_SUPPORTED,
        }
    })
}

#[repr(C)]
pub struct Utilization {
    gpu: c_uint,
    memory: c_uint,
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetUtilizationRates(
    h: *mut c_void,
    out: *mut Utilization,
) -> Ret {
    device("nvmlDeviceGetUtilizationRates", h, |d, _| {
        match (field(d, "gpu"), field(d, "mem")) {
            (Some(g), Some(m)) => {
                (*out).gpu = g as c_uint;
                (*out).memory = m as c_uint;
                SUCCESS
            }
            _ => NOT_SUPPORTED,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetTemperature(
    h: *mut c_void,
    _sensor: c_uint,
    out: *mut c_uint,
) -> Ret {
    device("nvmlDeviceGetTemperature", h, |d, _| {
        put_u32(out, field(d, "temp"))
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPowerUsage(h: *mut c_void, out: *mut c_uint) -> Ret {
    device("nvmlDeviceGetPowerUsage", h, |d, _| {
        put_u32(out, field(d, "power_mw"))
    })
}

#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetEnforcedPowerLimit(h: *mut c_void, out: *mut c_uint) -> Ret {
    device("nvmlDeviceGetEnforcedPowerLimit", h, |d, _| {
        put_u32(out, field(d, "limit_mw"))
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetClockInfo(
    h: *mut c_void,
    ty: c_uint,
    out: *mut c_uint,
) -> Ret {
    let key = match ty {
        0 => "gfx_mhz",
        1 => "sm_mhz",
        2 => "mem_mhz",
        _ => "video_mhz",
    };
    device("nvmlDeviceGetClockInfo", h, |d, _| {
        put_u32(out, field(d, key))
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetCurrPcieLinkGeneration(
    h: *mut c_void,
    out: *mut c_uint,
) -> Ret {
    device("nvmlDeviceGetCurrPcieLinkGeneration", h, |d, _| {
        put_u32(out, field(d, "pcie_gen"))
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetCurrPcieLinkWidth(h: *mut c_void, out: *mut c_uint) -> Ret {
    device("nvmlDeviceGetCurrPcieLinkWidth", h, |d, _| {
        put_u32(out, field(d, "pcie_width"))
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMaxPcieLinkGeneration(
    h: *mut c_void,
    out: *mut c_uint,
) -> Ret {
    device("nvmlDeviceGetMaxPcieLinkGeneration", h, |d, _| {
        put_u32(out, field(d, "pcie_max_gen"))
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMaxPcieLinkWidth(h: *mut c_void, out: *mut c_uint) -> Ret {
    device("nvmlDeviceGetMaxPcieLinkWidth", h, |d, _| {
        put_u32(out, field(d, "pcie_max_width"))
    })
}

// What tools such as nvitop read besides what gpuledger reads. Unless the scenario says otherwise
// (README.md), each answers as an H200 SXM on a Linux data-centre driver does.

#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPowerManagementLimit(
    h: *mut c_void,
    out: *mut c_uint,
) -> Ret {
    device("nvmlDeviceGetPowerManagementLimit", h, |d, _| {
        put_u32(out, field(d, "limit_mw"))
    })
}

/// `nvmlComputeMode_t`: NVML_COMPUTEMODE_DEFAULT (0) unless `compute_mode=`.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetComputeMode(h: *mut c_void, out: *mut c_uint) -> Ret {
    device("nvmlDeviceGetComputeMode", h, |d, _| {
        put_u32(out, Some(field(d, "compute_mode").unwrap_or(0)))
    })
}

/// `nvmlEnableState_t`: NVML_FEATURE_DISABLED (0) unless `display_active=` (no display is
/// attached to a data-centre GPU).
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetDisplayActive(h: *mut c_void, out: *mut c_uint) -> Ret {
    device("nvmlDeviceGetDisplayActive", h, |d, _| {
        put_u32(out, Some(field(d, "display_active").unwrap_or(0)))
    })
}

/// `nvmlEnableState_t`: NVML_FEATURE_ENABLED (1) unless `persistence=` (data-centre machines run
/// the persistence daemon).
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPersistenceMode(h: *mut c_void, out: *mut c_uint) -> Ret {
    device("nvmlDeviceGetPersistenceMode", h, |d, _| {
        put_u32(out, Some(field(d, "persistence").unwrap_or(1)))
    })
}

/// `nvmlPstates_t`: P0 (0) unless `pstate=`.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPerformanceState(h: *mut c_void, out: *mut c_uint) -> Ret {
    device("nvmlDeviceGetPerformanceState", h, |d, _| {
        put_u32(out, Some(field(d, "pstate").unwrap_or(0)))
    })
}

/// Percent; NOT_SUPPORTED unless `fan=`, as on a passively cooled H200 SXM.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetFanSpeed(h: *mut c_void, out: *mut c_uint) -> Ret {
    device("nvmlDeviceGetFanSpeed", h, |d, _| {
        put_u32(out, field(d, "fan"))
    })
}

/// Windows only (WDDM/TCC/MCDM): a Linux driver answers NOT_SUPPORTED.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetDriverModel(
    h: *mut c_void,
    current: *mut c_uint,
    pending: *mut c_uint,
) -> Ret {
    device("nvmlDeviceGetDriverModel", h, |_, _| {
        if current.is_null() || pending.is_null() {
            return INVALID_ARGUMENT;
        }
        NOT_SUPPORTED
    })
}

/// `errorType` 0 corrected, 1 uncorrected; `counterType` 0 volatile, 1 aggregate (both counters
/// give the same count). 0 unless `ecc_corrected=` / `ecc_uncorrected=`.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetTotalEccErrors(
    h: *mut c_void,
    error_type: c_uint,
    counter_type: c_uint,
    out: *mut c_ulonglong,
) -> Ret {
    device("nvmlDeviceGetTotalEccErrors", h, |d, _| {
        let key = match error_type {
            0 => "ecc_corrected",
            1 => "ecc_uncorrected",
            _ => return INVALID_ARGUMENT,
        };
        if counter_type > 1 || out.is_null() {
            return INVALID_ARGUMENT;
        }
        *out = field(d, key).unwrap_or(0);
        SUCCESS
    })
}

/// The sampling period a real driver reports with encoder/decoder utilisation (µs).
const CODEC_SAMPLING_US: c_uint = 167_000;

unsafe fn codec_util(
    func: &str,
    key: &str,
    h: *mut c_void,
    util: *mut c_uint,
    period: *mut c_uint,
) -> Ret {
    device(func, h, |d, _| {
        if util.is_null() || period.is_null() {
            return INVALID_ARGUMENT;
        }
        *util = field(d, key).unwrap_or(0) as c_uint;
        *period = CODEC_SAMPLING_US;
        SUCCESS
    })
}

/// Percent, 0 unless `enc=`.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetEncoderUtilization(
    h: *mut c_void,
    util: *mut c_uint,
    period: *mut c_uint,
) -> Ret {
    codec_util("nvmlDeviceGetEncoderUtilization", "enc", h, util, period)
}

/// Percent, 0 unless `dec=`.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetDecoderUtilization(
    h: *mut c_void,
    util: *mut c_uint,
    period: *mut c_uint,
) -> Ret {
    codec_util("nvmlDeviceGetDecoderUtilization", "dec", h, util, period)
}

/// MIG capable but off: current and pending NVML_DEVICE_MIG_DISABLE (0). The fake has no MIG
/// device handles, so MIG cannot be turned on.
#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMigMode(
    h: *mut c_void,
    current: *mut c_uint,
    pending: *mut c_uint,
) -> Ret {
    device("nvmlDeviceGetMigMode", h, |_, _| {
        if current.is_null() || pending.is_null() {
            return INVALID_ARGUMENT;
        }
        *current = 0;
        *pending = 0;
        SUCCESS
    })
}

/// Every handle the fake gives out is a whole GPU's.
#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceIsMigDeviceHandle(h: *mut c_void, out: *mut c_uint) -> Ret {
    device("nvmlDeviceIsMigDeviceHandle", h, |_, _| {
        put_u32(out, Some(0))
    })
}

/// `nvmlProcessInfo_t` (24 bytes) and the v1 form (16 bytes).
#[repr(C)]
pub struct ProcInfo {
    pid: c_uint,
    used: c_ulonglong,
    gi: c_uint,
    ci: c_uint,
}

#[repr(C)]
pub struct ProcInfoV1 {
    pid: c_uint,
    used: c_ulonglong,
}

/// NVML's list protocol: too small a buffer (or NULL) → INSUFFICIENT_SIZE with the count needed.
unsafe fn list(
    func: &str,
    list: &str,
    h: *mut c_void,
    count: *mut c_uint,
    write: impl Fn(usize, u32, u64),
) -> Ret {
    device(func, h, |_, i| {
        let entries: Vec<(u32, u64)> = with_scenario_procs(list, i);
        let cap = *count as usize;
        *count = entries.len() as c_uint;
        if entries.is_empty() {
            return SUCCESS;
        }
        if cap < entries.len() {
            return INSUFFICIENT_SIZE;
        }
        for (k, (pid, mem)) in entries.into_iter().enumerate() {
            write(k, pid, mem);
        }
        SUCCESS
    })
}

thread_local! {
    static PROCS: std::cell::RefCell<Vec<ProcRow>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn with_scenario_procs(list: &str, dev: u32) -> Vec<(u32, u64)> {
    PROCS.with(|p| {
        p.borrow()
            .iter()
            .filter(|(l, d, _, _)| l == list && *d == dev)
            .map(|(_, _, pid, mem)| (*pid, mem.unwrap_or(u64::MAX)))
            .collect()
    })
}

/// `device()` holds the state lock, so copy the process table out first.
fn snapshot_procs() {
    let (mut procs, lie) = with(|st| (st.scenario.procs.clone(), st.scenario.lie));
    for (dev, pid, mem) in cuda_state(lie) {
        procs.push(("compute".into(), dev, pid, mem));
    }
    PROCS.with(|p| *p.borrow_mut() = procs);
}

macro_rules! modern_list {
    ($name:ident, $list:literal) => {
        #[cfg(not(feature = "legacy"))]
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            h: *mut c_void,
            count: *mut c_uint,
            out: *mut ProcInfo,
        ) -> Ret {
            snapshot_procs();
            list(stringify!($name), $list, h, count, |k, pid, used| {
                *out.add(k) = ProcInfo {
                    pid,
                    used,
                    gi: u32::MAX,
                    ci: u32::MAX,
                };
            })
        }
    };
}

macro_rules! v1_list {
    ($name:ident, $list:literal) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            h: *mut c_void,
            count: *mut c_uint,
            out: *mut ProcInfoV1,
        ) -> Ret {
            snapshot_procs();
            list(stringify!($name), $list, h, count, |k, pid, used| {
                *out.add(k) = ProcInfoV1 { pid, used };
            })
        }
    };
}

modern_list!(nvmlDeviceGetComputeRunningProcesses_v3, "compute");
modern_list!(nvmlDeviceGetGraphicsRunningProcesses_v3, "graphics");
modern_list!(nvmlDeviceGetMPSComputeRunningProcesses_v3, "mps");
v1_list!(nvmlDeviceGetComputeRunningProcesses, "compute");
v1_list!(nvmlDeviceGetGraphicsRunningProcesses, "graphics");
v1_list!(nvmlDeviceGetMPSComputeRunningProcesses, "mps");

#[repr(C)]
pub struct UtilSample {
    pid: c_uint,
    ts: c_ulonglong,
    sm: c_uint,
    mem: c_uint,
    enc: c_uint,
    dec: c_uint,
}

#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetProcessUtilization(
    h: *mut c_void,
    out: *mut UtilSample,
    count: *mut c_uint,
    last_seen: c_ulonglong,
) -> Ret {
    let samples = with(|st| st.scenario.util.clone());
    device("nvmlDeviceGetProcessUtilization", h, |_, i| {
        let mine: Vec<_> = samples
            .iter()
            .filter(|(d, _, ts)| *d == i && *ts > last_seen)
            .collect();
        if mine.is_empty() {
            return NOT_FOUND;
        }
        let cap = *count as usize;
        *count = mine.len() as c_uint;
        if out.is_null() || cap < mine.len() {
            return INSUFFICIENT_SIZE;
        }
        for (k, (_, [pid, sm, mem, enc, dec], ts)) in mine.into_iter().enumerate() {
            *out.add(k) = UtilSample {
                pid: *pid,
                ts: *ts,
                sm: *sm,
                mem: *mem,
                enc: *enc,
                dec: *dec,
            };
        }
        SUCCESS
    })
}
