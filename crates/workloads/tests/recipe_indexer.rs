//! The recipe's rules for sparse-attention indexer caches (deepseek32, glm-dsa, minimax-m3),
//! Gemma 3n's host-resident per-layer embeddings, and the tools that are not llama-server, on
//! generated GGUF headers (the writer leaves tensor data as a sparse hole).

use gpuledger_workloads::estimate::{estimate, Estimate, Setting, SettingSource, Tool};
use gpuledger_workloads::gguf::writer::array;
use gpuledger_workloads::gguf::{GgufModel, MetaValue, ValueType};
use gpuledger_workloads::LlamaSettings;

mod support {
    pub mod header;
}
use support::header::M;

fn est(m: &GgufModel, args: &str) -> Estimate {
    let a: Vec<String> = args.split_whitespace().map(String::from).collect();
    estimate(m, &LlamaSettings::from_args(&a).unwrap()).unwrap()
}

/// DeepSeek V3.2's attention as its converter writes it: MLA (one KV head of kv_lora 512 + rope
/// 64), and the lightning indexer's 64 heads of 128 (config.json: index_n_heads 64,
/// index_head_dim 128, index_topk 2048).
fn deepseek32(n_layer: u32) -> M {
    deepseek32_heads(n_layer, 64, 128)
}

/// deepseek32 with `n_head` indexer heads of `head_size`.
fn deepseek32_heads(n_layer: u32, n_head: u64, head_size: u64) -> M {
    let mut m = M::new("deepseek32", n_layer.into());
    m.u("context_length", 163840)
        .u("embedding_length", 7168)
        .u("attention.head_count", 128)
        .u("attention.head_count_kv", 1)
        .u("attention.key_length", 576)
        .u("attention.value_length", 512)
        .u("attention.key_length_mla", 192)
        .u("attention.value_length_mla", 128)
        .u("attention.kv_lora_rank", 512)
        .u("attention.indexer.head_count", n_head)
        .u("attention.indexer.key_length", head_size)
        .u("attention.indexer.top_k", 2048)
        .u("vocab_size", 129280);
    m
}

