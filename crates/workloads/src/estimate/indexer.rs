//! Sparse-attention indexer caches: the per-token key cache a lightning indexer keeps beside the
//! attention cache to pick the top-k positions each query attends to.
//!
//! llama.cpp b11434 creates them in `llama_model::create_memory` (llama-model.cpp):
//! - `deepseek32`, `glm-dsa`: `llama_kv_cache_dsa` (llama-kv-cache-dsa.cpp) = the MLA cache plus
//!   an indexer `llama_kv_cache` built from the model's hparams with one KV head per layer and
//!   `n_embd_head_k_full = indexer_head_size`; the model is MLA, so the indexer cache has no V.
//!   Layers: the trunk's (`il < n_layer()`, not the NextN ones); glm-dsa only those where
//!   `is_indexer_full(il)`.
//! - `minimax-m3`: `llama_kv_cache_msa` (llama-kv-cache-msa.cpp), the same trick over a plain
//!   (non-MLA) model: the indexer cache keeps K (`indexer_head_size`, one head) *and* a V of the
//!   model's `n_embd_head_v` (one head), because `llama_kv_cache` allocates V whenever the hparams
//!   are not MLA. Layers: `il >= n_layer_dense_lead` (the sparse ones).
//!
//! - `dots3note`, `hy_v4`, `glm5-next`: DSA caches whose layers and row width follow their own
//!   rules (`indexer_variants.rs`).
//!
//! All share the main cache's cells, streams and types (`-ctk`/`-ctv`); each layer's indexer
//! cache sits with the layer (`model.dev_layer(il)`), like its KV.

use gpuledger_lang::Said;
use serde::Serialize;

use super::indexer_variants as variants;
use crate::gguf::{GgufModel, MetaValue};

use gpuledger_model::llama_estimate::{Input, InputSource};

/// Which indexer cache llama.cpp builds for the architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexerKind {
    /// `llama_kv_cache_dsa`: K only (the model is MLA).
    Dsa,
    /// `llama_kv_cache_msa`: K and a one-head V.
    Msa,
    /// qwen4exp's `llama_memory_hybrid_idx` (`qsa.rs`): K only, `kpool_row` keys wide (raw |
    /// pooled).
    Qsa,
}

/// The indexer cache's shape, read from the GGUF as `load_arch_hparams` reads it.
#[derive(Debug, Clone, Serialize)]
pub struct IndexerParams {
    pub kind: IndexerKind,
    /// `attention.indexer.key_length`: elements of one indexer key per token and layer.
    pub head_size: u64,
    /// `attention.indexer.head_count` (the queries' heads; the cache has one key head).
    pub n_head: u64,
    /// Which layers keep an indexer cache.
    pub layers: Vec<bool>,
    /// `head_size`-wide keys in one cached row: glm5-next's k-pool row holds 3 (key | gate |
    /// pooled, `indexer_kpool_row`); 1 otherwise.
    pub kpool_row: u64,
}

impl IndexerParams {
    /// Elements of one token's indexer K and V rows at layer `il` (`head_v`: the model's
    /// value head size of that layer; `v_max`: the widest, used when V is stored transposed).
    pub fn row_elems(&self, head_v: u64, v_max: u64, fa: bool) -> (u64, u64) {
        let v = match self.kind {
            IndexerKind::Dsa => 0,
            // llama_kv_cache's constructor: n_embd_v_gqa(il) with FA, n_embd_v_gqa_max() without
            // (one head each, since the indexer's hparams have n_head_kv = 1 everywhere).
            IndexerKind::Msa if fa => head_v,
            IndexerKind::Msa => v_max,
            IndexerKind::Qsa => 0,
        };
        (self.head_size.saturating_mul(self.kpool_row), v)
    }
}

/// GLM-5.2's default `indexer_types` (models/glm-dsa.cpp `GLM_5_2_DEFAULT_INDEXER_TYPES`, from
/// the model's config.json): layers 0 and 1 full, then every fourth from layer 2, up to layer 77.
fn glm_5_2_default(il: usize) -> bool {
    il < 2 || (il < 78 && (il - 2).is_multiple_of(4))
}

/// Architectures whose indexer cache is modelled, and their kind.
fn kind_of(arch: &str) -> Option<IndexerKind> {
    match arch {
        "deepseek32" | "glm-dsa" => Some(IndexerKind::Dsa),
        "dots3note" | "hy_v4" | "glm5-next" => Some(IndexerKind::Dsa),
        "minimax-m3" => Some(IndexerKind::Msa),
        _ => None,
    }
}

