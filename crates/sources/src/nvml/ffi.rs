//! The NVML C ABI we call: types, constants and the function table, resolved at run time.
//!
//! Layouts follow NVIDIA's `nvml.h`. Every function is optional at load time: a missing symbol is
//! an error only when that function is needed, and versioned entry points (`_v2`, `_v3`) fall back
//! to their older names so that old drivers still work.

use libloading::Library;
use std::os::raw::{c_char, c_int, c_uint, c_ulonglong, c_void};

pub type Return = c_int;
pub type DeviceHandle = *mut c_void;

pub const SUCCESS: Return = 0;
pub const ERROR_NOT_SUPPORTED: Return = 3;
pub const ERROR_NO_PERMISSION: Return = 4;
pub const ERROR_NOT_FOUND: Return = 6;
pub const ERROR_INSUFFICIENT_SIZE: Return = 7;
pub const ERROR_DRIVER_NOT_LOADED: Return = 9;
pub const ERROR_GPU_IS_LOST: Return = 15;

/// `NVML_VALUE_NOT_AVAILABLE` (-1) as it appears in unsigned 64-bit fields.
pub const VALUE_NOT_AVAILABLE: u64 = u64::MAX;

pub const CLOCK_GRAPHICS: c_uint = 0;
pub const CLOCK_SM: c_uint = 1;
pub const CLOCK_MEM: c_uint = 2;
pub const TEMPERATURE_GPU: c_uint = 0;

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct Memory {
    pub total: c_ulonglong,
    pub free: c_ulonglong,
    pub used: c_ulonglong,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct MemoryV2 {
    pub version: c_uint,
    pub total: c_ulonglong,
    pub reserved: c_ulonglong,
    pub free: c_ulonglong,
    pub used: c_ulonglong,
}

/// `nvmlMemory_v2` = sizeof(nvmlMemory_v2_t) | 2 << 24.
pub const MEMORY_V2_VERSION: c_uint = (std::mem::size_of::<MemoryV2>() as c_uint) | (2 << 24);

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct Utilization {
    pub gpu: c_uint,
    pub memory: c_uint,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct PciInfo {
    pub bus_id_legacy: [c_char; 16],
    pub domain: c_uint,
    pub bus: c_uint,
    pub device: c_uint,
    pub pci_device_id: c_uint,
    pub pci_subsystem_id: c_uint,
    pub bus_id: [c_char; 32],
}

/// `nvmlProcessInfo_v1_t` (pre-`_v2` entry points).
#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct ProcessInfoV1 {
    pub pid: c_uint,
    pub used_gpu_memory: c_ulonglong,
}

/// `nvmlProcessInfo_t` as used by the `_v2` and `_v3` entry points (24 bytes). One CUDA 12.2-era
/// header briefly appended `usedGpuCcProtectedMemory` (32 bytes) and NVIDIA's own Python binding
/// later reverted to 24; we read 24-byte entries but size the buffer for 32 so that a driver
/// writing the longer form can never overrun it.
#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct ProcessInfo {
    pub pid: c_uint,
    pub used_gpu_memory: c_ulonglong,
    pub gpu_instance_id: c_uint,
    pub compute_instance_id: c_uint,
}

/// `nvmlProcessUtilizationSample_t`.
#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct ProcessUtilizationSample {
    pub pid: c_uint,
    pub time_stamp: c_ulonglong,
    pub sm_util: c_uint,
    pub mem_util: c_uint,
    pub enc_util: c_uint,
    pub dec_util: c_uint,
}

