//! Recurrent (state-space) layers: the Mamba-1 and Mamba-2 blocks and LFM2's short
//! convolution op for op; other recurrent architectures borrow Mamba-1's shape.

use crate::gguf::GgufModel;

use super::super::galloc::{Graph, Id};
use super::super::hparams::ModelParams;
use super::builder::Builder;
use super::F32;

/// Recurrent-state sizes of a Mamba-1 layer (`ssm.*` keys).
#[derive(Debug, Clone, Copy)]
pub(super) struct Ssm {
    d_conv: u64,
    d_inner: u64,
    d_state: u64,
    /// Mamba-1's time-step rank; Mamba-2's head count (`ssm_dt_rank`).
    dt_rank: u64,
    /// Mamba-2's groups of B and C (`ssm.group_count`).
    n_group: u64,
}

pub(super) fn ssm_of(model: &GgufModel, p: &ModelParams) -> Ssm {
    let key = |k: &str| {
        model
            .get(&format!("{}.{k}", p.arch))
            .and_then(|v| v.as_u64())
    };
    Ssm {
        d_conv: key("ssm.conv_kernel").unwrap_or(4),
        d_inner: key("ssm.inner_size").unwrap_or(2 * p.n_embd),
        d_state: key("ssm.state_size").unwrap_or(16),
        dt_rank: key("ssm.time_step_rank").unwrap_or(p.n_embd.div_ceil(16)),
        n_group: key("ssm.group_count").unwrap_or(1).max(1),
    }
}

/// A Mamba-1 block (`build_mamba_layer`): the conv state gathered per sequence and joined to the
/// projected input, the causal convolution, the selective scan, the gated output projection.
/// Other recurrent architectures (Mamba-2, RWKV) are counted with the same shape.
pub(super) fn recurrent_block(
    g: &mut Graph,
    m: Ssm,
    (x, t): (Id, u64),
    (s_copy, n_seq): (Id, u64),
    [w_in, w_conv, w_x, w_dt, w_out]: [Id; 5],
    rs: Id,
) -> Id {
    let di = m.d_inner;
    let rs_be = Some(g.backend_of(rs));
    let conv_in = g.op((m.d_conv - 1).max(1) * di * n_seq * F32, &[rs, s_copy]);
    let ci = g.view(conv_in);
    let cv = g.view(ci);
    g.external(&[cv], rs_be); // the state copied back into the cache
    let xz = g.op(2 * di * t * F32, &[w_in, x]);
    let xv = g.view(xz);
    let xt = g.view(xv);
    let cat = g.op(((m.d_conv - 1) + t / n_seq) * di * n_seq * F32, &[ci, xt]);
    let last = g.view(cat);
    g.external(&[last], rs_be);
    let conv = g.op(di * t * F32, &[cat, w_conv]);
    let conv = g.inplace(di * t * F32, &[conv]); // + bias
    let conv = g.inplace(di * t * F32, &[conv]); // silu
    let x_db = g.op((m.dt_rank + 2 * m.d_state) * t * F32, &[w_x, conv]);
    let dtv = g.view(x_db);
    let dt_c = g.op(m.dt_rank * t * F32, &[dtv]);
    let dt = g.op(di * t * F32, &[w_dt, dt_c]);
    let dt = g.inplace(di * t * F32, &[dt]); // + bias
    let bv = g.view(x_db);
    let cvv = g.view(x_db);
    let scan = g.op(
        di * t * F32 + m.d_state * di * n_seq * F32,
        &[conv, dt, bv, cvv, s_copy],
    );
    let sv = g.view(scan);
    g.external(&[sv], rs_be);
    let zv = g.view(xz);
    let z = g.op(di * t * F32, &[zv]);
    let y = g.inplace(di * t * F32, &[conv]); // * D
    let yv = g.view(scan);
    let y = g.inplace(di * t * F32, &[yv, y]);
    let gated = g.op(di * t * F32, &[z, y]);
    let out = g.op(g.bytes(x), &[w_out, gated]); // ssm_out: back to n_embd × n_tokens
    g.view(out)
}

