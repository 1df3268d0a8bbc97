//! Text from outside reaching the terminal: secrets on command lines in every shape the tester
//! found (collection, replayed files, the kill prompt), and terminal escape sequences in a
//! process's argv[0], a replayed file's host and device names, and GGUF metadata in errors.

use crate::support::*;

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// argv[0] of the hostile process: retitles the terminal and clears the screen when printed raw.
const EVIL: &str = "\u{1b}]0;PWNED\u{7}\u{1b}[2Jllama-server";

/// No raw control character but newlines (and tabs) may reach the terminal.
fn assert_no_controls(what: &str, text: &str) {
    let bad: Vec<char> = text
        .chars()
        .filter(|c| c.is_control() && *c != '\n' && *c != '\t')
        .collect();
    assert!(bad.is_empty(), "{what}: raw {bad:?} in {text:?}");
}

fn assert_no_secret(what: &str, text: &str) {
    for i in 1..=7 {
        let s = format!("SECRET{i}x");
        assert!(!text.contains(&s), "{what}: {s} leaked in {text}");
    }
}

/// A real process whose argv holds every secret shape, and EVIL as argv[0].
fn hostile_process() -> Child {
    Command::new("/bin/sh")
        .arg0(EVIL)
        .args([
            "-c",
            "sleep 600; exit 0",
            "-H",
            "Authorization: Bearer SECRET1x",
            "--header=Authorization:SECRET2x",
            "-u",
            "user:SECRET3x",
            "llama-server -m /m.gguf --api-key SECRET4x --port 1",
            "--config",
            r#"{"api_key":"SECRET5x"}"#,
            "https://h.example/m.gguf?sv=1&sig=SECRET6x",
        ])
        .stdin(Stdio::null())
        // Its own process group, so that the shell's `sleep` goes with it.
        .process_group(0)
        .spawn()
        .unwrap()
}

fn scenario_for(pid: u32) -> (tempfile::TempDir, std::path::PathBuf) {
    scenario(&format!(
        "driver|version=550.54.15\n\
         device|index=0|name=NVIDIA H200|uuid=GPU-11111111-2222-3333-4444-555555555555|pci=00000000:18:00.0|total=150754820096|used=40000000000|free=110754820096\n\
         compute|dev=0|pid={pid}|mem=1610612736\n"
    ))
}

