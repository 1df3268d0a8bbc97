//! The 2026 architectures against the real llama-server: tiny models of each (written by
//! tests/gen_models_2026.py with the `gguf` writer) loaded by the pinned llama-server (CPU
//! backend) in three flag sets, and every buffer it prints compared with the estimate:
//! KV and recurrent state exact (to the printed 0.01 MiB), weights within 1 %, output to the
//! print, compute within 10 % where the estimate calls itself exact and reported beside it
//! (with the estimate's own "approximate" reason) where it does not.
//!
//! Needs `.ci/setup-llama.sh` (see testing/llama_tools.rs): skipped with a reason when the tools
//! are missing, failed under `CI=true`.

#![cfg(target_os = "linux")]

use std::path::Path;

#[path = "support/grid_check.rs"]
mod grid_check;
#[path = "../../../testing/llama_tools.rs"]
mod llama_tools;
use grid_check::{check, TABLE_HEAD};

/// The models of gen_models_2026.py and what each checks.
const MODELS: &[&str] = &[
    "qwen35-interval",
    "qwen35-array",
    "qwen35moe",
    "qwen3next",
    "kimi-linear",
    "nemotron-h",
    "llama4-chunked",
    "llama4-nochunk",
    "smallthinker-swa",
    "exaone4-64",
    "exaone4-30",
];

/// Default slots (4, unified); one slot at 16k; two slots without flash attention, with `-c`
/// (without it every slot gets the training context, rule `ctx-train-per-seq`, checked in
/// llama_server.rs).
const FLAG_SETS: &[&[&str]] = &[
    &[],
    &["-np", "1", "-c", "16384"],
    &["-np", "2", "-fa", "off", "-c", "8192"],
];

#[test]
fn the_2026_architectures_match_the_real_llama_server() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(t) = llama_tools::find(&root) else {
        return;
    };
    let dir = t.gen_script_models("gen_models_2026.py", "llama-models-2026");
    let started = std::time::Instant::now();
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    for model in MODELS {
        for args in FLAG_SETS {
            let r = check(&t.server, &dir, model, args);
            rows.push(r.row);
            bad.extend(r.bad);
        }
    }
    eprintln!(
        "{} runs of {} in {:.0} s; log / estimate, MiB:\n{TABLE_HEAD}\n{}",
        rows.len(),
        t.version,
        started.elapsed().as_secs_f64(),
        rows.join("\n")
    );
    assert!(bad.is_empty(), "differences:\n{}", bad.join("\n"));
}
