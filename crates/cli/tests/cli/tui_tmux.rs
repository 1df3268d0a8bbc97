//! End to end: the real binary's live view in a real terminal (tmux on a private socket), against
//! the fake NVML and a recorded /proc tree. Keys go in with `send-keys`, the screen comes back with
//! `capture-pane -p`. Needs tmux (`.ci/setup-tmux.sh`): skipped with a message locally when tmux is
//! absent, a failure under CI=true.

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub(crate) struct Tmux {
    sock: PathBuf,
    _dir: tempfile::TempDir,
}

impl Tmux {
    pub(crate) fn new() -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!(
                    "tmux is required for the live-view end-to-end test (run .ci/setup-tmux.sh)"
                );
            }
            eprintln!("SKIPPED: tmux not installed (run .ci/setup-tmux.sh)");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        Some(Tmux {
            sock: dir.path().join("tmux.sock"),
            _dir: dir,
        })
    }

    pub(crate) fn cmd(&self, args: &[&str]) -> String {
        // The server, started by the first command, passes this environment to the binary.
        let out = isolate(&mut Command::new("tmux"))
            .arg("-S")
            .arg(&self.sock)
            .args(args)
            .output()
            .expect("run tmux");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub(crate) fn screen(&self) -> String {
        self.cmd(&["capture-pane", "-p", "-t", "gl"])
    }

    /// Poll the screen until `pred` holds; fail with the last screen after `secs`.
    pub(crate) fn wait(&self, what: &str, secs: u64, pred: impl Fn(&str) -> bool) -> String {
        let end = Instant::now() + Duration::from_secs(secs);
        loop {
            let s = self.screen();
            if pred(&s) {
                // A frame can be captured half drawn: take a fresh capture once the text is there.
                std::thread::sleep(Duration::from_millis(150));
                let again = self.screen();
                if pred(&again) {
                    return again;
                }
            }
            if Instant::now() > end {
                panic!("timed out waiting for {what}; screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub(crate) fn wait_for(&self, text: &str) -> String {
        self.wait(text, 15, |s| s.contains(text))
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        let mut a = vec!["send-keys", "-t", "gl"];
        a.extend_from_slice(keys);
        self.cmd(&a);
    }

    /// Start session `gl`, `w`×`h`, running the shell command `cmd`.
    pub(crate) fn session(&self, w: u16, h: u16, cmd: &str) {
        let (ws, hs) = (w.to_string(), h.to_string());
        self.cmd(&["new-session", "-d", "-s", "gl", "-x", &ws, "-y", &hs, cmd]);
    }

    /// Press `key` and wait for the binary to exit 0 (its `echo EXITED:$?`).
    pub(crate) fn exit_with(&self, key: &str) -> String {
        self.keys(&[key]);
        self.wait_for("EXITED:0")
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.sock)
            .arg("kill-server")
            .output();
    }
}

pub(crate) fn line_with<'a>(s: &'a str, needle: &str) -> &'a str {
    s.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{s}"))
}

/// The live view, 120×40, on the fake NVML serving `sc` and the tree `root`, with `extra` options.
fn start(t: &Tmux, sc: &Path, root: &Path, extra: &str) {
    let cmd = format!(
        "FAKE_NVML_SCENARIO='{}' NO_COLOR= '{}' --nvml-lib '{}' --proc-root '{}' {extra}; echo EXITED:$?; sleep 60",
        sc.display(),
        env!("CARGO_BIN_EXE_gpuledger"),
        fake_nvml().display(),
        root.display()
    );
    t.session(120, 40, &cmd);
}

/// The view replaying `file` (no NVML scenario at all: nothing is collected, the file is shown),
/// once its REPLAY title and key help are drawn.
fn start_replay(t: &Tmux, root: &Path, file: &Path, what: &str) -> String {
    let missing = file.with_file_name("no-scenario.txt");
    start(t, &missing, root, &format!("--replay '{}'", file.display()));
    t.wait(what, 15, |s| s.contains("REPLAY") && s.contains("q quit"))
}

