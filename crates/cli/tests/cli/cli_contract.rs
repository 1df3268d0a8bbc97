//! The command line's contract: `--version` names the commit and date (and `selftest` repeats it),
//! completions and man pages come from the same clap definitions, and every command answers a
//! bad value with exit status 2 (bad usage) before it touches any file, as README and `--help` say.

use std::process::Command;

fn gpuledger(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gpuledger"))
        .args(args)
        .output()
        .expect("run gpuledger")
}

fn stdout(args: &[&str]) -> String {
    let out = gpuledger(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// This checkout's HEAD as build.rs names it, or None outside a git checkout.
fn git_head() -> Option<String> {
    let out = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !s.is_empty()).then_some(s)
}

#[test]
fn version_names_the_commit_and_date() {
    let v = stdout(&["--version"]);
    let v = v.trim();
    let rest = v
        .strip_prefix(concat!(
            "gpuledger ",
            env!("CARGO_PKG_VERSION"),
            " (commit "
        ))
        .unwrap_or_else(|| panic!("{v}"));
    let (commit, date) = rest
        .trim_end_matches(')')
        .split_once(", ")
        .unwrap_or_else(|| panic!("{v}"));
    // The commit it was built from: the release's override, else this checkout's HEAD (build.rs
    // reruns when HEAD moves), else, outside a git checkout (a source tarball), "unknown"; the
    // date likewise from SOURCE_DATE_EPOCH or the commit.
    let set = |name: &str| std::env::var(name).ok().filter(|s| !s.is_empty());
    let head = git_head();
    let expected = set("GPULEDGER_COMMIT")
        .or_else(|| head.clone())
        .unwrap_or_else(|| "unknown".into());
    assert_eq!(commit, expected, "{v}");
    if set("SOURCE_DATE_EPOCH").is_none() && head.is_none() {
        assert_eq!(date, "unknown", "{v}");
    } else {
        let d: Vec<&str> = date.split('-').collect();
        assert!(
            d.len() == 3 && d[0].len() == 4 && d.iter().all(|p| p.parse::<u32>().is_ok()),
            "{v}"
        );
    }
    // selftest says the same, in text and JSON.
    let st = stdout(&["selftest"]);
    assert!(st.starts_with(&format!("{v} selftest")), "{st}");
    let j: serde_json::Value = serde_json::from_str(&stdout(&["selftest", "--json"])).unwrap();
    let me = j
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["source"] == "gpuledger")
        .unwrap_or_else(|| panic!("{j}"));
    assert_eq!(
        me["sees"][0].as_str().unwrap(),
        format!("version {}", v.trim_start_matches("gpuledger "))
    );
}

#[test]
fn completions_for_every_shell_name_every_command() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let text = stdout(&["completions", shell]);
        for sub in ["snapshot", "explain", "estimate", "kill", "serve", "record"] {
            assert!(text.contains(sub), "{shell} completion lacks {sub}");
        }
    }
    let bad = gpuledger(&["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2), "an unknown shell is bad usage");
}

#[test]
fn man_pages_render_for_every_command() {
    let page = stdout(&["man"]);
    assert!(page.contains(".TH gpuledger 1"), "{page}");
    let dir = tempfile::tempdir().unwrap();
    stdout(&["man", "--dir", dir.path().to_str().unwrap()]);
    for sub in ["snapshot", "explain", "estimate", "kill", "serve", "diff"] {
        let p = dir.path().join(format!("gpuledger-{sub}.1"));
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(text.contains(".SH NAME"), "{}", p.display());
    }
    // The live view's keys, from the table its help draws (one source), in the
    // printed page and in the one written into the folder.
    let written = std::fs::read_to_string(dir.path().join("gpuledger.1")).unwrap();
    assert_eq!(written, page);
    let plain = page
        .replace("\\-", "-")
        .replace("\\*(Aq", "'")
        .replace("\\fB", "")
        .replace("\\fR", "");
    let keys = plain
        .find(".SH \"LIVE VIEW KEYS\"")
        .expect("a LIVE VIEW KEYS section");
    assert!(keys < plain.find(".SH VERSION").unwrap_or(usize::MAX));
    let en = gpuledger_lang::Lang::En;
    for (k, what) in gpuledger_tui::ui::HELP {
        let what = en.t(what);
        assert!(
            plain[keys..].contains(&format!("{k}\n{what}\n")),
            "{k}: {what}\n{plain}"
        );
    }
    for note in gpuledger_tui::ui::HELP_NOTES {
        let note = en.t(note);
        assert!(plain[keys..].contains(&note), "{note}");
    }
    // Rendered by man itself where it is installed (Debian's man-db).
    if let Ok(out) = Command::new("man")
        .arg("-l")
        .arg(dir.path().join("gpuledger.1"))
        .env("MANWIDTH", "80")
        .env("MAN_KEEP_FORMATTING", "0")
        .output()
    {
        if out.status.success() {
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains("GPU memory"), "{text}");
        }
    }
}

