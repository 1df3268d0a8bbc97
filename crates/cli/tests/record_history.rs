#![cfg(unix)]
//! `gpuledger record` → `gpuledger history` / `snapshot --replay DB --at`, end to end against the
//! fake NVML, with the machine changed between recording runs.

mod support;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::*;

const G: &str = "GPU-11111111-2222-3333-4444-555555555555";

fn scenario_text(llama_mem: u64, used: u64, python: bool) -> String {
    let mut s = format!(
        "device|index=0|name=NVIDIA H200|uuid={G}|total=150754820096|used={used}|free={}|gpu=37|mem=12|temp=54|power_mw=215000\n\
         compute|dev=0|pid=4242|mem={llama_mem}\n\
         util|dev=0|pid=4242|sm=81|mem=40|enc=0|dec=0|ts=100\n",
        150754820096u64 - used
    );
    if python {
        s.push_str("compute|dev=0|pid=5151|mem=NA\n");
    }
    s
}

fn procs() -> ProcTree {
    let t = ProcTree::new();
    t.add(
        4242,
        "llama-server",
        1000,
        500_000,
        &[
            "/opt/llama-server",
            "-m",
            "/m/q.gguf",
            "--api-key",
            "sk-SECRET",
            "--alias",
            "a,\"b\"",
        ],
    );
    t.add(5151, "python3", 1001, 600_000, &["python3", "train.py"]);
    t
}

fn spawn(
    lib: &std::path::Path,
    sc: &std::path::Path,
    root: &std::path::Path,
    args: &[&str],
) -> Child {
    Command::new(env!("CARGO_BIN_EXE_gpuledger"))
        .arg("--nvml-lib")
        .arg(lib)
        .arg("--proc-root")
        .arg(root)
        .args(args)
        .env("FAKE_NVML_SCENARIO", sc)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn csv_rows(out: &std::process::Output) -> Vec<Vec<String>> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut r = csv::Reader::from_reader(&out.stdout[..]);
    r.records()
        .map(|x| x.unwrap().iter().map(str::to_string).collect())
        .collect()
}

