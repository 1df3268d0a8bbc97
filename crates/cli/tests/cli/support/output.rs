//! Reading what the binary gave back: its exit, its stdout and stderr, JSON, and the parts of a
//! snapshot tests look up by key.

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

/// Stdout as JSON, from a run that must succeed.
pub fn json_of(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "gpuledger failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON on stdout")
}

/// The JSON on stdout of a run that exited with `code` (3: `estimate` does not fit).
pub fn json_with_status(out: &Output, code: i32) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(code),
        "gpuledger: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON on stdout")
}

/// The `sources[]` entry named `name`.
pub fn source<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no source {name}"))
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

/// The `processes[]` entry with `pid`, to edit (a hostile or hand-made replay file).
pub fn process_mut(v: &mut serde_json::Value, pid: u64) -> &mut serde_json::Value {
    v["processes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["pid"] == pid)
        .unwrap_or_else(|| panic!("no process {pid}"))
}
