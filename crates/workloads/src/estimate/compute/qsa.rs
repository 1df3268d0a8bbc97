//! qwen4exp's QSA indexer as b11434 builds it (models/qwen4exp.cpp `build_inp_kpool`,
//! `build_qsa_sel`, `build_attn_qsa`), for the attention layers with a compress ratio: the raw
//! indexer key joined to a zero half and written into the indexer cache, the keys of the blocks
//! the micro-batch completes gathered, averaged, normed and rotated, scattered into their pooled
//! slots, every pooled key gathered back, the indexer queries scored against them (the fused
//! lightning indexer), the top blocks' cells and the tail's joined, and the sparse mask: an
//! all -inf row of n_kv + n_sel columns repeated to every token, zeros set at the live cells
//! (with the liveness sums that send dead slots to their own dump column), a view of its first
//! n_kv columns added to the causal mask. The reserve walks a full context
//! (`llama_memory_hybrid_idx_context`'s constructor): every pool of every sequence is new.

use super::super::galloc::{Graph, Id};
use super::super::indexer::IndexerKind;
use super::super::qsa::{kpool, layer_ratio};
use super::builder::Builder;
use super::indexer_inputs::{KpoolInputs, KpoolShape};
use super::layers::Layer;
use super::F32;

/// What the mask of one QSA layer reads once the indexer has chosen its cells.
pub(super) struct QsaMask {
    score: Id,
    top_k: Id,
    sel_idx: Id,
    inputs: KpoolInputs,
    /// The causal mask, its element size, and the cache cells.
    mask: Id,
    el: u64,
    n_kv: u64,
    /// Top pools, tokens.
    shape: [u64; 2],
}

impl QsaMask {
    /// `build_attn_qsa`'s `build_attn_mha` over the cache with this mask (attention.rs
    /// `attend`'s shapes): flash attention reads it after Q, K and V; without, KQ is expanded
    /// first (the softmax's first source), so the mask is built while KQ is alive.
    pub(super) fn attend(
        &self,
        g: &mut Graph,
        (l, fa, t, n_kv): (&Layer, bool, u64, u64),
        [q, k_cache, v_cache]: [Id; 3],
    ) -> Id {
        let qv = g.view(q);
        let qp = g.view(qv);
        if fa {
            // the result itself, not its reshape: the output gate multiplies in place on it
            let mask = self.build(g);
            let o = l.n_head * l.head_v * t * F32;
            return g.op(o, &[qp, k_cache, v_cache, mask]);
        }
        let kq_bytes = n_kv * t * l.n_head * F32;
        let kq = g.op(kq_bytes, &[k_cache, qp]);
        let mask = self.build(g);
        let sm = g.inplace(kq_bytes, &[kq, mask]);
        let kqv = g.op(l.head_v * t * l.n_head * F32, &[v_cache, sm]);
        let p = g.view(kqv);
        g.op(l.head_v * t * l.n_head * F32, &[p])
    }

    /// The sparse mask (`indexer_sel`), written where the attention reads it, in the order
    /// ggml's depth-first expansion visits it from the final ADD: `ggml_set_rows` lists the
    /// zeros, then the indices, then the all -inf row it writes into (its src[2]), so the
    /// scores are freed (at the top scores' gather) before that row is made.
    pub(super) fn build(&self, g: &mut Graph) -> Id {
        let [n_top, t] = self.shape;
        let KpoolShape {
            n_sel, kpool: kp, ..
        } = self.inputs.shape;
        let (el, n_kv) = (self.el, self.n_kv);
        let zeros = g.leaf(n_sel * el);
        let zeros = g.inplace(n_sel * el, &[zeros]); // fill 0
        let zeros = g.op(n_sel * t * el, &[zeros]); // repeat
        let zeros = g.view(zeros);
        let sel = n_sel * t * F32;
        let idx = g.op(sel, &[self.sel_idx]); // cast to F32
                                              // live_pool: a picked pool's score, clamped to 0 or 1, repeated to its cells
        let sv = g.view(self.score);
        let top_score = g.op(n_top * t * F32, &[sv, self.top_k]);
        let live = g.inplace(n_top * t * F32, &[top_score]); // scale_bias
        let live = g.inplace(n_top * t * F32, &[live]); // clamp
        let live = g.op(kp * n_top * t * F32, &[live]); // repeat
        let live_pool = g.view(live);
        let tail = (kp - 1) * t * F32;
        let live_tail = g.op(tail, &[self.inputs.tail_idxs]); // cast
        let live_tail = g.inplace(tail, &[live_tail]); // scale_bias
        let live_tail = g.inplace(tail, &[live_tail]); // clamp
        let live = g.op(sel, &[live_pool, live_tail]); // concat
        let dump = g.op(sel, &[live]); // fill 1
        let dump = g.op(sel, &[dump]); // cumsum
        let dump = g.inplace(sel, &[dump]); // scale_bias
        let idx = g.inplace(sel, &[idx, dump]); // sub
        let idx = g.inplace(sel, &[idx, live]); // mul
        let idx = g.inplace(sel, &[idx, dump]); // add
        let idx = g.op(sel, &[idx]); // cast to I32
        let idx = g.view(idx);
        let all = g.leaf((n_kv + n_sel) * el);
        let all = g.inplace((n_kv + n_sel) * el, &[all]); // fill -inf
        let all = g.op((n_kv + n_sel) * t * el, &[all]); // repeat
        let all = g.view(all);
        let set = g.set_rows(all, &[zeros, idx]);
        let set = g.view(set);
        g.op(n_kv * t * el, &[set, self.mask])
    }
}

