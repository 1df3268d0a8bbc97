//! vLLM's KV cache for models that mix full-attention and sliding-window layers, against the
//! figures vLLM printed (fixtures/vllm/README.md cites each source).

use gpuledger_workloads::runtimes::hf::ModelConfig;
use gpuledger_workloads::runtimes::vllm::{self, parse_log, ModelFacts, VllmMetrics, VllmSettings};
use gpuledger_workloads::runtimes::InputSource;
use gpuledger_workloads::safetensors::Model;
use std::path::{Path, PathBuf};

const GIB: f64 = (1u64 << 30) as f64;

fn fixture(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(p)
}

fn facts(config: &str) -> ModelFacts {
    let path = fixture(config);
    ModelFacts {
        gguf: None,
        dir: "/google/gemma-3-27b-it".into(),
        found: "test".into(),
        config: ModelConfig::parse(&std::fs::read(&path).unwrap(), &path).unwrap(),
        weights: Model {
            path: "/google/gemma-3-27b-it".into(),
            files: vec![],
            index_total_size: None,
            aliases: 0,
        },
    }
}

fn settings(cmd: &str) -> VllmSettings {
    let argv: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
    VllmSettings::from_args(&argv, "test").unwrap()
}

/// `settings` for a known vLLM release (`from`: where the version was read).
fn at(version: &str, from: &str, cmd: &str) -> VllmSettings {
    let mut s = settings(cmd);
    s.version = Some((version.to_string(), from.to_string().into()));
    s
}

fn blocks(n: u64) -> VllmMetrics {
    VllmMetrics {
        cache_config: [("num_gpu_blocks".to_string(), n.to_string())].into(),
        kv_usage: None,
        source: "log".into(),
        invalid: Default::default(),
    }
}

#[test]
fn gemma3_27b_kv_cache_is_one_block_per_layer_group() {
    // vLLM 0.11.0rc2 serving google/gemma-3-27b-it (62 layers: 10 full, 52 windowed).
    let log =
        parse_log(&std::fs::read_to_string(fixture("vllm/gemma-3-27b-it-rocm-v0.11.log")).unwrap());
    assert_eq!(log.gpu_blocks, Some(89_994));
    assert_eq!(log.kv_tokens, Some(205_696));
    assert_eq!(log.concurrency, Some((4096, 50.05)));
    assert_eq!(log.version.as_deref(), Some("0.11.0rc2.dev98+g393de22d2"));
    let printed_gib = log.kv_gib.unwrap();
    assert_eq!(printed_gib, 109.86);

    let m = facts("vllm/gemma-3-27b-it-config.json");
    let l = m.config.layers.clone().unwrap();
    assert_eq!((l.full, l.sliding), (10, 52), "{}", l.source);

    let mut s = settings("vllm serve /google/gemma-3-27b-it --max-model-len 4096");
    s.version = log.version.clone().map(|v| (v, "the log".into()));
    let e = vllm::estimate(&m, &s, None, Some(&blocks(89_994))).summary;
    // The KV cache from vLLM's block count is its printed available KV memory, to 0.01 GiB
    // (every layer counted would be 6.2× that: 681 GiB).
    let kv = e.kv_cache_gpu_bytes.unwrap();
    assert_eq!(format!("{:.2}", kv as f64 / GIB), "109.86");
    // The tokens are vLLM's own count: blocks ÷ 7 groups × 16.
    assert_eq!(e.n_ctx, Some(205_696));
    let why = e.why.unwrap();
    assert!(why.contains("205,696 tokens over 7 KV groups"), "{why}");

    // From the printed memory alone, vLLM's rule gives the printed token count.
    let page = 16 * 16 * 128 * 2 * 2; // block × KV heads × head size × (K, V) × bf16
    let from_memory = (printed_gib * GIB) as u64 / page / 10;
    assert_eq!(from_memory / 7 * 16, 205_696);

    // A second public log, medgemma-27b-it (the same text model) at 0.95 of a 96 GB card:
    // "Available KV cache memory: 35.31 GiB", "GPU KV cache size: 66,112 tokens".
    assert_eq!((35.31 * GIB) as u64 / page / 10 / 7 * 16, 66_112);

    // With the hybrid manager off, every layer is in the one group: the plain rule.
    let s = at(
        "0.11.0",
        "test",
        "vllm serve /google/gemma-3-27b-it --max-model-len 4096 --disable-hybrid-kv-cache-manager",
    );
    let e = vllm::estimate(&m, &s, None, Some(&blocks(1000))).summary;
    assert_eq!(e.kv_cache_gpu_bytes, Some(1000 * 62 * page));
    assert_eq!(e.n_ctx, Some(16_000));
}