type FnVoid = unsafe extern "C" fn() -> Return;
type FnErrStr = unsafe extern "C" fn(Return) -> *const c_char;
type FnStr = unsafe extern "C" fn(*mut c_char, c_uint) -> Return;
type FnCount = unsafe extern "C" fn(*mut c_uint) -> Return;
type FnHandle = unsafe extern "C" fn(c_uint, *mut DeviceHandle) -> Return;
type FnDevStr = unsafe extern "C" fn(DeviceHandle, *mut c_char, c_uint) -> Return;
type FnDevU32 = unsafe extern "C" fn(DeviceHandle, *mut c_uint) -> Return;
type FnDevTwoInts = unsafe extern "C" fn(DeviceHandle, *mut c_int, *mut c_int) -> Return;
type FnDevArgU32 = unsafe extern "C" fn(DeviceHandle, c_uint, *mut c_uint) -> Return;
type FnDevHandle = unsafe extern "C" fn(DeviceHandle, c_uint, *mut DeviceHandle) -> Return;
type FnMem = unsafe extern "C" fn(DeviceHandle, *mut Memory) -> Return;
type FnMemV2 = unsafe extern "C" fn(DeviceHandle, *mut MemoryV2) -> Return;
type FnUtil = unsafe extern "C" fn(DeviceHandle, *mut Utilization) -> Return;
type FnPci = unsafe extern "C" fn(DeviceHandle, *mut PciInfo) -> Return;
type FnProcs<T> = unsafe extern "C" fn(DeviceHandle, *mut c_uint, *mut T) -> Return;
type FnProcUtil = unsafe extern "C" fn(
    DeviceHandle,
    *mut ProcessUtilizationSample,
    *mut c_uint,
    c_ulonglong,
) -> Return;

