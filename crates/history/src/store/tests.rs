use super::*;
use gpuledger_model::test_support::{device, process, snapshot};
use gpuledger_model::Engines;
use rusqlite::params;

#[path = "../../../../testing/secret_corpus.rs"]
mod corpus;

use gpuledger_model::test_support::MIB;
const T0: i64 = 1_795_939_200_000; // 2026-11-29T08:00:00Z

fn dev(used: u64, gpu: u32) -> Device {
    let mut d = device(0, "GPU-1", Some(1000 * MIB), Some(used));
    d.name = Some("NVIDIA H200".into());
    d.memory.free_bytes = Some(1000 * MIB - used);
    d.utilization.gpu_percent = Some(gpu);
    d.temperature_c = Some(50);
    d.power.usage_watts = Some(215.5);
    d
}

fn proc(pid: u32, start: u64, name: &str, mem: Option<u64>, sm: Option<u32>) -> Process {
    let mut p = process(pid, "GPU-1", mem);
    p.start_time = Some(start);
    p.name = Some(name.into());
    p.user = Some("alice".into());
    p.cmdline = Some(vec![
        name.into(),
        "--api-key".into(),
        "sk-SECRET".into(),
        "a,\"b\"".into(),
    ]);
    let u = &mut p.usage[0];
    if mem.is_none() {
        u.unavailable_reason = Some("not available under WDDM".into());
    }
    u.engines = Engines {
        sm_percent: sm,
        ..Engines::default()
    };
    p
}

fn snap(used: u64, gpu: u32, procs: Vec<Process>) -> Snapshot {
    let mut s = snapshot("x", vec![dev(used, gpu)], procs);
    s.host.hostname = Some("gpu-box".into());
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
                power_mw: Some(215_500),
                sys_total: None,
                sys_used: None,
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
            .contains("no device \"GPU-X\" in this recording (recorded: GPU0 GPU-1)"),
        "{err}"
    );
    // By index as well as by UUID (as `snapshot` numbers them).
    let by = |d: &str| {
        let mut rows = Vec::new();
        r.for_each_device_row(
            &Query {
                device: Some(d.into()),
                ..Query::default()
            },
            |row| rows.push(row.device.uuid.clone()),
        )
        .map(|_| rows)
    };
    assert_eq!(by("0").unwrap(), by("GPU-1").unwrap());
    assert!(!by("0").unwrap().is_empty());
    let err = r
        .check(&Query {
            device: Some("3".into()),
            ..Query::default()
        })
        .unwrap_err();
    assert!(err.to_string().contains("no device \"3\""), "{err}");

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

