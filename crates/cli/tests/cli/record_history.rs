#![cfg(unix)]
//! `gpuledger record` → `gpuledger history` / `snapshot --replay DB --at`, end to end against the
//! fake NVML, with the machine changed between recording runs.

use crate::support::*;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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
    // One name per fact: the JSON rows use the CSV's column names.
    let csv_head = String::from_utf8(
        gpuledger(
            fake_nvml(),
            &sc,
            &t.root(),
            &["history", "--db", dbs, "--format", "csv"],
        )
        .stdout,
    )
    .unwrap();
    let keys: Vec<&str> = csv_head.lines().next().unwrap().split(',').collect();
    for k in v[0].as_object().unwrap().keys().filter(|k| *k != "cmdline") {
        assert!(
            keys.contains(&k.as_str()),
            "{k} is not a CSV column: {keys:?}"
        );
    }
    assert!(v[0]["taken_at"].is_string() && v[0]["memory_unavailable_reason"].is_string());

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
        rows[1][16],
        "/opt/llama-server -m /m/q.gguf --api-key <redacted> --alias a,\"b\""
    );
    let bad = gpuledger(fake_nvml(), &sc, &t.root(), &["snapshot", "--at", "1h"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--at needs --replay RECORDING.db"));
}

#[test]
fn plot_writes_an_svg_and_a_png_of_the_recording() {
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
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("no font found") && std::env::var("CI").as_deref() != Ok("true") {
        eprintln!("SKIPPED: the PNG check needs a font (run .ci/setup-fonts.sh)");
        return;
    }
    assert!(out.status.success(), "{err}");
    // The same chart as pixels: the SVG's size, a white page with the chart drawn on it.
    let img = resvg::tiny_skia::Pixmap::decode_png(&std::fs::read(&png).unwrap()).unwrap();
    let attr = |name: &str| -> u32 {
        let i = text.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        text[i..].split('"').next().unwrap().parse::<f64>().unwrap() as u32
    };
    assert_eq!((img.width(), img.height()), (attr("width"), attr("height")));
    let px = img.pixels();
    let white = px
        .iter()
        .filter(|p| p.red() > 250 && p.green() > 250 && p.blue() > 250)
        .count();
    let dark = px
        .iter()
        .filter(|p| p.red() < 80 && p.green() < 80 && p.blue() < 80)
        .count();
    assert!(white > px.len() / 2, "{white} of {}", px.len());
    // Text, axes and the used-memory line are dark: with no glyphs drawn there would be only a
    // few hundred such pixels (the frame and one line).
    assert!(dark > 2000, "{dark} dark pixels");
    let jpg = dir.path().join("c.jpg");
    let out = gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["plot", "--db", dbs, "--out", jpg.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("must end in .svg or .png"));
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

/// Spawn `record`, and wait until it says it is recording (the database is open): timings
/// start there, not at process start-up.
fn spawn_recording(
    sc: &std::path::Path,
    root: &std::path::Path,
    args: &[&str],
) -> (Child, std::io::BufReader<std::process::ChildStderr>) {
    use std::io::BufRead;
    let mut child = spawn(fake_nvml(), sc, root, args);
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.contains("recording every"), "{line}");
    (child, err)
}

#[test]
fn sigkill_after_3s_at_200ms_loses_at_most_one_sample() {
    let t = procs();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let dbs = db.to_str().unwrap();
    let (_d, sc) = scenario(&scenario_text(1 << 30, 20_000_000_000, false));
    // The default --flush-every: what a user gets without asking.
    let (mut child, _err) = spawn_recording(
        &sc,
        &t.root(),
        &["record", "--db", dbs, "--interval", "200ms"],
    );
    let started = Instant::now();
    std::thread::sleep(Duration::from_millis(3000));
    child.kill().unwrap(); // SIGKILL
    let taken_at_most = started.elapsed().as_millis() as usize / 200 + 1;
    child.wait().unwrap();
    // Samples at 0, 200, ..., 3000 ms: about 15; one process per sample, so rows are samples.
    // With the former default (--flush-every 10s) this kept 0.
    let rows = csv_rows(&gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["history", "--db", dbs, "--format", "csv"],
    ));
    assert!(
        rows.len() >= 13 && rows.len() <= taken_at_most,
        "{} rows kept of at most {taken_at_most} samples taken",
        rows.len()
    );
}

