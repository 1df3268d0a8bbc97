//! The indexer caches of the later DSA variants, which `indexer.rs` sizes once these rules say
//! which layers keep one and how wide its row is (llama.cpp b11434, `llama_model::create_memory`):
//! - `dots3note`: `llama_kv_cache_dsa_iswa` (llama-kv-cache-dsa-iswa.cpp): a `llama_kv_cache_dsa`
//!   over the trunk's full-attention layers (MLA cache + indexer cache) and a window-sized
//!   `llama_kv_cache` over its sliding-window layers. Indexer layers: `il < n_layer() &&
//!   is_indexer_full(il)`, from the required array `attention.indexer.types` (`get_arr`: entries
//!   past its end stay 0).
//! - `hy_v4`: `llama_kv_cache_dsa` with `filter_lid = is_indexer_full(il)`, from the optional
//!   `attention.indexer.types` (`get_key_or_arr` over `n_layer()`; layer 0 must be full); a
//!   checkpoint without `indexer_top_k` (0) gets a plain `llama_kv_cache` and no indexer cache.
//! - `glm5-next`: `llama_memory_hybrid_idx` (llama-memory-hybrid-idx.cpp): the hybrid's attention
//!   and recurrent caches plus an indexer `llama_kv_cache` on `il < n_layer() && !is_recr(il) &&
//!   is_indexer_full(il)` (every layer full unless `attention.indexer.types` says otherwise). Its
//!   hparams are made MLA, so it keeps no V, and a k-pool indexer's row holds `indexer_kpool_row`
//!   (3: key | gate | pooled) keys of `indexer_head_size`.

use crate::gguf::{GgufModel, MetaValue};

use gpuledger_lang::Said;
use gpuledger_model::llama_estimate::{Input, InputSource};

/// Which layers keep an indexer cache and how many `head_size`-wide parts its row has.
pub(super) struct Variant {
    pub layers: Vec<bool>,
    pub kpool_row: u64,
}

/// Whether the architecture's indexer cache depends on these rules.
pub(super) fn is_variant(arch: &str) -> bool {
    matches!(arch, "dots3note" | "hy_v4" | "glm5-next")
}

/// Whether llama.cpp builds the indexer cache at all: hy_v4 reads `indexer_top_k` as optional
/// (llama_model_hy_v4::load_arch_hparams) and, at 0, creates a plain `llama_kv_cache`.
pub(super) fn has_cache(m: &GgufModel, arch: &str, inputs: &mut Vec<Input>) -> bool {
    if arch != "hy_v4" {
        return true;
    }
    let k = format!("{arch}.attention.indexer.top_k");
    let top_k = m.get(&k).and_then(MetaValue::as_u64).unwrap_or(0);
    if top_k == 0 {
        inputs.push(Input {
            name: "indexer_top_k".into(),
            value: "0".into(),
            source: InputSource::Derived {
                rule: Said::new("recipe-rule-hy-v4-no-indexer", vec![("key", k.into())]),
            },
        });
    }
    top_k > 0
}

/// The variant's indexer layers (of `has_kv`, the trunk's attention layers) and row width;
/// `Err` where llama.cpp refuses the file.
pub(super) fn read(
    m: &GgufModel,
    arch: &str,
    has_kv: &[bool],
    n_trunk: usize,
    inputs: &mut Vec<Input>,
) -> Result<Variant, String> {
    let k = format!("{arch}.attention.indexer.types");
    let value = m.get(&k);
    let (full, source) = match arch {
        "dots3note" => match value {
            Some(MetaValue::Array(_)) => (entries(value, &k, None)?, gguf(&k)),
            _ => return Err(format!("required array key {k} is missing")),
        },
        // hy_v4 leaves every layer shared without the key, glm5-next makes every layer full.
        _ => match value {
            Some(_) => (entries(value, &k, Some(n_trunk))?, gguf(&k)),
            None => (vec![arch == "glm5-next"; n_trunk], default_types(arch)),
        },
    };
    if arch == "hy_v4" && !full.first().copied().unwrap_or(false) {
        return Err(format!(
            "{k}: layer 0 must own an indexer (llama_model_hy_v4::load_arch_hparams refuses \
             the file)"
        ));
    }
    let layers: Vec<bool> = has_kv
        .iter()
        .enumerate()
        .map(|(il, &kv)| kv && il < n_trunk && full.get(il).copied().unwrap_or(false))
        .collect();
    let n = layers.iter().filter(|&&b| b).count();
    inputs.push(Input {
        name: "indexer_layers".into(),
        value: (format!("{n} of {}", has_kv.len())).into(),
        source,
    });
    let kpool_row = if arch == "glm5-next" {
        kpool_row(m, arch, inputs)?
    } else {
        1
    };
    Ok(Variant { layers, kpool_row })
}

fn gguf(k: &str) -> InputSource {
    InputSource::Gguf { key: k.into() }
}

fn default_types(arch: &str) -> InputSource {
    let key = if arch == "glm5-next" {
        "recipe-rule-glm5-next-indexer-types"
    } else {
        "recipe-rule-hy-v4-indexer-types"
    };
    InputSource::Default {
        detail: Said::new(key, vec![]),
    }
}

/// The per-layer flags of `indexer.types`: an array (`get_arr`: any length, `len` given for
/// `get_key_or_arr`, which wants exactly `n_layer()` entries) or one value for every layer.
fn entries(value: Option<&MetaValue>, k: &str, len: Option<usize>) -> Result<Vec<bool>, String> {
    match value {
        Some(MetaValue::Array(a)) => {
            let vals = a
                .values
                .as_ref()
                .ok_or_else(|| format!("{k}: {} entries, more than any model's layers", a.len))?;
            if let Some(n) = len.filter(|&n| n != vals.len()) {
                return Err(format!("{k} has {} entries for {n} layers", vals.len()));
            }
            vals.iter()
                .map(MetaValue::as_bool)
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| format!("{k}: entries are not integers"))
        }
        Some(v) => {
            let b = v
                .as_bool()
                .ok_or_else(|| format!("{k} is not an integer"))?;
            Ok(vec![b; len.unwrap_or(0)])
        }
        None => Ok(Vec::new()),
    }
}

/// glm5-next's k-pool: `attention.indexer.kpool` is required and above 1 (a GGML_ASSERT in
/// llama_model_glm5_next::load_arch_hparams); its cached row is `indexer_kpool_row` keys wide,
/// llama_hparams' default 3 (key | gate | pooled; llama_memory_hybrid_idx's constructor).
fn kpool_row(m: &GgufModel, arch: &str, inputs: &mut Vec<Input>) -> Result<u64, String> {
    let k = format!("{arch}.attention.indexer.kpool");
    let kpool = m
        .get(&k)
        .and_then(MetaValue::as_u64)
        .ok_or_else(|| format!("required key {k} is missing or not an integer"))?;
    let top_k = m
        .get(&format!("{arch}.attention.indexer.top_k"))
        .and_then(MetaValue::as_u64)
        .unwrap_or(0);
    if kpool < 2 || !top_k.is_multiple_of(kpool) {
        return Err(format!(
            "{k} = {kpool}: llama.cpp requires a k-pool above 1 that divides indexer.top_k \
             ({top_k})"
        ));
    }
    inputs.push(Input {
        name: "indexer_kpool".into(),
        value: (kpool.to_string()).into(),
        source: gguf(&k),
    });
    inputs.push(Input {
        name: "indexer_kpool_row".into(),
        value: "3".into(),
        source: InputSource::Default {
            detail: Said::new("recipe-rule-kpool-row", vec![]),
        },
    });
    Ok(3)
}