/// The lock is the file's, not the name's: a second recorder through a symlink or a
/// hard link to the same database ran concurrently (once: "database disk image is malformed").
#[test]
#[cfg(unix)]
fn a_second_recorder_through_a_symlink_or_hard_link_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let sym = dir.path().join("sym.db");
    let hard = dir.path().join("sub").join("hard.db");
    let rec = Recorder::open(&db).unwrap();
    std::os::unix::fs::symlink(&db, &sym).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::hard_link(&db, &hard).unwrap();
    for other in [&sym, &hard] {
        let err = Recorder::open(other)
            .err()
            .unwrap_or_else(|| panic!("{}: a second recorder ran", other.display()))
            .to_string();
        assert!(
            err.contains("another gpuledger recorder is writing to this database"),
            "{err}"
        );
        // The holder is named wherever it can be found (its lock note, or the kernel's list).
        #[cfg(target_os = "linux")]
        assert!(
            err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
    }
    // The name-free lock leaves no note beside the other names.
    assert!(!dir.path().join("sub").join("hard.db.lock").exists());
    drop(rec);
    // Released with the recorder: either name records now, one at a time.
    let mut by_link = Recorder::open(&hard).unwrap();
    assert!(Recorder::open(&db).is_err());
    by_link.add(&snap(1, 1, vec![proc(10, 1, "a", Some(1), None)]), T0);
    by_link.flush().unwrap();
    drop(by_link);
    assert_eq!(
        rows(&Reader::open(&db).unwrap(), &Query::default()).len(),
        1
    );
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
        err.contains("recorded by a newer gpuledger (schema 99; this one reads up to 3)"),
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

/// The full text `{:#}` prints: the error and each source after it.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

#[test]
fn system_memory_and_engines_by_type_survive_a_replay() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let mut rec = Recorder::open(&db).unwrap();
    let apu = |k: u64| {
        let mut s = snap(
            600 * MIB,
            10,
            vec![proc(10, 1, "llama-server", Some(5 * MIB), Some(3))],
        );
        s.devices[0].system_memory = Some(gpuledger_model::Memory {
            total_bytes: Some(8000 * MIB),
            used_bytes: Some(3000 * MIB + k * MIB),
            ..Default::default()
        });
        let u = &mut s.processes[0].usage[0];
        u.system_memory_bytes = Some(2000 * MIB + k * MIB);
        u.engines_by_type.insert("gfx".into(), 40 + k as u32);
        u.engines_by_type.insert("compute".into(), 7);
        s.processes
            .push(proc(11, 2, "nvidia-only", Some(MIB), None));
        balance(&mut s);
        s
    };
    for k in 0..70 {
        rec.add(&apu(k), T0 + k as i64 * 1000);
    }
    // The extras go away while the process stays.
    let mut s = apu(0);
    s.processes[0].usage[0].system_memory_bytes = None;
    s.processes[0].usage[0].engines_by_type.clear();
    rec.add(&s, T0 + 70_000);
    rec.flush().unwrap();
    drop(rec);
    let r = Reader::open(&db).unwrap();
    for k in [0u64, 1, 59, 60, 65] {
        let s = r.snapshot_at(T0 + k as i64 * 1000).unwrap();
        let u = &s.processes[0].usage[0];
        assert_eq!(
            u.system_memory_bytes,
            Some(2000 * MIB + k * MIB),
            "sample {k}"
        );
        assert_eq!(
            u.engines_by_type,
            [
                ("compute".to_string(), 7),
                ("gfx".to_string(), 40 + k as u32)
            ]
            .into(),
            "sample {k}"
        );
        assert_eq!(s.processes[1].usage[0].system_memory_bytes, None);
        assert!(s.processes[1].usage[0].engines_by_type.is_empty());
        let sys = s.devices[0].system_memory.unwrap();
        assert_eq!(sys.used_bytes, Some(3000 * MIB + k * MIB));
        assert_eq!(sys.total_bytes, Some(8000 * MIB));
        assert!(s
            .notes
            .iter()
            .any(|n| n.contains("does not keep listening ports")
                && n.contains("system memory and busy % per engine type, and the workload")));
    }
    let s = r.snapshot_at(T0 + 70_000).unwrap();
    assert_eq!(s.processes[0].usage[0].system_memory_bytes, None);
    assert!(s.processes[0].usage[0].engines_by_type.is_empty());
}

#[test]
fn a_schema_1_recording_still_reads_and_says_what_it_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v1.db");
    {
        let c = Connection::open(&db).unwrap();
        c.execute_batch(MIGRATIONS[0]).unwrap();
        c.execute_batch(
            "PRAGMA user_version = 1;
             INSERT INTO strings VALUES (1, 'nvml');
             INSERT INTO devices VALUES (1, 'GPU-1', 0, 'nvidia', 'H200', 1000, 'nvml');
             INSERT INTO processes VALUES (1, 10, 1, 'a', 'alice', NULL, 0, 0);",
        )
        .unwrap();
        // One keyframe entry: process 1 on device 1, memory 5 (stored as 6), SM unknown,
        // source 1, no reason.
        c.execute(
            "INSERT INTO samples VALUES (?1, 1, ?2)",
            params![T0, vec![1u8, (1 << 5) | 31, 1, 6, 0, 1, 0]],
        )
        .unwrap();
        c.execute(
            "INSERT INTO device_samples VALUES (?1, 1, 7, 993, 1, 2, 50, 1000)",
            [T0],
        )
        .unwrap();
    }
    let r = Reader::open(&db).unwrap();
    let s = r.snapshot_at(T0).unwrap();
    assert_eq!(s.processes[0].usage[0].memory_bytes, Some(5));
    assert_eq!(s.devices[0].memory.used_bytes, Some(7));
    assert!(s.notes[0].contains("nor (recorded by an older gpuledger) system memory"));
    // A recorder migrates it and appends.
    drop(r);
    let mut rec = Recorder::open(&db).unwrap();
    rec.add(
        &snap(600 * MIB, 1, vec![proc(10, 1, "a", Some(MIB), None)]),
        T0 + 1000,
    );
    drop(rec);
    let r = Reader::open(&db).unwrap();
    assert_eq!(rows(&r, &Query::default()).len(), 2);
}

