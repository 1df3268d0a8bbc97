//! A fake CUDA driver library for tests. It exports the driver API entry points that
//! `gpuledger-cuda` calls, with the same C signatures as `cuda.h`, and serves a scenario:
//! how much VRAM each kind of allocation charges, what a context costs, how late freed memory
//! shows up again, which call fails with which error. It never touches real memory: device and
//! pinned-host "allocations" are bookkeeping entries with made-up addresses.
//!
//! Every call that creates or releases something is appended to a log file, so a test can check
//! that the probe released everything it allocated on every path.
//!
//! Scenario file (one directive a line, fields separated by `|`, `#` starts a comment):
//!
//! ```text
//! device|NAME|TOTAL_BYTES|USED_BYTES[|UUID as 32 hex digits]
//! driver|12040                      # cuDriverGetVersion
//! nvml_driver|555.85                # nvmlSystemGetDriverVersion
//! context_cost|BYTES                # VRAM charged per context
//! charge|METHOD|RATIO               # METHOD: device, host_alloc, host_alloc_devicemap, host_register
//! granularity|BYTES                 # charges are rounded up to a multiple of this
//! release_lag|N                     # cuMemGetInfo reads that still see freed memory as used
//! fail|FUNCTION|CODE|NTH            # the NTH call (1-based, 0 = every call) returns CODE
//! sigint|FUNCTION|NTH               # raise SIGINT inside the NTH call (Unix)
//! ```
//!
//! The library also exports the few NVML entry points gpuledger's NVML source needs for device
//! memory (`nvmlInit_v2`, `nvmlDeviceGetMemoryInfo`, ...), backed by the same state: like a real
//! driver, NVML sees what the CUDA side allocated. A test can point both `--cuda-lib` and
//! `--nvml-lib` at this one file.
//!
//! The scenario path comes from `fake_cuda_configure` (called by in-process tests, which load
//! their own copy of this library) or from the environment variable `FAKE_CUDA_SCENARIO`; the
//! log path likewise from `fake_cuda_configure` or `FAKE_CUDA_LOG`. The scenario is read at the
//! first `cuInit`.

#![allow(non_snake_case, clippy::missing_safety_doc)]

mod nvml;
mod scenario;
mod state;

use scenario::parse_scenario;
use state::{with, State};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

type CUresult = c_int;
type CUdevice = c_int;
type CUcontext = *mut c_void;
type CUdeviceptr = u64;

const SUCCESS: CUresult = 0;
const INVALID_VALUE: CUresult = 1;
const OUT_OF_MEMORY: CUresult = 2;
const NOT_INITIALIZED: CUresult = 3;
const INVALID_DEVICE: CUresult = 101;
const INVALID_CONTEXT: CUresult = 201;
const HOST_MEMORY_NOT_REGISTERED: CUresult = 713;
const UNKNOWN: CUresult = 999;
const MEMHOSTALLOC_DEVICEMAP: c_uint = 0x02;

#[cfg(unix)]
fn raise_sigint() {
    // SAFETY: raise() is async-signal-safe and delivers the signal to this thread before
    // returning, which is exactly the interruption the scenario asks for.
    unsafe {
        libc::raise(libc::SIGINT);
    }
}

#[cfg(not(unix))]
fn raise_sigint() {}

fn cstr(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the caller passes a NUL-terminated string.
        Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
}

/// Test hook: sets the scenario and log paths for this copy of the library. Returns 0.
#[no_mangle]
pub unsafe extern "C" fn fake_cuda_configure(scenario: *const c_char, log: *const c_char) -> c_int {
    with(|s| {
        *s = State {
            scenario_path: cstr(scenario),
            log_path: cstr(log),
            ..State::default()
        };
    });
    0
}

/// Test hook standing in for NVML's device "used" figure: what is charged right now, without
/// the release lag that `cuMemGetInfo` shows. `u64::MAX` for an unknown device.
#[no_mangle]
pub extern "C" fn fake_cuda_nvml_used(dev: c_int) -> u64 {
    with(|s| match s.sc.as_ref() {
        Some(sc) if dev >= 0 && (dev as usize) < sc.devices.len() => {
            sc.devices[dev as usize].used + s.charged[dev as usize]
        }
        _ => u64::MAX,
    })
}

