//! The WDDM merge on the recorded rounds under `fixtures/windows/` (see its README for the format's
//! sources). Scenario: an RTX 4090 (LUID 0xC85A, PCI 01:00.0), an Intel UHD 770 (0xD3EC) and the
//! Basic Render Driver (0xF152, software); dwm.exe 1116, csrss.exe 1024, llama-server.exe 12220
//! (CUDA), chrome.exe 4242 on both adapters, 7777 idle, 31337 new in round 2. Rounds are 1 s apart.

use super::accumulate::engine_rate;
use super::counters::{paths, CounterArray, RawSample};
use super::merge::{FIRST_ROUND, LABEL_BOTH, LABEL_DEDICATED, LABEL_LOCAL};
use super::*;
use gpuledger_model::{Device, Host, Process, Snapshot, Usage, UsageKind, Vendor};
use std::path::PathBuf;

use gpuledger_model::test_support::{self, GIB, MIB};
const NV: &str = "wddm-luid-0x00000000_0x0000C85A";
const IN: &str = "wddm-luid-0x00000000_0x0000D3EC";

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/windows")
        .join(name)
}

fn rounds() -> (Round, Round, Vec<DxgiAdapter>) {
    (
        load_round(&fixture("round1.json")).unwrap(),
        load_round(&fixture("round2.json")).unwrap(),
        load_adapters(&fixture("adapters.json")).unwrap(),
    )
}

fn usage<'a>(v: &'a WddmView, pid: u32, dev: &str) -> &'a Usage {
    v.processes
        .iter()
        .find(|p| p.pid == pid)
        .unwrap_or_else(|| panic!("pid {pid} missing"))
        .usage
        .iter()
        .find(|u| u.device == dev)
        .unwrap_or_else(|| panic!("pid {pid} has no usage on {dev}"))
}

#[test]
fn second_round_gives_memory_engines_and_busiest_engine() {
    let (r1, r2, adapters) = rounds();
    let v = merge_round(Some(&r1), &r2, &adapters, &[]);
    assert_eq!(v.memory_mode, MemoryMode::Local);

    // Two hardware adapters; the software one is left out.
    assert_eq!(v.devices.len(), 2);
    let nv = &v.devices[0];
    assert_eq!(nv.uuid, NV);
    assert_eq!(nv.vendor, Vendor::Nvidia);
    assert_eq!(nv.name.as_deref(), Some("NVIDIA GeForce RTX 4090"));
    assert_eq!(nv.pci_bus_id.as_deref(), Some("00000000:01:00.0"));
    assert_eq!(nv.memory.total_bytes, Some(25_757_220_864));
    assert_eq!(nv.memory.used_bytes, Some(7 * GIB));
    assert_eq!(nv.memory.free_bytes, Some(25_757_220_864 - 7 * GIB));
    let sys = nv.system_memory.unwrap();
    assert_eq!(sys.used_bytes, Some(380 * MIB));
    assert_eq!(sys.total_bytes, Some(17_095_983_104));
    // Task Manager's headline: the busiest engine (Compute_0 at 80 %), not the sum.
    assert_eq!(nv.utilization.gpu_percent, Some(80));
    assert_eq!(nv.busiest_engine.as_deref(), Some("Compute_0"));
    assert!(nv.unavailable.contains_key("temperature_c"));

    let igpu = &v.devices[1];
    assert_eq!(igpu.uuid, IN);
    assert_eq!(igpu.vendor, Vendor::Intel);
    assert_eq!(igpu.memory.used_bytes, Some(0));
    assert_eq!(igpu.utilization.gpu_percent, Some(30));
    assert_eq!(igpu.busiest_engine.as_deref(), Some("3D"));

    // llama-server: resident local + non-local, compute engine at 80 %, copy at 10 %.
    let llama = usage(&v, 12220, NV);
    assert_eq!(llama.memory_source, LABEL_LOCAL);
    assert_eq!(llama.memory_bytes, Some(6 * GIB));
    assert_eq!(llama.system_memory_bytes, Some(256 * MIB));
    assert_eq!(llama.engines.sm_percent, Some(80));
    assert_eq!(llama.engines_by_type.get("Compute_0"), Some(&80));
    assert_eq!(llama.engines_by_type.get("Copy"), Some(&10));
    assert_eq!(llama.engines_by_type.get("3D"), Some(&0));
    assert_eq!(llama.kinds, vec![UsageKind::Compute]);
    assert_eq!(llama.engines.unavailable_reason, None);

    // chrome on both adapters: video decode on the dGPU, 3D on the iGPU.
    let c_nv = usage(&v, 4242, NV);
    assert_eq!(c_nv.engines.decoder_percent, Some(25));
    assert_eq!(c_nv.engines.sm_percent, Some(5));
    assert_eq!(c_nv.kinds, vec![UsageKind::Graphics]);
    let c_in = usage(&v, 4242, IN);
    assert_eq!(c_in.memory_bytes, Some(0));
    assert_eq!(c_in.system_memory_bytes, Some(700 * MIB));
    assert_eq!(c_in.engines.sm_percent, Some(30));

    // New since round 1: memory yes, engine rate not yet, and it says why.
    let new = usage(&v, 31337, NV);
    assert_eq!(new.memory_bytes, Some(64 * MIB));
    assert_eq!(new.engines.sm_percent, None);
    assert!(new
        .engines
        .unavailable_reason
        .as_deref()
        .unwrap()
        .contains("new since the last round"));

    // Idle D3D processes hold nothing and ran nothing: no rows.
    assert!(v.processes.iter().all(|p| p.pid != 7777));
    // The Basic Render Driver's entries are left out, with a note.
    assert!(v.notes.iter().any(|n| n.contains("Basic Render Driver")));
    // Said in the reader's language where it is shown (the JSON keeps the English).
    let cn: Vec<String> = v
        .notes
        .iter()
        .map(|n| n.in_lang(gpuledger_lang::Lang::ZhCn))
        .collect();
    assert!(
        cn.iter()
            .any(|n| n.contains("Microsoft Basic Render Driver（软件适配器）上的")),
        "{cn:?}"
    );
    assert_eq!(
        v.processes.iter().map(|p| p.pid).collect::<Vec<_>>(),
        vec![1024, 1116, 4242, 12220, 31337]
    );
}