#[test]
fn gemma3_before_v0_9_1_gives_every_layer_a_full_context_page() {
    // vllm-project/vllm#15676 (cpwan, 2025-04-07): google/gemma-3-27b-it, TP 2, on vLLM 0.8.2
    // (the log's kv_cache_utils.py:566/569 are 0.8.2's lines): "GPU KV cache size: 54,048
    // tokens", "Maximum concurrency for 4,096 tokens per request: 13.20x". Before the hybrid KV
    // cache manager (0.9.1) V1 made every layer full attention: one group, blocks × 16 tokens,
    // and the concurrency is tokens ÷ max_model_len.
    let m = facts("vllm/gemma-3-27b-it-config.json");
    let cmd = "vllm serve google/gemma-3-27b-it --tensor-parallel-size 2 --max-model-len 4096";
    let n = 54_048 / 16;
    let e = vllm::estimate(&m, &at("0.8.2", "the log", cmd), None, Some(&blocks(n))).summary;
    assert_eq!(e.n_ctx, Some(54_048));
    assert_eq!(format!("{:.2}", 54_048.0 / 4096.0), "13.20");
    // A block spans all 62 layers: 16 tokens × 8 KV heads per rank × 128 × (K, V) × bf16.
    let page = 16 * 8 * 128 * 2 * 2;
    assert_eq!(e.kv_cache_gpu_bytes, Some(n * 62 * page));
    // The release with the hybrid manager would have grouped the same blocks: 7 groups of 10
    // layers and 3,378 ÷ 7 × 16 tokens, not what 0.8.2 printed.
    let e = vllm::estimate(&m, &at("0.9.1", "test", cmd), None, Some(&blocks(n))).summary;
    assert_eq!(e.kv_cache_gpu_bytes, Some(n * 10 * page));
    assert_eq!(e.n_ctx, Some(n / 7 * 16));
}

#[test]
fn medgemma_fp8_on_v0_26_prints_concurrency_times_length() {
    // A public deployment note (fixtures/vllm/README.md): fhai50032/medgemma-auto-fp8 (MedGemma
    // 27B, the Gemma-3-27B text model) on one L40S with vllm/vllm-openai:v0.26.0-cu129:
    // "KV pool 10.56 GiB = 188,347 tokens", "Concurrency @ 64K 2.87 (vLLM's own `Maximum
    // concurrency` line)", and "Add 8 padding layers". The block count is not printed; every
    // count whose memory vLLM would print as 10.56 GiB is tried.
    let m = facts("vllm/gemma-3-27b-it-config.json");
    let cmd = "vllm serve fhai50032/medgemma-auto-fp8 --served-model-name medgemma-27b-fp8 --attention-backend TRITON_ATTN --kv-cache-dtype fp8_e4m3 --max-model-len 65536 --gpu-memory-utilization 0.92 --max-num-seqs 4 --dtype bfloat16 --host 0.0.0.0 --port 8000";
    let s = at(
        "0.26.0",
        "the image tag vllm/vllm-openai:v0.26.0-cu129",
        cmd,
    );
    // The L40S: "GPU 0 has a total capacity of 44.53 GiB" (the same note), under 70 GiB, so
    // vllm serve's max_num_batched_tokens is 2048, and async scheduling keeps two batches in
    // flight: a windowed group holds cdiv(1023 + 4096, 16) + 1 = 321 blocks, the full group
    // 65536 ÷ 16 = 4096, one request 4096 + 6 × 321 = 6,022.
    let l40s = (44.53 * GIB) as u64;
    // A block of one KV group: 10 layers × 16 tokens × 16 KV heads × 128 × (K, V) × 1 B (fp8).
    let block = 10 * 16 * 16 * 128 * 2;
    let printed = |n: u64| format!("{:.2}", (n * block) as f64 / GIB) == "10.56";
    let candidates: Vec<u64> = (17_000..17_600).filter(|&n| printed(n)).collect();
    assert_eq!(candidates.len(), 16, "{candidates:?}");
    let mut hits = Vec::new();
    for &n in &candidates {
        let e = vllm::estimate(&m, &s, Some(l40s), Some(&blocks(n))).summary;
        assert_eq!(e.kv_cache_gpu_bytes, Some(n * block));
        if e.n_ctx == Some(188_347) {
            hits.push(n);
        }
    }
    assert_eq!(hits, vec![17_307]);
    assert_eq!(format!("{:.2}", 17_307.0 / 6022.0), "2.87");
    // The rule of 0.20.0 and before (blocks ÷ 7 groups × 16) prints no such count.
    let old = at("0.20.0", "test", cmd);
    let e = vllm::estimate(&m, &old, Some(l40s), Some(&blocks(17_307))).summary;
    assert_eq!(e.n_ctx, Some(17_307 / 7 * 16));
    assert_ne!(e.n_ctx, Some(188_347));
}

