//! `gpuledger ui`: a loopback server on a free port, the address printed, the default browser
//! asked to open it (here a stand-in `xdg-open` on PATH), and serving on when no browser starts.
#![cfg(all(unix, not(target_os = "macos")))]

use crate::serve_support::*;
use crate::support::*;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

/// A folder holding an `xdg-open` that runs `script`, first on PATH.
fn fake_opener(dir: &Path, script: &str) -> String {
    let p = dir.join("xdg-open");
    std::fs::write(&p, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("{}:/usr/bin:/bin", dir.display())
}

/// Start `gpuledger --replay sample ui` with `path`; its guard and the lines it printed so far
/// (each line as it comes).
fn start_ui(path: &str) -> (Guard, mpsc::Receiver<String>) {
    let sample =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/sample-snapshot.json");
    let mut child = gpuledger_command()
        .arg("--replay")
        .arg(sample)
        .arg("ui")
        .env("PATH", path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    (Guard(child), rx)
}

fn next_line(rx: &mpsc::Receiver<String>) -> String {
    rx.recv_timeout(Duration::from_secs(20))
        .expect("a line from gpuledger ui")
}

fn address(line: &str) -> SocketAddr {
    assert!(
        line.starts_with("gpuledger ui: the browser view of a REPLAY is at http://127.0.0.1:"),
        "{line}"
    );
    line.split("http://")
        .nth(1)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn ui_prints_the_address_and_opens_the_default_browser() {
    let dir = tempfile::tempdir().unwrap();
    let opened = dir.path().join("opened");
    let path = fake_opener(dir.path(), &format!("echo \"$@\" > '{}'", opened.display()));
    let (_g, rx) = start_ui(&path);
    let addr = address(&next_line(&rx));
    assert_eq!(next_line(&rx), "gpuledger ui: opened it with xdg-open");
    assert_eq!(
        std::fs::read_to_string(&opened).unwrap(),
        format!("http://{addr}/\n")
    );
    let page = get(addr, "/");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("src=\"/app.js\""));
    // A page whose name was rebound to 127.0.0.1 reads nothing (issue 40, item 4).
    let port = addr.port();
    let r = raw(
        addr,
        format!("GET /api/v1/snapshot HTTP/1.1\r\nHost: evil.example:{port}\r\n\r\n").as_bytes(),
    );
    assert_eq!(r.status, 421, "{}", r.head);
}

#[test]
fn ui_without_a_browser_says_so_and_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    // xdg-open's own status when it finds no browser.
    let path = fake_opener(dir.path(), "exit 3");
    let (_g, rx) = start_ui(&path);
    let addr = address(&next_line(&rx));
    let said = next_line(&rx);
    assert_eq!(
        said,
        format!("gpuledger ui: could not start a browser (xdg-open failed: exit status: 3); open http://{addr}/ yourself. Still serving.")
    );
    assert_eq!(get(addr, "/api/v1/snapshot").status, 200);
    // No opener at all: the same, naming what is missing.
    let empty = tempfile::tempdir().unwrap();
    let (_g2, rx) = start_ui(&empty.path().display().to_string());
    let addr = address(&next_line(&rx));
    let said = next_line(&rx);
    assert!(
        said.starts_with("gpuledger ui: could not start a browser (xdg-open: "),
        "{said}"
    );
    assert_eq!(get(addr, "/healthz").status, 200);
}
