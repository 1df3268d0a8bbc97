//! The rules older llama.cpp builds follow for the KV cache and its writes, each checked on both
//! sides of its build boundary (`compute/rules.rs`, `RULES`; fixtures/llama-logs/README.md).

use std::path::Path;

use gpuledger_workloads::estimate::{estimate, Backend, Estimate, Rules, Setting, SettingSource};
use gpuledger_workloads::gguf::writer::GgufWriter;
use gpuledger_workloads::gguf::{GgmlType, GgufModel, MetaValue};
use gpuledger_workloads::LlamaSettings;

/// A header with `arch`'s keys (U32) and the standard attention tensors of `n_layer` layers.
fn model(name: &str, arch: &str, keys: &[(&str, u64)], n_layer: u32, n_embd: u64) -> GgufModel {
    let mut w = GgufWriter::new();
    w.kv("general.architecture", MetaValue::String(arch.into()));
    w.kv(&format!("{arch}.block_count"), MetaValue::U32(n_layer));
    for (k, v) in keys {
        w.kv(&format!("{arch}.{k}"), MetaValue::U32(*v as u32));
    }
    let q8 = GgmlType::from_name("Q8_0").unwrap();
    let f32 = GgmlType::from_name("F32").unwrap();
    let kv = keys
        .iter()
        .find(|(k, _)| *k == "attention.head_count_kv")
        .map_or(n_embd, |(_, v)| v * 128);
    w.tensor("token_embd.weight", &[n_embd, 32000], q8);
    for il in 0..n_layer {
        let b = |t: &str| format!("blk.{il}.{t}");
        w.tensor(&b("attn_norm.weight"), &[n_embd], f32);
        w.tensor(&b("attn_q.weight"), &[n_embd, n_embd], q8);
        w.tensor(&b("attn_k.weight"), &[n_embd, kv], q8);
        w.tensor(&b("attn_v.weight"), &[n_embd, kv], q8);
        w.tensor(&b("attn_output.weight"), &[n_embd, n_embd], q8);
        w.tensor(&b("ffn_norm.weight"), &[n_embd], f32);
        w.tensor(&b("ffn_up.weight"), &[n_embd, 2 * n_embd], q8);
        w.tensor(&b("ffn_gate.weight"), &[n_embd, 2 * n_embd], q8);
        w.tensor(&b("ffn_down.weight"), &[2 * n_embd, n_embd], q8);
    }
    w.tensor("output_norm.weight", &[n_embd], f32);
    w.tensor("output.weight", &[n_embd, 32000], q8);
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("old_builds");
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(format!("{name}.gguf"));
    w.write(&p).unwrap();
    GgufModel::open(&p).unwrap()
}

/// A llama-like model: 4 layers, 32 heads of 128, 8 KV heads.
fn llama() -> GgufModel {
    let keys = [
        ("context_length", 131072),
        ("embedding_length", 4096),
        ("attention.head_count", 32),
        ("attention.head_count_kv", 8),
        ("vocab_size", 32000),
    ];
    model("llama-old-builds", "llama", &keys, 4, 4096)
}