/// Every command with a value it cannot take: exit 2 with a message naming the option, and
/// nothing read first (the recording named does not exist, so reading it would be exit 1).
#[test]
fn every_command_refuses_a_bad_value_with_exit_2() {
    let cases: &[&[&str]] = &[
        &["-d", "xyz"],
        &["--at", "yesterday", "--replay", "nowhere.db"],
        &["snapshot", "--format", "xml"],
        &["snapshot", "--at", "yesterday", "--replay", "nowhere.db"],
        &["explain", "abc"],
        &["estimate", "nowhere.gguf", "-c", "8k"],
        &["estimate", "nowhere.gguf", "-c", "18446744073709551615"],
        &["selftest", "--json=maybe"],
        &["diff", "only-one.json"],
        &["record", "--interval", "xyz", "--db", "nowhere.db"],
        &["record", "--retention", "xyz", "--db", "nowhere.db"],
        &["history", "--since", "yesterday", "--db", "nowhere.db"],
        &["history", "--until", "2h5", "--db", "nowhere.db"],
        &["history", "--format", "xml", "--db", "nowhere.db"],
        &["watch", "--alert", "device.memory.used > 90"],
        &[
            "watch",
            "--alert",
            "device.memory.used > 90%",
            "--for",
            "xyz",
        ],
        &[
            "plot",
            "--since",
            "yesterday",
            "--db",
            "nowhere.db",
            "--out",
            "x.svg",
        ],
        &["serve", "--interval", "xyz"],
        &["serve", "--listen", "nope"],
        &["serve", "--processes", "xyz"],
        &["kill", "1", "--grace", "xyz"],
        &["kill", "abc"],
        &["probe", "--sizes", "xyz"],
        &["verify", "--size", "xyz"],
        &["completions", "tcsh"],
        &["man", "--dir"],
        // --replay where only the live machine makes sense
        &["--replay", "s.json", "selftest"],
        &[
            "--replay",
            "s.json",
            "watch",
            "--alert",
            "device.temperature > 85",
        ],
        &["--replay", "s.json", "kill", "4242", "--dry-run"],
        &["--replay", "s.json", "probe"],
        // Options that need another (or a known file type) returned 1.
        &["snapshot", "--at", "10m"],
        &["--at", "10m"],
        &["plot", "--out", "x.gif"],
        &["plot", "--out", "x"],
    ];
    let dir = tempfile::tempdir().unwrap();
    for args in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_gpuledger"))
            .args(*args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.trim().is_empty(), "{args:?}: no message");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // Nothing was created where the command ran.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// Every command's `--help` ends with the exit statuses it can return.
#[test]
fn every_help_names_its_exit_statuses() {
    let subs = [
        "snapshot",
        "explain",
        "probe",
        "estimate",
        "selftest",
        "diff",
        "record",
        "history",
        "watch",
        "plot",
        "serve",
        "ui",
        "kill",
        "verify",
        "completions",
        "man",
    ];
    for sub in subs
        .iter()
        .map(|s| vec![*s, "--help"])
        .chain([vec!["--help"]])
    {
        let text = stdout(&sub);
        assert!(text.contains("Exit status:"), "{sub:?} --help:\n{text}");
        let usage = text
            .lines()
            .any(|l| l.trim_start().starts_with('2') && l.contains("bad command-line usage"));
        assert!(usage, "{sub:?} --help:\n{text}");
    }
}
