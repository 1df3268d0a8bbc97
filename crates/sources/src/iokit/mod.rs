//! macOS (Apple silicon): the measured ledger from the IORegistry.
//!
//! - [`parse`]: pure — `PerformanceStatistics` (utilisation, in-use / allocated system memory),
//!   the GPU user clients (`IOUserClientCreator` "pid N, name", `AppUsage[].accumulatedGPUTime`),
//!   GPU-time rates between two rounds; per-process memory stays `null` with the reason (unified
//!   memory). Recorded rounds live under `fixtures/macos/`.
//! - `os` (macOS only): reads the registry with io-kit-sys / core-foundation — `IokitSource`.
//!
//! Entry points: on macOS `IokitSource::new().collect(&mut snapshot)` each refresh; everywhere
//! [`merge_round`]`(prev, cur)` → [`IokitView`], then [`apply`].

pub mod parse;

#[cfg(target_os = "macos")]
mod os;
#[cfg(target_os = "macos")]
pub use os::{IokitError, IokitSource};

pub use parse::{apply, load_round, merge_round, IoRegRound, IokitView};

#[cfg(test)]
mod tests;
