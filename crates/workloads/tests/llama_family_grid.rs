//! The widely used architectures the older grids leave out, against the real llama-server: tiny
//! models of each (written by tests/gen_models_grid.py with the `gguf` writer) loaded by the
//! pinned llama-server (CPU backend) in four flag sets, every printed buffer compared as
//! support/grid_check.rs says (KV and recurrent state exact, weights within 1 %, compute within
//! 10 % where the estimate calls itself exact, its reasons shown where it does not).
//!
//! The other grids: llama_server.rs (llama, gemma3, deepseek2, qwen3moe, mamba),
//! llama_arch_grid.rs (the 2026 hybrids and forced windows), llama_indexer_grid.rs (DSA / MSA,
//! gemma3n). Which of b11434's architectures none of them loads, and why: the table in
//! fixtures/llama-logs/README.md.
//!
//! `GPULEDGER_GRID_ONLY=gemma4,grok` runs only those models (for working on one architecture).
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

/// The models of gen_models_grid.py (named by architecture).
const MODELS: &[&str] = &[
    "qwen2",
    "qwen3",
    "mistral3",
    "seed-oss",
    "arcee",
    "granite",
    "smollm3",
    "ernie4_5",
    "apertus",
    "olmo2",
    "olmo2-swa",
    "command-r",
    "cohere2",
    "glm4",
    "phi-fused",
    "gpt-oss",
    "glm4moe",
    "granitemoe",
    "olmoe",
    "qwen2moe",
    "ernie4_5-moe",
    "hunyuan-moe",
    "minimax-m2",
    "bailingmoe2",
    "dots1",
    "deepseek",
    "gemma2",
    "exaone",
    "internlm2",
    "baichuan",
    "xverse",
    "orion",
    "nanbeige",
    "pangu-embedded",
    "minicpm",
    "qwen2vl",
    "qwen3vl",
    "maincoder",
    "qwen3vlmoe",
    "mellum",
    "phimoe",
    "gemma",
    "deci",
    "plamo",
    "chatglm",
    "olmo",
    "stablelm",
    "mpt",
    "qwen",
    "starcoder2",
    "phi2",
    "falcon",
    "gptneox",
    "codeshell",
    "nemotron",
    "bailingmoe",
    "gpt2",
    "starcoder",
    "bloom",
    "refact",
    "jais2",
    "granite_swa",
    "exaone-moe",
    "cohere2moe",
    "afmoe",
    "hunyuan-dense",
    "hunyuan_vl",
    "mamba2",
    "granitehybrid",
    "jamba",
    "lfm2",
    "falcon-h1",
    "rwkv6",
    "rwkv7",
    "lfm2moe",
    "plamo2",
    "minimax-01",
    "gemma4",
    "gemma4-moe",
    "minicpm3",
    "plm",
    "mistral4",
    "glm4moe-nextn",
    "nemotron_h_moe",
    "nemotron_h_moe-latent",
    "dbrx",
    "arctic",
    "grok",
    "mimo2",
    "hy_v3",
    "step35",
    "jais",
    "bitnet",
    "openelm",
    "plamo3",
    "bailingmoe3",
    "kimi-k3",
    "grovemoe",
    "laguna",
    "spark2_5",
    "talkie",
    "graniteswitch",
    "arwkv7",
    "rwkv6qwen2",
    "maple",
    "muse-glimmer",
    "hrm_text",
    "cogvlm",
    "paddleocr",
    "deepseek2-ocr",
    "chameleon",
];

