//! The recipe's rules for the DSA variants' indexer caches (dots3note, hy_v4, glm5-next), on
//! generated GGUF headers (the writer leaves tensor data as a sparse hole). The real server's
//! figures for the same rules are checked by llama_indexer_grid.rs.

use gpuledger_workloads::estimate::{estimate, Estimate};
use gpuledger_workloads::gguf::GgufModel;
use gpuledger_workloads::LlamaSettings;

mod support {
    pub mod header;
}
use support::header::M;

fn args(s: &str) -> LlamaSettings {
    let a: Vec<String> = s.split_whitespace().map(String::from).collect();
    LlamaSettings::from_args(&a).unwrap()
}

fn est(m: &GgufModel, s: &str) -> Estimate {
    estimate(m, &args(s)).unwrap()
}

fn refused(m: &GgufModel) -> String {
    estimate(m, &args("-c 4096 -np 1")).unwrap_err().to_string()
}

/// dots3note as conversion/dots3.py writes it, in small: layers F S S F then one NextN block;
/// MLA of kv_lora 512 + rope 64 on the full layers, 256 + 64 on the sliding-window ones; the
/// window pattern and the indexer types over the 4 trunk layers only.
fn dots3note(types: bool) -> M {
    let mut m = M::new("dots3note", 5);
    m.u("context_length", 131072)
        .u("embedding_length", 4096)
        .arr("attention.head_count", &[64, 32, 32, 64, 32])
        .u("attention.head_count_kv", 1)
        .u("attention.key_length", 576)
        .u("attention.value_length", 512)
        .u("attention.key_length_mla", 192)
        .u("attention.value_length_mla", 128)
        .u("attention.key_length_swa", 320)
        .u("attention.value_length_swa", 256)
        .u("attention.kv_lora_rank", 512)
        .u("attention.sliding_window", 1024)
        .u("rope.dimension_count", 64)
        .u("nextn_predict_layers", 1)
        .u("attention.indexer.head_count", 32)
        .u("attention.indexer.key_length", 128)
        .u("attention.indexer.top_k", 1024)
        .bools(
            "attention.sliding_window_pattern",
            &[false, true, true, false],
        )
        .u("vocab_size", 1000);
    if types {
        m.bools("attention.indexer.types", &[true, false, false, true]);
    }
    m
}

#[test]
fn dots3note_indexes_its_full_layers_beside_a_window_cache() {
    let e = est(&dots3note(true).open("dots3"), "-c 4096 -np 1");
    let kv = &e.kv_cache;
    // llama_kv_cache_dsa over the full layers: MLA keys only, 576 f16 per token.
    assert_eq!((kv.layers_full, kv.full_bytes), (2, 2 * 4096 * 576 * 2));
    // The window cache: GGML_PAD(min(4096, 1024 + 512), 256) cells of the 320-wide SWA latent.
    assert_eq!(kv.cells_swa, Some(1536));
    assert_eq!((kv.layers_swa, kv.swa_bytes), (2, 2 * 1536 * 320 * 2));
    // The indexer: the types' full layers (the NextN block has none), the full cache's cells.
    let ix = kv.indexer.as_ref().expect("dots3note has an indexer cache");
    assert_eq!(
        (ix.layers, ix.k_bytes, ix.v_bytes),
        (2, 2 * 4096 * 128 * 2, 0)
    );
    assert_eq!(kv.bytes, kv.full_bytes + kv.swa_bytes + ix.bytes);
    // Without the types array llama.cpp refuses the file (get_arr, required).
    let err = refused(&dots3note(false).open("dots3-no-types"));
    assert!(err.contains("dots3note.attention.indexer.types"), "{err}");
}

/// hy_v4 in small: MLA (kv_lora 512 + rope 64) on every layer, no NextN block.
fn hy_v4(top_k: u64) -> M {
    let mut m = M::new("hy_v4", 4);
    m.u("context_length", 131072)
        .u("embedding_length", 4096)
        .u("attention.head_count", 64)
        .u("attention.head_count_kv", 1)
        .u("attention.key_length", 576)
        .u("attention.value_length", 512)
        .u("attention.key_length_mla", 192)
        .u("attention.value_length_mla", 128)
        .u("attention.kv_lora_rank", 512)
        .u("rope.dimension_count", 64)
        .u("attention.indexer.head_count", 32)
        .u("attention.indexer.key_length", 128)
        .u("attention.indexer.top_k", top_k)
        .u("vocab_size", 1000);
    m
}