#[test]
fn first_round_has_no_rates_and_says_so() {
    let (r1, _, adapters) = rounds();
    let v = merge_round(None, &r1, &adapters, &[]);
    let llama = usage(&v, 12220, NV);
    assert_eq!(llama.memory_bytes, Some(6 * GIB), "memory needs one round");
    assert_eq!(llama.engines.sm_percent, None);
    assert!(llama.engines_by_type.is_empty());
    assert_eq!(
        llama.engines.unavailable_reason.as_deref(),
        Some(FIRST_ROUND)
    );
    assert_eq!(v.devices[0].utilization.gpu_percent, None);
    assert_eq!(
        v.devices[0]
            .unavailable
            .get("utilization.gpu_percent")
            .map(String::as_str),
        Some(FIRST_ROUND)
    );
    assert!(
        v.status.detail.contains("engine rates from the next round"),
        "{}",
        v.status.detail
    );
    // Kinds come from cumulative running time, so they are known at once.
    assert_eq!(llama.kinds, vec![UsageKind::Compute]);
}

#[test]
fn falls_back_to_dedicated_and_shared_when_local_is_missing() {
    let (r1, mut r2, adapters) = rounds();
    r2.process_local = None;
    r2.process_non_local = None;
    r2.missing.insert(
        paths::PROCESS_LOCAL.into(),
        "PDH_CSTATUS_NO_COUNTER (0xC0000BB9)".into(),
    );
    let v = merge_round(Some(&r1), &r2, &adapters, &[]);
    assert_eq!(v.memory_mode, MemoryMode::Dedicated);
    let llama = usage(&v, 12220, NV);
    assert_eq!(llama.memory_source, LABEL_DEDICATED);
    assert_eq!(llama.memory_bytes, Some(6 * GIB + 32 * MIB));
    assert_eq!(llama.system_memory_bytes, Some(256 * MIB));
    // The adapter figure comes from the same family as the process figures.
    assert_eq!(v.devices[0].memory.used_bytes, Some(7 * GIB + 256 * MIB));
    assert!(v
        .notes
        .iter()
        .any(|n| n.contains("Dedicated/Shared") && n.contains("0xC0000BB9")));
}