#[test]
fn the_token_rule_assumed_is_said_and_what_it_lacks_is_named() {
    let m = facts("vllm/gemma-3-27b-it-config.json");
    let cmd = "vllm serve /google/gemma-3-27b-it --max-model-len 65536";
    // No version known: the newest rules, said to be assumed in the inputs.
    let e = vllm::estimate(&m, &settings(cmd), Some(48 << 30), Some(&blocks(17_307)));
    let rule = e
        .inputs
        .iter()
        .find(|i| i.name == "vLLM KV rules")
        .expect("the KV rules are an input");
    assert!(
        matches!(rule.source, InputSource::Assumed { .. }),
        "{rule:?}"
    );
    assert!(
        rule.value.contains("max concurrency × max_model_len"),
        "{rule:?}"
    );
    assert!(e.summary.n_ctx.is_some());
    // Without the GPU's size, vLLM's default max_num_batched_tokens is not known: said.
    let e = vllm::estimate(&m, &settings(cmd), None, Some(&blocks(17_307))).summary;
    assert_eq!(e.n_ctx, None);
    assert!(
        e.not_modelled
            .iter()
            .any(|n| n.contains("max_num_batched_tokens")),
        "{:?}",
        e.not_modelled
    );
    // Given on the command line, it is taken (here with async scheduling off: one batch).
    let s = settings(&format!(
        "{cmd} --max-num-batched-tokens 8192 --no-async-scheduling"
    ));
    let e = vllm::estimate(&m, &s, None, Some(&blocks(17_307))).summary;
    // 4096 + 6 × (cdiv(1023 + 8192, 16) + 1) = 4096 + 6 × 577.
    let per_request = 4096.0 + 6.0 * 577.0;
    assert_eq!(e.n_ctx, Some((17_307.0 / per_request * 65536.0) as u64));
    // A KV connector turns vLLM's hybrid manager off unless it is forced on.
    let v = "0.26.0";
    let e = vllm::estimate(
        &m,
        &at(v, "test", &format!("{cmd} --kv-transfer-config {{}}")),
        Some(48 << 30),
        Some(&blocks(100)),
    );
    assert_eq!(
        e.summary.kv_cache_gpu_bytes,
        Some(100 * 62 * 16 * 16 * 128 * 2 * 2)
    );
    assert!(
        e.inputs
            .iter()
            .any(|i| i.name == "hybrid KV cache manager" && i.value.starts_with("off")),
        "{:?}",
        e.inputs
    );
    let forced = format!("{cmd} --kv-transfer-config {{}} --no-disable-hybrid-kv-cache-manager");
    let e = vllm::estimate(
        &m,
        &at(v, "test", &forced),
        Some(48 << 30),
        Some(&blocks(100)),
    );
    assert_eq!(
        e.summary.kv_cache_gpu_bytes,
        Some(100 * 10 * 16 * 16 * 128 * 2 * 2)
    );
}

