//! Test helpers: build the fake CUDA driver once, give each test its own copy of it (its own
//! state), and read back what the fake recorded.

#![allow(dead_code)]

use std::collections::HashSet;
use std::ffi::{c_char, c_int, CString};
use std::path::PathBuf;

#[path = "../../../../testing/fake-cuda/built.rs"]
mod built;

/// The fake driver library, built on first use (see testing/fake-cuda/built.rs).
pub fn fake_lib() -> PathBuf {
    built::fake_cuda_lib().to_path_buf()
}

/// One test's private fake driver: a copy of the library (so its global state is not shared
/// with other tests running in parallel), a scenario, a log, and a meminfo file.
pub struct Fake {
    pub dir: tempfile::TempDir,
    pub lib_path: PathBuf,
    pub log_path: PathBuf,
    pub meminfo: PathBuf,
    lib: libloading::Library,
}

impl Fake {
    pub fn new(scenario: &str) -> Fake {
        Self::with_meminfo(scenario, 16 << 30)
    }

    pub fn with_meminfo(scenario: &str, mem_available: u64) -> Fake {
        let dir = tempfile::tempdir().unwrap();
        let lib_path = dir.path().join("libcuda.so.1");
        std::fs::copy(fake_lib(), &lib_path).unwrap();
        let sc = dir.path().join("scenario.txt");
        std::fs::write(&sc, scenario).unwrap();
        let log_path = dir.path().join("calls.log");
        let meminfo = dir.path().join("meminfo");
        std::fs::write(
            &meminfo,
            format!(
                "MemTotal:       65843380 kB\nMemFree:         1000000 kB\nMemAvailable:   {} kB\n",
                mem_available / 1024
            ),
        )
        .unwrap();
        // SAFETY: our own test library.
        let lib = unsafe { libloading::Library::new(&lib_path) }.unwrap();
        let sc_c = CString::new(sc.to_str().unwrap()).unwrap();
        let log_c = CString::new(log_path.to_str().unwrap()).unwrap();
        // SAFETY: the fake's own configuration hook, C strings that outlive the call.
        unsafe {
            let f: libloading::Symbol<unsafe extern "C" fn(*const c_char, *const c_char) -> c_int> =
                lib.get(b"fake_cuda_configure\0").unwrap();
            assert_eq!(f(sc_c.as_ptr(), log_c.as_ptr()), 0);
        }
        Fake {
            dir,
            lib_path,
            log_path,
            meminfo,
            lib,
        }
    }

    /// What NVML would report as used on `dev`: the fake's charge without its release lag.
    pub fn nvml_used(&self, dev: i32) -> Option<u64> {
        // SAFETY: the fake's hook; plain integer in, integer out.
        let v = unsafe {
            let f: libloading::Symbol<unsafe extern "C" fn(c_int) -> u64> =
                self.lib.get(b"fake_cuda_nvml_used\0").unwrap();
            f(dev)
        };
        (v != u64::MAX).then_some(v)
    }

    pub fn log(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log_path)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Checks the fake's log: everything allocated was released, every context destroyed.
    pub fn ledger(&self) -> Ledger {
        Ledger::from_log(&self.log())
    }
}

#[derive(Debug, Default)]
pub struct Ledger {
    pub contexts_created: usize,
    pub contexts_destroyed: usize,
    pub device_allocs: usize,
    pub host_allocs: usize,
    pub registrations: usize,
    /// Handles still held at the end of the log.
    pub outstanding: Vec<String>,
}

impl Ledger {
    pub fn from_log(lines: &[String]) -> Ledger {
        let mut l = Ledger::default();
        let mut live: HashSet<String> = HashSet::new();
        for line in lines {
            let f: Vec<&str> = line.split('|').collect();
            match f.as_slice() {
                ["ctx_create", h, ..] => {
                    l.contexts_created += 1;
                    live.insert(format!("ctx {h}"));
                }
                ["ctx_destroy", h] => {
                    l.contexts_destroyed += 1;
                    assert!(live.remove(&format!("ctx {h}")), "destroyed unknown {h}");
                }
                ["alloc", kind, h, ..] => {
                    if *kind == "device" {
                        l.device_allocs += 1;
                    } else {
                        l.host_allocs += 1;
                    }
                    live.insert(format!("{kind} {h}"));
                }
                ["free", kind, h] => {
                    assert!(live.remove(&format!("{kind} {h}")), "freed unknown {h}");
                }
                ["register", h, _] => {
                    l.registrations += 1;
                    live.insert(format!("registered {h}"));
                }
                ["unregister", h] => {
                    assert!(
                        live.remove(&format!("registered {h}")),
                        "unregistered unknown {h}"
                    );
                }
                _ => {}
            }
        }
        l.outstanding = live.into_iter().collect();
        l.outstanding.sort();
        l
    }

    pub fn assert_clean(&self) {
        assert!(
            self.outstanding.is_empty(),
            "left behind: {:?}",
            self.outstanding
        );
        assert_eq!(self.contexts_created, self.contexts_destroyed);
    }
}

pub const MIB: u64 = 1 << 20;
pub const GIB: u64 = 1 << 30;

/// A WDDM-like machine: pinned host memory charged to VRAM 1:1, registered memory at half,
/// 2 MiB granularity, and freed memory that shows as free only on the second read.
pub fn wddm_scenario() -> String {
    format!(
        "# WDDM-like\n\
         device|NVIDIA GeForce RTX 4090|{}|{}|00112233445566778899aabbccddeeff\n\
         driver|12040\n\
         context_cost|{}\n\
         charge|device|1.0\n\
         charge|host_alloc|1.0\n\
         charge|host_alloc_devicemap|1.0\n\
         charge|host_register|0.5\n\
         granularity|{}\n\
         release_lag|1\n",
        24 * GIB,
        GIB,
        300 * MIB,
        2 * MIB
    )
}

/// A Linux-like machine: pinned host memory costs no VRAM; release is immediate.
pub fn linux_scenario() -> String {
    format!(
        "device|NVIDIA H200|{}|{}\n\
         driver|12080\n\
         context_cost|{}\n\
         charge|device|1.0\n\
         granularity|{}\n",
        140 * GIB,
        2 * GIB,
        500 * MIB,
        2 * MIB
    )
}