fn run(sc: &Path, args: &[&str]) -> Output {
    on_live_proc(sc)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

struct Reaper(Child);
impl Drop for Reaper {
    fn drop(&mut self) {
        // SAFETY: the group of our own child (the shell and its sleep).
        unsafe { libc::kill(-(self.0.id() as i32), libc::SIGKILL) };
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_hostile_process_neither_leaks_secrets_nor_drives_the_terminal() {
    let p = Reaper(hostile_process());
    let pid = p.0.id();
    let (_d, sc) = scenario_for(pid);
    let pid_s = pid.to_string();
    for args in [
        vec!["snapshot"],
        vec!["snapshot", "--wide"],
        vec!["snapshot", "--json"],
        vec!["snapshot", "--format", "csv"],
        vec!["explain", &pid_s],
        vec!["explain", &pid_s, "--json"],
    ] {
        let out = run(&sc, &args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{args:?}: {text}");
        assert!(text.contains(&pid_s), "{args:?}: {text}");
        assert_no_secret(&format!("{args:?}"), &text);
        assert_no_controls(&format!("{args:?}"), &text);
    }
    // The table shows the escape as text, visibly.
    let out = run(&sc, &["snapshot", "--wide"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\\u001b]0;PWNED\\u0007\\u001b[2J"), "{text}");
    assert!(text.contains("Authorization: <redacted>"), "{text}");
}

/// The kill confirmation prompt, on a real terminal (util-linux `script`), answered "n".
#[test]
fn the_kill_prompt_shows_neither_secrets_nor_escapes() {
    if !have_script() {
        return;
    }
    let p = Reaper(hostile_process());
    let pid = p.0.id();
    let (_d, sc) = scenario_for(pid);
    let cmd = format!(
        "{} --nvml-lib {} kill {pid}",
        env!("CARGO_BIN_EXE_gpuledger"),
        fake_nvml().display()
    );
    let out = answer_prompt(
        isolate(&mut in_pty(&cmd)).env("FAKE_NVML_SCENARIO", &sc),
        "n",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("About to terminate"), "{text}");
    assert!(text.contains(&format!("PID {pid}")), "{text}");
    assert_no_secret("kill prompt", &text);
    // The pty turns "\n" into "\r\n"; anything else raw came from the process.
    assert_no_controls("kill prompt", &text.replace('\r', ""));
}

#[test]
fn a_replayed_file_is_redacted_and_escaped_too() {
    let m = Machine::two_gpus();
    let mut v = m.json(&["snapshot", "--json"]);
    // What a hostile or old file can hold: raw secrets, escapes in host and device names.
    v["host"]["hostname"] = "box\u{1b}]0;PWNED\u{7}".into();
    v["devices"][0]["name"] = "H200\u{1b}[2J".into();
    let p = process_mut(&mut v, 4242);
    p["cmdline"] = serde_json::json!([
        "/opt/llama/llama-server",
        "--api-key",
        "SECRET1x",
        "--token=SECRET2x"
    ]);
    p["name"] = "\u{1b}[2Jllama-server".into();
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("hostile.json");
    std::fs::write(&file, v.to_string()).unwrap();
    let f = file.to_str().unwrap();
    for args in [
        vec!["--replay", f, "snapshot", "--wide"],
        vec!["--replay", f, "snapshot", "--json"],
        vec!["--replay", f, "explain", "4242"],
        vec!["--replay", f, "explain", "4242", "--json"],
        vec!["diff", f, f],
    ] {
        let out = m.run(&args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{args:?}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_no_secret(&format!("{args:?}"), &text);
        assert_no_controls(&format!("{args:?}"), &text);
    }
}

#[test]
fn gguf_metadata_in_an_estimate_error_is_escaped() {
    use gpuledger_workloads::gguf::{writer::GgufWriter, MetaValue};
    let d = tempfile::tempdir().unwrap();
    let model = d.path().join("evil.gguf");
    let mut w = GgufWriter::new();
    w.kv(
        "general.architecture",
        MetaValue::String("\u{1b}]0;PWNED\u{7}\u{1b}[2J".into()),
    );
    w.write(&model).unwrap();
    let (_s, sc) = scenario("driver|version=550.54.15\n");
    let out = run(&sc, &["estimate", model.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("evil.gguf"), "{err}");
    assert!(err.contains("\\u001b]0;PWNED"), "{err}");
    assert_no_controls("estimate error", &err);
}

/// A raw newline in GGUF metadata (or in the model's file name) must not forge a
/// line of `estimate`'s output or of its errors: the header line and the error stay one line.
#[test]
fn newlines_in_gguf_metadata_forge_no_line() {
    use gpuledger_workloads::gguf::{writer::GgufWriter, GgmlType, MetaValue};
    let d = tempfile::tempdir().unwrap();
    let (_s, sc) = scenario("driver|version=550.54.15\n");
    let forged = |text: &str| text.lines().any(|l| l.starts_with("FORGED"));
    // An architecture nobody knows: the error names it on one line.
    let bad = d.path().join("bad.gguf");
    let mut w = GgufWriter::new();
    w.kv(
        "general.architecture",
        MetaValue::String("x\nFORGED: fits on GPU0".into()),
    );
    w.write(&bad).unwrap();
    let out = run(&sc, &["estimate", bad.to_str().unwrap()]);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!forged(&err) && err.contains("\\u000aFORGED"), "{err}");
    // A model that estimates, with a newline in its architecture and in its file name: the
    // header (and every other line) is not forged.
    let f16 = GgmlType::from_name("f16").unwrap();
    let arch = "llama\nFORGED: 0 B";
    let mut w = GgufWriter::new();
    w.kv("general.architecture", MetaValue::String(arch.into()));
    for (k, v) in [
        ("block_count", 2),
        ("context_length", 4096),
        ("embedding_length", 256),
        ("attention.head_count", 4),
        ("attention.head_count_kv", 4),
        ("vocab_size", 1000),
    ] {
        w.kv(&format!("{arch}.{k}"), MetaValue::U32(v));
    }
    w.tensor("token_embd.weight", &[256, 1000], f16);
    for il in 0..2 {
        w.tensor(&format!("blk.{il}.ffn_up.weight"), &[256, 1024], f16);
    }
    let good = d.path().join("m\nFORGED.gguf");
    w.write(&good).unwrap();
    let out = run(&sc, &["estimate", good.to_str().unwrap(), "-c", "512"]);
    let (text, err) = (stdout_of(&out), stderr_of(&out));
    assert!(!forged(&text) && !forged(&err), "{text}\n{err}");
    assert!(
        text.contains("\\u000aFORGED") || err.contains("\\u000aFORGED"),
        "{text}\n{err}"
    );
}

/// A replayed file's hostname (and device name, process name) with a raw newline
/// forges no line in any text output that shows it. (CSV quotes such a field, as RFC 4180 says:
/// a CSV reader reads it back whole.)
#[test]
fn newlines_in_a_replayed_file_forge_no_line() {
    let m = Machine::two_gpus();
    let mut v = m.json(&["snapshot", "--json"]);
    v["host"]["hostname"] = "box\nFORGED host line".into();
    v["devices"][0]["name"] = "H200\nFORGED device line".into();
    process_mut(&mut v, 4242)["name"] = "llama\nFORGED process line".into();
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("forged.json");
    std::fs::write(&file, v.to_string()).unwrap();
    let f = file.to_str().unwrap();
    for args in [
        vec!["--replay", f, "snapshot"],
        vec!["--replay", f, "snapshot", "--wide"],
        vec!["--replay", f, "explain", "4242"],
        vec!["diff", f, f],
        vec!["--replay", f, "selftest"],
    ] {
        let out = m.run(&args);
        for text in [stdout_of(&out), stderr_of(&out)] {
            assert!(
                !text.lines().any(|l| l.trim_start().starts_with("FORGED")),
                "{args:?}:\n{text}"
            );
        }
    }
    let text = stdout_of(&m.run(&["--replay", f, "snapshot"]));
    assert!(text.contains("box\\u000aFORGED host line"), "{text}");
}
