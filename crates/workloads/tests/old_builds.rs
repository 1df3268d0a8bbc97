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

/// A llama-like model: 4 layers, 32 heads of 128, 8 KV heads; `name` keeps the file of one
/// test apart from the others' (they run in parallel).
fn llama(name: &str) -> GgufModel {
    let keys = [
        ("context_length", 131072),
        ("embedding_length", 4096),
        ("attention.head_count", 32),
        ("attention.head_count_kv", 8),
        ("vocab_size", 32000),
    ];
    model(name, "llama", &keys, 4, 4096)
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
    let m = llama("llama-padding");
    let unpadded = since("kv-unpadded");
    let pad256 = since("kv-pad-256");
    assert!(unpadded < pad256);
    // The official release binaries under wine, -c 1100 -np 1 (fixtures/llama-logs/README.md):
    // b5990, b6332, b6792 1120 cells with -fa off and 1280 with -fa on; b6900, b6916, b6957
    // 1100 either way; b7058 1280 either way.
    for (b, off, on) in [
        (5990, 1120, 1280),
        (6332, 1120, 1280),
        (6792, 1120, 1280),
        (6900, 1100, 1100),
        (6916, 1100, 1100),
        (6957, 1100, 1100),
        (7058, 1280, 1280),
    ] {
        let c = |fa: &str| cells(&m, &format!("-c 1100 -np 1 -fa {fa}"), Some(b));
        assert_eq!((c("off"), c("on")), ((off, 1), (on, 1)), "b{b}");
    }
    // Without -fa: b5990 ran with flash attention off (its default before -fa auto), 1120
    // cells; from rule fa-auto on, auto pads like on.
    assert_eq!(cells(&m, "-c 1100 -np 1", Some(5990)), (1120, 1));
    let fa_auto = since("fa-auto");
    assert_eq!(cells(&m, "-c 1100 -np 1", Some(fa_auto - 1)), (1120, 1));
    assert_eq!(cells(&m, "-c 1100 -np 1", Some(fa_auto)), (1280, 1));
    assert!(!est(&m, "-c 1100 -np 1", Some(5990)).context.flash_attn);
    let one = "-c 70000 -np 1";
    // PR #7257 .. #16812: 32 cells with -fa off, 256 with -fa on or auto (auto counts as on
    // when the cache is created).
    for b in [6332, unpadded - 1] {
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
    let e = est(&m, &format!("{one} -fa off"), Some(6332));
    assert_eq!(e.kv_cache.bytes, 70016 * 4 * 8 * 128 * 2 * 2);
}

#[test]
fn per_slot_caches_pad_each_stream_as_the_build_does() {
    let m = llama("llama-streams");
    // The release binaries under wine, -c 1100 -np 3: b5990 one shared stream of 1120 cells
    // (ggml_cpy writes force a unified cache); b6332 and b6792 ceil(1100 / 3) = 367 padded to
    // 384 (-fa off) or 512; b6900, b6916 367; b6957 1100 / 3 rounded down, 366; b7058
    // 1100 -> 1280, 1280 / 3 = 426 -> 512.
    for (b, off, on) in [
        (5990, (1120, 1), (1280, 1)),
        (6332, (384, 3), (512, 3)),
        (6792, (384, 3), (512, 3)),
        (6900, (367, 3), (367, 3)),
        (6916, (367, 3), (367, 3)),
        (6957, (366, 3), (366, 3)),
        (7058, (512, 3), (512, 3)),
    ] {
        let c = |fa: &str| cells(&m, &format!("-c 1100 -np 3 -fa {fa}"), Some(b));
        assert_eq!((c("off"), c("on")), (off, on), "b{b}");
    }
    let e = est(&m, "-c 1100 -np 3", Some(5990));
    assert!(e.notes.iter().any(|n| n.contains("kv_unified forced")));
    // -np 1: 1 slot up to b6916 ("1/1 seqs"), 4 unified slots at b6957 and b7058 ("4/1 seqs"),
    // 1 again once -np has an auto value; no -np: 1 slot before that, 4 unified after.
    let slots = |args: &str, b: u64| est(&m, args, Some(b)).context.n_seq_max;
    assert_eq!(slots("-c 1100 -np 1", 6916), 1);
    assert_eq!(slots("-c 1100 -np 1", 6957), 4);
    assert_eq!(slots("-c 1100 -np 1", 7058), 4);
    assert_eq!(slots("-c 1100 -np 1 -kvu", 7058), 1);
    let np_auto = since("np-auto");
    assert_eq!(slots("-c 1100 -np 1", np_auto), 1);
    assert_eq!(slots("-c 1100", 6916), 1);
    assert_eq!(slots("-c 1100", np_auto), 4);
    // -kvu: one stream of the whole context.
    assert_eq!(
        cells(&m, "-c 70000 -np 3 -kvu -fa off", Some(6332)),
        (70016, 1)
    );
    let b = since("kv-unpadded");
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
        ("attention.sliding_window", 128),
        ("vocab_size", 262144),
    ];
    let g = model("gemma3-old-builds", "gemma3", &keys, 12, 2560);
    // The release binaries under wine, gemma3 with a window of 128, -c 4000 -np 1 -ub 300:
    // the window is 128 + 300 = 428 cells; b5990, b6332, b6792 448 (-fa off) / 512 (on),
    // b6900 428; the full cache 4000 / 4096, 4000.
    let kv = |fa: &str, b: u64| {
        let e = est(&g, &format!("-c 4000 -np 1 -ub 300 -fa {fa}"), Some(b));
        (e.kv_cache.cells_full, e.kv_cache.cells_swa)
    };
    for b in [5990, 6332, 6792] {
        assert_eq!(kv("off", b), (4000, Some(448)), "b{b}");
        assert_eq!(kv("on", b), (4096, Some(512)), "b{b}");
    }
    assert_eq!(kv("off", 6900), (4000, Some(428)));
    assert_eq!(kv("on", 6900), (4000, Some(428)));
    // From b6957 llama-server turns -np 1 into 4 unified slots: the window is 128 x 4 + 300.
    assert_eq!(kv("off", 6957), (4000, Some(812)));
    assert_eq!(kv("on", 6957), (4000, Some(812)));
    assert_eq!(kv("off", 7058), (4096, Some(1024)));
    assert_eq!(kv("on", 7058), (4096, Some(1024)));
    // Never more than the full cache, which is padded first in every era.
    let swa = |args: &str, b: Option<u64>| est(&g, args, b).kv_cache.cells_swa;
    let small = "-c 400 -np 1 -ub 300";
    assert_eq!(swa(&format!("{small} -fa off"), Some(6332)), Some(416));
    assert_eq!(swa(&format!("{small} -fa on"), Some(6900)), Some(400));
    assert_eq!(swa(small, None), Some(512));
}

#[test]
fn kv_write_index_inputs_exist_from_their_build_on() {
    let idxs = since("kv-write-idxs");
    assert!(!Rules::for_build(Some(idxs - 1)).kv_set_rows);
    assert!(Rules::for_build(Some(idxs)).kv_set_rows && Rules::for_build(None).kv_set_rows);
    // Without flash attention V is transposed and v_idxs holds one I64 per element of a
    // ubatch's V rows: 512 x 8 heads x 128 x 8 B = 4 MiB, the k_idxs 512 x 8 B; the builds that
    // write with ggml_cpy have neither input.
    let m = llama("llama-kv-writes");
    // The release binaries under wine on gen_models.py's llama-gqa: CPU compute 11.94 MiB at
    // b5990, 12.20 MiB at b6332 (the estimate gives the same two figures).
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
