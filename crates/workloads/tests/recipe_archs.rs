//! The architecture rules (`estimate/archs.rs`) on full-size headers of published models: which
//! layers hold KV or recurrent state, the state's size per layer (llama.cpp b11434's
//! `llama_hparams::n_embd_r`/`n_embd_s`), the windows llama.cpp forces, and an unknown
//! architecture said to be a guess. The tiny models of the same architectures are loaded in the
//! real llama-server by llama_arch_grid.rs.

use gpuledger_views::estimate::render_text;
use gpuledger_workloads::estimate::{estimate, CacheKind, Estimate};
use gpuledger_workloads::gguf::GgufModel;
use gpuledger_workloads::LlamaSettings;

mod support {
    pub mod header;
}
use support::header::M;

fn est(m: &GgufModel, args: &str) -> Estimate {
    let a: Vec<String> = args.split_whitespace().map(String::from).collect();
    estimate(m, &LlamaSettings::from_args(&a).unwrap()).unwrap()
}

/// Qwen3.6-35B-A3B (and Qwen3.5-35B-A3B, the same `qwen35moe` layout) as its model card gives it
/// (https://mera.a-ai.ru/en/industrial/submits/181, the Qwen3.6 card's "Hidden Layout"): 40
/// layers as 10 × (3 Gated DeltaNet + 1 gated attention), hidden 2048; Gated DeltaNet with 32 V
/// heads and 16 QK heads of 128, conv kernel 4; attention with 16 Q and 2 KV heads of 256.
/// The converter writes the DeltaNet as ssm.* keys: inner_size = 32 × 128, state_size = 128,
/// group_count = 16 (QK heads), time_step_rank = 32 (V heads).
fn qwen36_35b_a3b() -> M {
    let mut m = M::new("qwen35moe", 40);
    m.u("context_length", 262144)
        .u("embedding_length", 2048)
        .u("attention.head_count", 16)
        .u("attention.head_count_kv", 2)
        .u("attention.key_length", 256)
        .u("attention.value_length", 256)
        .u("ssm.conv_kernel", 4)
        .u("ssm.inner_size", 4096)
        .u("ssm.state_size", 128)
        .u("ssm.group_count", 16)
        .u("ssm.time_step_rank", 32)
        .u("vocab_size", 248320);
    m
}

/// Gated DeltaNet's state per layer and sequence, by hand: conv (kernel − 1) × (inner + 2 ×
/// groups × state) and the state matrix state × inner, F32.
const QWEN36_RS_PER_LAYER: u64 = (3 * (4096 + 2 * 16 * 128) + 128 * 4096) * 4;

#[test]
fn qwen36_35b_a3b_caches_kv_on_one_layer_in_four_and_the_deltanet_state_on_the_rest() {
    let g = qwen36_35b_a3b().open("qwen36-35b-a3b");
    let e = est(&g, "-c 4096 -np 1");
    assert_eq!(e.model.cache_kind, CacheKind::Hybrid);
    assert!(e.guesses.is_empty(), "{:?}", e.guesses);
    assert_eq!(e.kv_cache.layers_full, 10);
    // 10 layers × 2 KV heads × 256 × (K + V) × F16 = 20 KiB per token.
    assert_eq!(e.kv_cache.k_bytes + e.kv_cache.v_bytes, 4096 * 20 * 1024);
    assert_eq!(QWEN36_RS_PER_LAYER, 2_195_456);
    assert_eq!(e.kv_cache.recurrent_bytes, Some(30 * QWEN36_RS_PER_LAYER));
    // 62.81 MiB of state per slot, whatever the context.
    let four = est(&g, "-c 65536 -np 4");
    assert_eq!(
        four.kv_cache.recurrent_bytes,
        Some(4 * 30 * QWEN36_RS_PER_LAYER)
    );
}

