//! SGLang's pipeline-parallel and DP-attention ranks, per rank, with the command lines of public
//! SGLang threads (fixtures/sglang/README.md) and Qwen3-235B-A22B-FP8's published config.json:
//! each stage holds its own layers (weights and KV), and under DP attention each rank holds the
//! KV heads of its attention group.

use gpuledger_workloads::runtimes::hf::ModelConfig;
use gpuledger_workloads::runtimes::sglang::{self, SglangReport, SglangSettings};
use gpuledger_workloads::runtimes::vllm::ModelFacts;
use gpuledger_workloads::safetensors::{Header, Model};
use std::path::Path;

const GIB: u64 = 1 << 30;

fn facts(weights: u64) -> ModelFacts {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/sglang/qwen3-235b-a22b-fp8-config.json");
    let config = ModelConfig::parse(&std::fs::read(&path).unwrap(), &path).unwrap();
    let header = Header {
        path: "/m/model.safetensors".into(),
        header_bytes: 0,
        file_bytes: weights,
        tensor_count: 1,
        tensor_bytes: weights,
        by_dtype: Vec::new(),
    };
    ModelFacts {
        gguf: None,
        dir: "/m".into(),
        found: "test".into(),
        config,
        weights: Model {
            path: "/m".into(),
            files: vec![header],
            index_total_size: None,
            aliases: 0,
        },
    }
}

fn settings(cmd: &str) -> SglangSettings {
    let argv: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
    SglangSettings::from_args(&argv, "test").unwrap()
}

fn tokens(n: u64) -> SglangReport {
    SglangReport {
        max_total_num_tokens: Some(n),
        source: "test".into(),
        ..Default::default()
    }
}

/// `--tp 2 --pp-size=2` (sglang#13075's spelling) on Qwen3-235B (94 layers, 4 KV heads × 128,
/// bf16 cache): each stage holds 47 layers, so its weights are half of `all ÷ TP` and its KV
/// per token is 47 layers' — not the whole model's, which the recipe used to put on every rank.
#[test]
fn a_pipeline_stage_holds_its_own_layers() {
    let f = facts(440 * GIB);
    let mut s = settings("python3 -m sglang.launch_server --model /m --tp 2 --pp-size=2");
    s.stage = Some(1);
    let e = sglang::estimate(&f, &s, None, Some(&tokens(100_000))).summary;
    assert_eq!(e.weights_gpu_bytes, 110 * GIB);
    // 2 (K, V) × 47 layers × (4 / 2) heads × 128 × 2 B = 48,128 B per token.
    assert_eq!(e.kv_cache_gpu_bytes, Some(100_000 * 48_128));
    assert!(
        e.not_modelled.iter().any(|n| n.contains("pipeline stage")),
        "{:?}",
        e.not_modelled
    );
    // The stage from the scheduler's title, as SGLang names it.
    assert_eq!(
        sglang::parallel::stage_in_title("sglang::scheduler_PP1_TP0"),
        Some(1)
    );
}

/// `--tp 8 --enable-dp-attention --dp 2` (sglang#4390): attention runs over 4 ranks, so each
/// rank keeps 4 / 4 = 1 KV head, not 4 / 8 (rounded up to 1); with `--dp 8` every rank keeps
/// all 4 — four times what plain TP 8 puts on it.
#[test]
fn dp_attention_keeps_the_heads_of_the_attention_group() {
    let f = facts(240 * GIB);
    let plain = settings("python3 -m sglang.launch_server --model-path /m --tp 8");
    let dp8 = settings(
        "python3 -m sglang.launch_server --model-path /m --tp 8 --enable-dp-attention --dp 8",
    );
    let t = tokens(10_000);
    let kv = |s: &SglangSettings| {
        sglang::estimate(&f, s, None, Some(&t))
            .summary
            .kv_cache_gpu_bytes
            .unwrap()
    };
    // 2 × 94 layers × heads × 128 × 2 B.
    assert_eq!(kv(&plain), 10_000 * 2 * 94 * 128 * 2);
    assert_eq!(kv(&dp8), 4 * kv(&plain));
    let e = sglang::estimate(&f, &dp8, None, Some(&t)).summary;
    assert!(
        e.not_modelled.iter().any(|n| n.contains("DP attention")),
        "{:?}",
        e.not_modelled
    );
    // The server's own answer turns it on where the command line did not say it.
    let info = r#"{"tp_size": 8, "dp_size": 8, "enable_dp_attention": true, "max_total_num_tokens": 10000}"#;
    let r = sglang::parse_server_info(info, "GET /get_server_info").unwrap();
    let from_api = sglang::estimate(&f, &plain, None, Some(&r)).summary;
    assert_eq!(from_api.kv_cache_gpu_bytes, Some(kv(&dp8)));
}
