//! The Gated DeltaNet layers of Qwen3.5 (models/qwen35.cpp `build_layer_attn_linear`, qwen35moe
//! alike) and Qwen3-Next (models/qwen3next.cpp: one ssm_in projection to Q, K, V and z copied
//! out and joined, one ssm_ba to the decay and beta, Q and K repeated to the value heads), in
//! the order GGML_SCHED_DEBUG=2 lists b11434's nodes: the conv state gathered, the
//! fused Q/K/V projection joined to it and the last columns written back, the recurrent state
//! gathered, the causal convolution, Q and K L2-normed, the decay gate (softplus) and beta, the
//! fused GATED_DELTA_NET kernel (output and new state in one tensor, the state written back),
//! the gated RMS norm with z and the output projection. The fused kernel is the one the CPU runs
//! (`fused_gdn_ch`, resolved by llama_context's probe); a device without it runs the chunked
//! graph instead, which this replay does not write.

use super::super::galloc::Id;
use super::builder::Builder;
use super::F32;

impl Builder<'_> {
    /// Whether layer `il` is a KDA layer this replay writes: kimi-linear's and kimi-k3's
    /// (decay through ssm_f_a and ssm_f_b) and bailingmoe3's (one full-rank ssm_f_a;
    /// models/bailingmoe3.cpp, whose KDA layer expands in the same order).
    pub(super) fn is_kda(&self, il: usize) -> bool {
        let has = |n: &str| self.tensors.contains(&format!("blk.{il}.{n}.weight"));
        match self.p.arch.as_str() {
            "kimi-linear" | "kimi-k3" => has("ssm_conv1d_q") && has("ssm_f_b"),
            "bailingmoe3" => has("ssm_conv1d_q") && has("ssm_f_a"),
            _ => false,
        }
    }

    /// A low-rank pair `a` then `b` (kimi-linear's decay and output gate), or `a` alone where
    /// the layer has no `b` (bailingmoe3's full-rank ssm_f_a / ssm_g_a, kimi-k3's ssm_g).
    fn projection(&mut self, il: usize, x: Id, [a, b]: [&str; 2], dt: u64) -> Id {
        let t = self.cur_t;
        let w_a = self.weight(Some(il), a);
        let y = self.g.op(self.last_dim(il, a) * t * F32, &[w_a, x]);
        if !self.tensors.contains(&format!("blk.{il}.{b}")) {
            return y;
        }
        let w_b = self.weight(Some(il), b);
        self.g.op(dt, &[w_b, y])
    }

    /// Tensor `blk.{il}.{name}`'s last dimension (1 where the file has none).
    fn last_dim(&self, il: usize, name: &str) -> u64 {
        self.model
            .tensor(&format!("blk.{il}.{name}"))
            .and_then(|t| t.dims.last().copied())
            .unwrap_or(1)
            .max(1)
    }

    /// A Kimi delta attention (KDA) mixer (models/kimi-linear.cpp), in GGML_SCHED_DEBUG's node
    /// order: the three conv states gathered, Q, K and V each projected, joined to its state and
    /// the last columns written back, the recurrent state gathered, each causal convolution
    /// (SiLU; Q and K L2-normed), the decay from ssm_f_a / ssm_f_b (softplus, times A), beta, the
    /// fused GATED_DELTA_NET kernel, the output copied out, RMS-normed and gated by
    /// sigmoid(ssm_g_b(ssm_g_a(x))), and the projection. Written for the first prompt pass,
    /// whose micro-batch splits into every sequence (llama_context::sched_reserve; kimi-linear's
    /// second prompt pass, reserved for one sequence under TAG_RESERVE_DIAG_DECAY, needs less
    /// with the fused kernel: one sequence's state instead of all of them).
    pub(super) fn kda(&mut self, il: usize, x: Id) -> Id {
        if self.place.device() {
            self.approximate("recipe-approx-gated-deltanet-gpu-backend");
        }
        let (t, ns) = (self.cur_t, self.n_seq);
        let d_conv = self.kda_d_conv(il);
        let di = self.last_dim(il, "ssm_conv1d_q.weight");
        let h = self.last_dim(il, "ssm_beta.weight");
        let head = di / h;
        let dt = di * t * F32;
        let s_copy = self.inputs.s_copy.expect("recurrent state input");
        let rs = self.state_view(il);
        let rs_be = Some(self.g.backend_of(rs));
        let conv_all = match self.kda_conv.take() {
            Some(c) => c,
            None => self.kda_conv_gather(il),
        };
        let conv = self.g.view(conv_all);
        let joined = ["q", "k", "v"].map(|c| {
            let w = self.weight(Some(il), &format!("attn_{c}.weight"));
            let p = self.g.op(dt, &[w, x]);
            let pt = self.g.view(p); // reshape, transpose
            let cv = self.g.view(conv);
            // [d_conv - 1 + tokens per sequence, d_inner, n_seqs]
            let cat = self.g.op((d_conv - 1 + t / ns) * di * ns * F32, &[cv, pt]);
            let last = self.g.view(cat);
            self.g.external(&[last], rs_be);
            cat
        });
        let s_all = self.g.op(head * head * h * ns * F32, &[rs, s_copy]);
        let state = self.g.view(s_all);
        let extra = self.g.view(s_all);
        self.g.external(&[extra], rs_be);
        let [q, k, v] = [0, 1, 2].map(|i| {
            let c = ["q", "k", "v"][i];
            let w = self.weight(Some(il), &format!("ssm_conv1d_{c}.weight"));
            // ssm_conv, then SiLU and the L2 norm's rms_norm each on a reshape: ggml-alloc
            // reuses no view's parent (`ggml_gallocr_is_own` is false for a view), so each
            // takes a new block; only the norm's scale runs in place.
            let y = self.g.op(dt, &[joined[i], w]);
            let y = self.g.op(dt, &[y]); // silu
            if i == 2 {
                return y;
            }
            let y = self.g.op(dt, &[y]); // build_gdn_l2_norm: rms_norm
            self.g.inplace(dt, &[y]) // scale
        });
        let g1 = self.projection(il, x, ["ssm_f_a.weight", "ssm_f_b.weight"], dt);
        let [w_dt, w_a, w_beta] = self.weights(il, ["ssm_dt.bias", "ssm_a", "ssm_beta.weight"]);
        let mut g1 = self.g.inplace(dt, &[g1, w_dt]);
        if !self.model_has_gate_lower_bound() {
            g1 = self.g.inplace(dt, &[g1]); // kimi-linear's softplus
        }
        // times A on a reshape (a new block), then the sigmoid and the lower bound's scale in
        // place where the model has one
        let g1 = self.g.op(dt, &[g1, w_a]);
        let beta = self.g.op(h * t * F32, &[w_beta, x]);
        let beta = self.g.op(h * t * F32, &[beta]); // sigmoid of a reshape
                                                    // ggml_gated_delta_net: the output rows, then every sequence's new state
        let gdn = self
            .g
            .op(dt + head * head * h * ns * F32, &[q, k, v, g1, beta, state]);
        let new_state = self.g.view(gdn);
        self.g.external(&[new_state], rs_be);
        self.kda_output(il, x, gdn, dt)
    }

    /// Layer `il`'s conv states gathered (`build_rs`: every sequence's, the extra ones copied
    /// back).
    fn kda_conv_gather(&mut self, il: usize) -> Id {
        let d_conv = self.kda_d_conv(il);
        let di = self.last_dim(il, "ssm_conv1d_q.weight");
        let s_copy = self.inputs.s_copy.expect("recurrent state input");
        let rs = self.state_view(il);
        let rs_be = Some(self.g.backend_of(rs));
        let conv_all = self
            .g
            .op((d_conv - 1) * di * 3 * self.n_seq * F32, &[rs, s_copy]);
        let extra = self.g.view(conv_all);
        self.g.external(&[extra], rs_be);
        conv_all
    }

    /// bailingmoe3 builds a KDA layer's conv-state gather (whose copy `build_rs` expands at
    /// once) before the layer's norm, which only the convolutions' copies expand: it lands
    /// after the last node the graph already holds — the norm of layer 0, or the routed
    /// experts' sum (`build_moe_ffn` expands it) before the shared expert of the layer before.
    pub(super) fn kda_gather_early(&mut self, il: usize) {
        let trunk = il < self.graph_layers();
        if self.p.arch == "bailingmoe3" && trunk && self.kda_conv.is_none() && self.is_kda(il) {
            self.kda_conv = Some(self.kda_conv_gather(il));
        }
    }

    /// Whether the KDA decay is `lower_bound · sigmoid(...)` (`kda.gate_lower_bound`, kimi-k3
    /// and bailingmoe3) rather than kimi-linear's softplus.
    fn model_has_gate_lower_bound(&self) -> bool {
        let key = format!("{}.kda.gate_lower_bound", self.p.arch);
        self.model.get(&key).is_some()
    }

    fn kda_d_conv(&self, il: usize) -> u64 {
        self.model
            .tensor(&format!("blk.{il}.ssm_conv1d_q.weight"))
            .and_then(|w| w.dims.first().copied())
            .unwrap_or(4)
            .max(2)
    }

    /// KDA's output: copied out of the kernel's result, RMS-normed, gated by
    /// sigmoid(ssm_g_b(ssm_g_a(x))) (one full-rank ssm_g_a or ssm_g in bailingmoe3 and
    /// kimi-k3), copied again and projected.
    fn kda_output(&mut self, il: usize, x: Id, gdn: Id, dt: u64) -> Id {
        let (e, t) = (self.p.n_embd, self.cur_t);
        let out = self.g.view(gdn);
        let out = self.g.op(dt, &[out]); // cont
        let w_norm = self.weight(Some(il), "ssm_norm.weight");
        let n = self.g.op(dt, &[out]); // rms_norm of the copy's reshape
        let n = self.g.inplace(dt, &[n, w_norm]);
        let gate = if self.tensors.contains(&format!("blk.{il}.ssm_g.weight")) {
            ["ssm_g.weight", "ssm_g_b.weight"]
        } else {
            ["ssm_g_a.weight", "ssm_g_b.weight"]
        };
        let g2 = self.projection(il, x, gate, dt);
        let g2 = self.g.op(dt, &[g2]); // sigmoid of a reshape
        let w_out = self.weight(Some(il), "attn_output.weight");
        let y = self.g.inplace(dt, &[n, g2]);
        let y = self.g.op(dt, &[y]); // cont
        self.g.op(e * t * F32, &[w_out, y])
    }

    pub(super) fn is_gdn(&self, il: usize) -> bool {
        let has = |n: &str| self.tensors.contains(&format!("blk.{il}.{n}.weight"));
        match self.p.arch.as_str() {
            // qwen4exp's linear layers (models/qwen4exp.cpp build_layer_attn_linear) are
            // qwen35's with a sigmoid output gate, a unary op in place all the same
            "qwen35" | "qwen35moe" | "qwen4exp" => has("attn_qkv") && has("ssm_beta"),
            "qwen3next" => has("ssm_in") && has("ssm_ba"),
            _ => false,
        }
    }

    fn ssm_key(&self, key: &str) -> u64 {
        let k = format!("{}.ssm.{key}", self.p.arch);
        self.model
            .get(&k)
            .and_then(|v| v.as_u64())
            .unwrap_or(1)
            .max(1)
    }

    /// One Gated DeltaNet mixer on the normed input `x`.
    pub(super) fn gated_delta_net(&mut self, il: usize, x: Id) -> Id {
        if self.place.device() {
            self.approximate("recipe-approx-gated-deltanet-gpu-backend");
        }
        // qwen3next repeats Q and K to the value heads; qwen35's fused kernel broadcasts them
        let next = self.p.arch == "qwen3next";
        let (t, ns) = (self.cur_t, self.n_seq);
        let (di, ds) = (self.ssm_key("inner_size"), self.ssm_key("state_size"));
        let (n_k, n_v) = (self.ssm_key("group_count"), self.ssm_key("time_step_rank"));
        let kernel = self.ssm_key("conv_kernel");
        let head_v = di / n_v;
        let ch = di + 2 * n_k * ds;
        let s_copy = self.inputs.s_copy.expect("recurrent state input");
        let rs = self.state_view(il);
        let rs_be = Some(self.g.backend_of(rs));
        let w_in = if next {
            "ssm_in.weight"
        } else {
            "attn_qkv.weight"
        };
        let [w_qkv, w_conv, w_dt, w_a, w_norm, w_out] = self.weights(
            il,
            [
                w_in,
                "ssm_conv1d.weight",
                "ssm_dt.bias",
                "ssm_a",
                "ssm_norm.weight",
                "ssm_out.weight",
            ],
        );
        // build_conv_state: the conv states gathered (build_rs), the extra ones copied back.
        let conv_all = self.g.op((kernel - 1) * ch * ns * F32, &[rs, s_copy]);
        let conv = self.g.view(conv_all);
        let extra = self.g.view(conv_all);
        self.g.external(&[extra], rs_be);
        let (qkv, mixed) = self.gdn_projection(x, w_qkv, (ch, di, n_k * ds * t * F32));
        let qkv_t = self.g.view(qkv); // transpose
        let conv_in = self
            .g
            .op((kernel - 1 + t / ns) * ch * ns * F32, &[conv, qkv_t]);
        let mut last = self.g.view(conv_in);
        if self.p.arch == "qwen4exp" {
            // build_conv_state_at copies a cont of the tail (one rollback slot by default)
            last = self.g.op((kernel - 1) * ch * ns * F32, &[last]);
        }
        self.g.external(&[last], rs_be); // conv_state_update
                                         // build_rs over the recurrent state (head_v² per value head and sequence).
        let s_all = self.g.op(head_v * head_v * n_v * ns * F32, &[rs, s_copy]);
        let state = self.g.view(s_all);
        let extra = self.g.view(s_all);
        self.g.external(&[extra], rs_be);
        let c = self.g.op(ch * t * F32, &[conv_in, w_conv]); // ssm_conv
        let c = self.g.inplace(ch * t * F32, &[c]); // silu
        let (q, k, v) = (self.g.view(c), self.g.view(c), self.g.view(c));
        let qk = n_k * ds * t * F32;
        let repeat = next && n_k != n_v;
        let [q, k] = [q, k].map(|y| {
            let y = self.g.op(qk, &[y]); // build_gdn_l2_norm: rms_norm of the view
            let y = self.g.inplace(qk, &[y]); // scale
            if repeat {
                self.g.op(ds * n_v * t * F32, &[y]) // repeat to the value heads
            } else {
                y
            }
        });
        let vt = n_v * t * F32;
        let (gate, beta) = self.gdn_gate_beta(il, x, (w_dt, w_a), vt);
        let out_bytes = (head_v * n_v * t + head_v * head_v * n_v * ns) * F32;
        let gdn = self.g.op(out_bytes, &[q, k, v, gate, beta, state]);
        let new_state = self.g.view(gdn);
        self.g.external(&[new_state], rs_be);
        let out = self.g.view(gdn);
        self.gdn_output(il, (x, out, mixed), (w_norm, w_out), di)
    }

    /// build_norm_gated — rms_norm(output) · ssm_norm · silu(z), z copied out of the projection
    /// (qwen3next) or projected by attn_gate (qwen35) — then ssm_out.
    fn gdn_output(
        &mut self,
        il: usize,
        (x, out, mixed): (Id, Id, Option<Id>),
        (w_norm, w_out): (Id, Id),
        di: u64,
    ) -> Id {
        let (e, t) = (self.p.n_embd, self.cur_t);
        let n = self.g.op(di * t * F32, &[out]);
        let n = self.g.inplace(di * t * F32, &[n, w_norm]);
        let z = match mixed {
            Some(m) => {
                let zv = self.g.view(m);
                self.g.op(di * t * F32, &[zv]) // cont
            }
            None => {
                let w_z = self.weight(Some(il), "attn_gate.weight");
                self.g.op(di * t * F32, &[w_z, x])
            }
        };
        let z = self.g.inplace(di * t * F32, &[z]); // silu
        let y = self.g.inplace(di * t * F32, &[n, z]);
        let y = self.g.view(y); // reshape
        self.g.op(e * t * F32, &[w_out, y])
    }

    /// The projection feeding the convolution (`ch` channels): attn_qkv (qwen35), or ssm_in to
    /// Q, K, V and z with Q, K (`qk` bytes each) and V copied out and joined (qwen3next, whose
    /// projection is returned too: z is read from it at the end).
    fn gdn_projection(&mut self, x: Id, w: Id, (ch, di, qk): (u64, u64, u64)) -> (Id, Option<Id>) {
        let t = self.cur_t;
        if self.p.arch != "qwen3next" {
            return (self.g.op(ch * t * F32, &[w, x]), None);
        }
        let mixed = self.g.op((ch + di) * t * F32, &[w, x]);
        let (qv, kv, vv) = (self.g.view(mixed), self.g.view(mixed), self.g.view(mixed));
        let q = self.g.op(qk, &[qv]);
        let k = self.g.op(qk, &[kv]);
        let qk = self.g.op(2 * qk, &[q, k]);
        let v = self.g.op(di * t * F32, &[vv]);
        (self.g.op(ch * t * F32, &[qk, v]), Some(mixed))
    }

    /// The decay gate (softplus of alpha plus dt, times A) and beta (a sigmoid): from ssm_alpha
    /// and ssm_beta (qwen35), or copied out of one ssm_ba projection (qwen3next).
    fn gdn_gate_beta(&mut self, il: usize, x: Id, (w_dt, w_a): (Id, Id), vt: u64) -> (Id, Id) {
        let (alpha, beta_in) = if self.p.arch == "qwen3next" {
            let w_ba = self.weight(Some(il), "ssm_ba.weight");
            let ba = self.g.op(2 * vt, &[w_ba, x]);
            let (av, bv) = (self.g.view(ba), self.g.view(ba));
            let a = self.g.op(vt, &[av]); // cont
            (a, Some(bv))
        } else {
            let w_alpha = self.weight(Some(il), "ssm_alpha.weight");
            (self.g.op(vt, &[w_alpha, x]), None)
        };
        let alpha = self.g.inplace(vt, &[alpha, w_dt]);
        let alpha = self.g.inplace(vt, &[alpha]); // softplus
        let gate = self.g.inplace(vt, &[alpha, w_a]);
        let beta = match beta_in {
            Some(bv) => self.g.op(vt, &[bv]), // cont
            None => {
                let w_beta = self.weight(Some(il), "ssm_beta.weight");
                self.g.op(vt, &[w_beta, x])
            }
        };
        let beta = self.g.inplace(vt, &[beta]); // sigmoid
        (gate, beta)
    }
}
