//! One collection round: every source adds what it can see, then the books are balanced.

use std::path::PathBuf;

/// Where the sources read from. Defaults are the live machine; tests and post-mortems point them at
/// recorded trees and fake libraries.
#[derive(Debug, Clone)]
pub struct SourceConfig {
    pub proc_root: PathBuf,
    pub sys_root: PathBuf,
    /// Explicit NVML library; `None` searches the platform's usual names.
    pub nvml_lib: Option<PathBuf>,
}

impl Default for SourceConfig {
    fn default() -> Self {
        SourceConfig {
            proc_root: PathBuf::from("/proc"),
            sys_root: PathBuf::from("/sys"),
            nvml_lib: None,
        }
    }
}

/// Holds the sources open between rounds (loading NVML is the expensive part).
pub struct Collector {
    pub config: SourceConfig,
}
