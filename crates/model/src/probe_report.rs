//! What `gpuledger probe` measured: what each way of allocating memory cost in VRAM on this
//! machine, and what a CUDA context costs. Serialisable; `probe --save` stores it and
//! `estimate`/`explain` read it back. `gpuledger-cuda` measures it; views render it.

use serde::{Deserialize, Serialize};

/// Version of the JSON layout below. Bump on incompatible changes; the loader refuses others.
pub const SCHEMA: u32 = 1;

/// One way of allocating memory that the probe measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// `cuMemAlloc`: ordinary device memory, the control (its ratio should be about 1).
    DeviceAlloc,
    /// `cuMemHostAlloc` with flags 0: page-locked host memory.
    HostAlloc,
    /// `cuMemHostAlloc` with `CU_MEMHOSTALLOC_DEVICEMAP`: page-locked and mapped into the
    /// device's address space.
    HostAllocDevicemap,
    /// `cuMemHostRegister` of ordinary, page-aligned host memory.
    HostRegister,
}

impl Method {
    pub const ALL: [Method; 4] = [
        Method::DeviceAlloc,
        Method::HostAlloc,
        Method::HostAllocDevicemap,
        Method::HostRegister,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Method::DeviceAlloc => "cuMemAlloc (device, control)",
            Method::HostAlloc => "cuMemHostAlloc (pinned)",
            Method::HostAllocDevicemap => "cuMemHostAlloc DEVICEMAP",
            Method::HostRegister => "cuMemHostRegister",
        }
    }

    /// Whether the bytes live in host memory (all but the control).
    pub fn is_host(self) -> bool {
        self != Method::DeviceAlloc
    }
}

/// How the VRAM came back after a free. Release can be asynchronous, so the probe re-reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Release {
    /// `cuMemGetInfo` reads after the free until free memory was back at its level before the
    /// allocation (or until the probe gave up).
    pub reads: u32,
    /// Whether free memory got back to its level before the allocation.
    pub released: bool,
    /// Bytes still missing from free memory at the last read (0 when released).
    pub residual_bytes: i64,
}

/// One measured allocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub method: Method,
    /// Bytes requested (host bytes for the pinned methods, device bytes for the control).
    pub host_bytes: u64,
    /// Drop in the driver's free memory (`cuMemGetInfo`) across the allocation. Negative when
    /// free memory grew (another process released memory meanwhile).
    pub vram_delta_driver: i64,
    /// Rise in NVML's device used memory across the allocation; null without an NVML view.
    pub vram_delta_nvml: Option<i64>,
    /// `vram_delta_driver / host_bytes`.
    pub ratio_driver: f64,
    /// `vram_delta_nvml / host_bytes`; null without an NVML view.
    pub ratio_nvml: Option<f64>,
    pub release: Release,
}

impl Row {
    pub fn new(
        method: Method,
        host_bytes: u64,
        vram_delta_driver: i64,
        vram_delta_nvml: Option<i64>,
        release: Release,
    ) -> Row {
        let ratio = |d: i64| d as f64 / host_bytes as f64;
        Row {
            method,
            host_bytes,
            vram_delta_driver,
            vram_delta_nvml,
            ratio_driver: ratio(vram_delta_driver),
            ratio_nvml: vram_delta_nvml.map(ratio),
            release,
        }
    }
}

/// What a CUDA context costs in VRAM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextCost {
    /// Rise in NVML's device used memory when the probe's (first) context was created. This is
    /// the per-process figure; null without an NVML view (the driver's free memory cannot be
    /// read before a context exists).
    pub first_by_nvml: Option<i64>,
    /// Drop in the driver's free memory when a second context was created in the same process.
    pub second_by_driver: i64,
    /// Rise in NVML's device used memory for that second context.
    pub second_by_nvml: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// CUDA ordinal (may differ from NVML's index; the UUID is the stable key).
    pub ordinal: i32,
    pub name: String,
    pub uuid: Option<String>,
    pub total_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeReport {
    pub schema: u32,
    /// RFC 3339, UTC, to the second.
    pub measured_at: String,
    /// `linux`, `windows`, ...
    pub os: String,
    /// The driver library that was loaded.
    pub cuda_lib: String,
    pub device: DeviceInfo,
    /// The CUDA version the driver supports (`cuDriverGetVersion`), e.g. `12.4`.
    pub cuda_driver_version: Option<String>,
    /// The display driver's version as NVML reports it; null without an NVML view.
    pub driver_version: Option<String>,
    /// Pause between re-reads after a free.
    pub settle_ms: u64,
    pub context: ContextCost,
    pub rows: Vec<Row>,
    /// What the reader should know to interpret the figures (missing views, caveats): English
    /// in JSON, the reader's language in the text report where a note has a key.
    pub notes: Vec<gpuledger_lang::Said>,
}

impl ProbeReport {
    /// The date part of `measured_at` (`2026-11-29`).
    pub fn date(&self) -> &str {
        self.measured_at.get(..10).unwrap_or(&self.measured_at)
    }

    /// The row for one method at one size, if measured.
    pub fn row(&self, method: Method, bytes: u64) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.method == method && r.host_bytes == bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(rows: Vec<Row>) -> ProbeReport {
        ProbeReport {
            schema: 1,
            measured_at: "2026-11-29T08:00:00Z".into(),
            os: "linux".into(),
            cuda_lib: "libcuda.so.1".into(),
            device: DeviceInfo {
                ordinal: 0,
                name: "X".into(),
                uuid: None,
                total_bytes: 1 << 30,
            },
            cuda_driver_version: None,
            driver_version: None,
            settle_ms: 10,
            context: ContextCost {
                first_by_nvml: None,
                second_by_driver: 0,
                second_by_nvml: None,
            },
            rows,
            notes: vec![],
        }
    }

    /// Without an NVML view the NVML figures are null in the report, not 0, and read back as
    /// unknown; rows are found by method and size only.
    #[test]
    fn nvml_less_rows_round_trip_as_null_and_are_found_by_method_and_size() {
        let rel = Release {
            reads: 1,
            released: true,
            residual_bytes: 0,
        };
        let r = report(vec![
            Row::new(Method::HostAlloc, 1 << 20, 1 << 19, None, rel.clone()),
            Row::new(Method::HostRegister, 1 << 20, 0, Some(0), rel),
        ]);
        let json = serde_json::to_value(&r).unwrap();
        assert!(json["rows"][0]["vram_delta_nvml"].is_null(), "{json}");
        assert!(json["rows"][0]["ratio_nvml"].is_null(), "{json}");
        assert_eq!(json["rows"][0]["ratio_driver"], 0.5);
        let back: ProbeReport = serde_json::from_value(json).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.date(), "2026-11-29");
        let row = back.row(Method::HostAlloc, 1 << 20).unwrap();
        assert_eq!(row.ratio_nvml, None);
        assert_eq!(
            back.row(Method::HostRegister, 1 << 20).unwrap().ratio_nvml,
            Some(0.0)
        );
        assert!(back.row(Method::HostAlloc, 2 << 20).is_none());
    }
}
