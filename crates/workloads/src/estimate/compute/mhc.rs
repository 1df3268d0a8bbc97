//! The hyper-connection streams' layer loop (glm5-next's and hy_v4's) and glm5-next's manifold
//! hyper-connections (mHC) as b11434 builds them (models/glm5-next.cpp
//! `graph::graph`, `build_hc_pre`, `build_hc_post`, `build_hc_mean`, with the fused
//! `ggml_dsv4_hc_pre` / `_comb` / `_post` that llama_context enables where the backend runs them).
//! The hidden state is `hyper_connection.count` streams ([n_embd, hc, n_tokens]): around every
//! mixer and FFN, the streams are RMS-normed and projected to the mixing coefficients (pre, post
//! and the Sinkhorn comb), reduced to one stream for the block, and the block's output is mixed
//! back into hc streams. The output rows are selected after the last layer (not inside it) and
//! the streams averaged before the output norm.

use super::super::galloc::Id;
use super::builder::Builder;
use super::F32;

impl Builder<'_> {
    /// The stream count and whether it is glm5-next's fused mHC (else hy_v4's iHC, `ihc.rs`),
    /// when this graph keeps hyper-connection streams.
    fn mhc(&self) -> Option<(u64, bool)> {
        let fused = match self.p.arch.as_str() {
            "glm5-next" => true,
            "hy_v4" => false,
            _ => return None,
        };
        let key = format!("{}.hyper_connection.count", self.p.arch);
        self.model
            .get(&key)
            .and_then(|v| v.as_u64())
            .filter(|&hc| hc > 0 && hc <= 64)
            .map(|hc| (hc, fused))
    }

    /// `hc_init`: the embeddings repeated into hc streams (unchanged without mHC).
    pub(super) fn mhc_init(&mut self, x: Id) -> Id {
        let Some((hc, _)) = self.mhc() else {
            return x;
        };
        let v = self.g.view(x);
        self.g.op(hc * self.et(), &[v])
    }

    /// `build_hc_pre` (fused): returns the block's input stream, `post` and `comb`.
    fn mhc_pre(&mut self, il: usize, x: Id, hc: u64, part: &str) -> (Id, Id, Id) {
        let t = self.cur_t;
        let et = self.et();
        let mix = (2 + hc) * hc;
        let [w_fn, scale, base] = self.weights(
            il,
            [
                &format!("hc_{part}_fn.weight"),
                &format!("hc_{part}_scale.weight"),
                &format!("hc_{part}_base.weight"),
            ],
        );
        let g = &mut self.g;
        let flat = g.view(x);
        let normed = g.op(hc * et, &[flat]); // rms_norm
        let mixes = g.op(mix * t * F32, &[w_fn, normed]);
        let coef = |g: &mut super::super::galloc::Graph| {
            let v = g.view(mixes);
            let c = g.op(hc * t * F32, &[v, scale]);
            let c = g.inplace(hc * t * F32, &[c, base]);
            let c = g.inplace(hc * t * F32, &[c]); // sigmoid
            g.inplace(hc * t * F32, &[c]) // scale (and bias)
        };
        let pre = coef(g);
        let post = coef(g);
        let comb = g.op(hc * hc * t * F32, &[mixes, scale, base]);
        (g.op(et, &[x, pre]), post, comb)
    }

    /// One glm5-next layer with its hyper-connections: hc_pre, attn_norm, the mixer (KDA or
    /// MLA), hc_post; hc_pre, the FFN (with ffn_norm), hc_post. `None` without mHC.
    pub(super) fn mhc_layer(&mut self, il: usize, x: Id) -> Option<Id> {
        let (hc, fused) = self.mhc()?;
        let (cur, post, comb) = self.hc_pre(il, x, (hc, fused), "attn");
        if !fused {
            self.ihc_residual = Some((x, None));
        }
        let cur = self.norm(il, cur, "attn_norm.weight");
        let l = &self.layers[il];
        let out = if l.recurrent {
            self.recurrent(il, cur)
        } else {
            self.attention(il, cur)
        };
        let x = self.hc_post(out, x, (post, comb), (il, "attn", hc));
        if !fused {
            // The FFN's residual copy comes first (see `ihc_residual_copy`).
            self.ihc_residual = Some((x, None));
            self.ihc_residual_copy();
        }
        let (cur, post, comb) = self.hc_pre(il, x, (hc, fused), "ffn");
        let out = self.feed_forward(il, cur);
        Some(self.hc_post(out, x, (post, comb), (il, "ffn", hc)))
    }

    /// hc_pre of either kind: the block input, post and (mHC) comb.
    fn hc_pre(
        &mut self,
        il: usize,
        x: Id,
        (hc, fused): (u64, bool),
        part: &str,
    ) -> (Id, Id, Option<Id>) {
        if fused {
            let (cur, post, comb) = self.mhc_pre(il, x, hc, part);
            (cur, post, Some(comb))
        } else {
            let (cur, post) = self.ihc_pre(il, x, hc, part);
            (cur, post, None)
        }
    }

    /// hc_post of either kind: the block output mixed back into hc streams (iHC's `post` is
    /// the block's mixes, its coefficients written here).
    fn hc_post(
        &mut self,
        out: Id,
        x: Id,
        (post, comb): (Id, Option<Id>),
        (il, part, hc): (usize, &str, u64),
    ) -> Id {
        match comb {
            Some(comb) => {
                let bytes = hc * self.et();
                self.g.op(bytes, &[out, x, post, comb])
            }
            None => self.ihc_post(out, x, post, (il, part, hc)),
        }
    }

    /// After the last layer: the output rows of every stream, then their mean (unchanged
    /// without mHC).
    pub(super) fn mhc_head(&mut self, x: Id) -> Id {
        let Some((hc, fused)) = self.mhc() else {
            return x;
        };
        let n_out = self.n_outputs;
        let out_ids = self.inputs.out_ids;
        let row = self.p.n_embd * n_out * F32;
        let flat = self.g.view(x);
        let rows = self.g.op(hc * row, &[flat, out_ids]);
        self.cur_t = n_out;
        self.g.rows = n_out;
        let rows = self.g.view(rows);
        if !fused {
            return self.ihc_head(rows, hc);
        }
        let g = &mut self.g;
        let mut acc = g.op(row, &[rows]); // the first two streams added
        for _ in 2..hc {
            acc = g.inplace(row, &[acc]);
        }
        g.inplace(row, &[acc]) // scale by 1/hc
    }
}
