//! `gpuledger kill` end to end: the real binary against real child processes (Linux).
#![cfg(target_os = "linux")]

use crate::support;

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// `gpuledger kill ARGS` with no GPU library: the memory reads must say "unknown", never 0.
fn kill(args: &[&str]) -> Output {
    support::gpuledger_command()
        .arg("kill")
        .args(args)
        .env("GPULEDGER_NVML_LIB", "/nonexistent/libnvidia-ml.so.1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// A `sleep 30` child reaped by a thread of ours; its exit status arrives on the channel.
struct Sleeper {
    pid: u32,
    status: mpsc::Receiver<ExitStatus>,
}

impl Sleeper {
    fn start() -> Self {
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        let pid = child.id();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait().unwrap());
        });
        Sleeper { pid, status: rx }
    }

    fn still_running(&self) -> bool {
        matches!(
            self.status.recv_timeout(Duration::from_millis(100)),
            Err(mpsc::RecvTimeoutError::Timeout)
        )
    }
}

impl Drop for Sleeper {
    fn drop(&mut self) {
        if self.still_running() {
            // SAFETY: our own child, still unreaped (so the PID is still its own).
            unsafe { libc::kill(self.pid as i32, libc::SIGKILL) };
        }
    }
}

#[test]
fn yes_json_kills_and_reports() {
    let s = Sleeper::start();
    let out = kill(&[&s.pid.to_string(), "--yes", "--json", "--grace", "1"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "gpuledger.kill/1");
    assert_eq!(v["exit_code"], 0);
    let o = &v["outcomes"][0];
    assert_eq!(o["status"], "gone");
    assert_eq!(o["name"], "sleep");
    assert_eq!(o["steps"][0]["action"], "SIGTERM");
    // Unknown stays unknown: no NVML here, so no verdict on the GPU memory.
    assert!(o["gpu_memory"]["released"].is_null());
    assert_eq!(o["gpu_memory"]["after"]["state"], "unknown");
    let st = s.status.recv_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(st.signal(), Some(libc::SIGTERM));
}

#[test]
fn no_terminal_and_no_yes_refuses() {
    let s = Sleeper::start();
    let out = kill(&[&s.pid.to_string()]);
    assert_eq!(out.status.code(), Some(4));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no terminal") && err.contains("--yes"),
        "{err}"
    );
    assert!(s.still_running());
}

#[test]
fn dry_run_signals_nothing() {
    let s = Sleeper::start();
    let out = kill(&[&s.pid.to_string(), "--dry-run"]);
    assert_eq!(out.status.code(), Some(7));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("nothing was signalled") && text.contains("would: send SIGTERM"),
        "{text}"
    );
    assert!(s.still_running());
}

/// The same dry run in each language: its JSON byte for byte the same (the times taken aside),
/// its text in the language, the kill's own sentences included; the refusal for want of a
/// terminal in the language too.
#[test]
fn dry_run_json_is_the_same_in_every_language_and_the_text_speaks_it() {
    let s = Sleeper::start();
    let pid = s.pid.to_string();
    let run = |lang: &str, json: bool| {
        let mut args = vec!["--lang", lang, pid.as_str(), "--dry-run"];
        if json {
            args.push("--json");
        }
        let out = kill(&args);
        assert_eq!(out.status.code(), Some(7));
        String::from_utf8(out.stdout).unwrap()
    };
    // Times are the only figures two runs may differ in.
    let timeless = |json: String| {
        let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
        for o in v["outcomes"].as_array_mut().unwrap() {
            o["elapsed_ms"] = 0.into();
            for st in o["steps"].as_array_mut().unwrap() {
                st["at_ms"] = 0.into();
            }
        }
        v.to_string()
    };
    let english = timeless(run("en", true));
    for lang in ["zh-CN", "zh-TW"] {
        assert_eq!(timeless(run(lang, true)), english, "{lang}");
    }
    let zh = run("zh-CN", false);
    // The frame and the kill's own sentences (head, plan) in the language; the JSON above
    // carries them in English.
    assert!(
        zh.starts_with(&format!("对 PID {pid} (sleep) 的演练：未发送任何信号\n")),
        "{zh}"
    );
    assert!(
        zh.contains(&format!("\n  将会：向 PID {pid}（sleep）发送 SIGTERM\n"))
            && zh.contains("\n  将会：最多等待 3000 ms 让它退出\n")
            && zh.contains("\n  当前：显存未知："),
        "{zh}"
    );
    assert!(
        english.contains("\"message\":\"dry run for PID"),
        "{english}"
    );
    let out = kill(&["--lang", "zh-TW", &pid]);
    assert_eq!(out.status.code(), Some(4));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("沒有可供確認的終端機") && err.contains("--yes"),
        "{err}"
    );
    assert!(s.still_running());
}

