//! DeepSeek V4's graph as b11434 builds it (models/deepseek4.cpp `graph::graph`): 4
//! hyper-connection streams around every attention and FFN block (the fused `ggml_dsv4_hc_pre`
//! / `_comb` / `_post`), an attention over the raw sliding-window cache joined to a compressed
//! cache (CSA: ratio 4, with the lightning indexer's top-k mask; HCA: ratio 128) whose
//! compressors (`dsv4_compress.rs`) read and write their states in the graph, a grouped
//! low-rank output projection, sqrt-softplus MoE with a shared expert, and a learned head
//! collapsing the streams. Inputs and caches are `llama_kv_cache_dsv4`'s (`estimate/dsv4.rs`).

use super::super::galloc::{Graph, Id};
use super::builder::Builder;
use super::ihc::coefficients;
use super::{Dsv4Caches, F32};

/// `DSV4_CSA_RATIO`, `DSV4_HCA_RATIO`.
pub(super) const CSA: u64 = 4;
pub(super) const HCA: u64 = 128;

/// The shapes the graph's tensors take, from the file and the caches.
pub(super) struct Shape {
    pub(super) e: u64,
    pub(super) n_head: u64,
    pub(super) head: u64,
    pub(super) q_lora: u64,
    pub(super) o_rank: u64,
    pub(super) hc: u64,
    pub(super) idx_heads: u64,
    pub(super) idx_dim: u64,
    pub(super) top_k: u64,
    pub(super) ratios: Vec<u64>,
    /// Layers whose experts a token-id table picks (`hash_layer_count`).
    pub(super) hash_layers: usize,
    pub(super) weights_scale: bool,
    /// Graph streams: one per sequence (`dsv4_comp_graph_n_stream` in the reserve).
    pub(super) streams: u64,
    pub(super) n_seq: u64,
    /// Cells per stream of the raw window cache and the CSA/indexer and HCA caches.
    pub(super) cells: [u64; 3],
    /// Bytes of each mask element: the attention's (F16 with flash attention) and the indexer's.
    pub(super) mask_el: u64,
    /// The K rows are quantized: Q, K and the compressed rows are Hadamard-rotated.
    pub(super) rotated: bool,
}

/// One compressor's per-ubatch inputs (`dsv4_build_comp_inputs`).
#[derive(Clone, Copy)]
pub(super) struct CompInputs {
    pub(super) read: Id,
    pub(super) pos: Id,
    pub(super) write_pos: Id,
    pub(super) write_idx: Id,
    pub(super) persist: [Id; 2],
    pub(super) k_rot: Option<Id>,
}

/// Every graph input, in the order the graph first reads them.
pub(super) struct Inputs {
    pub(super) tokens: Id,
    pub(super) pos: Id,
    pub(super) raw_idx: Id,
    pub(super) raw_mask: Id,
    pub(super) raw_rot: Option<Id>,
    pub(super) csa: Option<CompInputs>,
    pub(super) lid: Option<CompInputs>,
    pub(super) hca: Option<CompInputs>,
    pub(super) lid_mask: Option<Id>,
    pub(super) csa_mask: Option<Id>,
    pub(super) hca_mask: Option<Id>,
    pub(super) out_ids: Id,
}

/// The Hadamard rotation's size for a K row of `n` (llama_kv_cache's `n_rot_k`): 64, doubled
/// while it divides the row; none where 64 does not.
fn rot_size(n: u64) -> Option<u64> {
    if n == 0 || !n.is_multiple_of(64) {
        return None;
    }
    let mut r = 64;
    while n.is_multiple_of(2 * r) {
        r *= 2;
    }
    Some(r)
}

