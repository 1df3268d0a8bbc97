//! The recipe's rules for qwen4exp's `llama_memory_hybrid_idx` (`estimate/qsa.rs`): the QSA
//! indexer cache beside the attention and recurrent caches, and the PLE conv history row, on
//! generated GGUF headers at a real model's scale (the writer leaves tensor data as a hole).
//! The grid (llama_indexer_grid2.rs) checks the same rules against the real llama-server.

use gpuledger_workloads::estimate::estimate;
use gpuledger_workloads::gguf::GgufModel;
use gpuledger_workloads::{Estimate, LlamaSettings};

mod support {
    pub mod header;
}
use support::header::M;

fn est(m: &GgufModel, args: &str) -> Result<Estimate, String> {
    let a: Vec<String> = args.split_whitespace().map(String::from).collect();
    estimate(m, &LlamaSettings::from_args(&a).unwrap()).map_err(|e| e.to_string())
}

/// A 48-layer qwen4exp (every 4th layer full attention: 12), 2 KV heads of 256, Gated DeltaNet
/// layers of 32 value heads of 128, two hyper-connection streams, an indexer of 16 heads of 128.
fn qwen4exp(ratios: Option<&[u64]>) -> M {
    let mut m = M::new("qwen4exp", 48);
    m.u("context_length", 262144)
        .u("embedding_length", 2048)
        .u("attention.head_count", 16)
        .u("attention.head_count_kv", 2)
        .u("attention.key_length", 256)
        .u("attention.value_length", 256)
        .u("full_attention_interval", 4)
        .u("ssm.conv_kernel", 4)
        .u("ssm.state_size", 128)
        .u("ssm.group_count", 16)
        .u("ssm.time_step_rank", 32)
        .u("ssm.inner_size", 4096)
        .u("hyper_connection.count", 2)
        .u("hyper_connection.low_rank", 64)
        .u("expert_count", 128)
        .u("expert_used_count", 8)
        .u("attention.indexer.head_count", 16)
        .u("attention.indexer.key_length", 128)
        .u("attention.indexer.top_k", 2048)
        .u("vocab_size", 151936);
    if let Some(r) = ratios {
        m.arr("attention.compress_ratios", r);
    }
    m
}

/// compress ratio `r` on the 12 attention layers, 0 on the linear ones.
fn ratios(r: u64) -> Vec<u64> {
    (0..48u64)
        .map(|il| if (il + 1) % 4 == 0 { r } else { 0 })
        .collect()
}

#[test]
fn the_qsa_indexer_keeps_one_key_head_and_its_pooled_copy_per_attention_layer() {
    let g = qwen4exp(Some(&ratios(4))).open("qsa-pooled");
    let e = est(&g, "-c 4096 -np 1").unwrap();
    let kv = &e.kv_cache;
    let ix = kv.indexer.as_ref().expect("qwen4exp has an indexer cache");
    assert_eq!(ix.kind, "qsa");
    // filter_idx = the attention layers; one head of raw | pooled key (2 x 128), f16, no V.
    assert_eq!(ix.layers, 12);
    assert_eq!(ix.k_bytes, 12 * 4096 * 2 * 128 * 2);
    assert_eq!(ix.v_bytes, 0);
    // The attention cache: 12 layers of 2 heads of 256, K and V.
    assert_eq!(kv.k_bytes + kv.v_bytes, 2 * 12 * 4096 * 512 * 2);
    // Its cells and streams are the attention cache's: 2 slots of their own double it.
    let two = est(&g, "-c 8192 -np 2 -kvu").unwrap();
    assert_eq!(two.kv_cache.indexer.as_ref().unwrap().bytes, 2 * ix.bytes);
    // -ctk q8_0 stores the indexer's rows as q8_0 (34 bytes per 32).
    let q8 = est(&g, "-c 4096 -np 1 -ctk q8_0 -ctv q8_0").unwrap();
    let q8k = q8.kv_cache.indexer.as_ref().unwrap().k_bytes;
    assert_eq!(q8k, 12 * 4096 * 256 / 32 * 34);
    // The module is sized now: no "not sized" sentence; the graph's gap is named instead.
    assert!(
        !e.guesses.iter().any(|g| g.contains("qwen4exp")),
        "{:?}",
        e.guesses
    );
    // The QSA indexer and the hyper-connection mixers are replayed (compute/qsa.rs, mhc.rs).
    let parts = &e.compute.approximate_parts;
    assert!(
        !parts
            .iter()
            .any(|p| p.contains("QSA indexer") || p.contains("hyper-connection")),
        "{parts:?}"
    );
    // Without compress_ratios the keys are not pooled: the row is the raw key only.
    let raw = est(&qwen4exp(None).open("qsa-raw"), "-c 4096 -np 1").unwrap();
    assert_eq!(raw.kv_cache.indexer.as_ref().unwrap().bytes, ix.bytes / 2);
}

#[test]
fn compress_ratios_llama_cpp_refuses_are_refused() {
    // load_arch_hparams: one ratio for every QSA layer, above 1, dividing the top-k.
    let mut mixed = ratios(4);
    mixed[7] = 8;
    for (name, r) in [
        ("qsa-mixed", mixed),
        ("qsa-one", ratios(1)),
        ("qsa-3", ratios(3)),
    ] {
        let err = est(&qwen4exp(Some(&r)).open(name), "-c 4096").unwrap_err();
        assert!(err.contains("compress_ratios"), "{name}: {err}");
    }
}

#[test]
fn the_ple_layer_keeps_its_conv_history_as_a_third_recurrent_row() {
    let plain = est(
        &qwen4exp(Some(&ratios(4))).open("ple-none"),
        "-c 4096 -np 3",
    )
    .unwrap();
    let mut m = qwen4exp(Some(&ratios(4)));
    m.arr("ple.layers", &[0])
        .u("ple.ngram_size", 3)
        .u("ple.conv_kernel", 4)
        .u("ple.heads_per_ngram", 2);
    let ple = est(&m.open("ple-0"), "-c 4096 -np 3").unwrap();
    // ple_conv_state = (kernel - 1) * ngram * hc * n_embd f32, one row per sequence.
    let row = 3 * 3 * 2 * 2048 * 4;
    assert_eq!(
        ple.kv_cache.recurrent_bytes.unwrap(),
        plain.kv_cache.recurrent_bytes.unwrap() + 3 * row
    );
    assert_eq!(ple.kv_cache.bytes, plain.kv_cache.bytes + 3 * row);
    // llama.cpp keeps the history in the recurrent cache, so the layer must be a linear one.
    let mut m = qwen4exp(Some(&ratios(4)));
    m.arr("ple.layers", &[3])
        .u("ple.ngram_size", 3)
        .u("ple.conv_kernel", 4);
    let err = est(&m.open("ple-3"), "-c 4096").unwrap_err();
    assert!(err.contains("not a linear attention layer"), "{err}");
}