#[test]
fn guard_rails_and_missing_processes() {
    let out = kill(&["1", "--yes"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stdout).contains("init"));
    let out = kill(&["4999999", "--yes"]);
    assert_eq!(out.status.code(), Some(6));
    // Without --yes and without a terminal, a PID that does not exist is reported as missing
    // (exit 6), not refused for want of a terminal.
    let out = kill(&["4999999"]);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(6), "{all}");
    assert!(!all.contains("no terminal"), "{all}");
    // Our test process is gpuledger's parent.
    let out = kill(&[&std::process::id().to_string(), "--yes"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&out.stdout).contains("parent of gpuledger"));
}

#[test]
fn bad_arguments() {
    let out = kill(&["12", "--grace", "-3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--grace <DURATION>"));
    // The one duration grammar: `5s` is a grace period like any other option's duration.
    let out = kill(&["4999999", "--grace", "5s", "--yes"]);
    assert_eq!(
        out.status.code(),
        Some(6),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = kill(&["12", "--grace", "2h"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("maximum"));
    let out = kill(&[]);
    assert_eq!(out.status.code(), Some(2));
    let out = kill(&["12", "--replay", "x.json", "--yes"]);
    // Options that cannot go together: bad usage, like clap's own refusals.
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--replay"));
}

#[test]
fn help_documents_exit_codes() {
    let out = kill(&["--help"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "--yes-really",
        "--dry-run",
        "3  a target is still alive",
        "7  dry run",
    ] {
        assert!(text.contains(needle), "{needle} missing from:\n{text}");
    }
}

// ---- GPU memory, through the real NVML loading code and the fake driver ------------------------

const GIB_1_5: u64 = 1_610_612_736;

fn scenario_with(pid: Option<u32>) -> String {
    let mut s = String::from(
        "driver|version=550.54.15\n\
         device|index=0|name=NVIDIA H200|uuid=GPU-1111|total=150754820096|used=20000000000|free=130754820096\n",
    );
    if let Some(pid) = pid {
        s.push_str(&format!("compute|dev=0|pid={pid}|mem={GIB_1_5}\n"));
    }
    s
}

/// A sleeper the fake driver lists as holding 1.5 GiB; when `release` is set, the driver stops
/// listing it as soon as the process has been reaped (as a real driver frees it on exit).
fn gpu_sleeper(
    release: bool,
) -> (
    tempfile::TempDir,
    std::path::PathBuf,
    u32,
    mpsc::Receiver<ExitStatus>,
) {
    let mut child = Command::new("sleep").arg("30").spawn().unwrap();
    let pid = child.id();
    let (dir, path) = support::scenario(&scenario_with(Some(pid)));
    let (tx, rx) = mpsc::channel();
    let p = path.clone();
    std::thread::spawn(move || {
        let st = child.wait().unwrap();
        if release {
            // Atomically: the driver must never read a half-written file.
            let tmp = p.with_extension("tmp");
            std::fs::write(&tmp, scenario_with(None)).unwrap();
            std::fs::rename(&tmp, &p).unwrap();
        }
        let _ = tx.send(st);
    });
    (dir, path, pid, rx)
}

/// `gpuledger kill ARGS` with the fake NVML serving `scenario`.
fn kill_on(scenario: &std::path::Path, args: &[&str]) -> Output {
    support::on_live_proc(scenario)
        .arg("kill")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn gpu_memory_release_is_verified() {
    let (_dir, scen, pid, status) = gpu_sleeper(true);
    let out = kill_on(&scen, &[&pid.to_string(), "--yes", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let g = &v["outcomes"][0]["gpu_memory"];
    assert_eq!(
        g["before"],
        serde_json::json!({"state": "holds", "bytes": GIB_1_5}),
        "{v:#}"
    );
    assert_eq!(g["after"]["state"], "not_listed", "{v:#}");
    assert_eq!(g["released"], true);
    assert_eq!(
        status
            .recv_timeout(Duration::from_secs(5))
            .unwrap()
            .signal(),
        Some(libc::SIGTERM)
    );
}

#[test]
fn dry_run_shows_measured_memory() {
    let (_dir, scen, pid, status) = gpu_sleeper(true);
    let out = kill_on(&scen, &[&pid.to_string(), "--dry-run", "--force"]);
    assert_eq!(out.status.code(), Some(7));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("would: send SIGKILL"), "{text}");
    assert!(
        !text.contains("SIGTERM"),
        "--force plans no SIGTERM: {text}"
    );
    assert!(
        text.contains("now: 1.50 GiB GPU memory (measured)"),
        "{text}"
    );
    // The JSON of the same dry run carries the same reading (it said no reader was
    // available while the text showed the measured memory).
    let out = kill_on(&scen, &[&pid.to_string(), "--dry-run", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mem = &v["outcomes"][0]["gpu_memory"];
    assert_eq!(
        mem["before"],
        serde_json::json!({"state": "holds", "bytes": GIB_1_5}),
        "{v}"
    );
    assert!(mem["detail"].as_str().unwrap().contains("dry run"), "{v}");
    assert!(
        status.recv_timeout(Duration::from_millis(200)).is_err(),
        "dry run killed it"
    );
    // SAFETY: our own child, still unreaped.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
}

#[test]
fn gpu_memory_still_held_is_reported() {
    let (_dir, scen, pid, status) = gpu_sleeper(false);
    let out = kill_on(&scen, &[&pid.to_string(), "--yes"]);
    // The process is gone (exit 0); the memory report says the driver still lists it.
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "GPU memory: not released: it held 1.50 GiB before and is still listed with 1.50 GiB"
        ),
        "{text}"
    );
    assert!(status.recv_timeout(Duration::from_secs(5)).is_ok());
}

/// The confirmation prompt on a real terminal (a pty from util-linux `script`).
#[test]
fn prompt_names_process_and_measured_memory() {
    if !support::have_script() {
        return;
    }
    for (answer, code, alive) in [("n", 4, true), ("y", 0, false)] {
        let (_dir, scen, pid, status) = gpu_sleeper(true);
        let cmd = format!(
            "{} --nvml-lib {} kill {pid} --grace 1",
            env!("CARGO_BIN_EXE_gpuledger"),
            support::fake_nvml().display()
        );
        let out = support::answer_prompt(
            support::isolate(&mut support::in_pty(&cmd)).env("FAKE_NVML_SCENARIO", &scen),
            answer,
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(code), "{text}");
        assert!(text.contains(&format!("PID {pid} sleep")), "{text}");
        assert!(text.contains("1.50 GiB GPU memory (measured)"), "{text}");
        assert!(text.contains("sleep 30"), "{text}");
        let exited = status.recv_timeout(Duration::from_millis(if alive { 200 } else { 5000 }));
        assert_eq!(exited.is_err(), alive, "{text}");
        if alive {
            // SAFETY: our own child, still unreaped.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
    }
}

/// The prompt names the workload (identified from /proc evidence): a `sleep` copied under the name
/// `llama-server` is identified by its executable name.
#[test]
fn prompt_names_workload() {
    if !support::have_script() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("llama-server");
    std::fs::copy("/bin/sleep", &exe).unwrap();
    let mut child = Command::new(&exe).arg("30").spawn().unwrap();
    let cmd = format!(
        "{} kill {} --grace 1",
        env!("CARGO_BIN_EXE_gpuledger"),
        child.id()
    );
    let out = support::answer_prompt(
        support::isolate(&mut support::in_pty(&cmd))
            .env("GPULEDGER_NVML_LIB", "/nonexistent/libnvidia-ml.so.1"),
        "n",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(out.status.code(), Some(4), "{text}");
    assert!(text.contains("workload: llama.cpp"), "{text}");
    assert!(text.contains("GPU memory unknown"), "{text}");
}
