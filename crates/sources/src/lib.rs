//! Sources of the measured ledger. Each module reads one kind of system interface through an
//! injectable root or library path, so it runs unchanged on recorded data in tests:
//!
//! - [`nvml`]: NVIDIA's management library, loaded at run time (no link-time dependency);
//! - [`procfs`]: process metadata (name, exe, user, command line, start time) from `/proc`;
//! - [`regular`]: opening files that others named (model paths, replays) without blocking;
//! - [`collect`]: one collection round that merges the sources into a [`gpuledger_model::Snapshot`].

pub mod collect;
pub mod container;
pub mod drm;
pub mod dxg;
pub mod iokit;
pub mod nvml;
pub mod procfs;
pub mod regular;
pub mod sysfs;
pub mod wddm;

pub use collect::{Annotate, Collector, SourceConfig};

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
        f.unreadable.push(format!(
            "pid {pid}: proc_pidpath failed (another user's process?)"
        ));
    }
    f.unreadable
        .push("loaded libraries, command line and ports: not read on macOS yet".into());
    f
}
