//! The probe against the fake CUDA driver: the real loading, sequencing, arithmetic and
//! clean-up code runs; only the driver is simulated.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, SystemTime};

use common::*;
use gpuledger_cuda::report::Method;
use gpuledger_cuda::store;
use gpuledger_cuda::{run, DeviceRef, NvmlView, ProbeError, ProbeOptions, ProbeReport};
use gpuledger_lang::Lang;
use gpuledger_views::cost_report::render_table;

struct FakeNvml<'f> {
    fake: &'f Fake,
    /// Set `cancel` on this call (1-based), simulating Ctrl-C mid-sequence.
    cancel_at: Option<(u32, &'f AtomicBool)>,
    calls: AtomicU32,
}

impl<'f> FakeNvml<'f> {
    fn new(fake: &'f Fake) -> Self {
        FakeNvml {
            fake,
            cancel_at: None,
            calls: AtomicU32::new(0),
        }
    }
}

impl NvmlView for FakeNvml<'_> {
    fn used(&self, device: &DeviceRef) -> Option<u64> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        if let Some((at, flag)) = self.cancel_at {
            if n == at {
                flag.store(true, Ordering::SeqCst);
            }
        }
        self.fake.nvml_used(device.ordinal)
    }
    fn driver_version(&self) -> Option<String> {
        Some("555.85".into())
    }
}

fn opts<'a>(fake: &Fake, sizes: &[u64], cancel: &'a AtomicBool) -> ProbeOptions<'a> {
    let mut o = ProbeOptions::new(sizes.to_vec(), cancel);
    o.cuda_lib = Some(fake.lib_path.clone());
    o.meminfo = Some(fake.meminfo.clone());
    o.settle = Duration::from_millis(1);
    o
}

fn run_with_nvml(fake: &Fake, sizes: &[u64]) -> Result<ProbeReport, ProbeError> {
    let cancel = AtomicBool::new(false);
    let nvml = FakeNvml::new(fake);
    let mut o = opts(fake, sizes, &cancel);
    o.nvml = Some(&nvml);
    run(&o)
}

/// Charge the fake makes for `bytes` at `ratio` with 2 MiB granularity (the scenario's rule).
fn charged(bytes: u64, ratio: f64) -> u64 {
    let raw = (bytes as f64 * ratio).ceil() as u64;
    raw.div_ceil(2 * MIB) * 2 * MIB
}

#[test]
fn wddm_like_pinned_memory_costs_vram() {
    let fake = Fake::new(&wddm_scenario());
    let odd = 3 * MIB + 1;
    let r = run_with_nvml(&fake, &[64 * MIB, odd]).unwrap();

    assert_eq!(r.device.name, "NVIDIA GeForce RTX 4090");
    assert_eq!(
        r.device.uuid.as_deref(),
        Some("GPU-00112233-4455-6677-8899-aabbccddeeff")
    );
    assert_eq!(r.device.total_bytes, 24 * GIB);
    assert_eq!(r.cuda_driver_version.as_deref(), Some("12.4"));
    assert_eq!(r.driver_version.as_deref(), Some("555.85"));
    assert_eq!(r.context.first_by_nvml, Some(300 * MIB as i64));
    assert_eq!(r.context.second_by_driver, 300 * MIB as i64);
    assert_eq!(r.context.second_by_nvml, Some(300 * MIB as i64));
    assert_eq!(r.rows.len(), 8);

    for (m, ratio) in [
        (Method::DeviceAlloc, 1.0),
        (Method::HostAlloc, 1.0),
        (Method::HostAllocDevicemap, 1.0),
        (Method::HostRegister, 0.5),
    ] {
        for size in [64 * MIB, odd] {
            let row = r.row(m, size).unwrap();
            let want = charged(size, ratio) as i64;
            assert_eq!(row.vram_delta_driver, want, "{m:?} {size}");
            assert_eq!(row.vram_delta_nvml, Some(want), "{m:?} {size}");
            assert_eq!(row.ratio_driver, want as f64 / size as f64);
            // Release shows only on the second read (release_lag 1).
            assert!(row.release.released);
            assert_eq!(row.release.reads, 2, "{m:?} {size}");
        }
    }
    // The granularity shows in the ratio: 3 MiB + 1 byte is charged 4 MiB.
    assert_eq!(
        r.row(Method::HostAlloc, odd).unwrap().vram_delta_driver,
        4 * MIB as i64
    );

    let l = fake.ledger();
    l.assert_clean();
    assert_eq!(l.contexts_created, 2);
    assert_eq!(l.device_allocs, 2);
    assert_eq!(l.host_allocs, 4);
    assert_eq!(l.registrations, 2);
    assert_eq!(fake.nvml_used(0), Some(GIB), "all charges returned");

    let t = render_table(&r, Lang::En);
    assert!(t.contains("cuMemHostAlloc (pinned)"), "{t}");
    assert!(t.contains("300 MiB by NVML (first context)"), "{t}");
    assert!(t.contains("yes, read 2"), "{t}");
}