#[test]
fn live_view_in_tmux_refreshes_filters_resizes_and_quits_cleanly() {
    let Some(t) = Tmux::new() else { return };
    let m = Machine::two_gpus();
    start(&t, &m.scenario, &m.root(), "-d 0.2");

    // Cards, books, table, ledgers.
    let s = t.wait("the first frame", 15, |s| {
        s.contains("llama-server") && s.contains("q quit")
    });
    assert!(s.contains("GPU0 NVIDIA H200"), "{s}");
    assert!(s.contains("GPU1 NVIDIA GeForce RTX 4090"), "{s}");
    assert!(line_with(&s, "gpuledger").contains("every 200 ms"), "{s}");
    // 16 GiB + 8 GiB (5151's larger value of compute/graphics is NVML's business: the list
    // carries both) — whatever the sum, the card shows processes and unattributed.
    assert!(line_with(&s, "│MEM").contains("/ 140 GiB"), "{s}");
    assert!(s.contains("unattributed"), "{s}");
    let llama = line_with(&s, "4242");
    assert!(llama.contains(" 16 GiB"), "{llama}");
    // Every row's memory came from NVML: said once, in the header.
    assert!(line_with(&s, "WORKLOAD").contains("[nvml]"), "{s}");
    // 6001 reports NOT_AVAILABLE: n/a, not 0.
    assert!(line_with(&s, "6001").contains("n/a"), "{s}");
    assert!(s.contains("ESTIMATE (calculated, not measured)"), "{s}");
    // Secrets from command lines never reach the screen.
    assert!(!s.contains("SECRET"), "{s}");

    // Filter by typing.
    t.keys(&["/", "python"]);
    let s = t.wait("the filter to apply", 10, |s| {
        s.contains("filter: python") && !s.contains("llama-server")
    });
    assert!(line_with(&s, "5151").contains("python3"), "{s}");
    t.keys(&["Escape"]);
    t.wait("the filter to clear", 10, |s| s.contains("llama-server"));

    // Help overlay.
    t.keys(&["?"]);
    t.wait_for("Help — any of ? F1 Esc closes");
    t.keys(&["Escape"]);
    t.wait("help to close", 10, |s| !s.contains("Help — any"));

    // The machine changes: 5151 ends. The next rounds show it gone.
    m.set_scenario(
        &TWO_GPUS
            .lines()
            .filter(|l| !l.contains("pid=5151"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    t.wait("5151 to disappear", 10, |s| !s.contains("python3"));

    // Resize to 80×24: compact cards, nothing wider than the window.
    t.cmd(&["resize-window", "-t", "gl", "-x", "80", "-y", "24"]);
    // (The bottom panes may stay in the rows a short table leaves: the cards say compact.)
    let s = t.wait("the compact layout", 10, |s| {
        s.contains("procs ") && s.contains("GPU0 H200") && !s.contains("│MEM ")
    });
    assert!(s.lines().all(|l| l.chars().count() <= 80), "{s}");
    assert!(line_with(&s, "GPU0 H200").contains("/140 GiB"), "{s}");
    // And large again: the ledgers come back.
    t.cmd(&["resize-window", "-t", "gl", "-x", "240", "-y", "70"]);
    t.wait_for("Workload · evidence");

    // Quit: exit status 0 and the normal screen is back.
    let s = t.exit_with("q");
    assert!(!s.contains("GPU MEM"), "alternate screen left behind:\n{s}");
}

#[test]
fn replay_in_tmux_shows_the_marker_and_refuses_kill() {
    let Some(t) = Tmux::new() else { return };
    let m = Machine::two_gpus();
    let out = m.run(&["snapshot", "--json"]);
    assert!(out.status.success());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("saved.json");
    std::fs::write(&file, &out.stdout).unwrap();
    let s = start_replay(&t, &m.root(), &file, "the replayed view");
    assert!(line_with(&s, "REPLAY").contains("saved.json"), "{s}");
    assert!(s.contains("llama-server"), "{s}");
    t.keys(&["T"]);
    t.wait_for("nothing to terminate");
    t.exit_with("C-c");
}

/// Field 22 of /proc/PID/stat.
fn start_time_of(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let rest = &s[s.rfind(')').unwrap() + 2..];
    rest.split_whitespace().nth(19).unwrap().parse().unwrap()
}

#[test]
fn terminate_from_the_view_ends_a_real_process_and_reports_what_the_next_round_shows() {
    let Some(t) = Tmux::new() else { return };
    // A real process to end, listed by the fake NVML with a recorded /proc entry that carries its
    // real start time (the kill re-checks the identity against the live /proc).
    let mut child = Command::new("sleep").arg("300").spawn().unwrap();
    let pid = child.id();
    let procs = two_gpus_procs();
    procs.add(pid, "sleep", 0, start_time_of(pid), &["sleep", "300"]);
    let listed = format!("compute|dev=0|pid={pid}|mem=2147483648\n");
    let (_d, sc) = scenario(&format!("{TWO_GPUS}{listed}"));
    start(&t, &sc, &procs.root(), "-d 0.2");
    t.wait_for("llama-server");
    t.keys(&["/", "sleep", "Enter"]);
    t.wait("the filter", 10, |s| {
        !s.contains("llama-server") && s.contains(&pid.to_string())
    });
    t.keys(&["T"]);
    let s = t.wait_for(&format!("Terminate PID {pid} (sleep)?"));
    assert!(s.contains("It holds 2 GiB on GPU0."), "{s}");
    t.keys(&["y"]);
    t.wait_for("waiting to see it gone");
    // The process really ends (SIGTERM from the actions crate).
    let end = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(Instant::now() < end, "sleep {pid} still running");
        std::thread::sleep(Duration::from_millis(50));
    };
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(15), "{status:?}");
    // While the driver still lists it, the view does not claim success.
    std::thread::sleep(Duration::from_millis(600));
    assert!(!t.screen().contains("is gone"), "{}", t.screen());
    // The driver drops it: now the view reports it, from the snapshot.
    std::fs::write(&sc, TWO_GPUS).unwrap();
    t.wait_for(&format!("PID {pid} (sleep) is gone: no longer listed at"));
    t.exit_with("q");
}

#[test]
fn a_panic_restores_the_terminal() {
    let Some(t) = Tmux::new() else { return };
    let m = Machine::two_gpus();
    // Debug builds panic after the first frame with data when this is set (see term.rs).
    let cmd = format!(
        "RUST_BACKTRACE=0 GPULEDGER_TEST_PANIC=1 FAKE_NVML_SCENARIO='{}' '{}' --nvml-lib '{}' --proc-root '{}'; echo EXITED:$?; stty -a | tr ' ' '\\n' | grep -x -- '-\\?icanon'; sleep 60",
        m.scenario.display(),
        env!("CARGO_BIN_EXE_gpuledger"),
        fake_nvml().display(),
        m.root().display()
    );
    t.session(120, 40, &cmd);
    let s = t.wait("the exit after the panic", 15, |s| {
        s.contains("EXITED:101") && s.contains("icanon")
    });
    // The message is on the normal screen, the view is gone, and the tty is back in canonical
    // mode (raw mode would show `-icanon`).
    assert!(s.contains("deliberate panic after drawing"), "{s}");
    assert!(!s.contains("GPU MEM"), "{s}");
    assert!(s.lines().any(|l| l.trim() == "icanon"), "{s}");
}

#[test]
fn replay_of_a_recording_in_tmux_shows_the_recorded_moment() {
    let Some(t) = Tmux::new() else { return };
    let m = Machine::two_gpus();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rec.db");
    let dbs = db.to_str().unwrap();
    assert_ok(&m.run(&["record", "--db", dbs, "--interval", "20ms", "--count", "2"]));
    let s = start_replay(&t, &m.root(), &db, "the replayed recording");
    assert!(line_with(&s, "REPLAY").contains("rec.db"), "{s}");
    assert!(s.contains("llama-server") && s.contains("python3"), "{s}");
    t.exit_with("q");
}

#[test]
fn alerts_show_in_the_live_view() {
    let Some(t) = Tmux::new() else { return };
    let m = Machine::two_gpus();
    start(
        &t,
        &m.scenario,
        &m.root(),
        "--alert 'device.memory.used > 30%'",
    );
    // GPU1 uses 9.0 of 25.8 GB (35 %): it fires; GPU0 (27 %) does not.
    let s = t.wait("the alert", 15, |s| s.contains("ALERT"));
    let line = line_with(&s, "ALERT");
    assert!(
        line.contains("device.memory.used > 30%") && line.contains("GPU1"),
        "{s}"
    );
    assert!(
        !s.contains("GPU0 NVIDIA H200 ─") || !line.contains("GPU0"),
        "{s}"
    );
    t.exit_with("q");
}

#[test]
fn remote_view_shows_another_machines_snapshot_read_only() {
    let Some(t) = Tmux::new() else { return };
    // Another machine's `gpuledger serve`, as far as the view can tell: its snapshot endpoint.
    let body = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/sample-snapshot.json"
    ))
    .unwrap();
    let (port, _server) = canned_http(vec![("/api/v1/snapshot", 200, body)], 200);
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-scenario.txt");
    let procs = two_gpus_procs();
    start(
        &t,
        &missing,
        &procs.root(),
        &format!("--remote http://127.0.0.1:{port} -d 0.2"),
    );
    let s = t.wait("the remote view", 15, |s| {
        s.contains("REMOTE") && s.contains("llama-server")
    });
    assert!(
        line_with(&s, "REMOTE").contains(&format!("127.0.0.1:{port}")),
        "{s}"
    );
    assert!(s.contains("sample-host"), "{s}");
    t.keys(&["T"]);
    t.wait_for("read-only, nothing is terminated");
    t.exit_with("q");
}