/// The model's indexer cache, if its architecture has one; `Err` names a key that is missing or
/// malformed (llama.cpp refuses such a file too). `has_kv`: the trunk's attention layers;
/// `n_trunk`: `n_layer()`, the layers before the next-token-prediction ones.
pub fn read(
    m: &GgufModel,
    arch: &str,
    (has_kv, n_trunk): (&[bool], usize),
    n_ctx_train: u64,
    inputs: &mut Vec<Input>,
    notes: &mut Vec<Said>,
) -> Result<Option<IndexerParams>, String> {
    let key = |s: &str| format!("{arch}.attention.indexer.{s}");
    let Some(kind) = kind_of(arch) else {
        if m.get(&key("key_length")).is_some() {
            notes.push(Said::new(
                "recipe-note-indexer-unknown",
                vec![("arch", arch.into())],
            ));
        }
        return Ok(None);
    };
    if !variants::has_cache(m, arch, inputs) {
        return Ok(None);
    }
    let mut get = |name: &str, s: &str| required_u64(m, key(s), name, inputs);
    let head_size = get("indexer_head_size", "key_length")?;
    let n_head = get("indexer_n_head", "head_count")?;
    if head_size == 0 || head_size > 1 << 16 {
        return Err(format!(
            "{} = {head_size} is not a plausible indexer key length",
            key("key_length")
        ));
    }
    let mut kpool_row = 1;
    let layers = match arch {
        a if variants::is_variant(a) => {
            let v = variants::read(m, arch, has_kv, n_trunk, inputs)?;
            kpool_row = v.kpool_row;
            v.layers
        }
        "glm-dsa" => glm_full_layers(m, arch, has_kv, n_ctx_train, inputs)?,
        "minimax-m3" => {
            let k = format!("{arch}.leading_dense_block_count");
            let lead = m.get(&k).and_then(MetaValue::as_u64).unwrap_or(0);
            let detail = Said::new("recipe-rule-minimax-m3-sparse", vec![]);
            inputs.push(Input {
                name: "indexer_layers".into(),
                value: Said::new("recipe-value-from-layer", vec![("layer", lead.into())]),
                source: InputSource::Derived { rule: detail },
            });
            let from = lead as usize;
            has_kv
                .iter()
                .enumerate()
                .map(|(il, &kv)| kv && il >= from)
                .collect()
        }
        _ => has_kv.to_vec(),
    };
    Ok(Some(IndexerParams {
        kind,
        head_size,
        n_head,
        layers,
        kpool_row,
    }))
}

/// glm-dsa's `is_indexer_full` per trunk layer: `attention.indexer.types` (array or one value),
/// else every layer for files trained below 1M context (GLM 5 and 5.1), else GLM-5.2's pattern.
fn glm_full_layers(
    m: &GgufModel,
    arch: &str,
    has_kv: &[bool],
    n_ctx_train: u64,
    inputs: &mut Vec<Input>,
) -> Result<Vec<bool>, String> {
    let nl = has_kv.len();
    let k = format!("{arch}.attention.indexer.types");
    let (full, source): (Vec<bool>, InputSource) = match m.get(&k) {
        Some(MetaValue::Array(a)) => {
            let vals = a
                .values
                .as_ref()
                .filter(|v| v.len() >= nl)
                .ok_or_else(|| format!("{k} has {} entries for {nl} layers", a.len))?;
            let full = vals[..nl]
                .iter()
                .map(MetaValue::as_bool)
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| format!("{k}: entries are not integers"))?;
            (full, InputSource::Gguf { key: k })
        }
        Some(v) => {
            let b = v
                .as_bool()
                .ok_or_else(|| format!("{k} is not an integer"))?;
            (vec![b; nl], InputSource::Gguf { key: k })
        }
        None if n_ctx_train < 1_048_576 => (
            vec![true; nl],
            InputSource::Default {
                detail: Said::new("recipe-rule-glm-dsa-every-layer", vec![]),
            },
        ),
        None => (
            (0..nl).map(glm_5_2_default).collect(),
            InputSource::Default {
                detail: Said::new("recipe-rule-glm-5-2-pattern", vec![]),
            },
        ),
    };
    let n = full.iter().filter(|&&b| b).count();
    inputs.push(Input {
        name: "indexer_layers".into(),
        value: Said::new(
            "recipe-value-n-of",
            vec![("n", n.into()), ("total", nl.into())],
        ),
        source,
    });
    Ok(full.iter().zip(has_kv).map(|(&f, &kv)| f && kv).collect())
}

/// A required GGUF integer key, recorded as an input named `name` (the indexer readers' keys).
pub(super) fn required_u64(
    m: &GgufModel,
    k: String,
    name: &str,
    inputs: &mut Vec<Input>,
) -> Result<u64, String> {
    let v = m
        .get(&k)
        .and_then(MetaValue::as_u64)
        .ok_or_else(|| format!("required key {k} is missing or not an integer"))?;
    inputs.push(Input {
        name: name.into(),
        value: (v.to_string()).into(),
        source: InputSource::Gguf { key: k },
    });
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glm_5_2_pattern_is_two_full_then_one_in_four() {
        let full: Vec<usize> = (0..80).filter(|&il| glm_5_2_default(il)).collect();
        assert_eq!(&full[..5], &[0, 1, 2, 6, 10]);
        assert_eq!(full.last(), Some(&74));
        assert_eq!(full.len(), 2 + 19);
    }

    #[test]
    fn msa_keeps_a_one_head_value_row() {
        let p = IndexerParams {
            kind: IndexerKind::Msa,
            head_size: 64,
            n_head: 4,
            layers: vec![true],
            kpool_row: 1,
        };
        assert_eq!(p.row_elems(128, 256, true), (64, 128));
        assert_eq!(p.row_elems(128, 256, false), (64, 256));
        let d = IndexerParams {
            kind: IndexerKind::Dsa,
            ..p
        };
        assert_eq!(d.row_elems(128, 256, true), (64, 0));
    }
}
