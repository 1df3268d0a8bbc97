//! The macOS seam: read `IOAccelerator` services and their user-client children from the
//! IORegistry into an [`IoRegRound`] (the same shape as the JSON fixtures). Nothing here
//! interprets a value; [`super::parse`] does.
//!
//! Compiled and linted for aarch64-apple-darwin in CI; never run there (no Mac). The user clients
//! are walked as children of the accelerator in the service plane: they are not registered
//! services, so `IOServiceGetMatchingServices("AGXDeviceUserClient")` finds none.

use super::parse::{apply, merge_round, AcceleratorRecord, ClientRecord, IoRegRound};
use core_foundation::base::TCFType;
use core_foundation::string::CFString;
use core_foundation_sys::array::{CFArrayGetCount, CFArrayGetTypeID, CFArrayGetValueAtIndex};
use core_foundation_sys::base::{kCFAllocatorDefault, CFGetTypeID, CFRelease, CFTypeRef};
use core_foundation_sys::dictionary::{
    CFDictionaryGetCount, CFDictionaryGetKeysAndValues, CFDictionaryGetTypeID,
    CFMutableDictionaryRef,
};
use core_foundation_sys::number::{
    kCFNumberFloat64Type, kCFNumberSInt64Type, CFBooleanGetTypeID, CFBooleanGetValue, CFBooleanRef,
    CFNumberGetTypeID, CFNumberGetValue, CFNumberIsFloatType, CFNumberRef,
};
use core_foundation_sys::string::{CFStringGetTypeID, CFStringRef};
use gpuledger_model::Snapshot;
use io_kit_sys::keys::kIOServicePlane;
use io_kit_sys::types::{io_iterator_t, io_object_t};
use io_kit_sys::{
    IOIteratorNext, IOObjectGetClass, IOObjectRelease, IORegistryEntryCreateCFProperties,
    IORegistryEntryGetChildIterator, IORegistryEntryGetRegistryEntryID,
    IOServiceGetMatchingServices, IOServiceMatching,
};
use serde_json::{Map, Number, Value};
use std::ffi::{c_char, c_void, CStr};
use std::time::Instant;

#[derive(Debug, thiserror::Error)]
pub enum IokitError {
    #[error("IOServiceGetMatchingServices(IOAccelerator) failed: kern_return {0}")]
    Matching(i32),
}

/// Nesting deeper than this in a registry property is cut off (real dictionaries are 2–3 deep).
const MAX_DEPTH: usize = 8;
/// More entries than this in one dictionary or array are cut off.
const MAX_ITEMS: isize = 4096;
/// Bounds on how many services and clients one round walks.
const MAX_ACCELERATORS: usize = 16;
const MAX_CLIENTS: usize = 4096;

/// The IOKit source; keeps the previous round for GPU-time rates.
pub struct IokitSource {
    epoch: Instant,
    prev: Option<IoRegRound>,
}

impl Default for IokitSource {
    fn default() -> Self {
        Self::new()
    }
}

impl IokitSource {
    pub fn new() -> IokitSource {
        IokitSource {
            epoch: Instant::now(),
            prev: None,
        }
    }

    /// Read the registry once.
    pub fn read_round(&self) -> Result<IoRegRound, IokitError> {
        let taken_ns = self.epoch.elapsed().as_nanos() as u64;
        let mut accelerators = Vec::new();
        let mut iter: io_iterator_t = 0;
        // SAFETY: IOServiceMatching returns a dictionary that IOServiceGetMatchingServices
        // consumes; port 0 is the default main port.
        let kr = unsafe {
            IOServiceGetMatchingServices(0, IOServiceMatching(c"IOAccelerator".as_ptr()), &mut iter)
        };
        if kr != 0 {
            return Err(IokitError::Matching(kr));
        }
        loop {
            // SAFETY: a valid iterator; 0 ends it.
            let service = unsafe { IOIteratorNext(iter) };
            if service == 0 {
                break;
            }
            if accelerators.len() < MAX_ACCELERATORS {
                accelerators.push(read_accelerator(service));
            }
            // SAFETY: releases the reference IOIteratorNext returned.
            unsafe { IOObjectRelease(service) };
        }
        // SAFETY: releases the iterator.
        unsafe { IOObjectRelease(iter) };
        Ok(IoRegRound {
            taken_ns,
            host_memory_bytes: host_memory(),
            accelerators,
        })
    }

    /// One round into `snap`: read the registry, turn it into devices and client processes
    /// ([`merge_round`], rates against the previous round), add to `snap`. A registry that cannot
    /// be read leaves an error status.
    pub fn collect(&mut self, snap: &mut Snapshot) {
        match self.read_round() {
            Ok(cur) => {
                apply(snap, merge_round(self.prev.as_ref(), &cur));
                self.prev = Some(cur);
            }
            Err(e) => snap.sources.push(gpuledger_model::SourceStatus::new(
                super::parse::SOURCE,
                gpuledger_model::SourceState::Error,
                e.to_string(),
            )),
        }
    }
}

