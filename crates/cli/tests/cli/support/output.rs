//! Reading what the binary gave back: its exit, its stderr, and the parts of a JSON snapshot
//! tests look up by key.

use std::process::Output;

/// Fail with the binary's stderr unless it exited 0.
pub fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn stdout_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The `processes[]` entry with `pid`.
pub fn process(v: &serde_json::Value, pid: u64) -> &serde_json::Value {
    v["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == pid)
        .unwrap_or_else(|| panic!("no process {pid}"))
}

/// The stdout of a run that must succeed (else its stderr is the failure).
pub fn ok_stdout(out: &Output) -> String {
    assert_ok(out);
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The strings of the JSON array `v` (a snapshot's `notes`, an estimate's `not_modelled`).
pub fn strings(v: &serde_json::Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect()
}