#[test]
fn sqlite_errors_name_the_table_and_column_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let mut rec = Recorder::open(&db).unwrap();
    rec.add(
        &snap(600 * MIB, 1, vec![proc(10, 1, "a", Some(MIB), None)]),
        T0,
    );
    drop(rec);
    let c = Connection::open(&db).unwrap();
    c.execute_batch("UPDATE processes SET pid = 99999999999")
        .unwrap();
    let err = Reader::open(&db).err().unwrap();
    let text = chain(&err);
    assert!(
        text.contains(
            "h.db: cannot read the processes table: column pid holds 99999999999, out of range"
        ),
        "{text}"
    );
    assert_eq!(text.matches("99999999999").count(), 1, "{text}");
    c.execute_batch("UPDATE processes SET pid = 'abc'").unwrap();
    let text = chain(&Reader::open(&db).err().unwrap());
    assert!(
        text.contains("cannot read the processes table: column pid holds Text"),
        "{text}"
    );
    // An SQLite failure: its words once.
    c.execute_batch("UPDATE processes SET pid = 10; DROP TABLE strings")
        .unwrap();
    let text = chain(&Reader::open(&db).err().unwrap());
    assert_eq!(text.matches("no such table: strings").count(), 1, "{text}");
    assert!(text.contains("cannot read the strings table"), "{text}");
}

#[cfg(unix)]
#[test]
fn special_files_are_refused_by_name_and_kind() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.db");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let loop_a = dir.path().join("a.db");
    std::os::unix::fs::symlink(dir.path().join("b.db"), &loop_a).unwrap();
    std::os::unix::fs::symlink(&loop_a, dir.path().join("b.db")).unwrap();
    let sub = dir.path().join("sub.db");
    std::fs::create_dir(&sub).unwrap();
    // These return at once: a FIFO is never opened.
    for (path, want) in [
        (
            &fifo,
            "fifo.db: is a FIFO (named pipe), not a recording file",
        ),
        (&sub, "sub.db: is a directory, not a recording file"),
    ] {
        let e = Reader::open(path).err().unwrap().to_string();
        assert!(e.contains(want), "{e}");
        let e = Recorder::open(path).err().unwrap().to_string();
        assert!(e.contains(want), "{e}");
    }
    assert!(!is_recording(&fifo));
    let e = Reader::open(&loop_a).err().unwrap().to_string();
    assert!(
        e.contains("a.db: cannot open: ") && e.contains("symbolic links"),
        "{e}"
    );
    assert!(!e.contains("no such recording"), "{e}");
    // A FIFO where SQLite keeps the WAL.
    let db = dir.path().join("w.db");
    let c = std::ffi::CString::new(format!("{}-wal", db.display())).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let e = Recorder::open(&db).err().unwrap().to_string();
    assert!(
        e.contains("w.db-wal is a FIFO (named pipe), where SQLite keeps"),
        "{e}"
    );
}

#[test]
fn a_deleted_database_stops_the_recorder() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let mut rec = Recorder::open(&db).unwrap();
    let s = snap(600 * MIB, 1, vec![proc(10, 1, "a", Some(MIB), None)]);
    rec.add(&s, T0);
    rec.flush().unwrap();
    std::fs::remove_file(&db).unwrap();
    rec.add(&s, T0 + 1000);
    let e = rec.flush().unwrap_err().to_string();
    assert!(
        e.contains("h.db: the database file was deleted or replaced while recording; stopped (1 sample not written)"),
        "{e}"
    );
    // Replaced by another file: the same.
    drop(rec);
    let mut rec = Recorder::open(&db).unwrap();
    rec.add(&s, T0 + 2000);
    rec.flush().unwrap();
    let other = dir.path().join("other.db");
    std::fs::copy(&db, &other).unwrap();
    std::fs::rename(&other, &db).unwrap();
    rec.add(&s, T0 + 3000);
    assert!(rec
        .flush()
        .unwrap_err()
        .to_string()
        .contains("deleted or replaced"));
}

