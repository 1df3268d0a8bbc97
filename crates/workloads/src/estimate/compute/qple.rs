//! qwen4exp's PLE n-gram embedding as b11434 builds it (models/qwen4exp.cpp `build_inp_ple`,
//! `build_ple`, `build_conv_state_at`): the hashed rows of per_layer_token_embd gathered on the
//! host for every token (one I32 row index per head and token, an input), and on its one linear
//! layer, before the layer's mixer: a key and a value projected from them, the key and the
//! streams grouped-RMS-normed and dotted per stream into a signed-square-root sigmoid gate, the
//! value repeated to the streams and gated, normed, joined to its conv history (gathered from
//! its recurrent row, the tail written back), a depthwise causal convolution written as
//! `conv_kernel` shifted copies times a weight column each, summed, SiLU, and both added to the
//! streams.

use super::super::galloc::{Id, HOST};
use super::builder::Builder;
use super::indexer_inputs::QPle;
use super::F32;

impl Builder<'_> {
    fn qple_key(&self, k: &str) -> Option<u64> {
        let key = format!("qwen4exp.{k}");
        self.model.get(&key).and_then(|v| v.as_u64())
    }

    /// `build_inp_ple`'s row indices, placed with the inputs where the host first reads them
    /// (after the token inputs); `None` without a PLE layer.
    pub(super) fn qple_input(&mut self) -> Option<QPle> {
        if self.p.arch != "qwen4exp" || !self.tensors.contains("per_layer_token_embd.weight") {
            return None;
        }
        let q = self.qple_shape();
        if q.is_none() {
            self.approximate("recipe-approx-qwen4exp-ple-n-gram");
        }
        q
    }

    fn qple_shape(&mut self) -> Option<QPle> {
        let (layer, _) = self.p.ple_state?;
        let ngram = self
            .qple_key("ple.ngram_size")
            .filter(|n| (2..=8).contains(n))?;
        let per_gram = self.qple_key("ple.heads_per_ngram").filter(|&h| h <= 64)?;
        let head = self.qple_key("embedding_length_per_layer_input");
        let kernel = self
            .qple_key("ple.conv_kernel")
            .filter(|&k| k > 0 && k <= 64)?;
        let n_heads = (ngram - 1) * per_gram;
        let width = head.filter(|&h| h > 0 && h <= 1 << 20)? * n_heads;
        let rows = self.g.input(n_heads * self.cur_t * 4);
        Some(QPle {
            layer,
            rows,
            width,
            kernel,
            ngram,
        })
    }

    /// The gather (GET_ROWS on the table's host copy), expanded right after the embeddings.
    pub(super) fn qple_rows(&mut self) {
        let Some(mut q) = self.qple else {
            return;
        };
        let table = "per_layer_token_embd.weight";
        let on = self.place.overridden.get(table).copied().flatten();
        let w = self.g.weight(self.tensors.bytes(table), on.unwrap_or(HOST));
        q.rows = self.g.get_rows(q.width * self.cur_t * F32, &[w, q.rows]);
        self.qple = Some(q);
    }

    /// `build_ple` on layer `il`'s streams `x` (unchanged on another layer).
    pub(super) fn qple_layer(&mut self, il: usize, x: Id, hc: u64) -> Id {
        let Some(q) = self.qple.filter(|q| q.layer == il) else {
            return x;
        };
        let (t, ns, et) = (self.cur_t, self.n_seq, self.et());
        let (hcb, s4) = (hc * et, hc * t * F32);
        let hcd = hc * self.p.n_embd;
        let hist = (q.kernel - 1) * q.ngram;
        let names = [
            "key",
            "value",
            "norm_key",
            "norm_query",
            "norm_conv",
            "conv1d",
        ];
        let [w_key, w_value, w_nk, w_nq, w_nc, w_conv] =
            names.map(|n| self.weight(Some(il), &format!("ple_{n}.weight")));
        // the conv history's row of the recurrent cache, gathered (build_rs)
        let s_copy = self.inputs.s_copy.expect("recurrent state input");
        let rs = self.state_view(il);
        let rs_be = Some(self.g.backend_of(rs));
        let g = &mut self.g;
        let hist_all = g.op(hist * hcd * ns * F32, &[rs, s_copy]);
        let extra = g.view(hist_all);
        g.external(&[extra], rs_be);
        let value = g.op(et, &[w_value, q.rows]);
        let value = g.view(value);
        let rep = g.op(hcb, &[value]); // repeat to the streams
        let key = g.op(hcb, &[w_key, q.rows]);
        let kn = g.inplace(hcb, &[key]); // rms_norm of the reshape, in place
        let kn = g.inplace(hcb, &[kn, w_nk]);
        let xv = g.view(x);
        let qn = g.inplace(hcb, &[xv]); // rms_norm
        let qn = g.inplace(hcb, &[qn, w_nq]);
        let kq = g.inplace(hcb, &[kn, qn]);
        let s = g.op(s4, &[kq]); // sum_rows
        let s = g.inplace(s4, &[s]); // scale
        let sgn = g.op(s4, &[s]);
        let mag = g.op(s4, &[s]); // abs
        let mag = g.inplace(s4, &[mag]); // clamp
        let mag = g.inplace(s4, &[mag]); // sqrt
        let gate = g.inplace(s4, &[sgn, mag]);
        let gate = g.inplace(s4, &[gate]); // sigmoid
        let gated = g.inplace(hcb, &[rep, gate]);
        let gv = g.view(gated);
        let n = g.inplace(hcb, &[gv]); // rms_norm
        let n = g.inplace(hcb, &[n, w_nc]);
        let n = g.view(n);
        // build_conv_state_at: the history joined to the transposed input, one tail written back
        let (state, nt) = (g.view(hist_all), g.view(n));
        let padded = g.op((hist + t / ns.max(1)) * hcd * ns * F32, &[state, nt]);
        let tail = g.view(padded);
        let tail = g.op(hist * hcd * ns * F32, &[tail]); // cont
        g.external(&[tail], rs_be);
        let w_bytes = self.tensors.bytes(&format!("blk.{il}.ple_conv1d.weight"));
        self.qple_conv(padded, (w_conv, gated, x), (q.kernel, hcd, w_bytes))
    }

    /// The convolution as shifted copies times a weight column, summed, SiLU, made contiguous,
    /// then added to the gated value and the streams.
    fn qple_conv(
        &mut self,
        padded: Id,
        (w_conv, gated, x): (Id, Id, Id),
        (kernel, hcd, w_bytes): (u64, u64, u64),
    ) -> Id {
        let (t, hcb) = (self.cur_t, hcd * self.cur_t * F32);
        // the kernel keeps the file's type: a column of another type is cast to F32
        let w_el = w_bytes / (kernel * hcd).max(1);
        let g = &mut self.g;
        let mut conv: Option<Id> = None;
        for _ in 0..kernel {
            let v = g.view(padded);
            let shifted = g.op(t * hcd * F32, &[v]); // cont(transpose(view))
            let wv = g.view(w_conv);
            let mut wk = g.op(hcd * w_el.max(1), &[wv]); // cont
            if w_el != F32 {
                wk = g.op(hcd * F32, &[wk]); // cast
            }
            let term = g.inplace(hcb, &[shifted, wk]);
            conv = Some(match conv {
                Some(c) => g.inplace(hcb, &[c, term]),
                None => term,
            });
        }
        let conv = conv.unwrap_or(padded);
        let conv = g.inplace(hcb, &[conv]); // silu
        let conv = g.op(hcb, &[conv]); // cont
        let sum = g.inplace(hcb, &[gated, conv]);
        g.inplace(hcb, &[x, sum])
    }
}
