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