/// A Mamba-2 block (models/mamba-base.cpp `build_mamba2_layer`, one rollback slot): the conv
/// states gathered per sequence (`build_rs`), one input projection split into z, xBC and dt,
/// the causal convolution over xBC, the per-head scan (its states copied back into the cache),
/// y + x·D, the SwiGLU gate with z, the grouped RMS norm (where `ssm_norm` exists) and the
/// output projection. Weights: `[ssm_in, ssm_conv1d, ssm_conv1d.bias, ssm_dt.bias, ssm_d,
/// ssm_norm, ssm_out]`.
pub(super) fn mamba2_block(
    g: &mut Graph,
    m: Ssm,
    (x, t): (Id, u64),
    (s_copy, n_seq): (Id, u64),
    [w_in, w_conv, w_conv_b, w_dt_b, w_d, w_norm, w_out]: [Id; 7],
    (rs, has_norm): (Id, bool),
) -> Id {
    let (di, ds, nh) = (m.d_inner, m.d_state, m.dt_rank);
    let xbc = di + 2 * m.n_group * ds;
    let rs_be = Some(g.backend_of(rs));
    // build_rs: get_rows of every sequence's conv state; the extra states copied back.
    let conv_all = g.op((m.d_conv - 1).max(1) * xbc * n_seq * F32, &[rs, s_copy]);
    let conv = g.view(conv_all);
    let extra = g.view(conv);
    g.external(&[extra], rs_be);
    let zx = g.op((2 * di + 2 * m.n_group * ds + nh) * t * F32, &[w_in, x]);
    let zx = g.view(zx); // reshape_3d
    let (z, xbc_in, dt) = (g.view(zx), g.view(zx), g.view(zx));
    let conv = g.view(conv); // reshape_3d
    let xbc_t = g.view(xbc_in); // transpose
    let conv_x = g.op(
        ((m.d_conv - 1) + t / n_seq) * xbc * n_seq * F32,
        &[conv, xbc_t],
    );
    let last = g.view(conv_x);
    g.external(&[last], rs_be); // the last d_conv - 1 columns into the cache
    let c = g.op(xbc * t * F32, &[conv_x, w_conv]); // ssm_conv
    let c = g.inplace(xbc * t * F32, &[c, w_conv_b]);
    let c = g.inplace(xbc * t * F32, &[c]); // silu
    let (xv, bv, cv) = (g.view(c), g.view(c), g.view(c));
    let dt = g.op(nh * t * F32, &[dt]); // cont
    let dt = g.inplace(nh * t * F32, &[dt, w_dt_b]);
    // build_rs with get_ssm_rows: the scan reading the ubatch's states from the cache is
    // expanded first; then the extra states' copy, whose get_rows over s_copy's tail has
    // n_rs - 1 = n_seq - 1 rows in the reserve (the memory is full) (GGML_SCHED_DEBUG order).
    let scan = g.op(
        di * t * F32 + ds * di * n_seq * F32,
        &[rs, xv, dt, bv, cv, s_copy],
    );
    if n_seq > 1 {
        let gathered = g.op(ds * di * (n_seq - 1) * F32, &[rs, s_copy]);
        let extra = g.view(gathered);
        g.external(&[extra], rs_be);
    }
    let states = g.view(scan);
    g.external(&[states], rs_be);
    let y = g.view(scan);
    // ggml_swiglu_split(ggml_cont(z), y + x·D): the graph visits the cont first.
    let z = g.op(di * t * F32, &[z]);
    let xd = g.inplace(di * t * F32, &[xv, w_d]); // x * D
    let y = g.inplace(di * t * F32, &[y, xd]);
    let mut y = g.op(di * t * F32, &[z, y]); // swiglu_split
    if has_norm {
        let r = g.view(y); // reshape_4d into groups
        let n = g.inplace(di * t * F32, &[r]); // rms_norm
        y = g.inplace(di * t * F32, &[n, w_norm]);
    }
    let y = g.view(y); // reshape_2d
    g.op(g.bytes(x), &[w_out, y])
}

