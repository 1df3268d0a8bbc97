//! Sparse-attention indexer caches and Gemma 3n against the real thing: tiny GGUF files of
//! deepseek32, glm-dsa, minimax-m3, dots3note (DSA + sliding window), hy_v4 (with and without
//! its indexer), glm5-next (KDA + DSA with a k-pool indexer) and gemma3n (5 layers, and 22 so
//! that the last two reuse earlier layers' caches) (tests/gen_models_indexer.py, llama.cpp b11434's keys and shapes), loaded by the real
//! llama-server over one `ggml-rpc-server` device (a CPU backend served as a GPU-like device, so
//! device/host placement is real) in the flag sets: default slots, `-np 1` at 16k,
//! `-np 2 -no-kvu -fa off`, and a quantised cache (`QUANTISED`).
//!
//! Compared field by field with the estimate: the context, each cache's summary line (the
//! attention cache, the indexer's own cache, the sliding-window cache), the KV buffers on the
//! device and the host to the printed 0.01 MiB, the weights per device within 1 %, the output
//! buffer, and the compute buffers within 10 % unless the estimate says it is approximate (then
//! the figures are only reported). `GPULEDGER_GRID_ONLY=a,b` runs only those models. Skips
//! without the tools, fails under CI=true (see testing/llama_tools.rs).

#![cfg(target_os = "linux")]

use std::path::Path;

#[path = "support/indexer_check.rs"]
mod indexer_check;
#[path = "../../../testing/llama_tools.rs"]
mod llama_tools;
use indexer_check::{check, TABLE_HEAD};

const MODELS: &[&str] = &[
    "deepseek32-dsa",
    "glm-dsa-all",
    "glm-dsa-types",
    "minimax-m3-msa",
    "gemma3n-ple",
    "gemma3n-kv-shared",
    "dots3note-dsa-swa",
    "hy-v4-dsa",
    "hy-v4-full",
    "glm5-next-kpool",
];

/// What the compute estimate must name as not replayed, for the models whose graph has a part
/// the replay does not build (their compute is then only reported). dots3note's and hy_v4's
/// MLA, output gates included, are replayed: those models' compute is held to 10 % (it is
/// exact on every flag set).
const SAID_APPROXIMATE: &[(&str, &str)] = &[("glm5-next-kpool", "KDA layers")];

/// Flag sets run for one model only: minimax-m3 with MSA over two streams (flash attention on
/// and one stream per sequence), where its graph loops over the streams.
const EXTRA_FLAG_SETS: &[(&str, &[&str])] =
    &[("minimax-m3-msa", &["-np", "2", "-no-kvu", "-c", "4096"])];

/// The models also run with a q8_0 cache (the indexer's keys take `-ctk`'s type).
const QUANTISED: &[&str] = &[
    "deepseek32-dsa",
    "dots3note-dsa-swa",
    "hy-v4-dsa",
    "glm5-next-kpool",
];

/// The flag sets (every one with the whole model on the RPC device).
const FLAG_SETS: &[&[&str]] = &[
    &["-c", "4096"],
    &["-np", "1", "-c", "16384"],
    &["-np", "2", "-no-kvu", "-fa", "off", "-c", "4096"],
    &["-np", "1", "-c", "4096", "-ctk", "q8_0", "-ctv", "q8_0"],
];

#[test]
fn indexer_caches_and_gemma3n_match_the_real_server() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(t) = llama_tools::find(&root) else {
        return;
    };
    let Some(rpc_bin) = t.rpc_server_or_skip() else {
        return;
    };
    let dir = t.gen_script_models("gen_models_indexer.py", "llama-indexer-models");
    let started = std::time::Instant::now();
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    // GPULEDGER_GRID_ONLY=a,b: only those models (for working on one architecture).
    let only = std::env::var("GPULEDGER_GRID_ONLY").unwrap_or_default();
    let picked = |m: &&&str| only.is_empty() || only.split(',').any(|o| o == **m);
    for model in MODELS.iter().filter(picked) {
        let said = SAID_APPROXIMATE
            .iter()
            .find(|(m, _)| m == model)
            .map(|(_, w)| *w);
        let extra = EXTRA_FLAG_SETS.iter().filter(|(m, _)| m == model);
        for flags in FLAG_SETS.iter().chain(extra.map(|(_, f)| f)) {
            if flags.contains(&"q8_0") && !QUANTISED.contains(model) {
                continue;
            }
            let r = check(&t, &rpc_bin, &dir, model, flags, said);
            rows.push(format!("| {} |", r.cells.join(" | ")));
            bad.extend(r.bad);
        }
    }
    eprintln!(
        "{TABLE_HEAD}\n{}\n({} runs in {:.0} s)",
        rows.join("\n"),
        rows.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
