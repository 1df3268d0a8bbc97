//! The vLLM and SGLang recipes against figures the runtimes themselves printed, posted in public
//! issues (fixtures/vllm/README.md and fixtures/sglang/README.md cite each one), with the models'
//! published config.json files. Each test compares our number with theirs.

use gpuledger_workloads::runtimes::hf::ModelConfig;
use gpuledger_workloads::runtimes::sglang::{self, SglangSettings};
use gpuledger_workloads::runtimes::vllm::{
    self, kv_bytes_per_token, parse_log, parse_metrics, ModelFacts, VllmMetrics, VllmSettings,
};
use gpuledger_workloads::runtimes::InputSource;
use gpuledger_workloads::safetensors::{read_model, Model};
use std::path::{Path, PathBuf};

const GIB: f64 = (1u64 << 30) as f64;

fn fixture(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(p)
}

fn text(p: &str) -> String {
    std::fs::read_to_string(fixture(p)).unwrap()
}

fn config(p: &str) -> ModelConfig {
    let path = fixture(p);
    ModelConfig::parse(&std::fs::read(&path).unwrap(), &path).unwrap()
}

fn args(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

fn src(v: &str) -> vllm::Src<String> {
    vllm::Src {
        value: v.into(),
        source: InputSource::Assumed { why: "test".into() },
    }
}

/// A header-only safetensors shard (sparse data: the reader never reads it).
fn shard(path: &Path, tensors: &[(String, Vec<u64>)]) {
    let mut json = String::from("{\"__metadata__\":{\"format\":\"pt\"}");
    let mut off = 0u64;
    for (name, shape) in tensors {
        let n = shape.iter().product::<u64>() * 2;
        json.push_str(&format!(
            ",\"{name}\":{{\"dtype\":\"BF16\",\"shape\":{shape:?},\"data_offsets\":[{off},{}]}}",
            off + n
        ));
        off += n;
    }
    json.push('}');
    let mut b = (json.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(json.as_bytes());
    std::fs::write(path, &b).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_len(b.len() as u64 + off).unwrap();
}

/// The Llama-3.1-8B tensor table from its config.json (q/k/v/o, gate/up/down, two norms per
/// layer; embeddings, final norm, untied lm_head), in 4 shards with an index, as on the Hub.
fn llama_31_8b_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gl-rt-llama-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(
        fixture("vllm/llama-3.1-8b-instruct-config.json"),
        d.join("config.json"),
    )
    .unwrap();
    let c = config("vllm/llama-3.1-8b-instruct-config.json");
    let h = 4096u64;
    let kv = c.n_kv_head * c.head_dim;
    let mut all = vec![("model.embed_tokens.weight".to_string(), vec![128256, h])];
    for l in 0..c.n_layer {
        for (t, s) in [
            ("self_attn.q_proj.weight", vec![h, h]),
            ("self_attn.k_proj.weight", vec![kv, h]),
            ("self_attn.v_proj.weight", vec![kv, h]),
            ("self_attn.o_proj.weight", vec![h, h]),
            ("mlp.gate_proj.weight", vec![14336, h]),
            ("mlp.up_proj.weight", vec![14336, h]),
            ("mlp.down_proj.weight", vec![h, 14336]),
            ("input_layernorm.weight", vec![h]),
            ("post_attention_layernorm.weight", vec![h]),
        ] {
            all.push((format!("model.layers.{l}.{t}"), s));
        }
    }
    all.push(("model.norm.weight".into(), vec![h]));
    all.push(("lm_head.weight".into(), vec![128256, h]));
    let mut map = Vec::new();
    for k in 0..4 {
        let chunk = &all[k * all.len() / 4..(k + 1) * all.len() / 4];
        let name = format!("model-{:05}-of-00004.safetensors", k + 1);
        shard(&d.join(&name), chunk);
        map.extend(chunk.iter().map(|(t, _)| format!("\"{t}\":\"{name}\"")));
    }
    std::fs::write(
        d.join("model.safetensors.index.json"),
        format!(
            "{{\"metadata\":{{\"total_size\":16060522496}},\"weight_map\":{{{}}}}}",
            map.join(",")
        ),
    )
    .unwrap();
    d
}

#[test]
fn vllm_block_size_matches_the_block_count_vllm_derived_from_its_kv_space() {
    // vllm-project/vllm#17406: TinyLlama on the CPU backend, whose KV space is fixed
    // (cpu_kvcache_space_bytes), so vLLM's num_gpu_blocks = space / bytes per block.
    let m = parse_metrics(&text("vllm/tinyllama-cpu-v0-metrics.txt"), "fixture").unwrap();
    let blocks: u64 = m.cache_config["num_gpu_blocks"].parse().unwrap();
    let space: u64 = m.cache_config["cpu_kvcache_space_bytes"].parse().unwrap();
    assert_eq!((blocks, space), (11915, 4294967296));
    let c = config("vllm/tinyllama-1.1b-chat-config.json");
    let (per_token, _) = kv_bytes_per_token(&c, &src("auto"), &src("auto"), 1, 1).unwrap();
    let per_block = per_token * 16;
    assert_eq!(space / per_block, blocks, "our block is {per_block} bytes");
}

#[test]
fn vllm_llama_31_8b_on_an_rtx_3090_v0_log() {
    // vllm-project/vllm#10517 (comment by kaspersiminski): two start-ups, --max-model-len 20000
    // and 29000, same GPU.
    let c = config("vllm/llama-3.1-8b-instruct-config.json");
    let (per_token, _) = kv_bytes_per_token(&c, &src("auto"), &src("auto"), 1, 1).unwrap();
    for (file, blocks, kv) in [
        ("vllm/llama-3.1-8b-rtx3090-v0.log", 1952, "3.81"),
        ("vllm/llama-3.1-8b-rtx3090-v0-29k.log", 1478, "2.89"),
    ] {
        let l = parse_log(&text(file));
        assert_eq!(l.gpu_blocks, Some(blocks), "{file}");
        assert_eq!(format!("{:.2}", l.kv_gib.unwrap()), kv, "{file}");
        // vLLM's printed KV size is its block count × its block bytes: ours must give the same.
        let ours = blocks * 16 * per_token;
        assert_eq!(format!("{:.2}", ours as f64 / GIB), kv, "{file}");
    }
    // "maximum number of tokens that can be stored in KV cache (23648)" = 1478 blocks × 16.
    assert!(text("vllm/llama-3.1-8b-rtx3090-v0-29k.log").contains(&format!("({})", 1478 * 16)));

    // Weights: the safetensors headers (the index's total_size) are 32 MiB short of
    // "Loading model weights took 14.9888 GB" (GiB units); the estimate below closes it.
    let dir = llama_31_8b_dir("log");
    let w = read_model(&dir).unwrap();
    assert_eq!(w.index_total_size, Some(w.tensor_bytes()));
    let l = parse_log(&text("vllm/llama-3.1-8b-rtx3090-v0.log"));
    let logged = l.weights_gib.unwrap();
    assert_eq!(format!("{logged:.4}"), "14.9888");
    let file_bytes = w.tensor_bytes();
    assert_eq!(format!("{:.4}", file_bytes as f64 / GIB), "14.9575");

    // The whole ledger, with the log's figures standing in for /metrics.
    let facts = ModelFacts {
        gguf: None,
        dir: dir.clone(),
        found: "test".into(),
        config: ModelConfig::read(&dir).unwrap(),
        weights: w,
    };
    let total = (l.total_gpu_gib.unwrap() * GIB) as u64;
    let metrics = VllmMetrics {
        cache_config: [
            ("num_gpu_blocks".to_string(), "1952".to_string()),
            ("gpu_memory_utilization".to_string(), "0.90".to_string()),
        ]
        .into(),
        kv_usage: None,
        source: "log".into(),
        invalid: Default::default(),
    };
    let s = VllmSettings::from_args(
        &args("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 20000"),
        "test",
    )
    .unwrap();
    let est = vllm::estimate(&facts, &s, Some(total), Some(&metrics));
    // The files plus vLLM's rotary cos/sin cache (llama3 rope: 131,072 positions × 128 rotary
    // dims × 2 B, one cache for all 32 layers): the printed figure to its 4 decimals.
    let e = est.summary;
    assert_eq!(e.weights_gpu_bytes, file_bytes + 131_072 * 128 * 2);
    assert_eq!(
        format!("{:.4}", e.weights_gpu_bytes as f64 / GIB),
        "14.9888"
    );
    let rope = est.inputs.iter().find(|i| i.name == "rotary cos/sin cache");
    assert!(
        rope.is_some_and(|i| i.value.contains("131,072 positions")),
        "{rope:?}"
    );
    let why = e.why.unwrap();
    assert!(
        why.starts_with("vLLM reserves 90 % of this GPU (`--gpu-memory-utilization 0.9`, from its start-up log): 14.99 GiB weights, 3.81 GiB KV cache in 1,952 blocks of 16 tokens, the rest ("),
        "{why}"
    );
    // The same sentence for a Chinese reader, every part of it in the language.
    let zh = why.in_lang(gpuledger_lang::Lang::ZhCn);
    assert!(
        zh.starts_with("vLLM 预留此 GPU 的 90 %（`--gpu-memory-utilization 0.9`，来自其启动日志）：权重 14.99 GiB，KV 缓存 3.81 GiB，共 1,952 个块，每块 16 个 token，其余（")
            && zh.ends_with("用于激活值和 CUDA graph。"),
        "{zh}"
    );
    // What the recipe does not size reads in the language too (JSON keeps the English).
    let rest = e
        .not_modelled
        .iter()
        .find(|n| n.starts_with("how the rest of the reservation splits into"))
        .unwrap();
    assert_eq!(
        rest.in_lang(gpuledger_lang::Lang::ZhCn),
        "预留的其余部分如何分给激活值和 CUDA graph、CUDA 上下文和 NCCL 缓冲区（vLLM 在启动时分析测定）"
    );
    assert_eq!(e.total_gpu_bytes, (total as f64 * 0.9) as u64);
    assert_eq!(e.n_ctx, Some(1952 * 16));
    // The parts never exceed the reservation, and the rest is what is left.
    assert_eq!(
        e.weights_gpu_bytes + e.kv_cache_gpu_bytes.unwrap() + e.compute_gpu_bytes.unwrap(),
        e.total_gpu_bytes
    );
    // On a 16 GiB card the same weights and blocks exceed 90 %: the estimate says it contradicts
    // itself instead of showing "the rest (0.00 GiB)".
    let e = vllm::estimate(&facts, &s, Some(16 << 30), Some(&metrics)).summary;
    let why = e.why.unwrap();
    assert!(
        why.starts_with("The estimate contradicts itself: 14.99 GiB weights and 3.81 GiB KV cache"),
        "{why}"
    );
    assert!(!why.contains("0.00 GiB"), "{why}");
    assert_eq!(e.compute_gpu_bytes, None);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn vllm_qwen3_235b_fp8_tp4_v1_log() {
    // vllm-project/vllm#21348: 4×H100, --tensor-parallel-size 4, V1 log lines.
    let l = parse_log(&text("vllm/qwen3-235b-a22b-fp8-tp4-v1.log"));
    assert_eq!(l.kv_tokens, Some(178_880));
    let c = config("vllm/qwen3-235b-a22b-fp8-config.json");
    assert_eq!(c.quant_method.as_deref(), Some("fp8"));
    // FP8 weights, but the KV cache is in the activation dtype (auto → bfloat16).
    let (per_token, how) = kv_bytes_per_token(&c, &src("auto"), &src("auto"), 4, 1).unwrap();
    assert_eq!(per_token, 2 * 94 * 128 * 2, "{how}");
    // vLLM prints the rank's available memory and the token count all ranks can hold (whole
    // blocks, the smallest rank), so ours from the count is at most the printed memory, close.
    let ours = 178_880.0 * per_token as f64 / GIB;
    let printed = l.kv_gib.unwrap();
    assert!(
        ours <= printed && (printed - ours) / printed < 0.02,
        "{ours:.3} GiB vs printed {printed} GiB"
    );
}

#[test]
fn vllm_reservation_against_nvidia_smi_with_enforce_eager() {
    // vllm-project/vllm#7553: Yi-1.5-34B-Chat, TP 4 on RTX 4090s (24564 MiB), util 0.9:
    // nvidia-smi showed 21395 MiB per card with --enforce-eager (23859 MiB with CUDA graphs,
    // which v0.5.4 kept outside the budget).
    let s = VllmSettings::from_args(
        &args("python -m vllm.entrypoints.openai.api_server --model /m --gpu-memory-utilization 0.9 --tensor-parallel-size 4 --enforce-eager"),
        "test",
    )
    .unwrap();
    let facts = ModelFacts {
        gguf: None,
        dir: "/m".into(),
        found: "test".into(),
        config: config("vllm/llama-3.1-8b-instruct-config.json"),
        weights: Model {
            path: "/m".into(),
            files: vec![],
            index_total_size: None,
            aliases: 0,
        },
    };
    let total = 24564u64 << 20;
    let e = vllm::estimate(&facts, &s, Some(total), None).summary;
    let measured = (21395u64 << 20) as f64;
    let diff = (e.total_gpu_bytes as f64 - measured) / measured;
    assert!(
        diff.abs() < 0.05,
        "reservation vs nvidia-smi: {:.1} %",
        diff * 100.0
    );
    assert!(e.compute_label.unwrap().contains("no CUDA graphs"));
    // Without the block count the KV cache is unknown, and said so.
    assert_eq!(e.kv_cache_gpu_bytes, None);
    assert!(e.not_modelled.iter().any(|n| n.contains("block count")));
}

#[test]
fn sglang_qwen3_235b_fp8_tp4_log() {
    // vllm-project/vllm#21348, the SGLang side: --tp 4 --mem-fraction-static 0.93.
    let r = sglang::parse_log(&text("sglang/qwen3-235b-a22b-fp8-tp4.log"));
    assert_eq!(r.max_total_num_tokens, Some(367_404));
    let c = config("sglang/qwen3-235b-a22b-fp8-config.json");
    let (per_token, _) = kv_bytes_per_token(&c, &src("auto"), &src("auto"), 4, 1).unwrap();
    // K is half of it; SGLang prints K and V apiece, in GiB ("GB" = 1024³ there).
    let k = 367_404.0 * (per_token / 2) as f64 / GIB;
    assert_eq!(format!("{k:.2}"), format!("{:.2}", r.k_gib.unwrap()));
    assert_eq!(format!("{k:.2}"), format!("{:.2}", r.v_gib.unwrap()));

    let s = SglangSettings::from_args(
        &args("python3 -m sglang.launch_server --model /path/to/Qwen3-235B-A22B-FP8 --tp 4 --trust-remote-code --host 0.0.0.0 --port 8000 --mem-fraction-static 0.93"),
        "test",
    )
    .unwrap();
    assert_eq!(s.tp_size.value, 4);
    let facts = ModelFacts {
        gguf: None,
        dir: "/path/to/Qwen3-235B-A22B-FP8".into(),
        found: "test".into(),
        config: c,
        weights: Model {
            path: "/m".into(),
            files: vec![],
            index_total_size: None,
            aliases: 0,
        },
    };
    let mut report = r.clone();
    report.source = "log".into();
    let total = 81559u64 << 20; // an H100 80GB as NVML reports it
    let e = sglang::estimate(&facts, &s, Some(total), Some(&report)).summary;
    let kv = e.kv_cache_gpu_bytes.unwrap() as f64 / GIB;
    assert_eq!(
        format!("{:.2}", kv / 2.0),
        format!("{:.2}", r.k_gib.unwrap())
    );
    assert_eq!(e.total_gpu_bytes, (total as f64 * 0.93) as u64);
    let why = e.why.unwrap();
    assert!(
        why.starts_with("SGLang keeps 93 % of this GPU as a static pool (`--mem-fraction-static 0.93`): 0.00 GiB weights (rank share of 4), 16.47 GiB KV cache for 367,404 tokens;"),
        "{why}"
    );
    let tw = why.in_lang(gpuledger_lang::Lang::ZhTw);
    assert!(
        tw.starts_with("SGLang 把此 GPU 的 93 % 留作靜態池（`--mem-fraction-static 0.93`）：權重 0.00 GiB（4 個 rank 中每個的份額），KV 快取 16.47 GiB，容納 367,404 個 token；"),
        "{tw}"
    );
    assert!(e.reported.iter().any(|f| f.what == "max_total_num_tokens"));
    // Without SGLang's own token count the pool is bounded, not sized.
    let e = sglang::estimate(&facts, &s, Some(total), None).summary;
    assert_eq!(e.kv_cache_gpu_bytes, None);
    let why = e.why.unwrap();
    assert!(
        why.contains(&format!(
            "the KV pool in what is left (at most {:.2} GiB;",
            (total as f64 * 0.93) as u64 as f64 / GIB
        )),
        "{why}"
    );
    // SGLang's own 367,404 tokens on a 16 GiB card: more KV cache than the pool can hold.
    let e = sglang::estimate(&facts, &s, Some(16 << 30), Some(&report)).summary;
    let why = e.why.unwrap();
    assert!(
        why.starts_with("The estimate contradicts itself:") && why.contains("16.47 GiB KV cache"),
        "{why}"
    );
}

#[test]
fn vllm_command_lines_and_defaults() {
    let s = VllmSettings::from_args(&args("vllm serve Qwen/Qwen3-8B"), "cmd").unwrap();
    assert_eq!(s.model.as_deref(), Some("Qwen/Qwen3-8B"));
    assert_eq!(
        s.gpu_memory_utilization.value,
        vllm::DEFAULT_GPU_MEMORY_UTILIZATION
    );
    assert!(matches!(
        s.gpu_memory_utilization.source,
        InputSource::Default { .. }
    ));
    assert_eq!((s.block_size.value, s.tensor_parallel_size.value), (16, 1));
    let s = VllmSettings::from_args(
        &args("/usr/bin/python3 -m vllm.entrypoints.openai.api_server --model=/m/x --gpu_memory_utilization=0.5 -tp 2 --kv-cache-dtype fp8 --block-size 32 --max-model-len 32k --enforce-eager --dtype half --quantization awq"),
        "cmd",
    )
    .unwrap();
    assert_eq!(s.model.as_deref(), Some("/m/x"));
    assert_eq!(s.gpu_memory_utilization.value, 0.5);
    assert!(
        matches!(&s.gpu_memory_utilization.source, InputSource::Flag { flag } if flag.ends_with("(cmd)")),
        "{:?}",
        s.gpu_memory_utilization.source
    );
    assert_eq!(s.tensor_parallel_size.value, 2);
    assert_eq!(s.kv_cache_dtype.value, "fp8");
    assert_eq!(s.block_size.value, 32);
    assert_eq!(s.max_model_len.unwrap().value, 32000);
    assert!(s.enforce_eager.value);
    assert_eq!(s.quantization.unwrap().value, "awq");
    for bad in [
        "vllm serve m --gpu-memory-utilization 1.5",
        "vllm serve m --gpu-memory-utilization x",
        "vllm serve m --block-size 0",
        "vllm serve m -tp 0",
        // tp × pp would overflow 64 bits (a panic, or 0 ranks and a division by zero).
        "vllm serve m -tp 4294967296 -pp 4294967296",
        "vllm serve m --pipeline-parallel-size 65537",
    ] {
        assert!(VllmSettings::from_args(&args(bad), "cmd").is_err(), "{bad}");
    }
    let k = |v: &str| {
        VllmSettings::from_args(&args(&format!("vllm serve m --max-model-len {v}")), "c")
            .unwrap()
            .max_model_len
            .unwrap()
            .value
    };
    assert_eq!((k("32K"), k("1m"), k("4096")), (32768, 1_000_000, 4096));
    assert_eq!(
        (k("25.6k"), k("1g"), k("1G")),
        (25_600, 1_000_000_000, 1 << 30)
    );
    // --kv-cache-memory-bytes is read by the same human_readable_int: case-sensitive, and
    // GiB / GB / a fraction with a binary suffix are refused, as vLLM refuses them.
    let b = |v: &str| {
        VllmSettings::from_args(
            &args(&format!("vllm serve m --kv-cache-memory-bytes {v}")),
            "c",
        )
        .map(|s| s.kv_cache_memory_bytes.unwrap().value)
    };
    assert_eq!(b("8G"), Ok(8 << 30));
    assert_eq!(b("8g"), Ok(8_000_000_000));
    assert_eq!(b("1.5g"), Ok(1_500_000_000));
    assert_eq!(b("8589934592"), Ok(8 << 30));
    for bad in ["8GiB", "8GB", "1.5G", "1.g", ".5g", "-1", "99999999999T"] {
        let e = b(bad).unwrap_err();
        assert!(e.contains("--kv-cache-memory-bytes"), "{bad}: {e}");
    }
    let e = VllmSettings::from_args(&args("vllm serve m -tp 4294967296 -pp 4294967296"), "cmd")
        .unwrap_err();
    assert!(e.contains("-tp 4294967296") && e.contains("65536"), "{e}");
    let e = VllmSettings::from_args(&args("vllm serve m --max-model-len"), "cmd").unwrap_err();
    assert!(e.contains("--max-model-len"), "{e}");
}

#[test]
fn metrics_labels_and_mla() {
    let m = parse_metrics(
        "vllm:cache_config_info{a=\"x\\\"y\",num_gpu_blocks=\"27000\",block_size=\"16\"} 1.0\nvllm:kv_cache_usage_perc{engine=\"0\"} 0.25\n",
        "s",
    )
    .unwrap();
    assert_eq!(m.cache_config["a"], "x\"y");
    assert_eq!(m.cache_config["num_gpu_blocks"], "27000");
    assert_eq!(m.kv_usage, Some(0.25));
    assert!(parse_metrics("llamacpp:x 1", "s").is_none());
    // The newer whole-config gauge (vllm-project/vllm#44691's body, shortened).
    let m = parse_metrics(
        r#"vllm:vllm_config_info{cache_config__block_size_resolved="True",cache_config_block_size="8576",cache_config_cache_dtype="fp8",cache_config_gpu_memory_utilization="0.9",model_config_x="y"} 1.0"#,
        "s",
    )
    .unwrap();
    assert_eq!(m.cache_config["block_size"], "8576");
    assert_eq!(m.cache_config["gpu_memory_utilization"], "0.9");
    assert!(!m.cache_config.contains_key("model_config_x"));
    // MLA (DeepSeek-V3's published lengths): one latent vector per layer, not split over TP.
    let c = ModelConfig::parse(
        br#"{"num_hidden_layers":61,"num_attention_heads":128,"num_key_value_heads":128,"hidden_size":7168,"kv_lora_rank":512,"qk_rope_head_dim":64,"torch_dtype":"bfloat16"}"#,
        Path::new("c.json"),
    )
    .unwrap();
    let (b1, how) = kv_bytes_per_token(&c, &src("auto"), &src("auto"), 1, 1).unwrap();
    let (b8, _) = kv_bytes_per_token(&c, &src("auto"), &src("auto"), 8, 1).unwrap();
    assert_eq!((b1, b8), (61 * 576 * 2, 61 * 576 * 2));
    assert!(how.starts_with("MLA"), "{how}");
    // A packed cache format is not sized.
    assert!(kv_bytes_per_token(&c, &src("nvfp4"), &src("auto"), 1, 1).is_none());
}

#[test]
fn vllm_tensor_parallel_ranks_and_explicit_kv_memory() {
    let dir = llama_31_8b_dir("tp");
    let facts = ModelFacts {
        gguf: None,
        dir: dir.clone(),
        found: "test".into(),
        config: ModelConfig::read(&dir).unwrap(),
        weights: read_model(&dir).unwrap(),
    };
    let total = 80u64 << 30;
    let one = VllmSettings::from_args(&args("vllm serve m"), "c").unwrap();
    let two = VllmSettings::from_args(&args("vllm serve m -tp 2"), "c").unwrap();
    let m = |blocks: &str| VllmMetrics {
        cache_config: [("num_gpu_blocks".to_string(), blocks.to_string())].into(),
        kv_usage: None,
        source: "GET http://127.0.0.1:8000/metrics".into(),
        invalid: Default::default(),
    };
    let e1 = vllm::estimate(&facts, &one, Some(total), Some(&m("1000"))).summary;
    let e2 = vllm::estimate(&facts, &two, Some(total), Some(&m("1000"))).summary;
    // Each rank holds half the weights but the whole rotary cache (131,072 × 128 × 2 B), and a
    // block on a rank holds half the KV heads.
    let rope = 131_072 * 128 * 2;
    assert_eq!(
        e2.weights_gpu_bytes - rope,
        (e1.weights_gpu_bytes - rope) / 2
    );
    assert_eq!(
        e2.kv_cache_gpu_bytes.unwrap() * 2,
        e1.kv_cache_gpu_bytes.unwrap()
    );
    assert!(e2.why.as_deref().unwrap().contains("(rank share of 2)"));
    // The default reservation is the source's 0.92, and the sentence says it is the default.
    assert_eq!(e1.total_gpu_bytes, (total as f64 * 0.92) as u64);
    assert!(e1
        .why
        .as_deref()
        .unwrap()
        .contains("(`--gpu-memory-utilization 0.92`, the default)"));
    // --kv-cache-memory-bytes replaces the reservation: weights + that cache, said so.
    let k = VllmSettings::from_args(&args("vllm serve m --kv-cache-memory-bytes 8G"), "c").unwrap();
    let ek = vllm::estimate(&facts, &k, Some(total), None).summary;
    assert_eq!(ek.kv_cache_gpu_bytes, Some(8 << 30));
    assert_eq!(ek.total_gpu_bytes, ek.weights_gpu_bytes + (8 << 30));
    assert!(ek
        .why
        .unwrap()
        .contains("replaces the --gpu-memory-utilization"));
    // No device total: no reservation, and not_modelled says why.
    let en = vllm::estimate(&facts, &one, None, None).summary;
    assert_eq!(en.total_gpu_bytes, en.weights_gpu_bytes);
    assert!(en
        .not_modelled
        .iter()
        .any(|n| n.contains("total memory is not known")));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 40, item 5: a `/metrics` answer whose figures cannot be true (`NaN`, `+Inf`, a
/// 309-digit negative share, 18,446,744,073,709,551,615 blocks) is not shown as the runtime's
/// report: each is `n/a` with the answer quoted, and the recipe runs as if it had not been said.
#[test]
fn vllm_metrics_that_cannot_be_true_are_unknown_not_reported() {
    let dir = llama_31_8b_dir("bad-metrics");
    let facts = ModelFacts {
        gguf: None,
        dir: dir.clone(),
        found: "test".into(),
        config: ModelConfig::read(&dir).unwrap(),
        weights: read_model(&dir).unwrap(),
    };
    let total = 80u64 << 30;
    let s = VllmSettings::from_args(&args("vllm serve m"), "c").unwrap();
    let huge_negative = format!("-1{}", "0".repeat(308));
    for (usage, blocks) in [
        ("NaN", "1000"),
        ("+Inf", "1000"),
        (huge_negative.as_str(), "1000"),
        ("0.5", "18446744073709551615"),
    ] {
        let body = format!(
            "vllm:cache_config_info{{block_size=\"16\",num_gpu_blocks=\"{blocks}\"}} 1.0\nvllm:kv_cache_usage_perc{{engine=\"0\"}} {usage}\n"
        );
        let m = parse_metrics(&body, "GET http://127.0.0.1:8000/metrics").unwrap();
        let e = vllm::estimate(&facts, &s, Some(total), Some(&m)).summary;
        let shown: Vec<String> = e
            .reported
            .iter()
            .map(|f| format!("{}: {}", f.what, f.text.clone().unwrap_or_default()))
            .collect();
        let all = shown.join("\n");
        let digits = "0".repeat(40);
        for never in [
            "NaN %",
            "inf %",
            "18,446,744,073,709,551,615",
            digits.as_str(),
        ] {
            assert!(!all.contains(never), "{usage}/{blocks}: {all}");
        }
        let bad = if blocks == "1000" { usage } else { blocks };
        let quoted = &bad[..bad.len().min(32)];
        assert!(
            shown
                .iter()
                .any(|l| l.contains("n/a: the runtime answered") && l.contains(quoted)),
            "{usage}/{blocks}: {all}"
        );
        if blocks == "1000" {
            assert_eq!(m.kv_usage, None);
            assert!(all.contains("KV cache in use: n/a"), "{all}");
            assert!(all.contains("num_gpu_blocks: 1,000 blocks"), "{all}");
        } else {
            assert_eq!(m.kv_usage, Some(0.5));
            assert!(all.contains("num_gpu_blocks: n/a"), "{all}");
            // The recipe does not size a cache of u64::MAX blocks.
            assert!(
                e.kv_cache_gpu_bytes.unwrap_or(0) < total,
                "{:?}",
                e.kv_cache_gpu_bytes
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn huge_token_counts_and_mla_dims_are_unknown_or_errors_not_overflows() {
    // SGLang's token count (--max-total-tokens or its server's answer) is any u64.
    let c = config("sglang/qwen3-235b-a22b-fp8-config.json");
    let facts = ModelFacts {
        gguf: None,
        dir: "/m".into(),
        found: "test".into(),
        config: c,
        weights: Model {
            path: "/m".into(),
            files: vec![],
            index_total_size: None,
            aliases: 0,
        },
    };
    let s = SglangSettings::from_args(
        &args("python3 -m sglang.launch_server --model /m --max-total-tokens 18446744073709551615"),
        "test",
    )
    .unwrap();
    let e = sglang::estimate(&facts, &s, Some(80 << 30), None).summary;
    assert_eq!(e.kv_cache_gpu_bytes, None);
    assert!(
        e.not_modelled.iter().any(|n| n.contains("does not fit")),
        "{:?}",
        e.not_modelled
    );
    let report = sglang::parse_server_info(
        r#"{"max_total_num_tokens":18446744073709551615}"#,
        "GET http://127.0.0.1:30000/get_server_info",
    )
    .unwrap();
    let e = sglang::estimate(&facts, &s, None, Some(&report)).summary;
    assert_eq!(e.kv_cache_gpu_bytes, None);
    // MLA's latent size comes from config.json: bounded like head_dim, the file named.
    let e = ModelConfig::parse(
        br#"{"num_hidden_layers":61,"num_attention_heads":128,"hidden_size":7168,"kv_lora_rank":18446744073709551615,"qk_rope_head_dim":64}"#,
        Path::new("/m/config.json"),
    )
    .unwrap_err();
    assert!(
        e.contains("/m/config.json") && e.contains("kv_lora_rank"),
        "{e}"
    );
}

/// SGLang's pools that keep one buffer per layer (MLA's, for DeepSeek) print `KV size` instead of
/// `K size`/`V size`: the format of `MLATokenToKVPool` in sglang's
/// `python/sglang/srt/mem_cache/memory_pool.py` (`KV Cache is allocated. #tokens: {size}, KV size:
/// {kv_size / GB:.2f} GB`, GB = 1024³). The figures are made up; the line's shape is SGLang's.
#[test]
fn sglang_mla_kv_size_line_is_read() {
    let l = sglang::parse_log(
        "[2025-03-01 10:00:00 TP0] KV Cache is allocated. #tokens: 1293134, KV size: 83.78 GB\n",
    );
    assert_eq!(l.max_total_num_tokens, Some(1_293_134));
    assert_eq!(l.kv_gib, Some(83.78));
    let r = l.reported("log");
    let kv = r.iter().find(|f| f.what == "KV cache (KV size)").unwrap();
    assert_eq!(kv.bytes, Some((83.78 * GIB) as u64));
}