/// The README's sample, as a user first sees it, at three terminal sizes. The top
/// process's row says who (NAME), what (WORKLOAD, uncut from 120 columns), how much (GPU memory)
/// and how busy (SM%); the chart, where there is one, has its legend.
#[test]
fn readme_sample_shows_the_answer_at_80x24_120x40_and_200x60() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/sample-snapshot.json");
    for (w, h) in [(80, 24), (120, 40), (200, 60)] {
        // A server per size: a killed last session ends its server asynchronously, and a new
        // session asked of that server while it exits fails ("server exited unexpectedly").
        let Some(t) = Tmux::new() else { return };
        let cmd = format!(
            "NO_COLOR= '{}' --replay '{}'; echo EXITED:$?; sleep 60",
            env!("CARGO_BIN_EXE_gpuledger"),
            sample.display()
        );
        t.session(w, h, &cmd);
        let s = t.wait("the replayed sample", 15, |s| {
            s.contains("REPLAY") && s.contains("4242")
        });
        let row = line_with(&s, "4242 ");
        for want in ["llama-server", "9.50 GiB", "71%"] {
            assert!(
                row.contains(want),
                "{w}x{h}: {want:?} missing in {row:?}\n{s}"
            );
        }
        let workload = if w >= 120 {
            "llama.cpp · Qwen3-8B-Q4_K_M"
        } else {
            "llama.cpp · Qwen3"
        };
        assert!(row.contains(workload), "{w}x{h}: {row:?}");
        let header = line_with(&s, " NAME ");
        assert!(
            header.contains("NAME") && header.contains("WORKLOAD") && header.contains("SM%"),
            "{w}x{h}: {header}"
        );
        // The title keeps its items whole: the time is shown entire or not at all.
        let title = s.lines().next().unwrap();
        assert!(
            title.contains("REPLAY")
                && (!title.contains("2026-11-29T") || title.contains("2026-11-29T09:00:00Z")),
            "{w}x{h}: {title}"
        );
        // The device's utilisation is whole at every width (it was cut to "GPU 6"), named as
        // the snapshot table names it.
        assert!(s.contains("GPU% 64"), "{w}x{h}:\n{s}");
        if h >= 40 {
            assert!(
                s.contains("━ GPU0 memory") && s.contains("• 4242 llama-server memory"),
                "{w}x{h}: chart legend missing:\n{s}"
            );
            // The headline: the estimated ledger of the selected server, apart from the
            // measured figures, from the snapshot alone (nothing read on this machine).
            assert!(
                s.contains("weights") && s.contains("4.35 GiB") && s.contains("9.27 GiB"),
                "{w}x{h}: estimate pane:\n{s}"
            );
        }
        t.exit_with("q");
    }
}

