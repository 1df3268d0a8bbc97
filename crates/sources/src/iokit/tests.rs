//! The IOKit merge on the recorded registry rounds under `fixtures/macos/` (an M2 Max;
//! WindowServer 533, llama-server 4821 with two GPU clients, python3.11 5002 running MLX, Chrome's
//! GPU helper 6100, LM Studio's helper 7301 new in round 2; rounds 1 s apart).

use super::parse::{FIRST_ROUND, UNIFIED_MEMORY};
use super::*;
use gpuledger_model::{Host, Snapshot, Vendor};
use std::path::PathBuf;

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

fn fixture(name: &str) -> IoRegRound {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/macos")
        .join(name);
    load_round(&p).unwrap()
}

fn sm(v: &IokitView, pid: u32) -> (Option<u32>, Option<String>) {
    let p = v.processes.iter().find(|p| p.pid == pid).unwrap();
    assert_eq!(p.usage.len(), 1, "one row per process per GPU");
    let u = &p.usage[0];
    (
        u.engines.sm_percent,
        u.engines.unavailable_reason.as_deref().map(str::to_string),
    )
}

#[test]
fn device_statistics_and_client_rates() {
    let (r1, r2) = (fixture("round1.json"), fixture("round2.json"));
    let v = merge_round(Some(&r1), &r2);
    assert_eq!(v.devices.len(), 1);
    let d = &v.devices[0];
    assert_eq!(d.vendor, Vendor::Apple);
    assert_eq!(d.uuid, "iokit-100000a2c");
    assert_eq!(d.name.as_deref(), Some("Apple M2 Max"));
    assert_eq!(d.utilization.gpu_percent, Some(64));
    assert_eq!(d.busiest_engine.as_deref(), Some("Renderer"));
    assert_eq!(d.memory.total_bytes, Some(64 * GIB));
    assert_eq!(d.memory.used_bytes, Some(11 * GIB + 310 * MIB));
    assert_eq!(d.memory.free_bytes, None);
    assert!(d.unavailable["memory.free_bytes"].contains("unified memory"));

    // llama-server's two clients are summed: 550 ms + 50 ms in 1 s.
    assert_eq!(sm(&v, 4821), (Some(60), None));
    assert_eq!(sm(&v, 533), (Some(5), None));
    assert_eq!(sm(&v, 5002), (Some(0), None));
    let (rate, why) = sm(&v, 7301);
    assert_eq!(rate, None);
    assert!(why.unwrap().contains("new since the last round"));

    // Per-process memory: unknown, with the reason, never 0.
    for p in &v.processes {
        assert_eq!(p.usage[0].memory_bytes, None);
        assert_eq!(
            p.usage[0].unavailable_reason.as_deref(),
            Some(UNIFIED_MEMORY)
        );
    }
    let names: Vec<_> = v
        .processes
        .iter()
        .map(|p| (p.pid, p.name.clone().unwrap()))
        .collect();
    assert_eq!(
        names,
        vec![
            (533, "WindowServer".to_string()),
            (4821, "llama-server".into()),
            (5002, "python3.11".into()),
            (6100, "Google Chrome Helper (GPU)".into()),
            (7301, "LM Studio Helper".into()),
        ]
    );
}

#[test]
fn first_round_says_why_there_is_no_rate() {
    let v = merge_round(None, &fixture("round1.json"));
    assert_eq!(sm(&v, 4821), (None, Some(FIRST_ROUND.to_string())));
    assert_eq!(
        v.devices[0].utilization.gpu_percent,
        Some(61),
        "device % needs one round"
    );
}

#[test]
fn books_balance_with_every_process_unknown() {
    let (r1, r2) = (fixture("round1.json"), fixture("round2.json"));
    let mut snap = Snapshot::new("t".into(), Host::default());
    let mut ws = gpuledger_model::Process::new(533);
    ws.name = Some("WindowServer".into());
    ws.user = Some("_windowserver".into());
    snap.processes.push(ws);
    apply(&mut snap, merge_round(Some(&r1), &r2));
    let l = snap.devices[0].ledger;
    assert_eq!(l.attributed_bytes, 0);
    assert_eq!(l.unknown_processes, 5);
    assert_eq!(l.unattributed_bytes, Some(11 * GIB + 310 * MIB));
    // Metadata already in the snapshot is kept; the usage row is added to it.
    let ws = snap.processes.iter().find(|p| p.pid == 533).unwrap();
    assert_eq!(ws.user.as_deref(), Some("_windowserver"));
    assert_eq!(ws.usage.len(), 1);
    assert!(snap.sources.iter().any(|s| s.name == "iokit"));
}

#[test]
fn odd_registry_content_is_reported() {
    let mut r2 = fixture("round2.json");
    let a = &mut r2.accelerators[0];
    a.clients[0]
        .properties
        .insert("IOUserClientCreator".into(), "kernel".into());
    // A client whose GPU time went down (one of its clients closed).
    a.clients[1].properties.insert(
        "AppUsage".into(),
        serde_json::json!([{"API": "Metal", "accumulatedGPUTime": 5}]),
    );
    // Stats without "In use": fall back to "Alloc", and say so.
    let perf = a.performance_statistics.as_mut().unwrap();
    perf.remove("In use system memory");
    let v = merge_round(Some(&fixture("round1.json")), &r2);
    assert!(v.notes.iter().any(|n| n.contains("1 GPU user client(s)")));
    assert!(v.notes.iter().any(|n| n.contains("Alloc system memory")));
    assert_eq!(v.devices[0].memory.used_bytes, Some(13 * GIB));
    let (rate, why) = sm(&v, 4821);
    assert_eq!(rate, None);
    assert!(why.unwrap().contains("backwards"));
    assert!(v.processes.iter().all(|p| p.pid != 533));

    let mut none = fixture("round1.json");
    none.accelerators[0].performance_statistics = None;
    let v = merge_round(None, &none);
    assert_eq!(v.status.status, gpuledger_model::SourceState::Unavailable);
    assert!(v.notes[0].contains("no PerformanceStatistics"));
    let tw = v.notes[0].in_lang(gpuledger_lang::Lang::ZhTw);
    assert!(tw.contains("沒有 PerformanceStatistics；已略去"), "{tw}");
}

#[test]
fn a_bad_recording_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("ioreg.json");
    std::fs::write(&p, "{\"accelerators\": 3}").unwrap();
    let e = load_round(&p).unwrap_err().to_string();
    assert!(e.contains("ioreg.json") && e.contains("IOKit"), "{e}");
}
