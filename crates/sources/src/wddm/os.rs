//! The Windows seam: one persistent PDH query whose raw counter arrays are read once per round,
//! and the DXGI adapter list (with D3DKMT's PCI address per LUID). Everything after the read is the
//! pure code in [`super::merge`]; nothing here interprets a value.
//!
//! Under wine (CI, `.ci/test-platforms-wine.sh`) only the failure paths run: wine has no GPU
//! counters (`PdhAddEnglishCounterW` answers PDH_CSTATUS_NO_COUNTER, 0xC0000BB9) and no DXGI
//! adapters (0x887A0004). The reading paths need a real Windows machine.

use super::apply::{apply, image_base_name};
use super::counters::{pdh_status_name, CounterArray, DxgiAdapter, PciAddress, RawSample, Round};
use super::instance::Luid;
use super::merge::{merge_round, nvml_devices};
use gpuledger_model::{Process, Snapshot};
use windows::core::{HSTRING, PCWSTR};
use windows::Wdk::Graphics::Direct3D::{
    D3DKMTCloseAdapter, D3DKMTOpenAdapterFromLuid, D3DKMTQueryAdapterInfo, D3DKMT_ADAPTERADDRESS,
    D3DKMT_CLOSEADAPTER, D3DKMT_OPENADAPTERFROMLUID, D3DKMT_QUERYADAPTERINFO,
    KMTQAITYPE_ADAPTERADDRESS,
};
use windows::Win32::Foundation::{CloseHandle, FILETIME, LUID};
use windows::Win32::Graphics::Dxgi::{CreateDXGIFactory1, IDXGIFactory1, DXGI_ERROR_NOT_FOUND};
use windows::Win32::System::Performance::{
    PdhAddEnglishCounterW, PdhCloseQuery, PdhCollectQueryData, PdhGetRawCounterArrayW,
    PdhOpenQueryW, PDH_HCOUNTER, PDH_HQUERY, PDH_MORE_DATA, PDH_RAW_COUNTER_ITEM_W,
};
use windows::Win32::System::Threading::{
    GetProcessTimes, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
};

#[derive(Debug, thiserror::Error)]
pub enum WddmError {
    #[error("PdhOpenQueryW failed: {0}")]
    OpenQuery(String),
}

/// A raw array larger than this is refused rather than allocated (500 engine instances take
/// about 60 KiB).
const MAX_ARRAY_BYTES: u32 = 64 << 20;
/// DXGI never lists this many adapters; the bound keeps a broken enumerator from looping.
const MAX_ADAPTERS: u32 = 64;

