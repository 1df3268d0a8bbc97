//! vLLM serving a GGUF file (`vllm serve ./model.gguf`, `--quantization gguf`): no
//! `config.json` or safetensors beside it, so the weights and the attention shape come from the
//! GGUF header. vLLM keeps GGUF's quantised blocks on the GPU (its GGUF kernels dequantise on the
//! fly), but not byte for byte: `held_of` says how its layers materialise them.

use super::VllmSettings;
use crate::gguf::{GgufModel, TensorInfo};
use crate::runtimes::hf::{
    gib, in_process_root, model_dtype_bytes, LayerKinds, ModelConfig, RopeConfig,
};
use crate::runtimes::reservation::{derived, GgufHeld, GgufWeights, ModelFacts};
use crate::runtimes::{Input, ProcessContext};
use gpuledger_lang::said::Arg;
use gpuledger_lang::Said;
use std::collections::HashMap;
use std::path::Path;

/// Does the command line serve a GGUF file?
pub fn serves_gguf(model: &str, quantization: Option<&str>) -> bool {
    quantization.is_some_and(|q| q.eq_ignore_ascii_case("gguf"))
        || model.to_ascii_lowercase().ends_with(".gguf")
}

/// The model's facts from its GGUF header (the file as the process sees it, through its root).
pub fn read(model: &str, ctx: &ProcessContext) -> Result<ModelFacts, Said> {
    let p = Path::new(model);
    let own = match (p.is_absolute(), &ctx.cwd) {
        (true, _) => p.to_path_buf(),
        (false, Some(c)) => c.join(p),
        (false, None) => {
            let model = vec![("model", format!("{model:?}").into())];
            return Err(Said::new("recipe-err-vllm-gguf-relative", model));
        }
    };
    let path = in_process_root(ctx.proc_root, ctx.pid, &own);
    if !path.is_file() {
        let model = vec![("model", model.into())];
        return Err(Said::new("recipe-err-vllm-gguf-not-file", model));
    }
    let g = GgufModel::open(&path).map_err(crate::runtimes::gguf_unreadable)?;
    Ok(facts(&g, &own)?)
}

/// The facts of an opened header; `shown` is the path as the process has it.
pub fn facts(g: &GgufModel, shown: &Path) -> Result<ModelFacts, String> {
    let config = config(g, shown)?;
    let weights = GgufWeights {
        bytes: g.tensors().fold(0u64, |a, t| a.saturating_add(t.n_bytes)),
        tensors: g.tensors().count() as u64,
        parts: g.parts.len() as u64,
        held: held_of(g),
    };
    Ok(ModelFacts {
        dir: shown.to_path_buf(),
        found: Said::new("recipe-found-gguf", vec![]),
        config,
        weights: crate::safetensors::Model {
            path: shown.to_path_buf(),
            files: vec![],
            index_total_size: None,
            aliases: 0,
        },
        gguf: Some(weights),
    })
}