/// Where the compute replay is not op for op, the words the estimate must say it with (in its
/// `approximate_parts`, which the text and JSON outputs carry): a model missing here must be
/// estimated exact, and is held to 10 %.
const APPROXIMATE: &[(&str, &str)] = &[
    ("gpt-oss", "MoE routing"),
    ("glm4moe", "MoE routing"),
    ("granitemoe", "MoE routing"),
    ("olmoe", "MoE routing"),
    ("qwen2moe", "MoE routing"),
    ("ernie4_5-moe", "MoE routing"),
    ("hunyuan-moe", "MoE routing"),
    ("minimax-m2", "MoE routing"),
    ("bailingmoe2", "fused Q/K/V projection"),
    ("dots1", "MoE routing"),
    ("deepseek", "MoE routing"),
    ("qwen3vlmoe", "MoE routing"),
    ("mellum", "MoE routing"),
    ("phimoe", "MoE routing"),
    ("bailingmoe", "MoE routing"),
    ("exaone-moe", "MoE routing"),
    ("cohere2moe", "MoE routing"),
    ("mpt", "fused Q/K/V projection"),
    ("qwen", "fused Q/K/V projection"),
    ("falcon", "fused Q/K/V projection"),
    ("gptneox", "fused Q/K/V projection"),
    ("gpt2", "fused Q/K/V projection"),
    ("starcoder", "fused Q/K/V projection"),
    ("bloom", "fused Q/K/V projection"),
    ("jamba", "recurrent layers (Mamba-1's shape)"),
    ("lfm2moe", "MoE routing"),
    ("plamo2", "recurrent layers (Mamba-1's shape)"),
    ("afmoe", "attention output gate"),
    ("minimax-01", "MoE routing"),
    ("gemma4-moe", "MoE routing"),
    ("minicpm3", "latent-projected attention"),
    ("plm", "latent-projected attention"),
    ("mistral4", "MLA attention"),
    ("glm4moe-nextn", "MoE routing"),
    ("nemotron_h_moe", "MoE routing"),
    ("nemotron_h_moe-latent", "MoE routing"),
    ("dbrx", "fused Q/K/V projection"),
    ("arctic", "MoE routing"),
    ("grok", "MoE routing"),
    ("mimo2", "MoE routing"),
    ("hy_v3", "MoE routing"),
    ("step35", "MoE routing"),
    ("jais", "fused Q/K/V projection"),
    ("openelm", "fused Q/K/V projection"),
    ("plamo3", "fused Q/K/V projection"),
    ("bailingmoe3", "MoE routing"),
    ("kimi-k3", "cross-layer residual attention"),
    ("grovemoe", "MoE routing"),
    ("laguna", "attention output gate"),
    ("spark2_5", "attention output gate"),
    ("graniteswitch", "adapter router"),
    ("maple", "MoE routing"),
    ("muse-glimmer", "attention output gate"),
    ("hrm_text", "HRM's cycles"),
    ("cogvlm", "fused Q/K/V projection"),
    ("deepseek2-ocr", "MoE routing"),
];

/// Approximate models whose compute is held all the same, to this fraction of what llama-server
/// printed in every flag set: bailingmoe3's replay differs only in its routers' argsort (MoE
/// routing), kimi-k3's also in its cross-layer residual attention (issue #35).
const HELD: &[(&str, f64)] = &[("bailingmoe3", 0.01), ("kimi-k3", 0.05)];

/// Default slots (4, unified); one slot at 16k; two slots without flash attention; a quantised
/// KV cache (q8_0 K and V, which needs flash attention: on by default on the CPU).
const FLAG_SETS: &[&[&str]] = &[
    &[],
    &["-np", "1", "-c", "16384"],
    &["-np", "2", "-fa", "off", "-c", "8192"],
    &["-ctk", "q8_0", "-ctv", "q8_0", "-c", "4096"],
];

/// Models llama.cpp b11434 cannot run with flash attention (on by default on the CPU): plm's
/// graph hands `build_attn` a 2-D V, which the non-transposed V cache's `cpy_v` (llama-kv-cache.cpp)
/// flattens wrongly (`GGML_ASSERT(a->ne[0] == b->ne[0])` in ggml_set_rows); the estimate
/// says so in a note. They run every flag set with `-fa off` (the quantised V cache
/// then refused by both, as grok's is: llama.cpp forces its flash attention off).
const FA_BROKEN: &[&str] = &["plm"];

/// The flag sets `model` runs with (see FA_BROKEN).
fn flag_sets(model: &str) -> Vec<Vec<&'static str>> {
    let fa_broken = FA_BROKEN.contains(&model);
    FLAG_SETS
        .iter()
        .map(|a| {
            let mut v = a.to_vec();
            if fa_broken && !v.contains(&"-fa") {
                v.extend(["-fa", "off"]);
            }
            v
        })
        .collect()
}

#[test]
fn the_widely_used_architectures_match_the_real_llama_server() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some(t) = llama_tools::find(&root) else {
        return;
    };
    let dir = t.gen_script_models("gen_models_grid.py", "llama-models-grid");
    let started = std::time::Instant::now();
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    // GPULEDGER_GRID_ONLY=a,b: only those models (for working on one architecture).
    let only = std::env::var("GPULEDGER_GRID_ONLY").unwrap_or_default();
    let picked = |m: &&&str| only.is_empty() || only.split(',').any(|o| o == **m);
    for model in MODELS.iter().filter(picked) {
        for args in flag_sets(model) {
            let args = &args[..];
            let r = check(&t.server, &dir, model, args);
            if r.refused {
                rows.push(r.row);
                continue;
            }
            let said = APPROXIMATE
                .iter()
                .find(|(m, _)| m == model)
                .map(|&(_, w)| w);
            match said {
                Some(w) if !r.approximate.iter().any(|p| p.contains(w)) => bad.push(format!(
                    "{model} {args:?}: the estimate does not say \"{w}\" is approximate: {:?}",
                    r.approximate
                )),
                None if !r.approximate.is_empty() => bad.push(format!(
                    "{model} {args:?}: approximate {:?}, expected exact",
                    r.approximate
                )),
                _ => {}
            }
            if let Some(&(_, bound)) = HELD.iter().find(|(m, _)| m == model) {
                if (r.compute_ratio - 1.0).abs() > bound {
                    bad.push(format!(
                        "{model} {args:?}: compute estimate / printed {:.3}, held to ±{bound}",
                        r.compute_ratio
                    ));
                }
            }
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
