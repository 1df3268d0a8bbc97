//! Sources of the measured ledger. Each module reads one kind of system interface through an
//! injectable root or library path, so it runs unchanged on recorded data in tests:
//!
//! - [`nvml`]: NVIDIA's management library, loaded at run time (no link-time dependency);
//! - [`wddm`]: Windows' GPU performance counters and DXGI adapters; [`dxg`]: `/dev/dxg` in WSL2;
//!   [`iokit`]: macOS's accelerator registry;
//! - [`drm`] and [`sysfs`]: Linux DRM clients (`fdinfo`) and devices (`/sys/class/drm`, accel);
//! - [`procfs`]: process metadata (name, exe, user, command line, start time) from `/proc`;
//!   [`owner`]: who a process belongs to (a Kubernetes pod, a Slurm job, a container, a systemd
//!   unit, a session), from its cgroup; [`container`]: whether gpuledger is in a PID namespace;
//! - [`environ`]: another process's environment, redacted, on Linux, macOS and Windows (`v`);
//! - [`regular`]: opening files that others named (model paths, replays) without blocking;
//! - [`collect`]: one collection round that merges the sources into a [`gpuledger_model::Snapshot`];
//!   [`recording`]: loading recorded rounds (the fixtures and replays of WDDM and IOKit).
//!
//! # The contract every source keeps
//!
//! - **Absence is said, never zero.** A value a source could not read stays `None`, and the reason
//!   goes where the snapshot keeps reasons (`Device::mark_unavailable`, `Usage::unavailable_reason`,
//!   `Process::metadata_unavailable`). A source that cannot run at all reports its
//!   [`gpuledger_model::SourceStatus`] as unavailable with the reason in words, and the round goes
//!   on without it.
//! - **Every value names its source** (`memory_source`: `nvml`, `fdinfo`, `wddm-local`, ...). Where
//!   two sources measure the same thing, neither overwrites the other: both are kept
//!   (`memory_by_source`) and the larger is shown, labelled with both names.
//! - **A source only adds.** It fills what earlier sources left unknown and never removes a device,
//!   a process or a known value another source put there.
//! - **Bounded and non-blocking.** Reads are size-capped; files named by others are opened without
//!   following FIFOs or devices ([`regular`]); nothing in a round waits on the network. A round
//!   never panics on what it reads.
//! - **Work in proportion to the round.** What does not change between rounds (the NVML library,
//!   the user table, DRM device identities, a process's identity per start time) is read once and
//!   kept.
//!
//! # The order of a round ([`Collector::collect`])
//!
//! NVML (devices, then processes) → the platform's per-process source (WDDM, IOKit or `/dev/dxg`)
//! → DRM clients and sysfs devices → `/proc` metadata for every listed process → owners →
//! annotators (workload identification and estimates, from the workloads crate) → the books are
//! balanced (the unattributed row). Later steps fill gaps; none undoes an earlier one.

pub mod collect;
pub mod container;
pub mod drm;
pub mod dxg;
pub mod environ;
pub mod iokit;
pub mod nvml;
pub mod owner;
pub mod procfs;
pub mod regular;
pub mod sysfs;
pub mod wddm;

pub use collect::{Annotate, Collector, SourceConfig};

/// Loading a recorded round (JSON): bounded in size, so that a wrong path cannot load a huge
/// file, and every error names the file. One loader for the WDDM and IOKit recordings.
pub mod recording {
    use std::path::Path;

    #[derive(Debug, thiserror::Error)]
    pub enum LoadError {
        #[error("{path}: {source}")]
        Io {
            path: String,
            source: std::io::Error,
        },
        /// `what` names the expected recording with its article (`an IOKit registry recording`).
        #[error("{path}: not {what}: {source}")]
        Parse {
            path: String,
            what: &'static str,
            source: serde_json::Error,
        },
        #[error("{path}: larger than the {max}-byte limit for a recording")]
        TooLarge { path: String, max: u64 },
    }

