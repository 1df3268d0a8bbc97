//! qwen4exp's QSA indexer cache: the per-token key cache its sparse attention layers keep beside
//! the hybrid's attention and recurrent caches.
//!
//! llama.cpp b11434 builds it in `llama_memory_hybrid_idx`'s constructor
//! (llama-memory-hybrid-idx.cpp), created by `llama_model::create_memory` (llama-model.cpp) for
//! qwen4exp: a `llama_kv_cache` over a copy of the model's hparams with one KV head per layer,
//! MLA lengths set so that it keeps no V, and `n_embd_head_k_full = indexer_head_size`, times
//! `indexer_kpool_row` (2: raw key | pooled key) when the keys are pooled (`indexer_kpool > 0`).
//! Its layers are `filter_idx`'s: the trunk's full-attention layers, the attention cache's own.
//! It shares the attention cache's cells, streams and `-ctk` type; each layer's rows sit with
//! the layer (`model.dev_layer(il)`), like its KV.
//!
//! `llama_model_qwen4exp::load_arch_hparams` (models/qwen4exp.cpp) sets the pooling:
//! `indexer_kpool` is the one non-zero `attention.compress_ratios` entry (0 when the file has
//! none), and refuses a file whose ratios differ, whose ratio is 1, or whose top-k it does not
//! divide.

use gpuledger_lang::Said;
use gpuledger_model::llama_estimate::{Input, InputSource};

use super::indexer::required_u64;
use super::indexer::{IndexerKind, IndexerParams};
use crate::gguf::{GgufModel, MetaValue};

/// `hparams.indexer_kpool_row` for qwen4exp: the cache row holds the raw key and the pooled key.
const KPOOL_ROW: u64 = 2;

/// qwen4exp's indexer cache; `Err` names a key llama.cpp would refuse. `has_kv`: the hybrid's
/// attention layers (`filter_attn`, which `filter_idx` repeats).
pub(super) fn read(
    m: &GgufModel,
    arch: &str,
    has_kv: &[bool],
    inputs: &mut Vec<Input>,
) -> Result<Option<IndexerParams>, String> {
    let key = |s: &str| format!("{arch}.attention.{s}");
    let mut get = |name: &str, s: &str| -> Result<u64, String> {
        let k = key(s);
        let v = m
            .get(&k)
            .and_then(MetaValue::as_u64)
            .filter(|&v| v > 0)
            .ok_or_else(|| format!("required key {k} is missing, not an integer or 0"))?;
        inputs.push(Input {
            name: name.into(),
            value: (v.to_string()).into(),
            source: InputSource::Gguf { key: k },
        });
        Ok(v)
    };
    let head_size = get("indexer_head_size", "indexer.key_length")?;
    let n_head = get("indexer_n_head", "indexer.head_count")?;
    let top_k = get("indexer_top_k", "indexer.top_k")?;
    if head_size > 1 << 16 {
        return Err(format!(
            "{} = {head_size} is not a plausible indexer key length",
            key("indexer.key_length")
        ));
    }
    let kpool = kpool(m, &key("compress_ratios"), top_k, inputs)?;
    Ok(Some(IndexerParams {
        kind: IndexerKind::Qsa,
        kpool_row: if kpool > 0 { KPOOL_ROW } else { 1 },
        head_size,
        n_head,
        layers: has_kv.to_vec(),
    }))
}