macro_rules! enter {
    ($s:expr, $f:literal) => {
        if let Err(code) = $s.enter($f) {
            return code;
        }
    };
}

/// Reads the scenario and opens the log, once (the CUDA and the NVML side share them).
fn load(s: &mut State) -> Result<(), ()> {
    if s.sc.is_some() {
        return Ok(());
    }
    let path = s
        .scenario_path
        .clone()
        .or_else(|| std::env::var("FAKE_CUDA_SCENARIO").ok());
    let Some(path) = path else {
        eprintln!("fake-cuda: no scenario (set FAKE_CUDA_SCENARIO)");
        return Err(());
    };
    let sc = match std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|t| parse_scenario(&t))
    {
        Ok(sc) => sc,
        Err(e) => {
            eprintln!("fake-cuda: scenario {path}: {e}");
            return Err(());
        }
    };
    let log = s
        .log_path
        .clone()
        .or_else(|| std::env::var("FAKE_CUDA_LOG").ok());
    if let Some(l) = log {
        s.log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(l)
            .ok();
    }
    s.charged = vec![0; sc.devices.len()];
    s.sc = Some(sc);
    s.log("init".into());
    Ok(())
}

#[no_mangle]
pub extern "system" fn cuInit(flags: c_uint) -> CUresult {
    with(|s| {
        enter!(s, "cuInit");
        if flags != 0 {
            return INVALID_VALUE;
        }
        match load(s) {
            Ok(()) => SUCCESS,
            Err(()) => UNKNOWN,
        }
    })
}

#[no_mangle]
pub unsafe extern "system" fn cuDriverGetVersion(v: *mut c_int) -> CUresult {
    with(|s| {
        // cuDriverGetVersion works before cuInit in the real driver.
        let Some(sc) = s.sc.as_ref() else {
            *v = 12040;
            return SUCCESS;
        };
        *v = sc.driver;
        SUCCESS
    })
}

#[no_mangle]
pub unsafe extern "system" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    with(|s| {
        enter!(s, "cuDeviceGetCount");
        *count = s.sc().devices.len() as c_int;
        SUCCESS
    })
}

#[no_mangle]
pub unsafe extern "system" fn cuDeviceGet(dev: *mut CUdevice, ordinal: c_int) -> CUresult {
    with(|s| {
        enter!(s, "cuDeviceGet");
        if ordinal < 0 || ordinal as usize >= s.sc().devices.len() {
            return INVALID_DEVICE;
        }
        *dev = ordinal;
        SUCCESS
    })
}

fn device_index(s: &State, dev: CUdevice) -> Result<usize, CUresult> {
    if dev >= 0 && (dev as usize) < s.sc().devices.len() {
        Ok(dev as usize)
    } else {
        Err(INVALID_DEVICE)
    }
}

#[no_mangle]
pub unsafe extern "system" fn cuDeviceGetName(
    name: *mut c_char,
    len: c_int,
    dev: CUdevice,
) -> CUresult {
    with(|s| {
        enter!(s, "cuDeviceGetName");
        let d = match device_index(s, dev) {
            Ok(d) => d,
            Err(e) => return e,
        };
        if name.is_null() || len <= 0 {
            return INVALID_VALUE;
        }
        let bytes = s.sc().devices[d].name.as_bytes();
        let n = bytes.len().min(len as usize - 1);
        std::ptr::copy_nonoverlapping(bytes.as_ptr() as *const c_char, name, n);
        *name.add(n) = 0;
        SUCCESS
    })
}

#[no_mangle]
pub unsafe extern "system" fn cuDeviceGetUuid(uuid: *mut [u8; 16], dev: CUdevice) -> CUresult {
    with(|s| {
        enter!(s, "cuDeviceGetUuid");
        match device_index(s, dev) {
            Ok(d) => {
                *uuid = s.sc().devices[d].uuid;
                SUCCESS
            }
            Err(e) => e,
        }
    })
}

