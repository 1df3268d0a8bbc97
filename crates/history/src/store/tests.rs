use super::*;
use gpuledger_model::{Engines, Host};

const MIB: u64 = 1 << 20;
const T0: i64 = 1_795_939_200_000; // 2026-11-29T08:00:00Z

fn dev(used: u64, gpu: u32) -> Device {
    let mut d = Device::new(0, Vendor::Nvidia, "GPU-1", "nvml");
    d.name = Some("NVIDIA H200".into());
    d.memory.total_bytes = Some(1000 * MIB);
    d.memory.used_bytes = Some(used);
    d.memory.free_bytes = Some(1000 * MIB - used);
    d.utilization.gpu_percent = Some(gpu);
    d.temperature_c = Some(50);
    d.power.usage_watts = Some(215.5);
    d
}

fn proc(pid: u32, start: u64, name: &str, mem: Option<u64>, sm: Option<u32>) -> Process {
    let mut p = Process::new(pid);
    p.start_time = Some(start);
    p.name = Some(name.into());
    p.user = Some("alice".into());
    p.cmdline = Some(vec![
        name.into(),
        "--api-key".into(),
        "sk-SECRET".into(),
        "a,\"b\"".into(),
    ]);
    let mut u = Usage::new("GPU-1", "nvml");
    u.memory_bytes = mem;
    if mem.is_none() {
        u.unavailable_reason = Some("not available under WDDM".into());
    }
    u.engines = Engines {
        sm_percent: sm,
        ..Engines::default()
    };
    p.usage.push(u);
    p
}

fn snap(used: u64, gpu: u32, procs: Vec<Process>) -> Snapshot {
    let mut s = Snapshot::new("x".into(), Host::default());
    s.host.hostname = Some("gpu-box".into());
    s.devices.push(dev(used, gpu));
    s.processes = procs;
    balance(&mut s);
    s
}

type Row = (
    i64,
    u32,
    String,
    Option<u64>,
    Option<u32>,
    String,
    Option<String>,
);

fn rows(r: &Reader, q: &Query) -> Vec<Row> {
    let mut out = Vec::new();
    r.for_each_process_row(q, |row| {
        out.push((
            row.ts_ms - T0,
            row.process.pid,
            row.device.uuid.clone(),
            row.vals.memory_bytes,
            row.vals.sm_percent,
            row.source.to_string(),
            row.reason.map(str::to_string),
        ))
    })
    .unwrap();
    out
}

#[test]
fn round_trip_exact_values_across_keyframes_and_deltas() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sub/history.db");
    let mut rec = Recorder::open(&db).unwrap();
    // 130 samples: crosses two keyframe boundaries (every 60). pid 20 appears at 50 and leaves
    // at 100; pid 10 grows by 1 MiB every 7 samples.
    for k in 0..130u64 {
        let mut ps = vec![proc(
            10,
            100,
            "llama-server",
            Some(500 * MIB + (k / 7) * MIB),
            Some((k % 100) as u32),
        )];
        if (50..100).contains(&k) {
            ps.push(proc(20, 200, "python3", None, None));
        }
        rec.add(&snap(600 * MIB, k as u32 % 101, ps), T0 + k as i64 * 1000);
        if k % 10 == 9 {
            rec.flush().unwrap();
        }
    }
    drop(rec);
    let r = Reader::open(&db).unwrap();
    assert_eq!(r.range().unwrap(), Some((T0, T0 + 129_000)));
    let all = rows(&r, &Query::default());
    assert_eq!(all.len(), 130 + 50);
    // Query from the middle of a delta chain: decoded from the previous keyframe.
    let q = Query {
        since_ms: Some(T0 + 75_000),
        until_ms: Some(T0 + 76_000),
        ..Query::default()
    };
    let got = rows(&r, &q);
    assert_eq!(
        got,
        vec![
            (
                75_000,
                10,
                "GPU-1".into(),
                Some(510 * MIB),
                Some(75),
                "nvml".into(),
                None
            ),
            (
                75_000,
                20,
                "GPU-1".into(),
                None,
                None,
                "nvml".into(),
                Some("not available under WDDM".into())
            ),
            (
                76_000,
                10,
                "GPU-1".into(),
                Some(510 * MIB),
                Some(76),
                "nvml".into(),
                None
            ),
            (
                76_000,
                20,
                "GPU-1".into(),
                None,
                None,
                "nvml".into(),
                Some("not available under WDDM".into())
            ),
        ]
    );
    let by_name = rows(
        &r,
        &Query {
            name: Some("python3".into()),
            ..Query::default()
        },
    );
    assert_eq!(by_name.len(), 50);
    assert_eq!(by_name[0].0, 50_000);
    assert_eq!(by_name[49].0, 99_000);
    let by_pid = rows(
        &r,
        &Query {
            pid: Some(10),
            since_ms: Some(T0 + 129_000),
            ..Query::default()
        },
    );
    assert_eq!(
        by_pid,
        vec![(
            129_000,
            10,
            "GPU-1".into(),
            Some(518 * MIB),
            Some(29),
            "nvml".into(),
            None
        )]
    );

    let mut devs = Vec::new();
    r.for_each_device_row(
        &Query {
            since_ms: Some(T0 + 3000),
            until_ms: Some(T0 + 3000),
            ..Query::default()
        },
        |d| devs.push((d.device.uuid.clone(), d.vals)),
    )
    .unwrap();
    assert_eq!(
        devs,
        vec![(
            "GPU-1".to_string(),
            DeviceVals {
                used: Some(600 * MIB),
                free: Some(400 * MIB),
                gpu: Some(3),
                mem_util: None,
                temp: Some(50),
                power_mw: Some(215_500)
            }
        )]
    );
    let err = r
        .for_each_device_row(
            &Query {
                device: Some("GPU-X".into()),
                ..Query::default()
            },
            |_| {},
        )
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("no device \"GPU-X\" in this recording (recorded: GPU-1)"),
        "{err}"
    );

    // Stored command lines are redacted.
    let p = r.processes.values().find(|p| p.pid == 10).unwrap();
    assert_eq!(
        p.cmdline.as_deref().unwrap(),
        ["llama-server", "--api-key", "<redacted>", "a,\"b\""]
    );
}

