//! Windows (WDDM): the measured ledger where NVML cannot see per-process memory.
//!
//! Under WDDM the OS owns video memory, so NVML reports GeForce processes' memory as not
//! available. Windows itself accounts for it in the performance counters Task Manager reads
//! (`GPU Process Memory`, `GPU Engine`, `GPU Adapter Memory`, `GPU Local Adapter Memory`), gathered
//! from the video memory manager and scheduler. This module reads those counters:
//!
//! - [`instance`]: instance-name parsing (`pid_<pid>_luid_<hi>_<lo>_phys_<n>[_eng_<n>_engtype_<type>]`);
//! - [`counters`]: a round of raw counter arrays and the DXGI adapter list (the fixture format);
//! - [`merge`]: the pure arithmetic of a round — per-process memory (Local/Non Local Usage, falling
//!   back to Dedicated/Shared), engine rates between two rounds (counters summed in
//!   `accumulate`), the busiest engine per adapter, adapter → NVML device by PCI address;
//! - `apply`: the view merged into a snapshot (the NVML merge rule, shared-surface notes);
//! - [`tcp_table`]: the TCP owner tables' bytes (listening port → owning pid), pure;
//! - `os` (Windows only): one persistent PDH query and DXGI enumeration — `WddmSource`.
//!
//! Entry points: on Windows `WddmSource::new()?` then, each refresh,
//! `source.collect(&mut snapshot)` after NVML has filled the snapshot. Everywhere (tests, replay):
//! [`merge_round`]`(prev, cur, adapters, nvml_devices)` → [`WddmView`], then [`apply()`].

mod accumulate;
pub mod apply;
pub mod counters;
pub mod instance;
pub mod merge;
pub mod tcp_table;

#[cfg(windows)]
pub mod facts;
#[cfg(windows)]
mod os;
#[cfg(windows)]
pub use os::{WddmError, WddmSource};

pub use apply::apply;
pub use counters::{
    load_adapters, load_round, CounterArray, DxgiAdapter, PciAddress, RawSample, Round,
};
pub use instance::{parse_instance, EngineId, Instance, Luid};
pub use merge::{merge_round, MemoryMode, WddmView};

#[cfg(test)]
mod tests;
