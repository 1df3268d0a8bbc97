//! One round of raw WDDM performance counters, as `PdhGetRawCounterArrayW` returns them, and the
//! DXGI adapter list. These are the recorded inputs of the pure merge ([`super::merge_round`]) and
//! the fixture format under `fixtures/windows/`.

use super::instance::Luid;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// One `PDH_RAW_COUNTER_ITEM_W`: the instance name and the raw value pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawSample {
    pub instance: String,
    /// `PDH_RAW_COUNTER.FirstValue`: bytes for the memory counters, cumulative 100 ns running
    /// time for `GPU Engine\Running Time`.
    pub first: i64,
    /// `PDH_RAW_COUNTER.SecondValue`: a timer counter's own time base (100 ns) where it has one.
    #[serde(default)]
    pub second: i64,
    /// `PDH_RAW_COUNTER.CStatus`; 0 (valid) and 1 (new data) are usable.
    #[serde(default)]
    pub status: u32,
}

impl RawSample {
    pub fn usable(&self) -> bool {
        self.status <= 1
    }
}

/// Every instance of one counter at one collection.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterArray {
    /// `PDH_RAW_COUNTER.TimeStamp` of the collection as a FILETIME (100 ns since 1601).
    pub timestamp_100ns: u64,
    pub samples: Vec<RawSample>,
}

/// The English counter paths read each round. Added with `PdhAddEnglishCounterW`, so a localised
/// Windows resolves them too.
pub mod paths {
    pub const ENGINE_RUNNING_TIME: &str = r"\GPU Engine(*)\Running Time";
    pub const PROCESS_LOCAL: &str = r"\GPU Process Memory(*)\Local Usage";
    pub const PROCESS_NON_LOCAL: &str = r"\GPU Process Memory(*)\Non Local Usage";
    pub const PROCESS_DEDICATED: &str = r"\GPU Process Memory(*)\Dedicated Usage";
    pub const PROCESS_SHARED: &str = r"\GPU Process Memory(*)\Shared Usage";
    pub const ADAPTER_DEDICATED: &str = r"\GPU Adapter Memory(*)\Dedicated Usage";
    pub const ADAPTER_SHARED: &str = r"\GPU Adapter Memory(*)\Shared Usage";
    pub const ADAPTER_LOCAL: &str = r"\GPU Local Adapter Memory(*)\Local Usage";
    pub const ADAPTER_NON_LOCAL: &str = r"\GPU Non Local Adapter Memory(*)\Non Local Usage";
}

/// One collection round. A counter that could not be added or read is `None`, with the reason in
/// `missing` under its English path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    pub engine_running_time: Option<CounterArray>,
    pub process_local: Option<CounterArray>,
    pub process_non_local: Option<CounterArray>,
    pub process_dedicated: Option<CounterArray>,
    pub process_shared: Option<CounterArray>,
    pub adapter_dedicated: Option<CounterArray>,
    pub adapter_shared: Option<CounterArray>,
    pub adapter_local: Option<CounterArray>,
    pub adapter_non_local: Option<CounterArray>,
    #[serde(default)]
    pub missing: BTreeMap<String, String>,
}

impl Round {
    /// Every counter slot with its English path, in the order the seam adds them.
    pub fn slots_mut(&mut self) -> [(&'static str, &mut Option<CounterArray>); 9] {
        [
            (paths::ENGINE_RUNNING_TIME, &mut self.engine_running_time),
            (paths::PROCESS_LOCAL, &mut self.process_local),
            (paths::PROCESS_NON_LOCAL, &mut self.process_non_local),
            (paths::PROCESS_DEDICATED, &mut self.process_dedicated),
            (paths::PROCESS_SHARED, &mut self.process_shared),
            (paths::ADAPTER_DEDICATED, &mut self.adapter_dedicated),
            (paths::ADAPTER_SHARED, &mut self.adapter_shared),
            (paths::ADAPTER_LOCAL, &mut self.adapter_local),
            (paths::ADAPTER_NON_LOCAL, &mut self.adapter_non_local),
        ]
    }

    pub fn missing_reason(&self, path: &str) -> String {
        self.missing
            .get(path)
            .cloned()
            .unwrap_or_else(|| format!("counter {path} was not read"))
    }
}

/// `DXGI_ADAPTER_DESC1` plus the PCI address D3DKMT reports for the same LUID.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DxgiAdapter {
    pub description: String,
    pub vendor_id: u32,
    pub device_id: u32,
    #[serde(default)]
    pub subsys_id: u32,
    #[serde(default)]
    pub revision: u32,
    pub dedicated_video_memory: u64,
    #[serde(default)]
    pub dedicated_system_memory: u64,
    pub shared_system_memory: u64,
    pub luid: Luid,
    /// `DXGI_ADAPTER_FLAG_*`; 2 = software (Microsoft Basic Render Driver).
    #[serde(default)]
    pub flags: u32,
    /// From `D3DKMTQueryAdapterInfo(KMTQAITYPE_ADAPTERADDRESS)`; `None` where it failed.
    #[serde(default)]
    pub pci: Option<PciAddress>,
}