#[test]
fn no_memory_counters_leaves_memory_unknown_with_the_reason() {
    let (r1, mut r2, adapters) = rounds();
    for (path, slot) in r2.slots_mut() {
        if path.starts_with(r"\GPU Process Memory") {
            *slot = None;
        }
    }
    r2.missing
        .insert(paths::PROCESS_LOCAL.into(), "access denied".into());
    let v = merge_round(Some(&r1), &r2, &adapters, &[]);
    assert_eq!(v.memory_mode, MemoryMode::Unavailable);
    let llama = usage(&v, 12220, NV);
    assert_eq!(llama.memory_bytes, None);
    assert_eq!(llama.unavailable_reason.as_deref(), Some("access denied"));
    assert_eq!(llama.engines.sm_percent, Some(80));
}

#[test]
fn nothing_readable_is_an_unavailable_source() {
    let mut r = Round::default();
    r.missing.insert(
        paths::ENGINE_RUNNING_TIME.into(),
        "PDH_CSTATUS_NO_OBJECT".into(),
    );
    let v = merge_round(None, &r, &[], &[]);
    assert_eq!(v.status.status, gpuledger_model::SourceState::Unavailable);
    assert!(v.status.detail.contains("PDH_CSTATUS_NO_OBJECT"));
    assert!(v.devices.is_empty() && v.processes.is_empty());
}

fn nvml_device() -> Device {
    let mut d = test_support::device(
        0,
        "GPU-5f0c",
        Some(25_757_220_864),
        Some(7 * GIB + 512 * MIB),
    );
    d.name = Some("NVIDIA GeForce RTX 4090".into());
    d.pci_bus_id = Some("00000000:01:00.0".into());
    d.utilization.gpu_percent = Some(55);
    d.temperature_c = Some(61);
    d
}

fn nvml_snapshot() -> Snapshot {
    let mut s = Snapshot::new("2026-11-29T09:00:00Z".into(), Host::default());
    s.devices.push(nvml_device());
    // NVML under WDDM: the process is listed, its memory is N/A.
    let mut llama = Process::new(12220);
    llama.name = Some("llama-server.exe".into());
    let mut u = Usage::new("GPU-5f0c", "nvml");
    u.unavailable_reason =
        Some("NVML reports per-process memory as not available under WDDM".into());
    u.kinds = vec![UsageKind::Compute];
    llama.usage.push(u);
    s.processes.push(llama);
    // A process NVML does measure, for less than WDDM's resident figure... and one for more.
    let mut chrome = test_support::process(4242, "GPU-5f0c", Some(280 * MIB));
    chrome.name = Some("chrome.exe".into());
    s.processes.push(chrome);
    let mut dwm = Process::new(1116);
    dwm.name = Some("dwm.exe".into());
    let mut u = Usage::new("GPU-5f0c", "nvml");
    u.memory_bytes = Some(600 * MIB);
    u.kinds = vec![UsageKind::Graphics];
    dwm.usage.push(u);
    s.processes.push(dwm);
    s
}