#[test]
fn layer_kinds_from_config_json() {
    let parse = |j: &str| ModelConfig::parse(j.as_bytes(), Path::new("c.json")).unwrap();
    // gpt-oss lists its layers (openai/gpt-oss-20b config.json: alternating, 24 layers).
    let types: Vec<&str> = (0..24)
        .map(|i| {
            if i % 2 == 0 {
                "\"sliding_attention\""
            } else {
                "\"full_attention\""
            }
        })
        .collect();
    let c = parse(&format!(
        r#"{{"model_type":"gpt_oss","num_hidden_layers":24,"num_attention_heads":64,"num_key_value_heads":8,"head_dim":64,"sliding_window":128,"layer_types":[{}]}}"#,
        types.join(",")
    ));
    let l = c.layers.unwrap();
    assert_eq!((l.full, l.sliding, l.other), (12, 12, 0));
    // Qwen2 with the window off (its published configs say so) is full attention throughout.
    let c = parse(
        r#"{"model_type":"qwen2","num_hidden_layers":28,"num_attention_heads":28,"num_key_value_heads":4,"hidden_size":3584,"sliding_window":131072,"use_sliding_window":false,"max_window_layers":28}"#,
    );
    assert_eq!(c.layers, None);
    // Gemma 2: every other layer windowed.
    let c = parse(
        r#"{"model_type":"gemma2","num_hidden_layers":46,"num_attention_heads":32,"num_key_value_heads":16,"head_dim":128,"sliding_window":4096}"#,
    );
    let l = c.layers.unwrap();
    assert_eq!((l.full, l.sliding), (23, 23));
    // Linear-attention layers are named, and the KV cache is then said to be unmodelled.
    let c = parse(
        r#"{"model_type":"qwen3_next","num_hidden_layers":4,"num_attention_heads":16,"num_key_value_heads":2,"head_dim":256,"layer_types":["linear_attention","linear_attention","linear_attention","full_attention"]}"#,
    );
    let l = c.layers.clone().unwrap();
    assert_eq!((l.full, l.other), (1, 3));
    let m = ModelFacts {
        gguf: None,
        config: c,
        ..facts("vllm/gemma-3-27b-it-config.json")
    };
    let e = vllm::estimate(&m, &settings("vllm serve /m"), None, Some(&blocks(10))).summary;
    assert_eq!(e.kv_cache_gpu_bytes, None);
    assert!(
        e.not_modelled
            .iter()
            .any(|n| n.contains("linear_attention")),
        "{:?}",
        e.not_modelled
    );
}