/// The WDDM source, held open between rounds (the query keeps its counters and their instance
/// lists; re-adding them each round is what makes naive readers slow).
pub struct WddmSource {
    query: PDH_HQUERY,
    counters: Vec<(&'static str, Option<PDH_HCOUNTER>, String)>,
    adapters: Vec<DxgiAdapter>,
    adapters_error: Option<String>,
    prev: Option<Round>,
    buf: Vec<u64>,
}

// SAFETY: the PDH query and counter handles are plain handles, not tied to the creating thread
// (unlike COM apartment objects); `&mut self` serialises every use.
unsafe impl Send for WddmSource {}

impl WddmSource {
    /// Open the query and add every counter by its English path. A counter that cannot be added
    /// is recorded with the reason; only a query that cannot be opened at all is an error.
    pub fn new() -> Result<WddmSource, WddmError> {
        let mut query = PDH_HQUERY::default();
        // SAFETY: out-pointer to a local; a null data source means the live machine.
        let st = unsafe { PdhOpenQueryW(PCWSTR::null(), 0, &mut query) };
        if st != 0 {
            return Err(WddmError::OpenQuery(pdh_status_name(st)));
        }
        let mut counters = Vec::new();
        let mut template = Round::default();
        for (path, _) in template.slots_mut() {
            let mut h = PDH_HCOUNTER::default();
            let wide = HSTRING::from(path);
            // SAFETY: the query is open; the path outlives the call; out-pointer to a local.
            let st = unsafe { PdhAddEnglishCounterW(query, &wide, 0, &mut h) };
            if st == 0 {
                counters.push((path, Some(h), String::new()));
            } else {
                counters.push((path, None, pdh_status_name(st)));
            }
        }
        let (adapters, adapters_error) = match enumerate_adapters() {
            Ok(a) => (a, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        Ok(WddmSource {
            query,
            counters,
            adapters,
            adapters_error,
            prev: None,
            buf: Vec::new(),
        })
    }

    pub fn adapters(&self) -> &[DxgiAdapter] {
        &self.adapters
    }

    /// Enumerate DXGI adapters again (after a driver update or a hot-plugged eGPU).
    pub fn refresh_adapters(&mut self) {
        match enumerate_adapters() {
            Ok(a) => {
                self.adapters = a;
                self.adapters_error = None;
            }
            Err(e) => self.adapters_error = Some(e),
        }
    }

    /// Collect once and read every counter's raw array. This is also what a recorder writes out
    /// as a fixture.
    pub fn read_round(&mut self) -> Round {
        let mut round = Round::default();
        // A counter that could not be added says so; the collection error is only for the rest.
        let any_added = self.counters.iter().any(|(_, h, _)| h.is_some());
        let collect_error = if any_added {
            // SAFETY: the query is open for the life of `self`.
            let st = unsafe { PdhCollectQueryData(self.query) };
            (st != 0).then(|| format!("PdhCollectQueryData: {}", pdh_status_name(st)))
        } else {
            None
        };
        let mut missing = Vec::new();
        for ((path, handle, add_error), (slot_path, slot)) in
            self.counters.iter().zip(round.slots_mut())
        {
            debug_assert_eq!(path, &slot_path);
            match (handle, &collect_error) {
                (None, _) => missing.push((
                    path.to_string(),
                    format!("PdhAddEnglishCounterW: {add_error}"),
                )),
                (Some(_), Some(e)) => missing.push((path.to_string(), e.clone())),
                (Some(h), None) => match read_array(*h, &mut self.buf) {
                    Ok(a) => *slot = Some(a),
                    Err(e) => missing.push((path.to_string(), e)),
                },
            }
        }
        round.missing.extend(missing);
        round
    }

    /// One round into `snap`: read the counters, merge with NVML's devices and processes already
    /// there ([`merge_round`]), name the processes the counters list, then add to `snap` and
    /// balance. Runs after NVML (see the crate docs).
    pub fn collect(&mut self, snap: &mut Snapshot) {
        let cur = self.read_round();
        let nvml = nvml_devices(snap);
        let mut view = merge_round(self.prev.as_ref(), &cur, &self.adapters, &nvml);
        if let Some(e) = &self.adapters_error {
            view.notes.push(gpuledger_lang::Said::new(
                "report-wddm-no-dxgi",
                vec![("error", e.to_string().into())],
            ));
        }
        // Before `apply`, so the shared-surface note can name dwm.exe and csrss.exe.
        fill_process_identity(&mut view.processes);
        apply(snap, view);
        self.prev = Some(cur);
    }
}

/// Name, image path and creation time of the processes the counters named, where the snapshot has
/// none yet (another source may already have filled them). Protected processes refuse the handle:
/// their rows keep the pid and say why.
fn fill_process_identity(processes: &mut [Process]) {
    for p in processes.iter_mut().filter(|p| p.name.is_none()) {
        // SAFETY: a query-only handle, closed below.
        let h = match unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, p.pid) } {
            Ok(h) => h,
            Err(e) => {
                p.metadata_unavailable = Some(format!("OpenProcess: {e}").into());
                continue;
            }
        };
        if let Some(path) = super::facts::image_path(h) {
            p.name = Some(image_base_name(&path).to_string());
            p.exe = Some(path);
        }
        let (mut created, mut exited, mut kernel, mut user) = (
            FILETIME::default(),
            FILETIME::default(),
            FILETIME::default(),
            FILETIME::default(),
        );
        // SAFETY: out-pointers to locals.
        if unsafe { GetProcessTimes(h, &mut created, &mut exited, &mut kernel, &mut user) }.is_ok()
        {
            // FILETIME of creation: with the pid it names one process (Windows reuses pids).
            p.start_time =
                Some((u64::from(created.dwHighDateTime) << 32) | u64::from(created.dwLowDateTime));
        }
        // SAFETY: opened above.
        let _ = unsafe { CloseHandle(h) };
    }
}

impl Drop for WddmSource {
    fn drop(&mut self) {
        // SAFETY: opened in `new`, closed once; counters are closed with the query.
        unsafe {
            PdhCloseQuery(self.query);
        }
    }
}

fn read_array(counter: PDH_HCOUNTER, buf: &mut Vec<u64>) -> Result<CounterArray, String> {
    // Instances come and go between the size query and the read; retry a few times.
    for _ in 0..4 {
        let mut size = 0u32;
        let mut count = 0u32;
        // SAFETY: size query with no buffer.
        let st = unsafe { PdhGetRawCounterArrayW(counter, &mut size, &mut count, None) };
        if st == 0 {
            return Ok(CounterArray::default());
        }
        if st != PDH_MORE_DATA {
            return Err(format!("PdhGetRawCounterArrayW: {}", pdh_status_name(st)));
        }
        if size > MAX_ARRAY_BYTES {
            return Err(format!(
                "PdhGetRawCounterArrayW wants {size} bytes; refused"
            ));
        }
        // u64 words keep the item array (which holds pointers) aligned.
        buf.clear();
        buf.resize((size as usize).div_ceil(8), 0);
        let items = buf.as_mut_ptr() as *mut PDH_RAW_COUNTER_ITEM_W;
        // SAFETY: `buf` holds `size` bytes, aligned for the items.
        let st = unsafe { PdhGetRawCounterArrayW(counter, &mut size, &mut count, Some(items)) };
        if st == PDH_MORE_DATA {
            continue;
        }
        if st != 0 {
            return Err(format!("PdhGetRawCounterArrayW: {}", pdh_status_name(st)));
        }
        // SAFETY: PDH wrote `count` items at the front of `buf`; names point into `buf` too.
        let items = unsafe { std::slice::from_raw_parts(items, count as usize) };
        let mut out = CounterArray {
            timestamp_100ns: 0,
            samples: Vec::with_capacity(items.len()),
        };
        for it in items {
            // SAFETY: a NUL-terminated wide string inside `buf`.
            let name = unsafe { it.szName.to_string() }.unwrap_or_default();
            let ts = &it.RawValue.TimeStamp;
            let ts = (u64::from(ts.dwHighDateTime) << 32) | u64::from(ts.dwLowDateTime);
            out.timestamp_100ns = out.timestamp_100ns.max(ts);
            out.samples.push(RawSample {
                instance: name,
                first: it.RawValue.FirstValue,
                second: it.RawValue.SecondValue,
                status: it.RawValue.CStatus,
            });
        }
        return Ok(out);
    }
    Err("PdhGetRawCounterArrayW: instance list kept changing during the read".into())
}

fn enumerate_adapters() -> Result<Vec<DxgiAdapter>, String> {
    // SAFETY: plain COM factory creation.
    let factory: IDXGIFactory1 =
        unsafe { CreateDXGIFactory1() }.map_err(|e| format!("CreateDXGIFactory1: {e}"))?;
    let mut out = Vec::new();
    for i in 0..MAX_ADAPTERS {
        // SAFETY: index enumeration; DXGI_ERROR_NOT_FOUND ends the list.
        let adapter = match unsafe { factory.EnumAdapters1(i) } {
            Ok(a) => a,
            Err(e) if e.code() == DXGI_ERROR_NOT_FOUND => break,
            Err(e) => return Err(format!("EnumAdapters1({i}): {e}")),
        };
        // SAFETY: a live adapter from the factory.
        let d = unsafe { adapter.GetDesc1() }.map_err(|e| format!("GetDesc1({i}): {e}"))?;
        let len = d
            .Description
            .iter()
            .position(|&c| c == 0)
            .unwrap_or(d.Description.len());
        out.push(DxgiAdapter {
            description: String::from_utf16_lossy(&d.Description[..len]),
            vendor_id: d.VendorId,
            device_id: d.DeviceId,
            subsys_id: d.SubSysId,
            revision: d.Revision,
            dedicated_video_memory: d.DedicatedVideoMemory as u64,
            dedicated_system_memory: d.DedicatedSystemMemory as u64,
            shared_system_memory: d.SharedSystemMemory as u64,
            luid: Luid {
                high: d.AdapterLuid.HighPart as u32,
                low: d.AdapterLuid.LowPart,
            },
            flags: d.Flags,
            pci: pci_address(d.AdapterLuid),
        });
    }
    Ok(out)
}

/// The adapter's PCI bus/device/function, to pair it with NVML's device.
fn pci_address(luid: LUID) -> Option<PciAddress> {
    let mut open = D3DKMT_OPENADAPTERFROMLUID {
        AdapterLuid: luid,
        hAdapter: 0,
    };
    // SAFETY: in/out struct on the stack.
    if unsafe { D3DKMTOpenAdapterFromLuid(&mut open) }.is_err() {
        return None;
    }
    let mut addr = D3DKMT_ADAPTERADDRESS::default();
    let mut q = D3DKMT_QUERYADAPTERINFO {
        hAdapter: open.hAdapter,
        Type: KMTQAITYPE_ADAPTERADDRESS,
        pPrivateDriverData: &mut addr as *mut D3DKMT_ADAPTERADDRESS as *mut core::ffi::c_void,
        PrivateDriverDataSize: std::mem::size_of::<D3DKMT_ADAPTERADDRESS>() as u32,
    };
    // SAFETY: the private data pointer and size describe `addr`.
    let st = unsafe { D3DKMTQueryAdapterInfo(&mut q) };
    let close = D3DKMT_CLOSEADAPTER {
        hAdapter: open.hAdapter,
    };
    // SAFETY: closes the handle opened above.
    let _ = unsafe { D3DKMTCloseAdapter(&close) };
    st.is_ok().then_some(PciAddress {
        bus: addr.BusNumber,
        device: addr.DeviceNumber,
        function: addr.FunctionNumber,
    })
}

/// The real seam on whatever Windows runs the tests: on a machine with GPU counters it reads them;
/// under wine (no GPU counters, no DXGI adapters) every missing piece must come back as a named
/// reason, never a crash or a silent zero.
#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::{Host, SourceState};

