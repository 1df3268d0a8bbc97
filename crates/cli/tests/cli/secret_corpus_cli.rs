//! The secret corpus end to end through the real binary: processes whose command lines and
//! names hold every shape and provider format, on a recorded /proc with the fake NVML, through the
//! table, JSON, CSV, `explain`, `record` (the SQLite file's bytes), `history` in each format, a
//! replay of the recording and of a snapshot file holding raw secrets, `diff` (text and
//! `--json`), `serve`'s `/api/v1/snapshot` and `/metrics`, and the kill prompt on real
//! processes. Zero occurrences of every secret; harmless command lines unchanged.

use crate::secret_corpus as corpus;
use crate::serve_support::*;
use crate::support::*;
use std::path::Path;

const GPU: &str = "GPU-11111111-2222-3333-4444-555555555555";
const PID0: u32 = 30_000;
const HARMLESS0: u32 = 40_000;

fn comm_of(c: &corpus::Case) -> String {
    c.name.clone().unwrap_or_else(|| {
        let a0 = &c.args[0];
        a0.rsplit('/').next().unwrap_or(a0).to_string()
    })
}

/// The corpus and the harmless command lines as GPU processes of one machine.
fn machine() -> Machine {
    let mut scenario = format!(
        "driver|version=550.54.15\n\
         device|index=0|name=NVIDIA H200|uuid={GPU}|pci=00000000:18:00.0|total=150754820096|used=40000000000|free=110754820096\n"
    );
    let procs = ProcTree::new();
    for (i, c) in corpus::cases().iter().enumerate() {
        let pid = PID0 + i as u32;
        let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
        procs.add(pid, &comm_of(c), 1000, 500_000 + i as u64, &args);
        scenario.push_str(&format!("compute|dev=0|pid={pid}|mem=1048576\n"));
    }
    for (i, a) in corpus::harmless().iter().enumerate() {
        let pid = HARMLESS0 + i as u32;
        let args: Vec<&str> = a.iter().map(String::as_str).collect();
        let names = corpus::harmless_names();
        procs.add(pid, names[i % names.len()], 1000, 600_000 + i as u64, &args);
        scenario.push_str(&format!("compute|dev=0|pid={pid}|mem=1048576\n"));
    }
    Machine::new(&scenario, procs)
}

fn assert_no_secret(what: &str, text: &str) {
    for c in corpus::cases() {
        for x in &c.secrets {
            assert!(
                !text.contains(x.as_str()),
                "{what}, {}: {x} leaked in\n{text}",
                c.what
            );
        }
    }
}

