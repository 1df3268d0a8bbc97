#![cfg(unix)]
//! `gpuledger record` → `gpuledger history` / `snapshot --replay DB --at`, end to end against the
//! fake NVML, with the machine changed between recording runs.

use crate::support::*;
use std::path::PathBuf;
use std::process::{Child, Output, Stdio};
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

/// llama-server with 1 GiB on a GPU that uses 20 GB, python3 (memory unknown) with `python`.
fn machine(python: bool) -> Machine {
    Machine::new(&scenario_text(1 << 30, 20_000_000_000, python), procs())
}

/// A machine and a recording database (`h.db`, not yet created) in a temp dir of its own.
struct Rig {
    m: Machine,
    dir: tempfile::TempDir,
    db: PathBuf,
}

impl Rig {
    fn new(python: bool) -> Self {
        Rig::on(machine(python))
    }

    fn on(m: Machine) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("h.db");
        Rig { m, dir, db }
    }

    fn dbs(&self) -> &str {
        self.db.to_str().unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        self.m.run(args)
    }

    /// `record --db DB` with `args`, required to succeed.
    fn record(&self, args: &[&str]) -> Output {
        let out = self.run(&[&["record", "--db", self.dbs()][..], args].concat());
        assert_ok(&out);
        out
    }

    /// `history --db DB` with `args`.
    fn history(&self, args: &[&str]) -> Output {
        self.run(&[&["history", "--db", self.dbs()][..], args].concat())
    }

    /// The rows of `history --db DB --format csv` with `filters`.
    fn history_csv(&self, filters: &[&str]) -> Vec<Vec<String>> {
        csv_rows(&self.history(&[&["--format", "csv"][..], filters].concat()))
    }

    /// `history --db DB --format csv` as written, header and quoting included.
    fn history_csv_text(&self) -> String {
        String::from_utf8(self.history(&["--format", "csv"]).stdout).unwrap()
    }

    /// Start `record --db DB` with `args` in the background, stdout and stderr piped.
    fn spawn_record(&self, args: &[&str]) -> Child {
        self.m
            .command(&["record", "--db", self.dbs()])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Poll `history` until the recording has at least `n` rows (20 s at most).
    fn wait_rows(&self, n: usize) -> usize {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let out = self.history(&["--format", "csv"]);
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

    /// Spawn `record --db DB` with `args`, and wait until it says it is recording (the database is open): timings
    /// start there, not at process start-up.
    fn spawn_recording(
        &self,
        args: &[&str],
    ) -> (Child, std::io::BufReader<std::process::ChildStderr>) {
        use std::io::BufRead;
        let mut child = self.spawn_record(args);
        let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        err.read_line(&mut line).unwrap();
        assert!(line.contains("recording every"), "{line}");
        (child, err)
    }
}

fn csv_rows(out: &Output) -> Vec<Vec<String>> {
    assert_ok(out);
    let mut r = csv::Reader::from_reader(&out.stdout[..]);
    r.records()
        .map(|x| x.unwrap().iter().map(str::to_string).collect())
        .collect()
}

#[test]
fn record_then_history_has_the_exact_values() {
    let r = Rig::new(false);
    let dbs = r.dbs();
    let rec = ["--interval", "20ms", "--count", "2"];
    let err = stderr_of(&r.record(&rec));
    assert!(err.contains("recorded 2 samples"), "{err}");
    // The machine changes: llama grows, python3 appears with unknown memory.
    r.m.set_scenario(&scenario_text(3 << 29, 21_000_000_000, true));
    r.record(&rec);

    let rows = r.history_csv(&[]);
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
    let row = &rows[0];
    assert_eq!(row[3], G);
    assert_eq!(row[4], "0");
    assert_eq!(row[6], "500000");
    assert_eq!(row[7], "llama-server");
    assert_eq!(row[8], "alice");
    assert_eq!(row[9], "nvml");
    // Redacted, and the comma and quotes survive the CSV round trip.
    assert_eq!(
        row[11],
        "/opt/llama-server -m /m/q.gguf --api-key <redacted> --alias a,\"b\""
    );
    // RFC 3339 UTC and non-decreasing.
    for w in rows.windows(2) {
        assert!(w[0][0] <= w[1][0]);
    }
    assert!(
        row[0].ends_with('Z') && row[0].len() >= 20 && &row[0][10..11] == "T",
        "{}",
        row[0]
    );
    let raw = r.history_csv_text();
    assert!(
        raw.contains(
            ",\"/opt/llama-server -m /m/q.gguf --api-key <redacted> --alias a,\"\"b\"\"\"\n"
        ),
        "{raw}"
    );
    assert!(!raw.contains("sk-SECRET"));

    // Filters.
    let rows = r.history_csv(&["--name", "python3"]);
    assert_eq!(rows.len(), 2);
    let rows = r.history_csv(&["--pid", "4242", "--since", &rows[1][0]]);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0][1], "1610612736");
    let dev = r.history_csv(&["--devices", "--device", G]);
    let used: Vec<&str> = dev.iter().map(|r| r[5].as_str()).collect();
    assert_eq!(
        used,
        ["20000000000", "20000000000", "21000000000", "21000000000"]
    );
    // The index `snapshot` shows works as well as the UUID; an unknown device
    // fails before any header is printed.
    assert_eq!(r.history_csv(&["--devices", "--device", "0"]), dev);
    assert_eq!(r.history_csv(&["--device", "0"]).len(), 6);
    for fmt in ["table", "csv", "json"] {
        let out = r.history(&["--device", "5", "--format", fmt]);
        assert_eq!(out.status.code(), Some(1), "{fmt}");
        assert!(out.stdout.is_empty(), "{fmt}: {}", stdout_of(&out));
        assert!(
            stderr_of(&out).contains(&format!(
                "no device \"5\" in this recording (recorded: GPU0 {G})"
            )),
            "{}",
            stderr_of(&out)
        );
    }
    assert_eq!(dev[0][7], "37");
    assert_eq!(dev[0][9], "54");
    assert_eq!(dev[0][10], "215.000");

    // JSON: unknown is null, not 0.
    let v = json_of(&r.history(&["--format", "json", "--name", "python3"]));
    assert!(v[0]["memory_bytes"].is_null());
    assert_eq!(v[0]["pid"], 5151);
    // One name per fact: the JSON rows use the CSV's column names.
    let csv_head = r.history_csv_text();
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
    let v =
        r.m.json(&["--replay", dbs, "snapshot", "--json", "--at", at]);
    assert_eq!(v["devices"][0]["memory"]["used_bytes"], 21000000000u64);
    assert_eq!(v["devices"][0]["ledger"]["attributed_bytes"], 1610612736u64);
    assert_eq!(
        v["devices"][0]["ledger"]["unattributed_bytes"],
        21000000000u64 - 1610612736
    );
    assert_eq!(v["devices"][0]["ledger"]["unknown_processes"], 1);
    let table = r.run(&["--replay", dbs, "snapshot", "--at", &dev[0][0]]);
    let text = stdout_of(&table);
    assert!(text.contains("1 GiB"), "{text}");
    assert!(!text.contains("python3"), "{text}");
}