impl Shape {
    /// Every tensor the graph would create stays under `MAX_TENSOR` (a header can claim any
    /// width): the rows per token of the largest ones, times the tokens, in f32.
    fn bounded(&self, t: u64, layers: &[super::layers::Layer]) -> bool {
        let w = |v: &[u64]| v.iter().fold(1u128, |a, &x| a.saturating_mul(x as u128));
        let cells = self.cells.iter().map(|&c| c as u128).sum::<u128>();
        let rows = [
            w(&[self.n_head, self.head]),
            w(&[self.idx_heads, self.idx_dim]),
            cells.saturating_mul(self.n_head.max(1) as u128),
            w(&[self.hc, self.e]),
            w(&[2 + self.hc, self.hc]),
            w(&[self.q_lora]),
            w(&[self.o_rank]),
        ];
        // The experts' rows: n_embd and n_ff per used expert, the router's scores.
        let experts = layers
            .iter()
            .filter_map(|l| l.moe)
            .flat_map(|(n, u, ff)| [w(&[self.e, u]), w(&[u, ff]), n as u128]);
        let widest = rows.into_iter().chain(experts).max().unwrap_or(0);
        widest.saturating_mul(t as u128).saturating_mul(8) <= super::MAX_TENSOR && self.hc <= 64
    }

    /// `n_blocks` of a compressor (`dsv4_build_comp_plan`): floor(n_tokens / ratio) + n_seqs.
    pub(super) fn blocks(&self, t: u64, ratio: u64) -> u64 {
        t / ratio + self.n_seq
    }

    /// State rows per stream: 2 ratio (overlapping CSA and indexer), 128 (HCA).
    pub(super) fn state_rows(ratio: u64) -> u64 {
        if ratio == CSA {
            2 * CSA
        } else {
            HCA
        }
    }
}

