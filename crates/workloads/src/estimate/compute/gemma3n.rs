//! Gemma 3n's graph as b11434 builds it (models/gemma3n.cpp): the hidden state is n_altup = 4
//! copies ([n_embd, n_tokens, n_altup]); every layer predicts them from a router over the active
//! copy (`altup_predict`), runs norm, attention (Q only on the layers that reuse an earlier
//! layer's cache), LAuReL (a rank-64 residual beside the attention) and the FFN (activation
//! sparsity on the first 10 layers) on the active copy, corrects the copies with the result
//! (`altup_correct`) and adds the gated per-layer input (`ple.rs`) to the other copies. After
//! the last layer the copies are projected back and averaged, then the outputs' rows selected.
//!
//! Written in the order `ggml_build_forward_expand` visits the nodes (the sources depth first,
//! as GGML_SCHED_DEBUG=2 printed them for the tiny gemma3n-ple): what is alive together decides
//! the buffer.

use super::super::galloc::Id;
use super::attention::{attend, write_cache};
use super::builder::Builder;
use super::F32;

/// llama_hparams' fixed gemma3n values: n_altup, laurel_rank (the file holds no keys for them).
const N_ALTUP: u64 = 4;
const LAUREL_RANK: u64 = 64;
/// models.h `n_layer_sparsity`: the first layers whose FFN gate goes through `gaussian_topk`.
const N_LAYER_SPARSITY: usize = 10;

impl Builder<'_> {
    fn gemma3n(&self) -> bool {
        self.p.arch == "gemma3n"
    }

    /// A view of `n` of the copies in `x` (`gemma3n_view_2d_slice`, `ggml_view_3d`): what a
    /// split on another backend copies.
    fn slice(&mut self, x: Id, n: u64) -> Id {
        let et = self.et();
        self.g.view_showing(x, n * et)
    }

    /// `calc_magnitude`: sqrt(sum_rows(sqr(x))) of `bytes` holding `rows` rows.
    fn magnitude(&mut self, x: Id, bytes: u64, rows: u64) -> Id {
        let sq = self.g.inplace(bytes, &[x]);
        let s = self.g.op(rows * F32, &[sq]);
        self.g.inplace(rows * F32, &[s])
    }

    /// The scaled embeddings stacked into n_altup copies: the copy projected by `altup_proj`
    /// (its magnitude matched to the embeddings') and concatenated (`inp_stacked`).
    pub(super) fn altup_init(&mut self, x: Id) -> Id {
        if !self.gemma3n() {
            return x;
        }
        let (et, t) = (self.et(), self.cur_t);
        let rest = (N_ALTUP - 1) * et;
        let rep = self.g.op(rest, &[x]);
        let w = self.weight(None, "altup_proj.weight");
        let added = self.g.op(rest, &[w, rep]);
        let target = self.magnitude(x, et, t);
        let m = self.g.inplace(rest, &[added, target]);
        let new = self.magnitude(added, rest, (N_ALTUP - 1) * t);
        let d = self.g.inplace(rest, &[m, new]);
        self.g.op(N_ALTUP * et, &[x, d])
    }

    /// `altup_compute_router_modalities`: norm, scale, router, tanh ([n_altup, n_tokens]).
    fn altup_router(&mut self, il: usize, x: Id) -> Id {
        let t = self.cur_t;
        let n = self.norm(il, x, "altup_router_norm.weight");
        let n = self.g.inplace(self.et(), &[n]);
        let w = self.weight(Some(il), "altup_router.weight");
        let r = self.g.op(N_ALTUP * t * F32, &[w, n]);
        self.g.inplace(N_ALTUP * t * F32, &[r])
    }

    /// `altup_predict`: the copies mixed by per-token coefficients, plus themselves.
    fn altup_predict(&mut self, il: usize, cur: Id) -> Id {
        let (all, t) = (N_ALTUP * self.et(), self.cur_t);
        let perm = self.g.view(cur);
        let cur_p = self.g.op(all, &[perm]);
        let active = self.slice(cur, 1);
        let modal = self.altup_router(il, active);
        let w = self.weight(Some(il), "altup_predict_coef.weight");
        let coefs = self.g.op(N_ALTUP * N_ALTUP * t * F32, &[w, modal]);
        let coefs = self.g.view(coefs);
        let p = self.g.op(all, &[cur_p, coefs]);
        let p = self.g.view(p);
        let p = self.g.op(all, &[p]);
        self.g.inplace(all, &[p, cur])
    }

    /// `altup_correct`: the innovation (the layer's output minus the active prediction),
    /// repeated over the copies, weighted by the router's coefficients (+1), plus the
    /// predictions.
    fn altup_correct(&mut self, il: usize, pred: Id, activated: Id) -> Id {
        let (et, t) = (self.et(), self.cur_t);
        let all = N_ALTUP * et;
        let active = self.slice(pred, 1);
        let innovation = self.g.inplace(et, &[activated, active]);
        let rep = self.g.op(all, &[innovation]);
        let modal = self.altup_router(il, activated);
        let w = self.weight(Some(il), "altup_correct_coef.weight");
        let c = self.g.op(N_ALTUP * t * F32, &[w, modal]);
        let c = self.g.inplace(N_ALTUP * t * F32, &[c]); // scale_bias: + 1
        let c = self.g.view(c); // transpose
        let c = self.g.op(N_ALTUP * t * F32, &[c]); // cont_3d
        let corrected = self.g.inplace(all, &[rep, c]);
        self.g.inplace(all, &[corrected, pred])
    }

    /// `laurel`: a rank-64 projection of the normed input, normed, plus the input.
    fn laurel(&mut self, il: usize, x: Id) -> Id {
        let (et, t) = (self.et(), self.cur_t);
        let [l, r] = self.weights(il, ["laurel_l.weight", "laurel_r.weight"]);
        let y = self.g.op(LAUREL_RANK * t * F32, &[l, x]);
        let y = self.g.op(et, &[r, y]);
        let y = self.norm(il, y, "laurel_post_norm.weight");
        self.g.inplace(et, &[y, x])
    }

    /// An RMS norm the model names with layer -1 (`ffn_post_norm`): never fixed on a device.
    fn norm_unpinned(&mut self, il: usize, x: Id, weight: &str) -> Id {
        let et = self.et();
        let n = self.g.inplace(et, &[x]);
        let w = self.weight(Some(il), weight);
        self.g.inplace(et, &[n, w])
    }

    /// The FFN: up, gate (through `gaussian_topk` on the first 10 layers), gelu, down.
    fn gemma3n_ffn(&mut self, il: usize, x: Id) -> Id {
        let (t, n_ff) = (self.cur_t, self.layers[il].n_ff);
        let fb = n_ff * t * F32;
        let [up, gate, down] =
            self.weights(il, ["ffn_up.weight", "ffn_gate.weight", "ffn_down.weight"]);
        let up = self.g.op(fb, &[up, x]);
        let mut gate = self.g.op(fb, &[gate, x]);
        if il < N_LAYER_SPARSITY {
            // mean, sub, sqr, sum_rows, scale, sqrt, scale, add: the per-token cutoff
            let mean = self.g.op(t * F32, &[gate]);
            let d = self.g.inplace(fb, &[gate, mean]);
            let d = self.g.inplace(fb, &[d]);
            let s = self.g.op(t * F32, &[d]);
            let mut s = s;
            for _ in 0..3 {
                s = self.g.inplace(t * F32, &[s]);
            }
            let cutoff = self.g.inplace(t * F32, &[mean, s]);
            let d = self.g.inplace(fb, &[gate, cutoff]);
            gate = self.g.inplace(fb, &[d]); // relu
        }
        let gate = self.g.inplace(fb, &[gate]); // gelu
        let m = self.g.inplace(fb, &[up, gate]);
        self.g.op(self.et(), &[down, m])
    }
}

