//! DeepSeek V4's compressors and its attentions over the compressed caches (models/
//! deepseek4.cpp `build_attention_impl`, `build_overlap_compressed_kv_from_state`,
//! `build_hca_compressed_kv_from_state`, `build_lid_top_k`, `build_top_k_mask`,
//! `build_csa_lid_attention`, `build_hca_attention`), in the order the graph expands them.
//!
//! A compressor projects the layer input to a KV row and a score row per token (the score
//! plus its position's `ape` row), joins them to the state it kept from the last ubatch,
//! gathers each block's rows (overlapping blocks of 2 × ratio rows for CSA and the indexer,
//! ratio rows for HCA), softmax-weights and sums them into one compressed row per block,
//! norms and ropes it and writes it into its cache; then keeps the last rows as the state.

use super::super::galloc::Id;
use super::builder::Builder;
use super::dsv4::{CompInputs, Inputs, Shape, CSA};
use super::F32;

/// One compressor's tensor names and widths.
struct Comp<'a> {
    /// `attn_compressor` or `indexer_compressor`.
    prefix: &'a str,
    /// Its state (the `dsv4` caches' name).
    state: &'a str,
    /// The compressed row's width (head or indexer key length).
    dim: u64,
    ratio: u64,
}

impl Builder<'_> {
    /// The layer's compressors: CSA's and the indexer's (ratio 4), or HCA's.
    pub(super) fn dsv4_compressors(
        &mut self,
        il: usize,
        x: Id,
        s: &Shape,
        main: Option<CompInputs>,
        lid: Option<CompInputs>,
    ) {
        let ratio = s.ratios.get(il).copied().unwrap_or(0);
        let state = if ratio == CSA {
            "csa state"
        } else {
            "hca state"
        };
        if let Some(ci) = main {
            let c = Comp {
                prefix: "attn_compressor",
                state,
                dim: s.head,
                ratio,
            };
            self.dsv4_compress(il, x, s, &c, ci);
        }
        if let Some(ci) = lid {
            let c = Comp {
                prefix: "indexer_compressor",
                state: "lid state",
                dim: s.idx_dim,
                ratio: CSA,
            };
            self.dsv4_compress(il, x, s, &c, ci);
        }
    }

    /// One compressor: the blocks compressed and written, then the state persisted.
    fn dsv4_compress(&mut self, il: usize, x: Id, s: &Shape, c: &Comp, ci: CompInputs) {
        let t = self.cur_t;
        let overlap = c.ratio == CSA;
        let width = if overlap { 2 * c.dim } else { c.dim };
        let p = c.prefix;
        let [w_kv, w_gate, ape] = self.weights(
            il,
            [
                &format!("{p}_kv.weight"),
                &format!("{p}_gate.weight"),
                &format!("{p}_ape.weight"),
            ],
        );
        let st_kv = self.g.op(width * t * F32, &[w_kv, x]);
        let values = self.dsv4_blocks(il, st_kv, s, c, ci);
        let st_sc = self.g.op(width * t * F32, &[w_gate, x]);
        let ape_rows = self.g.get_rows(width * t * F32, &[ape, ci.pos]);
        let st_sc = self.g.inplace(width * t * F32, &[st_sc, ape_rows]);
        let scores = self.dsv4_blocks(il, st_sc, s, c, ci);
        let nb = s.blocks(t, c.ratio);
        let vb = self.g.bytes(values);
        let g = &mut self.g;
        let w = g.inplace(vb, &[scores]); // soft_max
        let prod = g.inplace(vb, &[values, w]);
        let sum = g.op(nb * c.dim * F32, &[prod]);
        let sv = g.view(sum);
        let comp = g.op(nb * c.dim * F32, &[sv]);
        let comp = self.norm(il, comp, &format!("{p}_norm.weight"));
        let mut comp = self.g.inplace(nb * c.dim * F32, &[comp, ci.write_pos]); // rope
        if let Some(r) = ci.k_rot {
            comp = self.g.op(nb * c.dim * F32, &[r, comp]);
        }
        let be = self.kv_device(il);
        let cv = self.g.view(comp);
        self.g.external(&[cv, ci.write_idx], Some(be));
        // The state kept for the next ubatch: the last rows of each, written into it.
        let n_persist = t.min(Shape::state_rows(c.ratio) * s.streams);
        for src in [st_kv, st_sc] {
            let rows = self.g.op(n_persist * width * F32, &[src, ci.persist[0]]);
            self.g.external(&[rows, ci.persist[1]], Some(be));
        }
    }

    /// The rows of every block from the state joined to this ubatch's rows, permuted to
    /// [rows, width, blocks] (`*_compressed_kv_from_state` up to the softmax).
    fn dsv4_blocks(&mut self, il: usize, cur: Id, s: &Shape, c: &Comp, ci: CompInputs) -> Id {
        let t = self.cur_t;
        let nb = s.blocks(t, c.ratio);
        let n_read = c.ratio * nb;
        let (state, sb) = self.dsv4_cache(il, c.state, true);
        let width = if c.ratio == CSA { 2 * c.dim } else { c.dim };
        let g = &mut self.g;
        let joined = g.op(sb + width * t * F32, &[state, cur]);
        if c.ratio != CSA {
            let rows = g.op(n_read * width * F32, &[joined, ci.read]);
            let rv = g.view(rows);
            return g.op(n_read * width * F32, &[rv]);
        }
        // dsv4_append_zero_row: a zeroed (or -inf) row after the rows, for missing ones.
        let row = g.view(joined);
        let zero = g.inplace(width * F32, &[row]);
        let zv = g.view(zero);
        let joined = g.op(sb + width * (t + 1) * F32, &[joined, zv]);
        let rows = g.op(2 * n_read * width * F32, &[joined, ci.read]);
        let (pv, cv) = (g.view(rows), g.view(rows));
        let prev = g.op(n_read * c.dim * F32, &[pv]);
        let cur = g.op(n_read * c.dim * F32, &[cv]);
        let both = g.op(2 * n_read * c.dim * F32, &[prev, cur]);
        let bv = g.view(both);
        g.op(2 * n_read * c.dim * F32, &[bv])
    }

    /// `build_csa_lid_attention`: the raw and CSA keys joined, the indexer's top-k mask over
    /// the CSA cells joined to the raw mask.
    pub(super) fn dsv4_csa_attend(
        &mut self,
        il: usize,
        (x, qr, q): (Id, Id, Id),
        s: &Shape,
        ins: &Inputs,
        (raw, raw_bytes): (Id, u64),
    ) -> Id {
        let (comp, cb) = self.dsv4_cache(il, "csa", false);
        let k_all = self.g.op(raw_bytes + cb, &[raw, comp]);
        let n_kv = s.cells[0] + s.cells[1];
        let mut mask = |b: &mut Self| b.dsv4_top_k_mask(il, (x, qr), s, ins);
        self.dsv4_attend(q, s, (k_all, raw_bytes + cb, n_kv), &mut mask)
    }

    /// `build_hca_attention`: the raw and HCA keys joined, their masks joined.
    pub(super) fn dsv4_hca_attend(
        &mut self,
        il: usize,
        q: Id,
        s: &Shape,
        ins: &Inputs,
        (raw, raw_bytes): (Id, u64),
    ) -> Id {
        let (comp, cb) = self.dsv4_cache(il, "hca", false);
        let k_all = self.g.op(raw_bytes + cb, &[raw, comp]);
        let n_kv = s.cells[0] + s.cells[2];
        let t = self.cur_t;
        let (raw_mask, hca_mask) = (ins.raw_mask, ins.hca_mask);
        let mut mask = |b: &mut Self| {
            let srcs: Vec<Id> = [Some(raw_mask), hca_mask].into_iter().flatten().collect();
            b.g.op(n_kv * t * s.mask_el, &srcs)
        };
        self.dsv4_attend(q, s, (k_all, raw_bytes + cb, n_kv), &mut mask)
    }

    /// `build_lid_top_k` then `build_top_k_mask`: zeros for the chosen cells, the indexer's
    /// scores over its cache and their top-k, the CSA mask filled with -inf and the chosen
    /// cells zeroed, joined to the raw mask.
    fn dsv4_top_k_mask(&mut self, il: usize, (x, qr): (Id, Id), s: &Shape, ins: &Inputs) -> Id {
        let t = self.cur_t;
        let (n_raw, n_csa) = (s.cells[0], s.cells[1]);
        let zeros = self.g.leaf(s.top_k * t * s.mask_el); // a leaf: placed before any node
        let zeros = self.g.inplace(s.top_k * t * s.mask_el, &[zeros]); // fill
        let [q_b, proj] = self.weights(il, ["indexer.attn_q_b.weight", "indexer.proj.weight"]);
        let qb = s.idx_heads * s.idx_dim * t * F32;
        let (lid_k, _) = self.dsv4_cache(il, "lid", false);
        let g = &mut self.g;
        let iq = g.op(qb, &[q_b, qr]);
        let iv = g.view(iq);
        let mut iq = g.inplace(qb, &[iv, ins.pos]); // rope
        if let Some(r) = ins.lid.and_then(|l| l.k_rot) {
            let v = g.view(iq);
            iq = g.op(qb, &[r, v]);
        }
        let w = g.op(s.idx_heads * t * F32, &[proj, x]);
        let w = g.inplace(s.idx_heads * t * F32, &[w]); // scale
        let (qv, wv) = (g.view(iq), g.view(w));
        let lid_mask = ins.lid_mask.unwrap_or(ins.raw_mask);
        let score = g.op(n_csa * t * F32, &[qv, lid_k, wv, lid_mask]);
        let top = g.op(s.top_k * t * 4, &[score]);
        let top = g.op(s.top_k * t * 4, &[top]); // cont
        let csa_mask = ins.csa_mask.unwrap_or(ins.raw_mask);
        let all = g.inplace(n_csa * t * s.mask_el, &[csa_mask]); // fill -inf
        let av = g.view(all);
        let tv = g.view(top);
        let set = g.set_rows(av, &[zeros, tv]);
        let sv = g.view(set);
        let sel = g.inplace(n_csa * t * s.mask_el, &[sv, csa_mask]);
        g.op((n_raw + n_csa) * t * s.mask_el, &[ins.raw_mask, sel])
    }
}