#[test]
fn linux_like_pinned_memory_is_free() {
    let fake = Fake::new(&linux_scenario());
    let r = run_with_nvml(&fake, &[256 * MIB]).unwrap();
    assert_eq!(r.context.first_by_nvml, Some(500 * MIB as i64));
    let dev = r.row(Method::DeviceAlloc, 256 * MIB).unwrap();
    assert_eq!(dev.vram_delta_driver, 256 * MIB as i64);
    assert_eq!(dev.ratio_driver, 1.0);
    for m in [
        Method::HostAlloc,
        Method::HostAllocDevicemap,
        Method::HostRegister,
    ] {
        let row = r.row(m, 256 * MIB).unwrap();
        assert_eq!(row.vram_delta_driver, 0, "{m:?}");
        assert_eq!(row.ratio_driver, 0.0);
        assert_eq!(row.ratio_nvml, Some(0.0));
        assert_eq!(row.release.reads, 1, "nothing to wait for");
    }
    fake.ledger().assert_clean();
}

#[test]
fn without_nvml_the_nvml_figures_are_unknown_not_zero() {
    let fake = Fake::new(&wddm_scenario());
    let cancel = AtomicBool::new(false);
    let r = run(&opts(&fake, &[8 * MIB], &cancel)).unwrap();
    assert_eq!(r.context.first_by_nvml, None);
    assert_eq!(r.context.second_by_driver, 300 * MIB as i64);
    assert!(r.rows.iter().all(|row| row.vram_delta_nvml.is_none()));
    assert!(r.rows.iter().all(|row| row.ratio_nvml.is_none()));
    assert_eq!(r.driver_version, None);
    // The note's English as before it had a key (the JSON carries it); the table in Chinese.
    assert_eq!(
        r.notes[0],
        "no NVML view of this device: the NVML columns and the first context's cost are unknown"
    );
    let t = render_table(&r, Lang::En);
    assert!(t.contains("n/a by NVML (first context)"), "{t}");
    let zh = render_table(&r, Lang::ZhCn);
    assert!(
        zh.contains("看不到这个设备的 NVML 数据：NVML 各列和第一个上下文的开销未知"),
        "{zh}"
    );
}

#[test]
fn out_of_memory_is_reported_and_cleaned_up() {
    let fake = Fake::new(&(wddm_scenario() + "fail|cuMemHostAlloc|2|1\n"));
    let e = run_with_nvml(&fake, &[64 * MIB]).unwrap_err();
    assert!(matches!(e, ProbeError::OutOfMemory { .. }), "{e:?}");
    let m = e.to_string();
    assert!(
        m.contains("out of memory: cuMemHostAlloc of 64 MiB failed"),
        "{m}"
    );
    assert!(m.contains("CUDA_ERROR_OUT_OF_MEMORY"), "{m}");
    assert!(m.contains("smaller --sizes"), "{m}");
    let l = fake.ledger();
    l.assert_clean();
    assert_eq!(l.device_allocs, 1, "the control ran before the failure");
    assert_eq!(fake.nvml_used(0), Some(GIB));
}

#[test]
fn context_creation_failure_is_explained() {
    let fake = Fake::new(&(wddm_scenario() + "fail|cuCtxCreate_v2|46|1\n"));
    let e = run_with_nvml(&fake, &[64 * MIB]).unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains("could not create a CUDA context on device 0 (NVIDIA GeForce RTX 4090)"),
        "{m}"
    );
    assert!(m.contains("CUDA_ERROR_DEVICE_UNAVAILABLE (46)"), "{m}");
    assert!(m.contains("exclusive mode"), "{m}");
    let l = fake.ledger();
    assert_eq!(l.contexts_created, 0);
    l.assert_clean();
}

#[test]
fn failure_mid_sequence_releases_everything() {
    // The second size's registration fails after six allocations have come and gone.
    let fake = Fake::new(&(wddm_scenario() + "fail|cuMemHostRegister_v2|999|2\n"));
    let e = run_with_nvml(&fake, &[16 * MIB, 32 * MIB]).unwrap_err();
    let m = e.to_string();
    assert!(m.contains("cuMemHostRegister of 32 MiB"), "{m}");
    assert!(m.contains("CUDA_ERROR_UNKNOWN"), "{m}");
    let l = fake.ledger();
    l.assert_clean();
    assert_eq!(l.contexts_created, 2);
    assert_eq!(l.contexts_destroyed, 2);
    assert_eq!(l.host_allocs, 4);
    assert_eq!(l.registrations, 1);

    // The second context failing: the first must still be destroyed.
    let fake = Fake::new(&(wddm_scenario() + "fail|cuCtxCreate_v2|2|2\n"));
    let e = run_with_nvml(&fake, &[16 * MIB]).unwrap_err();
    assert!(e.to_string().contains("second context"), "{e}");
    let l = fake.ledger();
    l.assert_clean();
    assert_eq!(l.contexts_created, 1);
    assert_eq!(fake.nvml_used(0), Some(GIB));
}

