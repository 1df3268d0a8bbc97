//! What the graph is built from: the model's tensor table (shapes and bytes by name) and each
//! repeating layer's shapes read from it.

use std::collections::HashMap;

use crate::gguf::GgufModel;

use super::super::hparams::{CacheKind, ModelParams};
use super::ffn::Glu;

/// The model's tensors by name: shapes (for layer shapes) and bytes (for the weights the graph
/// reads).
pub(super) struct Tensors<'a> {
    dims: HashMap<&'a str, &'a [u64]>,
    bytes: HashMap<&'a str, u64>,
}

impl<'a> Tensors<'a> {
    pub(super) fn new(model: &'a GgufModel) -> Self {
        Tensors {
            dims: model
                .tensors()
                .map(|t| (t.name.as_str(), t.dims.as_slice()))
                .collect(),
            bytes: model
                .tensors()
                .map(|t| (t.name.as_str(), t.n_bytes))
                .collect(),
        }
    }

    /// Dimension `i` of tensor `name`.
    fn dim(&self, name: &str, i: usize) -> Option<u64> {
        self.dims.get(name).and_then(|d| d.get(i).copied())
    }

    pub(super) fn has(&self, name: &str) -> bool {
        self.dims.contains_key(name)
    }

    /// Whether a `MUL_MAT` / `MUL_MAT_ID` reads tensor `name`: a matrix of weights (two
    /// dimensions of more than one), not a bias, a convolution kernel or a looked-up table.
    pub(super) fn read_by_matmul(&self, name: &str) -> bool {
        name.ends_with(".weight")
            && self.dim(name, 1).is_some_and(|n| n > 1)
            && !name.contains("conv1d")
            && !name.contains("token_embd")
    }

    /// Bytes of tensor `name` (0 when the model has none).
    pub(super) fn bytes(&self, name: &str) -> u64 {
        self.bytes.get(name).copied().unwrap_or(0)
    }

    pub(super) fn contains(&self, name: &str) -> bool {
        self.bytes.contains_key(name)
    }
}

/// Shapes of one layer, read from the tensor table.
#[derive(Debug, Clone, Default)]
pub(super) struct Layer {
    pub(super) n_head: u64,
    pub(super) n_head_kv: u64,
    pub(super) head_k: u64,
    pub(super) head_v: u64,
    /// The up projection's width (2 × n_ff where it is fused with the gate).
    pub(super) n_ff: u64,
    pub(super) glu: Glu,
    pub(super) qk_norm: bool,
    pub(super) post_attn_norm: bool,
    pub(super) post_ffw_norm: bool,
    pub(super) swa: bool,
    pub(super) has_kv: bool,
    pub(super) recurrent: bool,
    /// (n_expert, n_expert_used, n_ff_exp)
    pub(super) moe: Option<(u64, u64, u64)>,
    pub(super) shared_ff: u64,
}

impl Layer {
    /// A layer with neither a feed-forward nor an expert block (a pure recurrent layer): its
    /// output is the residual sum after the mixer.
    pub(super) fn mixer_only(&self) -> bool {
        self.recurrent && self.n_ff == 0 && self.moe.is_none()
    }
}

/// A layer's GLU: a gate tensor, or an up projection twice as wide as the down projection's
/// input (the fused gate + up of phi3 and glm4), or none.
fn glu_of(tensors: &Tensors, il: usize) -> Glu {
    let b = |t: &str| format!("blk.{il}.{t}");
    if tensors.has(&b("ffn_gate.weight")) || tensors.has(&b("ffn_gate_exps.weight")) {
        return Glu::Gate;
    }
    let up = tensors.dim(&b("ffn_up.weight"), 1);
    let down_in = tensors.dim(&b("ffn_down.weight"), 0);
    match (up, down_in) {
        (Some(u), Some(d)) if d > 0 && u == 2 * d => Glu::Fused,
        _ => Glu::None,
    }
}

/// Every repeating layer's shapes.
pub(super) fn read_layers(model: &GgufModel, p: &ModelParams, tensors: &Tensors) -> Vec<Layer> {
    let arch = p.arch.as_str();
    let n_used = model
        .get(&format!("{arch}.expert_used_count"))
        .and_then(|v| v.as_u64())
        .unwrap_or(1);
    (0..p.n_layer as usize)
        .map(|il| {
            let b = |t: &str| format!("blk.{il}.{t}");
            let moe = tensors.dim(&b("ffn_gate_inp.weight"), 1).map(|n_expert| {
                let ff = tensors.dim(&b("ffn_up_exps.weight"), 1).unwrap_or(0);
                (n_expert, n_used, ff)
            });
            Layer {
                n_head: p.n_head[il],
                n_head_kv: p.n_head_kv[il],
                head_k: p.head_k[il],
                head_v: p.head_v[il],
                n_ff: tensors.dim(&b("ffn_up.weight"), 1).unwrap_or(0),
                glu: glu_of(tensors, il),
                qk_norm: tensors.has(&b("attn_q_norm.weight")),
                post_attn_norm: tensors.has(&b("post_attention_norm.weight")),
                post_ffw_norm: tensors.has(&b("post_ffw_norm.weight")),
                swa: p.swa_layers[il] && p.cache == CacheKind::Iswa,
                has_kv: p.has_kv[il],
                recurrent: p.recurrent[il],
                moe,
                shared_ff: tensors.dim(&b("ffn_up_shexp.weight"), 1).unwrap_or(0),
            }
        })
        .collect()
}

/// The widest row (elements per token) of any tensor the graph would create: the attention
/// scores over the cache, the heads, the FFN and expert blocks, the router, the logits, the
/// indexer's queries and its per-head scores over the cache (MSA's block mask per cell).
pub(super) fn widest_row(layers: &[Layer], p: &ModelParams, cells: u128) -> u128 {
    let indexer = p.indexer.iter().flat_map(|ix| {
        let heads = ix.n_head as u128;
        [
            heads * ix.head_size as u128 * ix.kpool_row as u128,
            cells * heads.max(1),
        ]
    });
    layers
        .iter()
        .flat_map(|l| {
            let used = l.moe.map_or(1, |(_, u, ff)| u.max(1) as u128 * ff as u128);
            [
                cells * l.n_head as u128,
                l.n_head as u128 * l.head_k.max(l.head_v) as u128,
                l.n_ff.max(l.shared_ff) as u128,
                used,
                l.moe.map_or(0, |(n, _, _)| n as u128),
                l.n_head_kv as u128 * l.head_v as u128 * 2,
            ]
        })
        .chain([p.n_vocab as u128, p.n_embd as u128 * 8, cells])
        .chain(indexer)
        .max()
        .unwrap_or(0)
}
