//! Bench: read the header of a model with a 150k-token vocabulary (plus 150k merges, 253 tensor
//! infos) — target ≤ 5 ms, and ≥ 20× faster than the Python `gguf` package's GGUFReader on the
//! same file, timed side by side when the venv from .ci/setup-llama.sh is there.
//!
//! `cargo bench -p gpuledger-workloads --bench header_read`

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use gpuledger_workloads::gguf::writer::{array, GgufWriter};
use gpuledger_workloads::gguf::{GgmlType, GgufModel, MetaValue, ValueType};

fn venv() -> PathBuf {
    std::env::var_os("GPULEDGER_LLAMA_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/llama-venv"))
}

/// The bench file: written by tests/gen_models.py (the `gguf` package's writer) when the venv is
/// there, else by our own writer with the same shape.
fn bench_file(dir: &Path) -> PathBuf {
    let py = venv().join("bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gen_models.py");
    if py.exists() {
        let ok = Command::new(&py)
            .arg(&script)
            .arg(dir)
            .arg("bench-vocab")
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if ok {
            return dir.join("bench-vocab.gguf");
        }
    }
    let p = dir.join("bench-vocab-rust.gguf");
    let f32t = GgmlType::from_name("f32").unwrap();
    let mut w = GgufWriter::new();
    w.kv("general.architecture", MetaValue::String("qwen2".into()))
        .kv("tokenizer.ggml.model", MetaValue::String("gpt2".into()))
        .kv(
            "tokenizer.ggml.tokens",
            array(
                ValueType::String,
                (0..150_000)
                    .map(|i| MetaValue::String(format!("tok{i}")))
                    .collect(),
            ),
        )
        .kv(
            "tokenizer.ggml.token_type",
            array(ValueType::I32, vec![MetaValue::I32(1); 150_000]),
        )
        .kv(
            "tokenizer.ggml.merges",
            array(
                ValueType::String,
                (0..150_000)
                    .map(|i| MetaValue::String(format!("t{i} k{i}")))
                    .collect(),
            ),
        );
    w.tensor("token_embd.weight", &[64, 4], f32t);
    for il in 0..28 {
        for t in [
            "attn_q",
            "attn_k",
            "attn_v",
            "attn_output",
            "ffn_gate",
            "ffn_up",
            "ffn_down",
        ] {
            w.tensor(&format!("blk.{il}.{t}.weight"), &[64, 1], f32t);
        }
        w.tensor(&format!("blk.{il}.attn_norm.weight"), &[64], f32t);
    }
    w.write(&p).unwrap();
    p
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-gguf");
    std::fs::create_dir_all(&dir).unwrap();
    let file = bench_file(&dir);
    let size = std::fs::metadata(&file).unwrap().len();

    // Warm the page cache, then time.
    let m = GgufModel::open(&file).expect("read bench file");
    let n_tok = m
        .get("tokenizer.ggml.tokens")
        .unwrap()
        .as_array()
        .unwrap()
        .len;
    let n_tensors = m.tensors().count();
    let runs = 200;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t0 = Instant::now();
        let m = GgufModel::open(&file).unwrap();
        std::hint::black_box(m.tensors().count());
        times.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = times[runs / 2];
    println!(
        "gguf header read: {} ({} bytes, {n_tok} tokens, {n_tensors} tensors): median {median:.3} ms, min {:.3} ms, p95 {:.3} ms over {runs} runs (target <= 5 ms)",
        file.display(),
        size,
        times[0],
        times[runs * 95 / 100]
    );

    let py = venv().join("bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/py_gguf_reader_time.py");
    if !py.exists() {
        println!(
            "python gguf GGUFReader: not measured ({} missing; run .ci/setup-llama.sh)",
            py.display()
        );
        return;
    }
    let out = Command::new(&py)
        .arg(&script)
        .arg(&file)
        .arg("5")
        .output()
        .expect("run python");
    let text = String::from_utf8_lossy(&out.stdout);
    let py_median: Option<f64> = text.split_whitespace().next().and_then(|t| t.parse().ok());
    match py_median {
        Some(p) => println!(
            "python gguf GGUFReader on the same file: median {p:.1} ms ({}) -> Rust is {:.0}x faster (target >= 20x)",
            text.trim(),
            p / median
        ),
        None => println!(
            "python gguf GGUFReader: failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}