/// The estimate of `args` under the rules of llama.cpp build `build` (`--llama-build`).
fn est(m: &GgufModel, args: &str, build: Option<u64>) -> Estimate {
    let a: Vec<String> = args.split_whitespace().map(String::from).collect();
    let mut s = LlamaSettings::from_args(&a).unwrap();
    s.backend = Setting {
        value: Backend::Cpu,
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

fn cells(m: &GgufModel, args: &str, build: Option<u64>) -> (u64, u64) {
    let e = est(m, args, build);
    (e.kv_cache.cells_full, e.kv_cache.streams)
}

/// The first build of a rule, by name, from the table the estimate uses.
fn since(name: &str) -> u64 {
    gpuledger_workloads::estimate::RULES
        .iter()
        .find(|r| r.name.starts_with(name))
        .unwrap_or_else(|| panic!("rule {name}"))
        .since_build
}

#[test]
fn kv_cells_are_padded_as_each_build_pads_them() {
    let m = llama();
    let unpadded = since("kv-unpadded");
    let pad256 = since("kv-pad-256");
    assert!(unpadded < pad256);
    let one = "-c 70000 -np 1";
    // PR #7257 .. #16812: 32 cells with -fa off, 256 with -fa on or auto (auto counts as on
    // when the cache is created).
    for b in [6000, unpadded - 1] {
        assert_eq!(cells(&m, &format!("{one} -fa off"), Some(b)), (70016, 1));
        assert_eq!(cells(&m, &format!("{one} -fa on"), Some(b)), (70144, 1));
        assert_eq!(cells(&m, &format!("{one} -fa auto"), Some(b)), (70144, 1));
    }
    // PR #16812 .. #17046: no padding at all.
    for b in [unpadded, pad256 - 1] {
        assert_eq!(cells(&m, &format!("{one} -fa off"), Some(b)), (70000, 1));
        assert_eq!(cells(&m, &format!("{one} -fa on"), Some(b)), (70000, 1));
    }
    // PR #17046 on (and the newest rules): 256 whatever -fa says.
    for b in [Some(pad256), Some(11434), None] {
        assert_eq!(cells(&m, &format!("{one} -fa off"), b), (70144, 1));
        assert_eq!(cells(&m, &format!("{one} -fa on"), b), (70144, 1));
    }
    // The bytes follow the cells: 4 layers x 8 heads x 128 x (K + V) x f16.
    let e = est(&m, &format!("{one} -fa off"), Some(6000));
    assert_eq!(e.kv_cache.bytes, 70016 * 4 * 8 * 128 * 2 * 2);
}

#[test]
fn per_slot_caches_pad_each_stream_as_the_build_does() {
    let m = llama();
    let three = "-c 70000 -np 3";
    // Before #16812: ceil(70000 / 3) = 23334, padded to 32 (-fa off) or 256.
    assert_eq!(
        cells(&m, &format!("{three} -fa off"), Some(6000)),
        (23360, 3)
    );
    assert_eq!(
        cells(&m, &format!("{three} -fa on"), Some(6000)),
        (23552, 3)
    );
    // Between #16812 and #17046: ceil(70000 / 3), unpadded.
    let b = since("kv-unpadded");
    assert_eq!(cells(&m, &format!("{three} -fa on"), Some(b)), (23334, 3));
    // Since #17046: n_ctx padded to 70144 first, then 70144 / 3 = 23381 padded to 256.
    assert_eq!(cells(&m, &format!("{three} -fa off"), None), (23552, 3));
    // -kvu: one stream of the whole context.
    assert_eq!(
        cells(&m, "-c 70000 -np 3 -kvu -fa off", Some(6000)),
        (70016, 1)
    );
    assert_eq!(cells(&m, "-c 70000 -np 3 -kvu", Some(b)), (70000, 1));
}

#[test]
fn sliding_window_cache_follows_the_same_history() {
    let keys = [
        ("context_length", 131072),
        ("embedding_length", 2560),
        ("attention.head_count", 8),
        ("attention.head_count_kv", 4),
        ("attention.key_length", 256),
        ("attention.value_length", 256),
        ("attention.sliding_window", 1024),
        ("vocab_size", 262144),
    ];
    let g = model("gemma3-old-builds", "gemma3", &keys, 12, 2560);
    // -np 1 -ub 300: the window is 1024 + 300 = 1324 cells.
    let swa = |args: &str, b: Option<u64>| est(&g, args, b).kv_cache.cells_swa;
    let a = "-c 32768 -np 1 -ub 300";
    assert_eq!(swa(&format!("{a} -fa off"), Some(6000)), Some(1344));
    assert_eq!(swa(&format!("{a} -fa on"), Some(6000)), Some(1536));
    let unpadded = since("kv-unpadded");
    assert_eq!(swa(&format!("{a} -fa on"), Some(unpadded)), Some(1324));
    assert_eq!(swa(&format!("{a} -fa off"), None), Some(1536));
    // Never more than the full cache, which is padded first in every era.
    let small = "-c 1000 -np 1 -ub 300";
    assert_eq!(swa(&format!("{small} -fa off"), Some(6000)), Some(1024));
    assert_eq!(swa(&format!("{small} -fa on"), Some(unpadded)), Some(1000));
    assert_eq!(swa(small, None), Some(1024));
}

#[test]
fn kv_write_index_inputs_exist_from_their_build_on() {
    let idxs = since("kv-write-idxs");
    assert!(!Rules::for_build(Some(idxs - 1)).kv_set_rows);
    assert!(Rules::for_build(Some(idxs)).kv_set_rows && Rules::for_build(None).kv_set_rows);
    // Without flash attention V is transposed and v_idxs holds one I64 per element of a
    // ubatch's V rows: 512 x 8 heads x 128 x 8 B = 4 MiB, the k_idxs 512 x 8 B; the builds that
    // write with ggml_cpy have neither input.
    let m = llama();
    let before = est(&m, "-c 4096 -np 1 -fa off", Some(idxs - 1));
    let after = est(&m, "-c 4096 -np 1 -fa off", Some(idxs));
    let grown = after.compute.host_bytes - before.compute.host_bytes;
    assert!(
        grown >= 512 * 8 * 128 * 8 + 512 * 8,
        "set_rows indices add at least the two inputs ({grown} B)"
    );
    assert!(before
        .compute
        .rules
        .iter()
        .any(|r| r.starts_with("not yet kv-write-idxs")));
    assert!(after
        .compute
        .rules
        .iter()
        .any(|r| r.starts_with("applies kv-write-idxs")));
}

#[test]
fn deepseek_without_mla_is_sized_as_mha_and_marked_approximate() {
    let base = [
        ("context_length", 163840),
        ("embedding_length", 2048),
        ("attention.head_count", 16),
        ("attention.kv_lora_rank", 512),
        ("vocab_size", 32000),
    ];
    // An older conversion: full per-head K (192) and V (128), as many KV heads as heads.
    let mut old = base.to_vec();
    old.extend([
        ("attention.head_count_kv", 16),
        ("attention.key_length", 192),
        ("attention.value_length", 128),
    ]);
    let m = model("deepseek2-no-mla", "deepseek2", &old, 2, 2048);
    let e = est(&m, "-c 4096 -np 1", None);
    assert_eq!(e.kv_cache.bytes, 2 * 4096 * 16 * (192 + 128) * 2);
    assert!(e.compute.approximate);
    assert!(
        e.compute
            .approximate_parts
            .iter()
            .any(|p| p.contains("without MLA") && p.contains("attn_kv_b")),
        "{:?}",
        e.compute.approximate_parts
    );
    // An MLA conversion is not flagged for this (its own MLA note stands).
    let mut mla = base.to_vec();
    mla.extend([
        ("attention.head_count_kv", 1),
        ("attention.key_length", 576),
        ("attention.value_length", 512),
        ("attention.key_length_mla", 192),
        ("attention.value_length_mla", 128),
    ]);
    let m = model("deepseek2-mla", "deepseek2", &mla, 2, 2048);
    let e = est(&m, "-c 4096 -np 1", None);
    assert!(!e
        .compute
        .approximate_parts
        .iter()
        .any(|p| p.contains("without MLA")));
}