/// LFM2's short-convolution block (models/lfm2.cpp `build_shortconv_block`, causal, one
/// rollback slot): the conv state gathered first (`build_rs` expands it), in_proj to B, C, x,
/// B·x prepended with the state, the state written back, the depthwise conv, C · conv, out_proj.
/// `d_conv`: `shortconv.l_cache - 1`; weights `[in_proj, conv, out_proj]`.
pub(super) fn shortconv_block(
    g: &mut Graph,
    (d_conv, n_embd): (u64, u64),
    (x, t): (Id, u64),
    (s_copy, n_seq): (Id, u64),
    [w_in, w_conv, w_out]: [Id; 3],
    rs: Id,
) -> Id {
    let rs_be = Some(g.backend_of(rs));
    let conv_all = g.op(d_conv * n_embd * n_seq * F32, &[rs, s_copy]);
    let conv = g.view(conv_all);
    let extra = g.view(conv);
    g.external(&[extra], rs_be);
    let xr = g.view(x); // reshape_3d
    let bcx = g.op(3 * n_embd * t * F32, &[w_in, xr]);
    let (b, c, xv) = (g.view(bcx), g.view(bcx), g.view(bcx));
    let bx = g.inplace(n_embd * t * F32, &[b, xv]);
    let bx = g.view(bx); // transpose
    let conv = g.view(conv); // reshape_3d
    let cat = g.op((d_conv + t / n_seq) * n_embd * n_seq * F32, &[conv, bx]);
    let snap = g.view(cat);
    g.external(&[snap], rs_be);
    let co = g.op(n_embd * t * F32, &[cat, w_conv]); // ssm_conv
    let y = g.inplace(n_embd * t * F32, &[c, co]);
    let y = g.op(n_embd * t * F32, &[w_out, y]);
    g.view(y) // reshape_2d
}

