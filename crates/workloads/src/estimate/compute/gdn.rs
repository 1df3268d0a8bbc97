//! Qwen3.5's Gated DeltaNet layers (models/qwen35.cpp `build_layer_attn_linear`, qwen35moe
//! alike), in the order GGML_SCHED_DEBUG=2 lists b11434's nodes: the conv state gathered, the
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
    /// Whether layer `il` is a Gated DeltaNet layer this replay writes (qwen35's tensors).
    pub(super) fn is_gdn(&self, il: usize) -> bool {
        matches!(self.p.arch.as_str(), "qwen35" | "qwen35moe")
            && self.tensors.contains(&format!("blk.{il}.attn_qkv.weight"))
            && self.tensors.contains(&format!("blk.{il}.ssm_beta.weight"))
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
            self.approximate("Gated DeltaNet on a GPU backend: the fused kernel assumed");
        }
        let (e, t, ns) = (self.p.n_embd, self.cur_t, self.n_seq);
        let (di, ds) = (self.ssm_key("inner_size"), self.ssm_key("state_size"));
        let (n_k, n_v) = (self.ssm_key("group_count"), self.ssm_key("time_step_rank"));
        let kernel = self.ssm_key("conv_kernel");
        let head_v = di / n_v;
        let ch = di + 2 * n_k * ds;
        let s_copy = self.inputs.s_copy.expect("recurrent state input");
        let rs = self.state_view(il);
        let rs_be = Some(self.g.backend_of(rs));
        let [w_qkv, w_conv, w_alpha, w_dt, w_a, w_beta, w_z, w_norm, w_out] = self.weights(
            il,
            [
                "attn_qkv.weight",
                "ssm_conv1d.weight",
                "ssm_alpha.weight",
                "ssm_dt.bias",
                "ssm_a",
                "ssm_beta.weight",
                "attn_gate.weight",
                "ssm_norm.weight",
                "ssm_out.weight",
            ],
        );
        // build_conv_state: the conv states gathered (build_rs), the extra ones copied back.
        let conv_all = self.g.op((kernel - 1) * ch * ns * F32, &[rs, s_copy]);
        let conv = self.g.view(conv_all);
        let extra = self.g.view(conv_all);
        self.g.external(&[extra], rs_be);
        let qkv = self.g.op(ch * t * F32, &[w_qkv, x]);
        let qkv_t = self.g.view(qkv); // transpose
        let conv_in = self
            .g
            .op((kernel - 1 + t / ns) * ch * ns * F32, &[conv, qkv_t]);
        let last = self.g.view(conv_in);
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
        let q = self.g.op(qk, &[q]); // build_gdn_l2_norm: rms_norm of the view
        let q = self.g.inplace(qk, &[q]); // scale
        let k = self.g.op(qk, &[k]);
        let k = self.g.inplace(qk, &[k]);
        let vt = n_v * t * F32;
        let alpha = self.g.op(vt, &[w_alpha, x]);
        let alpha = self.g.inplace(vt, &[alpha, w_dt]);
        let alpha = self.g.inplace(vt, &[alpha]); // softplus
        let gate = self.g.inplace(vt, &[alpha, w_a]);
        let beta = self.g.op(vt, &[w_beta, x]);
        let beta = self.g.inplace(vt, &[beta]); // sigmoid
        let out_bytes = (head_v * n_v * t + head_v * head_v * n_v * ns) * F32;
        let gdn = self.g.op(out_bytes, &[q, k, v, gate, beta, state]);
        let new_state = self.g.view(gdn);
        self.g.external(&[new_state], rs_be);
        let out = self.g.view(gdn);
        // build_norm_gated: rms_norm(output) · ssm_norm · silu(z)
        let n = self.g.op(di * t * F32, &[out]);
        let n = self.g.inplace(di * t * F32, &[n, w_norm]);
        let z = self.g.op(di * t * F32, &[w_z, x]);
        let z = self.g.inplace(di * t * F32, &[z]); // silu
        let y = self.g.inplace(di * t * F32, &[n, z]);
        let y = self.g.view(y); // reshape
        self.g.op(e * t * F32, &[w_out, y])
    }
}