/// The resolved function table. `None` = the library does not export it.
pub struct Api {
    pub init: Option<(FnVoid, &'static str)>,
    pub shutdown: Option<FnVoid>,
    pub error_string: Option<FnErrStr>,
    pub driver_version: Option<FnStr>,
    pub device_count: Option<FnCount>,
    pub device_by_index: Option<FnHandle>,
    pub name: Option<FnDevStr>,
    pub uuid: Option<FnDevStr>,
    pub pci_info: Option<FnPci>,
    /// `nvmlDeviceGetCudaComputeCapability` (major, minor).
    pub compute_capability: Option<FnDevTwoInts>,
    /// MIG devices: how many slots a GPU has, and the handle of the one in a slot.
    pub mig_max: Option<FnDevU32>,
    pub mig_by_index: Option<FnDevHandle>,
    pub memory_v2: Option<FnMemV2>,
    pub memory: Option<FnMem>,
    pub utilization: Option<FnUtil>,
    pub temperature: Option<FnDevArgU32>,
    pub power_usage: Option<FnDevU32>,
    pub power_limit: Option<FnDevU32>,
    pub clock: Option<FnDevArgU32>,
    pub pcie_gen: Option<FnDevU32>,
    pub pcie_width: Option<FnDevU32>,
    pub pcie_max_gen: Option<FnDevU32>,
    pub pcie_max_width: Option<FnDevU32>,
    /// Compute, graphics and MPS lists: (`_v3`|`_v2` function, or the v1 function).
    pub compute: ProcList,
    pub graphics: ProcList,
    pub mps: ProcList,
    pub process_utilization: Option<FnProcUtil>,
}

/// A running-process list entry point, newest available form.
#[derive(Clone, Copy)]
pub enum ProcList {
    Modern(FnProcs<ProcessInfo>, &'static str),
    V1(FnProcs<ProcessInfoV1>, &'static str),
    Missing,
}

/// Resolve `name` as a function pointer of type `T`.
///
/// # Safety
/// `T` must be the function-pointer type matching the C declaration of `name`.
unsafe fn sym<T: Copy>(lib: &Library, name: &str) -> Option<T> {
    let mut z = Vec::with_capacity(name.len() + 1);
    z.extend_from_slice(name.as_bytes());
    z.push(0);
    lib.get::<T>(&z).ok().map(|s| *s)
}

/// First of `names` that resolves, with the name it resolved as.
unsafe fn first<T: Copy>(lib: &Library, names: &[&'static str]) -> Option<(T, &'static str)> {
    names.iter().find_map(|n| sym::<T>(lib, n).map(|f| (f, *n)))
}

fn proc_list(lib: &Library, base: &'static [&'static str; 3]) -> ProcList {
    // SAFETY: the `_v3`/`_v2` and v1 declarations differ only in the entry type, as typed here.
    unsafe {
        if let Some((f, n)) = first::<FnProcs<ProcessInfo>>(lib, &base[..2]) {
            return ProcList::Modern(f, n);
        }
        match first::<FnProcs<ProcessInfoV1>>(lib, &base[2..]) {
            Some((f, n)) => ProcList::V1(f, n),
            None => ProcList::Missing,
        }
    }
}

impl Api {
    pub fn resolve(lib: &Library) -> Api {
        // SAFETY: each type alias above matches the nvml.h declaration of the names it is used for.
        unsafe {
            Api {
                init: first(lib, &["nvmlInit_v2", "nvmlInit"]),
                shutdown: sym(lib, "nvmlShutdown"),
                error_string: sym(lib, "nvmlErrorString"),
                driver_version: sym(lib, "nvmlSystemGetDriverVersion"),
                device_count: first(lib, &["nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"])
                    .map(|p| p.0),
                device_by_index: first(
                    lib,
                    &[
                        "nvmlDeviceGetHandleByIndex_v2",
                        "nvmlDeviceGetHandleByIndex",
                    ],
                )
                .map(|p| p.0),
                name: sym(lib, "nvmlDeviceGetName"),
                uuid: sym(lib, "nvmlDeviceGetUUID"),
                pci_info: first(lib, &["nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"])
                    .map(|p| p.0),
                compute_capability: sym(lib, "nvmlDeviceGetCudaComputeCapability"),
                mig_max: sym(lib, "nvmlDeviceGetMaxMigDeviceCount"),
                mig_by_index: sym(lib, "nvmlDeviceGetMigDeviceHandleByIndex"),
                memory_v2: sym(lib, "nvmlDeviceGetMemoryInfo_v2"),
                memory: sym(lib, "nvmlDeviceGetMemoryInfo"),
                utilization: sym(lib, "nvmlDeviceGetUtilizationRates"),
                temperature: sym(lib, "nvmlDeviceGetTemperature"),
                power_usage: sym(lib, "nvmlDeviceGetPowerUsage"),
                power_limit: sym(lib, "nvmlDeviceGetEnforcedPowerLimit"),
                clock: sym(lib, "nvmlDeviceGetClockInfo"),
                pcie_gen: sym(lib, "nvmlDeviceGetCurrPcieLinkGeneration"),
                pcie_width: sym(lib, "nvmlDeviceGetCurrPcieLinkWidth"),
                pcie_max_gen: sym(lib, "nvmlDeviceGetMaxPcieLinkGeneration"),
                pcie_max_width: sym(lib, "nvmlDeviceGetMaxPcieLinkWidth"),
                compute: proc_list(
                    lib,
                    &[
                        "nvmlDeviceGetComputeRunningProcesses_v3",
                        "nvmlDeviceGetComputeRunningProcesses_v2",
                        "nvmlDeviceGetComputeRunningProcesses",
                    ],
                ),
                graphics: proc_list(
                    lib,
                    &[
                        "nvmlDeviceGetGraphicsRunningProcesses_v3",
                        "nvmlDeviceGetGraphicsRunningProcesses_v2",
                        "nvmlDeviceGetGraphicsRunningProcesses",
                    ],
                ),
                mps: proc_list(
                    lib,
                    &[
                        "nvmlDeviceGetMPSComputeRunningProcesses_v3",
                        "nvmlDeviceGetMPSComputeRunningProcesses_v2",
                        "nvmlDeviceGetMPSComputeRunningProcesses",
                    ],
                ),
                process_utilization: sym(lib, "nvmlDeviceGetProcessUtilization"),
            }
        }
    }
}