/// `scripts/view-vs-nvitop.sh` ran `cargo build` and wrote into the checkout even
/// when given a binary. Given GPULEDGER_BIN, FAKE_NVML_LIB and NVITOP it builds nothing (a
/// `cargo` on PATH that fails would say), captures that binary, and writes only to OUT_DIR.
#[test]
fn view_vs_nvitop_uses_the_given_binary_and_writes_outside_the_checkout() {
    if Tmux::new().is_none() || Command::new("gcc").arg("--version").output().is_err() {
        eprintln!("SKIPPED: needs tmux and gcc");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let marker = dir.path().join("cargo-ran");
    let stub = |name: &str, body: &str| {
        use std::os::unix::fs::PermissionsExt;
        let p = bin.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    };
    stub("cargo", &format!("touch '{}'; exit 1", marker.display()));
    let nvitop = stub("nvitop", "echo STUB-NVITOP; sleep 60");
    let out_dir = dir.path().join("out");
    let watched = ["target/view-vs-nvitop", "target/nvitop-venv"].map(|p| root.join(p));
    let stamp = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let before: Vec<_> = watched.iter().map(|p| stamp(p)).collect();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg(root.join("scripts/view-vs-nvitop.sh"))
        .arg(&out_dir)
        .env("PATH", path)
        .env("GPULEDGER_BIN", env!("CARGO_BIN_EXE_gpuledger"))
        .env("FAKE_NVML_LIB", fake_nvml())
        .env("NVITOP", &nvitop)
        .env("CAPTURE_WAIT", "2")
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .output()
        .unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{log}");
    assert!(!marker.exists(), "cargo ran: {log}");
    for size in ["80x24", "100x30", "120x40"] {
        let g = std::fs::read_to_string(out_dir.join(format!("gpuledger-{size}.txt"))).unwrap();
        assert!(
            g.contains("llama-server") && g.contains("RTX 4090"),
            "{size}:\n{g}"
        );
        let n = std::fs::read_to_string(out_dir.join(format!("nvitop-{size}.txt"))).unwrap();
        assert!(n.contains("STUB-NVITOP"), "{size}:\n{n}");
    }
    let after: Vec<_> = watched.iter().map(|p| stamp(p)).collect();
    assert_eq!(before, after, "the script wrote into the checkout");
    assert!(
        !dir.path().join("cache").exists(),
        "no venv when NVITOP is given"
    );
}