#[no_mangle]
pub unsafe extern "system" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult {
    with(|s| {
        enter!(s, "cuDeviceTotalMem_v2");
        match device_index(s, dev) {
            Ok(d) => {
                *bytes = s.sc().devices[d].total as usize;
                SUCCESS
            }
            Err(e) => e,
        }
    })
}

#[no_mangle]
pub unsafe extern "system" fn cuCtxCreate_v2(
    pctx: *mut CUcontext,
    _flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    with(|s| {
        enter!(s, "cuCtxCreate_v2");
        let d = match device_index(s, dev) {
            Ok(d) => d,
            Err(e) => return e,
        };
        let cost = s.sc().context_cost;
        if let Err(e) = s.take(d, cost, "ctx") {
            return e;
        }
        let h = s.handle() as usize;
        s.contexts.insert(h, (d, cost));
        s.stack.push(h);
        *pctx = h as CUcontext;
        s.log(format!("ctx_create|{h:#x}|{d}"));
        SUCCESS
    })
}

#[no_mangle]
pub extern "system" fn cuCtxDestroy_v2(ctx: CUcontext) -> CUresult {
    with(|s| {
        enter!(s, "cuCtxDestroy_v2");
        let h = ctx as usize;
        let Some((d, cost)) = s.contexts.remove(&h) else {
            return INVALID_CONTEXT;
        };
        s.stack.retain(|x| *x != h);
        s.give_back(d, cost, "ctx");
        s.log(format!("ctx_destroy|{h:#x}"));
        SUCCESS
    })
}

#[no_mangle]
pub extern "system" fn cuCtxSetCurrent(ctx: CUcontext) -> CUresult {
    with(|s| {
        enter!(s, "cuCtxSetCurrent");
        let h = ctx as usize;
        if h == 0 {
            s.stack.pop();
            return SUCCESS;
        }
        if !s.contexts.contains_key(&h) {
            return INVALID_CONTEXT;
        }
        s.stack.pop();
        s.stack.push(h);
        SUCCESS
    })
}

#[no_mangle]
pub unsafe extern "system" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    with(|s| {
        enter!(s, "cuMemGetInfo_v2");
        let d = match s.current_device() {
            Ok(d) => d,
            Err(e) => return e,
        };
        let t = s.sc().devices[d].total;
        *free = t.saturating_sub(s.visible_used(d)) as usize;
        *total = t as usize;
        for p in s.pending.iter_mut().filter(|p| p.device == d) {
            p.reads_left -= 1;
        }
        s.pending.retain(|p| p.reads_left > 0);
        SUCCESS
    })
}

#[no_mangle]
pub unsafe extern "system" fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytes: usize) -> CUresult {
    with(|s| {
        enter!(s, "cuMemAlloc_v2");
        let d = match s.current_device() {
            Ok(d) => d,
            Err(e) => return e,
        };
        if bytes == 0 {
            return INVALID_VALUE;
        }
        let c = s.charge_for("device", bytes as u64);
        if let Err(e) = s.take(d, c, "mem") {
            return e;
        }
        let h = s.handle();
        s.device_allocs.insert(h, (d, c));
        *dptr = h;
        s.log(format!("alloc|device|{h:#x}|{bytes}"));
        SUCCESS
    })
}

#[no_mangle]
pub extern "system" fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult {
    with(|s| {
        enter!(s, "cuMemFree_v2");
        let Some((d, c)) = s.device_allocs.remove(&dptr) else {
            return INVALID_VALUE;
        };
        s.give_back(d, c, "mem");
        s.log(format!("free|device|{dptr:#x}"));
        SUCCESS
    })
}

/// Writes nothing (no real memory behind the handle); checks the handle and logs the touch.
#[no_mangle]
pub extern "system" fn cuMemsetD8_v2(dptr: CUdeviceptr, value: u8, n: usize) -> CUresult {
    with(|s| {
        enter!(s, "cuMemsetD8_v2");
        match s.device_allocs.get(&dptr) {
            Some(_) => {
                s.log(format!("memset|{dptr:#x}|{value}|{n}"));
                SUCCESS
            }
            None => INVALID_VALUE,
        }
    })
}

