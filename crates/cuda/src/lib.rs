//! The CUDA driver, loaded at run time, and what gpuledger does with it. `gpuledger probe`
//! measures on this machine what the driver charges to VRAM for a context and for page-locked
//! (pinned) host memory; `gpuledger verify` runs a known workload through it. Under Windows
//! (WDDM) pinned host memory has been observed to reduce free VRAM about 1:1; on Linux about 0.
//! Those figures cannot be looked up, only measured, and they feed the estimated ledger's
//! runtime-overhead line.
//!
//! - [`cuda`]: the driver API, loaded at run time (`libcuda.so.1` / `nvcuda.dll`);
//! - [`probe`]: the measuring sequence and its clean-up guard;
//! - [`report`]: the result (its types are `gpuledger_model::probe_report`; its table is
//!   `gpuledger_views::cost_report`);
//! - [`store`]: saving and loading a result, its age, and the figure `estimate` uses;
//! - [`hostmem`]: available host memory (the probe refuses sizes that do not fit);
//! - [`signal`]: Ctrl-C sets a flag the sequence checks, so it unwinds and cleans up;
//! - [`step`]: the step protocol of `gpuledger verify`'s child (its messages and the loop over
//!   commands), shared with the Vulkan child;
//! - [`workload`]: the CUDA known workload `gpuledger verify` runs in a child process.

pub mod cuda;
pub mod hostmem;
pub mod probe;
pub mod report;
mod said;
pub mod signal;
pub mod step;
pub mod store;
pub mod workload;

pub use probe::{run, DeviceRef, NvmlView, ProbeError, ProbeOptions};
pub use report::{Method, ProbeReport, Row};
pub use store::{measured_overhead, MeasuredOverhead, ProbeStatus};
