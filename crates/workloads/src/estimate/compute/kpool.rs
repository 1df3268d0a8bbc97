//! glm5-next's nope-only MLA layers and their k-pool DSA indexer as b11434 builds a prompt batch
//! (models/glm5-next.cpp `build_dsa_layer`, `build_kpool_select`, `build_inp_kpool`). The reserve
//! walks a full context (`llama_memory_hybrid_idx_context`'s constructor): every pool of every
//! sequence is "new", so the graph re-pools `n_pool_real = cells / kpool × n_seq_max` pools and
//! scores `kpool_pad(n_pool_real)` pooled keys per token (the largest tensor, [n_pool, n_tokens]
//! F32). Full-indexer layers write their key | gate | zero row into the indexer cache, pool the
//! keys (softmax of gate + APE over each pool), score the pooled keys with the fused lightning
//! indexer, order the top pools, gather their member cells from `pool_idxs` (with the tail
//! cells) and scatter zeros at them into a -inf mask `n_kv + n_sel` wide, plus the causal mask;
//! shared layers reuse the last full layer's mask. Small batches (n_ubatch ≤ 16) take the
//! gather path instead: not replayed (said approximate).

use super::super::galloc::{Graph, Id};
use super::builder::Builder;
use super::indexer_inputs::{KpoolInputs, KpoolShape};
use super::F32;

impl Builder<'_> {
    fn kpool_key(&self, k: &str) -> Option<u64> {
        let name = format!("{}.attention.indexer.{k}", self.p.arch);
        self.model.get(&name).and_then(|v| v.as_u64())
    }

    /// The k-pool inputs, in `build_inp_kpool`'s order, when glm5-next's scatter path runs;
    /// said approximate where a header's sizes keep it from the replay.
    pub(super) fn kpool_inputs(&mut self) -> Option<KpoolInputs> {
        if self.p.arch != "glm5-next" {
            return None;
        }
        let inputs = self.kpool_inputs_bounded();
        if inputs.is_none() {
            self.approximate("recipe-approx-glm5-next-k-pool");
        }
        inputs
    }

    fn kpool_inputs_bounded(&mut self) -> Option<KpoolInputs> {
        let ix = self.p.indexer.as_ref()?;
        let kpool = self.kpool_key("kpool").filter(|&k| k > 1)?;
        let top_k = self.kpool_key("top_k").unwrap_or(0);
        let tail = self
            .model
            .get(&format!(
                "{}.attention.indexer.kpool_select_tail",
                self.p.arch
            ))
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        let t = self.cur_t;
        // The gather path (small ubatches, see build_inp_kpool) is not replayed.
        if self.r.n_ubatch <= 16 && self.r.n_ctx > top_k.saturating_add(kpool - 1) {
            self.approximate("recipe-approx-glm5-next-gathered-sparse");
        }
        let r = self.r;
        let shape = KpoolShape::at_reserve(
            (r.cells_full, r.n_seq, t),
            (kpool, top_k, tail),
            ix.head_size,
        )?;
        let KpoolShape {
            n_pool,
            n_new,
            n_sel,
            ..
        } = shape;
        // build_inp_kpool's order
        let g = &mut self.g;
        Some(KpoolInputs {
            k_idx: g.input(t * 8),
            pool_cells: g.input(n_pool * 4),
            pool_idxs: g.input(kpool * n_pool * 4),
            // F16 whatever -fa says: the fused indexer reads an F16 mask.
            pool_mask: g.input(n_pool * t * 2),
            tail_idxs: g.input((kpool - 1) * t * 4),
            extra: g.input(n_sel * t * F32), // gather_mask
            new_pool_idxs: g.input(kpool * n_new * 4),
            new_pool_rep: g.input(n_new * 8),
            shape,
        })
    }

    /// A glm5-next MLA layer through the attention output (before `wo`), `build_dsa_layer`'s
    /// scatter path; `None` for other models.
    pub(super) fn kpool_mla(
        &mut self,
        il: usize,
        x: Id,
        (k_cache, cache_be): (Id, u8),
        (k_idx, mask): (Option<Id>, Id),
    ) -> Option<Id> {
        // qwen4exp's QSA layers read the same inputs (qsa.rs)
        let inp = self.inputs.kpool.filter(|_| self.p.arch == "glm5-next")?;
        let ix = self.p.indexer.as_ref()?;
        let full = ix.layers.get(il).copied().unwrap_or(false);
        let arch = self.p.arch.as_str();
        let key = |k: &str| {
            let name = format!("{arch}.{k}");
            self.model.get(&name).and_then(|v| v.as_u64())
        };
        let l = &self.layers[il];
        let (h, t) = (l.n_head, self.cur_t);
        let k_mla = key("attention.key_length_mla").unwrap_or(l.head_k);
        let v_mla = key("attention.value_length_mla").unwrap_or(l.head_v);
        let kv_lora = key("attention.kv_lora_rank").unwrap_or(l.head_k);
        let [wq_b, wkv_a, wk_b, wv_b] = self.weights(
            il,
            [
                "attn_q_b.weight",
                "attn_kv_a_mqa.weight",
                "attn_k_b.weight",
                "attn_v_b.weight",
            ],
        );
        let qr = self.q_latent(il, x);
        let q = self.g.op(h * k_mla * t * F32, &[wq_b, qr]);
        let kv = self.g.op(kv_lora * t * F32, &[wkv_a, x]);
        let kv = self.g.inplace(kv_lora * t * F32, &[kv]); // rms_norm
        let w_kv_n = self.weight(Some(il), "attn_kv_a_norm.weight");
        let kv = self.g.inplace(kv_lora * t * F32, &[kv, w_kv_n]);
        let qp = self.g.view(q);
        let q_abs = self.g.op(h * kv_lora * t * F32, &[wk_b, qp]);
        let q_abs = self.g.view(q_abs);
        let sel = if full {
            let ws = self.weights(
                il,
                [
                    "indexer.attn_q_b.weight",
                    "indexer.attn_k.weight",
                    "indexer.k_norm.weight",
                    "indexer.k_norm.bias",
                    "indexer.kpool_gate.weight",
                    "indexer.kpool_ape.weight",
                    "indexer.proj.weight",
                ],
            );
            let dev = self.kv_device(il);
            let sel = kpool_select(
                &mut self.g,
                (x, qr, mask),
                ws,
                &inp,
                (ix.n_head, ix.head_size, t, self.r.cells_full),
                dev,
            );
            self.dsa_top_k = Some(sel);
            sel
        } else {
            self.dsa_top_k.unwrap_or(mask)
        };
        let kvv = self.g.view(kv);
        match k_idx {
            Some(i) => self.g.external(&[kvv, i], Some(cache_be)),
            None => self.g.external(&[kvv], Some(cache_be)),
        };
        Some(self.latent_attention((h, kv_lora, v_mla), q_abs, k_cache, sel, wv_b))
    }

    /// `build_attn_mha` over the latent cache with the sparse mask, `wv_b` decompressing it.
    fn latent_attention(
        &mut self,
        (h, kv_lora, v_mla): (u64, u64, u64),
        q_abs: Id,
        k_cache: Id,
        sel: Id,
        wv_b: Id,
    ) -> Id {
        let (t, n_kv) = (self.cur_t, self.r.cells_full);
        let g = &mut self.g;
        let qv = g.view(q_abs);
        let qv = g.view(qv);
        let lat = if self.r.fa {
            let o = g.op(h * kv_lora * t * F32, &[qv, k_cache, sel]);
            g.view(o)
        } else {
            let kq = g.op(n_kv * t * h * F32, &[k_cache, qv]);
            let sm = g.inplace(n_kv * t * h * F32, &[kq, sel]);
            // The latent V is not transposed: made contiguous (F16 cache assumed).
            let v = g.op(n_kv * kv_lora * 2, &[k_cache]);
            g.op(kv_lora * t * h * F32, &[v, sm])
        };
        let dec = g.op(v_mla * h * t * F32, &[wv_b, lat]);
        let dp = g.view(dec);
        let c = g.op(v_mla * h * t * F32, &[dp]);
        g.view(c)
    }
}