#[no_mangle]
pub unsafe extern "system" fn cuMemHostAlloc(
    pp: *mut *mut c_void,
    bytes: usize,
    flags: c_uint,
) -> CUresult {
    with(|s| {
        enter!(s, "cuMemHostAlloc");
        let d = match s.current_device() {
            Ok(d) => d,
            Err(e) => return e,
        };
        let method = if flags & MEMHOSTALLOC_DEVICEMAP != 0 {
            "host_alloc_devicemap"
        } else {
            "host_alloc"
        };
        let c = s.charge_for(method, bytes as u64);
        if let Err(e) = s.take(d, c, "mem") {
            return e;
        }
        let h = s.handle() as usize;
        s.host_allocs.insert(h, (d, c));
        *pp = h as *mut c_void;
        s.log(format!("alloc|host|{h:#x}|{bytes}|{flags}"));
        SUCCESS
    })
}

#[no_mangle]
pub extern "system" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    with(|s| {
        enter!(s, "cuMemFreeHost");
        let Some((d, c)) = s.host_allocs.remove(&(p as usize)) else {
            return INVALID_VALUE;
        };
        s.give_back(d, c, "mem");
        s.log(format!("free|host|{:#x}", p as usize));
        SUCCESS
    })
}

#[no_mangle]
pub extern "system" fn cuMemHostRegister_v2(
    p: *mut c_void,
    bytes: usize,
    _flags: c_uint,
) -> CUresult {
    with(|s| {
        enter!(s, "cuMemHostRegister_v2");
        let d = match s.current_device() {
            Ok(d) => d,
            Err(e) => return e,
        };
        if p.is_null() || bytes == 0 {
            return INVALID_VALUE;
        }
        let c = s.charge_for("host_register", bytes as u64);
        if let Err(e) = s.take(d, c, "mem") {
            return e;
        }
        s.registered.insert(p as usize, (d, c));
        s.log(format!("register|{:#x}|{bytes}", p as usize));
        SUCCESS
    })
}

#[no_mangle]
pub extern "system" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    with(|s| {
        enter!(s, "cuMemHostUnregister");
        let Some((d, c)) = s.registered.remove(&(p as usize)) else {
            return HOST_MEMORY_NOT_REGISTERED;
        };
        s.give_back(d, c, "mem");
        s.log(format!("unregister|{:#x}", p as usize));
        SUCCESS
    })
}

fn names(code: CUresult) -> Option<(&'static CStr, &'static CStr)> {
    Some(match code {
        0 => (c"CUDA_SUCCESS", c"no error"),
        1 => (c"CUDA_ERROR_INVALID_VALUE", c"invalid argument"),
        2 => (c"CUDA_ERROR_OUT_OF_MEMORY", c"out of memory"),
        3 => (c"CUDA_ERROR_NOT_INITIALIZED", c"initialization error"),
        46 => (
            c"CUDA_ERROR_DEVICE_UNAVAILABLE",
            c"CUDA-capable device(s) is/are busy or unavailable",
        ),
        100 => (
            c"CUDA_ERROR_NO_DEVICE",
            c"no CUDA-capable device is detected",
        ),
        101 => (c"CUDA_ERROR_INVALID_DEVICE", c"invalid device ordinal"),
        201 => (c"CUDA_ERROR_INVALID_CONTEXT", c"invalid device context"),
        713 => (
            c"CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
            c"pointer does not correspond to a registered memory region",
        ),
        999 => (c"CUDA_ERROR_UNKNOWN", c"unknown error"),
        _ => return None,
    })
}

#[no_mangle]
pub unsafe extern "system" fn cuGetErrorName(code: CUresult, p: *mut *const c_char) -> CUresult {
    match names(code) {
        Some((n, _)) => {
            *p = n.as_ptr();
            SUCCESS
        }
        None => {
            *p = std::ptr::null();
            INVALID_VALUE
        }
    }
}

#[no_mangle]
pub unsafe extern "system" fn cuGetErrorString(code: CUresult, p: *mut *const c_char) -> CUresult {
    match names(code) {
        Some((_, m)) => {
            *p = m.as_ptr();
            SUCCESS
        }
        None => {
            *p = std::ptr::null();
            INVALID_VALUE
        }
    }
}
