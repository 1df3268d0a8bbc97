//! The recipe's rules for DeepSeek V4's `llama_kv_cache_dsv4` (`estimate/dsv4.rs`) on a
//! generated GGUF header of 43 layers (the size b11434's loader names) with 512-wide K heads, a
//! 128-token window and a 128-wide indexer key (the writer leaves tensor data as a hole). The
//! grid (llama_indexer_grid2.rs) checks the same rules against the real llama-server.

use gpuledger_views::estimate::render_text;
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

/// Layers 0 and 1 uncompressed, then CSA (4) and HCA (128) in turn: 21 CSA, 20 HCA.
fn ratios() -> Vec<u64> {
    (0..43u64)
        .map(|il| match il {
            0 | 1 => 0,
            _ if il % 2 == 0 => 4,
            _ => 128,
        })
        .collect()
}

fn deepseek4(ratios: &[u64]) -> M {
    deepseek4_indexer(ratios, 64)
}

fn deepseek4_indexer(ratios: &[u64], idx_heads: u64) -> M {
    let mut m = M::new("deepseek4", 43);
    m.u("context_length", 1048576)
        .u("embedding_length", 4096)
        .u("attention.head_count", 64)
        .u("attention.head_count_kv", 1)
        .u("attention.key_length", 512)
        .u("attention.value_length", 512)
        .u("attention.sliding_window", 128)
        .u("attention.indexer.head_count", idx_heads)
        .u("attention.indexer.key_length", 128)
        .u("attention.indexer.top_k", 512)
        .u("expert_count", 256)
        .u("expert_used_count", 6)
        .u("vocab_size", 129280)
        .arr("attention.compress_ratios", ratios);
    m
}

#[test]
fn every_cache_of_llama_kv_cache_dsv4_is_sized() {
    let g = deepseek4(&ratios()).open("dsv4");
    // A unified cache (-kvu) changes nothing: llama_kv_cache_dsv4 keeps a stream per sequence.
    let kvu = est(&g, "-c 65536 -np 4 -kvu").unwrap();
    assert_eq!(kvu.kv_cache.streams, 4);
    let e = est(&g, "-c 65536 -np 4").unwrap();
    let kv = &e.kv_cache;
    let f16 = 2;
    // Four slots of 16384 (an explicit -np: not unified). The raw cache: every layer in the
    // window half, one stream per sequence; GGML_PAD(128 + 512, 256) = 768 cells, K only.
    assert_eq!((kv.layers_full, kv.full_bytes), (0, 0));
    assert_eq!(
        (kv.cells_swa, kv.streams, kv.layers_swa),
        (Some(768), 4, 43)
    );
    assert_eq!(kv.swa_bytes, 43 * 4 * 768 * 512 * f16);
    assert_eq!(kv.v_bytes, 0);
    // Compressed caches of GGML_PAD(ceil(16384 / ratio), 256) cells per stream.
    let c = |name: &str| kv.compressed.iter().find(|c| c.name == name).unwrap();
    assert_eq!((c("csa").cells, c("csa").layers), (4096, 21));
    assert_eq!(c("csa").bytes, 21 * 4 * 4096 * 512 * f16);
    assert_eq!((c("hca").cells, c("hca").layers), (256, 20));
    assert_eq!(c("hca").bytes, 20 * 4 * 256 * 512 * f16);
    let ix = kv.indexer.as_ref().unwrap();
    assert_eq!((ix.kind, ix.layers), ("dsv4", 21));
    assert_eq!(ix.bytes, 21 * 4 * 4096 * 128 * f16);
    // Compressor states: kv and score, f32, width x rows per stream.
    assert_eq!(c("csa state").bytes, 21 * 2 * 4 * (2 * 512) * 8 * 4);
    assert_eq!(c("hca state").bytes, 20 * 2 * 4 * 512 * 128 * 4);
    assert_eq!(c("lid state").bytes, 21 * 2 * 4 * (2 * 128) * 8 * 4);
    let parts: u64 = kv.compressed.iter().map(|c| c.bytes).sum();
    assert_eq!(kv.bytes, kv.swa_bytes + ix.bytes + parts);
    assert_eq!(kv.gpu_bytes + kv.host_bytes, kv.bytes);
    // Sized, so not "not modelled"; the graph's gap is named.
    assert!(e.guesses.is_empty(), "{:?}", e.guesses);
    assert!(
        !e.notes.iter().any(|n| n.contains("does not model")),
        "{:?}",
        e.notes
    );
    assert!(e.compute.approximate);
    assert!(
        e.compute
            .approximate_parts
            .iter()
            .any(|p| p.contains("DeepSeek V4's graph")),
        "{:?}",
        e.compute.approximate_parts
    );
    // The text names them beside the window and indexer caches.
    let text = render_text(&e);
    assert!(
        text.contains("in 5 compressed caches and compressor states"),
        "{text}"
    );
    // -ctk q8_0 stores the K caches as q8_0 (34 bytes per 32); the states stay f32.
    let q8 = est(&g, "-c 65536 -np 4 -ctk q8_0 -ctv q8_0").unwrap();
    assert_eq!(q8.kv_cache.swa_bytes, 43 * 4 * 768 * 512 / 32 * 34);
    let s = |e: &Estimate| {
        e.kv_cache
            .compressed
            .iter()
            .find(|c| c.name == "hca state")
            .unwrap()
            .bytes
    };
    assert_eq!(s(&q8), s(&e));
}

#[test]
fn ratios_llama_cpp_refuses_are_refused() {
    let mut r = ratios();
    r[5] = 16;
    let err = est(&deepseek4(&r).open("dsv4-16"), "-c 4096").unwrap_err();
    assert!(err.contains("compress_ratios"), "{err}");
    let err = est(&deepseek4(&r[..40]).open("dsv4-short"), "-c 4096").unwrap_err();
    assert!(err.contains("shorter than block_count"), "{err}");
}

/// The graph is replayed from the keys and tensors llama.cpp builds it from (compute/dsv4.rs);
/// a header claiming widths no device holds is not replayed (no overflow) and says so.
#[test]
fn the_graph_is_replayed_unless_its_widths_are_beyond_any_device() {
    let with = |idx_heads: u64, name: &str| {
        let mut m = deepseek4_indexer(&ratios(), idx_heads);
        m.u("attention.q_lora_rank", 1024)
            .u("hyper_connection.count", 4)
            .tensor("blk.0.attn_q_a.weight", &[4096, 1024], "F16")
            .tensor("blk.0.attn_output_a.weight", &[4096, 1024, 8], "F16");
        est(&m.open(name), "-c 65536 -np 4").unwrap()
    };
    let graph = |e: &Estimate| {
        e.compute
            .approximate_parts
            .iter()
            .any(|p| p.contains("DeepSeek V4's graph"))
    };
    let e = with(64, "dsv4-graph");
    assert!(!graph(&e), "{:?}", e.compute.approximate_parts);
    // Its 4 streams: no note about llama.cpp's hc == 4 assertion.
    assert!(!e
        .notes
        .iter()
        .any(|n| n.contains("hyper-connection streams")));
    let huge = with(1 << 31, "dsv4-huge");
    assert!(graph(&huge), "{:?}", huge.compute.approximate_parts);
}
