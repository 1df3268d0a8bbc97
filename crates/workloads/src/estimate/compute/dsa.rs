//! DeepSeek sparse attention's lightning indexer as b11434 builds it (models/deepseek32.cpp,
//! glm-dsa.cpp, dots3note.cpp, hy-v4.cpp, with the fused `ggml_lightning_indexer`: `cparams.fused_lid` is
//! always on, llama_context's constructor). Per layer with an indexer: the indexer key (its own
//! projection, LayerNorm, RoPE, the Hadamard rotation `attn_inp_k_rot`) written into the indexer
//! cache; then, where `build_attn(llm_graph_input_attn_k_dsa *, ..., top_k, ...)` reads the mask,
//! the indexer queries and head weights, the score of every cached position
//! ([n_kv, n_tokens] F32, the largest tensor), its top-k, and the sparse mask: the MLA mask
//! filled with -inf, the top-k positions set to 0 (`ggml_set_rows` from a zero-filled
//! [1, top_k, n_tokens] tensor) and added to the causal mask.
//! glm-dsa's and hy_v4's shared-indexer layers reuse the previous full layer's top-k.

use super::super::galloc::{Graph, Id};
use super::super::indexer::IndexerKind;
use super::attention::{mla_attention, Step};
use super::builder::Builder;
use super::indexer_inputs::LidInputs;
use super::F32;

/// What the sparse mask of one layer reads, made before the MLA attention is written.
pub(super) struct SparseMask {
    /// The indexer's query input (`qr`, the normed Q latent) and the layer input.
    qr: Id,
    x: Id,
    /// `indexer.attn_q_b`, `indexer.proj`, and the layer's indexer cache (None: a shared layer).
    full: Option<[Id; 3]>,
    /// The previous full layer's top-k (glm-dsa's shared layers).
    prev_top_k: Option<Id>,
    mask: Id,
    lid: LidInputs,
    pos: Id,
    /// Indexer heads, their width, top-k, tokens, cached positions.
    shape: [u64; 5],
}

impl SparseMask {
    /// Write the indexer's scores and top-k, and the sparse mask; returns (mask, top_k).
    pub(super) fn build(&self, g: &mut Graph) -> (Id, Option<Id>) {
        let [nh, hs, top_k, t, n_kv] = self.shape;
        let k = top_k.min(n_kv);
        // build_attn: the zero rows the top-k positions get (a leaf, so placed before any node;
        // filled in place), expanded first as set_rows' first source.
        let zeros = g.leaf(k * t * F32);
        let zeros = g.inplace(k * t * F32, &[zeros]);
        let top = match self.full {
            Some([w_q, w_proj, cache]) => {
                let q = g.op(hs * nh * t * F32, &[w_q, self.qr]);
                let q = g.view(q);
                let mut q = g.inplace(hs * nh * t * F32, &[q, self.pos]);
                if let Some(rot) = self.lid.k_rot {
                    q = g.op(hs * nh * t * F32, &[rot, q]);
                }
                let w = g.op(nh * t * F32, &[w_proj, self.x]);
                let w = g.view(w);
                let w = g.inplace(nh * t * F32, &[w]); // scale by 1/sqrt(hs * nh)
                let qv = g.view(q);
                let score = g.op(n_kv * t * F32, &[qv, cache, w, self.lid.mask]);
                let sel = g.op(k * t * 4, &[score]);
                Some(g.op(k * t * 4, &[sel])) // cont
            }
            None => self.prev_top_k,
        };
        let mask_bytes = g.bytes(self.mask);
        let Some(top) = top else {
            return (self.mask, None);
        };
        let all = g.op(mask_bytes, &[self.mask]); // fill with -inf
        let all = g.view(all);
        let top3 = g.view(top);
        let set = g.set_rows(all, &[zeros, top3]);
        let set = g.view(set);
        (g.op(mask_bytes, &[set, self.mask]), Some(top))
    }
}

/// Architectures whose DSA indexer the replay writes (their graphs share deepseek32's indexer).
pub(super) fn replayed(arch: &str) -> bool {
    matches!(arch, "deepseek32" | "glm-dsa" | "dots3note" | "hy_v4")
}