impl Builder<'_> {
    /// A recurrent layer's mixer (Mamba-1's block).
    pub(super) fn recurrent(&mut self, il: usize, x: Id) -> Id {
        // Mamba-1 is written op for op; other recurrent blocks borrow its shape, named by kind.
        if self.is_gdn(il) {
            return self.gated_delta_net(il, x);
        }
        if self.is_kda(il) {
            return self.kda(il, x);
        }
        match self.p.arch.as_str() {
            "mamba" => {}
            "qwen3next" | "qwen35" | "qwen35moe" => {
                self.approximate("recipe-approx-gated-deltanet-layers-build")
            }
            "kimi-linear" | "kimi-k3" | "bailingmoe3" | "glm5-next" => {
                self.approximate("recipe-approx-kda-layers-kimi-delta")
            }
            // models/mamba-base.cpp build_mamba2_layer, replayed op for op (ssm.rs).
            "mamba2" | "granitehybrid" | "falcon-h1" | "nemotron_h" | "nemotron_h_moe" => {
                return self.mamba2(il, x)
            }
            // models/lfm2.cpp build_shortconv_block, replayed op for op (ssm.rs).
            "lfm2" | "lfm2moe" => return self.shortconv(il, x),
            // models/minimax-01.cpp, replayed op for op (`lightning`).
            "minimax-01" => return self.lightning(il, x),
            a if a.starts_with("rwkv") => self.approximate("recipe-approx-rwkv-time-mix-channel"),
            _ => self.approximate("recipe-approx-recurrent-layers-mamba-1"),
        }
        if self.place.device() {
            // Where the scheduler puts the scan, its biases and the state copies depends on
            // which of these ops the device runs (lavapipe runs no SSM_SCAN): not replayed.
            self.approximate("recipe-approx-recurrent-layers-gpu-backend");
        }
        let s_copy = self.inputs.s_copy.expect("recurrent state input");
        let ws = self.weights(
            il,
            [
                "ssm_in.weight",
                "ssm_conv1d.weight",
                "ssm_x.weight",
                "ssm_dt.weight",
                "ssm_out.weight",
            ],
        );
        let rs = self.state_view(il);
        let ssm = ssm_of(self.model, self.p);
        let (t, n_seq) = (self.cur_t, self.n_seq);
        recurrent_block(&mut self.g, ssm, (x, t), (s_copy, n_seq), ws, rs)
    }

    /// A Mamba-2 layer's mixer (`build_mamba2_layer`).
    pub(super) fn mamba2(&mut self, il: usize, x: Id) -> Id {
        if self.place.device() {
            self.approximate("recipe-approx-recurrent-layers-gpu-backend");
        }
        let s_copy = self.inputs.s_copy.expect("recurrent state input");
        let has_norm = self
            .model
            .tensor(&format!("blk.{il}.ssm_norm.weight"))
            .is_some();
        let ws = self.weights(
            il,
            [
                "ssm_in.weight",
                "ssm_conv1d.weight",
                "ssm_conv1d.bias",
                "ssm_dt.bias",
                "ssm_d",
                "ssm_norm.weight",
                "ssm_out.weight",
            ],
        );
        let rs = self.state_view(il);
        let ssm = ssm_of(self.model, self.p);
        let (t, n_seq) = (self.cur_t, self.n_seq);
        mamba2_block(
            &mut self.g,
            ssm,
            (x, t),
            (s_copy, n_seq),
            ws,
            (rs, has_norm),
        )
    }

    /// An LFM2 short-convolution layer's mixer (`build_shortconv_block`).
    pub(super) fn shortconv(&mut self, il: usize, x: Id) -> Id {
        if self.place.device() {
            self.approximate("recipe-approx-recurrent-layers-gpu-backend");
        }
        let s_copy = self.inputs.s_copy.expect("recurrent state input");
        let key = format!("{}.shortconv.l_cache", self.p.arch);
        let l_cache = self.model.get(&key).and_then(|v| v.as_u64()).unwrap_or(3);
        let ws = self.weights(
            il,
            [
                "shortconv.in_proj.weight",
                "shortconv.conv.weight",
                "shortconv.out_proj.weight",
            ],
        );
        let rs = self.state_view(il);
        let (t, n_seq) = (self.cur_t, self.n_seq);
        let d = (l_cache.max(2) - 1, self.p.n_embd);
        shortconv_block(&mut self.g, d, (x, t), (s_copy, n_seq), ws, rs)
    }

    /// MiniMax-01's inputs (`llm_graph_input_la`, models/minimax-01.cpp): slopes per head, q and
    /// k decays per head and token, and the diagonal decay, n_seq_tokens² per head. The graph is
    /// reserved for one sequence (llama_context::sched_reserve, TAG_RESERVE_DIAG_DECAY), so
    /// n_seq_tokens is the whole micro-batch.
    pub(super) fn lightning_inputs(&mut self) -> Option<[Id; 4]> {
        if self.p.arch != "minimax-01" {
            return None;
        }
        let (h, t) = (self.p.n_head.first().copied().unwrap_or(1), self.cur_t);
        Some([h * 4, h * t * 4, h * t * 4, t * t * h * 4].map(|b| self.g.input(b)))
    }

    /// A MiniMax-01 lightning-attention layer (models/minimax-01.cpp), in the graph's order: the
    /// state gathers, the fused QKV (SiLU), the decayed inter-block product with the old state,
    /// the intra-block scores times the diagonal decay (n_seq_tokens² per head), the new state
    /// written back, the permuted output's RMS norm, the sigmoid gate and the projection.
    fn lightning(&mut self, il: usize, x: Id) -> Id {
        let (Some([slopes, q_in, k_in, diag_in]), Some(s_copy)) =
            (self.inputs.lightning, self.inputs.s_copy)
        else {
            return x;
        };
        if self.place.device() {
            self.approximate("recipe-approx-recurrent-layers-gpu-backend");
        }
        let (e, t, ns) = (self.p.n_embd, self.cur_t, self.n_seq);
        let h = self.p.n_head.get(il).copied().unwrap_or(1);
        let d = self.p.head_k.get(il).copied().unwrap_or(1);
        let hd = h * d * t * F32;
        let s_elems = d * d * h;
        let r_elems = self
            .p
            .rs_elems_per_layer
            .unwrap_or(s_elems)
            .saturating_sub(s_elems);
        let rs = self.state_view(il);
        let rs_be = Some(self.g.backend_of(rs));
        let mut kv_old = rs;
        for size in [r_elems, s_elems] {
            // build_rs: get_rows over every sequence's state, the extra ones copied back
            let all = self.g.op(size * ns * F32, &[rs, s_copy]);
            kv_old = self.g.view(all);
            let extra = self.g.view(all);
            self.g.external(&[extra], rs_be);
        }
        let [w_qkv, w_norm2, w_gate, w_out] = self.weights(
            il,
            [
                "attn_qkv.weight",
                "attn_norm_2.weight",
                "attn_gate.weight",
                "attn_output.weight",
            ],
        );
        let qkv = self.g.op(3 * hd, &[w_qkv, x]);
        let qkv = self.g.inplace(3 * hd, &[qkv]); // silu
        let (q, k, v) = (self.g.view(qkv), self.g.view(qkv), self.g.view(qkv));
        let q_decay = self.g.op(h * t * F32, &[q_in]); // scale
        let q_decay = self.g.inplace(h * t * F32, &[q_decay]); // exp
        let q_s = self.g.inplace(hd, &[q, q_decay]);
        let none_diag = self.g.op(hd, &[kv_old, q_s]);
        let v_trans = self.g.op(hd, &[v]); // cont(permute)
        let qk = self.g.op(t * t * h * F32, &[k, q]);
        let diag = self.g.op(t * t * h * F32, &[diag_in]); // scale
        let diag = self.g.inplace(t * t * h * F32, &[diag]); // exp
        let qk = self.g.inplace(t * t * h * F32, &[qk, diag]);
        let diag_part = self.g.op(hd, &[v_trans, qk]);
        let out = self.g.inplace(hd, &[none_diag, diag_part]);
        // the new state: the old one decayed per block plus k·v of this block
        let rate = self.g.op(h * F32, &[slopes]); // slope_rate
        let block = self.g.op(h * F32, &[rate]); // scale
        let block = self.g.inplace(h * F32, &[block]); // exp
        let old_s = self.g.op(s_elems * F32, &[kv_old, block]);
        let k_decay = self.g.op(h * t * F32, &[k_in]); // scale
        let k_decay = self.g.inplace(h * t * F32, &[k_decay]); // exp
        let kd = self.g.inplace(hd, &[k, k_decay]);
        let kd = self.g.op(hd, &[kd]); // cont(permute)
        let kv_cur = self.g.op(s_elems * F32, &[kd, v_trans]);
        let kv_new = self.g.inplace(s_elems * F32, &[old_s, kv_cur]);
        self.g.external(&[kv_new], rs_be);
        let out = self.g.op(hd, &[out]); // cont(permute)
        let out = self.g.inplace(hd, &[out]); // rms_norm
        let out = self.g.inplace(hd, &[out, w_norm2]);
        let g = self.g.op(hd, &[w_gate, x]);
        let g = self.g.inplace(hd, &[g]); // sigmoid
        let y = self.g.inplace(hd, &[g, out]);
        self.g.op(e * t * F32, &[w_out, y])
    }
}
