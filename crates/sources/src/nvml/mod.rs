//! NVIDIA's management library (NVML), loaded at run time.
//!
//! We bind the ~25 functions we need ourselves with `libloading` rather than use `nvml-wrapper`:
//! the wrapper calls only the newest versioned entry points (`nvmlDeviceGetMemoryInfo_v2`, the
//! `_v3` process lists), so older drivers fail where a fallback to the older name works, and its
//! `Drop` panics when `nvmlShutdown` is missing. Our own table costs ~300 lines, compiles in under a
//! second, and lets every missing symbol become a reason in the snapshot instead of an error.

pub mod ffi;

use ffi::{Api, DeviceHandle, ProcList, Return};
use gpuledger_model::{
    Device, Engines, Process, Snapshot, SourceState, SourceStatus, Usage, UsageKind, Vendor,
};
use libloading::Library;
use std::collections::{BTreeMap, HashMap};
use std::ffi::CStr;
use std::os::raw::{c_char, c_uint};
use std::path::{Path, PathBuf};

/// Library names tried, in order, when no path is given.
pub fn default_library_names() -> Vec<PathBuf> {
    if cfg!(windows) {
        vec![
            PathBuf::from("nvml.dll"),
            PathBuf::from(r"C:\Program Files\NVIDIA Corporation\NVSMI\nvml.dll"),
        ]
    } else if cfg!(target_os = "macos") {
        Vec::new()
    } else {
        vec![
            PathBuf::from("libnvidia-ml.so.1"),
            PathBuf::from("libnvidia-ml.so"),
            // WSL2 maps the Windows driver's user-space libraries here.
            PathBuf::from("/usr/lib/wsl/lib/libnvidia-ml.so.1"),
        ]
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{0}")]
    NotFound(String),
    #[error("{path}: not an NVML library (no nvmlInit_v2 or nvmlInit)")]
    NoInit { path: String },
    #[error("{path}: nvmlInit failed: {message} (NVML error {code})")]
    Init {
        path: String,
        code: Return,
        message: String,
    },
}

impl LoadError {
    /// Unavailable (nothing to see here) vs error (something is there and broken).
    pub fn state(&self) -> SourceState {
        match self {
            LoadError::NotFound(_) => SourceState::Unavailable,
            LoadError::Init { code, .. } if *code == ffi::ERROR_DRIVER_NOT_LOADED => {
                SourceState::Unavailable
            }
            _ => SourceState::Error,
        }
    }
}

/// A loaded and initialised NVML. Shut down on drop.
pub struct Nvml {
    api: Api,
    /// Where the library was found (for selftest and the source detail).
    pub path: String,
    /// Timestamp of the newest utilisation sample seen, per device index.
    last_sample: HashMap<u32, u64>,
    // Declared last: the function pointers in `api` must not outlive it.
    _lib: Library,
}

impl Nvml {
    /// Load from `path`, or search the platform's usual names.
    pub fn load(path: Option<&Path>) -> Result<Nvml, LoadError> {
        let candidates = match path {
            Some(p) => vec![p.to_path_buf()],
            None => default_library_names(),
        };
        if candidates.is_empty() {
            return Err(LoadError::NotFound(
                "NVML does not exist on this platform".into(),
            ));
        }
        let mut failures = Vec::new();
        for c in &candidates {
            // SAFETY: loading runs the library's initialisers; NVML's are benign, and an explicit
            // path is the user's choice.
            match unsafe { Library::new(c) } {
                Ok(lib) => return Self::init(lib, c.display().to_string()),
                Err(e) => failures.push(e.to_string()),
            }
        }
        let names: Vec<String> = candidates.iter().map(|c| c.display().to_string()).collect();
        Err(LoadError::NotFound(match path {
            Some(_) => failures.join("; "),
            None => format!(
                "{} not found (tried {}): no NVIDIA driver is installed, or it is not on the library path",
                names[0],
                names.join(", ")
            ),
        }))
    }

    fn init(lib: Library, path: String) -> Result<Nvml, LoadError> {
        let api = Api::resolve(&lib);
        let Some((init, _)) = api.init else {
            return Err(LoadError::NoInit { path });
        };
        // SAFETY: nvmlInit takes no arguments.
        let rc = unsafe { init() };
        let nvml = Nvml {
            api,
            path: path.clone(),
            last_sample: HashMap::new(),
            _lib: lib,
        };
        if rc != ffi::SUCCESS {
            let message = nvml.error_text(rc);
            // Do not call nvmlShutdown after a failed init.
            let mut nvml = nvml;
            nvml.api.shutdown = None;
            return Err(LoadError::Init {
                path,
                code: rc,
                message,
            });
        }
        Ok(nvml)
    }

    /// NVML's own words for an error code.
    pub fn error_text(&self, rc: Return) -> String {
        if let Some(f) = self.api.error_string {
            // SAFETY: nvmlErrorString returns a static string (or NULL).
            let p = unsafe { f(rc) };
            if !p.is_null() {
                // SAFETY: non-null, NUL-terminated per the API.
                return unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
            }
        }
        format!("NVML error {rc}")
    }

    fn call_err(&self, func: &str, rc: Return) -> String {
        format!("{func}: {}", self.error_text(rc))
    }

    pub fn driver_version(&self) -> Result<String, String> {
        let f = self
            .api
            .driver_version
            .ok_or_else(|| missing("nvmlSystemGetDriverVersion"))?;
        read_string(|buf, len| unsafe { f(buf, len) })
            .map_err(|rc| self.call_err("nvmlSystemGetDriverVersion", rc))
    }

    pub fn device_count(&self) -> Result<u32, String> {
        let f = self
            .api
            .device_count
            .ok_or_else(|| missing("nvmlDeviceGetCount"))?;
        let mut n: c_uint = 0;
        // SAFETY: out-pointer to a valid c_uint.
        match unsafe { f(&mut n) } {
            ffi::SUCCESS => Ok(n),
            rc => Err(self.call_err("nvmlDeviceGetCount", rc)),
        }
    }

    fn handle(&self, index: u32) -> Result<DeviceHandle, String> {
        let f = self
            .api
            .device_by_index
            .ok_or_else(|| missing("nvmlDeviceGetHandleByIndex"))?;
        let mut h: DeviceHandle = std::ptr::null_mut();
        // SAFETY: out-pointer to a valid handle slot.
        match unsafe { f(index, &mut h) } {
            ffi::SUCCESS => Ok(h),
            rc => Err(self.call_err("nvmlDeviceGetHandleByIndex", rc)),
        }
    }

    /// One collection round: devices and their processes into `snap`. Returns the source status.
    pub fn collect(&mut self, snap: &mut Snapshot) -> SourceStatus {
        let driver = self.driver_version();
        let count = match self.device_count() {
            Ok(n) => n,
            Err(e) => {
                return SourceStatus::new("nvml", SourceState::Error, format!("{}: {e}", self.path))
            }
        };
        let wddm_like = cfg!(windows) || snap.host.wsl;
        let mut per_proc: BTreeMap<u32, Vec<Usage>> = BTreeMap::new();
        let mut problems: Vec<String> = Vec::new();
        for index in 0..count {
            let mut dev = Device::new(index, Vendor::Nvidia, format!("nvml-index-{index}"), "nvml");
            dev.driver_version = driver.as_ref().ok().cloned();
            if let Err(e) = &driver {
                dev.mark_unavailable("driver_version", e.clone());
            }
            let h = match self.handle(index) {
                Ok(h) => h,
                Err(e) => {
                    dev.mark_unavailable("device", e.clone());
                    problems.push(format!("GPU{index}: {e}"));
                    snap.devices.push(dev);
                    continue;
                }
            };
            self.fill_device(h, &mut dev);
            self.fill_processes(h, index, &dev.uuid, wddm_like, &mut per_proc, &mut problems);
            snap.devices.push(dev);
        }
        let nprocs = per_proc.len();
        for (pid, usage) in per_proc {
            let mut p = Process::new(pid);
            p.usage = usage;
            snap.processes.push(p);
        }
        let mut detail = format!(
            "{} (driver {}): {count} device{}, {nprocs} process{}",
            self.path,
            driver.as_deref().unwrap_or("unknown"),
            if count == 1 { "" } else { "s" },
            if nprocs == 1 { "" } else { "es" },
        );
        if !problems.is_empty() {
            detail.push_str("; ");
            detail.push_str(&problems.join("; "));
        }
        SourceStatus::new("nvml", SourceState::Ok, detail)
    }

    fn fill_device(&self, h: DeviceHandle, dev: &mut Device) {
        let api = &self.api;
        match api.uuid.map(|f| read_string(|b, l| unsafe { f(h, b, l) })) {
            Some(Ok(u)) => dev.uuid = u,
            Some(Err(rc)) => dev.mark_unavailable("uuid", self.call_err("nvmlDeviceGetUUID", rc)),
            None => dev.mark_unavailable("uuid", missing("nvmlDeviceGetUUID")),
        }
        match api.name.map(|f| read_string(|b, l| unsafe { f(h, b, l) })) {
            Some(Ok(n)) => dev.name = Some(n),
            Some(Err(rc)) => dev.mark_unavailable("name", self.call_err("nvmlDeviceGetName", rc)),
            None => dev.mark_unavailable("name", missing("nvmlDeviceGetName")),
        }
        if let Some(f) = api.pci_info {
            let mut pci = ffi::PciInfo::default();
            // SAFETY: out-pointer to a PciInfo with nvmlPciInfo_t's layout.
            match unsafe { f(h, &mut pci) } {
                ffi::SUCCESS => dev.pci_bus_id = Some(c_chars(&pci.bus_id)),
                rc => dev.mark_unavailable("pci_bus_id", self.call_err("nvmlDeviceGetPciInfo", rc)),
            }
        } else {
            dev.mark_unavailable("pci_bus_id", missing("nvmlDeviceGetPciInfo_v3"));
        }
        self.fill_memory(h, dev);
        match api.utilization {
            Some(f) => {
                let mut u = ffi::Utilization::default();
                // SAFETY: out-pointer to nvmlUtilization_t.
                match unsafe { f(h, &mut u) } {
                    ffi::SUCCESS => {
                        dev.utilization.gpu_percent = Some(u.gpu);
                        dev.utilization.memory_percent = Some(u.memory);
                    }
                    rc => {
                        let e = self.call_err("nvmlDeviceGetUtilizationRates", rc);
                        dev.mark_unavailable("utilization.gpu_percent", e.clone());
                        dev.mark_unavailable("utilization.memory_percent", e);
                    }
                }
            }
            None => {
                dev.mark_unavailable(
                    "utilization.gpu_percent",
                    missing("nvmlDeviceGetUtilizationRates"),
                );
                dev.mark_unavailable(
                    "utilization.memory_percent",
                    missing("nvmlDeviceGetUtilizationRates"),
                );
            }
        }
        if let Some(t) = self.u32_arg(
            h,
            api.temperature,
            ffi::TEMPERATURE_GPU,
            "nvmlDeviceGetTemperature",
            dev,
            "temperature_c",
        ) {
            dev.temperature_c = i32::try_from(t).ok();
        }
        dev.power.usage_watts = self
            .u32(
                h,
                api.power_usage,
                "nvmlDeviceGetPowerUsage",
                dev,
                "power.usage_watts",
            )
            .map(|mw| mw as f64 / 1000.0);
        dev.power.limit_watts = self
            .u32(
                h,
                api.power_limit,
                "nvmlDeviceGetEnforcedPowerLimit",
                dev,
                "power.limit_watts",
            )
            .map(|mw| mw as f64 / 1000.0);
        dev.clocks.graphics_mhz = self.u32_arg(
            h,
            api.clock,
            ffi::CLOCK_GRAPHICS,
            "nvmlDeviceGetClockInfo",
            dev,
            "clocks.graphics_mhz",
        );
        dev.clocks.sm_mhz = self.u32_arg(
            h,
            api.clock,
            ffi::CLOCK_SM,
            "nvmlDeviceGetClockInfo",
            dev,
            "clocks.sm_mhz",
        );
        dev.clocks.memory_mhz = self.u32_arg(
            h,
            api.clock,
            ffi::CLOCK_MEM,
            "nvmlDeviceGetClockInfo",
            dev,
            "clocks.memory_mhz",
        );
        dev.pcie.link_gen = self.u32(
            h,
            api.pcie_gen,
            "nvmlDeviceGetCurrPcieLinkGeneration",
            dev,
            "pcie.link_gen",
        );
        dev.pcie.link_width = self.u32(
            h,
            api.pcie_width,
            "nvmlDeviceGetCurrPcieLinkWidth",
            dev,
            "pcie.link_width",
        );
        dev.pcie.max_link_gen = self.u32(
            h,
            api.pcie_max_gen,
            "nvmlDeviceGetMaxPcieLinkGeneration",
            dev,
            "pcie.max_link_gen",
        );
        dev.pcie.max_link_width = self.u32(
            h,
            api.pcie_max_width,
            "nvmlDeviceGetMaxPcieLinkWidth",
            dev,
            "pcie.max_link_width",
        );
    }

    fn fill_memory(&self, h: DeviceHandle, dev: &mut Device) {
        // Prefer v2: it separates `reserved` (driver/firmware) from `used`.
        if let Some(f) = self.api.memory_v2 {
            let mut m = ffi::MemoryV2 {
                version: ffi::MEMORY_V2_VERSION,
                ..Default::default()
            };
            // SAFETY: out-pointer to nvmlMemory_v2_t with its version set.
            let rc = unsafe { f(h, &mut m) };
            if rc == ffi::SUCCESS {
                dev.memory.total_bytes = Some(m.total);
                dev.memory.used_bytes = Some(m.used);
                dev.memory.free_bytes = Some(m.free);
                dev.memory.reserved_bytes = Some(m.reserved);
                return;
            }
            if self.api.memory.is_none() {
                let e = self.call_err("nvmlDeviceGetMemoryInfo_v2", rc);
                for k in ["total_bytes", "used_bytes", "free_bytes", "reserved_bytes"] {
                    dev.mark_unavailable(&format!("memory.{k}"), e.clone());
                }
                return;
            }
        }
        match self.api.memory {
            Some(f) => {
                let mut m = ffi::Memory::default();
                // SAFETY: out-pointer to nvmlMemory_t.
                match unsafe { f(h, &mut m) } {
                    ffi::SUCCESS => {
                        dev.memory.total_bytes = Some(m.total);
                        dev.memory.used_bytes = Some(m.used);
                        dev.memory.free_bytes = Some(m.free);
                        dev.mark_unavailable(
                            "memory.reserved_bytes",
                            "this driver has no nvmlDeviceGetMemoryInfo_v2; reserved memory is counted in used",
                        );
                    }
                    rc => {
                        let e = self.call_err("nvmlDeviceGetMemoryInfo", rc);
                        for k in ["total_bytes", "used_bytes", "free_bytes", "reserved_bytes"] {
                            dev.mark_unavailable(&format!("memory.{k}"), e.clone());
                        }
                    }
                }
            }
            None => {
                for k in ["total_bytes", "used_bytes", "free_bytes", "reserved_bytes"] {
                    dev.mark_unavailable(
                        &format!("memory.{k}"),
                        missing("nvmlDeviceGetMemoryInfo"),
                    );
                }
            }
        }
    }

    /// Read one `unsigned int` through `call` (which gets the out-pointer); a missing function or
    /// an error becomes the field's reason.
    fn read_u32(
        &self,
        present: bool,
        fname: &str,
        dev: &mut Device,
        field: &str,
        call: impl FnOnce(*mut c_uint) -> Return,
    ) -> Option<u32> {
        if !present {
            dev.mark_unavailable(field, missing(fname));
            return None;
        }
        let mut v: c_uint = 0;
        match call(&mut v) {
            ffi::SUCCESS => Some(v),
            rc => {
                dev.mark_unavailable(field, self.call_err(fname, rc));
                None
            }
        }
    }

    fn u32(
        &self,
        h: DeviceHandle,
        f: Option<unsafe extern "C" fn(DeviceHandle, *mut c_uint) -> Return>,
        fname: &str,
        dev: &mut Device,
        field: &str,
    ) -> Option<u32> {
        // SAFETY: `f` is the resolved symbol; the out-pointer is a valid c_uint.
        self.read_u32(f.is_some(), fname, dev, field, |out| match f {
            Some(f) => unsafe { f(h, out) },
            None => ffi::ERROR_NOT_SUPPORTED,
        })
    }

    fn u32_arg(
        &self,
        h: DeviceHandle,
        f: Option<unsafe extern "C" fn(DeviceHandle, c_uint, *mut c_uint) -> Return>,
        arg: c_uint,
        fname: &str,
        dev: &mut Device,
        field: &str,
    ) -> Option<u32> {
        // SAFETY: as in `u32`, with the sensor/clock argument passed through.
        self.read_u32(f.is_some(), fname, dev, field, |out| match f {
            Some(f) => unsafe { f(h, arg, out) },
            None => ffi::ERROR_NOT_SUPPORTED,
        })
    }

    /// Merge the compute, graphics and MPS lists per pid (a process can be in several: CUDA/Vulkan
    /// interop). Each list reports all memory of the process, so take the larger, never the sum.
    fn fill_processes(
        &mut self,
        h: DeviceHandle,
        index: u32,
        uuid: &str,
        wddm_like: bool,
        out: &mut BTreeMap<u32, Vec<Usage>>,
        problems: &mut Vec<String>,
    ) {
        let mut merged: BTreeMap<u32, Usage> = BTreeMap::new();
        for (kind, list) in [
            (UsageKind::Compute, self.api.compute),
            (UsageKind::Graphics, self.api.graphics),
            (UsageKind::Mps, self.api.mps),
        ] {
            let entries = match running(list, h) {
                Ok(e) => e,
                Err(ListError::Missing) => continue,
                Err(ListError::Call(name, rc)) => {
                    // MPS lists are "not supported" whenever MPS is off: not worth a line.
                    if !(kind == UsageKind::Mps && rc == ffi::ERROR_NOT_SUPPORTED) {
                        problems.push(format!("GPU{index}: {}", self.call_err(name, rc)));
                    }
                    continue;
                }
                Err(ListError::TooMany(n)) => {
                    problems.push(format!(
                        "GPU{index}: driver reported {n} processes; ignoring the list"
                    ));
                    continue;
                }
            };
            for (pid, mem) in entries {
                let u = merged
                    .entry(pid)
                    .or_insert_with(|| Usage::new(uuid, "nvml"));
                if !u.kinds.contains(&kind) {
                    u.kinds.push(kind);
                }
                u.memory_bytes = match (u.memory_bytes, mem) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                };
            }
        }
        let util = self.utilization_samples(h, index);
        for (pid, mut u) in merged {
            u.kinds.sort();
            if u.memory_bytes.is_none() {
                u.unavailable_reason = Some(if wddm_like {
                    "NVML reports per-process memory as not available under WDDM (Windows manages video memory)".into()
                } else {
                    "NVML reports this process's memory as not available (MIG without privileges, or not tracked by the driver)".into()
                });
            }
            u.engines = match &util {
                Ok(samples) => match samples.get(&pid) {
                    Some(s) => Engines {
                        sm_percent: Some(s.sm_util),
                        memory_percent: Some(s.mem_util),
                        encoder_percent: Some(s.enc_util),
                        decoder_percent: Some(s.dec_util),
                        unavailable_reason: None,
                    },
                    // NVML returns samples only for processes that were busy in the window.
                    None => Engines {
                        sm_percent: Some(0),
                        memory_percent: Some(0),
                        encoder_percent: Some(0),
                        decoder_percent: Some(0),
                        unavailable_reason: None,
                    },
                },
                Err(reason) => Engines {
                    unavailable_reason: Some(reason.clone()),
                    ..Engines::default()
                },
            };
            out.entry(pid).or_default().push(u);
        }
    }

    /// Latest utilisation sample per pid since the previous round.
    fn utilization_samples(
        &mut self,
        h: DeviceHandle,
        index: u32,
    ) -> Result<HashMap<u32, ffi::ProcessUtilizationSample>, String> {
        let f = self
            .api
            .process_utilization
            .ok_or_else(|| missing("nvmlDeviceGetProcessUtilization"))?;
        let since = self.last_sample.get(&index).copied().unwrap_or(0);
        let mut count: c_uint = 0;
        // SAFETY: a NULL buffer asks for the sample count.
        let rc = unsafe { f(h, std::ptr::null_mut(), &mut count, since) };
        match rc {
            ffi::SUCCESS | ffi::ERROR_NOT_FOUND => return Ok(HashMap::new()),
            ffi::ERROR_INSUFFICIENT_SIZE => {}
            rc => return Err(self.call_err("nvmlDeviceGetProcessUtilization", rc)),
        }
        if count > MAX_ENTRIES {
            return Err(format!(
                "nvmlDeviceGetProcessUtilization reported {count} samples"
            ));
        }
        let mut buf = vec![ffi::ProcessUtilizationSample::default(); count as usize + 8];
        let mut n = buf.len() as c_uint;
        // SAFETY: buffer of `n` samples.
        match unsafe { f(h, buf.as_mut_ptr(), &mut n, since) } {
            ffi::SUCCESS => {}
            ffi::ERROR_NOT_FOUND => return Ok(HashMap::new()),
            rc => return Err(self.call_err("nvmlDeviceGetProcessUtilization", rc)),
        }
        let mut latest: HashMap<u32, ffi::ProcessUtilizationSample> = HashMap::new();
        for s in buf.iter().take((n as usize).min(buf.len())) {
            let e = latest.entry(s.pid).or_insert(*s);
            if s.time_stamp >= e.time_stamp {
                *e = *s;
            }
            let newest = self.last_sample.entry(index).or_insert(0);
            *newest = (*newest).max(s.time_stamp);
        }
        Ok(latest)
    }
}

