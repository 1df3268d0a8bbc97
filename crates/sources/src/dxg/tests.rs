//! `/dev/dxg` merge on recorded raw statistics buffers (`fixtures/wsl/`): one adapter (LUID
//! 0xC85A; segment 1 = 24 GiB local, segment 2 = 16 GiB aperture), llama-server 2101 busy on node 1,
//! python 2300 idle with a context, nvidia-smi 2400 holding nothing; rounds 1 s apart.

use super::*;
use crate::wddm::apply;
use gpuledger_model::{Host, Snapshot, UsageKind};
use std::path::PathBuf;

use gpuledger_model::test_support::{self, GIB, MIB};

fn fixture(name: &str) -> DxgRound {
    load_round(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/wsl")
            .join(name),
    )
    .unwrap()
}

fn nvml() -> Device {
    test_support::device(0, "GPU-wsl", Some(24 * GIB), Some(9 * GIB + 100 * MIB))
}

#[test]
fn per_process_memory_and_engine_time_from_raw_buffers() {
    let (r1, r2) = (fixture("round1.json"), fixture("round2.json"));
    let v = merge_round(Some(&r1), &r2, &[nvml()]);
    assert_eq!(v.devices.len(), 1);
    let d = &v.devices[0];
    assert_eq!(d.uuid, "GPU-wsl", "paired by elimination");
    assert_eq!(d.memory.total_bytes, Some(24 * GIB));
    assert_eq!(d.memory.used_bytes, Some(9 * GIB));
    let sys = d.system_memory.unwrap();
    assert_eq!(
        (sys.total_bytes, sys.used_bytes),
        (Some(16 * GIB), Some(700 * MIB))
    );
    assert!(v.notes.iter().any(|n| n.contains("by elimination")));

    let pids: Vec<u32> = v.processes.iter().map(|p| p.pid).collect();
    assert_eq!(pids, vec![2101, 2300], "nvidia-smi holds nothing: no row");
    let llama = &v.processes[0].usage[0];
    assert_eq!(llama.memory_source, LABEL);
    assert_eq!(llama.memory_bytes, Some(8 * GIB));
    assert_eq!(llama.system_memory_bytes, Some(512 * MIB));
    assert_eq!(llama.engines_by_type.get("node1"), Some(&75));
    assert_eq!(llama.engines.sm_percent, Some(75));
    let py = &v.processes[1].usage[0];
    assert_eq!(py.memory_bytes, Some(600 * MIB));
    assert_eq!(py.engines.sm_percent, Some(0));
}

#[test]
fn merged_with_nvml_the_books_balance() {
    let (r1, r2) = (fixture("round1.json"), fixture("round2.json"));
    let mut snap = Snapshot::new("t".into(), Host::default());
    snap.devices.push(nvml());
    let mut p = gpuledger_model::Process::new(2101);
    let mut u = gpuledger_model::Usage::new("GPU-wsl", "nvml");
    u.unavailable_reason = Some("NVML: not available in WSL".into());
    u.kinds = vec![UsageKind::Compute];
    p.usage.push(u);
    snap.processes.push(p);
    let v = merge_round(Some(&r1), &r2, &snap.devices);
    apply(&mut snap, v);
    assert_eq!(snap.devices.len(), 1);
    let u = &snap.processes[0].usage[0];
    assert_eq!(u.memory_bytes, Some(8 * GIB));
    assert_eq!(u.memory_source, LABEL);
    assert_eq!(u.kinds, vec![UsageKind::Compute]);
    let l = snap.devices[0].ledger;
    assert_eq!(l.attributed_bytes, 8 * GIB + 600 * MIB);
    assert_eq!(
        l.unattributed_bytes,
        Some(9 * GIB + 100 * MIB - 8 * GIB - 600 * MIB)
    );
}

#[test]
fn first_round_and_unsupported_kernel_say_why() {
    let r1 = fixture("round1.json");
    let v = merge_round(None, &r1, &[]);
    let u = &v.processes[0].usage[0];
    assert_eq!(u.memory_bytes, Some(8 * GIB));
    assert_eq!(u.engines.unavailable_reason.as_deref(), Some(FIRST_ROUND));
    assert!(
        v.devices[0].uuid.starts_with("wsl-dxg-luid-"),
        "no NVML: no pairing"
    );

    let mut r = fixture("round1.json");
    r.processes.clear();
    r.process_query_unavailable =
        Some("this WSL kernel answers only for the calling process".into());
    let v = merge_round(None, &r, &[]);
    assert!(v.status.detail.contains("only for the calling process"));
    assert!(v
        .notes
        .iter()
        .any(|n| n.contains("only for the calling process")));
    assert!(v.processes.is_empty());
}

#[test]
fn bad_buffers_are_counted_and_named() {
    let mut r = fixture("round2.json");
    r.processes[0].segments[1] = "00ff".into();
    // A node answer passed off as a segment answer.
    r.processes[1].segments[1] = r.processes[1].nodes[1].clone();
    let v = merge_round(None, &r, &[]);
    let note = v
        .notes
        .iter()
        .find(|n| n.contains("buffer(s) skipped"))
        .unwrap();
    assert!(note.starts_with("/dev/dxg: 2 "), "{note}");
    assert!(note.contains("hex digits"), "{note}");
}

#[cfg(unix)]
#[test]
fn finds_the_processes_holding_dev_dxg() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let fd = |pid: &str, n: &str, target: &str| {
        let d = root.join(pid).join("fd");
        std::fs::create_dir_all(&d).unwrap();
        std::os::unix::fs::symlink(target, d.join(n)).unwrap();
    };
    fd("2101", "0", "/dev/null");
    fd("2101", "7", "/dev/dxg");
    fd("2300", "12", "/dev/dxg");
    fd("2400", "3", "socket:[123]");
    fd("self", "1", "/dev/dxg");
    std::fs::create_dir_all(root.join("2500")).unwrap(); // no fd dir: not readable
    let (pids, unreadable) = pids_with_dxg(root);
    assert_eq!(pids, vec![2101, 2300]);
    assert_eq!(unreadable, 1);
    assert_eq!(pids_with_dxg(&root.join("missing")), (vec![], 0));
}

#[test]
fn a_bad_recording_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("dxg.json");
    std::fs::write(&p, "{\"adapters\": 3}").unwrap();
    let e = load_round(&p).unwrap_err();
    assert!(e.contains("dxg.json: not a /dev/dxg recording"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_fifo_recording_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("dxg.json");
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let e = load_round(&p).unwrap_err();
    assert!(e.contains("dxg.json") && e.contains("FIFO"), "{e}");
}