#[test]
fn snapshot_at_rebuilds_the_moment_with_the_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let mut rec = Recorder::open(&db).unwrap();
    rec.add(
        &snap(
            600 * MIB,
            10,
            vec![proc(10, 1, "a", Some(100 * MIB), Some(5))],
        ),
        T0,
    );
    rec.add(
        &snap(
            700 * MIB,
            20,
            vec![
                proc(10, 1, "a", Some(200 * MIB), Some(6)),
                proc(11, 2, "b", Some(50 * MIB), None),
            ],
        ),
        T0 + 1000,
    );
    rec.flush().unwrap();
    let r = Reader::open(&db).unwrap();
    let s = r.snapshot_at(T0 + 1500).unwrap();
    assert_eq!(s.taken_at, "2026-11-29T08:00:01Z");
    assert_eq!(s.host.hostname.as_deref(), Some("gpu-box"));
    assert_eq!(s.devices[0].memory.used_bytes, Some(700 * MIB));
    assert_eq!(s.devices[0].utilization.gpu_percent, Some(20));
    assert_eq!(s.devices[0].power.usage_watts, Some(215.5));
    assert_eq!(s.processes.len(), 2);
    assert_eq!(s.processes[0].usage[0].memory_bytes, Some(200 * MIB));
    assert_eq!(s.devices[0].ledger.unattributed_bytes, Some(450 * MIB));
    let s0 = r.snapshot_at(T0 + 999).unwrap();
    assert_eq!(s0.processes.len(), 1);
    assert_eq!(s0.devices[0].ledger.unattributed_bytes, Some(500 * MIB));
    let err = r.snapshot_at(T0 - 1).unwrap_err().to_string();
    assert!(err.contains("nothing recorded at or before 2026-11-29T07:59:59.999Z (the recording covers 2026-11-29T08:00:00Z to 2026-11-29T08:00:01Z)"), "{err}");
}

#[test]
fn retention_prunes_to_a_keyframe_and_drops_gone_processes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let mut rec = Recorder::open(&db).unwrap();
    for k in 0..200i64 {
        // pid 30 only in the first 40 samples.
        let mut ps = vec![proc(10, 1, "a", Some(100 * MIB + k as u64), None)];
        if k < 40 {
            ps.push(proc(30, 3, "old", Some(MIB), None));
        }
        rec.add(&snap(600 * MIB, 1, ps), T0 + k * 1000);
    }
    // Keyframes at 0, 60, 120, 180. Cut at 130 s: keep from the keyframe at 120 s.
    let pruned = rec.prune(T0 + 130_000).unwrap();
    assert_eq!(
        pruned,
        Pruned {
            samples: 120,
            device_samples: 130,
            processes: 1
        }
    );
    drop(rec);
    let r = Reader::open(&db).unwrap();
    assert_eq!(r.range().unwrap(), Some((T0 + 120_000, T0 + 199_000)));
    assert_eq!(r.processes.len(), 1);
    let got = rows(
        &r,
        &Query {
            since_ms: Some(T0 + 130_000),
            until_ms: Some(T0 + 130_000),
            ..Query::default()
        },
    );
    assert_eq!(
        got,
        vec![(
            130_000,
            10,
            "GPU-1".into(),
            Some(100 * MIB + 130),
            None,
            "nvml".into(),
            None
        )]
    );
    // A reader asking for pruned time starts at what is left.
    let got = rows(
        &r,
        &Query {
            until_ms: Some(T0 + 121_000),
            ..Query::default()
        },
    );
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].0, 120_000);
}

