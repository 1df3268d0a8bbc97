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
use super::ffn::{ffn, moe, Glu};
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
        let Some(hc) = self.mhc().map(|m| m.0).or(self.qhc().map(|q| q.0)) else {
            return x;
        };
        // qwen4exp's PLE rows, gathered on the host before hc_init (qple.rs)
        self.qple_rows();
        let v = self.g.view(x);
        self.g.op(hc * self.et(), &[v])
    }

    /// `build_hc_pre` (fused): returns the block's input stream, `post` and `comb`.
    fn mhc_pre(&mut self, il: usize, x: Id, hc: u64, part: &str) -> (Id, Id, Id) {
        let t = self.cur_t;
        let et = self.et();
        let mix = (2 + hc) * hc;
        let [w_fn, scale, base] = self.hc_weights(il, part);
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
    /// MLA), hc_post; hc_pre, the FFN (with ffn_norm), hc_post; hy_v4's and qwen4exp's alike.
    /// `None` without hyper-connections.
    pub(super) fn mhc_layer(&mut self, il: usize, x: Id) -> Option<Id> {
        let Some((hc, fused)) = self.mhc() else {
            return self.qhc_layer(il, x); // qwen4exp's (below)
        };
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
        if let Some(head) = self.qhc_head(x) {
            return head;
        }
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

/// qwen4exp's hyper-connections (models/qwen4exp.cpp `graph::graph`, `build_hc_mix`,
/// `build_hc_combine`): the same hc streams, but a low-rank gate (hc_*_down, SiLU, hc_*_up)
/// mixes them with the fused `ggml_dsv4_hc_pre_gated` into the block's input, and the block's
/// output goes back through `ggml_dsv4_hc_post` weighted by 2·sigmoid(hc_*_inject · xn / hc).
/// The normed streams `xn` stay alive through the block: the injection reads them only when
/// the combine is expanded. No layer norms, no output norm (the final mixer, unfused, is it).
impl Builder<'_> {
    /// The stream count and the gate's rank of a qwen4exp graph (`None`: another architecture
    /// or a header out of bounds).
    pub(super) fn qhc(&self) -> Option<(u64, u64)> {
        if self.p.arch != "qwen4exp" {
            return None;
        }
        let get = |k: &str| {
            let key = format!("qwen4exp.hyper_connection.{k}");
            self.model.get(&key).and_then(|v| v.as_u64())
        };
        let hc = get("count").filter(|&h| h > 1 && h <= 64)?;
        let lr = get("low_rank").filter(|&r| r > 0 && r <= 1 << 20)?;
        Some((hc, lr))
    }

    /// `build_hc_mix`: the grouped RMS norm and the low-rank gate, then the streams' gated
    /// mean (fused in a layer; with plain ops for the final mixer, `il` < 0). Returns the mixed
    /// stream and the normed streams the injection reads.
    fn qhc_mix(&mut self, il: Option<usize>, x: Id, (hc, lr): (u64, u64), part: &str) -> (Id, Id) {
        let (t, et) = (self.cur_t, self.et());
        let names = match il {
            Some(_) => ["norm", "down", "up"].map(|n| format!("hc_{part}_{n}.weight")),
            None => ["norm", "down", "up"].map(|n| format!("output_hc_{n}.weight")),
        };
        let [w_norm, w_down, w_up] = names.map(|n| self.weight(il, &n));
        let g = &mut self.g;
        let n = g.inplace(hc * et, &[x]); // rms_norm
                                          // reshape_2d: its readers read the product itself (the head's gate multiplies in place
                                          // on it, ggml-alloc reusing a view's source)
        let xn = g.inplace(hc * et, &[n, w_norm]);
        let lo = g.op(lr * t * F32, &[w_down, xn]);
        let lo = g.inplace(lr * t * F32, &[lo]); // scale
        let lo = g.inplace(lr * t * F32, &[lo]); // silu
        let gate = g.op(hc * et, &[w_up, lo]);
        if il.is_some() {
            let (xv, gv) = (g.view(xn), g.view(gate));
            return (g.op(et, &[xv, gv]), xn); // dsv4_hc_pre_gated
        }
        let s = g.inplace(hc * et, &[gate]); // sigmoid
        let gated = g.inplace(hc * et, &[xn, s]);
        let gated = g.view(gated);
        let first = g.view(gated);
        let mut mixed = g.op(et, &[first]); // cont of the first stream
        for _ in 1..hc {
            let s = g.view(gated);
            mixed = g.inplace(et, &[mixed, s]);
        }
        (g.inplace(et, &[mixed]), xn) // scale by 1/hc
    }

    /// `build_hc_combine` (fused): the injection weights from `xn`, then `ggml_dsv4_hc_post`.
    /// On the last layer, the output rows of the block, the residual and the injection are
    /// gathered first.
    fn qhc_combine(&mut self, il: usize, (res, out, xn): (Id, Id, Id), hc: u64, part: &str) -> Id {
        let w_inject = self.weight(Some(il), &format!("hc_{part}_inject.weight"));
        let (t, et) = (self.cur_t, self.et());
        let g = &mut self.g;
        let inject = g.op(hc * t * F32, &[w_inject, xn]);
        let w = g.inplace(hc * t * F32, &[inject]); // scale
        let w = g.inplace(hc * t * F32, &[w]); // sigmoid
        let w = g.inplace(hc * t * F32, &[w]); // scale by 2
        g.op(hc * et, &[out, res, w]) // dsv4_hc_post
    }

    /// One qwen4exp layer: the mixer between its streams' mix and combine, then the MoE
    /// between the FFN's. `None` for another architecture.
    pub(super) fn qhc_layer(&mut self, il: usize, x: Id) -> Option<Id> {
        let (hc, lr) = self.qhc()?;
        let x = self.qple_layer(il, x, hc);
        let (cur, xn) = self.qhc_mix(Some(il), x, (hc, lr), "attn");
        let out = if self.layers[il].recurrent {
            self.recurrent(il, cur)
        } else {
            self.attention(il, cur)
        };
        let x = if il + 1 == self.layers.len() {
            self.qhc_last_combine(il, (x, out, xn), hc)
        } else {
            self.qhc_combine(il, (x, out, xn), hc, "attn")
        };
        let (cur, xn) = self.qhc_mix(Some(il), x, (hc, lr), "ffn");
        let out = self.qwen4exp_ffn(il, cur);
        Some(self.qhc_combine(il, (x, out, xn), hc, "ffn"))
    }

    /// The last layer's attention combine: the block output's and the residual's output rows
    /// gathered, the injection projected over every token and its output rows gathered, then
    /// the combine on the output rows (`inp_out_ids`, before `build_hc_combine`).
    fn qhc_last_combine(&mut self, il: usize, (res, out, xn): (Id, Id, Id), hc: u64) -> Id {
        let (t, n_out, ids) = (self.cur_t, self.n_outputs, self.inputs.out_ids);
        let row = self.p.n_embd * n_out * F32;
        let w_inject = self.weight(Some(il), "hc_attn_inject.weight");
        let g = &mut self.g;
        let out = g.op(row, &[out, ids]); // get_rows
        let rv = g.view(res);
        let res = g.op(hc * row, &[rv, ids]);
        let res = g.view(res);
        let inject = g.op(hc * t * F32, &[w_inject, xn]);
        let inject = g.op(hc * n_out * F32, &[inject, ids]);
        self.cur_t = n_out;
        self.g.rows = n_out;
        let bytes = hc * n_out * F32;
        let g = &mut self.g;
        let w = g.inplace(bytes, &[inject]); // scale
        let w = g.inplace(bytes, &[w]); // sigmoid
        let w = g.inplace(bytes, &[w]); // scale by 2
        g.op(hc * row, &[out, res, w])
    }

    /// After the last layer: the final mixer (`build_hc_mix` with il = -1, unfused), which is
    /// the output norm (`result_norm`).
    pub(super) fn qhc_head(&mut self, x: Id) -> Option<Id> {
        let q = self.qhc()?;
        Some(self.qhc_mix(None, x, q, "head").0)
    }
}

impl Builder<'_> {
    /// qwen4exp's `build_layer_ffn`: the routed experts on the mixed stream (no FFN norm),
    /// and the shared expert scaled by its own sigmoid gate (ffn_gate_inp_shexp, one value per
    /// token) before the sum.
    fn qwen4exp_ffn(&mut self, il: usize, x: Id) -> Id {
        let layers = self.layers;
        let l = &layers[il];
        let (e, t, et) = (self.p.n_embd, self.cur_t, self.et());
        let Some(shape) = l.moe else {
            let ws = self.weights(il, ["ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"]);
            return ffn(&mut self.g, e, x, t, l.n_ff, l.glu, ws);
        };
        // moe() leaves out the weights' normalisation (sum, clamp, divide: n_used floats a token)
        self.approximate("recipe-approx-moe-routing");
        let ws = self.moe_weights(il);
        let out = moe(&mut self.g, e, x, t, shape, ws, [None; 4]);
        if l.shared_ff == 0 {
            return out;
        }
        let names = [
            "ffn_gate_shexp.weight",
            "ffn_up_shexp.weight",
            "ffn_down_shexp.weight",
        ];
        let ws = self.weights(il, names);
        let s = ffn(&mut self.g, e, x, t, l.shared_ff, Glu::Gate, ws);
        let w_gate = self.weight(Some(il), "ffn_gate_inp_shexp.weight");
        let g = &mut self.g;
        let gate = g.op(t * F32, &[w_gate, x]);
        let gate = g.inplace(t * F32, &[gate]); // sigmoid
        let s = g.inplace(et, &[s, gate]);
        g.inplace(et, &[out, s])
    }
}
