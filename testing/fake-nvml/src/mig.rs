//! MIG devices: a device's `mig=MIG-…,MIG-…` key lists the UUIDs of its MIG devices (MIG on,
//! those instances made); without it the device has no MIG devices, as a GPU without MIG or
//! with MIG off. A MIG device's handle is [`MIG_BASE`] + its parent's index × 16 + its slot.

#[cfg(not(feature = "legacy"))]
use crate::{device, put_u32, SUCCESS};
use crate::{put_str, with, Ret, INVALID_ARGUMENT};
use std::os::raw::{c_char, c_uint, c_void};

const MIG_BASE: usize = 0x10000;
/// An A100's or H100's most MIG devices (seven 1g slices).
#[cfg(not(feature = "legacy"))]
const MAX_MIG: u64 = 7;
#[cfg(not(feature = "legacy"))]
const NOT_FOUND: Ret = 6;

fn mig_uuids(d: &std::collections::HashMap<String, String>) -> Vec<String> {
    d.get("mig")
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
        .unwrap_or_default()
}

/// The MIG device a handle names: (parent index, slot), or `None` for a GPU's own handle.
pub(crate) fn mig_handle(h: *mut c_void) -> Option<(u32, u32)> {
    let off = (h as usize).checked_sub(MIG_BASE)?;
    Some(((off / 16) as u32, (off % 16) as u32))
}

/// The UUID of a MIG device's handle (nvmlDeviceGetUUID on it).
pub(crate) unsafe fn mig_uuid(h: *mut c_void, buf: *mut c_char, len: c_uint) -> Ret {
    let Some((parent, slot)) = mig_handle(h) else {
        return INVALID_ARGUMENT;
    };
    with(|st| {
        let uuid = st
            .scenario
            .devices
            .get(parent as usize)
            .and_then(|d| mig_uuids(d).into_iter().nth(slot as usize));
        match uuid {
            Some(u) => put_str(buf, len, &u),
            None => INVALID_ARGUMENT,
        }
    })
}

/// 0 on a device without `mig=` (NVML's answer when MIG is unsupported or off).
#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMaxMigDeviceCount(h: *mut c_void, out: *mut c_uint) -> Ret {
    device("nvmlDeviceGetMaxMigDeviceCount", h, |d, _| {
        put_u32(out, Some(if d.contains_key("mig") { MAX_MIG } else { 0 }))
    })
}

/// The handle of MIG device `index`; NOT_FOUND for a slot with no MIG device in it.
#[cfg(not(feature = "legacy"))]
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMigDeviceHandleByIndex(
    h: *mut c_void,
    index: c_uint,
    out: *mut *mut c_void,
) -> Ret {
    device("nvmlDeviceGetMigDeviceHandleByIndex", h, |d, i| {
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        if index as usize >= mig_uuids(d).len() {
            return NOT_FOUND;
        }
        *out = (MIG_BASE + i as usize * 16 + index as usize) as *mut c_void;
        SUCCESS
    })
}
