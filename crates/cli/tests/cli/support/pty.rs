//! The binary's confirmation prompt on a real terminal: util-linux `script` gives the command a
//! pty of its own, and the answer is typed on its stdin.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Whether `script` (bsdutils) is installed: skipped with a message locally when it is not, a
/// failure under CI=true.
pub fn have_script() -> bool {
    if Command::new("script").arg("--version").output().is_err() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "`script` (bsdutils) is missing in CI"
        );
        eprintln!("SKIPPED prompt test: `script` (bsdutils) is not installed");
        return false;
    }
    true
}

/// The shell command line `cmd` under `script`, stdin and stdout piped; add its environment.
pub fn in_pty(cmd: &str) -> Command {
    let mut c = Command::new("script");
    c.args(["-qec", cmd, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    c
}

/// Start `pty` (from [`in_pty`]), type `answer` and Enter, and wait for it to end.
pub fn answer_prompt(pty: &mut Command, answer: &str) -> Output {
    let mut child = pty.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{answer}\n").as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}