/// `build_kpool_select`'s scatter path: returns the sparse mask ([n_kv, n_tokens], the causal
/// mask's type) the layer's attention reads.
fn kpool_select(
    g: &mut Graph,
    (x, qr, mask): (Id, Id, Id),
    [w_q, w_k, n_w, n_b, w_gate, ape, w_proj]: [Id; 7],
    inp: &KpoolInputs,
    (nh, hs, t, n_kv): (u64, u64, u64, u64),
    dev: u8,
) -> Id {
    let KpoolShape {
        kpool,
        n_pool,
        n_top,
        n_sel,
        ..
    } = inp.shape;
    let row = hs * t * F32;
    let iq = g.op(hs * nh * t * F32, &[w_q, qr]);
    // The key (LayerNorm with bias) and the pool gate, cached with a zero pooled slot.
    let ik = g.op(row, &[w_k, x]);
    let ik = g.op(row, &[ik]); // ggml_norm: a new tensor
    let ik = g.inplace(row, &[ik, n_w]);
    let ik = g.inplace(row, &[ik, n_b]);
    let ig = g.op(row, &[w_gate, x]);
    let pz = g.leaf(row); // a leaf: placed before any node
    let pz = g.inplace(row, &[pz]); // filled with 0
    let kg = g.op(2 * row, &[ik, ig]);
    let packed = g.op(3 * row, &[kg, pz]);
    let packed = g.view(packed);
    g.external(&[packed, inp.k_idx], Some(dev));
    let cache = g.cache_view(0, dev);
    let pooled = pool_new_keys(g, (cache, ape), inp, hs, dev);
    // Scores of every pooled key, the top pools ordered by score, their member cells.
    let w = g.op(nh * t * F32, &[w_proj, x]);
    let w = g.inplace(nh * t * F32, &[w]); // scale
    let score = g.op(n_pool * t * F32, &[iq, pooled, w, inp.pool_mask]);
    let top = g.op(n_top * t * 4, &[score]);
    let sv = g.view(score);
    let sel_score = g.op(n_top * t * F32, &[sv, top]);
    let sv = g.view(sel_score);
    let order = g.op(n_top * t * 4, &[sv]); // argsort
    let topf = g.op(n_top * t * F32, &[top]); // cast
    let topf = g.view(topf);
    let topo = g.op(n_top * t * F32, &[topf, order]); // get_rows
    let topo = g.view(topo);
    let topo = g.op(n_top * t * F32, &[topo]); // cont
    let topi = g.op(n_top * t * 4, &[topo]); // cast
    let topi = g.view(topi);
    let idx = g.op(kpool * n_top * t * 4, &[inp.pool_idxs, topi]);
    let idx = g.view(idx);
    let sel_idx = if n_sel > kpool * n_top {
        g.op(n_sel * t * 4, &[idx, inp.tail_idxs])
    } else {
        idx
    };
    scatter_mask(g, (sel_idx, mask, inp.extra), (n_kv, n_sel, t))
}