#[test]
fn far_future_and_keyframe_less_samples_are_said_not_panicked_or_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let mut rec = Recorder::open(&db).unwrap();
    let s = snap(600 * MIB, 1, vec![proc(10, 1, "a", Some(MIB), None)]);
    // Two runs: keyframes at samples 0 and 3.
    for k in 0..3 {
        rec.add(&s, T0 + k * 1000);
    }
    drop(rec);
    let mut rec = Recorder::open(&db).unwrap();
    for k in 3..5 {
        rec.add(&s, T0 + k * 1000);
    }
    drop(rec);
    let c = Connection::open(&db).unwrap();
    // No keyframe before the samples: nothing can be decoded, and the reader says so.
    c.execute_batch("UPDATE samples SET keyframe = 0").unwrap();
    let r = Reader::open(&db).unwrap();
    let e = r
        .for_each_process_row(&Query::default(), |_| {})
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("h.db: 5 samples from 2026-11-29T08:00:00Z to 2026-11-29T08:00:04Z cannot be read: no keyframe precedes them"),
        "{e}"
    );
    assert!(r.snapshot_at(i64::MAX).is_err());
    // Only the first run lacks one: the second is read, the first counted.
    c.execute_batch(&format!(
        "UPDATE samples SET keyframe = 1 WHERE ts = {}",
        T0 + 3000
    ))
    .unwrap();
    let mut n = 0;
    let skipped = r
        .for_each_process_row(&Query::default(), |_| n += 1)
        .unwrap();
    assert_eq!((n, skipped.samples), (2, 3));

    // A sample timed near i64::MAX.
    c.execute_batch(&format!(
        "UPDATE samples SET keyframe = 1 WHERE ts = {T0}; UPDATE samples SET ts = {0} WHERE ts = {1};
         UPDATE device_samples SET ts = {0} WHERE ts = {1};",
        i64::MAX - 1,
        T0 + 4000
    ))
    .unwrap();
    let want = format!(
        "a sample is timed at Unix ms {}, outside the years 1970 to 9999",
        i64::MAX - 1
    );
    let e = r
        .for_each_process_row(&Query::default(), |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains(&want), "{e}");
    let e = r
        .for_each_device_row(&Query::default(), |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains(&want), "{e}");
    let e = r.snapshot_at(i64::MAX).unwrap_err().to_string();
    assert!(e.contains(&want), "{e}");
    // Before it, all is well.
    let before = Query {
        until_ms: Some(T0 + 1000),
        ..Query::default()
    };
    assert_eq!(rows(&r, &before).len(), 2);
    assert_eq!(r.snapshot_at(T0 + 1000).unwrap().processes.len(), 1);
    // A recorder does not append behind it.
    drop(r);
    let e = Recorder::open(&db).err().unwrap().to_string();
    assert!(
        e.contains("the last sample is timed <time out of range"),
        "{e}"
    );
}

#[test]
fn last_seen_is_written_every_10_s_exactly_at_stop_and_pruning_allows_for_the_lag() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let last_ms = || -> i64 {
        Connection::open(&db)
            .unwrap()
            .query_row("SELECT last_ms FROM processes", [], |r| r.get(0))
            .unwrap()
    };
    let mut rec = Recorder::open(&db).unwrap();
    let s = snap(600 * MIB, 1, vec![proc(10, 1, "a", Some(MIB), None)]);
    for k in 0..70 {
        rec.add(&s, T0 + k * 1000);
        rec.flush().unwrap();
    }
    // A commit per sample no longer rewrites every process row every sample.
    assert_eq!(last_ms(), T0 + 60_000);
    drop(rec);
    assert_eq!(last_ms(), T0 + 69_000);
    // After a kill -9 the row can lag the samples by up to 10 s; a prune whose first kept
    // keyframe (60 s) is later than that must not drop a process the kept samples name.
    Connection::open(&db)
        .unwrap()
        .execute("UPDATE processes SET last_ms = ?1", [T0 + 59_500])
        .unwrap();
    let mut rec = Recorder::open(&db).unwrap();
    let pruned = rec.prune(T0 + 65_000).unwrap();
    assert_eq!((pruned.samples, pruned.processes), (60, 0));
    drop(rec);
    let r = Reader::open(&db).unwrap();
    assert_eq!(rows(&r, &Query::default()).len(), 10);
}