fn out_text(what: &str, out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A snapshot file as an old version or a hostile hand could have written it: every corpus
/// process with its raw name and command line.
fn raw_snapshot_file(m: &Machine, dir: &Path, file: &str, pid_shift: u32) -> String {
    let mut v = m.json(&["snapshot", "--json"]);
    for (i, c) in corpus::cases().iter().enumerate() {
        let p = process_mut(&mut v, (PID0 + i as u32) as u64);
        p["name"] = comm_of(c).into();
        p["cmdline"] = serde_json::to_value(&c.args).unwrap();
        p["pid"] = (PID0 + i as u32 + pid_shift).into();
    }
    let path = dir.join(file);
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn the_corpus_leaves_no_secret_in_any_output() {
    let m = machine();
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["snapshot"][..],
        &["snapshot", "--wide"],
        &["snapshot", "--json"],
        &["snapshot", "--format", "csv"],
    ] {
        let text = out_text(&format!("{args:?}"), &m.run(args));
        assert!(text.contains("<redacted>"), "{args:?}: {text}");
        assert_no_secret(&format!("{args:?}"), &text);
    }
    // Harmless command lines and names come out as they went in.
    let v = m.json(&["snapshot", "--json"]);
    for (i, a) in corpus::harmless().iter().enumerate() {
        let p = process(&v, (HARMLESS0 + i as u32) as u64);
        assert_eq!(p["cmdline"], serde_json::to_value(a).unwrap());
        let names = corpus::harmless_names();
        assert_eq!(p["name"], names[i % names.len()]);
    }
    for i in 0..corpus::cases().len() {
        let pid = (PID0 + i as u32).to_string();
        for args in [
            &["explain", &pid, "--no-probe"][..],
            &["explain", &pid, "--no-probe", "--json"],
        ] {
            assert_no_secret(&format!("{args:?}"), &out_text("explain", &m.run(args)));
        }
    }

    // record → the database's bytes, history in each format, replay of a moment.
    let db = dir.path().join("h.db");
    let dbs = db.to_str().unwrap();
    out_text(
        "record",
        &m.run(&["record", "--db", dbs, "--interval", "20ms", "--count", "1"]),
    );
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let bytes = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        assert_no_secret(&path.display().to_string(), &bytes);
    }
    for args in [
        &["history", "--db", dbs][..],
        &["history", "--db", dbs, "--format", "csv"],
        &["history", "--db", dbs, "--format", "json"],
        &["snapshot", "--replay", dbs, "--json"],
        &["snapshot", "--replay", dbs, "--wide"],
    ] {
        assert_no_secret(
            &format!("{args:?}"),
            &out_text(&format!("{args:?}"), &m.run(args)),
        );
    }

    // A snapshot file with raw secrets: replayed, explained, diffed.
    let a = raw_snapshot_file(&m, dir.path(), "a.json", 0);
    let b = raw_snapshot_file(&m, dir.path(), "b.json", 50_000);
    let pid = PID0.to_string();
    for args in [
        &["snapshot", "--replay", &a][..],
        &["snapshot", "--replay", &a, "--wide"],
        &["snapshot", "--replay", &a, "--json"],
        &["snapshot", "--replay", &a, "--format", "csv"],
        &["explain", &pid, "--replay", &a],
        &["diff", &a, &b, "--all"],
        &["diff", &a, &b, "--json"],
        &["diff", &a, &a, "--all", "--json"],
    ] {
        assert_no_secret(
            &format!("{args:?}"),
            &out_text(&format!("{args:?}"), &m.run(args)),
        );
    }

    // serve: the live snapshot and the exposition, then a replayed raw file.
    let s = serve_on(&m, &["--interval", "1s", "--processes", "all"]);
    for path in ["/api/v1/snapshot", "/metrics"] {
        let r = get(s.addr, path);
        assert_eq!(r.status, 200, "{path}");
        assert_no_secret(&format!("serve {path}"), &r.body);
    }
    drop(s);
    let mut cmd = m.command(&["--replay", &a, "serve", "--listen", "127.0.0.1:0"]);
    let s = start_serving(&mut cmd);
    for path in ["/api/v1/snapshot", "/metrics"] {
        let r = get(s.addr, path);
        assert_eq!(r.status, 200, "{path}");
        assert_no_secret(&format!("serve --replay {path}"), &r.body);
    }
}

/// The kill confirmation on real processes (a terminal via util-linux `script`, answered "n"):
/// each carries a corpus command line, and a name made by executing a link of that name (the
/// kernel keeps 15 bytes of it).
#[test]
fn the_kill_prompt_shows_no_secret_of_the_corpus() {
    use std::os::unix::process::CommandExt;
    if !have_script() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut children = Vec::new();
    let mut names = Vec::new();
    for (i, c) in corpus::cases().iter().enumerate() {
        // The executable's name is the process's name: a link to sh named after the case.
        let comm: String = comm_of(c).chars().filter(|c| *c != '/').take(15).collect();
        let link = dir.path().join(format!("{i}")).join(&comm);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("/bin/sh", &link).unwrap();
        let child = std::process::Command::new(&link)
            .arg0(&c.args[0])
            .arg("-c")
            .arg("sleep 600; exit 0")
            .args(&c.args[1..])
            .stdin(std::process::Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        names.push(comm);
        children.push(Reaper(child));
    }
    let pids: Vec<String> = children.iter().map(|c| c.0.id().to_string()).collect();
    let mut text = format!(
        "driver|version=550.54.15\n\
         device|index=0|name=NVIDIA H200|uuid={GPU}|pci=00000000:18:00.0|total=150754820096|used=40000000000|free=110754820096\n"
    );
    for p in &pids {
        text.push_str(&format!("compute|dev=0|pid={p}|mem=1048576\n"));
    }
    let (_d, sc) = scenario(&text);
    let cmd = format!(
        "{} --nvml-lib {} kill {}",
        env!("CARGO_BIN_EXE_gpuledger"),
        fake_nvml().display(),
        pids.join(" ")
    );
    let out = answer_prompt(
        isolate(&mut in_pty(&cmd)).env("FAKE_NVML_SCENARIO", &sc),
        "n",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("About to terminate"), "{text}");
    assert!(text.contains("<redacted>"), "{text}");
    assert_no_secret("kill prompt", &text);
    // A name cut to 15 bytes holds a part of a secret: that part never shows either.
    for n in &names {
        if gpuledger_model::redact_text(n) != *n {
            assert!(!text.contains(n.as_str()), "{n} in\n{text}");
        }
    }
}

struct Reaper(std::process::Child);
impl Drop for Reaper {
    fn drop(&mut self) {
        // SAFETY: the group of our own child (the shell and its sleep).
        unsafe { libc::kill(-(self.0.id() as i32), libc::SIGKILL) };
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