impl Drop for Nvml {
    fn drop(&mut self) {
        if let Some(f) = self.api.shutdown {
            // SAFETY: paired with the successful nvmlInit in `init`.
            unsafe { f() };
        }
    }
}

/// No driver reports more; a larger count is a broken library, not a reason to allocate.
const MAX_ENTRIES: c_uint = 1 << 16;

enum ListError {
    Missing,
    Call(&'static str, Return),
    TooMany(c_uint),
}

/// One process list, with NVML's size-query protocol: ask with an empty buffer, then retry with
/// slack because processes can start between the two calls.
fn running(list: ProcList, h: DeviceHandle) -> Result<Vec<(u32, Option<u64>)>, ListError> {
    let mem = |v: u64| (v != ffi::VALUE_NOT_AVAILABLE).then_some(v);
    match list {
        ProcList::Missing => Err(ListError::Missing),
        ProcList::Modern(f, name) => {
            let mut count: c_uint = 0;
            for _ in 0..3 {
                // SAFETY: the first call passes NULL with count 0 (size query); later ones pass a
                // buffer sized for 32-byte entries (see ffi::ProcessInfo) holding `count` slots.
                let mut buf: Vec<u64> = Vec::new();
                let ptr = if count == 0 {
                    std::ptr::null_mut()
                } else {
                    buf = vec![0u64; count as usize * 4];
                    buf.as_mut_ptr().cast::<ffi::ProcessInfo>()
                };
                let cap = count;
                let rc = unsafe { f(h, &mut count, ptr) };
                match rc {
                    ffi::SUCCESS if cap == 0 => return Ok(Vec::new()),
                    ffi::SUCCESS => {
                        let n = count.min(cap) as usize;
                        let base = buf.as_ptr().cast::<ffi::ProcessInfo>();
                        // SAFETY: `n` entries of 24 bytes lie within the 32·cap-byte buffer.
                        return Ok((0..n)
                            .map(|i| unsafe { base.add(i).read_unaligned() })
                            .map(|e| (e.pid, mem(e.used_gpu_memory)))
                            .collect());
                    }
                    ffi::ERROR_INSUFFICIENT_SIZE if count > MAX_ENTRIES => {
                        return Err(ListError::TooMany(count))
                    }
                    ffi::ERROR_INSUFFICIENT_SIZE => count += 8,
                    rc => return Err(ListError::Call(name, rc)),
                }
            }
            Err(ListError::Call(name, ffi::ERROR_INSUFFICIENT_SIZE))
        }
        ProcList::V1(f, name) => {
            let mut count: c_uint = 0;
            for _ in 0..3 {
                let mut buf = vec![ffi::ProcessInfoV1::default(); count as usize];
                let cap = count;
                let ptr = if cap == 0 {
                    std::ptr::null_mut()
                } else {
                    buf.as_mut_ptr()
                };
                // SAFETY: NULL size query, then a buffer of `cap` v1 entries.
                match unsafe { f(h, &mut count, ptr) } {
                    ffi::SUCCESS if cap == 0 => return Ok(Vec::new()),
                    ffi::SUCCESS => {
                        return Ok(buf
                            .iter()
                            .take(count.min(cap) as usize)
                            .map(|e| (e.pid, mem(e.used_gpu_memory)))
                            .collect())
                    }
                    ffi::ERROR_INSUFFICIENT_SIZE if count > MAX_ENTRIES => {
                        return Err(ListError::TooMany(count))
                    }
                    ffi::ERROR_INSUFFICIENT_SIZE => count += 8,
                    rc => return Err(ListError::Call(name, rc)),
                }
            }
            Err(ListError::Call(name, ffi::ERROR_INSUFFICIENT_SIZE))
        }
    }
}

fn missing(f: &str) -> String {
    format!("{f} is not exported by this NVML library (older driver)")
}

/// Call an NVML string getter with a buffer large enough for any of its strings (NVML's largest
/// buffer constant is 96 bytes).
fn read_string(f: impl FnOnce(*mut c_char, c_uint) -> Return) -> Result<String, Return> {
    let mut buf = [0 as c_char; 256];
    match f(buf.as_mut_ptr(), buf.len() as c_uint) {
        ffi::SUCCESS => Ok(c_chars(&buf)),
        rc => Err(rc),
    }
}

fn c_chars(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