#[test]
fn record_then_history_has_the_exact_values() {
    let t = procs();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let dbs = db.to_str().unwrap();
    let (_d, sc) = scenario(&scenario_text(1 << 30, 20_000_000_000, false));
    let rec = ["record", "--db", dbs, "--interval", "20ms", "--count", "2"];
    let out = gpuledger(fake_nvml(), &sc, &t.root(), &rec);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("recorded 2 samples"), "{err}");
    // The machine changes: llama grows, python3 appears with unknown memory.
    std::fs::write(&sc, scenario_text(3 << 29, 21_000_000_000, true)).unwrap();
    let out = gpuledger(fake_nvml(), &sc, &t.root(), &rec);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let rows = csv_rows(&gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["history", "--db", dbs, "--format", "csv"],
    ));
    let mem: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| (r[5].as_str(), r[1].as_str(), r[2].as_str()))
        .collect();
    // SM %: NVML gives samples newer than the last read, so the source reports the first round's
    // 81 and then 0 (idle in the window) for the second round of each run.
    assert_eq!(
        mem,
        [
            ("4242", "1073741824", "81"),
            ("4242", "1073741824", "0"),
            ("4242", "1610612736", "81"),
            ("5151", "", "0"),
            ("4242", "1610612736", "0"),
            ("5151", "", "0"),
        ]
    );
    assert_eq!(rows[0][10], "");
    assert!(rows[3][10].contains("not available"), "{}", rows[3][10]);
    let r = &rows[0];
    assert_eq!(r[3], G);
    assert_eq!(r[4], "0");
    assert_eq!(r[6], "500000");
    assert_eq!(r[7], "llama-server");
    assert_eq!(r[8], "alice");
    assert_eq!(r[9], "nvml");
    // Redacted, and the comma and quotes survive the CSV round trip.
    assert_eq!(
        r[11],
        "/opt/llama-server -m /m/q.gguf --api-key <redacted> --alias a,\"b\""
    );
    // RFC 3339 UTC and non-decreasing.
    for w in rows.windows(2) {
        assert!(w[0][0] <= w[1][0]);
    }
    assert!(
        r[0].ends_with('Z') && r[0].len() >= 20 && &r[0][10..11] == "T",
        "{}",
        r[0]
    );
    let raw = String::from_utf8(
        gpuledger(
            fake_nvml(),
            &sc,
            &t.root(),
            &["history", "--db", dbs, "--format", "csv"],
        )
        .stdout,
    )
    .unwrap();
    assert!(
        raw.contains(
            ",\"/opt/llama-server -m /m/q.gguf --api-key <redacted> --alias a,\"\"b\"\"\"\n"
        ),
        "{raw}"
    );
    assert!(!raw.contains("sk-SECRET"));

    // Filters.
    let rows = csv_rows(&gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &[
            "history", "--db", dbs, "--format", "csv", "--name", "python3",
        ],
    ));
    assert_eq!(rows.len(), 2);
    let rows = csv_rows(&gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &[
            "history",
            "--db",
            dbs,
            "--format",
            "csv",
            "--pid",
            "4242",
            "--since",
            &rows[1][0],
        ],
    ));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0][1], "1610612736");
    let dev = csv_rows(&gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &[
            "history",
            "--db",
            dbs,
            "--format",
            "csv",
            "--devices",
            "--device",
            G,
        ],
    ));
    let used: Vec<&str> = dev.iter().map(|r| r[5].as_str()).collect();
    assert_eq!(
        used,
        ["20000000000", "20000000000", "21000000000", "21000000000"]
    );
    assert_eq!(dev[0][7], "37");
    assert_eq!(dev[0][9], "54");
    assert_eq!(dev[0][10], "215.000");

    // JSON: unknown is null, not 0.
    let v = json_of(&gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &[
            "history", "--db", dbs, "--format", "json", "--name", "python3",
        ],
    ));
    assert!(v[0]["memory_bytes"].is_null());
    assert_eq!(v[0]["pid"], 5151);

    // Replay the recording as a snapshot at the last sample.
    let at = &dev[3][0];
    let v = json_of(&gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["--replay", dbs, "snapshot", "--json", "--at", at],
    ));
    assert_eq!(v["devices"][0]["memory"]["used_bytes"], 21000000000u64);
    assert_eq!(v["devices"][0]["ledger"]["attributed_bytes"], 1610612736u64);
    assert_eq!(
        v["devices"][0]["ledger"]["unattributed_bytes"],
        21000000000u64 - 1610612736
    );
    assert_eq!(v["devices"][0]["ledger"]["unknown_processes"], 1);
    let table = gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["--replay", dbs, "snapshot", "--at", &dev[0][0]],
    );
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("1 GiB"), "{text}");
    assert!(!text.contains("python3"), "{text}");
}

fn wait_rows(sc: &std::path::Path, root: &std::path::Path, db: &str, n: usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let out = gpuledger(
            fake_nvml(),
            sc,
            root,
            &["history", "--db", db, "--format", "csv"],
        );
        if out.status.success() {
            let rows = csv_rows(&out).len();
            if rows >= n {
                return rows;
            }
        }
        assert!(
            Instant::now() < deadline,
            "recorder wrote fewer than {n} rows in 20 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn sigkill_mid_run_leaves_a_readable_database_and_no_stale_lock() {
    let t = procs();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let dbs = db.to_str().unwrap();
    let (_d, sc) = scenario(&scenario_text(1 << 30, 20_000_000_000, false));
    let mut child = spawn(
        fake_nvml(),
        &sc,
        &t.root(),
        &[
            "record",
            "--db",
            dbs,
            "--interval",
            "10ms",
            "--flush-every",
            "0s",
        ],
    );
    wait_rows(&sc, &t.root(), dbs, 5);
    // A second recorder on the same database is refused while the first runs.
    let second = gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["record", "--db", dbs, "--count", "1"],
    );
    assert_eq!(second.status.code(), Some(1));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains(
            "another gpuledger recorder is writing to this database (gpuledger record, pid "
        ),
        "{err}"
    );
    assert!(err.contains(&format!("pid {},", child.id())), "{err}");

    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let rows = csv_rows(&gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["history", "--db", dbs, "--format", "csv"],
    ));
    assert!(rows.len() >= 5);
    assert!(rows.iter().all(|r| r[5] == "4242" && r[1] == "1073741824"));
    // The kernel dropped the lock with the process: a new recorder starts.
    let out = gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["record", "--db", dbs, "--count", "1", "--interval", "10ms"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = csv_rows(&gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["history", "--db", dbs, "--format", "csv"],
    ));
    assert_eq!(after.len(), rows.len() + 1);
}