#[test]
fn the_converters_recurrent_layer_array_wins_over_the_interval() {
    let mut m = qwen36_35b_a3b();
    // Full attention on the first 8 layers only: an array the interval could not give.
    let layout: Vec<bool> = (0..40).map(|il| il >= 8).collect();
    m.bools("attention.recurrent_layers", &layout)
        .u("full_attention_interval", 4);
    let e = est(&m.open("qwen35moe-array"), "-c 4096 -np 1");
    assert_eq!(e.kv_cache.layers_full, 8);
    assert_eq!(e.kv_cache.recurrent_bytes, Some(32 * QWEN36_RS_PER_LAYER));
    let mut m = qwen36_35b_a3b();
    m.u("full_attention_interval", 2);
    let e = est(&m.open("qwen35moe-interval2"), "-c 4096 -np 1");
    assert_eq!(e.kv_cache.layers_full, 20);
    m.u("full_attention_interval", 0);
    let err = estimate(
        &m.open("qwen35moe-interval0"),
        &LlamaSettings::from_args(&[]).unwrap(),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("full_attention_interval is 0"),
        "{err}"
    );
}

#[test]
fn qwen3next_80b_a3b_is_the_same_hybrid() {
    // Qwen3-Next-80B-A3B's config.json: 48 layers, full_attention_interval 4, head_dim 256,
    // 2 KV heads, linear heads 16 (QK) / 32 (V) of 128, conv kernel 4.
    let mut m = M::new("qwen3next", 48);
    m.u("context_length", 262144)
        .u("embedding_length", 2048)
        .u("attention.head_count", 16)
        .u("attention.head_count_kv", 2)
        .u("attention.key_length", 256)
        .u("attention.value_length", 256)
        .u("full_attention_interval", 4)
        .u("ssm.conv_kernel", 4)
        .u("ssm.inner_size", 4096)
        .u("ssm.state_size", 128)
        .u("ssm.group_count", 16)
        .u("ssm.time_step_rank", 32);
    let e = est(&m.open("qwen3next-80b"), "-c 8192 -np 1");
    assert_eq!(e.kv_cache.layers_full, 12);
    assert_eq!(e.kv_cache.k_bytes + e.kv_cache.v_bytes, 8192 * 12 * 2048);
    assert_eq!(e.kv_cache.recurrent_bytes, Some(36 * QWEN36_RS_PER_LAYER));
}

#[test]
fn kda_state_follows_n_embd_r_and_n_embd_s() {
    // Kimi-Linear-48B-A3B's shape: 27 layers, 32 heads, KDA head 128, conv 4; its MLA layers
    // (every 4th and the last) have KV heads, the KDA layers none.
    let kv: Vec<u64> = (0..27)
        .map(|il| u64::from((il + 1) % 4 == 0 || il == 26))
        .collect();
    let mut m = M::new("kimi-linear", 27);
    m.u("context_length", 1 << 20)
        .u("embedding_length", 2304)
        .u("attention.head_count", 32)
        .arr("attention.head_count_kv", &kv)
        .u("attention.key_length", 576)
        .u("attention.value_length", 512)
        .u("attention.key_length_mla", 192)
        .u("attention.value_length_mla", 128)
        .u("attention.kv_lora_rank", 512)
        .u("ssm.conv_kernel", 4)
        .u("kda.head_dim", 128);
    let e = est(&m.open("kimi-linear-48b"), "-c 4096 -np 1");
    let kda_layers = kv.iter().filter(|&&h| h == 0).count() as u64;
    assert_eq!(kda_layers, 20);
    // r: 3 × (kernel − 1) × heads × head; s: head² × heads.
    let per_layer = (3 * 3 * 32 * 128 + 128 * 128 * 32) * 4;
    assert_eq!(e.kv_cache.recurrent_bytes, Some(kda_layers * per_layer));
    assert_eq!(e.kv_cache.layers_full, 7);
    assert_eq!(e.kv_cache.k_bytes, 7 * 4096 * 576 * 2);
}