fn assert_no_corpus_secret(what: &str, text: &str) {
    for c in corpus::cases() {
        for x in &c.secrets {
            assert!(
                !text.contains(x.as_str()),
                "{what}, {}: {x} in\n{text}",
                c.what
            );
        }
    }
}

/// The secret corpus recorded from a snapshot nobody redacted: neither the SQLite file's bytes
/// nor what is read back (a replayed moment, the history CSV) hold a secret.
#[test]
fn the_corpus_never_reaches_the_recording_or_history() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let ps: Vec<Process> = corpus::cases()
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let mut p = proc(100 + i as u32, 7, &c.args[0], Some(MIB), Some(1));
            p.name = c.name.or(p.name);
            p.cmdline = Some(c.args);
            p
        })
        .collect();
    let mut rec = Recorder::open(&db).unwrap();
    rec.add(&snap(600 * MIB, 10, ps), T0);
    rec.flush().unwrap();
    drop(rec);
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        assert_no_corpus_secret(
            &path.display().to_string(),
            &String::from_utf8_lossy(&bytes),
        );
    }
    let r = Reader::open(&db).unwrap();
    let s = r.snapshot_at(T0).unwrap();
    assert_eq!(s.processes.len(), corpus::cases().len());
    assert_no_corpus_secret("replayed moment", &serde_json::to_string(&s).unwrap());
    let mut w = crate::csv::HistoryCsv::processes(Vec::new()).unwrap();
    r.for_each_process_row(&Query::default(), |row| w.process_row(row).unwrap())
        .unwrap();
    let csv = String::from_utf8(w.finish().unwrap()).unwrap();
    assert!(csv.contains("<redacted>"), "{csv}");
    assert_no_corpus_secret("history CSV", &csv);
}

/// A recording made by an older version holds raw names and command lines: reading redacts them.
#[test]
fn an_old_recording_s_secrets_are_redacted_on_reading() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let mut rec = Recorder::open(&db).unwrap();
    rec.add(
        &snap(600 * MIB, 10, vec![proc(10, 1, "a", Some(MIB), None)]),
        T0,
    );
    rec.flush().unwrap();
    drop(rec);
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute(
        "UPDATE processes SET name = ?1, cmdline = ?2",
        params![
            "--token=OLDSECRET1",
            serde_json::to_string(&["mysql", "-pOLDSECRET2"]).unwrap()
        ],
    )
    .unwrap();
    drop(c);
    let r = Reader::open(&db).unwrap();
    let text = serde_json::to_string(&r.snapshot_at(T0).unwrap()).unwrap();
    assert!(!text.contains("OLDSECRET"), "{text}");
    assert!(text.contains("--token=<redacted>"), "{text}");
}