#[test]
fn interruption_unwinds_through_the_guards() {
    let fake = Fake::new(&wddm_scenario());
    let cancel = AtomicBool::new(false);
    // NVML reads: 1 before the context, 2 after it, 3-6 around the second context (two
    // settle reads: release lag), 7 before the allocations, 8-11 the control, 12-13 before
    // and after cuMemHostAlloc: the flag goes up with the pinned memory held.
    let nvml = FakeNvml {
        cancel_at: Some((13, &cancel)),
        ..FakeNvml::new(&fake)
    };
    let mut o = opts(&fake, &[64 * MIB], &cancel);
    o.nvml = Some(&nvml);
    let e = run(&o).unwrap_err();
    assert!(matches!(e, ProbeError::Interrupted), "{e:?}");
    assert!(e.to_string().contains("released"));
    let l = fake.ledger();
    l.assert_clean();
    assert_eq!(l.device_allocs, 1);
    assert_eq!(l.host_allocs, 1, "interrupted while holding pinned memory");
    assert_eq!(fake.nvml_used(0), Some(GIB));
}

#[test]
fn sizes_that_do_not_fit_are_refused() {
    // Host: 100 MiB available, so at most 50 MiB may be pinned.
    let fake = Fake::with_meminfo(&wddm_scenario(), 100 * MIB);
    let e = run_with_nvml(&fake, &[16 * MIB, 64 * MIB]).unwrap_err();
    let m = e.to_string();
    assert!(m.contains("refusing to pin 64 MiB"), "{m}");
    assert!(
        m.contains("only 100 MiB of host memory is available"),
        "{m}"
    );
    assert!(m.contains(&fake.meminfo.display().to_string()), "{m}");
    assert!(fake.log().is_empty(), "the driver was not even initialised");

    // VRAM: 1 GiB card with 512 MiB used and a 100 MiB context leaves 412 MiB free, 90% of
    // which is below 400 MiB.
    let sc = format!(
        "device|Small GPU|{}|{}\ncontext_cost|{}\ncharge|device|1.0\n",
        GIB,
        512 * MIB,
        100 * MIB
    );
    let fake = Fake::new(&sc);
    let e = run_with_nvml(&fake, &[400 * MIB]).unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains("refusing to allocate 400 MiB: device 0 has only 412 MiB of VRAM free"),
        "{m}"
    );
    let l = fake.ledger();
    l.assert_clean();
    assert_eq!(l.device_allocs, 0);
}

#[test]
fn bad_input_is_named() {
    let fake = Fake::new(&wddm_scenario());
    let cancel = AtomicBool::new(false);
    let mut o = opts(&fake, &[MIB], &cancel);
    o.device = 3;
    let m = run(&o).unwrap_err().to_string();
    assert!(m.contains("no CUDA device 3: the driver reports 1"), "{m}");
    let o = opts(&fake, &[], &cancel);
    assert!(matches!(run(&o), Err(ProbeError::NoSizes)));
    let o = opts(&fake, &[0], &cancel);
    assert!(matches!(run(&o), Err(ProbeError::ZeroSize)));
}

#[test]
fn saved_result_round_trips_and_ages() {
    let fake = Fake::new(&wddm_scenario());
    let r = run_with_nvml(&fake, &[8 * MIB, 16 * MIB]).unwrap();
    let path = fake.dir.path().join("data/gpuledger/probe.json");
    store::save(&r, &path).unwrap();
    let back = store::load(&path).unwrap();
    assert_eq!(back, r);

    let at = humantime::parse_rfc3339(&r.measured_at).unwrap();
    match store::status(&path, at + Duration::from_secs(3 * 86_400 + 7)) {
        store::ProbeStatus::Present { age, report, .. } => {
            assert_eq!(age.as_secs(), 3 * 86_400 + 7);
            assert_eq!(report.device.name, "NVIDIA GeForce RTX 4090");
        }
        other => panic!("{other:?}"),
    }
    let s = store::status(&path, at + Duration::from_secs(2 * 3600)).summary();
    assert!(s.contains("2 hours old"), "{s}");

    let o = store::measured_overhead(&back);
    assert_eq!(o.context_bytes, Some(300 * MIB));
    assert_eq!(o.pinned_ratio, Some(1.0));
    assert_eq!(o.date, &r.measured_at[..10]);
    // The date is today's (UTC).
    let today = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    assert_eq!(&r.measured_at[..10], &today[..10]);
}