#[test]
fn nemotron_h_mlp_only_layers_are_neither_recurrent_nor_attention() {
    // Mamba-2, MLP, attention, MLP: only the first is recurrent, only the third has KV.
    let mut m = M::new("nemotron_h", 4);
    m.u("context_length", 8192)
        .u("embedding_length", 1024)
        .u("attention.head_count", 8)
        .arr("attention.head_count_kv", &[0, 0, 2, 0])
        .arr("feed_forward_length", &[0, 4096, 0, 4096])
        .u("ssm.conv_kernel", 4)
        .u("ssm.inner_size", 2048)
        .u("ssm.state_size", 128)
        .u("ssm.group_count", 8)
        .u("ssm.time_step_rank", 64);
    let e = est(&m.open("nemotron-h"), "-c 4096 -np 1");
    let rs = (3 * (2048 + 2 * 8 * 128) + 128 * 2048) * 4;
    assert_eq!(e.kv_cache.recurrent_bytes, Some(rs));
    assert_eq!(e.kv_cache.layers_full, 1);
}

fn attention_model(arch: &str, n_layer: u64, swa: Option<u64>) -> M {
    let mut m = M::new(arch, n_layer);
    m.u("context_length", 131072)
        .u("embedding_length", 1024)
        .u("attention.head_count", 8)
        .u("attention.head_count_kv", 2);
    if let Some(w) = swa {
        m.u("attention.sliding_window", w);
    }
    m
}

#[test]
fn windows_llama_cpp_forces_or_gates() {
    // Llama 4: chunked attention over 8192 tokens, 3 chunked : 1 full, unless the file says 0.
    let e = est(
        &attention_model("llama4", 8, None).open("llama4"),
        "-c 32768 -np 1",
    );
    assert_eq!((e.kv_cache.layers_full, e.kv_cache.layers_swa), (2, 6));
    assert_eq!(e.kv_cache.cells_swa, Some(8192 + 512));
    let e = est(
        &attention_model("llama4", 8, Some(0)).open("llama4-nochunk"),
        "-c 32768 -np 1",
    );
    assert_eq!((e.kv_cache.cells_swa, e.kv_cache.layers_full), (None, 8));
    // SmallThinker: any window becomes 4096, the first of each 4 layers full.
    let e = est(
        &attention_model("smallthinker", 5, Some(512)).open("smallthinker"),
        "-c 32768 -np 1",
    );
    assert_eq!((e.kv_cache.layers_full, e.kv_cache.layers_swa), (2, 3));
    assert_eq!(e.kv_cache.cells_swa, Some(4096 + 512));
    let e = est(
        &attention_model("smallthinker", 5, None).open("smallthinker-dense"),
        "-c 32768 -np 1",
    );
    assert_eq!(e.kv_cache.cells_swa, None);
    // EXAONE 4: a window only at 64 layers.
    let e = est(
        &attention_model("exaone4", 30, Some(4096)).open("exaone4-30"),
        "-c 32768 -np 1",
    );
    assert_eq!((e.kv_cache.cells_swa, e.kv_cache.layers_full), (None, 30));
    assert!(
        e.notes.iter().any(|n| n.contains("below 64")),
        "{:?}",
        e.notes
    );
    let e = est(
        &attention_model("exaone4", 64, None).open("exaone4-64"),
        "-c 32768 -np 1",
    );
    assert_eq!((e.kv_cache.layers_full, e.kv_cache.layers_swa), (16, 48));
    assert_eq!(e.kv_cache.cells_swa, Some(4096 + 512));
}

