//! Qwen3.6-35B-A3B (and Qwen3.5-35B-A3B, the same `qwen35moe` layout) at its published size,
//! against the real llama-server: tests/gen_published.py writes the model card's layout (40
//! layers as 10 × (3 Gated DeltaNet + 1 gated attention), hidden 2048, 16 Q / 2 KV heads of 256,
//! DeltaNet 32 V / 16 QK heads of 128, 256 experts of 512) as a sparse GGUF (7 GiB of holes: no
//! disk, the server maps zeros), and the pinned llama-server loads it on the CPU. Every buffer
//! it prints is compared as in the family grid (support/grid_check.rs): the KV cache (10
//! layers) and the recurrent state (30 layers) exact, weights within 1 %, compute within 10 %.
//! The tiny models of the same architectures (llama_arch_grid.rs) check the rules in more flag
//! sets; this checks them at the size people run.
//!
//! Needs `.ci/setup-llama.sh` (testing/llama_tools.rs): skipped with a reason when the tools are
//! missing, failed under `CI=true`.

#![cfg(target_os = "linux")]

use std::path::Path;

#[path = "support/grid_check.rs"]
mod grid_check;
#[path = "../../../testing/llama_tools.rs"]
mod llama_tools;
use grid_check::{check, TABLE_HEAD};

/// One slot at 16k; the default four slots sharing one cache; two slots without flash attention.
const FLAG_SETS: &[&[&str]] = &[
    &["-np", "1", "-c", "16384"],
    &["-c", "8192"],
    &["-np", "2", "-fa", "off", "-c", "8192"],
];

#[test]
fn qwen36_35b_a3b_at_its_published_layout_matches_the_real_llama_server() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(t) = llama_tools::find(&root) else {
        return;
    };
    let dir = t.gen_script_models("gen_published.py", "llama-published-models");
    let model = "qwen36-35b-a3b";
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    for args in FLAG_SETS {
        let r = check(&t.server, &dir, model, args);
        if r.refused {
            bad.push(format!("{model} {args:?}: refused"));
        }
        // The published layout itself, as the server printed it: KV on one layer in four.
        let log = std::fs::read_to_string(dir.join(format!("{model}{}.log", args.join("_"))))
            .unwrap_or_default();
        if !log.contains("10 layers") || !log.contains("40 layers") {
            bad.push(format!(
                "{model} {args:?}: the server did not print a 10-layer KV cache and a 40-layer recurrent memory"
            ));
        }
        rows.push(r.row);
        bad.extend(r.bad);
    }
    eprintln!("{TABLE_HEAD}\n{}", rows.join("\n"));
    assert!(bad.is_empty(), "differences:\n{}", bad.join("\n"));
}