impl Builder<'_> {
    /// Gemma 3n's layer `il` on the copies `cur` ([n_embd, n_tokens, n_altup]); `None` for
    /// other architectures.
    pub(super) fn gemma3n_layer(&mut self, il: usize, cur: Id) -> Option<Id> {
        if !self.gemma3n() {
            return None;
        }
        let et = self.et();
        let pred = self.altup_predict(il, cur);
        let active = self.slice(pred, 1);
        let x = self.norm(il, active, "attn_norm.weight");
        let o = self.gemma3n_attention(il, x);
        let wo = self.weight(Some(il), "attn_output.weight");
        let o = self.g.op(et, &[wo, o]);
        let o = self.norm(il, o, "post_attention_norm.weight");
        let gated = self.g.inplace(et, &[o, active]);
        let laurel = self.laurel(il, x);
        let s = self.g.inplace(et, &[gated, laurel]);
        let attn_laurel = self.g.inplace(et, &[s]); // scale by 1/sqrt(2)
        let f = self.norm(il, attn_laurel, "ffn_norm.weight");
        let f = self.gemma3n_ffn(il, f);
        let f = self.norm_unpinned(il, f, "post_ffw_norm.weight");
        let out = self.g.inplace(et, &[f, attn_laurel]);
        let corrected = self.altup_correct(il, pred, out);
        Some(self.first_prediction(il, corrected))
    }

    /// The attention on the normed active copy, through the attention output (before `wo`):
    /// Q, K, V each normed (V without a weight), Q and K roped, K and V written to the cache; the
    /// layers from `n_layer_kv_from_start` on compute Q only and read the cache of the last
    /// earlier layer of their kind (llama_model's `reuse` callback for gemma3n).
    fn gemma3n_attention(&mut self, il: usize, x: Id) -> Id {
        let layers = self.layers;
        let l = &layers[il];
        let t = self.cur_t;
        // A header whose every layer shares a cache (shared_kv_layers ≥ block_count) has no
        // cache to read: llama.cpp refuses it; nothing to replay.
        let (Some(pos), Some(cache)) = (self.inputs.pos, self.inputs.caches[l.swa as usize]) else {
            self.approximate("recipe-approx-attention-without-kv-cache");
            return x;
        };
        let (qb, kb, vb) = (
            l.n_head * l.head_k * t * F32,
            l.n_head_kv * l.head_k * t * F32,
            l.n_head_kv * l.head_v * t * F32,
        );
        let q = self.weight(Some(il), "attn_q.weight");
        let q = self.g.op(qb, &[q, x]);
        let q = self.g.view(q); // reshape_3d
        let q = self.norm(il, q, "attn_q_norm.weight");
        let q = self.g.inplace(qb, &[q, pos]);
        let kv_layer = if l.has_kv {
            il
        } else {
            let from = layers.iter().position(|l| !l.has_kv).unwrap_or(il);
            from.saturating_sub(if l.swa { 2 } else { 1 })
        };
        let (kv_k, kv_v, _) = self.kv(kv_layer);
        if l.has_kv {
            let k = self.weight(Some(il), "attn_k.weight");
            let k = self.g.op(kb, &[k, x]);
            let k = self.g.view(k);
            let k = self.norm(il, k, "attn_k_norm.weight");
            let k = self.g.inplace(kb, &[k, pos]);
            let v = self.weight(Some(il), "attn_v.weight");
            let v = self.g.op(vb, &[v, x]);
            let v = self.g.view(v);
            let v = self.g.inplace(vb, &[v]); // rms_norm without a weight
            let dev = self.kv_device(il);
            for (src, idx) in [(k, cache.k_idx), (v, cache.v_idx)] {
                let sv = self.g.view(src);
                write_cache(&mut self.g, sv, idx, dev);
            }
        }
        let mask = self.attn_mask(l.swa);
        let dev = self.kv_device(kv_layer);
        let kc = self.g.cache_view(kv_k, dev);
        let vc = self.g.cache_view(kv_v, dev);
        let r = self.r;
        let n_kv = if l.swa {
            r.cells_swa.unwrap_or(r.cells_full)
        } else {
            r.cells_full
        };
        attend(&mut self.g, (l, r.fa, t, n_kv), [q, kc, vc, mask])
    }

    /// The corrected active copy gated by the layer's per-layer input, projected, normed and
    /// added to the other copies; the copies concatenated again (`l_out`).
    fn first_prediction(&mut self, il: usize, corrected: Id) -> Id {
        let (et, t) = (self.et(), self.cur_t);
        let first = self.slice(corrected, 1);
        let rest = self.slice(corrected, N_ALTUP - 1);
        let active = self.slice(corrected, 1);
        let scale = self.weight(Some(il), "altup_correct_scale.weight");
        let a = self.g.inplace(et, &[active, scale]);
        let width = self.ple.as_ref().map_or(0, |p| p.width);
        let pt = width * t * F32;
        let gate = self.weight(Some(il), "inp_gate.weight");
        let g = self.g.op(pt, &[gate, a]);
        let g = self.g.inplace(pt, &[g]); // gelu
        let mut m = g;
        if let Some(all) = self.per_layer_inputs_all() {
            let slice = self.g.view_showing(all, pt);
            m = self.g.inplace(pt, &[g, slice]);
        }
        let proj = self.weight(Some(il), "proj.weight");
        let y = self.g.op(et, &[proj, m]);
        let y = self.norm(il, y, "post_norm.weight");
        let rest = self.g.inplace((N_ALTUP - 1) * et, &[rest, y]);
        self.g.op(N_ALTUP * et, &[first, rest])
    }

    /// After the last layer: the other copies projected back by `altup_unembd_proj` (their
    /// magnitude matched to the active copy's), averaged with it, then the outputs' rows.
    pub(super) fn altup_merge(&mut self, x: Id) -> Id {
        if !self.gemma3n() {
            return x;
        }
        let (et, t) = (self.et(), self.cur_t);
        let rest = (N_ALTUP - 1) * et;
        let first = self.slice(x, 1);
        let alt = self.slice(x, N_ALTUP - 1);
        let w = self.weight(None, "altup_unembd_proj.weight");
        let un = self.g.op(rest, &[w, alt]);
        let act = self.slice(x, 1);
        let target = self.magnitude(act, et, t);
        let m = self.g.inplace(rest, &[un, target]);
        let new = self.magnitude(un, rest, (N_ALTUP - 1) * t);
        let un = self.g.inplace(rest, &[m, new]);
        let mut cur = first;
        for _ in 1..N_ALTUP {
            let s = self.slice(un, 1);
            cur = self.g.inplace(et, &[cur, s]);
        }
        let cur = self.g.inplace(et, &[cur]); // scale by 1/n_altup
        let (n_out, out_ids) = (self.n_outputs, self.inputs.out_ids);
        let rows = self.g.op(self.p.n_embd * n_out * F32, &[cur, out_ids]);
        self.cur_t = n_out;
        self.g.rows = n_out;
        rows
    }
}