pub const DXGI_ADAPTER_FLAG_SOFTWARE: u32 = 2;

impl DxgiAdapter {
    pub fn is_software(&self) -> bool {
        self.flags & DXGI_ADAPTER_FLAG_SOFTWARE != 0
    }
}

/// Bus / device / function. D3DKMT gives no PCI domain (segment), so it is not compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PciAddress {
    pub bus: u32,
    pub device: u32,
    pub function: u32,
}

impl PciAddress {
    /// Parse NVML's `00000000:01:00.0` (or the short `0000:01:00.0` / `01:00.0`).
    pub fn parse_bus_id(s: &str) -> Option<PciAddress> {
        let s = s.trim();
        let (head, func) = s.rsplit_once('.')?;
        let mut parts = head.rsplit(':');
        let dev = parts.next()?;
        let bus = parts.next()?;
        Some(PciAddress {
            bus: u32::from_str_radix(bus, 16).ok()?,
            device: u32::from_str_radix(dev, 16).ok()?,
            function: u32::from_str_radix(func, 16).ok()?,
        })
    }
}

/// A PDH status code with its name where it is one a GPU-counter reader meets.
pub fn pdh_status_name(code: u32) -> String {
    let name = match code {
        0x0000_0000 => "PDH_CSTATUS_VALID_DATA",
        0x0000_0001 => "PDH_CSTATUS_NEW_DATA",
        0x8000_07D2 => "PDH_MORE_DATA",
        0x8000_07D5 => "PDH_NO_DATA",
        0xC000_0BB8 => "PDH_CSTATUS_NO_OBJECT",
        0xC000_0BB9 => "PDH_CSTATUS_NO_COUNTER",
        0xC000_0BBA => "PDH_CSTATUS_INVALID_DATA",
        0xC000_0BBC => "PDH_INVALID_HANDLE",
        0xC000_0BC0 => "PDH_CSTATUS_BAD_COUNTERNAME",
        0xC000_0BC6 => "PDH_INVALID_DATA",
        0xC000_0BDB => "PDH_ACCESS_DENIED",
        _ => return format!("PDH status 0x{code:08X}"),
    };
    format!("{name} (0x{code:08X})")
}

/// Errors loading recorded rounds and adapter lists.
pub use crate::recording::LoadError;

/// Recordings stay far below this; it keeps a wrong path from loading a huge file.
const MAX_RECORDING: u64 = 64 << 20;

/// Load a recorded [`Round`] (JSON).
pub fn load_round(path: &Path) -> Result<Round, LoadError> {
    crate::recording::load(path, "a WDDM counter round recording", MAX_RECORDING)
}

/// Load a recorded DXGI adapter list (JSON array of [`DxgiAdapter`]).
pub fn load_adapters(path: &Path) -> Result<Vec<DxgiAdapter>, LoadError> {
    crate::recording::load(path, "a WDDM adapter list recording", MAX_RECORDING)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdh_codes_are_named() {
        assert_eq!(
            pdh_status_name(0xC000_0BB9),
            "PDH_CSTATUS_NO_COUNTER (0xC0000BB9)"
        );
        assert_eq!(pdh_status_name(0x1234), "PDH status 0x00001234");
    }

    #[test]
    fn nvml_bus_ids_parse() {
        let want = PciAddress {
            bus: 1,
            device: 0,
            function: 0,
        };
        assert_eq!(PciAddress::parse_bus_id("00000000:01:00.0"), Some(want));
        assert_eq!(PciAddress::parse_bus_id("0000:01:00.0"), Some(want));
        assert_eq!(PciAddress::parse_bus_id("01:00.0"), Some(want));
        assert_eq!(
            PciAddress::parse_bus_id("00000000:2B:1F.3"),
            Some(PciAddress {
                bus: 0x2b,
                device: 0x1f,
                function: 3
            })
        );
        assert_eq!(PciAddress::parse_bus_id("garbage"), None);
        assert_eq!(PciAddress::parse_bus_id("0000:zz:00.0"), None);
    }

    #[test]
    fn load_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("round.json");
        std::fs::write(&p, "{\"engine_running_time\": 7}").unwrap();
        let e = load_round(&p).unwrap_err().to_string();
        assert!(
            e.contains("round.json") && e.contains("counter round"),
            "{e}"
        );
        let e = load_adapters(&dir.path().join("nope.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("nope.json"), "{e}");
    }
}
