//! NVML: the device view that shares the CUDA side's state, as a real driver's NVML sees what
//! its CUDA side allocated.

use crate::{load, with, State};
use std::ffi::{c_char, c_int, c_uint, c_void};

type NvmlReturn = c_int;
const NVML_SUCCESS: NvmlReturn = 0;
const NVML_ERROR_UNINITIALIZED: NvmlReturn = 1;
const NVML_ERROR_INVALID_ARGUMENT: NvmlReturn = 2;
const NVML_ERROR_INSUFFICIENT_SIZE: NvmlReturn = 7;
const NVML_ERROR_UNKNOWN: NvmlReturn = 999;

/// `nvmlMemory_t`: three unsigned long longs.
#[repr(C)]
pub struct NvmlMemory {
    total: u64,
    free: u64,
    used: u64,
}

fn put_str(text: &str, buf: *mut c_char, len: c_uint) -> NvmlReturn {
    if buf.is_null() {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    let b = text.as_bytes();
    if b.len() + 1 > len as usize {
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    // SAFETY: the caller's buffer holds len bytes; we write b.len() + 1 <= len.
    unsafe {
        std::ptr::copy_nonoverlapping(b.as_ptr() as *const c_char, buf, b.len());
        *buf.add(b.len()) = 0;
    }
    NVML_SUCCESS
}

/// Handles are the device index + 1, so none is null.
fn nvml_device(s: &State, h: *mut c_void) -> Result<usize, NvmlReturn> {
    let Some(sc) = s.sc.as_ref() else {
        return Err(NVML_ERROR_UNINITIALIZED);
    };
    let i = (h as usize).wrapping_sub(1);
    if i < sc.devices.len() {
        Ok(i)
    } else {
        Err(NVML_ERROR_INVALID_ARGUMENT)
    }
}

fn uuid_string(u: &[u8; 16]) -> String {
    let h: String = u.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

#[no_mangle]
pub extern "C" fn nvmlInit_v2() -> NvmlReturn {
    with(|s| match load(s) {
        Ok(()) => NVML_SUCCESS,
        Err(()) => NVML_ERROR_UNKNOWN,
    })
}

#[no_mangle]
pub extern "C" fn nvmlShutdown() -> NvmlReturn {
    NVML_SUCCESS
}

#[no_mangle]
pub extern "C" fn nvmlErrorString(rc: NvmlReturn) -> *const c_char {
    match rc {
        NVML_SUCCESS => c"Success",
        NVML_ERROR_UNINITIALIZED => c"Uninitialized",
        NVML_ERROR_INVALID_ARGUMENT => c"Invalid Argument",
        NVML_ERROR_INSUFFICIENT_SIZE => c"Insufficient Size",
        _ => c"Unknown Error",
    }
    .as_ptr()
}

#[no_mangle]
pub extern "C" fn nvmlSystemGetDriverVersion(buf: *mut c_char, len: c_uint) -> NvmlReturn {
    with(|s| match s.sc.as_ref() {
        Some(sc) => put_str(&sc.nvml_driver.clone(), buf, len),
        None => NVML_ERROR_UNINITIALIZED,
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetCount_v2(n: *mut c_uint) -> NvmlReturn {
    with(|s| match s.sc.as_ref() {
        Some(sc) => {
            *n = sc.devices.len() as c_uint;
            NVML_SUCCESS
        }
        None => NVML_ERROR_UNINITIALIZED,
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetHandleByIndex_v2(
    i: c_uint,
    h: *mut *mut c_void,
) -> NvmlReturn {
    with(|s| match s.sc.as_ref() {
        Some(sc) if (i as usize) < sc.devices.len() => {
            *h = (i as usize + 1) as *mut c_void;
            NVML_SUCCESS
        }
        Some(_) => NVML_ERROR_INVALID_ARGUMENT,
        None => NVML_ERROR_UNINITIALIZED,
    })
}

#[no_mangle]
pub extern "C" fn nvmlDeviceGetUUID(h: *mut c_void, buf: *mut c_char, len: c_uint) -> NvmlReturn {
    with(|s| match nvml_device(s, h) {
        Ok(d) => put_str(&uuid_string(&s.sc().devices[d].uuid), buf, len),
        Err(e) => e,
    })
}

#[no_mangle]
pub extern "C" fn nvmlDeviceGetName(h: *mut c_void, buf: *mut c_char, len: c_uint) -> NvmlReturn {
    with(|s| match nvml_device(s, h) {
        Ok(d) => put_str(&s.sc().devices[d].name.clone(), buf, len),
        Err(e) => e,
    })
}

/// Used = what the scenario says is used by others plus what is charged now (no release lag:
/// the lag models `cuMemGetInfo`).
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMemoryInfo(h: *mut c_void, m: *mut NvmlMemory) -> NvmlReturn {
    with(|s| match nvml_device(s, h) {
        Ok(d) => {
            let dev = &s.sc().devices[d];
            let used = dev.used + s.charged[d];
            *m = NvmlMemory {
                total: dev.total,
                free: dev.total.saturating_sub(used),
                used,
            };
            NVML_SUCCESS
        }
        Err(e) => e,
    })
}
