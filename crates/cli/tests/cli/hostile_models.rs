//! Model folders built to hurt, named by a running vLLM stand-in: a snapshot over
//! them completes, says which model it skipped and why, shows no weights figure for it (unknown,
//! not 0), and never prints bytes of a file that is not the format expected.

use crate::explain_runtimes::{explain, repo, run, start};
use crate::support::*;
use std::path::{Path, PathBuf};

/// A folder with TinyLlama's config.json, for `--model`.
fn folder(dir: &Path, name: &str) -> PathBuf {
    let m = dir.join(name);
    std::fs::create_dir_all(&m).unwrap();
    std::fs::copy(
        repo().join("fixtures/vllm/tinyllama-1.1b-chat-config.json"),
        m.join("config.json"),
    )
    .unwrap();
    m
}

fn vllm_args(m: &Path) -> Vec<&str> {
    vec![
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        m.to_str().unwrap(),
    ]
}

#[test]
fn a_folder_of_4096_links_to_one_large_header_is_skipped_and_named() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let m = folder(dir.path(), "links");
    // One file with a 2 MB header (padding the format allows), 4,096 shard names for it.
    let json = r#"{"w":{"dtype":"U8","shape":[16],"data_offsets":[0,16]}}"#;
    let n = json.len() + (2 << 20);
    let mut b = (n as u64).to_le_bytes().to_vec();
    b.extend_from_slice(json.as_bytes());
    b.resize(8 + n + 16, b' ');
    std::fs::write(m.join("blob"), b).unwrap();
    for i in 1..=4096 {
        let name = format!("model-{i:05}-of-04096.safetensors");
        std::os::unix::fs::symlink("blob", m.join(name)).unwrap();
    }
    let f = start(dir.path(), &py, &vllm_args(&m), &[]);
    let pid = f.child.id();
    let v: serde_json::Value = serde_json::from_str(&run(pid, &["snapshot", "--json"])).unwrap();
    let notes = strings(&v["notes"]);
    let note = notes
        .iter()
        .find(|n| n.starts_with(&format!("pid {pid} (vLLM)")))
        .unwrap_or_else(|| panic!("no note for the skipped model: {notes:?}"));
    assert!(
        note.contains(&m.display().to_string()) && note.contains("more than 1,024 shards"),
        "{note}"
    );
    // No estimate: the weights are unknown, not 0.
    assert!(process(&v, pid.into())["estimate"].is_null(), "{v}");
    let table = run(pid, &["snapshot"]);
    assert!(table.contains("more than 1,024 shards"), "{table}");
    let (v, text) = explain(pid, &["--no-probe"]);
    let why = v["estimated"]["unavailable"].as_str().unwrap();
    assert!(
        why.contains("skipped") && why.contains("1,024 shards"),
        "{why}"
    );
    assert!(text.contains("1,024 shards"), "{text}");
}

#[test]
fn a_shard_leading_out_of_the_folder_is_refused_and_its_bytes_never_shown() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let secret = b"root:*:20000:0:99999:7:::\n";
    std::fs::write(dir.path().join("shadow"), secret).unwrap();
    let m = folder(dir.path(), "escape");
    std::os::unix::fs::symlink("../shadow", m.join("model.safetensors")).unwrap();
    let f = start(dir.path(), &py, &vllm_args(&m), &[]);
    let pid = f.child.id();
    let as_length = u64::from_le_bytes(secret[..8].try_into().unwrap()).to_string();
    let (v, text) = explain(pid, &["--no-probe"]);
    let snapshot = run(pid, &["snapshot", "--json"]);
    for out in [v.to_string(), text, snapshot] {
        assert!(!out.contains("root:") && !out.contains(&as_length), "{out}");
    }
    let why = v["estimated"]["unavailable"].as_str().unwrap();
    assert!(
        why.contains("model.safetensors") && why.contains("outside the model folder"),
        "{why}"
    );
}