#[test]
fn vllm_serving_a_gguf_file_takes_weights_and_shape_from_its_header() {
    use gpuledger_workloads::gguf::writer::GgufWriter;
    use gpuledger_workloads::gguf::{GgmlType, GgufModel, MetaValue};
    // vLLM's GGUF example (docs, "GGUF"): `vllm serve ./tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf
    // --tokenizer TinyLlama/TinyLlama-1.1B-Chat-v1.0`. The header is rebuilt with TinyLlama's
    // shape (fixtures/vllm/tinyllama-1.1b-chat-config.json: 22 layers, 32 heads, 4 KV heads,
    // 2048 wide); the file's 668 MB of data are sparse.
    let s = settings(
        "vllm serve ./tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf --tokenizer TinyLlama/TinyLlama-1.1B-Chat-v1.0",
    );
    assert!(vllm::serves_gguf(s.model.as_deref().unwrap(), None));
    let q = |n| GgmlType::from_name(n).unwrap();
    let mut w = GgufWriter::new();
    w.kv("general.architecture", MetaValue::String("llama".into()))
        .kv("llama.block_count", MetaValue::U32(22))
        .kv("llama.attention.head_count", MetaValue::U32(32))
        .kv("llama.attention.head_count_kv", MetaValue::U32(4))
        .kv("llama.embedding_length", MetaValue::U32(2048))
        .kv("llama.context_length", MetaValue::U32(2048))
        .tensor("token_embd.weight", &[2048, 32000], q("Q4_K"));
    for l in 0..22 {
        for (t, d) in [
            ("attn_q", [2048u64, 2048]),
            ("attn_k", [2048, 256]),
            ("attn_v", [2048, 256]),
            ("attn_output", [2048, 2048]),
            ("ffn_gate", [2048, 5632]),
            ("ffn_up", [2048, 5632]),
            ("ffn_down", [5632, 2048]),
        ] {
            w.tensor(&format!("blk.{l}.{t}.weight"), &d, q("Q4_K"));
        }
    }
    w.tensor("output.weight", &[2048, 32000], q("Q6_K"));
    let path = std::env::temp_dir().join(format!("gl-vllm-gguf-{}.gguf", std::process::id()));
    w.write(&path).unwrap();
    let g = GgufModel::open(&path).unwrap();
    let m = vllm::gguf_facts(&g, Path::new("./tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf")).unwrap();
    let header_bytes: u64 = g.tensors().map(|t| t.n_bytes).sum();
    let e = vllm::estimate(&m, &s, Some(24 << 30), Some(&blocks(11_915))).summary;
    std::fs::remove_file(&path).unwrap();
    // vLLM holds the raw blocks (every shard Q4_K: no merged-layer padding, 32,000 rows a
    // multiple of 64) plus its rotary cos/sin cache: 2048 positions × 64 × 2 B.
    assert_eq!(e.weights_gpu_bytes, header_bytes + 2048 * 64 * 2);
    // The KV block is the one TinyLlama's config.json gives (22 × 2 × 4 × 64 × 2 B × 16).
    assert_eq!(e.kv_cache_gpu_bytes, Some(11_915 * 360_448));
    let why = e.why.unwrap();
    assert!(!why.contains("config.json"), "{why}");
}

#[test]
fn quantised_moe_weights_are_a_floor_in_words() {
    // gpt-oss-120b (config.json: 36 layers alternating sliding/full, 128 MXFP4 experts):
    // vLLM printed "Model loading took 65.9651 GiB" on an H100 (vllm-project/vllm#23278), the
    // checkpoint is 60.8 GiB: the file's bytes are a floor.
    let types: Vec<&str> = (0..36)
        .map(|i| {
            if i % 2 == 0 {
                "\"sliding_attention\""
            } else {
                "\"full_attention\""
            }
        })
        .collect();
    let json = format!(
        r#"{{"model_type":"gpt_oss","num_hidden_layers":36,"num_attention_heads":64,"num_key_value_heads":8,"head_dim":64,"num_local_experts":128,"sliding_window":128,"layer_types":[{}],"quantization_config":{{"quant_method":"mxfp4"}}}}"#,
        types.join(",")
    );
    let c = ModelConfig::parse(json.as_bytes(), Path::new("c.json")).unwrap();
    assert_eq!(c.moe_experts, Some(128));
    let m = ModelFacts {
        gguf: None,
        config: c,
        ..facts("vllm/gemma-3-27b-it-config.json")
    };
    let e = vllm::estimate(
        &m,
        &settings("vllm serve openai/gpt-oss-120b"),
        Some(80 << 30),
        None,
    )
    .summary;
    let why = e.why.unwrap();
    assert!(why.contains(": ≥ 0.00 GiB weights"), "{why}");
    assert!(
        e.not_modelled
            .iter()
            .any(|n| n.contains("128 mxfp4 experts") && n.contains("a floor, not exact")),
        "{:?}",
        e.not_modelled
    );
    // A dense model's weights stay a plain figure.
    let e = vllm::estimate(
        &facts("vllm/gemma-3-27b-it-config.json"),
        &settings("vllm serve /m"),
        Some(80 << 30),
        None,
    )
    .summary;
    assert!(!e.why.unwrap().contains('≥'));
}
