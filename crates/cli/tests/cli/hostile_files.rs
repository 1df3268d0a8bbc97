//! Files that a hostile user (or an accident) puts where gpuledger expects a regular file: a FIFO
//! named as a model on a GPU process's command line, `/dev/zero` or a FIFO as a replay file, a
//! diff operand or a log. Nothing may block or read without bound, and a stop request must always
//! stop `record`, `watch` and `serve`.
//!
//! Every command runs under a generous deadline that only detects a hang (the test then fails
//! instead of hanging the suite); no assertion is about speed.

use crate::support::*;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Far above any honest run on a busy machine: reaching it means the command hung.
const HANG: Duration = Duration::from_secs(120);

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

/// Wait for `child`, killing it (and failing) if it has not finished by the hang deadline.
fn finish(mut child: Child, what: &str) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > HANG {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what} hung (killed after {HANG:?}); stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The binary on the live /proc with its output piped, not started.
fn gpuledger_cmd(scenario: &Path) -> Command {
    let mut c = on_live_proc(scenario);
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn run(scenario: &Path, args: &[&str], what: &str) -> Output {
    finish(gpuledger_cmd(scenario).args(args).spawn().unwrap(), what)
}

/// A running process that looks like `llama-server -m <fifo>`: a copy of the shell named
/// llama-server (so its executable says llama.cpp), with the FIFO on its command line.
struct FakeServer {
    child: Child,
    _dir: tempfile::TempDir,
    fifo: PathBuf,
}

impl FakeServer {
    fn start() -> FakeServer {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("llama-server");
        std::fs::copy("/bin/sh", &exe).unwrap();
        let fifo = dir.path().join("m.gguf");
        mkfifo(&fifo);
        // `sh -c SCRIPT NAME ARG`: "-m" and the FIFO are only $0 and $1; two commands keep the
        // shell itself (this PID) alive rather than exec'ing sleep.
        let child = Command::new(&exe)
            .args(["-c", "sleep 600; exit 0", "-m"])
            .arg(&fifo)
            .stdin(Stdio::null())
            // Its own process group, so that the shell's `sleep` goes with it.
            .process_group(0)
            .spawn()
            .unwrap();
        FakeServer {
            child,
            _dir: dir,
            fifo,
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn scenario(&self) -> (tempfile::TempDir, PathBuf) {
        scenario(&format!(
            "driver|version=550.54.15\n\
             device|index=0|name=NVIDIA H200|uuid=GPU-11111111-2222-3333-4444-555555555555|pci=00000000:18:00.0|total=150754820096|used=40000000000|free=110754820096\n\
             compute|dev=0|pid={}|mem=17179869184\n",
            self.pid()
        ))
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        // SAFETY: the group of our own child (the shell and its sleep).
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_fifo_named_as_a_model_blocks_no_collector() {
    let srv = FakeServer::start();
    let (_d, sc) = srv.scenario();
    let pid = srv.pid().to_string();

    let out = run(&sc, &["snapshot", "--json"], "snapshot");
    let v = json_of(&out);
    let p = process(&v, srv.pid().into());
    assert_eq!(p["workload"]["kind"], "llama-cpp", "{p}");
    assert_eq!(
        p["workload"]["model"].as_str(),
        Some(srv.fifo.to_str().unwrap())
    );

    // explain reads the model header itself, and says why there is no estimate.
    let out = run(&sc, &["explain", &pid, "--json"], "explain");
    let v = json_of(&out);
    let why = v["estimated"]["unavailable"].as_str().unwrap_or_default();
    assert!(
        why.contains("not a regular file") && why.contains("FIFO"),
        "{v}"
    );

    // estimate of the FIFO itself: an error naming the file, not a hang.
    let out = run(&sc, &["estimate", srv.fifo.to_str().unwrap()], "estimate");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(srv.fifo.to_str().unwrap()) && err.contains("FIFO"),
        "{err}"
    );

    // kill collects a snapshot first (a dry run plans without signalling).
    let out = run(&sc, &["kill", &pid, "--dry-run"], "kill --dry-run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("dry run for PID {pid}")),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn special_files_are_refused_as_replays_diff_operands_and_logs() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("snap.json");
    mkfifo(&fifo);
    let (_s, sc) = scenario("driver|version=550.54.15\n");
    let good = d.path().join("good.json");
    let out = run(&sc, &["snapshot", "--json"], "snapshot");
    std::fs::write(&good, json_of(&out).to_string()).unwrap();
    let fifo_s = fifo.to_str().unwrap();
    let good_s = good.to_str().unwrap();

    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (
            vec!["--replay", "/dev/zero", "snapshot"],
            "/dev/zero",
            "character device",
        ),
        (vec!["--replay", fifo_s, "snapshot"], fifo_s, "FIFO"),
        (vec!["--replay", fifo_s, "explain", "1"], fifo_s, "FIFO"),
        (
            vec!["diff", "/dev/zero", good_s],
            "/dev/zero",
            "character device",
        ),
        (vec!["diff", good_s, fifo_s], fifo_s, "FIFO"),
        (vec!["--replay", "/tmp", "snapshot"], "/tmp", "directory"),
    ];
    for (args, file, kind) in cases {
        let out = run(&sc, &args, &args.join(" "));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(file) && err.contains(kind), "{args:?}: {err}");
    }
}

#[test]
fn a_fifo_as_the_log_of_explain_or_estimate_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("server.log");
    mkfifo(&fifo);
    let model = d.path().join("m.gguf");
    let mut w = gpuledger_workloads::gguf::writer::GgufWriter::new();
    use gpuledger_workloads::gguf::MetaValue;
    w.kv("general.architecture", MetaValue::String("llama".into()))
        .kv("llama.block_count", MetaValue::U32(1))
        .kv("llama.context_length", MetaValue::U32(4096))
        .kv("llama.embedding_length", MetaValue::U32(64))
        .kv("llama.attention.head_count", MetaValue::U32(4))
        .kv("llama.attention.head_count_kv", MetaValue::U32(4))
        .kv("llama.vocab_size", MetaValue::U32(256));
    let f32t = gpuledger_workloads::gguf::GgmlType::from_name("f32").unwrap();
    w.tensor("token_embd.weight", &[64, 256], f32t);
    w.write(&model).unwrap();
    let (_s, sc) = scenario("driver|version=550.54.15\n");
    let out = run(
        &sc,
        &[
            "estimate",
            model.to_str().unwrap(),
            "--log",
            fifo.to_str().unwrap(),
        ],
        "estimate --log FIFO",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("FIFO"), "{err}");
}

fn sigterm(child: &Child) {
    // SAFETY: signalling our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
}

/// `record`, `watch` and `serve` whose collection round is stuck (the fake NVML reads its
/// scenario from a FIFO nobody writes: a driver call that never returns) still stop on SIGTERM.
#[test]
fn sigterm_stops_record_watch_and_serve_even_when_a_round_hangs() {
    let d = tempfile::tempdir().unwrap();
    let stuck = d.path().join("scenario");
    mkfifo(&stuck);
    let db = d.path().join("rec.db");
    let runs: Vec<(&str, Vec<String>)> = vec![
        (
            "record",
            vec![
                "record".into(),
                "--db".into(),
                db.display().to_string(),
                "--interval".into(),
                "200ms".into(),
            ],
        ),
        (
            "watch",
            vec![
                "watch".into(),
                "--alert".into(),
                "device.memory.used > 90%".into(),
                "--interval".into(),
                "200ms".into(),
            ],
        ),
        (
            "serve",
            vec!["serve".into(), "--listen".into(), "127.0.0.1:0".into()],
        ),
    ];
    for (name, args) in runs {
        let child = gpuledger_cmd(&stuck).args(&args).spawn().unwrap();
        // Let it get stuck in its first round (if the signal came earlier it would stop it
        // all the same: the assertion below holds either way).
        std::thread::sleep(Duration::from_secs(2));
        sigterm(&child);
        let out = finish(child, name);
        let err = String::from_utf8_lossy(&out.stderr);
        // 130: stopped by the request although the round never finished.
        assert_eq!(out.status.code(), Some(130), "{name}: {err}");
        assert!(err.contains("stopping at once"), "{name}: {err}");
    }
}

/// A malformed `/proc/PID/stat` (recorded tree) is reported as malformed, with the file and what is
/// wrong, never as "exited during the round".
#[test]
fn a_malformed_proc_stat_is_named_not_called_exited() {
    let m = Machine::two_gpus();
    let stat = m.root().join("4242/stat");
    std::fs::write(&stat, "4242 (llama-server) S 1 4242\n").unwrap();
    let v = m.json(&["snapshot", "--json"]);
    let p = process(&v, 4242);
    let why = p["metadata_unavailable"].as_str().unwrap();
    assert_eq!(
        why,
        format!(
            "{} is malformed: it ends after 5 fields, before field 22 (start time)",
            stat.display()
        )
    );
    let notes: Vec<&str> = strings(&v["notes"]);
    assert!(
        notes.iter().any(|n| n
            .starts_with("1 GPU process has a /proc entry that could not be read:")
            && n.contains("is malformed")),
        "{notes:?}"
    );
    // Pid 9999 of the scenario really is absent: that one alone is "not visible".
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("1 GPU process is not visible")),
        "{notes:?}"
    );

    // explain of that PID says the same.
    let text = stdout_of(&m.run(&["explain", "4242"]));
    assert!(text.contains("is malformed"), "{text}");
}
