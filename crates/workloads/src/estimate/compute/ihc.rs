//! hy_v4's hyper-connections (iHC) as b11434 builds them (models/hy-v4.cpp `graph::graph`,
//! `build_hc_pre`, `build_hc_post`, `build_hc_head`, `hy_v4_hc_reduce`), with plain ops: the
//! same four streams as glm5-next's mHC (`mhc.rs`) but no Sinkhorn comb, every reduce and post
//! done on F32 copies (`ggml_cast` copies even an F32 tensor), the post's streams joined by
//! `ggml_concat`, and a learned head (hc_head_fn) collapsing the streams before the output norm.

use super::super::galloc::{Graph, Id};
use super::builder::Builder;
use super::F32;

/// The coefficients of one hc_pre: `mixes` view × scale + base, sigmoid, then the scales
/// (`extra`: hc_magnitude's scale before the eps bias) — each a small [hc, n_tokens] tensor.
pub(super) fn coefficients(
    g: &mut Graph,
    mixes: Id,
    [scale, base]: [Id; 2],
    bytes: u64,
    extra: bool,
) -> Id {
    let v = g.view(mixes);
    let c = g.op(bytes, &[v, scale]);
    let c = g.inplace(bytes, &[c, base]);
    let c = g.inplace(bytes, &[c]); // sigmoid
    let c = if extra { g.inplace(bytes, &[c]) } else { c };
    g.inplace(bytes, &[c]) // scale_bias
}

/// `hy_v4_hc_reduce`: the streams' F32 copy `x32` (written before the coefficients: the
/// reduce's first MUL reads it first), each stream weighted by its coefficient and summed, cast
/// back ([n_embd, n_tokens]).
fn reduce(g: &mut Graph, x32: Id, w: Id, hc: u64, row: u64) -> Id {
    let mut acc: Option<Id> = None;
    for _ in 0..hc {
        let xh = g.view(x32);
        let wh = g.view(w);
        let cur = g.op(row, &[xh, wh]);
        acc = Some(match acc {
            Some(a) => g.inplace(row, &[a, cur]),
            None => cur,
        });
    }
    let acc = acc.unwrap_or(x32);
    g.op(row, &[acc])
}