    /// Parse the JSON at `path` as a `T`, refusing a file over `max` bytes. The file is opened
    /// through [`crate::regular`]: a FIFO or device given as a replay path is refused instead of
    /// blocking or reading forever, and a file growing meanwhile cannot be read past `max`.
    pub fn load<T: serde::de::DeserializeOwned>(
        path: &Path,
        what: &'static str,
        max: u64,
    ) -> Result<T, LoadError> {
        let p = path.display().to_string();
        let bytes = crate::regular::read_regular(path, max).map_err(|source| {
            if crate::regular::is_too_large(&source) {
                LoadError::TooLarge {
                    path: p.clone(),
                    max,
                }
            } else {
                LoadError::Io {
                    path: p.clone(),
                    source,
                }
            }
        })?;
        serde_json::from_slice(&bytes).map_err(|source| LoadError::Parse {
            path: p,
            what,
            source,
        })
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        type Any = serde_json::Value;

        #[test]
        fn over_the_limit_is_refused_naming_the_file() {
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("round.json");
            std::fs::write(&p, "[1, 2, 3]").unwrap();
            assert!(load::<Any>(&p, "a round", 9).is_ok());
            let e = load::<Any>(&p, "a round", 8).unwrap_err();
            assert!(matches!(e, LoadError::TooLarge { max: 8, .. }), "{e:?}");
            assert!(e.to_string().contains("round.json"), "{e}");
        }

        #[cfg(unix)]
        #[test]
        fn a_fifo_is_refused_without_blocking() {
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("replay.json");
            let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: a valid NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            // No writer exists: reading it as a file would never return.
            let e = load::<Any>(&p, "a round", 1 << 20).unwrap_err().to_string();
            assert!(e.contains("replay.json") && e.contains("FIFO"), "{e}");
        }
    }
}

/// What the operating system says about a process beyond its GPU use (image, loaded libraries or
/// modules, listening ports, parent), for identification: procfs on Linux, the process's module
/// list and the TCP owner tables on Windows.
pub fn process_facts(procs: &procfs::ProcReader, pid: u32) -> procfs::ProcessFacts {
    #[cfg(windows)]
    {
        let _ = procs;
        wddm::facts::process_facts(pid)
    }
    #[cfg(target_os = "macos")]
    {
        let _ = procs;
        macos_facts(pid)
    }
    #[cfg(not(any(windows, target_os = "macos")))]
    {
        procs.facts(pid)
    }
}

/// The parent of `pid` on this machine: `/proc/PID/stat`'s on Linux, the process snapshot's
/// (`CreateToolhelp32Snapshot`) on Windows. `None` when it cannot be read (exited, not visible).
pub fn parent_pid(procs: &procfs::ProcReader, pid: u32) -> Option<u32> {
    #[cfg(windows)]
    {
        let _ = procs;
        wddm::facts::parent_of(pid).map(|(ppid, _)| ppid)
    }
    #[cfg(not(windows))]
    {
        procs.stat(pid).ok().map(|s| s.ppid)
    }
}

/// macOS: the executable path (`proc_pidpath`); loaded libraries and ports are not read yet, and
/// the facts say so, so identification lists them as missing links.
#[cfg(target_os = "macos")]
fn macos_facts(pid: u32) -> procfs::ProcessFacts {
    let mut f = procfs::ProcessFacts {
        pid,
        ..Default::default()
    };
    let mut buf = vec![0u8; libc::PROC_PIDPATHINFO_MAXSIZE as usize];
    // SAFETY: `buf` has the documented maximum size for a process path.
    let n = unsafe { libc::proc_pidpath(pid as i32, buf.as_mut_ptr().cast(), buf.len() as u32) };
    if n > 0 {
        let exe = String::from_utf8_lossy(&buf[..n as usize]).into_owned();
        f.comm = exe.rsplit('/').next().map(str::to_string);
        f.exe = Some(exe);
    } else {
        let said = vec![("pid", pid.to_string().into())];
        f.unreadable.push(gpuledger_lang::Said::new(
            "report-facts-macos-pidpath",
            said,
        ));
    }
    f.unreadable.push(gpuledger_lang::Said::new(
        "report-facts-macos-not-read",
        vec![],
    ));
    f
}
