//! Fake NVML. See README.md for the scenario format. Every exported function re-checks the
//! scenario file (by size and mtime) so tests can change it between collection rounds.
#![allow(non_snake_case, clippy::missing_safety_doc)]
#![cfg_attr(feature = "legacy", allow(dead_code))]

mod extras;
mod mig;
mod processes;
mod scenario;

use scenario::{cuda_used, with, State};
use std::collections::HashMap;
use std::os::raw::{c_char, c_int, c_uint, c_ulonglong, c_void};

type Ret = c_int;
const SUCCESS: Ret = 0;
const UNINITIALIZED: Ret = 1;
const INVALID_ARGUMENT: Ret = 2;
const NOT_SUPPORTED: Ret = 3;
const NOT_FOUND: Ret = 6;
const INSUFFICIENT_SIZE: Ret = 7;

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
    if mig::mig_handle(h).is_some() {
        return mig::mig_uuid(h, buf, len);
    }
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

/// The scenario's `cc` ("8.9"); NOT_SUPPORTED without one, as an old driver would answer.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetCudaComputeCapability(
    h: *mut c_void,
    major: *mut c_int,
    minor: *mut c_int,
) -> Ret {
    device("nvmlDeviceGetCudaComputeCapability", h, |d, _| {
        let parsed = d.get("cc").and_then(|v| {
            let (a, b) = v.split_once('.')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        });
        match parsed {
            Some((a, b)) if !major.is_null() && !minor.is_null() => {
                *major = a;
                *minor = b;
                SUCCESS
            }
            Some(_) => INVALID_ARGUMENT,
            None => NOT_SUPPORTED,
        }
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