#[test]
fn a_second_recorder_is_refused_and_the_first_can_reopen_after() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let rec = Recorder::open(&db).unwrap();
    let err = Recorder::open(&db)
        .err()
        .expect("second recorder refused")
        .to_string();
    assert!(
        err.contains(
            "h.db: another gpuledger recorder is writing to this database (gpuledger record, pid "
        ),
        "{err}"
    );
    assert!(
        err.contains(&format!("pid {},", std::process::id())),
        "{err}"
    );
    drop(rec);
    let mut again = Recorder::open(&db).unwrap();
    // Restart: a still-running process keeps its row; the first frame is a keyframe.
    again.add(&snap(1, 1, vec![proc(10, 1, "a", Some(1), None)]), T0);
    again.flush().unwrap();
    drop(again);
    let mut third = Recorder::open(&db).unwrap();
    third.add(
        &snap(1, 1, vec![proc(10, 1, "a", Some(2), None)]),
        T0 + 1000,
    );
    third.flush().unwrap();
    drop(third);
    let r = Reader::open(&db).unwrap();
    assert_eq!(r.processes.len(), 1);
    assert_eq!(rows(&r, &Query::default()).len(), 2);
}

#[test]
fn wrong_files_are_named_and_explained() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
    let err = Reader::open(&junk).err().unwrap().to_string();
    assert!(err.contains("junk.db: not a gpuledger recording"), "{err}");
    assert!(!is_recording(&junk));

    let other = dir.path().join("other.db");
    Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t(x)")
        .unwrap();
    assert!(is_recording(&other));
    let err = Recorder::open(&other).err().unwrap().to_string();
    assert!(
        err.contains("other.db: not a gpuledger recording (an SQLite database with other tables)"),
        "{err}"
    );

    let newer = dir.path().join("newer.db");
    drop(Recorder::open(&newer).unwrap());
    Connection::open(&newer)
        .unwrap()
        .execute_batch("PRAGMA user_version = 99")
        .unwrap();
    let err = Reader::open(&newer).err().unwrap().to_string();
    assert!(
        err.contains("recorded by a newer gpuledger (schema 99; this one reads up to 1)"),
        "{err}"
    );
    let err = Reader::open(&dir.path().join("missing.db"))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("missing.db: no such recording"), "{err}");
}

#[test]
fn default_path_follows_xdg() {
    // Only reads the environment; the values set here are this test's own.
    if cfg!(target_os = "linux") {
        std::env::set_var("XDG_DATA_HOME", "/data/x");
        assert_eq!(
            default_db_path().unwrap(),
            PathBuf::from("/data/x/gpuledger/history.db")
        );
        std::env::set_var("XDG_DATA_HOME", "relative/ignored");
        std::env::set_var("HOME", "/home/u");
        assert_eq!(
            default_db_path().unwrap(),
            PathBuf::from("/home/u/.local/share/gpuledger/history.db")
        );
    }
}

#[test]
fn retention_drops_a_whole_earlier_run_when_the_next_starts_with_a_keyframe() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let mut rec = Recorder::open(&db).unwrap();
    for k in 0..5i64 {
        rec.add(
            &snap(1, 1, vec![proc(10, 1, "a", Some(1), None)]),
            T0 + k * 1000,
        );
    }
    drop(rec);
    // A second run (starts with a keyframe) 1 h later; the cutoff falls between the runs.
    let mut rec = Recorder::open(&db).unwrap();
    rec.add(
        &snap(1, 1, vec![proc(11, 2, "b", Some(2), None)]),
        T0 + 3_600_000,
    );
    let pruned = rec.prune(T0 + 3_000_000).unwrap();
    assert_eq!(
        pruned,
        Pruned {
            samples: 5,
            device_samples: 5,
            processes: 1
        }
    );
    // Everything older than the cutoff: all of it goes.
    let pruned = rec.prune(T0 + 4_000_000).unwrap();
    assert_eq!(
        pruned,
        Pruned {
            samples: 1,
            device_samples: 1,
            processes: 1
        }
    );
    drop(rec);
    assert_eq!(Reader::open(&db).unwrap().range().unwrap(), None);
}
