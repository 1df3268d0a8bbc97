//! RWKV-6 and RWKV-7 layers op for op, in the order llama.cpp's graph expands them
//! (models/rwkv6.cpp, rwkv6-base.cpp, rwkv7.cpp, rwkv7-base.cpp: `graph`,
//! `build_rwkv6/7_time_mix`, `build_rwkv6/7_channel_mix`; checked against GGML_SCHED_DEBUG=2's
//! node list of b11434): the token shifts and WKV state gathered from and written to the
//! recurrent state; RWKV-6's lerp LoRA over 5 lanes and decay LoRA into the WKV6 kernel;
//! RWKV-7's 5- or 6-way lerp through a broadcast of the shift, the LoRA-ranked decay, in-context
//! rate, value residual and gate into the WKV7 kernel; the head-wise group norm; the
//! squared-ReLU channel mix. RWKV-7's first layer's value stays alive for every later layer.
//! ARWKV-7 (models/arwkv7.cpp) runs RWKV-7's time mix between RMS norms, with one token shift
//! and a gated FFN instead of the channel mix.

use super::super::galloc::Id;
use super::builder::Builder;
use super::F32;

impl Builder<'_> {
    /// Tensor `blk.{il}.{name}`'s dimension `i` (0 where the file has none).
    pub(super) fn dim_of(&self, il: usize, name: &str, i: usize) -> u64 {
        self.model
            .tensor(&format!("blk.{il}.{name}"))
            .and_then(|t| t.dims.get(i).copied())
            .unwrap_or(0)
    }

    /// The file's `{arch}.{key}`, or `default` where it has none.
    pub(super) fn wkv_key(&self, key: &str, default: u64) -> u64 {
        let k = format!("{}.{key}", self.p.arch);
        self.model
            .get(&k)
            .and_then(|v| v.as_u64())
            .unwrap_or(default)
    }

    /// `build_norm(x, w, b, LLM_NORM)`: GGML_OP_NORM (not in place), then the weight and bias.
    fn layer_norm(&mut self, x: Id, bytes: u64) -> Id {
        let n = self.g.op(bytes, &[x]);
        let n = self.g.inplace(bytes, &[n]);
        self.g.inplace(bytes, &[n])
    }

    /// One RWKV-6 or RWKV-7 layer (`llama_model_rwkv6::graph` / `llama_model_rwkv7::graph`'s
    /// loop body): both `build_rs` gathers first (nothing else of the layer is expanded before
    /// them), then the time mix, the token shifts stored, the channel mix.
    pub(super) fn rwkv_layer(&mut self, il: usize, inp: Id) -> Id {
        let v7 = self.p.arch == "rwkv7";
        let e = self.p.n_embd;
        let (t, ns) = (self.cur_t, self.n_seq);
        let et = e * t * F32;
        let mut inp = inp;
        if il == 0 {
            // the token embeddings' layer norm (tok_norm) before the first layer
            inp = self.layer_norm(inp, et);
            if self.place.device() {
                // as for the other recurrent layers (ssm.rs `recurrent`)
                self.approx
                    .push("recipe-approx-recurrent-layers-gpu-backend");
            }
        }
        let [shift, state] = match self.rwkv_gathered.take() {
            Some(g) => g,
            None => self.rwkv_gather(il),
        };
        let rs_be = Some(self.g.backend_of(state));
        let (att_shift, ffn_shift) = (self.g.view(shift), self.g.view(shift));
        let att_norm = self.layer_norm(inp, et);
        let prev = self.g.view(att_norm);
        let x_prev = self.g.op(et, &[att_shift, prev]); // concat
        let cur = if v7 {
            self.rwkv7_time_mix(il, (att_norm, x_prev), state)
        } else {
            self.rwkv6_time_mix(il, (att_norm, x_prev), state)
        };
        let ffn_inp = self.g.inplace(et, &[cur, inp]);
        let ffn_norm = self.layer_norm(ffn_inp, et);
        let (last_att, last_ffn) = (self.g.view(att_norm), self.g.view(ffn_norm));
        let shift_out = self.g.op(2 * e * ns * F32, &[last_att, last_ffn]); // concat
        self.g.external(&[shift_out], rs_be); // build_rwkv_token_shift_store
        if il + 1 < self.layers.len() {
            // The next layer's gathers are expanded before this layer's channel mix (which
            // only the next layer's input reaches).
            self.rwkv_gathered = Some(self.rwkv_gather(il + 1));
        }
        let prev = self.g.view(ffn_norm);
        let mut x_prev = self.g.op(et, &[ffn_shift, prev]); // concat
        let (mut ffn_inp, mut ffn_norm) = (ffn_inp, ffn_norm);
        if il + 1 == self.layers.len() {
            let (n_out, out_ids) = (self.n_outputs, self.inputs.out_ids);
            let bytes = e * n_out * F32;
            x_prev = self.g.op(bytes, &[x_prev, out_ids]);
            ffn_norm = self.g.op(bytes, &[ffn_norm, out_ids]);
            ffn_inp = self.g.op(bytes, &[ffn_inp, out_ids]);
            self.cur_t = n_out;
            self.g.rows = n_out;
        }
        let out = self.rwkv_channel_mix(il, v7, ffn_norm, x_prev);
        let et = self.et();
        self.g.inplace(et, &[out, ffn_inp])
    }

    /// One ARWKV-7 layer (`llama_model_arwkv7::graph`'s loop body): RWKV-7's time mix on the
    /// RMS-normed input and its one token shift, the shift stored, then an RMS-normed gated FFN
    /// (the outputs' rows selected before it on the last layer).
    pub(super) fn arwkv7_layer(&mut self, il: usize, inp: Id) -> Id {
        let et = self.et();
        let [shift, state] = match self.rwkv_gathered.take() {
            Some(g) => g,
            None => self.rwkv_gather(il),
        };
        if il == 0 && self.place.device() {
            self.approximate("recipe-approx-recurrent-layers-gpu-backend"); // as rwkv_layer
        }
        let rs_be = Some(self.g.backend_of(state));
        let att_norm = self.norm(il, inp, "attn_norm.weight");
        let (shift, prev) = (self.g.view(shift), self.g.view(att_norm));
        let x_prev = self.g.op(et, &[shift, prev]); // concat
        let cur = self.rwkv7_time_mix(il, (att_norm, x_prev), state);
        let last = self.g.view(att_norm);
        self.g.external(&[last], rs_be); // build_rwkv_token_shift_store
        let mut ffn_inp = self.g.inplace(et, &[cur, inp]);
        if il + 1 < self.layers.len() {
            self.rwkv_gathered = Some(self.rwkv_gather(il + 1));
        } else {
            let (n_out, out_ids) = (self.n_outputs, self.inputs.out_ids);
            ffn_inp = self.g.op(self.p.n_embd * n_out * F32, &[ffn_inp, out_ids]);
            self.cur_t = n_out;
            self.g.rows = n_out;
        }
        let out = self.feed_forward(il, ffn_inp);
        let et = self.et();
        self.g.inplace(et, &[out, ffn_inp])
    }

    /// Layer `il`'s `build_rs` gathers: the token shifts (`build_rwkv_token_shift_load`, shifts ×
    /// n_embd per sequence), then the WKV state (n_embd × head_size per sequence); the extra
    /// states copied back. Returns views of both.
    pub(super) fn rwkv_gather(&mut self, il: usize) -> [Id; 2] {
        let (e, ns) = (self.p.n_embd, self.n_seq);
        let s_copy = self.inputs.s_copy.expect("recurrent state input");
        let rs = self.state_view(il);
        let rs_be = Some(self.g.backend_of(rs));
        let head = match self.p.arch.as_str() {
            "rwkv7" | "arwkv7" => self.dim_of(il, "time_mix_r_k.weight", 0),
            _ => self.wkv_key("wkv.head_size", 1),
        };
        // `n_embd_r() = token_shift_count × n_embd` (2 by default; 1 in ARWKV-7 and QRWKV6,
        // which have no channel mix).
        let shifts = self.wkv_key("token_shift_count", 2);
        let mut gathered = [0; 2];
        for (i, size) in [shifts * e, e * head.max(1)].into_iter().enumerate() {
            let all = self.g.op(size * ns * F32, &[rs, s_copy]);
            gathered[i] = self.g.view(all);
            let extra = self.g.view(all);
            self.g.external(&[extra], rs_be);
        }
        gathered
    }

    /// `build_rwkv6_channel_mix` / `build_rwkv7_channel_mix`: the squared ReLU of the key, the
    /// value projection, and (RWKV-6) a sigmoid receptance gating it.
    fn rwkv_channel_mix(&mut self, il: usize, v7: bool, cur: Id, x_prev: Id) -> Id {
        let et = self.et();
        let (n_ff, t) = (self.dim_of(il, "channel_mix_key.weight", 1), self.cur_t);
        let [lerp_k, lerp_r, w_key, w_value, w_r] = self.weights(
            il,
            [
                "channel_mix_lerp_k.weight",
                "channel_mix_lerp_r.weight",
                "channel_mix_key.weight",
                "channel_mix_value.weight",
                "channel_mix_receptance.weight",
            ],
        );
        let sx = self.g.inplace(et, &[x_prev, cur]);
        let r = (!v7).then(|| {
            let xr = self.g.inplace(et, &[sx, lerp_r]);
            let xr = self.g.inplace(et, &[xr, cur]);
            let r = self.g.op(et, &[w_r, xr]);
            self.g.inplace(et, &[r]) // sigmoid
        });
        let xk = self.g.inplace(et, &[sx, lerp_k]);
        let xk = self.g.inplace(et, &[xk, cur]);
        let k = self.g.op(n_ff * t * F32, &[w_key, xk]);
        let k = self.g.inplace(n_ff * t * F32, &[k]); // relu
        let k = self.g.inplace(n_ff * t * F32, &[k]); // sqr
        let out = self.g.op(et, &[w_value, k]);
        match r {
            Some(r) => self.g.inplace(et, &[r, out]),
            None => out,
        }
    }

    /// RWKV-6's token-shift lerp (the fused lerp; RWKV-6 and QRWKV6 alike): the lerp's LoRA
    /// (w1, tanh, w2 over the 5 lanes) and its lanes as views: w, k, v, r, g.
    pub(super) fn rwkv6_lerp(&mut self, il: usize, cur: Id, x_prev: Id) -> [Id; 5] {
        let et = self.et();
        let mix = self.dim_of(il, "time_mix_w1.weight", 1) * self.cur_t * F32;
        let w = |b: &mut Self, n: &str| b.weight(Some(il), &format!("time_mix_{n}.weight"));
        let sx = self.g.inplace(et, &[x_prev, cur]); // sub
        let lerp_x = w(self, "lerp_x");
        let xxx = self.g.inplace(et, &[sx, lerp_x]);
        let xxx = self.g.inplace(et, &[xxx, cur]);
        let w1 = w(self, "w1");
        let m = self.g.op(mix, &[w1, xxx]);
        let m = self.g.inplace(mix, &[m]); // tanh
        let m = self.g.view(m); // reshape, permute
        let m = self.g.op(mix, &[m]); // cont
        let w2 = w(self, "w2");
        let m = self.g.op(5 * et, &[w2, m]);
        if !self
            .tensors
            .contains(&format!("blk.{il}.time_mix_lerp_fused.weight"))
        {
            self.approximate("recipe-approx-rwkv-6-separate-lerps");
        }
        let fused = w(self, "lerp_fused");
        let m = self.g.inplace(5 * et, &[m, fused]);
        let m = self.g.inplace(5 * et, &[m, sx]);
        let xxx = self.g.inplace(5 * et, &[m, cur]);
        let mut lane = || self.g.view(xxx);
        [lane(), lane(), lane(), lane(), lane()]
    }

    /// `build_rwkv6_time_mix` (the fused lerp; RWKV-6, not QRWKV): the lerp's LoRA (w1, tanh,
    /// w2 over the 5 lanes), r / k / v / gate projections, the decay's LoRA, the WKV6 kernel
    /// with its state written back, the head-wise group norm, the gate and the output.
    fn rwkv6_time_mix(&mut self, il: usize, (cur, x_prev): (Id, Id), state: Id) -> Id {
        let (e, t, ns) = (self.p.n_embd, self.cur_t, self.n_seq);
        let et = e * t * F32;
        let head = self.dim_of(il, "time_mix_first.weight", 0).max(1);
        let decay = self.dim_of(il, "time_mix_decay_w1.weight", 1) * t * F32;
        let w = |b: &mut Self, n: &str| b.weight(Some(il), &format!("time_mix_{n}.weight"));
        let [xw, xk, xv, xr, xg] = self.rwkv6_lerp(il, cur, x_prev);
        let (wk, wv, wr) = (w(self, "key"), w(self, "value"), w(self, "receptance"));
        let k = self.g.op(et, &[wk, xk]);
        let v = self.g.op(et, &[wv, xv]);
        let r = self.g.op(et, &[wr, xr]);
        let (d1, d2, d0) = (w(self, "decay_w1"), w(self, "decay_w2"), w(self, "decay"));
        let d = self.g.op(decay, &[d1, xw]);
        let d = self.g.inplace(decay, &[d]); // tanh
        let d = self.g.op(et, &[d2, d]);
        let mut d = self.g.inplace(et, &[d, d0]);
        for _ in 0..3 {
            d = self.g.inplace(et, &[d]); // exp, neg, exp
        }
        let first = w(self, "first");
        let wkv = self
            .g
            .op(et + e * head * ns * F32, &[k, v, r, first, d, state]);
        let out = self.g.view(wkv);
        let st = self.g.view(wkv);
        let rs_be = Some(self.g.backend_of(state));
        self.g.external(&[st], rs_be);
        let n = self.g.op(et, &[out]); // group norm
        let (ln, ln_b) = (w(self, "ln"), self.weight(Some(il), "time_mix_ln.bias"));
        let n = self.g.inplace(et, &[n, ln]);
        let n = self.g.inplace(et, &[n, ln_b]);
        let wg = w(self, "gate");
        let g = self.g.op(et, &[wg, xg]);
        let g = self.g.inplace(et, &[g]); // silu
        let n = self.g.inplace(et, &[n, g]);
        let wo = w(self, "output");
        self.g.op(et, &[wo, n])
    }

    /// `build_rwkv7_time_mix` on the layer-normed input and its shifted copy, in the order the
    /// graph expands it from the WKV7 kernel's sources (r, w, k — a's chain inside k's —, v,
    /// -kk, kk·a, the state), the gate last.
    fn rwkv7_time_mix(&mut self, il: usize, (cur, x_prev): (Id, Id), state: Id) -> Id {
        let (xr, xw, xk, xv, xa, xg) = self.rwkv7_lerp(il, cur, x_prev);
        let t = self.cur_t;
        let et = self.et();
        let rank = |b: &Self, x: &str| b.dim_of(il, &format!("time_mix_{x}1.weight"), 1) * t * F32;
        let (rw, ra, rg) = (rank(self, "w"), rank(self, "a"), rank(self, "g"));
        let [w_r, w_w1, w_w2, w_w0, w_k, w_v] = self.weights(
            il,
            [
                "time_mix_receptance.weight",
                "time_mix_w1.weight",
                "time_mix_w2.weight",
                "time_mix_w0.weight",
                "time_mix_key.weight",
                "time_mix_value.weight",
            ],
        );
        let r = self.g.op(et, &[w_r, xr]);
        let w = self.g.op(rw, &[w_w1, xw]);
        let w = self.g.inplace(rw, &[w]); // tanh
        let w = self.g.op(et, &[w_w2, w]);
        let mut w = self.g.inplace(et, &[w, w_w0]);
        for _ in 0..3 {
            w = self.g.inplace(et, &[w]); // sigmoid, scale, exp
        }
        let k = self.g.op(et, &[w_k, xk]);
        let [a1, a2, a0] = self.weights(
            il,
            [
                "time_mix_a1.weight",
                "time_mix_a2.weight",
                "time_mix_a0.weight",
            ],
        );
        let a = self.g.op(ra, &[a1, xa]);
        let a = self.g.op(et, &[a2, a]);
        let a = self.g.inplace(et, &[a, a0]);
        let a = self.g.inplace(et, &[a]); // sigmoid
        let [k_a] = self.weights(il, ["time_mix_k_a.weight"]);
        let ka = self.g.inplace(et, &[k, k_a]);
        let aka = self.g.inplace(et, &[a, ka]);
        let aka = self.g.inplace(et, &[aka, ka]); // sub
        let k2 = self.g.inplace(et, &[k, aka]);
        let v = self.g.op(et, &[w_v, xv]);
        let v = self.rwkv7_value_residual(il, v, xv);
        let out = self.rwkv7_wkv(il, [r, w, k, k2, v, a], state);
        let cur = match xg {
            Some(xg) => {
                let [g1, g2] = self.weights(il, ["time_mix_g1.weight", "time_mix_g2.weight"]);
                let g = self.g.op(rg, &[g1, xg]);
                let g = self.g.inplace(rg, &[g]); // sigmoid
                let g = self.g.op(et, &[g2, g]);
                self.g.inplace(et, &[out, g])
            }
            None => out,
        };
        let w_out = self.weight(Some(il), "time_mix_output.weight");
        self.g.op(et, &[w_out, cur])
    }

    /// The shift broadcast over the lanes (`ggml_repeat`), the fused lerp, and
    /// its lanes as views: r, w, k, v, a and (gated) g.
    #[allow(clippy::type_complexity)]
    fn rwkv7_lerp(&mut self, il: usize, cur: Id, x_prev: Id) -> (Id, Id, Id, Id, Id, Option<Id>) {
        let et = self.et();
        let gated = self.dim_of(il, "time_mix_g1.weight", 1) > 0;
        let lanes = if gated { 6 } else { 5 };
        let sx = self.g.inplace(et, &[x_prev, cur]); // sub
                                                     // ggml_repeat takes its shape from a new tensor that is not a source: never allocated
        let sx = self.g.op(lanes * et, &[sx]); // repeat
        let lerp = self.weight(Some(il), "time_mix_lerp_fused.weight");
        let xxx = self.g.inplace(lanes * et, &[sx, lerp]);
        let xxx = self.g.inplace(lanes * et, &[xxx, cur]);
        let mut lane = || self.g.view(xxx);
        let (xr, xw, xk, xv, xa) = (lane(), lane(), lane(), lane(), lane());
        let xg = gated.then(lane);
        (xr, xw, xk, xv, xa, xg)
    }

    /// Every layer after the first mixes in the first layer's value (kept alive till the last).
    fn rwkv7_value_residual(&mut self, il: usize, v: Id, xv: Id) -> Id {
        let Some(first) = self.v_first else {
            self.v_first = Some(v);
            return v;
        };
        let et = self.et();
        let rv = self.dim_of(il, "time_mix_v1.weight", 1) * self.cur_t * F32;
        let [v1, v2, v0] = self.weights(
            il,
            [
                "time_mix_v1.weight",
                "time_mix_v2.weight",
                "time_mix_v0.weight",
            ],
        );
        let d = self.g.inplace(et, &[first, v]); // sub
        let m = self.g.op(rv, &[v1, xv]);
        let m = self.g.op(et, &[v2, m]);
        let m = self.g.inplace(et, &[m, v0]);
        let m = self.g.inplace(et, &[m]); // sigmoid
        let m = self.g.inplace(et, &[d, m]);
        self.g.inplace(et, &[v, m])
    }

    /// -kk and kk·a from the key before its update (`k`; `k2` after it), the WKV7 kernel over
    /// the state (written back),
    /// the head-wise group norm and the r·k bonus; the gate and output are the caller's.
    fn rwkv7_wkv(&mut self, il: usize, [r, w, k, k2, v, a]: [Id; 6], state: Id) -> Id {
        let (e, ns) = (self.p.n_embd, self.n_seq);
        let et = self.et();
        let head = self.dim_of(il, "time_mix_r_k.weight", 0).max(1);
        let [k_k, r_k] = self.weights(il, ["time_mix_k_k.weight", "time_mix_r_k.weight"]);
        let kk = self.g.inplace(et, &[k, k_k]);
        let kk = self.g.op(et, &[kk]); // l2_norm
        let neg = self.g.inplace(et, &[kk]);
        let kka = self.g.inplace(et, &[kk, a]);
        let rs_be = Some(self.g.backend_of(state));
        let wkv = self
            .g
            .op(et + e * head * ns * F32, &[r, w, k2, v, neg, kka, state]);
        let out = self.g.view(wkv);
        let st = self.g.view(wkv);
        self.g.external(&[st], rs_be);
        // The head-wise group norm where the layer has its weights (ARWKV-7 has none).
        let cur = if self.tensors.has(&format!("blk.{il}.time_mix_ln.weight")) {
            let [ln, ln_b] = self.weights(il, ["time_mix_ln.weight", "time_mix_ln.bias"]);
            let n = self.g.op(et, &[out]); // group norm
            let n = self.g.inplace(et, &[n, ln]);
            self.g.inplace(et, &[n, ln_b])
        } else {
            out
        };
        let kr = self.g.inplace(et, &[k2, r]);
        let kr = self.g.inplace(et, &[kr, r_k]);
        let rk = self.g.op(et / head, &[kr]); // sum_rows
        let vrk = self.g.inplace(et, &[v, rk]);
        self.g.inplace(et, &[cur, vrk])
    }
}