impl Builder<'_> {
    /// The whole deepseek4 graph; the logits' bytes. `None` for another architecture, or (said
    /// approximate) a deepseek4 file without what the graph is built from.
    pub(super) fn dsv4_graph(&mut self) -> Option<u64> {
        if self.p.arch != "deepseek4" {
            return None;
        }
        let Some(s) = self.dsv4_shape() else {
            self.approximate("recipe-approx-deepseek-v4-graph-not");
            return None;
        };
        let ins = self.dsv4_inputs(&s);
        let embd = self.embeddings();
        let v = self.g.view(embd);
        // hc_init: ggml_repeat_4d
        let mut x = self.g.op(s.hc * self.et(), &[v]);
        // The trunk only: MTP layers run in a graph of their own (`graph_mtp`).
        let n_layer = super::super::dsv4::trunk(self.model, self.p)
            .min(self.layers.len())
            .min(s.ratios.len());
        if s.hash_layers > 0 {
            self.approximate("recipe-approx-deepseek4-hash-routed-layers");
        }
        for il in 0..n_layer {
            x = self.dsv4_layer(il, x, &s, &ins);
        }
        // The output rows of every stream, then build_hc_head.
        let n_out = self.n_outputs;
        let flat = self.g.view(x);
        let rows = self.g.op(s.hc * s.e * n_out * F32, &[flat, ins.out_ids]);
        self.cur_t = n_out;
        self.g.rows = n_out;
        let head = self.dsv4_head(rows, &s);
        Some(self.output(head))
    }

    /// The shapes, or `None` when the model is not deepseek4 or its caches are unknown.
    fn dsv4_shape(&self) -> Option<Shape> {
        let caches: &Dsv4Caches = self.place.dsv4.as_ref()?;
        let key = |k: &str| {
            self.model
                .get(&format!("deepseek4.{k}"))
                .and_then(|v| v.as_u64())
        };
        let dim =
            |name: &str, i: usize| self.model.tensor(name).and_then(|t| t.dims.get(i).copied());
        let ratios = match self.model.get("deepseek4.attention.compress_ratios") {
            Some(crate::gguf::MetaValue::Array(a)) => a
                .values
                .as_ref()?
                .iter()
                .map(|v| v.as_u64())
                .collect::<Option<Vec<u64>>>()?,
            _ => return None,
        };
        let l0 = self.layers.first()?;
        let n_seq = self.r.n_seq.max(1);
        let scale = self
            .model
            .get("deepseek4.expert_weights_scale")
            .and_then(|v| v.as_f64())
            .unwrap_or(1.0);
        let cells = |name: &str| caches.parts.iter().find(|c| c.0 == name).map(|c| c.1);
        let csa = cells("csa").unwrap_or(0);
        let shape = Shape {
            e: self.p.n_embd,
            n_head: l0.n_head,
            head: l0.head_k,
            q_lora: dim("blk.0.attn_q_a.weight", 1)?,
            o_rank: dim("blk.0.attn_output_a.weight", 1)? * dim("blk.0.attn_output_a.weight", 2)?,
            hc: key("hyper_connection.count")?.max(1),
            idx_heads: key("attention.indexer.head_count").unwrap_or(0),
            idx_dim: key("attention.indexer.key_length").unwrap_or(0),
            top_k: key("attention.indexer.top_k").unwrap_or(0).min(csa),
            ratios,
            hash_layers: key("hash_layer_count").unwrap_or(0) as usize,
            weights_scale: scale != 0.0 && scale != 1.0,
            streams: n_seq,
            n_seq,
            cells: [
                self.r.cells_swa.unwrap_or(self.r.cells_full),
                csa,
                cells("hca").unwrap_or(0),
            ],
            mask_el: if self.r.fa { 2 } else { 4 },
            rotated: caches.quantized,
        };
        shape.bounded(self.cur_t, self.layers).then_some(shape)
    }

    /// `build_inp_dsv4` and the others, in the order the graph first reads them.
    fn dsv4_inputs(&mut self, s: &Shape) -> Inputs {
        let t = self.cur_t;
        let has = |r: u64| s.ratios.iter().take(self.layers.len()).any(|&x| x == r);
        let (csa_on, hca_on) = (has(CSA), has(HCA));
        let tokens = self.token_inputs();
        let pos = self.g.input(t * 4);
        let raw_idx = self.g.input(t * 8);
        let raw_mask = self.g.input(s.cells[0] * t * s.mask_el);
        let rot = |g: &mut Graph, n: u64| rot_size(n).map(|r| g.input(r * r * F32));
        let raw_rot = s.rotated.then(|| rot(&mut self.g, s.head)).flatten();
        let comp = |g: &mut Graph, ratio: u64, k_rot: Option<u64>| {
            let nb = s.blocks(t, ratio);
            let overlap = if ratio == CSA { 2 } else { 1 };
            let read = g.input(overlap * ratio * nb * 4);
            let pos = g.input(t * 4);
            let write_pos = g.input(nb * 4);
            let k_rot = k_rot.and_then(|n| rot(g, n));
            let write_idx = g.input(nb * 8);
            let n_persist = t.min(Shape::state_rows(ratio) * s.streams);
            let persist = [g.input(n_persist * 4), g.input(n_persist * 4)];
            CompInputs {
                read,
                pos,
                write_pos,
                write_idx,
                persist,
                k_rot,
            }
        };
        let head_rot = s.rotated.then_some(s.head);
        let csa = csa_on.then(|| comp(&mut self.g, CSA, head_rot));
        // The indexer's keys are always rotated (llama_kv_cache: DeepSeek's lightning indexers).
        let lid = csa_on.then(|| comp(&mut self.g, CSA, Some(s.idx_dim)));
        let lid_mask = csa_on.then(|| self.g.input(s.cells[1] * t * 2));
        let csa_mask = csa_on.then(|| self.g.input(s.cells[1] * t * s.mask_el));
        let hca = hca_on.then(|| comp(&mut self.g, HCA, head_rot));
        let hca_mask = hca_on.then(|| self.g.input(s.cells[2] * t * s.mask_el));
        let out_ids = self.g.input(self.n_outputs * 4);
        Inputs {
            tokens,
            pos,
            raw_idx,
            raw_mask,
            raw_rot,
            csa,
            lid,
            hca,
            lid_mask,
            csa_mask,
            hca_mask,
            out_ids,
        }
    }

    /// One layer: hc_pre, attn_norm, the attention, hc_post; hc_pre, ffn_norm, MoE and the
    /// shared expert, hc_post.
    fn dsv4_layer(&mut self, il: usize, x: Id, s: &Shape, ins: &Inputs) -> Id {
        let (mixes, cur, _) = self.dsv4_hc_pre(il, x, s, "attn", false);
        let cur = self.norm(il, cur, "attn_norm.weight");
        let out = self.dsv4_attention(il, cur, s, ins);
        let (post, comb) = self.dsv4_hc_post_coef(il, mixes, s, "attn");
        let et = self.et();
        let x = self.g.op(s.hc * et, &[out, x, post, comb]);
        let (mixes, cur, pc) = self.dsv4_hc_pre(il, x, s, "ffn", true);
        let cur = self.norm(il, cur, "ffn_norm.weight");
        let out = self.dsv4_moe(il, cur, s, ins.tokens);
        let (post, comb) = match pc {
            Some(pc) => pc,
            None => self.dsv4_hc_post_coef(il, mixes, s, "ffn"),
        };
        self.g.op(s.hc * et, &[out, x, post, comb])
    }

    /// `build_hc_pre` (fused): the streams RMS-normed and projected to the mixing
    /// coefficients, the block's input stream. The FFN's post and comb are expanded first
    /// (`ggml_build_forward_expand(gf, post)`), the attention's after the attention.
    fn dsv4_hc_pre(
        &mut self,
        il: usize,
        x: Id,
        s: &Shape,
        part: &str,
        post_first: bool,
    ) -> (Id, Id, Option<(Id, Id)>) {
        let (t, et) = (self.cur_t, self.et());
        let [w_fn, scale, base] = self.hc_weights(il, part);
        let flat = self.g.view(x);
        let normed = self.g.inplace(s.hc * et, &[flat]);
        let mixes = self.g.op((2 + s.hc) * s.hc * t * F32, &[w_fn, normed]);
        let pc = post_first.then(|| self.dsv4_hc_post_coef(il, mixes, s, part));
        let pre = coefficients(&mut self.g, mixes, [scale, base], s.hc * t * F32, false);
        (mixes, self.g.op(et, &[x, pre]), pc)
    }

    /// hc_pre's post coefficients and the Sinkhorn comb (`ggml_dsv4_hc_comb`).
    fn dsv4_hc_post_coef(&mut self, il: usize, mixes: Id, s: &Shape, part: &str) -> (Id, Id) {
        let t = self.cur_t;
        let [scale, base] = self.weights(
            il,
            [
                &format!("hc_{part}_scale.weight"),
                &format!("hc_{part}_base.weight"),
            ],
        );
        let post = coefficients(&mut self.g, mixes, [scale, base], s.hc * t * F32, false);
        let comb = self.g.op(s.hc * s.hc * t * F32, &[mixes, scale, base]);
        (post, comb)
    }

    /// `build_hc_head` on the output rows: hc_head_fn's coefficients, then the streams
    /// weighted and summed one by one (the unfused `build_hc_pre`).
    fn dsv4_head(&mut self, rows: Id, s: &Shape) -> Id {
        let (t, et) = (self.cur_t, self.et());
        let w_fn = self.weight(None, "output_hc_fn.weight");
        let scale = self.weight(None, "output_hc_scale.weight");
        let base = self.weight(None, "output_hc_base.weight");
        let g = &mut self.g;
        let flat = g.view(rows);
        let normed = g.inplace(s.hc * et, &[flat]);
        let mixes = g.op(s.hc * t * F32, &[w_fn, normed]);
        let pre = g.inplace(s.hc * t * F32, &[mixes, scale]);
        let pre = g.inplace(s.hc * t * F32, &[pre, base]);
        let pre = g.inplace(s.hc * t * F32, &[pre]); // sigmoid
        let pre = g.inplace(s.hc * t * F32, &[pre]); // scale_bias
        let mut acc: Option<Id> = None;
        for _ in 0..s.hc {
            let (xh, wh) = (g.view(rows), g.view(pre));
            let cur = g.inplace(et, &[xh, wh]);
            acc = Some(match acc {
                Some(a) => g.inplace(et, &[a, cur]),
                None => cur,
            });
        }
        acc.unwrap_or(rows)
    }

    /// The MoE block (`build_moe_ffn` with sqrt-softplus gating, normalised weights and the
    /// SwiGLU clamp) plus the shared expert; hash layers pick experts by token id.
    fn dsv4_moe(&mut self, il: usize, x: Id, s: &Shape, tokens: Id) -> Id {
        let (t, et) = (self.cur_t, self.et());
        let l = &self.layers[il];
        let (n_exp, n_used, ff) = l.moe.unwrap_or((1, 1, 0));
        let shared_ff = l.shared_ff;
        let [gate_inp, up, gate, down] = self.moe_weights(il);
        let hashed = il < s.hash_layers;
        let bias = (!hashed).then(|| self.weight(Some(il), "exp_probs_b.bias"));
        let tid = hashed.then(|| self.weight(Some(il), "ffn_gate_tid2eid.weight"));
        let g = &mut self.g;
        let logits = g.op(n_exp * t * F32, &[gate_inp, x]);
        let sp = g.inplace(n_exp * t * F32, &[logits]); // softplus
        let probs = g.inplace(n_exp * t * F32, &[sp]); // sqrt
        let sel = match (bias, tid) {
            (Some(b), _) => {
                let biased = g.inplace(n_exp * t * F32, &[probs, b]);
                let sorted = g.op(n_exp * t * 4, &[biased]);
                g.view(sorted)
            }
            (None, Some(w)) => g.get_rows(n_used * t * 4, &[w, tokens]),
            _ => probs,
        };
        let pv = g.view(probs);
        let w = g.op(n_used * t * F32, &[pv, sel]);
        let sum = g.op(t * F32, &[w]);
        let sum = g.inplace(t * F32, &[sum]); // clamp
        let wv = g.view(w);
        let mut wn = g.inplace(n_used * t * F32, &[wv, sum]); // div
        if s.weights_scale {
            wn = g.inplace(n_used * t * F32, &[wn]);
        }
        let xv = g.view(x);
        let h = n_used * ff * t * F32;
        let gt = g.op(h, &[gate, xv, sel]);
        let u = g.op(h, &[up, xv, sel]);
        let act = g.op(h, &[gt, u]); // swiglu (clamped)
        let dn = g.op(e_used(s.e, n_used, t), &[down, act, sel]);
        let wnv = g.view(wn);
        let weighted = g.inplace(e_used(s.e, n_used, t), &[dn, wnv]);
        let mut moe_out: Option<Id> = None;
        for _ in 0..n_used.max(1) {
            let v = g.view(weighted);
            moe_out = Some(match moe_out {
                None => v,
                Some(a) => g.inplace(et, &[a, v]),
            });
        }
        let moe_out = moe_out.unwrap_or(weighted);
        if shared_ff == 0 {
            return moe_out;
        }
        let ws = self.weights(
            il,
            [
                "ffn_gate_shexp.weight",
                "ffn_up_shexp.weight",
                "ffn_down_shexp.weight",
            ],
        );
        let g = &mut self.g;
        let gs = g.op(shared_ff * t * F32, &[ws[0], x]);
        let us = g.op(shared_ff * t * F32, &[ws[1], x]);
        let act = g.op(shared_ff * t * F32, &[gs, us]);
        let sh = g.op(et, &[ws[2], act]);
        g.inplace(et, &[moe_out, sh])
    }

    /// A view of layer `il`'s compressed cache or state `name` (`half`: a state's kv or score
    /// tensor) on the cache's backend, and its bytes.
    pub(super) fn dsv4_cache(&mut self, il: usize, name: &str, half: bool) -> (Id, u64) {
        let bytes = self
            .place
            .dsv4
            .as_ref()
            .and_then(|c| c.parts.iter().find(|p| p.0 == name))
            .and_then(|p| p.2.get(il).copied())
            .unwrap_or(0);
        let bytes = if half { bytes / 2 } else { bytes };
        let be = self.kv_device(il);
        (self.g.cache_view(bytes, be), bytes)
    }

    /// Layer `il`'s raw cache view.
    fn dsv4_raw(&mut self, il: usize) -> (Id, u64) {
        let (k, _, _) = self.place.kv.get(il).copied().unwrap_or((0, 0, None));
        let be = self.kv_device(il);
        (self.g.cache_view(k, be), k)
    }

    /// `build_attention_impl`: the compressors (expanded first), Q through its low-rank
    /// projection, the one-head KV, the raw cache write, the attention over the raw and
    /// compressed caches, the de-rotation and the grouped output projection.
    fn dsv4_attention(&mut self, il: usize, x: Id, s: &Shape, ins: &Inputs) -> Id {
        let ratio = s.ratios.get(il).copied().unwrap_or(0);
        match ratio {
            CSA => self.dsv4_compressors(il, x, s, ins.csa, ins.lid),
            HCA => self.dsv4_compressors(il, x, s, ins.hca, None),
            _ => {}
        }
        let (t, pos) = (self.cur_t, ins.pos);
        let qb = s.n_head * s.head * t * F32;
        let kb = s.head * t * F32;
        let [wq_a, wq_b, wkv] =
            self.weights(il, ["attn_q_a.weight", "attn_q_b.weight", "attn_kv.weight"]);
        let qr = self.g.op(s.q_lora * t * F32, &[wq_a, x]);
        let qr = self.norm(il, qr, "attn_q_a_norm.weight");
        let q = self.g.op(qb, &[wq_b, qr]);
        let qv = self.g.view(q);
        let q = self.g.inplace(qb, &[qv]); // rms_norm of the heads
        let mut q = self.g.inplace(qb, &[q, pos]);
        if let Some(r) = ins.raw_rot {
            q = self.g.op(qb, &[r, q]);
        }
        let kv = self.g.op(kb, &[wkv, x]);
        let kv = self.norm(il, kv, "attn_kv_a_norm.weight");
        let kvv = self.g.view(kv);
        let mut kv = self.g.inplace(kb, &[kvv, pos]);
        if let Some(r) = ins.raw_rot {
            kv = self.g.op(kb, &[r, kv]);
        }
        let be = self.kv_device(il);
        let kvv = self.g.view(kv);
        self.g.external(&[kvv, ins.raw_idx], Some(be));
        let (raw, raw_bytes) = self.dsv4_raw(il);
        let o = match ratio {
            CSA => self.dsv4_csa_attend(il, (x, qr, q), s, ins, (raw, raw_bytes)),
            HCA => self.dsv4_hca_attend(il, q, s, ins, (raw, raw_bytes)),
            _ => {
                let mask = ins.raw_mask;
                let k = (raw, raw_bytes, s.cells[0]);
                self.dsv4_attend(q, s, k, &mut |_: &mut Self| mask)
            }
        };
        self.dsv4_out(il, o, s, ins)
    }

    /// `build_attn_mha` over `k` (K and V both, `n_kv` cells per stream): flash attention, or
    /// V made contiguous, KQ, the masked softmax with sinks and KQV. `mask` writes the mask
    /// where the graph expands it (after KQ without flash attention).
    pub(super) fn dsv4_attend(
        &mut self,
        q: Id,
        s: &Shape,
        (k, k_bytes, n_kv): (Id, u64, u64),
        mask: &mut dyn FnMut(&mut Self) -> Id,
    ) -> Id {
        let t = self.cur_t;
        let o_bytes = s.n_head * s.head * t * F32;
        let qp = self.g.view(q);
        if self.r.fa {
            let m = mask(self);
            return self.g.op(o_bytes, &[qp, k, k, m]);
        }
        let v = self.g.op(k_bytes, &[k]);
        let kq_bytes = n_kv * t * s.n_head * F32;
        let kq = self.g.op(kq_bytes, &[k, qp]);
        let m = mask(self);
        let g = &mut self.g;
        let sm = g.inplace(kq_bytes, &[kq, m]);
        let kqv = g.op(o_bytes, &[v, sm]);
        let p = g.view(kqv);
        g.op(o_bytes, &[p])
    }

    /// The output side: the inverse rotation, the inverse RoPE, wo_a per group, wo_b.
    fn dsv4_out(&mut self, il: usize, o: Id, s: &Shape, ins: &Inputs) -> Id {
        let t = self.cur_t;
        let ob = s.n_head * s.head * t * F32;
        let mut o = o;
        if let Some(r) = ins.raw_rot {
            o = self.g.op(ob, &[r, o]);
        }
        let [wo_a, wo_b] = self.weights(il, ["attn_output_a.weight", "attn_output_b.weight"]);
        let et = self.et();
        let g = &mut self.g;
        let ov = g.view(o);
        let d = g.inplace(ob, &[ov, ins.pos]); // rope_ext_back
        let dv = g.view(d);
        let oa = g.op(s.o_rank * t * F32, &[wo_a, dv]);
        let ov = g.view(oa);
        let oa = g.op(s.o_rank * t * F32, &[ov]);
        g.op(et, &[wo_b, oa])
    }
}

/// Bytes of the experts' down projections: n_embd per used expert and token.
fn e_used(e: u64, n_used: u64, t: u64) -> u64 {
    e * n_used * t * F32
}