impl Builder<'_> {
    /// The sigmoid output gate of hy_v4's and dots3note's MLA, on the layer's normed input `x`,
    /// before `wo`: one per element in hy_v4 (models/hy-v4.cpp `build_attention`), one per
    /// head in dots3note (models/dots3note.cpp: `attn_gate` is [n_embd, n_head], broadcast over
    /// each head). The gated MUL runs in place on the attention's copy (its reshape is the
    /// copy's only view then, at its start). `o` unchanged for other models.
    pub(super) fn mla_gate(&mut self, il: usize, x: Id, o: Id) -> Id {
        let name = format!("blk.{il}.attn_gate.weight");
        let head_wise = match self.p.arch.as_str() {
            "hy_v4" => false,
            "dots3note" => true,
            _ => return o,
        };
        if !self.tensors.has(&name) {
            return o;
        }
        // [n_head * value_length_mla, tokens]: the decompressed heads (value_length is the latent).
        let l = &self.layers[il];
        let key = format!("{}.attention.value_length_mla", self.p.arch);
        let v_mla = self.model.get(&key).and_then(|v| v.as_u64());
        let bytes = l.n_head * v_mla.unwrap_or(l.head_v) * self.cur_t * F32;
        if head_wise {
            let rows = l.n_head * self.cur_t * F32;
            let w = self.weight(Some(il), "attn_gate.weight");
            let gate = self.g.op(rows, &[w, x]);
            let gate = self.g.inplace(rows, &[gate]); // sigmoid
            return self.g.inplace(bytes, &[o, gate]);
        }
        // build_hc_post's residual copy is visited before the gate (`ihc_residual_copy`).
        self.ihc_residual_copy();
        let w = self.weight(Some(il), "attn_gate.weight");
        let gate = self.g.op(bytes, &[w, x]);
        let gate = self.g.inplace(bytes, &[gate]);
        self.g.inplace(bytes, &[o, gate])
    }

    /// `build_hc_pre`: the block's input stream and the mixes. The post coefficients are built
    /// here but first read by `build_hc_post`, so ggml's graph holds them there (`ihc_post`).
    pub(super) fn ihc_pre(&mut self, il: usize, x: Id, hc: u64, part: &str) -> (Id, Id) {
        let (t, et) = (self.cur_t, self.et());
        let [w_fn, scale, base] = self.hc_weights(il, part);
        let g = &mut self.g;
        let x32 = g.op(hc * et, &[x]);
        let flat = g.view(x);
        let normed = g.op(hc * et, &[flat]); // rms_norm
        let mixes = g.op(2 * hc * t * F32, &[w_fn, normed]);
        let pre = coefficients(g, mixes, [scale, base], hc * t * F32, false);
        (reduce(g, x32, pre, hc, et), mixes)
    }

    /// The F32 copy of the residual streams `build_hc_post` reads first: ggml's graph visits it
    /// before the rest of the block's tail (the attention's gate and `wo`, or the whole FFN
    /// block, which nothing expanded earlier), so it is held through them. Written once.
    pub(super) fn ihc_residual_copy(&mut self) {
        if let Some((res, None)) = self.ihc_residual {
            let bytes = self.g.bytes(res);
            let copy = self.g.op(bytes, &[res]);
            self.ihc_residual = Some((res, Some(copy)));
        }
    }

    /// `build_hc_post`: F32 copies of the block output, the coefficients and the residual; each
    /// stream's residual plus the weighted output, joined by concat, cast back.
    pub(super) fn ihc_post(
        &mut self,
        out: Id,
        residual: Id,
        mixes: Id,
        (il, part, hc): (usize, &str, u64),
    ) -> Id {
        let (t, et) = (self.cur_t, self.et());
        let r32 = match self.ihc_residual.take() {
            Some((res, Some(copy))) if res == residual => copy,
            _ => self.g.op(hc * et, &[residual]),
        };
        let [scale, base] = self.weights(
            il,
            [
                &format!("hc_{part}_scale.weight"),
                &format!("hc_{part}_base.weight"),
            ],
        );
        let g = &mut self.g;
        let x32 = g.op(et, &[out]);
        let post = coefficients(g, mixes, [scale, base], hc * t * F32, true);
        let p32 = g.op(hc * t * F32, &[post]);
        let mut joined: Option<Id> = None;
        for i in 0..hc {
            let ri = g.view(r32);
            let pi = g.view(p32);
            let m = g.op(et, &[x32, pi]);
            let cur = g.inplace(et, &[ri, m]);
            let cur = g.view(cur);
            joined = Some(match joined {
                Some(j) => g.op((i + 1) * et, &[j, cur]),
                None => cur,
            });
        }
        let joined = joined.unwrap_or(r32);
        g.op(hc * et, &[joined])
    }

    /// `build_hc_head` on the output rows: the streams collapsed by hc_head_fn's coefficients.
    pub(super) fn ihc_head(&mut self, x: Id, hc: u64) -> Id {
        let (t, et) = (self.cur_t, self.et());
        let w_fn = self.weight(None, "hc_head_fn.weight");
        let scale = self.weight(None, "hc_head_scale.weight");
        let base = self.weight(None, "hc_head_base.weight");
        let g = &mut self.g;
        let x32 = g.op(hc * et, &[x]);
        let flat = g.view(x);
        let normed = g.op(hc * et, &[flat]);
        let mixes = g.op(hc * t * F32, &[w_fn, normed]);
        let pre = g.op(hc * t * F32, &[mixes, scale]);
        let pre = g.inplace(hc * t * F32, &[pre, base]);
        let pre = g.inplace(hc * t * F32, &[pre]); // sigmoid
        let pre = g.inplace(hc * t * F32, &[pre]); // scale_bias
        reduce(g, x32, pre, hc, et)
    }
}