/// What the KV recipe needs, from `{arch}.block_count`, `.attention.head_count(_kv)`,
/// `.attention.key_length` (else `embedding_length / head_count`).
fn config(g: &GgufModel, shown: &Path) -> Result<ModelConfig, String> {
    let arch = g
        .architecture()
        .ok_or_else(|| format!("{}: no general.architecture", shown.display()))?;
    let key = |k: &str| format!("{arch}.{k}");
    let num = |k: &str| g.get_u64(&key(k));
    let missing = |k: &str| format!("{}: no {}", shown.display(), key(k));
    let n_layer = num("block_count").ok_or_else(|| missing("block_count"))?;
    let n_head = num("attention.head_count").ok_or_else(|| missing("attention.head_count"))?;
    // A per-layer array (some hybrid models) reads as no single figure: the heads then.
    let n_kv_head = num("attention.head_count_kv").unwrap_or(n_head);
    let head_dim = match num("attention.key_length") {
        Some(h) => h,
        None => num("embedding_length").ok_or_else(|| missing("embedding_length"))? / n_head.max(1),
    };
    if n_layer == 0 || n_layer > 100_000 || n_head == 0 || n_head > 100_000 {
        return Err(format!(
            "{}: implausible {} {n_layer} / {} {n_head}",
            shown.display(),
            key("block_count"),
            key("attention.head_count")
        ));
    }
    if head_dim == 0 || head_dim > 1 << 20 || n_kv_head == 0 || n_kv_head > 100_000 {
        return Err(format!(
            "{}: implausible head size {head_dim} / KV heads {n_kv_head}",
            shown.display()
        ));
    }
    Ok(ModelConfig {
        path: shown.to_path_buf(),
        model_type: Some(arch.to_string()),
        n_layer,
        n_head,
        n_kv_head,
        head_dim,
        dtype: None,
        mla_dim: None,
        quant_method: Some("gguf".into()),
        max_position_embeddings: num("context_length"),
        moe_experts: num("expert_count"),
        hidden_size: num("embedding_length"),
        moe_intermediate: num("expert_feed_forward_length"),
        layers: layers(arch, n_layer, num("attention.sliding_window")),
        // A default rope over context_length rows (transformers' GGUF reader maps no scaling);
        // `rope::cache` sizes it, as for a config.json.
        rope: RopeConfig {
            named: true,
            rotary_dim: num("rope.dimension_count"),
            ..RopeConfig::default()
        },
    })
}

/// Gemma 2 and 3 as vLLM lays them out; another architecture with a window is named as a
/// kind the recipe does not size.
fn layers(arch: &str, n: u64, window: Option<u64>) -> Option<LayerKinds> {
    let kinds = |full: u64, sliding: u64, other: u64, source: &str| LayerKinds {
        full,
        sliding,
        other,
        other_names: if other > 0 {
            vec![format!("{arch} sliding window (GGUF)")]
        } else {
            vec![]
        },
        window,
        source: source.into(),
    };
    match arch {
        "gemma3" => Some(kinds(n / 6, n - n / 6, 0, "gemma3: every 6th layer full")),
        "gemma2" => Some(kinds(
            n / 2,
            n - n / 2,
            0,
            "gemma2: every other layer windowed",
        )),
        _ if window.is_some() => Some(kinds(0, 0, n, "GGUF attention.sliding_window")),
        _ => None,
    }
}

/// vLLM's merged linear layers by their shards' GGUF names within a block: `QKVParallelLinear`,
/// `MergedColumnParallelLinear` (gate/up, the shared experts' gate/up, DeepSeek's fused
/// q_a/kv_a projection).
const MERGED: &[&[&str]] = &[
    &["attn_q", "attn_k", "attn_v"],
    &["ffn_gate", "ffn_up"],
    &["ffn_gate_shexp", "ffn_up_shexp"],
    &["attn_q_a", "attn_kv_a_mqa"],
];

/// The first release whose `GGUFLinearMethod` copies a merged layer's shards into one padded
/// tensor (`_create_padded_weight_param`, in the 0.9.0 sdist; 0.8.5 kept them as a nested
/// tensor, each shard at its own size).
const PADDED_SINCE: (u64, u64, u64) = (0, 9, 0);

/// The first release without GGUF in vLLM itself (0.23.0's sdist has `gguf_loader.py`, 0.24.0's
/// not): the `vllm-gguf-plugin` package serves it, with the same padded layers (its 0.0.5
/// `quantization/linear.py`).
const PLUGIN_SINCE: (u64, u64, u64) = (0, 24, 0);

/// `VocabParallelEmbedding` / `ParallelLMHead` pad the vocabulary to this many rows
/// (`DEFAULT_VOCAB_PADDING_SIZE`).
const VOCAB_PAD: u64 = 64;

fn is_dense(t: &TensorInfo) -> bool {
    matches!(t.ggml_type.name, "F32" | "F16" | "BF16")
}

/// Bytes of one row (`ne[0]` values) of a tensor.
fn row_bytes(t: &TensorInfo) -> u64 {
    t.n_bytes / t.n_rows().max(1)
}

