//! What a bug report and a package need from the binary itself: `--version` names the commit and
//! date, `selftest` repeats it, and completions and man pages come from the same clap definitions.

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
    // Built from this checkout: a real abbreviated hash, not "unknown".
    assert!(
        commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit()),
        "{v}"
    );
    let d: Vec<&str> = date.split('-').collect();
    assert!(
        d.len() == 3 && d[0].len() == 4 && d.iter().all(|p| p.parse::<u32>().is_ok()),
        "{v}"
    );
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