impl Builder<'_> {
    /// The DSA indexer of layer `il`, if the replay writes it for this model.
    fn dsa_layer(&self, il: usize) -> Option<(u64, u64, bool)> {
        let ix = self.p.indexer.as_ref()?;
        if ix.kind != IndexerKind::Dsa || !replayed(&self.p.arch) || self.layers[il].swa {
            return None;
        }
        Some((
            ix.n_head,
            ix.head_size,
            ix.layers.get(il).copied().unwrap_or(false),
        ))
    }

    /// The indexer's inputs, when the model's indexer is replayed.
    pub(super) fn lid_inputs(&mut self, cells: u64) -> Option<LidInputs> {
        let ix = self.p.indexer.as_ref()?;
        if ix.kind != IndexerKind::Dsa || !replayed(&self.p.arch) {
            return None;
        }
        let t = self.cur_t;
        let hadamard = self.p.arch != "hy_v4";
        let k_rot = hadamard.then(|| self.g.input(ix.head_size * ix.head_size * F32));
        let k_idx = self.g.input(t * 8);
        // F16 whatever -fa says: the fused indexer reads an F16 mask.
        let mask = self.g.input(cells * t * 2);
        Some(LidInputs { k_rot, k_idx, mask })
    }

    /// The indexer key of a full layer written into its cache (`cpy_k`, expanded before the
    /// attention's Q); returns the cache's view the scores read.
    fn indexer_key(&mut self, il: usize, x: Id, hs: u64, lid: LidInputs, pos: Id) -> Id {
        let t = self.cur_t;
        let bytes = hs * t * F32;
        let [w_k, n_w, n_b] = self.weights(
            il,
            [
                "indexer.attn_k.weight",
                "indexer.k_norm.weight",
                "indexer.k_norm.bias",
            ],
        );
        let k = self.g.op(bytes, &[w_k, x]);
        let k = self.g.op(bytes, &[k]); // LayerNorm: not an in-place op
        let k = self.g.inplace(bytes, &[k, n_w]);
        let k = self.g.inplace(bytes, &[k, n_b]);
        let k = self.g.view(k);
        let mut k = self.g.inplace(bytes, &[k, pos]);
        if let Some(rot) = lid.k_rot {
            k = self.g.op(bytes, &[rot, k]);
        }
        let kv = self.g.view(k);
        let dev = self.kv_device(il);
        self.g.external(&[kv, lid.k_idx], Some(dev));
        self.g.cache_view(0, dev)
    }

    /// For a layer with a DSA indexer: its key written, the Q latent's projection (`qr`), and
    /// what builds its sparse mask; `None` for any other layer.
    pub(super) fn dsa_prelude(
        &mut self,
        il: usize,
        x: Id,
        (mask, pos): (Id, Id),
    ) -> Option<(Id, SparseMask)> {
        let (nh, hs, full) = self.dsa_layer(il)?;
        let lid = self.inputs.lid?;
        let cache = full.then(|| self.indexer_key(il, x, hs, lid, pos));
        let qr = self.q_latent(il, x);
        let full = match cache {
            Some(c) => {
                let [w_q, w_proj] =
                    self.weights(il, ["indexer.attn_q_b.weight", "indexer.proj.weight"]);
                Some([w_q, w_proj, c])
            }
            None => None,
        };
        let key = format!("{}.attention.indexer.top_k", self.p.arch);
        let top_k = self.model.get(&key).and_then(|v| v.as_u64()).unwrap_or(0);
        let sm = SparseMask {
            qr,
            x,
            full,
            prev_top_k: self.dsa_top_k,
            mask,
            lid,
            pos,
            shape: [nh, hs, top_k, self.cur_t, self.r.cells_full],
        };
        Some((qr, sm))
    }
}

impl Builder<'_> {
    /// The Q latent (`attn_q_a`, RMS-normed by `attn_q_a_norm`: deepseek2's q-LoRA, every DSA
    /// model), or the layer input where the model projects Q directly (`attn_q`).
    pub(super) fn q_latent(&mut self, il: usize, x: Id) -> Id {
        let name = format!("blk.{il}.attn_q_a.weight");
        let Some(rank) = self
            .model
            .tensor(&name)
            .and_then(|t| t.dims.get(1).copied())
        else {
            return x;
        };
        let bytes = rank * self.cur_t * F32;
        let w = self.weight(Some(il), "attn_q_a.weight");
        let qr = self.g.op(bytes, &[w, x]);
        let qr = self.g.inplace(bytes, &[qr]);
        let n = self.weight(Some(il), "attn_q_a_norm.weight");
        self.g.inplace(bytes, &[qr, n])
    }

    /// A multi-head latent attention layer through the attention output (before `wo`), with
    /// the DSA indexer and its sparse mask where the layer has one.
    pub(super) fn mla(
        &mut self,
        il: usize,
        x: Id,
        (pos, k_cache, cache_be): (Id, Id, u8),
        (k_idx, mask): (Option<Id>, Id),
    ) -> Id {
        // Replayed node for node: hy_v4's and dots3note's MLA, gate included (the indexer grid's
        // hy-v4 and dots3note models, with and without flash attention), and bailingmoe3's
        // (the latent absorbed, its output gate: `kda_hybrid_gate`).
        if !matches!(self.p.arch.as_str(), "hy_v4" | "dots3note" | "bailingmoe3") {
            self.approximate("recipe-approx-mla-attention");
        }
        if let Some(o) = self.kpool_mla(il, x, (k_cache, cache_be), (k_idx, mask)) {
            return o;
        }
        let dsa = self.dsa_prelude(il, x, (mask, pos));
        let q_in = match &dsa {
            Some((qr, _)) => *qr,
            None => self.q_latent(il, x),
        };
        let q_name = if q_in == x {
            "attn_q.weight"
        } else {
            "attn_q_b.weight"
        };
        let ws = self.weights(
            il,
            [
                q_name,
                "attn_k_b.weight",
                "attn_kv_a_mqa.weight",
                "attn_v_b.weight",
            ],
        );
        let layers = self.layers;
        let (l, r, t) = (&layers[il], self.r, self.cur_t);
        let step = Step { l, x, pos, r, t };
        let mut top_k = None;
        let mut build_mask = |g: &mut Graph| match &dsa {
            Some((_, sm)) => {
                let (m, top) = sm.build(g);
                top_k = top;
                m
            }
            None => mask,
        };
        let on = (ws, q_in, k_cache, cache_be);
        let o = mla_attention(
            &mut self.g,
            (self.model, self.p),
            &step,
            on,
            (k_idx, &mut build_mask),
        );
        if top_k.is_some() {
            self.dsa_top_k = top_k;
        }
        o
    }
}
