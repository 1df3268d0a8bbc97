//! Sources of the measured ledger. Each module reads one kind of system interface through an
//! injectable root or library path, so it runs unchanged on recorded data in tests:
//!
//! - [`nvml`]: NVIDIA's management library, loaded at run time (no link-time dependency);
//! - [`procfs`]: process metadata (name, exe, user, command line, start time) from `/proc`;
//! - [`collect`]: one collection round that merges the sources into a [`gpuledger_model::Snapshot`].

pub mod collect;
pub mod container;
pub mod drm;
pub mod dxg;
pub mod iokit;
pub mod nvml;
pub mod procfs;
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
    #[cfg(not(windows))]
    {
        procs.facts(pid)
    }
}