#[test]
fn an_indexer_beyond_any_device_is_not_replayed() {
    // 2^32 - 1 indexer heads of 2^16: the indexer's queries alone would be ~2^60 bytes for a
    // 512-token batch; the replay must not do arithmetic on them (it used not to bound them).
    let g = deepseek32_heads(2, u32::MAX.into(), 1 << 16).open("ds32-huge-indexer");
    match estimate(
        &g,
        &LlamaSettings::from_args(&["-c".into(), "4096".into()]).unwrap(),
    ) {
        Ok(e) => assert!(
            e.compute
                .approximate_parts
                .iter()
                .any(|p| p.contains("beyond any device")),
            "{:?}",
            e.compute.approximate_parts
        ),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

#[test]
fn deepseek32_keeps_a_one_head_indexer_key_per_token_and_layer() {
    let g = deepseek32(4).open("ds32");
    let e = est(&g, "-c 4096 -np 1");
    let kv = &e.kv_cache;
    // MLA: K only, 576 f16 per token and layer.
    assert_eq!(kv.k_bytes, 4 * 4096 * 576 * 2);
    let ix = kv
        .indexer
        .as_ref()
        .expect("deepseek32 has an indexer cache");
    assert_eq!(ix.kind, "dsa");
    // llama_kv_cache_dsa: one head of indexer_head_size, -ctk's type, no V (the model is MLA).
    assert_eq!(ix.k_bytes, 4 * 4096 * 128 * 2);
    assert_eq!(ix.v_bytes, 0);
    assert_eq!(ix.layers, 4);
    assert_eq!(kv.bytes, kv.k_bytes + ix.bytes);
    assert_eq!(kv.gpu_bytes + kv.host_bytes, kv.bytes);
    // Its cells and streams are the main cache's: 2 slots of their own double it.
    let two = est(&g, "-c 8192 -np 2 -kvu");
    assert_eq!(two.kv_cache.indexer.as_ref().unwrap().bytes, 2 * ix.bytes);
    // -ctk q8_0 (with -ctv q8_0, as MLA requires) stores the indexer's keys as q8_0 too.
    let q8 = est(&g, "-c 4096 -np 1 -ctk q8_0 -ctv q8_0");
    assert_eq!(
        q8.kv_cache.indexer.as_ref().unwrap().k_bytes,
        4 * 4096 * 136
    );
    // The indexer's graph is replayed (compute/dsa.rs): the compute line no longer names it,
    // and a context twice as long adds at least the wider [n_kv, n_ubatch] F32 score.
    assert!(!e
        .compute
        .approximate_parts
        .iter()
        .any(|p| p.contains("lightning indexer")));
    let total = |e: &Estimate| e.compute.gpu_bytes + e.compute.host_bytes;
    let long = est(&g, "-c 8192 -np 1");
    assert!(total(&long) >= total(&e) + 4096 * 512 * 4);
    // -nkvo keeps it on the host with the rest of the cache.
    let host = est(&g, "-c 4096 -np 1 -nkvo");
    assert_eq!(host.kv_cache.gpu_bytes, 0);
    assert_eq!(host.kv_cache.host_bytes, kv.bytes);
}

#[test]
fn deepseek32_next_token_layers_keep_no_indexer() {
    let mut m = deepseek32(5);
    m.u("nextn_predict_layers", 1);
    let e = est(&m.open("ds32-nextn"), "-c 4096 -np 1");
    assert_eq!(e.kv_cache.indexer.as_ref().unwrap().layers, 4);
}

fn glm_dsa(ctx: u64) -> M {
    let mut m = M::new("glm-dsa", 6);
    m.u("context_length", ctx)
        .u("embedding_length", 6144)
        .u("attention.head_count", 64)
        .u("attention.head_count_kv", 1)
        .u("attention.key_length", 576)
        .u("attention.value_length", 512)
        .u("attention.key_length_mla", 256)
        .u("attention.value_length_mla", 256)
        .u("attention.kv_lora_rank", 512)
        .u("attention.indexer.head_count", 32)
        .u("attention.indexer.key_length", 128)
        .u("attention.indexer.top_k", 2048)
        .u("vocab_size", 154880);
    m
}

#[test]
fn glm_dsa_indexes_the_layers_its_types_name() {
    // No indexer.types, trained below 1M tokens (GLM 5 / 5.1): every layer has an indexer.
    let e = est(&glm_dsa(202752).open("glm5"), "-c 4096 -np 1");
    assert_eq!(e.kv_cache.indexer.as_ref().unwrap().layers, 6);
    // From 1M tokens on (GLM-5.2) without the key: layers 0, 1, then every fourth from 2.
    let e = est(&glm_dsa(1_048_576).open("glm52"), "-c 4096 -np 1");
    let ix = e.kv_cache.indexer.as_ref().unwrap();
    assert_eq!(ix.layers, 3, "layers 0, 1 and 2 of 6");
    assert_eq!(ix.bytes, 3 * 4096 * 128 * 2);
    // The file's attention.indexer.types wins.
    let mut m = glm_dsa(202752);
    m.arr("attention.indexer.types", &[1, 0, 0, 0, 1, 0]);
    let e = est(&m.open("glm-types"), "-c 4096 -np 1");
    assert_eq!(e.kv_cache.indexer.as_ref().unwrap().layers, 2);
    // A types array shorter than the layers is refused, naming the key.
    let mut m = glm_dsa(202752);
    m.arr("attention.indexer.types", &[1, 0]);
    let a: Vec<String> = ["-c", "4096"].iter().map(|s| s.to_string()).collect();
    let err = estimate(&m.open("glm-short"), &LlamaSettings::from_args(&a).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("glm-dsa.attention.indexer.types has 2 entries"),
        "{err}"
    );
}

fn minimax_m3() -> M {
    let mut m = M::new("minimax-m3", 3);
    m.u("context_length", 196608)
        .u("embedding_length", 3072)
        .u("attention.head_count", 48)
        .u("attention.head_count_kv", 8)
        .u("attention.key_length", 128)
        .u("attention.value_length", 128)
        .u("leading_dense_block_count", 1)
        .u("attention.indexer.head_count", 8)
        .u("attention.indexer.key_length", 64)
        .u("attention.indexer.top_k", 16)
        .u("attention.indexer.block_size", 64)
        .u("vocab_size", 200064);
    m
}

#[test]
fn minimax_m3_indexer_keeps_k_and_a_one_head_v_on_its_sparse_layers() {
    let e = est(&minimax_m3().open("mm3"), "-c 4096 -np 1");
    let ix = e
        .kv_cache
        .indexer
        .as_ref()
        .expect("minimax-m3 has an indexer cache");
    assert_eq!(ix.kind, "msa");
    // llama_kv_cache_msa: the model is not MLA, so llama_kv_cache gives the indexer a V too.
    assert_eq!(ix.layers, 2, "the leading dense layer keeps none");
    assert_eq!(ix.k_bytes, 2 * 4096 * 64 * 2);
    assert_eq!(ix.v_bytes, 2 * 4096 * 128 * 2);
    let main = 3 * 4096 * 8 * 128 * 2 * 2;
    assert_eq!(e.kv_cache.bytes, main + ix.bytes);
    // MSA is replayed (compute/msa.rs) with flash attention and one sequence: each sparse
    // layer's block mask, expanded per cell for the 8 indexer heads and 512 tokens, is gathered
    // then transposed in F32, so 4096 more cells add at least 2 × 8 × 512 × 4096 × 4 bytes.
    assert!(!e
        .compute
        .approximate_parts
        .iter()
        .any(|p| p.contains("MSA block indexer")));
    let total = |e: &Estimate| e.compute.gpu_bytes + e.compute.host_bytes;
    let g = minimax_m3().open("mm3-fa");
    let (short, long) = (
        est(&g, "-c 4096 -np 1 -fa on"),
        est(&g, "-c 8192 -np 1 -fa on"),
    );
    assert!(total(&long) >= total(&short) + 2 * 8 * 512 * 4096 * 4);
}

#[test]
fn an_indexer_gpuledger_does_not_model_is_named() {
    let mut m = M::new("hy-v4", 2);
    m.u("context_length", 8192)
        .u("embedding_length", 1024)
        .u("attention.head_count", 8)
        .u("attention.indexer.key_length", 64)
        .u("vocab_size", 1000);
    let e = est(&m.open("hyv4"), "-c 4096 -np 1");
    assert!(e.kv_cache.indexer.is_none());
    assert!(
        e.notes
            .iter()
            .any(|n| n.contains("hy-v4 has a sparse-attention indexer")),
        "{:?}",
        e.notes
    );
}

/// Gemma 3n E4B's embedding tensors (35 layers, n_embd 2048, 256 per-layer dims, 262144
/// tokens): per_layer_token_embd is 35 × 256 × 262144 elements, the largest tensor of the file.
fn gemma3n() -> GgufModel {
    let mut m = M::new("gemma3n", 35);
    m.u("context_length", 32768)
        .u("embedding_length", 2048)
        .u("attention.head_count", 8)
        .u("attention.head_count_kv", 2)
        .u("attention.key_length", 256)
        .u("attention.value_length", 256)
        .u("attention.sliding_window", 512)
        .u("embedding_length_per_layer_input", 256)
        .u("vocab_size", 262144);
    m.tensor("token_embd.weight", &[2048, 262144], "Q8_0")
        .tensor("per_layer_token_embd.weight", &[35 * 256, 262144], "Q8_0")
        .tensor("per_layer_model_proj.weight", &[2048, 35 * 256], "BF16")
        .tensor("per_layer_proj_norm.weight", &[256], "F32")
        .tensor("altup_proj.weight", &[2048, 2048, 3], "BF16")
        .tensor("blk.0.attn_q.weight", &[2048, 2048], "Q8_0")
        .tensor("blk.0.laurel_l.weight", &[2048, 64], "BF16")
        .tensor("output_norm.weight", &[2048], "F32");
    m.open("gemma3n")
}

#[test]
fn gemma3n_per_layer_embeddings_stay_on_the_host() {
    let g = gemma3n();
    let ple = g.tensor("per_layer_token_embd.weight").unwrap().n_bytes;
    let e = est(&g, "-c 4096 -np 1 -ngl all");
    // LLM_TENSOR_LAYER_INPUT: the host, like token_embd (whose tied output copy is on the GPU).
    assert!(
        e.weights.host_bytes >= ple,
        "host {} < per_layer_token_embd {ple}",
        e.weights.host_bytes
    );
    let on_gpu: u64 = ["per_layer_model_proj.weight", "altup_proj.weight"]
        .iter()
        .map(|n| g.tensor(n).unwrap().n_bytes)
        .sum();
    assert!(e.weights.gpu_bytes >= on_gpu);
    assert!(
        e.weights.gpu_bytes < ple,
        "the per-layer table is not on the GPU"
    );
    // AltUp, LAuReL and the per-layer inputs are in the graph replay (compute/gemma3n.rs,
    // compute/ple.rs): nothing said approximate, and the buffers hold what they keep alive.
    let parts: Vec<&str> = e
        .compute
        .approximate_parts
        .iter()
        .map(|p| p.as_str())
        .collect();
    let parts = parts.join(" | ");
    assert!(!e.compute.approximate, "{parts}");
    // 512 tokens: the looked-up per-layer rows (35 × 256 per token) stay on the host; the
    // device keeps their projected sum through every layer beside the 4 AltUp copies.
    let rows = 35 * 256 * 512 * 4;
    let copies = 4 * 2048 * 512 * 4;
    assert!(e.compute.host_bytes >= rows, "{}", e.compute.host_bytes);
    assert!(
        e.compute.gpu_bytes >= rows + copies,
        "{}",
        e.compute.gpu_bytes
    );
}

fn llama() -> GgufModel {
    let mut m = M::new("llama", 4);
    m.u("context_length", 131072)
        .u("embedding_length", 4096)
        .u("attention.head_count", 32)
        .u("attention.head_count_kv", 8)
        .u("vocab_size", 32000);
    m.open("llama-tools")
}

fn with_tool(args: &str, tool: Tool) -> LlamaSettings {
    let a: Vec<String> = args.split_whitespace().map(String::from).collect();
    let mut s = LlamaSettings::from_args(&a).unwrap();
    s.tool = Setting {
        value: tool,
        source: SettingSource::Flag("--tool".into()),
    };
    s
}

#[test]
fn one_sequence_tools_do_not_get_the_servers_slots() {
    let g = llama();
    let server = estimate(&g, &with_tool("-c 8192", Tool::Server)).unwrap();
    assert_eq!(
        (server.context.n_seq_max, server.context.kv_unified),
        (4, true)
    );
    for tool in [Tool::Cli, Tool::Mtmd] {
        let e = estimate(&g, &with_tool("-c 8192", tool)).unwrap();
        assert_eq!((e.context.n_seq_max, e.context.kv_unified), (1, false));
        // The output buffer holds one sequence's logits, not four.
        assert_eq!(e.output.host_bytes, 32000 * 4);
        let np = e.inputs.iter().find(|i| i.name == "-np").unwrap();
        assert!(format!("{:?}", np.source).contains("one sequence"));
    }
    // Before -np auto, llama-server turned -np 1 into 4 unified slots; llama-cli never did.
    let mut old = with_tool("-c 8192 -np 1", Tool::Cli);
    old.llama_build = Setting {
        value: Some(7000),
        source: SettingSource::Flag("--llama-build".into()),
    };
    let e = estimate(&g, &old).unwrap();
    assert_eq!(e.context.n_seq_max, 1);
    // llama-bench: one sequence and its default test's context, 512 + 128 (padded to 256).
    let b = estimate(&g, &with_tool("", Tool::Bench)).unwrap();
    assert_eq!((b.context.n_seq_max, b.context.n_ctx), (1, 768));
    assert!(b.inputs.iter().any(|i| i.name == "n_ctx (llama-bench)"));
    assert_eq!(Tool::parse("/opt/llama/llama-bench"), Some(Tool::Bench));
    assert_eq!(Tool::parse("llama-mtmd-cli.exe"), Some(Tool::Mtmd));
    assert_eq!(Tool::parse("ollama"), None);
}

/// Gemma 4 as models/gemma4.cpp reads it: the SWA layers from the required per-layer
/// `sliding_window_pattern`, their own head size (`key_length_swa`), and the last
/// `shared_kv_layers` layers reusing earlier layers' caches (no KV of their own).
#[test]
fn gemma4_kv_layout_follows_its_pattern_head_sizes_and_shared_layers() {
    let mut m = M::new("gemma4", 6);
    m.u("context_length", 131072)
        .u("embedding_length", 1536)
        .u("attention.head_count", 8)
        .u("attention.head_count_kv", 1)
        .u("attention.key_length", 512)
        .u("attention.value_length", 512)
        .u("attention.key_length_swa", 256)
        .u("attention.value_length_swa", 256)
        .u("attention.sliding_window", 512)
        .u("attention.shared_kv_layers", 2)
        .u("vocab_size", 262144);
    let k = "gemma4.attention.sliding_window_pattern".to_string();
    let pattern = [true, true, false, true, true, false]
        .iter()
        .map(|&b| MetaValue::Bool(b))
        .collect();
    m.w.kv(&k, array(ValueType::Bool, pattern));
    let e = est(&m.open("gemma4"), "-c 4096 -np 1 --swa-full");
    let kv = &e.kv_cache;
    // Layers 0-3 keep a cache (4 and 5 share): layer 2 full, layers 0, 1 and 3 SWA.
    assert_eq!((kv.layers_full, kv.layers_swa), (1, 3));
    assert_eq!(kv.full_bytes, 4096 * 512 * 2 * 2);
    assert_eq!(kv.swa_bytes, 3 * 4096 * 256 * 2 * 2);
}
