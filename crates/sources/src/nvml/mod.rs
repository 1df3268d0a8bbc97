//! NVIDIA's management library (NVML), loaded at run time.
//!
//! We bind the ~25 functions we need ourselves with `libloading` rather than use `nvml-wrapper`:
//! the wrapper calls only the newest versioned entry points (`nvmlDeviceGetMemoryInfo_v2`, the
//! `_v3` process lists), so older drivers fail where a fallback to the older name works, and its
//! `Drop` panics when `nvmlShutdown` is missing. Our own table costs ~300 lines, compiles in under a
//! second, and lets every missing symbol become a reason in the snapshot instead of an error.

mod device;
pub mod ffi;
mod process;

use ffi::{Api, DeviceHandle, ProcList, Return};
use gpuledger_lang::said::Arg;
use gpuledger_lang::Said;
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
    NotFound(Said),
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
    /// The error as a sentence views say in the reader's language (its English is `Display`'s).
    pub fn said(&self) -> Said {
        match self {
            LoadError::NotFound(why) => why.clone(),
            LoadError::NoInit { path } => Said::new(
                "report-src-nvml-no-init",
                vec![("path", path.as_str().into())],
            ),
            LoadError::Init {
                path,
                code,
                message,
            } => Said::new(
                "report-src-nvml-init-failed",
                vec![
                    ("path", path.as_str().into()),
                    ("message", message.as_str().into()),
                    ("code", code.to_string().into()),
                ],
            ),
        }
    }

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
    /// The latest sample per (device index, pid), kept for a short while: when rounds come faster
    /// than NVML's sampling period a busy process may have no new sample yet, and that is not 0 %.
    recent: HashMap<(u32, u32), ffi::ProcessUtilizationSample>,
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
            return Err(LoadError::NotFound(Said::new(
                "report-src-nvml-absent",
                vec![],
            )));
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
            // The loader's own words.
            Some(_) => Said::verbatim(failures.join("; ")),
            None => Said::new(
                "report-src-nvml-not-found",
                vec![
                    ("name", names[0].as_str().into()),
                    ("tried", names.join(", ").into()),
                ],
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
            recent: HashMap::new(),
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
    /// It runs first in a round (see the crate docs); per device, in order: identity, memory,
    /// utilisation, sensors, clocks, PCIe link, then its process lists and utilisation samples.
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
        snap.processes.reserve(nprocs);
        for (pid, usage) in per_proc {
            let mut p = Process::new(pid);
            p.usage = usage;
            snap.processes.push(p);
        }
        let driver = match driver.as_deref() {
            Ok(d) => d.into(),
            Err(_) => Said::new("report-src-unknown", vec![]).into(),
        };
        let args = vec![
            ("path", self.path.as_str().into()),
            ("driver", driver),
            ("count", count.into()),
            ("procs", nprocs.into()),
        ];
        let mut detail = Said::new("report-src-nvml-ok", args);
        if !problems.is_empty() {
            // NVML's own error words, as it gave them.
            let mut all = vec![detail];
            all.extend(problems.into_iter().map(Said::verbatim));
            detail = Said::new("report-said-row", vec![("items", Arg::List(all))]);
        }
        SourceStatus::new("nvml", SourceState::Ok, detail)
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