/// The keys the scores read: the new pools' members gathered from the indexer cache, averaged
/// (a cont, then adds), scaled, normed and rotated, scattered into their pooled slots
/// (`scatter_pooled`), then every pool's key gathered back by cell (`gather_pooled`).
fn pooled_keys(g: &mut Graph, inp: KpoolInputs, (hs, w_kn): (u64, Id), dev: u8) -> Id {
    let KpoolShape {
        n_pool,
        n_new,
        kpool: kp,
        ..
    } = inp.shape;
    let cache = g.cache_view(0, dev);
    let (new_idxs, new_rep, new_pos) = (inp.new_pool_idxs, inp.new_pool_rep, inp.extra);
    let rows = g.op(hs * kp * n_new * F32, &[cache, new_idxs]);
    let rows = g.view(rows);
    let nb = hs * n_new * F32;
    let mut pooled = g.op(nb, &[rows]);
    for _ in 1..kp {
        let slice = g.view(rows);
        pooled = g.inplace(nb, &[pooled, slice]);
    }
    let pooled = g.inplace(nb, &[pooled]); // scale
    let pooled = g.inplace(nb, &[pooled]); // rms_norm
    let pooled = g.inplace(nb, &[pooled, w_kn]);
    // rope_multi on the reshape: in place, ggml-alloc reusing a view's source when it is the
    // source's one view at its start (`ggml_gallocr_allocate_node`), as for the query below
    let pooled = g.inplace(nb, &[pooled, new_pos]);
    let pooled = g.view(pooled);
    g.external(&[pooled, new_rep], Some(dev)); // scatter_pooled
    let keys = g.op(hs * n_pool * F32, &[cache, inp.pool_cells]); // gather_pooled
    g.view(keys)
}

