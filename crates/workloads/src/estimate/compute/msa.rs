//! MiniMax-M3's sparse attention (MSA) as b11434 builds a prompt batch (models/minimax-m3.cpp,
//! `msa_enabled`: flash attention on and one sequence or one stream per sequence; otherwise every
//! layer runs dense attention, which the standard replay writes). Per sparse layer: the indexer
//! key written into the indexer cache (expanded first), Q/K/V written and stored, then per
//! stream the block scores of the indexer keys gathered by position ([n_ps, Hd, n_tokens]), their
//! max per block, the top-k blocks, the block mask expanded to every cell
//! ([Hd × n_tokens, n_kv] F32, gathered then transposed: the largest tensors), added to an F32
//! copy of the causal mask (made once, at the first sparse layer) and cast to F16 for one flash
//! attention over every GQA group.

use super::super::galloc::{Graph, Id};
use super::super::indexer::IndexerKind;
use super::builder::Builder;
use super::indexer_inputs::MsaInputs;
use super::F32;

/// One sparse layer's core: what it reads besides the layer's Q view.
pub(super) struct MsaLayer {
    x: Id,
    pos: Id,
    /// `indexer.q_proj`, `indexer.q_norm`, the indexer cache.
    iq: [Id; 3],
    mask: Id,
    inp: MsaInputs,
    /// Indexer heads (one per KV head), indexer key width, head size, query heads, cells.
    dims: [u64; 5],
}

impl MsaLayer {
    /// The attention of one sparse layer up to `wo` (the per-stream loop); `q` is the stored
    /// layer's Q. Returns the output and the F32 mask copy, for later layers.
    pub(super) fn build(&self, g: &mut Graph, q: Id, t: u64) -> (Id, Option<Id>) {
        let [hd, hs, d, hq, n_kv] = self.dims;
        let [n_ps, nblk, k, ns] = self.inp.shape;
        let tps = t / ns.max(1);
        let mut mf = self.inp.mask_f32;
        let mut outs = Vec::new();
        for _ in 0..ns.max(1) {
            // Block scores: indexer keys gathered by position, times the indexer queries.
            let ikp = g.op(hs * n_ps * F32, &[self.iq[2], self.inp.pos_slot]);
            let iq = g.op(hs * hd * t * F32, &[self.iq[0], self.x]);
            let iq = g.view(iq);
            let iq = g.inplace(hs * hd * t * F32, &[iq]);
            let iq = g.inplace(hs * hd * t * F32, &[iq, self.iq[1]]);
            let iq = g.inplace(hs * hd * t * F32, &[iq, self.pos]);
            let iq_s = g.view(iq);
            let sc = g.op(n_ps * hd * tps * F32, &[ikp, iq_s]);
            let sc = g.set_rows(sc, &[self.inp.pos_mask]); // add_inplace: a view that runs
            let bs = g.op(nblk * hd * tps * F32, &[sc]); // max pool per block
            let bsf = g.inplace(nblk * hd * tps * F32, &[bs, self.inp.bias]);
            let idx = g.op(k * hd * tps * 4, &[bsf]);
            let zero = g.op(k * hd * tps * F32, &[idx]); // cast to F32
            let zero = g.inplace(k * hd * tps * F32, &[zero]); // scale by 0
                                                               // The -inf rows, repeated per head, with the top-k blocks set to 0.
            let ninf = g.op(nblk * tps * F32, &[self.inp.bias]);
            let ninf = g.op(nblk * tps * 2, &[ninf]);
            let ninf = g.op(nblk * hd * tps * 2, &[ninf]);
            let ninf = g.view(ninf);
            let bm = g.set_rows(ninf, &[zero, idx]);
            let bm = g.view(bm);
            let bm = g.op(nblk * hd * tps * 2, &[bm]); // cont(permute)
            let bm = g.view(bm);
            let bm2 = g.op(nblk * hd * tps * 2, &[bm]); // cont(transpose)
                                                        // Block → cell: gathered per cell (F32), transposed back, plus the F32 mask.
            let bmc = g.op(hd * tps * n_kv * F32, &[bm2, self.inp.cell_blk]);
            let bmc = g.view(bmc);
            let bmx = g.op(hd * tps * n_kv * F32, &[bmc]);
            let bmx = g.view(bmx);
            let f32_bytes = g.bytes(self.mask) * 2;
            let m = *mf.get_or_insert_with(|| g.op(f32_bytes, &[self.mask]));
            let mf_s = g.view(m);
            let m4 = g.set_rows(bmx, &[mf_s]); // add_inplace
            let m4 = g.view(m4);
            let m4 = g.op(n_kv * tps * hd * 2, &[m4]); // cast to F16
            let q_s = g.view(q);
            let q_s = g.view(q_s);
            let o = g.op(d * hq * tps * F32, &[q_s, m4]);
            let o = g.view(o);
            let o = g.op(d * hq * tps * F32, &[o]); // cont
            outs.push(g.view(o));
        }
        let mut cur = outs[0];
        for &o in &outs[1..] {
            let bytes = g.bytes(cur) + d * hq * tps * F32;
            cur = g.op(bytes, &[cur, o]);
        }
        (cur, mf)
    }
}

