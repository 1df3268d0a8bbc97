//! What tools such as nvitop read besides what gpuledger reads. Unless the scenario says otherwise
//! (README.md), each answers as an H200 SXM on a Linux data-centre driver does.

use crate::{device, field, put_u32, Ret, INVALID_ARGUMENT, NOT_SUPPORTED, SUCCESS};
use std::os::raw::{c_uint, c_ulonglong, c_void};

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