/// `indexer_kpool`: the one non-zero compress ratio of the file (0 without the key).
pub(super) fn kpool(
    m: &GgufModel,
    k: &str,
    top_k: u64,
    inputs: &mut Vec<Input>,
) -> Result<u64, String> {
    let ratios: Vec<u64> = match m.get(k) {
        None => Vec::new(),
        Some(MetaValue::Array(a)) => a
            .values
            .as_ref()
            .ok_or_else(|| format!("{k} is not readable"))?
            .iter()
            .map(MetaValue::as_u64)
            .collect::<Option<_>>()
            .ok_or_else(|| format!("{k}: entries are not integers"))?,
        Some(v) => vec![v.as_u64().ok_or_else(|| format!("{k} is not an integer"))?],
    };
    let mut pool = 0;
    for r in ratios.into_iter().filter(|&r| r != 0) {
        if pool != 0 && r != pool {
            return Err(format!(
                "{k}: QSA layers must share one ratio, got {pool} and {r}"
            ));
        }
        pool = r;
    }
    if pool == 1 || (pool > 0 && !top_k.is_multiple_of(pool)) {
        return Err(format!(
            "{k}: QSA needs a ratio above 1 that divides the top-k, got {pool} and {top_k}"
        ));
    }
    let source = if m.get(k).is_some() {
        InputSource::Gguf { key: k.into() }
    } else {
        InputSource::Default {
            detail: Said::new("recipe-rule-qsa-not-pooled", vec![]),
        }
    };
    inputs.push(Input {
        name: "indexer_kpool".into(),
        value: (pool.to_string()).into(),
        source,
    });
    Ok(pool)
}

/// Layer `il`'s compress ratio (`hparams.dsv4_compress_ratios[il]`): above 0 where
/// `build_layer_attn` selects cells through the QSA indexer, 0 (or no key) where it is dense.
pub(super) fn layer_ratio(m: &GgufModel, arch: &str, il: usize) -> u64 {
    match m.get(&format!("{arch}.attention.compress_ratios")) {
        Some(MetaValue::Array(a)) => a
            .values
            .as_ref()
            .and_then(|v| v.get(il))
            .and_then(MetaValue::as_u64)
            .unwrap_or(0),
        Some(v) => v.as_u64().unwrap_or(0),
        None => 0,
    }
}

/// qwen4exp's per-layer n-gram embedding (PLE) conv history: `(layer, elements)` of the extra
/// recurrent row `llama_memory_recurrent` keeps on the PLE layer (`cache_ple_r_l`, type_r, one
/// per recurrent cell, llama-memory-recurrent.cpp), `llama_hparams::ple_conv_state()`
/// (llama-hparams.cpp): `(conv_kernel - 1) * ngram_size * hc * n_embd`. `None` without the
/// `ple.*` keys (every PLE field stays 0 in `load_arch_hparams`).
pub(super) fn ple_state(
    m: &GgufModel,
    arch: &str,
    n_embd: u64,
    recurrent: &[bool],
    inputs: &mut Vec<Input>,
) -> Result<Option<(usize, u64)>, String> {
    let key = |s: &str| format!("{arch}.{s}");
    let layers_key = key("ple.layers");
    let layers: Vec<u64> = match m.get(&layers_key) {
        None => return Ok(None),
        Some(MetaValue::Array(a)) => a
            .values
            .as_ref()
            .and_then(|v| v.iter().map(MetaValue::as_u64).collect::<Option<_>>())
            .ok_or_else(|| format!("{layers_key}: entries are not integers"))?,
        Some(_) => return Err(format!("{layers_key} is not an array")),
    };
    let il = match layers[..] {
        [] => return Ok(None),
        [il] => il as usize,
        _ => {
            return Err(format!(
                "{layers_key}: only one PLE layer is supported by llama.cpp"
            ))
        }
    };
    if !recurrent.get(il).copied().unwrap_or(false) {
        return Err(format!(
            "{layers_key}: PLE layer {il} is not a linear attention layer"
        ));
    }
    let mut get = |name: &str, s: &str| required_u64(m, key(s), name, inputs);
    let kernel = get("ple_conv_kernel", "ple.conv_kernel")?;
    let ngram = get("ple_ngram_size", "ple.ngram_size")?;
    let hc = get("hc_mult", "hyper_connection.count")?;
    if kernel == 0 || !(2..=8).contains(&ngram) || hc > 1 << 10 {
        return Err(format!(
            "{arch}: PLE conv kernel {kernel}, n-gram size {ngram} or hyper-connection count \
             {hc} out of range"
        ));
    }
    let elems = [ngram, hc, n_embd]
        .into_iter()
        .try_fold(kernel - 1, u64::checked_mul)
        .ok_or_else(|| format!("{arch}: the PLE conv history's size overflows"))?;
    Ok(Some((il, elems)))
}