/// A replayed recording showed WORKLOAD and TYPE as `—` and no estimate for a
/// runner the live view had estimated: the recording kept no identification at all.
#[test]
fn identification_survives_a_replay_the_last_one_seen() {
    use gpuledger_model::{Confidence, EstimatedMemory, UsageKind, Workload, WorkloadKind};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let mut rec = Recorder::open(&db).unwrap();
    let wl = |m: &str| Workload {
        kind: WorkloadKind::OllamaRunner,
        model: Some(m.into()),
        model_name: None,
        confidence: Confidence::High,
        evidence: Vec::new(),
        missing: Vec::new(),
        member: None,
    };
    let est = |total: u64| EstimatedMemory {
        recipe: "ollama runner".into(),
        model: "/m/q.gguf".into(),
        weights_gpu_bytes: total / 2,
        total_gpu_bytes: total,
        ..Default::default()
    };
    let sample = |model: &str, total: u64| {
        let mut s = snap(
            600 * MIB,
            10,
            vec![
                proc(10, 1, "ollama", Some(5 * MIB), Some(3)),
                proc(11, 2, "Xorg", Some(MIB), None),
            ],
        );
        let p = &mut s.processes[0];
        p.workload = Some(wl(model).into());
        p.estimate = Some(est(total).into());
        p.usage[0].kinds = vec![UsageKind::Compute];
        s.processes[1].usage[0].kinds = vec![UsageKind::Graphics];
        s
    };
    for k in 0..5 {
        rec.add(&sample("/m/a.gguf", 100 * MIB), T0 + k * 1000);
    }
    // Identified anew (another model loaded into the same runner): the last one is kept.
    rec.add(&sample("/m/b.gguf", 200 * MIB), T0 + 5000);
    drop(rec);
    let r = Reader::open(&db).unwrap();
    let s = r.snapshot_at(T0 + 5000).unwrap();
    let p = &s.processes[0];
    assert_eq!(
        p.workload.as_ref().and_then(|w| w.model.as_deref()),
        Some("/m/b.gguf")
    );
    assert_eq!(p.estimate.as_ref().unwrap().total_gpu_bytes, 200 * MIB);
    assert_eq!(p.usage[0].kinds_label(), "C");
    assert_eq!(s.processes[1].usage[0].kinds_label(), "G");
    assert!(s.processes[1].workload.is_none());
    assert!(s.notes[0].contains("the workload, estimate and type (C/G) last identified"));
    // A recorder that reopens the file and sees the same identification writes nothing new;
    // one that loses it clears it.
    drop(r);
    let mut rec = Recorder::open(&db).unwrap();
    let mut s = sample("/m/b.gguf", 200 * MIB);
    s.processes[0].workload = None;
    s.processes[0].estimate = None;
    rec.add(&s, T0 + 6000);
    drop(rec);
    let s = Reader::open(&db).unwrap().snapshot_at(T0 + 6000).unwrap();
    assert!(s.processes[0].workload.is_none());
    assert_eq!(s.processes[0].usage[0].kinds_label(), "C");
    // An AI process without an estimate: the reason and the runtime's figure are kept too.
    let mut rec = Recorder::open(&db).unwrap();
    let mut s = sample("/m/c.gguf", 0);
    s.processes[0].estimate = None;
    s.processes[0].no_estimate = Some(
        gpuledger_model::NoEstimate {
            why: "no recipe models it".into(),
            reported: vec![gpuledger_model::ReportedFigure::new(
                "size_vram",
                Some(7 * MIB),
                None,
                "GET /api/ps",
            )],
        }
        .into(),
    );
    rec.add(&s, T0 + 7000);
    drop(rec);
    let r = Reader::open(&db).unwrap();
    let s7 = r.snapshot_at(T0 + 7000).unwrap();
    let n = s7.processes[0].no_estimate.as_ref().expect("kept");
    assert_eq!(n.reported[0].bytes, Some(7 * MIB));
}

/// The live view's chart of a replayed recording had "one moment, no history":
/// the samples before the moment shown, for the chart, spread over the range when there are many.
#[test]
fn the_samples_before_a_moment_read_back_for_a_chart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let mut rec = Recorder::open(&db).unwrap();
    for k in 0..30u64 {
        let s = snap(
            (100 + k) * MIB,
            k as u32,
            vec![proc(10, 1, "llama-server", Some(k * MIB), Some(k as u32))],
        );
        rec.add(&s, T0 + k as i64 * 1000);
    }
    drop(rec);
    let r = Reader::open(&db).unwrap();
    let all = r.snapshots_between(T0, T0 + 29_000, 600).unwrap();
    assert_eq!(all.len(), 30);
    assert_eq!(all[3].devices[0].memory.used_bytes, Some(103 * MIB));
    assert_eq!(all[3].processes[0].usage[0].memory_bytes, Some(3 * MIB));
    assert_eq!(all[3].processes[0].usage[0].engines.sm_percent, Some(3));
    assert_eq!(all[29].taken_at, format_ms(T0 + 29_000));
    // Thinned to at most 10, the last sample kept.
    let few = r.snapshots_between(T0, T0 + 20_000, 10).unwrap();
    assert!(few.len() <= 10 && few.len() >= 7, "{}", few.len());
    assert_eq!(few.last().unwrap().taken_at, format_ms(T0 + 20_000));
    assert!(r
        .snapshots_between(T0 - 9000, T0 - 1, 10)
        .unwrap()
        .is_empty());
}