/// What vLLM's GGUF loader materialises from this header (vLLM 0.9–0.23 and vllm-gguf-plugin,
/// model_executor/layers/quantization/gguf.py and model_loader/gguf_loader.py):
/// - quantised tensors stay raw blocks (`GGUFLinearMethod`, `GGUFEmbeddingMethod`,
///   `GGUFMoEMethod`), but a merged layer's shards are copied into one zeroed tensor as wide as
///   its widest shard's row (`_create_padded_weight_param`): a Q4_K_M file's Q6_K `attn_v`
///   widens `attn_q`'s and `attn_k`'s rows to Q6_K's in those layers;
/// - an expert pair is materialised from the first shard's shape twice (`FusedMoE.weight_loader`);
/// - F32/F16/BF16 tensors (norms, and the layers `gguf_loader` marks unquantised) are parameters
///   of the model dtype, so F32 norms halve;
/// - the embedding and an untied output head are padded to 64 rows; a GGUF without
///   `output.weight` ties the head to the embedding (no second copy).
///
/// The rotary cos/sin cache, which vLLM also counts in the loading figure, is `rope`'s.
pub fn held_of(g: &GgufModel) -> GgufHeld {
    let by_name: HashMap<&str, &TensorInfo> = g.tensors().map(|t| (t.name.as_str(), t)).collect();
    let mut h = GgufHeld::default();
    let mut done: std::collections::HashSet<&str> = Default::default();
    for t in g.tensors() {
        if done.contains(t.name.as_str()) {
            continue;
        }
        if let Some(m) = merged(&t.name, &by_name) {
            if m.held > m.file {
                h.padded_layers += 1;
                h.padding = h.padding.saturating_add(m.held - m.file);
            }
            h.quantised = h.quantised.saturating_add(m.held);
            done.extend(m.names);
            continue;
        }
        let vocab = matches!(t.name.as_str(), "token_embd.weight" | "output.weight");
        let rows = if vocab {
            t.n_rows().next_multiple_of(VOCAB_PAD)
        } else {
            t.n_rows()
        };
        if is_dense(t) {
            h.dense_elements = h
                .dense_elements
                .saturating_add(rows.saturating_mul(t.ne0()));
        } else if vocab {
            h.quantised = h
                .quantised
                .saturating_add(rows.saturating_mul(row_bytes(t)));
        } else {
            h.quantised = h.quantised.saturating_add(t.n_bytes);
        }
    }
    h
}

/// One merged layer: the bytes vLLM holds, the file's, and the shards' names.
struct Merged<'a> {
    held: u64,
    file: u64,
    names: Vec<&'a str>,
}

/// The merged layer `name` is a shard of, when every shard is in the header and quantised (a
/// dense shard goes to an unquantised layer, sized on its own). An expert pair
/// (`ffn_gate_exps`, `ffn_up_exps`) is materialised as twice the shard loaded first.
fn merged<'a>(name: &str, by_name: &HashMap<&str, &'a TensorInfo>) -> Option<Merged<'a>> {
    let rest = name.strip_prefix("blk.")?;
    let (block, tail) = rest.split_once('.')?;
    let kind = tail.strip_suffix(".weight")?;
    let shard = |k: &str| {
        by_name
            .get(format!("blk.{block}.{k}.weight").as_str())
            .copied()
    };
    let shards: Vec<&TensorInfo> = if kind == "ffn_gate_exps" || kind == "ffn_up_exps" {
        vec![shard("ffn_gate_exps")?, shard("ffn_up_exps")?]
    } else {
        let group = MERGED.iter().find(|g| g.contains(&kind))?;
        group.iter().map(|k| shard(k)).collect::<Option<_>>()?
    };
    if !shards.iter().all(|s| s.ggml_type.is_quantized()) {
        return None;
    }
    let file = shards.iter().fold(0u64, |a, s| a.saturating_add(s.n_bytes));
    let held = if kind.ends_with("_exps") {
        // The shard met first (`name`) sets the shape of both halves.
        by_name.get(name)?.n_bytes.saturating_mul(2)
    } else {
        let widest = shards.iter().map(|s| row_bytes(s)).max().unwrap_or(0);
        let rows = shards
            .iter()
            .fold(0u64, |a, s| a.saturating_add(s.n_rows()));
        rows.saturating_mul(widest).max(file)
    };
    Some(Merged {
        held,
        file,
        names: shards.iter().map(|s| s.name.as_str()).collect(),
    })
}