#[test]
fn sigkill_mid_run_leaves_a_readable_database_and_no_stale_lock() {
    let r = Rig::new(false);
    let dbs = r.dbs();
    let mut child = r.spawn_record(&["--interval", "10ms", "--flush-every", "0s"]);
    r.wait_rows(5);
    // A second recorder on the same database is refused while the first runs.
    let second = r.run(&["record", "--db", dbs, "--count", "1"]);
    assert_eq!(second.status.code(), Some(1));
    let err = stderr_of(&second);
    assert!(
        err.contains(
            "another gpuledger recorder is writing to this database (gpuledger record, pid "
        ),
        "{err}"
    );
    assert!(err.contains(&format!("pid {},", child.id())), "{err}");
    // The same file under another name (a symlink, a hard link) is refused too.
    let sym = r.dir.path().join("sym.db");
    let hard = r.dir.path().join("hard.db");
    std::os::unix::fs::symlink(&r.db, &sym).unwrap();
    std::fs::hard_link(&r.db, &hard).unwrap();
    for other in [&sym, &hard] {
        let out = r.run(&["record", "--db", other.to_str().unwrap(), "--count", "1"]);
        assert_eq!(out.status.code(), Some(1), "{}", other.display());
        let err = stderr_of(&out);
        assert!(
            err.contains("another gpuledger recorder is writing"),
            "{err}"
        );
        assert!(err.contains(&format!("pid {}", child.id())), "{err}");
    }

    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let rows = r.history_csv(&[]);
    assert!(rows.len() >= 5);
    assert!(rows.iter().all(|r| r[5] == "4242" && r[1] == "1073741824"));
    // The kernel dropped the lock with the process: a new recorder starts.
    r.record(&["--count", "1", "--interval", "10ms"]);
    let after = r.history_csv(&[]);
    assert_eq!(after.len(), rows.len() + 1);
}