#[test]
fn nvml_merge_keeps_both_and_shows_the_larger() {
    let (r1, r2, adapters) = rounds();
    let mut snap = nvml_snapshot();
    let v = merge_round(Some(&r1), &r2, &adapters, &snap.devices);
    // The 4090 is NVML's device (by PCI address); the iGPU gets the next index.
    assert_eq!(v.devices[0].uuid, "GPU-5f0c");
    assert_eq!(v.devices[1].index, 1);
    apply(&mut snap, v);

    assert_eq!(snap.devices.len(), 2, "no duplicate of the NVML device");
    let d = &snap.devices[0];
    assert_eq!(d.source, "nvml");
    assert_eq!(
        d.memory.used_bytes,
        Some(7 * GIB + 512 * MIB),
        "NVML's device figure stays"
    );
    assert_eq!(d.utilization.gpu_percent, Some(55));
    assert_eq!(d.temperature_c, Some(61));
    assert_eq!(
        d.system_memory.unwrap().used_bytes,
        Some(380 * MIB),
        "WDDM fills the gap"
    );

    let find = |pid: u32| {
        snap.processes
            .iter()
            .find(|p| p.pid == pid)
            .unwrap()
            .usage
            .iter()
            .find(|u| u.device == "GPU-5f0c")
            .unwrap()
            .clone()
    };
    // NVML N/A, WDDM measured: WDDM's figure with its own label.
    let llama = find(12220);
    assert_eq!(llama.memory_bytes, Some(6 * GIB));
    assert_eq!(llama.memory_source, LABEL_LOCAL);
    assert_eq!(llama.unavailable_reason, None);
    assert_eq!(llama.engines_by_type.get("Compute_0"), Some(&80));
    // Both measured: the larger shown, both kept.
    let chrome = find(4242);
    assert_eq!(chrome.memory_bytes, Some(300 * MIB));
    assert_eq!(chrome.memory_source, LABEL_BOTH);
    assert_eq!(chrome.memory_by_source.get("nvml"), Some(&(280 * MIB)));
    assert_eq!(chrome.memory_by_source.get(LABEL_LOCAL), Some(&(300 * MIB)));
    let dwm = find(1116);
    assert_eq!(
        dwm.memory_bytes,
        Some(600 * MIB),
        "NVML's larger figure wins"
    );
    assert_eq!(dwm.memory_source, LABEL_BOTH);
    assert_eq!(dwm.memory_by_source.get(LABEL_LOCAL), Some(&(512 * MIB)));
    // The chrome usage on the iGPU is a new row under the WDDM device.
    let chrome_p = snap.processes.iter().find(|p| p.pid == 4242).unwrap();
    assert!(chrome_p.usage.iter().any(|u| u.device == IN));
    assert!(snap.sources.iter().any(|s| s.name == "wddm"));

    // Books: 128 + 600 + 300 + 6144 + 64 MiB attributed of 7.5 GiB used.
    let l = snap.devices[0].ledger;
    assert_eq!(l.attributed_bytes, (128 + 600 + 300 + 6144 + 64) * MIB);
    assert_eq!(
        l.unattributed_bytes,
        Some(7 * GIB + 512 * MIB - l.attributed_bytes)
    );
    assert!(!l.over_attributed);
}

#[test]
fn shared_surfaces_are_flagged_and_carriers_named() {
    let (r1, mut r2, adapters) = rounds();
    // The adapter holds less than the processes claim: the desktop's surfaces are counted in
    // dwm.exe, csrss.exe and the app alike.
    let arr = r2.adapter_local.as_mut().unwrap();
    arr.samples[0].first = (5 * GIB) as i64;
    let mut snap = Snapshot::new("t".into(), Host::default());
    // dwm.exe named by another source already; csrss.exe named by the WDDM seam (in the view).
    let mut dwm = Process::new(1116);
    dwm.name = Some("dwm.exe".into());
    snap.processes.push(dwm);
    let mut v = merge_round(Some(&r1), &r2, &adapters, &[]);
    let csrss = v.processes.iter_mut().find(|p| p.pid == 1024).unwrap();
    csrss.name = Some("csrss.exe".into());
    csrss.start_time = Some(133_771_000_000_000_000);
    apply(&mut snap, v);
    let csrss = snap.processes.iter().find(|p| p.pid == 1024).unwrap();
    assert_eq!(csrss.start_time, Some(133_771_000_000_000_000));
    let d = snap.devices.iter().find(|d| d.uuid == NV).unwrap();
    assert!(d.ledger.over_attributed);
    let over = (128 + 512 + 300 + 6144 + 64) * MIB - 5 * GIB;
    assert_eq!(d.ledger.over_attributed_bytes, Some(over));
    let note = snap
        .notes
        .iter()
        .find(|n| n.contains("shared surfaces"))
        .expect("a shared-surface note");
    assert!(
        note.contains("dwm.exe (pid 1116)") && note.contains("csrss.exe (pid 1024)"),
        "{note}"
    );
    assert!(
        note.contains(&gpuledger_model::units::human_bytes(over)),
        "{note}"
    );
    // Bars normalise to the sum: llama's 6 GiB is 6144/7148 of the bar, not more than all of it.
    let bar = gpuledger_model::bar_fraction(6 * GIB, d).unwrap();
    assert!((bar - 6144.0 / 7148.0).abs() < 1e-9, "{bar}");
    // The iGPU balances normally: no note for it.
    assert_eq!(
        snap.notes
            .iter()
            .filter(|n| n.contains("shared surfaces"))
            .count(),
        1
    );
}