/// One rank's weights as vLLM holds a GGUF model under `s`, with the input that says how:
/// `None` when the model is not a GGUF file.
pub fn weights_per_rank(model: &ModelFacts, s: &VllmSettings, ranks: u64) -> Option<(u64, Input)> {
    let g = model.gguf.as_ref()?;
    let h = &g.held;
    // `--dtype auto` resolves to a 16-bit type for a GGUF (its config has none; float32 is
    // downcast); only an explicit float32 keeps 4 bytes.
    let elem = model_dtype_bytes(&s.dtype.value);
    let dense = h.dense_elements.saturating_mul(elem);
    let version = s
        .version
        .as_ref()
        .and_then(|(v, _)| super::version::parse(v));
    let n = |x: u64| Arg::from(x.to_string());
    let (quantised, padded) = match (h.padded_layers, version) {
        (0, _) => (h.quantised, Said::verbatim("")),
        (k, Some(v)) if v < PADDED_SINCE => (
            h.quantised.saturating_sub(h.padding),
            Said::new("recipe-vllm-gguf-unpadded", vec![("n", n(k))]),
        ),
        (k, v) => (
            h.quantised,
            Said::new(
                match v {
                    None => "recipe-vllm-gguf-padded-unknown",
                    Some(v) if v >= PLUGIN_SINCE => "recipe-vllm-gguf-padded-plugin",
                    Some(_) => "recipe-vllm-gguf-padded",
                },
                vec![("n", n(k)), ("bytes", gib(h.padding).into())],
            ),
        ),
    };
    let all = quantised.saturating_add(dense);
    let per_rank = all / ranks.max(1);
    let rank_share = if ranks > 1 {
        Said::new(
            "recipe-vllm-gguf-per-rank",
            vec![("per_rank", gib(per_rank).into()), ("ranks", n(ranks))],
        )
    } else {
        Said::verbatim("")
    };
    let words = Said::new(
        "recipe-vllm-gguf-held",
        vec![
            ("all", gib(all).into()),
            ("file", gib(g.bytes).into()),
            ("quantised", gib(quantised).into()),
            ("padded", padded.into()),
            ("elem", n(elem)),
            ("dtype", s.dtype.value.clone().into()),
            ("dense", gib(dense).into()),
            ("ranks", rank_share.into()),
        ],
    );
    Some((
        per_rank,
        Input::said(
            Said::new("recipe-input-gguf-held", vec![]),
            words,
            derived(Said::new("recipe-vllm-gguf-rule", vec![])),
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gguf::writer::GgufWriter;
    use crate::gguf::{GgmlType, MetaValue};

    fn open(w: &GgufWriter, name: &str) -> GgufModel {
        let d = std::env::temp_dir().join(format!("gl-vllm-gguf-unit-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join(name);
        w.write(&p).unwrap();
        let g = GgufModel::open(&p).unwrap();
        std::fs::remove_file(&p).unwrap();
        g
    }

    #[test]
    fn an_odd_vocabulary_is_padded_to_64_rows_and_a_dense_shard_is_not_merged() {
        let q = |n| GgmlType::from_name(n).unwrap();
        let mut w = GgufWriter::new();
        w.kv("general.architecture", MetaValue::String("llama".into()))
            .tensor("token_embd.weight", &[256, 1001], q("Q8_0"))
            .tensor("blk.0.attn_q.weight", &[256, 256], q("Q4_K"))
            .tensor("blk.0.attn_k.weight", &[256, 64], q("F16"))
            .tensor("blk.0.attn_v.weight", &[256, 64], q("Q6_K"));
        let h = held_of(&open(&w, "odd.gguf"));
        // 1001 rows → 1024 of 8 Q8_0 blocks (272 B); q and v on their own (k is dense).
        assert_eq!(h.quantised, 1024 * 272 + 256 * 144 + 64 * 210);
        assert_eq!(h.dense_elements, 256 * 64);
        assert_eq!(h.padded_layers, 0);
    }
}
