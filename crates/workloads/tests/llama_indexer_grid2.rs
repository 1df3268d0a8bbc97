//! qwen4exp's QSA indexer cache and DeepSeek V4's compressed caches against the real thing: tiny
//! GGUF files of qwen4exp and deepseek4 (tests/gen_models_indexer2.py, llama.cpp b11434's keys
//! and shapes) loaded by the real llama-server over one `ggml-rpc-server` device in the issue's
//! flag sets: default slots, `-np 1` at 16k, `-np 2 -no-kvu -fa off`, and a quantised cache.
//! Every buffer is compared as in llama_indexer_grid.rs (support/indexer_check.rs): the
//! attention, indexer, compressed and recurrent caches, the compressor states and the KV/RS
//! buffers exact, weights within 1 %, compute on the device and on the host each within 10 %
//! (qwen4exp's and deepseek4's graphs are replayed: compute/qsa.rs, mhc.rs, dsv4.rs), and a
//! deepseek4 file with 2 hyper-connection streams aborts the real server as the estimate's note
//! says.
//! `GPULEDGER_GRID_ONLY=a,b` runs only those models. Skips without the tools, fails under
//! CI=true (see testing/llama_tools.rs).

#![cfg(target_os = "linux")]

use std::path::Path;

use gpuledger_workloads::estimate::{estimate, Backend, Setting};
use gpuledger_workloads::gguf::GgufModel;
use gpuledger_workloads::LlamaSettings;

#[path = "support/indexer_check.rs"]
mod indexer_check;
#[path = "../../../testing/llama_tools.rs"]
mod llama_tools;
use indexer_check::{check, TABLE_HEAD};
use llama_tools::{run_until_loaded, server_build, start_rpc, LlamaTools};

const MODELS: &[&str] = &[
    "qwen4exp-qsa",
    "qwen4exp-nopool",
    "qwen4exp-ple",
    "deepseek4-dsv4",
];

/// The flag sets (every one with the whole model on the RPC device).
const FLAG_SETS: &[&[&str]] = &[
    &["-c", "4096"],
    &["-np", "1", "-c", "16384"],
    &["-np", "2", "-no-kvu", "-fa", "off", "-c", "4096"],
    &["-np", "1", "-c", "4096", "-ctk", "q8_0", "-ctv", "q8_0"],
];

#[test]
fn qsa_indexer_caches_match_the_real_server() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(t) = llama_tools::find(&root) else {
        return;
    };
    let Some(rpc_bin) = t.rpc_server_or_skip() else {
        return;
    };
    let dir = t.gen_script_models("gen_models_indexer2.py", "llama-indexer2-models");
    let started = std::time::Instant::now();
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    // GPULEDGER_GRID_ONLY=a,b: only those models (for working on one architecture).
    let only = std::env::var("GPULEDGER_GRID_ONLY").unwrap_or_default();
    let picked = |m: &&&str| only.is_empty() || only.split(',').any(|o| o == **m);
    for model in MODELS.iter().filter(picked) {
        for flags in FLAG_SETS {
            let r = check(&t, &rpc_bin, &dir, model, flags, None);
            rows.push(format!("| {} |", r.cells.join(" | ")));
            bad.extend(r.bad);
        }
    }
    if picked(&&"deepseek4-dsv4") {
        bad.extend(dsv4_hc2_aborts_as_noted(&t, &rpc_bin, &dir));
    }
    eprintln!(
        "{TABLE_HEAD}\n{}\n({} runs in {:.0} s)",
        rows.join("\n"),
        rows.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The settings `check` estimates with: the flags, the whole model on one RPC device.
fn settings(flags: &[&str], text: &str) -> LlamaSettings {
    let mut args: Vec<String> = flags.iter().map(|a| a.to_string()).collect();
    args.extend(["-ngl", "99", "--rpc", "127.0.0.1:50052"].map(String::from));
    let mut s = LlamaSettings::from_args(&args).unwrap();
    s.backend = Setting::runtime(Backend::Cpu, "a CPU build: the RPC device only");
    s.llama_build = Setting::runtime(server_build(text), "the server's build line");
    s
}

/// b11434 aborts deepseek4 with other than 4 hyper-connection streams (GGML_ASSERT(hc == 4)
/// in build_hc_pre): the server does not load deepseek4-hc2, and the estimate's notes say why.
fn dsv4_hc2_aborts_as_noted(t: &LlamaTools, rpc_bin: &Path, dir: &Path) -> Vec<String> {
    let rpc = start_rpc(rpc_bin, 1);
    let path = dir.join("deepseek4-hc2.gguf");
    let mut cmd = std::process::Command::new(&t.server);
    cmd.arg("-m")
        .arg(&path)
        .args([
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "-t",
            "2",
            "--no-warmup",
        ])
        .args(["-c", "4096", "-ngl", "99", "--rpc", &rpc.endpoints[0]])
        .env("LD_LIBRARY_PATH", t.server.parent().unwrap());
    let text = run_until_loaded(&mut cmd);
    drop(rpc);
    let mut bad = Vec::new();
    if !text.contains("GGML_ASSERT(hc == 4) failed") || text.contains("compute buffer size") {
        bad.push("deepseek4-hc2: the server did not abort on GGML_ASSERT(hc == 4)".into());
    }
    let e = estimate(
        &GgufModel::open(&path).unwrap(),
        &settings(&["-c", "4096"], &text),
    );
    let noted = e.is_ok_and(|e| {
        e.notes
            .iter()
            .any(|n| n.contains("unless it has 4 hyper-connection streams"))
    });
    if !noted {
        bad.push("deepseek4-hc2: the estimate does not note the 4-stream requirement".into());
    }
    bad
}