#[test]
fn hy_v4_indexes_the_full_layers_and_none_on_a_full_attention_checkpoint() {
    let mut m = hy_v4(1024);
    m.bools("attention.indexer.types", &[true, false, false, true]);
    let e = est(&m.open("hyv4"), "-c 4096 -np 1");
    let ix = e.kv_cache.indexer.as_ref().expect("hy_v4 has an indexer");
    assert_eq!((ix.layers, ix.k_bytes), (2, 2 * 4096 * 128 * 2));
    // One value for every layer (get_key_or_arr).
    let mut m = hy_v4(1024);
    m.u("attention.indexer.types", 1);
    let e = est(&m.open("hyv4-all"), "-c 4096 -np 1");
    assert_eq!(e.kv_cache.indexer.as_ref().unwrap().layers, 4);
    // indexer_top_k 0: create_memory builds a plain llama_kv_cache.
    let mut m = hy_v4(0);
    m.bools("attention.indexer.types", &[true, false, false, true]);
    let e = est(&m.open("hyv4-full"), "-c 4096 -np 1");
    assert!(e.kv_cache.indexer.is_none());
    assert_eq!(e.kv_cache.bytes, 4 * 4096 * 576 * 2);
    assert!(e.guesses.is_empty(), "{:?}", e.guesses);
}

#[test]
fn hy_v4_files_llama_cpp_refuses_are_refused() {
    // No types: no layer owns an indexer, and layer 0 must.
    let err = refused(&hy_v4(1024).open("hyv4-no-types"));
    assert!(err.contains("layer 0 must own an indexer"), "{err}");
    let mut m = hy_v4(1024);
    m.bools("attention.indexer.types", &[false, true, true, true]);
    let err = refused(&m.open("hyv4-first-shared"));
    assert!(err.contains("layer 0 must own an indexer"), "{err}");
    // get_key_or_arr wants exactly n_layer entries.
    let mut m = hy_v4(1024);
    m.bools("attention.indexer.types", &[true, false]);
    let err = refused(&m.open("hyv4-short"));
    assert!(
        err.contains("hy_v4.attention.indexer.types has 2 entries for 4 layers"),
        "{err}"
    );
}

/// glm5-next in small: KDA, MLA, KDA, MLA (head_count_kv 0 marks KDA), nope-only MLA of
/// kv_lora 512, a k-pool indexer of 128-wide keys.
fn glm5_next() -> M {
    let mut m = M::new("glm5-next", 4);
    m.u("context_length", 131072)
        .u("embedding_length", 4096)
        .u("attention.head_count", 32)
        .arr("attention.head_count_kv", &[0, 1, 0, 1])
        .u("attention.key_length", 512)
        .u("attention.value_length", 512)
        .u("attention.key_length_mla", 192)
        .u("attention.value_length_mla", 128)
        .u("attention.kv_lora_rank", 512)
        .u("rope.dimension_count", 0)
        .u("ssm.conv_kernel", 4)
        .u("kda.head_dim", 128)
        .u("attention.indexer.head_count", 32)
        .u("attention.indexer.key_length", 128)
        .u("attention.indexer.top_k", 2048)
        .u("attention.indexer.kpool", 4)
        .u("vocab_size", 1000);
    m
}

#[test]
fn glm5_next_keeps_a_k_pool_row_on_its_full_indexer_layers() {
    let e = est(&glm5_next().open("glm5n"), "-c 4096 -np 1");
    let kv = &e.kv_cache;
    assert_eq!((kv.layers_full, kv.full_bytes), (2, 2 * 4096 * 512 * 2));
    assert!(kv.recurrent_bytes.is_some_and(|b| b > 0));
    // Without indexer.types every attention layer has its own indexer; the KDA layers none.
    // Its row is key | gate | pooled (indexer_kpool_row 3), K only (hparams made MLA).
    let ix = kv.indexer.as_ref().expect("glm5-next has an indexer");
    assert_eq!(
        (ix.layers, ix.k_bytes, ix.v_bytes),
        (2, 2 * 4096 * 3 * 128 * 2, 0)
    );
    // The types name the full layers (the KDA layers' entries count for nothing).
    let mut m = glm5_next();
    m.bools("attention.indexer.types", &[true, false, true, true]);
    let e = est(&m.open("glm5n-types"), "-c 4096 -np 1");
    assert_eq!(e.kv_cache.indexer.as_ref().unwrap().layers, 1);
    // The k-pool is required, above 1 and a divisor of top_k.
    let mut m = glm5_next();
    m.u("attention.indexer.kpool", 3);
    let err = refused(&m.open("glm5n-kpool3"));
    assert!(
        err.contains("glm5-next.attention.indexer.kpool = 3"),
        "{err}"
    );
}
