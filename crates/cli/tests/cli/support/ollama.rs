//! An Ollama models folder and its `/api/ps` answer, for the tests of a recorded Ollama runner
//! (explain_ollama.rs) and of a running one (ollama_processes.rs).

use gpuledger_workloads::gguf::writer::GgufWriter;
use gpuledger_workloads::gguf::{GgmlType, MetaValue};
use std::path::{Path, PathBuf};

/// The blob's digest, as the manifest names it.
pub const OLLAMA_BLOB_HEX: &str =
    "6a0746a1ec1aef3e7ec53868f220ff6e389f6f8ef87a01d77c96807de94ca2aa";

/// `/api/ps` with qwen3:8b loaded: 4096 tokens of context, kept until 14:32 (+01:00).
pub const OLLAMA_PS: &str = r#"{"models":[{"name":"qwen3:8b","model":"qwen3:8b","size":7335301120,"digest":"500a1f067a9f782620b40bee6f7b0c89e17ae61f686b92c24933e4ca4b2b8b41","details":{"format":"gguf","family":"qwen3"},"expires_at":"2026-12-01T14:32:10.123+01:00","size_vram":7335301120,"context_length":4096}]}"#;

/// `<dir>/models`: the blob `sha256-HEX` (a GGUF header with the shape of the Qwen3 in
/// ollama/ollama#12147: 36 layers, 8 KV heads × 128) and the manifest that names it qwen3:8b.
/// `full_attention` adds the feed-forward length and the Q and V projections to the K ones.
pub fn ollama_models(dir: &Path, full_attention: bool) -> PathBuf {
    std::fs::create_dir_all(dir.join("models/blobs")).unwrap();
    let blob = dir.join(format!("models/blobs/sha256-{OLLAMA_BLOB_HEX}"));
    let mut w = GgufWriter::new();
    w.kv("general.architecture", MetaValue::String("qwen3".into()));
    for (k, v) in [
        ("block_count", 36),
        ("context_length", 40960),
        ("embedding_length", 4096),
        ("feed_forward_length", 12288),
        ("attention.head_count", 32),
        ("attention.head_count_kv", 8),
        ("attention.key_length", 128),
        ("attention.value_length", 128),
        ("vocab_size", 151936),
    ] {
        if full_attention || k != "feed_forward_length" {
            w.kv(&format!("qwen3.{k}"), MetaValue::U32(v));
        }
    }
    let q = GgmlType::from_name("q4_0").unwrap();
    w.tensor("token_embd.weight", &[4096, 151936], q);
    for il in 0..36 {
        if full_attention {
            w.tensor(&format!("blk.{il}.attn_q.weight"), &[4096, 4096], q);
        }
        w.tensor(&format!("blk.{il}.attn_k.weight"), &[4096, 1024], q);
        if full_attention {
            w.tensor(&format!("blk.{il}.attn_v.weight"), &[4096, 1024], q);
        }
    }
    w.tensor("output.weight", &[4096, 151936], q);
    w.write(&blob).unwrap();
    let m = dir.join("models/manifests/registry.ollama.ai/library/qwen3");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/ollama/manifest-qwen3-8b.json"),
        m.join("8b"),
    )
    .unwrap();
    blob
}