#[test]
fn adapter_without_pci_address_pairs_by_elimination_only_when_unambiguous() {
    let (r1, r2, mut adapters) = rounds();
    adapters[0].pci = None;
    let nv = vec![nvml_device()];
    let v = merge_round(Some(&r1), &r2, &adapters, &nv);
    assert_eq!(v.devices[0].uuid, "GPU-5f0c");
    assert!(v.notes.iter().any(|n| n.contains("by elimination")));
    // Two NVML devices: no guessing.
    let mut second = nvml_device();
    second.uuid = "GPU-other".into();
    second.index = 1;
    second.pci_bus_id = Some("00000000:02:00.0".into());
    let v = merge_round(Some(&r1), &r2, &adapters, &[nvml_device(), second]);
    assert_eq!(v.devices[0].uuid, NV);
    assert_eq!(v.devices[0].index, 2, "after NVML's indices");
}

#[test]
fn adapter_missing_from_dxgi_still_shows() {
    let (r1, r2, adapters) = rounds();
    let v = merge_round(Some(&r1), &r2, &adapters[1..], &[]);
    let d = v.devices.iter().find(|d| d.uuid == NV).unwrap();
    assert_eq!(d.name, None);
    assert_eq!(d.memory.total_bytes, None);
    assert_eq!(d.memory.used_bytes, Some(7 * GIB));
    assert!(v.notes.iter().any(|n| n.contains("not in DXGI")));
}

fn sample(name: &str, first: i64) -> RawSample {
    RawSample {
        instance: name.into(),
        first,
        second: 0,
        status: 0,
    }
}

#[test]
fn bad_names_and_bad_status_are_reported_not_guessed() {
    let (r1, mut r2, adapters) = rounds();
    r2.engine_running_time
        .as_mut()
        .unwrap()
        .samples
        .push(sample("_Total", 5));
    let local = r2.process_local.as_mut().unwrap();
    let i = local
        .samples
        .iter()
        .position(|s| s.instance.starts_with("pid_12220_"))
        .unwrap();
    local.samples[i].status = 0xC000_0BBA; // PDH_CSTATUS_INVALID_DATA
    let v = merge_round(Some(&r1), &r2, &adapters, &[]);
    assert!(v.notes.iter().any(
        |n| n.contains(paths::ENGINE_RUNNING_TIME) && n.contains("1 instance name(s) skipped")
    ));
    let llama = usage(&v, 12220, NV);
    assert_eq!(llama.memory_bytes, None);
    assert!(llama
        .unavailable_reason
        .as_deref()
        .unwrap()
        .contains("status not valid"));
}

#[test]
fn engine_rates() {
    let s = |first, second| RawSample {
        instance: "x".into(),
        first,
        second,
        status: 0,
    };
    // 2.5 ms of 10 ms: 25 %.
    assert_eq!(engine_rate(&s(100, 0), &s(25_100, 0), 100_000), Some(25.0));
    // A timer counter's own time base wins over the collection timestamps.
    assert_eq!(
        engine_rate(&s(0, 1_000), &s(500, 2_000), 100_000),
        Some(50.0)
    );
    // Counter went backwards (instance reused): no rate.
    assert_eq!(engine_rate(&s(500, 0), &s(100, 0), 100), None);
    // No time passed: no rate.
    assert_eq!(engine_rate(&s(0, 0), &s(10, 0), 0), None);
    // More busy time than wall time (clock skew): clamped.
    assert_eq!(engine_rate(&s(0, 0), &s(300, 0), 100), Some(100.0));
    let mut bad = s(0, 0);
    bad.status = 0xC000_0BBA;
    assert_eq!(engine_rate(&bad, &s(10, 0), 100), None);
}

#[test]
fn engine_sum_across_processes_is_capped_per_engine() {
    let eng = |pid, v| {
        sample(
            &format!("pid_{pid}_luid_0x0_0x1_phys_0_eng_0_engtype_3D"),
            v,
        )
    };
    let r = |ts, a, b| Round {
        engine_running_time: Some(CounterArray {
            timestamp_100ns: ts,
            samples: vec![eng(1, a), eng(2, b)],
        }),
        ..Round::default()
    };
    // 60 % + 70 % of the same engine: the engine is busy 100 %, not 130 %.
    let v = merge_round(Some(&r(0, 0, 0)), &r(1000, 600, 700), &[], &[]);
    assert_eq!(v.devices.len(), 1);
    assert_eq!(v.devices[0].utilization.gpu_percent, Some(100));
    assert_eq!(v.busiest.values().next().unwrap().0, "3D");
}
