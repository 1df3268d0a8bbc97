//! The process lists (NVML's list protocol, current and v1 layouts) and per-process utilisation.

use crate::scenario::{cuda_state, with, ProcRow};
use crate::{device, Ret, INSUFFICIENT_SIZE, SUCCESS};
use std::os::raw::{c_uint, c_ulonglong, c_void};

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
            return crate::NOT_FOUND; // named in full: the legacy build has no utilisation
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