#[test]
fn sigterm_flushes_the_batch_and_exits_cleanly() {
    let t = procs();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let dbs = db.to_str().unwrap();
    let (_d, sc) = scenario(&scenario_text(1 << 30, 20_000_000_000, false));
    // Flush only at stop: every row seen afterwards was written by the SIGTERM path.
    let child = spawn(
        fake_nvml(),
        &sc,
        &t.root(),
        &[
            "record",
            "--db",
            dbs,
            "--interval",
            "20ms",
            "--flush-every",
            "1h",
        ],
    );
    std::thread::sleep(Duration::from_millis(400));
    // SAFETY: signalling our own child by its pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let n: usize = err
        .split("recorded ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(n >= 2, "{err}");
    let rows = csv_rows(&gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["history", "--db", dbs, "--format", "csv"],
    ));
    assert_eq!(rows.len(), n);
}

#[test]
fn snapshot_as_csv() {
    let t = procs();
    let (_d, sc) = scenario(&scenario_text(1 << 30, 20_000_000_000, true));
    let out = gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["snapshot", "--format", "csv"],
    );
    let rows = csv_rows(&out);
    let kinds: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| (r[1].as_str(), r[7].as_str(), r[11].as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("device", "", "20000000000"),
            ("process", "4242", "1073741824"),
            ("process", "5151", ""),
            ("unattributed", "", "18926258176"),
        ]
    );
    assert_eq!(
        rows[1][15],
        "/opt/llama-server -m /m/q.gguf --api-key <redacted> --alias a,\"b\""
    );
    let bad = gpuledger(fake_nvml(), &sc, &t.root(), &["snapshot", "--at", "1h"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--at needs --replay RECORDING.db"));
}

#[test]
fn plot_writes_an_svg_of_the_recording_and_refuses_png() {
    let t = procs();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let dbs = db.to_str().unwrap();
    let (_d, sc) = scenario(&scenario_text(1 << 30, 20_000_000_000, true));
    let out = gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["record", "--db", dbs, "--interval", "20ms", "--count", "3"],
    );
    assert!(out.status.success());
    let svg = dir.path().join("c.svg");
    let out = gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["plot", "--db", dbs, "--out", svg.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(text.contains(&format!("data-device=\"{G}\"")));
    assert!(text.contains("data-label=\"llama-server (4242)\""));
    assert_eq!(text.matches("class=\"panel\"").count(), 1);
    let png = dir.path().join("c.png");
    let out = gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["plot", "--db", dbs, "--out", png.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("PNG output is not implemented"));
}

#[test]
fn record_prunes_past_the_retention_at_start() {
    let t = procs();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let dbs = db.to_str().unwrap();
    let (_d, sc) = scenario(&scenario_text(1 << 30, 20_000_000_000, false));
    let first = ["record", "--db", dbs, "--interval", "10ms", "--count", "3"];
    assert!(gpuledger(fake_nvml(), &sc, &t.root(), &first)
        .status
        .success());
    std::thread::sleep(std::time::Duration::from_millis(300));
    let second = [
        "record",
        "--db",
        dbs,
        "--interval",
        "10ms",
        "--count",
        "1",
        "--retention",
        "200ms",
    ];
    let out = gpuledger(fake_nvml(), &sc, &t.root(), &second);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("(retention 200ms, pruned 3 old samples)"),
        "{err}"
    );
    let rows = csv_rows(&gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["history", "--db", dbs, "--format", "csv"],
    ));
    assert_eq!(rows.len(), 1);
}