/// The -inf mask n_kv + n_sel wide, zeros scattered at the selected cells (dead slots to their
/// own dump rows), then the causal mask added.
fn scatter_mask(
    g: &mut Graph,
    (sel_idx, mask, extra): (Id, Id, Id),
    (n_kv, n_sel, t): (u64, u64, u64),
) -> Id {
    let el = g.bytes(mask) / (n_kv * t).max(1);
    // Leaves (placed before any node), filled in place.
    let leaf = g.leaf((n_kv + n_sel) * el);
    let fill = g.inplace((n_kv + n_sel) * el, &[leaf]);
    let all = g.op((n_kv + n_sel) * t * el, &[fill]); // repeat
    let all = g.view(all);
    let zl = g.leaf(n_sel * el);
    let zf = g.inplace(n_sel * el, &[zl]);
    let zeros = g.op(n_sel * t * el, &[zf]);
    let zeros = g.view(zeros);
    let gm = g.view(extra); // gather_mask
    let live = g.op(n_sel * t * F32, &[gm]); // exp
    let dump = g.op(n_sel * F32, &[]); // arange
    let idx_f = g.op(n_sel * t * F32, &[sel_idx]); // cast
    let d = g.inplace(n_sel * t * F32, &[idx_f, dump]); // sub
    let d = g.inplace(n_sel * t * F32, &[d, live]); // mul
    let d = g.inplace(n_sel * t * F32, &[d, dump]); // add
    let si = g.op(n_sel * t * 4, &[d]); // cast
    let si = g.view(si);
    let set = g.set_rows(all, &[zeros, si]);
    let set = g.view(set);
    // Runs in place on the causal mask's copy (its only reader; ggml_gallocr_allocate_node
    // reuses a view parent): the reshape is left out so the replay's allocator sees the copy.
    g.inplace(n_kv * t * el, &[set, mask])
}

/// The pools this ubatch completes (every pool, at the reserve): their key | gate rows
/// gathered, each pool's keys weighted by the softmax of gate + APE and summed, scattered into
/// the pooled slots; then every pooled key gathered by cell ([head_size, n_pool] F32).
fn pool_new_keys(g: &mut Graph, (cache, ape): (Id, Id), inp: &KpoolInputs, hs: u64, dev: u8) -> Id {
    let KpoolShape {
        kpool,
        n_pool,
        n_new,
        ..
    } = inp.shape;
    // Pool the new pools: key | gate rows gathered, softmax over each pool of gate + APE.
    let pooled_bytes = hs * kpool * n_new * F32;
    let rows = g.op(2 * pooled_bytes, &[cache, inp.new_pool_idxs]);
    let pg = g.view(rows);
    let logits = g.op(pooled_bytes, &[pg, ape]);
    let lp = g.view(logits);
    let logits = g.op(pooled_bytes, &[lp]); // cont(permute)
    let lr = g.view(logits);
    let probs = g.inplace(pooled_bytes, &[lr]); // soft_max
    let probs = g.view(probs);
    let pk = g.view(rows);
    let pk = g.op(pooled_bytes, &[pk]); // cont(permute)
    let m = g.inplace(pooled_bytes, &[probs, pk]);
    let pooled_new = g.op(hs * n_new * F32, &[m]); // sum_rows
    let pn = g.view(pooled_new);
    g.external(&[pn, inp.new_pool_rep], Some(dev));
    let cache = g.cache_view(0, dev);
    let pooled = g.op(hs * n_pool * F32, &[cache, inp.pool_cells]);
    g.view(pooled)
}