fn class_of(obj: io_object_t) -> String {
    let mut name: [c_char; 128] = [0; 128];
    // SAFETY: io_name_t is 128 bytes; the kernel writes a NUL-terminated name.
    if unsafe { IOObjectGetClass(obj, name.as_mut_ptr()) } != 0 {
        return String::new();
    }
    // SAFETY: NUL-terminated within the buffer.
    unsafe { CStr::from_ptr(name.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

fn properties(obj: io_object_t) -> Map<String, Value> {
    let mut dict: CFMutableDictionaryRef = std::ptr::null_mut();
    // SAFETY: out-pointer to a local; we own (and release) the returned dictionary.
    let kr = unsafe { IORegistryEntryCreateCFProperties(obj, &mut dict, kCFAllocatorDefault, 0) };
    if kr != 0 || dict.is_null() {
        return Map::new();
    }
    let v = cf_to_json(dict as CFTypeRef, 0);
    // SAFETY: created above.
    unsafe { CFRelease(dict as CFTypeRef) };
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn read_accelerator(service: io_object_t) -> AcceleratorRecord {
    let class = class_of(service);
    let mut id = 0u64;
    // SAFETY: out-pointer to a local.
    let registry_id =
        (unsafe { IORegistryEntryGetRegistryEntryID(service, &mut id) } == 0).then_some(id);
    let mut props = properties(service);
    let performance_statistics = match props.remove("PerformanceStatistics") {
        Some(Value::Object(m)) => Some(m),
        _ => None,
    };
    let model = props.get("model").and_then(Value::as_str).map(String::from);
    let gpu_core_count = props
        .get("gpu-core-count")
        .and_then(Value::as_u64)
        .and_then(|v| u32::try_from(v).ok());
    let mut clients = Vec::new();
    let mut it: io_iterator_t = 0;
    // SAFETY: out-pointer to a local; plane name is a static C string.
    if unsafe { IORegistryEntryGetChildIterator(service, kIOServicePlane, &mut it) } == 0 {
        loop {
            // SAFETY: a valid iterator; 0 ends it.
            let child = unsafe { IOIteratorNext(it) };
            if child == 0 {
                break;
            }
            let class = class_of(child);
            if clients.len() < MAX_CLIENTS && class.contains("UserClient") {
                let properties = properties(child);
                if properties.contains_key(super::parse::keys::CREATOR) {
                    clients.push(ClientRecord { class, properties });
                }
            }
            // SAFETY: releases the child reference.
            unsafe { IOObjectRelease(child) };
        }
        // SAFETY: releases the iterator.
        unsafe { IOObjectRelease(it) };
    }
    AcceleratorRecord {
        class,
        registry_id,
        model,
        gpu_core_count,
        performance_statistics,
        clients,
    }
}

/// A CF property list value as JSON. Data blobs and unknown types become `null`.
fn cf_to_json(v: CFTypeRef, depth: usize) -> Value {
    if v.is_null() || depth > MAX_DEPTH {
        return Value::Null;
    }
    // SAFETY: every branch checks the CF type id before casting.
    unsafe {
        let t = CFGetTypeID(v);
        if t == CFStringGetTypeID() {
            Value::String(CFString::wrap_under_get_rule(v as CFStringRef).to_string())
        } else if t == CFNumberGetTypeID() {
            let n = v as CFNumberRef;
            if CFNumberIsFloatType(n) != 0 {
                let mut f = 0f64;
                CFNumberGetValue(n, kCFNumberFloat64Type, &mut f as *mut f64 as *mut c_void);
                Number::from_f64(f).map_or(Value::Null, Value::Number)
            } else {
                let mut i = 0i64;
                CFNumberGetValue(n, kCFNumberSInt64Type, &mut i as *mut i64 as *mut c_void);
                Value::Number(i.into())
            }
        } else if t == CFBooleanGetTypeID() {
            Value::Bool(CFBooleanGetValue(v as CFBooleanRef))
        } else if t == CFArrayGetTypeID() {
            let a = v as core_foundation_sys::array::CFArrayRef;
            let n = CFArrayGetCount(a).clamp(0, MAX_ITEMS);
            Value::Array(
                (0..n)
                    .map(|i| cf_to_json(CFArrayGetValueAtIndex(a, i), depth + 1))
                    .collect(),
            )
        } else if t == CFDictionaryGetTypeID() {
            let d = v as core_foundation_sys::dictionary::CFDictionaryRef;
            let n = CFDictionaryGetCount(d);
            if !(0..=MAX_ITEMS).contains(&n) {
                return Value::Null;
            }
            let mut keys: Vec<*const c_void> = vec![std::ptr::null(); n as usize];
            let mut vals: Vec<*const c_void> = vec![std::ptr::null(); n as usize];
            CFDictionaryGetKeysAndValues(d, keys.as_mut_ptr(), vals.as_mut_ptr());
            let mut m = Map::new();
            for (k, val) in keys.into_iter().zip(vals) {
                if let Value::String(k) = cf_to_json(k, depth + 1) {
                    m.insert(k, cf_to_json(val, depth + 1));
                }
            }
            Value::Object(m)
        } else {
            Value::Null
        }
    }
}

/// `hw.memsize`: the unified pool.
fn host_memory() -> Option<u64> {
    let mut v: u64 = 0;
    let mut len = std::mem::size_of::<u64>();
    // SAFETY: a u64 out-buffer of the stated length.
    let rc = unsafe {
        libc::sysctlbyname(
            c"hw.memsize".as_ptr(),
            &mut v as *mut u64 as *mut c_void,
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    (rc == 0 && len == std::mem::size_of::<u64>()).then_some(v)
}
