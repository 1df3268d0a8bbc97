//! RWKV-7 layers op for op (models/rwkv7.cpp `graph`, models/rwkv7-base.cpp
//! `build_rwkv7_time_mix` / `build_rwkv7_channel_mix`): the token shifts read from and written
//! to the recurrent state, the 5- or 6-way lerp through a broadcast of the shift (`ggml_repeat`
//! onto a fresh leaf), the LoRA-ranked decay, in-context rate, value residual and gate, the WKV7
//! kernel with its state, the head-wise group norm, and the squared-ReLU channel mix. The first
//! layer's value stays alive for every later layer's value residual.

use super::super::galloc::Id;
use super::builder::Builder;
use super::F32;

impl Builder<'_> {
    /// Tensor `blk.{il}.{name}`'s dimension `i` (0 where the file has none).
    fn dim_of(&self, il: usize, name: &str, i: usize) -> u64 {
        self.model
            .tensor(&format!("blk.{il}.{name}"))
            .and_then(|t| t.dims.get(i).copied())
            .unwrap_or(0)
    }

    /// `build_norm(x, w, b, LLM_NORM)`: GGML_OP_NORM (not in place), then the weight and bias.
    fn layer_norm(&mut self, x: Id, bytes: u64) -> Id {
        let n = self.g.op(bytes, &[x]);
        let n = self.g.inplace(bytes, &[n]);
        self.g.inplace(bytes, &[n])
    }

    /// One RWKV-7 layer (`llama_model_rwkv7::graph`'s loop body).
    pub(super) fn rwkv7_layer(&mut self, il: usize, inp: Id) -> Id {
        let e = self.p.n_embd;
        let (t, ns) = (self.cur_t, self.n_seq);
        let et = e * t * F32;
        let mut inp = inp;
        if il == 0 {
            // the token embeddings' layer norm (tok_norm) before the first layer
            inp = self.layer_norm(inp, et);
            if self.place.device() {
                // as for the other recurrent layers (builder.rs `recurrent`)
                self.approx.push("recurrent layers on a GPU backend");
            }
        }
        let s_copy = self.inputs.s_copy.expect("recurrent state input");
        let rs = self.state_view(il);
        let rs_be = Some(self.g.backend_of(rs));
        // build_rwkv_token_shift_load: build_rs over 2 × n_embd per sequence.
        let shift_all = self.g.op(2 * e * ns * F32, &[rs, s_copy]);
        let shift = self.g.view(shift_all);
        let extra = self.g.view(shift_all);
        self.g.external(&[extra], rs_be);
        let (att_shift, ffn_shift) = (self.g.view(shift), self.g.view(shift));
        let att_norm = self.layer_norm(inp, et);
        let prev = self.g.view(att_norm);
        let x_prev = self.g.op(et, &[att_shift, prev]); // concat
        let cur = self.rwkv7_time_mix(il, (att_norm, x_prev), (rs, s_copy));
        let ffn_inp = self.g.inplace(et, &[cur, inp]);
        let ffn_norm = self.layer_norm(ffn_inp, et);
        let prev = self.g.view(ffn_norm);
        let mut x_prev = self.g.op(et, &[ffn_shift, prev]); // concat
        let (last_att, last_ffn) = (self.g.view(att_norm), self.g.view(ffn_norm));
        let shift_out = self.g.op(2 * e * ns * F32, &[last_att, last_ffn]); // concat
        self.g.external(&[shift_out], rs_be); // build_rwkv_token_shift_store
        let (mut ffn_inp, mut ffn_norm) = (ffn_inp, ffn_norm);
        if il + 1 == self.layers.len() {
            let (n_out, out_ids) = (self.n_outputs, self.inputs.out_ids);
            let bytes = e * n_out * F32;
            ffn_inp = self.g.op(bytes, &[ffn_inp, out_ids]);
            ffn_norm = self.g.op(bytes, &[ffn_norm, out_ids]);
            x_prev = self.g.op(bytes, &[x_prev, out_ids]);
            self.cur_t = n_out;
            self.g.rows = n_out;
        }
        // build_rwkv7_channel_mix: squared ReLU of the key, then the value projection.
        let et = self.et();
        let (n_ff, t) = (self.dim_of(il, "channel_mix_key.weight", 1), self.cur_t);
        let [lerp_k, w_key, w_value] = self.weights(
            il,
            [
                "channel_mix_lerp_k.weight",
                "channel_mix_key.weight",
                "channel_mix_value.weight",
            ],
        );
        let sx = self.g.inplace(et, &[x_prev, ffn_norm]);
        let xk = self.g.inplace(et, &[sx, lerp_k]);
        let xk = self.g.inplace(et, &[xk, ffn_norm]);
        let k = self.g.op(n_ff * t * F32, &[w_key, xk]);
        let k = self.g.inplace(n_ff * t * F32, &[k]); // relu
        let k = self.g.inplace(n_ff * t * F32, &[k]); // sqr
        let out = self.g.op(et, &[w_value, k]);
        self.g.inplace(et, &[out, ffn_inp])
    }

    /// `build_rwkv7_time_mix` on the layer-normed input and its shifted copy.
    fn rwkv7_time_mix(&mut self, il: usize, (cur, x_prev): (Id, Id), rs: (Id, Id)) -> Id {
        let (xr, xw, xk, xv, xa, xg) = self.rwkv7_lerp(il, cur, x_prev);
        let (e, t) = (self.p.n_embd, self.cur_t);
        let et = e * t * F32;
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
        let v = self.g.op(et, &[w_v, xv]);
        let v = self.rwkv7_value_residual(il, v, xv);
        let g = xg.map(|xg| {
            let [g1, g2] = self.weights(il, ["time_mix_g1.weight", "time_mix_g2.weight"]);
            let g = self.g.op(rg, &[g1, xg]);
            let g = self.g.inplace(rg, &[g]); // sigmoid
            self.g.op(et, &[g2, g])
        });
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
        self.rwkv7_wkv(il, [r, w, k, v, a], g, rs)
    }

    /// The shift broadcast over the lanes (`ggml_repeat` onto a new leaf), the fused lerp, and
    /// its lanes as views: r, w, k, v, a and (gated) g.
    #[allow(clippy::type_complexity)]
    fn rwkv7_lerp(&mut self, il: usize, cur: Id, x_prev: Id) -> (Id, Id, Id, Id, Id, Option<Id>) {
        let et = self.et();
        let gated = self.dim_of(il, "time_mix_g1.weight", 1) > 0;
        let lanes = if gated { 6 } else { 5 };
        let sx = self.g.inplace(et, &[x_prev, cur]); // sub
        let dummy = self.g.op(lanes * et, &[]); // the leaf giving ggml_repeat its shape
        let sx = self.g.op(lanes * et, &[sx, dummy]); // repeat
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

    /// The WKV7 kernel over the state (`build_rs`), the state written back, the head-wise group
    /// norm, the r·k bonus, the gate and the output projection.
    fn rwkv7_wkv(
        &mut self,
        il: usize,
        [r, w, k, v, a]: [Id; 5],
        g: Option<Id>,
        (rs, s_copy): (Id, Id),
    ) -> Id {
        let (e, ns) = (self.p.n_embd, self.n_seq);
        let et = self.et();
        let head = self.dim_of(il, "time_mix_r_k.weight", 0).max(1);
        let [k_k, k_a, r_k] = self.weights(
            il,
            [
                "time_mix_k_k.weight",
                "time_mix_k_a.weight",
                "time_mix_r_k.weight",
            ],
        );
        let kk = self.g.inplace(et, &[k, k_k]);
        let kk = self.g.op(et, &[kk]); // l2_norm
        let ka = self.g.inplace(et, &[k, k_a]);
        let aka = self.g.inplace(et, &[a, ka]);
        let aka = self.g.inplace(et, &[aka, ka]); // sub
        let k = self.g.inplace(et, &[k, aka]);
        let rs_be = Some(self.g.backend_of(rs));
        let state_all = self.g.op(e * head * ns * F32, &[rs, s_copy]);
        let state = self.g.view(state_all);
        let extra = self.g.view(state_all);
        self.g.external(&[extra], rs_be);
        let neg = self.g.inplace(et, &[kk]);
        let kka = self.g.inplace(et, &[kk, a]);
        let wkv = self
            .g
            .op(et + e * head * ns * F32, &[r, w, k, v, neg, kka, state]);
        let out = self.g.view(wkv);
        let st = self.g.view(wkv);
        self.g.external(&[st], rs_be);
        let [ln, ln_b] = self.weights(il, ["time_mix_ln.weight", "time_mix_ln.bias"]);
        let n = self.g.op(et, &[out]); // group norm
        let n = self.g.inplace(et, &[n, ln]);
        let mut cur = self.g.inplace(et, &[n, ln_b]);
        let kr = self.g.inplace(et, &[k, r]);
        let kr = self.g.inplace(et, &[kr, r_k]);
        let rk = self.g.op(et / head, &[kr]); // sum_rows
        let vrk = self.g.inplace(et, &[v, rk]);
        cur = self.g.inplace(et, &[cur, vrk]);
        if let Some(g) = g {
            cur = self.g.inplace(et, &[cur, g]);
        }
        let w_out = self.weight(Some(il), "time_mix_output.weight");
        self.g.op(et, &[w_out, cur])
    }
}