#[test]
fn sigterm_flushes_the_batch_and_exits_cleanly() {
    let r = Rig::new(false);
    // Flush only at stop: every row seen afterwards was written by the SIGTERM path.
    let child = r.spawn_record(&["--interval", "20ms", "--flush-every", "1h"]);
    std::thread::sleep(Duration::from_millis(400));
    // SAFETY: signalling our own child by its pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let err = stderr_of(&out);
    let n: usize = err
        .split("recorded ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(n >= 2, "{err}");
    assert_eq!(r.history_csv(&[]).len(), n);
}

#[test]
fn snapshot_as_csv() {
    let m = machine(true);
    let rows = csv_rows(&m.run(&["snapshot", "--format", "csv"]));
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
    // An option that needs another is bad usage (it returned 1).
    let bad = m.run(&["snapshot", "--at", "1h"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr_of(&bad).contains("--at needs --replay RECORDING.db"));
}

#[test]
fn plot_writes_an_svg_and_a_png_of_the_recording() {
    let r = Rig::new(true);
    r.record(&["--interval", "20ms", "--count", "3"]);
    let plot =
        |out: &std::path::Path| r.run(&["plot", "--db", r.dbs(), "--out", out.to_str().unwrap()]);
    let svg = r.dir.path().join("c.svg");
    assert_ok(&plot(&svg));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(text.contains(&format!("data-device=\"{G}\"")));
    assert!(text.contains("data-label=\"llama-server (4242)\""));
    assert_eq!(text.matches("class=\"panel\"").count(), 1);
    let png = r.dir.path().join("c.png");
    let out = plot(&png);
    let err = stderr_of(&out);
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
    // In Chinese: the words are the catalogue's, the Han characters drawn from a CJK font when
    // one is installed (.ci/setup-fonts.sh); kept beside the browser screenshots to look at.
    let plot_zh = |out: &std::path::Path| {
        let args = ["--lang", "zh-CN", "plot", "--db", r.dbs(), "--out"];
        assert_ok(&r.run(&[&args[..], &[out.to_str().unwrap()]].concat()));
    };
    let zh = r.dir.path().join("c-zh.svg");
    plot_zh(&zh);
    let zh_text = std::fs::read_to_string(&zh).unwrap();
    for words in [
        "显存与 GPU % · ",
        "已用",
        "GPU %（右轴）",
        "未归属（驱动/系统/其他用户）",
    ] {
        assert!(zh_text.contains(words), "{words} missing: {zh_text}");
    }
    assert!(zh_text.contains("data-label=\"llama-server (4242)\""));
    let shot = crate::web_support::screenshot_dir().join("plot-zh-CN.png");
    std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
    plot_zh(&shot);
    let out = plot(&r.dir.path().join("c.jpg"));
    assert_eq!(out.status.code(), Some(2), "a usage error, as clap's");
    assert!(stderr_of(&out).contains("must end in .svg or .png"));
}

#[test]
fn record_prunes_past_the_retention_at_start() {
    let r = Rig::new(false);
    r.record(&["--interval", "10ms", "--count", "3"]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let out = r.record(&["--interval", "10ms", "--count", "1", "--retention", "200ms"]);
    let err = stderr_of(&out);
    assert!(
        err.contains("(retention 200ms, pruned 3 old samples)"),
        "{err}"
    );
    assert_eq!(r.history_csv(&[]).len(), 1);
}

#[test]
fn sigkill_after_3s_at_200ms_loses_at_most_one_sample() {
    let r = Rig::new(false);
    // The default --flush-every: what a user gets without asking.
    let (mut child, _err) = r.spawn_recording(&["--interval", "200ms"]);
    let started = Instant::now();
    std::thread::sleep(Duration::from_millis(3000));
    child.kill().unwrap(); // SIGKILL
    let taken_at_most = started.elapsed().as_millis() as usize / 200 + 1;
    child.wait().unwrap();
    // Samples at 0, 200, ..., 3000 ms: about 15; one process per sample, so rows are samples.
    // With the former default (--flush-every 10s) this kept 0.
    let rows = r.history_csv(&[]);
    assert!(
        rows.len() >= 13 && rows.len() <= taken_at_most,
        "{} rows kept of at most {taken_at_most} samples taken",
        rows.len()
    );
}

#[test]
fn a_deleted_database_stops_the_recorder_with_an_error() {
    let r = Rig::new(false);
    let (mut child, mut err) = r.spawn_recording(&["--interval", "20ms"]);
    std::thread::sleep(Duration::from_millis(200));
    std::fs::remove_file(&r.db).unwrap();
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
    let m = machine(false);
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f.db");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
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
            let out = m.run(&args);
            let err = stderr_of(&out);
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
    let r = Rig::new(false);
    let dbs = r.dbs();
    r.record(&["--interval", "10ms", "--count", "2"]);
    // A sample near i64::MAX, written the way a recorder with a wild clock would.
    let snap = r.m.json(&["--replay", dbs, "snapshot", "--json"]);
    let snap: gpuledger_model::Snapshot = serde_json::from_value(snap).unwrap();
    let mut rec = Recorder::open(&r.db).unwrap();
    rec.add(&snap, i64::MAX - 7);
    drop(rec);
    let svg = r.dir.path().join("c.svg");
    for args in [
        vec!["history", "--db", dbs, "--since", "1970-01-01T00:00:00Z"],
        vec!["history", "--db", dbs, "--devices"],
        vec!["plot", "--db", dbs, "--out", svg.to_str().unwrap()],
        vec!["--replay", dbs, "snapshot"],
    ] {
        let out = r.run(&args);
        let err = stderr_of(&out);
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
    assert_eq!(r.history_csv(&["--until", "now"]).len(), 2);
}

#[test]
fn history_table_escapes_control_characters_from_process_names() {
    let t = ProcTree::new();
    t.add(4242, "evil\x1b]0;PWNED\x07\x1b[2J", 1000, 5, &["x"]);
    let r = Rig::on(Machine::new(
        &scenario_text(1 << 30, 20_000_000_000, false),
        t,
    ));
    r.record(&["--interval", "10ms", "--count", "1"]);
    let text = String::from_utf8(r.history(&[]).stdout).unwrap();
    assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text:?}");
    assert!(
        text.contains("evil\\u001b]0;PWNED\\u0007\\u001b[2J"),
        "{text}"
    );
    // JSON keeps the name exactly (escaped the JSON way).
    let v = json_of(&r.history(&["--format", "json"]));
    assert_eq!(v[0]["name"], "evil\x1b]0;PWNED\x07\x1b[2J");
    // CSV escapes it as `snapshot --format csv` does: one writer (issue 40, item 8).
    let csv = r.history_csv_text();
    assert!(!csv.contains('\x1b') && !csv.contains('\x07'), "{csv:?}");
    assert!(
        csv.contains("evil\\u001b]0;PWNED\\u0007\\u001b[2J"),
        "{csv}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_replay_of_the_apu_recording_keeps_system_memory_and_engines() {
    let f = linux_fixture("amdgpu-apu-gtt");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("apu.db");
    let run = |args: &[&str]| run_on_tree(&f, args);
    let dbs = db.to_str().unwrap();
    assert_ok(&run(&[
        "record",
        "--db",
        dbs,
        "--interval",
        "20ms",
        "--count",
        "2",
    ]));
    let live = json_of(&run(&["snapshot", "--json"]));
    let replay = json_of(&run(&["--replay", dbs, "snapshot", "--json"]));
    let usage = |v: &serde_json::Value, pid: u64| process(v, pid)["usage"][0].clone();
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
    assert!(notes.contains("does not keep listening ports"), "{notes}");
}

/// A full disk stops `record` with an error that says how many samples of the run
/// were kept (and until when), and those are what `history` reads back. The disk is "full" at
/// 160 KiB per file (RLIMIT_FSIZE, SIGXFSZ ignored: writes past it fail as on a full disk).
#[test]
fn a_full_disk_stops_the_recorder_saying_how_many_samples_were_kept() {
    use std::os::unix::process::CommandExt;
    let r = Rig::new(false);
    let mut c =
        r.m.command(&["record", "--db", r.dbs(), "--interval", "10ms"]);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        c.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 160 << 10,
                rlim_max: 160 << 10,
            };
            libc::setrlimit(libc::RLIMIT_FSIZE, &lim);
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    let out = c.output().unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let kept: usize = err
        .split("recording stopped: ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of kept samples: {err}"));
    assert!(kept > 0, "{err}");
    assert!(
        err.contains(&format!(
            "recording stopped: {kept} samples of this run are kept in {}",
            r.dbs()
        )) && err.contains("not written"),
        "{err}"
    );
    assert_eq!(
        r.history_csv(&["--devices", "--since", "1d"]).len(),
        kept,
        "{err}"
    );
}

/// A replayed recording lost what the live machine's snapshot knew: the workload
/// (WORKLOAD showed `—`, the ESTIMATE pane "not an AI runtime") and the type of use (TYPE).
#[test]
fn a_replayed_recording_keeps_the_workload_and_type_the_live_snapshot_had() {
    let r = Rig::new(false);
    let live = json_of(&r.run(&["snapshot", "--json"]));
    let lp = process(&live, 4242);
    assert_eq!(lp["workload"]["kind"], "llama-cpp", "{lp:#}");
    r.record(&["--interval", "20ms", "--count", "3"]);
    let replay = json_of(&r.run(&["--replay", r.dbs(), "snapshot", "--json"]));
    let rp = process(&replay, 4242);
    assert_eq!(rp["workload"], lp["workload"], "{rp:#}");
    assert_eq!(rp["estimate"], lp["estimate"]);
    assert_eq!(rp["usage"][0]["kinds"], lp["usage"][0]["kinds"]);
    assert!(!replay.to_string().contains("sk-SECRET"));
}

/// A mistyped `--db` folder is an error that names it; nothing is created. The default
/// database's folder is still made (first run on a fresh machine).
#[test]
fn record_refuses_a_db_in_a_missing_folder() {
    let r = Rig::new(false);
    let nested = r.dir.path().join("a/b/c.db");
    let out = r.run(&["record", "--db", nested.to_str().unwrap(), "--count", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(
        err.contains(&format!(
            "the folder {} does not exist",
            r.dir.path().join("a/b").display()
        )),
        "{err}"
    );
    assert!(!r.dir.path().join("a").exists());
}