impl Builder<'_> {
    /// The pooling and top-k sizes of a QSA model: `[top_k, kpool]` (`None`: no QSA indexer, or
    /// unpooled keys, where every layer is dense).
    pub(super) fn qsa_sizes(&self) -> Option<[u64; 2]> {
        let ix = self.p.indexer.as_ref()?;
        if ix.kind != IndexerKind::Qsa || self.p.arch != "qwen4exp" {
            return None;
        }
        let arch = &self.p.arch;
        let key = format!("{arch}.attention.indexer.top_k");
        let top_k = self.model.get(&key).and_then(|v| v.as_u64())?;
        let ratios = format!("{arch}.attention.compress_ratios");
        let kp = kpool(self.model, &ratios, top_k, &mut Vec::new()).ok()?;
        (kp > 1).then_some([top_k, kp])
    }

    /// The k-pool inputs (`build_inp_kpool`), sized for the reserve's full context: every
    /// sequence's `cells / kpool` pools (`n_pool_max`), all of them new. ggml-alloc places
    /// inputs in the order the nodes first read them: the indexer cache's row indices, the new
    /// pools' members, positions and rows, then (given `pos`) the token positions, the pool
    /// cells, the pool mask, the pools' members and the tail.
    pub(super) fn qsa_inputs(
        &mut self,
        pos: Option<(&mut Option<Id>, u64)>,
    ) -> Option<KpoolInputs> {
        let [top_k, kp] = self.qsa_sizes()?;
        let (t, r) = (self.cur_t, self.r);
        let hs = self.p.indexer.as_ref()?.head_size;
        let Some(shape) = KpoolShape::at_reserve((r.cells_full, r.n_seq, t), (kp, top_k, true), hs)
        else {
            self.approximate("recipe-approx-qwen4exp-qsa-indexer-sizes");
            return None;
        };
        let KpoolShape { n_pool, n_new, .. } = shape;
        let g = &mut self.g;
        let k_idx = g.input(t * 8);
        let new_pool_idxs = g.input(kp * n_new * 4);
        let new_pos = g.input(4 * n_new * 4);
        let new_pool_rep = g.input(n_new * 8);
        if let Some((slot, bytes)) = pos {
            *slot = Some(g.input(bytes));
        }
        let pool_cells = g.input(n_pool * 4);
        let pool_mask = g.input(n_pool * t * 2);
        let pool_idxs = g.input(kp * n_pool * 4);
        let tail_idxs = g.input((kp - 1) * t * 4);
        Some(KpoolInputs {
            k_idx,
            pool_cells,
            pool_idxs,
            pool_mask,
            tail_idxs,
            new_pool_idxs,
            new_pool_rep,
            extra: new_pos,
            shape,
        })
    }

    /// For a QSA layer: the indexer key written and pooled, the scores and the selected cells
    /// (`build_qsa_sel` up to `sel_idx`, all expanded before the layer's Q); the rest of the
    /// mask is built by the returned writer. `None` for a dense layer.
    pub(super) fn qsa_prelude(
        &mut self,
        il: usize,
        x: Id,
        (mask, pos): (Id, Id),
    ) -> Option<QsaMask> {
        let inp = self.inputs.kpool.filter(|_| self.p.arch == "qwen4exp")?;
        let ix = self.p.indexer.as_ref()?;
        if !ix.layers.get(il).copied().unwrap_or(false)
            || layer_ratio(self.model, &self.p.arch, il) == 0
        {
            return None;
        }
        let (hs, nh) = (ix.head_size, ix.n_head);
        let KpoolShape { n_pool, n_top, .. } = inp.shape;
        let (t, n_kv) = (self.cur_t, self.r.cells_full);
        let [w_k, w_kn, w_q, w_qn] = self.weights(
            il,
            [
                "indexer.k_proj.weight",
                "indexer.k_norm.weight",
                "indexer.q_proj.weight",
                "indexer.q_norm.weight",
            ],
        );
        let dev = self.kv_device(il);
        let g = &mut self.g;
        // the raw key | zeros, written into the indexer cache (cpy_k)
        let k_raw = g.op(hs * t * F32, &[w_k, x]);
        let zero = g.leaf(hs * t * F32);
        let zero = g.inplace(hs * t * F32, &[zero]); // fill
        let packed = g.op(2 * hs * t * F32, &[k_raw, zero]);
        let packed = g.view(packed);
        g.external(&[packed, inp.k_idx], Some(dev));
        let keys = pooled_keys(g, inp, (hs, w_kn), dev);
        let qb = hs * nh * t * F32;
        let q = g.op(qb, &[w_q, x]);
        let q = g.inplace(qb, &[q]); // rms_norm of the reshape
        let q = g.inplace(qb, &[q, w_qn]);
        let q = g.inplace(qb, &[q, pos]); // rope_multi
        let w = g.leaf(nh * t * F32);
        let w = g.inplace(nh * t * F32, &[w]); // fill 1/sqrt(head size)
        let score = g.op(n_pool * t * F32, &[q, keys, w, inp.pool_mask]);
        let top = g.op(n_top * t * 4, &[score]);
        let tv = g.view(top);
        let sel = g.op(inp.shape.kpool * n_top * t * 4, &[inp.pool_idxs, tv]); // get_rows
        let sel = g.view(sel);
        let sel_idx = g.op(inp.shape.n_sel * t * 4, &[sel, inp.tail_idxs]); // concat
        let el = (g.bytes(mask) / (n_kv * t).max(1)).max(1);
        Some(QsaMask {
            score,
            top_k: top,
            sel_idx,
            inputs: inp,
            mask,
            el,
            n_kv,
            shape: [n_top, t],
        })
    }
}