    #[test]
    fn live_round_reads_or_names_what_is_missing() {
        let mut src = WddmSource::new().expect("PdhOpenQueryW works on any Windows (and wine)");
        let round = src.read_round();
        let mut copy = round.clone();
        let read: Vec<(&'static str, bool)> = copy
            .slots_mut()
            .into_iter()
            .map(|(p, slot)| (p, slot.is_some()))
            .collect();
        for (path, read) in read {
            let why = round.missing.get(path);
            assert!(read != why.is_some(), "{path}: read={read} missing={why:?}");
            if let Some(why) = why {
                assert!(why.contains("Pdh"), "{path}: {why}");
            }
        }
        let mut snap = Snapshot::new("t".into(), Host::default());
        src.collect(&mut snap);
        src.collect(&mut snap);
        let st = snap.sources.iter().find(|s| s.name == "wddm").unwrap();
        // Shown with --nocapture: what this Windows (or wine) let the source see.
        eprintln!("wddm status: {:?}: {}", st.status, st.detail);
        eprintln!("notes: {:?}", snap.notes);
        match st.status {
            SourceState::Ok => assert!(st.detail.contains("adapter")),
            _ => assert!(st.detail.contains("PDH"), "{}", st.detail),
        }
        if src.adapters().is_empty() {
            assert!(snap
                .notes
                .iter()
                .any(|n| n.contains("DXGI adapter list unavailable")));
        }
    }
}