#[test]
fn a_deleted_database_stops_the_recorder_with_an_error() {
    let t = procs();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let dbs = db.to_str().unwrap();
    let (_d, sc) = scenario(&scenario_text(1 << 30, 20_000_000_000, false));
    let (mut child, mut err) = spawn_recording(
        &sc,
        &t.root(),
        &["record", "--db", dbs, "--interval", "20ms"],
    );
    std::thread::sleep(Duration::from_millis(200));
    std::fs::remove_file(&db).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the recorder went on after its database was deleted");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    assert_eq!(status.code(), Some(1), "{rest}");
    assert!(
        rest.contains("h.db: the database file was deleted or replaced while recording; stopped"),
        "{rest}"
    );
    assert!(!rest.contains("recorded "), "{rest}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_fifo_or_directory_as_the_database_is_refused_at_once() {
    let t = procs();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f.db");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let (_d, sc) = scenario(&scenario_text(1 << 30, 20_000_000_000, false));
    let svg = dir.path().join("c.svg");
    let svgs = svg.to_str().unwrap();
    let (f, d) = (fifo.to_str().unwrap(), dir.path().to_str().unwrap());
    for (path, kind) in [(f, "a FIFO (named pipe)"), (d, "a directory")] {
        for args in [
            vec!["record", "--db", path, "--count", "1"],
            vec!["history", "--db", path],
            vec!["plot", "--db", path, "--out", svgs],
        ] {
            // Before the fix a FIFO hung here (SQLite blocked opening it).
            let out = gpuledger(fake_nvml(), &sc, &t.root(), &args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(
                err.contains(&format!("{path}: is {kind}, not a recording file")),
                "{args:?}: {err}"
            );
        }
    }
}

#[test]
fn far_future_sample_times_are_an_error_not_a_panic() {
    use gpuledger_history::store::Recorder;
    let t = procs();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let dbs = db.to_str().unwrap();
    let (_d, sc) = scenario(&scenario_text(1 << 30, 20_000_000_000, false));
    let out = gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["record", "--db", dbs, "--interval", "10ms", "--count", "2"],
    );
    assert!(out.status.success());
    // A sample near i64::MAX, written the way a recorder with a wild clock would.
    let snap = json_of(&gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["--replay", dbs, "snapshot", "--json"],
    ));
    let snap: gpuledger_model::Snapshot = serde_json::from_value(snap).unwrap();
    let mut rec = Recorder::open(&db).unwrap();
    rec.add(&snap, i64::MAX - 7);
    drop(rec);
    let svg = dir.path().join("c.svg");
    for args in [
        vec!["history", "--db", dbs, "--since", "1970-01-01T00:00:00Z"],
        vec!["history", "--db", dbs, "--devices"],
        vec!["plot", "--db", dbs, "--out", svg.to_str().unwrap()],
        vec!["--replay", dbs, "snapshot"],
    ] {
        let out = gpuledger(fake_nvml(), &sc, &t.root(), &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(&format!(
                "h.db: a sample is timed at Unix ms {}, outside the years 1970 to 9999",
                i64::MAX - 7
            )),
            "{args:?}: {err}"
        );
    }
    // Before it, the recording reads.
    let rows = csv_rows(&gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["history", "--db", dbs, "--format", "csv", "--until", "now"],
    ));
    assert_eq!(rows.len(), 2);
}

#[test]
fn history_table_escapes_control_characters_from_process_names() {
    let t = ProcTree::new();
    t.add(4242, "evil\x1b]0;PWNED\x07\x1b[2J", 1000, 5, &["x"]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let dbs = db.to_str().unwrap();
    let (_d, sc) = scenario(&scenario_text(1 << 30, 20_000_000_000, false));
    let out = gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["record", "--db", dbs, "--interval", "10ms", "--count", "1"],
    );
    assert!(out.status.success());
    let out = gpuledger(fake_nvml(), &sc, &t.root(), &["history", "--db", dbs]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text:?}");
    assert!(
        text.contains("evil\\u001b]0;PWNED\\u0007\\u001b[2J"),
        "{text}"
    );
    // JSON keeps the name exactly (escaped the JSON way).
    let v = json_of(&gpuledger(
        fake_nvml(),
        &sc,
        &t.root(),
        &["history", "--db", dbs, "--format", "json"],
    ));
    assert_eq!(v[0]["name"], "evil\x1b]0;PWNED\x07\x1b[2J");
}

#[cfg(target_os = "linux")]
#[test]
fn a_replay_of_the_apu_recording_keeps_system_memory_and_engines() {
    let f = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/linux/amdgpu-apu-gtt");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("apu.db");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_gpuledger"))
            .arg("--proc-root")
            .arg(f.join("proc"))
            .arg("--sys-root")
            .arg(f.join("sys"))
            .arg("--nvml-lib")
            .arg(f.join("no-nvml-here.so"))
            .args(args)
            .env_remove("GPULEDGER_NVML_LIB")
            .output()
            .unwrap()
    };
    let dbs = db.to_str().unwrap();
    let out = run(&["record", "--db", dbs, "--interval", "20ms", "--count", "2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let live = json_of(&run(&["snapshot", "--json"]));
    let replay = json_of(&run(&["--replay", dbs, "snapshot", "--json"]));
    let usage = |v: &serde_json::Value, pid: u64| {
        v["processes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["pid"] == pid)
            .unwrap()["usage"][0]
            .clone()
    };
    let (l, r) = (usage(&live, 3001), usage(&replay, 3001));
    assert_eq!(r["system_memory_bytes"], 25258000u64 * 1024);
    assert_eq!(r["system_memory_bytes"], l["system_memory_bytes"]);
    assert_eq!(r["memory_bytes"], l["memory_bytes"]);
    // Busy % per engine type: the recorded round's figures (a second round, with deltas).
    let engines = r["engines_by_type"]
        .as_object()
        .expect("engines_by_type kept");
    assert!(!engines.is_empty(), "{r}");
    // The device's system memory (GTT) and its ledger come back too.
    let (ld, rd) = (&live["devices"][0], &replay["devices"][0]);
    assert_eq!(
        rd["system_memory"]["used_bytes"],
        ld["system_memory"]["used_bytes"]
    );
    assert_eq!(
        rd["system_memory"]["total_bytes"],
        ld["system_memory"]["total_bytes"]
    );
    assert_eq!(rd["system_ledger"]["unattributed_bytes"], 200u64 << 20);
    // What a recording does not keep is said.
    let notes = replay["notes"].to_string();
    assert!(
        notes.contains("does not keep workload identification"),
        "{notes}"
    );
}