#[test]
fn an_unknown_architecture_is_estimated_as_a_transformer_and_says_so() {
    let g = attention_model("qwen9", 4, None).open("qwen9");
    let e = est(&g, "-c 4096 -np 1");
    assert!(!e.model.architecture_known);
    assert_eq!(e.model.cache_kind, CacheKind::Kv);
    assert_eq!(e.kv_cache.layers_full, 4);
    assert!(e.guesses.iter().any(|g| g.contains("'qwen9' is not in")));
    assert!(e.notes.iter().any(|n| n.contains("'qwen9' is not in")));
    assert!(e.compute.approximate);
    let json = serde_json::to_value(&e).unwrap();
    assert_eq!(json["model"]["architecture_known"], false);
    assert!(json["guesses"][0].as_str().unwrap().contains("qwen9"));
    // The compute names the unknown graph too, in the JSON and the text.
    let parts = json["compute"]["approximate_parts"].to_string();
    assert!(
        parts.contains("'qwen9', an architecture gpuledger does not know"),
        "{parts}"
    );
    let text = render_text(&e);
    assert!(text.contains("APPROXIMATE"), "{text}");
    assert!(text.contains("~"), "{text}");
    assert!(text.contains("'qwen9' is not in"), "{text}");
    assert!(
        text.contains("an architecture gpuledger does not know"),
        "{text}"
    );
    // Beside a running process too (explain, the recorded snapshot).
    let summary = gpuledger_workloads::process_estimate::summary(&e);
    assert!(summary.not_modelled.iter().any(|n| n.contains("'qwen9'")));
    // A known one says nothing of the kind.
    let known = est(&attention_model("llama", 4, None).open("known"), "-c 4096");
    assert!(known.model.architecture_known && known.guesses.is_empty());
    assert!(!render_text(&known).contains("APPROXIMATE"));
}

#[test]
fn a_memory_module_not_sized_is_named() {
    let g = attention_model("eagle3", 4, None).open("eagle3");
    let e = est(&g, "-c 4096 -np 1");
    assert!(e.model.architecture_known);
    assert!(
        e.guesses
            .iter()
            .any(|g| g.contains("a draft model's cache")),
        "{:?}",
        e.guesses
    );
}

#[test]
fn plm_with_flash_attention_is_said_to_abort_and_grok_runs_without_it() {
    let plm = attention_model("plm", 4, None).open("plm");
    let e = est(&plm, "-c 4096");
    assert!(
        e.notes.iter().any(|n| n.contains("aborts plm")),
        "{:?}",
        e.notes
    );
    let e = est(&plm, "-c 4096 -fa off");
    assert!(!e.notes.iter().any(|n| n.contains("aborts plm")));
    // llama_init_from_model forces grok's flash attention off: the default is the -fa off
    // estimate, and a quantised V cache (which needs flash attention) is refused.
    let grok = attention_model("grok", 4, None).open("grok");
    let auto = est(&grok, "-c 4096");
    let off = est(&grok, "-c 4096 -fa off");
    assert_eq!(auto.compute.host_bytes, off.compute.host_bytes);
    assert!(auto
        .notes
        .iter()
        .any(|n| n.contains("forces it off for grok")));
    let settings = LlamaSettings::from_args(&["-ctv".into(), "q8_0".into()]).unwrap();
    let err = estimate(&grok, &settings).unwrap_err().to_string();
    assert!(err.contains("forces off for grok"), "{err}");
}

#[test]
fn graniteswitch_caches_its_adapter_router_as_one_more_layer_of_one_kv_head() {
    // Granite Switch 3B's shape (40 blocks, 32 heads of 128, 8 KV heads): llama.cpp adds the
    // adapter router after the blocks, one head and one KV head of the same size, in the cache.
    let mut m = M::new("graniteswitch", 40);
    m.u("context_length", 131072)
        .u("embedding_length", 4096)
        .u("attention.head_count", 32)
        .u("attention.head_count_kv", 8);
    let e = est(&m.open("granite-switch"), "-c 4096 -np 1");
    assert_eq!(e.kv_cache.layers_full, 41);
    // 40 layers × 8 KV heads + the router's 1, × 128 × (K + V) × F16, per cell.
    assert_eq!(
        e.kv_cache.k_bytes + e.kv_cache.v_bytes,
        4096 * (40 * 8 + 1) * 128 * 2 * 2
    );
}
