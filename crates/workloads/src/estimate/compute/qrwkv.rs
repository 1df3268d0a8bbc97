//! QRWKV6 (rwkv6qwen2: models/rwkv6qwen2.cpp, rwkv6-base.cpp's `is_qrwkv` path) op for op: an
//! RWKV-6 time mix without `time_mix_first` on the RMS-normed input and its one token shift, K
//! and V of Qwen's grouped width (biased, repeated to every head), k·(1 − w), the gated linear
//! attention kernel, a sigmoid gate, the output; then an RMS-normed gated FFN. In the order the
//! graph expands it: the gathers, the time mix up to the kernel (pulled in by the state's copy
//! back), the token shift stored, the next layer's gathers, then this layer's tail.

use super::super::galloc::Id;
use super::builder::Builder;
use super::F32;

impl Builder<'_> {
    /// One rwkv6qwen2 layer (`llama_model_rwkv6qwen2::graph`'s loop body).
    pub(super) fn qrwkv6_layer(&mut self, il: usize, inp: Id) -> Id {
        if il == 0 && self.place.device() {
            self.approximate("recipe-approx-recurrent-layers-gpu-backend"); // as rwkv_layer
        }
        let et = self.et();
        let [shift, state] = match self.rwkv_gathered.take() {
            Some(g) => g,
            None => self.rwkv_gather(il),
        };
        let rs_be = Some(self.g.backend_of(state));
        let att_norm = self.norm(il, inp, "attn_norm.weight");
        let (shift, prev) = (self.g.view(shift), self.g.view(att_norm));
        let x_prev = self.g.op(et, &[shift, prev]); // concat
        let (wkv, xg) = self.qrwkv6_kernel(il, (att_norm, x_prev), state);
        let last = self.g.view(att_norm);
        self.g.external(&[last], rs_be); // build_rwkv_token_shift_store
        if il + 1 < self.layers.len() {
            self.rwkv_gathered = Some(self.rwkv_gather(il + 1));
        }
        let [wg, wo] = self.weights(il, ["time_mix_gate.weight", "time_mix_output.weight"]);
        let g = self.g.op(et, &[wg, xg]);
        let g = self.g.inplace(et, &[g]); // sigmoid
        let out = self.g.view(wkv);
        let out = self.g.inplace(et, &[out, g]);
        let out = self.g.op(et, &[wo, out]);
        let mut ffn_inp = self.g.inplace(et, &[out, inp]);
        if il + 1 == self.layers.len() {
            let (n_out, out_ids) = (self.n_outputs, self.inputs.out_ids);
            ffn_inp = self.g.op(self.p.n_embd * n_out * F32, &[ffn_inp, out_ids]);
            self.cur_t = n_out;
            self.g.rows = n_out;
        }
        let ffn = self.feed_forward(il, ffn_inp);
        let et = self.et();
        self.g.inplace(et, &[ffn, ffn_inp])
    }

    /// The time mix up to the gated linear attention kernel (its state written back), in the
    /// kernel's sources' order: k (with k·w, which pulls in the decay), v, r. Returns the
    /// kernel's result and the gate's lane.
    fn qrwkv6_kernel(&mut self, il: usize, (cur, x_prev): (Id, Id), state: Id) -> (Id, Id) {
        let (e, t, ns) = (self.p.n_embd, self.cur_t, self.n_seq);
        let et = e * t * F32;
        let [xw, xk, xv, xr, xg] = self.rwkv6_lerp(il, cur, x_prev);
        let kv = self.dim_of(il, "time_mix_key.weight", 1) * t * F32;
        let proj = |b: &mut Self, name: &str, x: Id, bytes: u64| {
            let w = b.weight(Some(il), &format!("time_mix_{name}.weight"));
            let mut y = b.g.op(bytes, &[w, x]);
            if b.tensors.has(&format!("blk.{il}.time_mix_{name}.bias")) {
                let bias = b.weight(Some(il), &format!("time_mix_{name}.bias"));
                y = b.g.inplace(bytes, &[y, bias]);
            }
            if bytes != et {
                y = b.g.op(et, &[y]); // repeat the grouped K/V to every head
            }
            y
        };
        let k = proj(self, "key", xk, kv);
        let decay = self.dim_of(il, "time_mix_decay_w1.weight", 1) * t * F32;
        let [d1, d2, d0] = self.weights(
            il,
            [
                "time_mix_decay_w1.weight",
                "time_mix_decay_w2.weight",
                "time_mix_decay.weight",
            ],
        );
        let d = self.g.op(decay, &[d1, xw]);
        let d = self.g.inplace(decay, &[d]); // tanh
        let d = self.g.op(et, &[d2, d]);
        let mut d = self.g.inplace(et, &[d, d0]);
        for _ in 0..3 {
            d = self.g.inplace(et, &[d]); // exp, neg, exp
        }
        let kw = self.g.inplace(et, &[k, d]); // k·w
        let k = self.g.inplace(et, &[k, kw]); // k − k·w
        let v = proj(self, "value", xv, kv);
        let r = proj(self, "receptance", xr, et);
        let head = self.wkv_key("wkv.head_size", 1);
        let wkv = self.g.op(et + e * head * ns * F32, &[k, v, r, d, state]);
        let st = self.g.view(wkv);
        let rs_be = Some(self.g.backend_of(state));
        self.g.external(&[st], rs_be);
        (wkv, xg)
    }
}