impl Builder<'_> {
    /// MSA runs: flash attention, and one sequence or a stream per sequence.
    fn msa_enabled(&self) -> bool {
        let msa = self.p.indexer.as_ref().map(|ix| ix.kind) == Some(IndexerKind::Msa);
        msa && self.r.fa && (self.n_seq == 1 || !self.r.unified)
    }

    /// The MSA inputs, when the model runs MSA (a prompt batch: more than one token per stream).
    pub(super) fn msa_inputs(&mut self) -> Option<MsaInputs> {
        if !self.msa_enabled() {
            return None;
        }
        let arch = self.p.arch.as_str();
        let key = |k: &str| {
            let name = format!("{arch}.attention.indexer.{k}");
            self.model.get(&name).and_then(|v| v.as_u64())
        };
        let blk = key("block_size").filter(|&b| b > 0)?;
        let top_k = key("top_k").unwrap_or(0);
        let ns = if self.r.unified { 1 } else { self.n_seq };
        let t = self.cur_t;
        // llama_kv_cache_msa_context::get_n_pos: the reserve's cache is empty, so 256 positions
        // (the padding's floor), in whole blocks.
        let n_ps = 256u64.div_ceil(blk) * blk;
        let nblk = n_ps / blk;
        let bias = self.g.input(nblk * t * F32);
        let pos_mask = self.g.input(n_ps * t * F32);
        let pos_slot = self.g.input(n_ps * ns * 4);
        let cell_blk = self.g.input(self.r.cells_full * ns * 4);
        let k_idx = self.g.input(t * 8);
        Some(MsaInputs {
            bias,
            pos_mask,
            pos_slot,
            cell_blk,
            k_idx,
            mask_f32: None,
            shape: [n_ps, nblk, top_k.min(nblk), ns],
        })
    }

    /// For a sparse layer: its indexer key written into the indexer cache (expanded before Q, K
    /// and V), and what its attention core reads; `None` for a dense layer.
    pub(super) fn msa_prelude(&mut self, il: usize, x: Id, pos: Id, mask: Id) -> Option<MsaLayer> {
        let inp = self.inputs.msa?;
        let ix = self.p.indexer.as_ref()?;
        if !ix.layers.get(il).copied().unwrap_or(false) {
            return None;
        }
        let (hd, hs, t) = (ix.n_head, ix.head_size, self.cur_t);
        let bytes = hs * t * F32;
        let [w_k, n_k, w_q, n_q] = self.weights(
            il,
            [
                "indexer.k_proj.weight",
                "indexer.k_norm.weight",
                "indexer.q_proj.weight",
                "indexer.q_norm.weight",
            ],
        );
        let k = self.g.op(bytes, &[w_k, x]);
        let k = self.g.view(k);
        let k = self.g.inplace(bytes, &[k]);
        let k = self.g.inplace(bytes, &[k, n_k]);
        let k = self.g.inplace(bytes, &[k, pos]);
        let kv = self.g.view(k);
        let dev = self.kv_device(il);
        self.g.external(&[kv, inp.k_idx], Some(dev));
        let cache = self.g.cache_view(0, dev);
        let l = &self.layers[il];
        Some(MsaLayer {
            x,
            pos,
            iq: [w_q, n_q, cache],
            mask,
            inp,
            dims: [hd, hs, l.head_k, l.n_head, self.r.cells_full],
        })
    }
}
