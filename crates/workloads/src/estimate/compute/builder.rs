//! The worst-case graph written in llama.cpp's execution order: the per-ubatch inputs, the token
//! embeddings, each repeating layer (norm, mixer — attention, MLA or recurrent —, the output
//! selection on the last layer, FFN or MoE, residuals), the output norm and the logits.

use crate::gguf::GgufModel;

use super::super::galloc::{Graph, Id, HOST};
use super::super::hparams::{CacheKind, ModelParams};
use super::attention::{attention, AttnShape, AttnWeights, Cache, Core, Step};
use super::ffn::{ffn, moe, Glu};
use super::indexer_inputs::{KpoolInputs, LidInputs, MsaInputs, QPle};
use super::layers::{Layer, Tensors};
use super::{Placement, Reserve, Rules, F32};

/// The graph being written and what every step reads.
pub(super) struct Builder<'a> {
    pub(super) model: &'a GgufModel,
    pub(super) p: &'a ModelParams,
    pub(super) r: &'a Reserve,
    pub(super) rules: Rules,
    pub(super) place: &'a Placement,
    pub(super) tensors: &'a Tensors<'a>,
    pub(super) layers: &'a [Layer],
    pub(super) n_seq: u64,
    pub(super) n_outputs: u64,
    /// Gemma scales the embeddings by sqrt(n_embd) and the queries before attention.
    pub(super) gemma: bool,
    pub(super) g: Graph,
    /// Parts of the graph written coarsely, in the order first met.
    pub(super) approx: Vec<&'static str>,
    /// Tokens the nodes being written carry (n_outputs from the last layer's output selection).
    pub(super) cur_t: u64,
    pub(super) inputs: Inputs,
    /// RWKV-7's first layer's value, which every later layer reads (`rwkv.rs`).
    pub(super) v_first: Option<Id>,
    /// The next RWKV layer's state gathers, written before this layer's channel mix.
    pub(super) rwkv_gathered: Option<[Id; 2]>,
    /// Gemma 4's per-layer inputs (`ple.rs`).
    pub(super) ple: Option<Ple>,
    /// qwen4exp's PLE n-gram embedding (`qple.rs`).
    pub(super) qple: Option<QPle>,
    /// The last DSA indexer's top-k, which glm-dsa's shared-indexer layers reuse (`dsa.rs`);
    /// glm5-next's last sparse mask (`kpool.rs`).
    pub(super) dsa_top_k: Option<Id>,
    /// The next KDA layer's conv states, gathered early (bailingmoe3: `gdn.rs`).
    pub(super) kda_conv: Option<Id>,
    /// hy_v4's residual streams around the attention, and their F32 copy once written (`ihc.rs`).
    pub(super) ihc_residual: Option<(Id, Option<Id>)>,
    /// llama_context's graph callback fixes each layer's norms on the layer's device when the
    /// model is offloaded whole or the batch is under 32 tokens (so that a layer does not start
    /// on the previous layer's device).
    pin_norms: bool,
}

/// Gemma 4's per-layer inputs while the layers are written (`ple.rs`).
pub(super) struct Ple {
    /// `n_embd_per_layer`.
    pub(super) width: u64,
    /// The looked-up rows, scaled (until the projection adds them).
    pub(super) rows: Id,
    /// The projected sum, once layer 0 needs it.
    pub(super) all: Option<Id>,
    /// The scaled token embeddings the projection reads.
    pub(super) embd: Id,
}

/// The graph inputs the layers read.
#[derive(Default)]
pub(super) struct Inputs {
    pub(super) tokens: Id,
    /// Tokens, row indices and embeddings of a batch mixing tokens and embeddings.
    pub(super) mixed: Option<(Id, Id, Id)>,
    /// Gemma's per-row embedding scale.
    pub(super) scale_rows: Option<Id>,
    pub(super) pos: Option<Id>,
    pub(super) s_copy: Option<Id>,
    /// The full cache's and the sliding-window cache's inputs.
    pub(super) caches: [Option<Cache>; 2],
    pub(super) out_ids: Id,
    /// MiniMax-01's lightning-attention inputs: slopes, q and k decays, the diagonal decay.
    pub(super) lightning: Option<[Id; 4]>,
    /// The DSA lightning indexer's inputs (`dsa.rs`).
    pub(super) lid: Option<LidInputs>,
    /// MiniMax-M3's sparse-attention inputs (`msa.rs`).
    pub(super) msa: Option<MsaInputs>,
    /// The k-pool inputs: glm5-next's indexer's (`kpool.rs`) or qwen4exp's QSA's (`qsa.rs`).
    pub(super) kpool: Option<KpoolInputs>,
}

/// The attention masks' bytes (full cache, sliding-window cache), where a layer reads that cache.
pub(super) fn mask_bytes(layers: &[Layer], r: &Reserve, rules: Rules, t: u64) -> [Option<u64>; 2] {
    // Masks: [n_kv, n_tokens/n_stream, 1, n_stream] = n_kv × n_tokens per cache.
    let mask_el = if r.fa && rules.f16_fa_mask { 2 } else { 4 };
    let any_full = layers.iter().any(|l| l.has_kv && !l.swa);
    let any_swa = layers.iter().any(|l| l.has_kv && l.swa);
    [
        any_full.then(|| r.cells_full * t * mask_el),
        any_swa.then(|| r.cells_swa.unwrap_or(r.cells_full) * t * mask_el),
    ]
}

/// The scheduler's backend of a buffer on a device or (`None`) the host.
fn be(on: Option<u8>) -> u8 {
    on.unwrap_or(HOST)
}

/// What every step of the graph reads, resolved once: the model, its parameters and layers, what
/// the graph is reserved for, the build's rules and where weights and caches are.
pub(super) struct Scope<'a> {
    pub(super) model: &'a GgufModel,
    pub(super) p: &'a ModelParams,
    pub(super) r: &'a Reserve,
    pub(super) rules: Rules,
    pub(super) place: &'a Placement,
    pub(super) tensors: &'a Tensors<'a>,
    pub(super) layers: &'a [Layer],
}

impl<'a> Builder<'a> {
    pub(super) fn new(scope: Scope<'a>, (n_tokens, n_outputs): (u64, u64)) -> Self {
        let Scope {
            model,
            p,
            r,
            rules,
            place,
            tensors,
            layers,
        } = scope;
        let mut g = Graph::default();
        g.rows = n_tokens;
        Builder {
            model,
            p,
            r,
            rules,
            place,
            tensors,
            layers,
            n_seq: r.n_seq.max(1),
            n_outputs,
            gemma: p.arch.starts_with("gemma"),
            g,
            approx: Vec::new(),
            cur_t: n_tokens,
            inputs: Inputs::default(),
            v_first: None,
            rwkv_gathered: None,
            ple: None,
            qple: None,
            dsa_top_k: None,
            kda_conv: None,
            ihc_residual: None,
            pin_norms: place.keeps_pins && (place.full_offload || n_tokens < 32),
        }
    }

    /// Bytes of an n_embd row per current token.
    pub(super) fn et(&self) -> u64 {
        self.p.n_embd * self.cur_t * F32
    }

    /// Says the figure is approximate for this part: `key` names the part's sentence in the
    /// recipe catalogue (`recipe-approx-*`).
    pub(super) fn approximate(&mut self, key: &'static str) {
        if !self.approx.contains(&key) {
            self.approx.push(key);
        }
    }

    /// A weight of layer `il` (None: the output layer) where the scheduler sees it.
    pub(super) fn weight(&mut self, il: Option<usize>, name: &str) -> Id {
        let (full, on) = match il {
            Some(il) => (
                format!("blk.{il}.{name}"),
                self.place.layer_device.get(il).copied().flatten(),
            ),
            None => (name.to_string(), self.place.output_device),
        };
        let on = self.place.overridden.get(&full).copied().unwrap_or(on);
        let bytes = self.tensors.bytes(&full);
        let w = self.g.weight(bytes, be(on));
        if !self.tensors.read_by_matmul(&full) {
            self.g.not_matmul(w);
        }
        w
    }

    /// A MoE layer's router and expert weights: gate_inp, up, gate, down (`build_moe_ffn`).
    pub(super) fn moe_weights(&mut self, il: usize) -> [Id; 4] {
        let names =
            ["gate_inp", "up_exps", "gate_exps", "down_exps"].map(|n| format!("ffn_{n}.weight"));
        self.weights(il, names.each_ref().map(|s| s.as_str()))
    }

    /// A hyper-connection block's fn, scale and base weights (`hc_{part}_*`: glm5-next's mHC,
    /// hy_v4's iHC, deepseek4's streams).
    pub(super) fn hc_weights(&mut self, il: usize, part: &str) -> [Id; 3] {
        let names = ["fn", "scale", "base"].map(|w| format!("hc_{part}_{w}.weight"));
        self.weights(il, names.each_ref().map(|s| s.as_str()))
    }

    pub(super) fn weights<const N: usize>(&mut self, il: usize, names: [&str; N]) -> [Id; N] {
        names.map(|n| self.weight(Some(il), n))
    }

    /// The token embeddings (`build_inp_embd`): token_embd stays on the host (the input layer),
    /// and GET_ROWS is never offloaded, so the lookup runs there.
    pub(super) fn embeddings(&mut self) -> Id {
        let et = self.et();
        let i = &self.inputs;
        let g = &mut self.g;
        let on = self
            .place
            .overridden
            .get("token_embd.weight")
            .copied()
            .flatten();
        let tok_embd = g.weight(self.tensors.bytes("token_embd.weight"), be(on));
        let inp = g.get_rows(et, &[tok_embd, i.tokens]);
        if let Some((mt, ms, me)) = i.mixed {
            let rows = g.get_rows(et, &[tok_embd, mt]);
            let dup = g.op(et, &[me]);
            g.set_rows(dup, &[rows, ms]); // into the copy: keeps the copy alive
        }
        if let Some(s) = i.scale_rows {
            g.inplace(et, &[inp, s])
        } else if self.gemma {
            g.inplace(et, &[inp]) // older builds: ggml_scale by sqrt(n_embd)
        } else {
            inp
        }
    }

    /// One repeating layer: norm, mixer, (last layer) output selection, FFN, residuals.
    pub(super) fn layer(&mut self, il: usize, inp: Id) -> Id {
        match self.p.arch.as_str() {
            "rwkv6" | "rwkv7" => return self.rwkv_layer(il, inp),
            "arwkv7" => return self.arwkv7_layer(il, inp),
            "rwkv6qwen2" => return self.qrwkv6_layer(il, inp),
            _ => {}
        }
        if let Some(out) = self.mhc_layer(il, inp) {
            return out;
        }
        if let Some(out) = self.gemma3n_layer(il, inp) {
            return out;
        }
        let layers = self.layers;
        let l = &layers[il];
        self.kda_gather_early(il);
        let et = self.et();
        let norm = self.g.inplace(et, &[inp]);
        self.pin_norm(il, norm);
        let w = self.weight(Some(il), "attn_norm.weight");
        let normed = self.g.inplace(et, &[norm, w]);
        let mut attn_out = if l.recurrent && l.has_kv {
            // models/falcon-h1.cpp: attention and a Mamba-2 mixer side by side, each on its
            // own build_norm of the layer input, summed.
            let a = self.attention(il, normed);
            let norm2 = self.g.inplace(et, &[inp]);
            let w2 = self.weight(Some(il), "attn_norm.weight");
            let normed2 = self.g.inplace(et, &[norm2, w2]);
            let s = self.recurrent(il, normed2);
            self.g.op(et, &[a, s])
        } else if l.recurrent {
            self.recurrent(il, normed)
        } else if l.has_kv {
            self.attention(il, normed)
        } else {
            normed
        };
        let mut residual = inp;
        if il + 1 == self.layers.len() && !self.late_outputs() {
            // Only the outputs' rows go on (`inp_out_ids`).
            let (n_out, out_ids) = (self.n_outputs, self.inputs.out_ids);
            let bytes = self.p.n_embd * n_out * F32;
            attn_out = self.g.op(bytes, &[attn_out, out_ids]);
            residual = self.g.op(bytes, &[residual, out_ids]);
            self.cur_t = n_out;
            self.g.rows = n_out;
        }
        if l.post_attn_norm {
            attn_out = self.norm(il, attn_out, "post_attention_norm.weight");
        }
        let et = self.et();
        let ffn_inp = self.g.inplace(et, &[attn_out, residual]);
        let mut ffn_out = if l.mixer_only() {
            ffn_inp
        } else {
            self.feed_forward(il, ffn_inp)
        };
        if l.post_ffw_norm {
            ffn_out = self.norm(il, ffn_out, "post_ffw_norm.weight");
        }
        let out = if l.mixer_only() {
            ffn_inp
        } else {
            self.g.inplace(et, &[ffn_out, ffn_inp])
        };
        self.per_layer_embedding(il, out)
    }

    /// An RMS norm and its weight (in place on `x`).
    pub(super) fn norm(&mut self, il: usize, x: Id, weight: &str) -> Id {
        let et = self.et();
        let n = self.g.inplace(et, &[x]);
        self.pin_norm(il, n);
        let w = self.weight(Some(il), weight);
        self.g.inplace(et, &[n, w])
    }

    /// A layer's norm (`cb(cur, "norm", il)`) on the layer's device, when llama.cpp fixes it.
    fn pin_norm(&mut self, il: usize, n: Id) {
        if self.pin_norms {
            let d = self.place.layer_device.get(il).copied().flatten();
            self.g.pin(n, be(d));
        }
    }

    /// Layer `il`'s recurrent state, in the cache's buffer.
    pub(super) fn state_view(&mut self, il: usize) -> Id {
        let (_, _, kv_dev) = self.kv(il);
        self.g.cache_view(0, be(kv_dev))
    }

    /// The backend of layer `il`'s cache.
    pub(super) fn kv_device(&self, il: usize) -> u8 {
        be(self.kv(il).2)
    }

    /// Layer `il`'s cache: K bytes, V bytes, on which device.
    pub(super) fn kv(&self, il: usize) -> (u64, u64, Option<u8>) {
        self.place.kv.get(il).copied().unwrap_or((0, 0, None))
    }

    /// Attention parts the replay does not write, said where the layer's tensors need them:
    /// build_qkv with one fused matmul (`attn_qkv`: Q/K/V as views of its rows, copied where a
    /// norm or rope needs them contiguous), and an output gate (`attn_gate`: a sigmoid of its
    /// own projection times the attention, as in models/afmoe.cpp).
    fn note_unreplayed_attention(&mut self, il: usize) {
        let has = |t: &str| self.model.tensor(&format!("blk.{il}.{t}")).is_some();
        let (fused, gate) = (has("attn_qkv.weight"), has("attn_gate.weight"));
        if fused {
            self.approximate("recipe-approx-fused-q-k-v");
        }
        // hy_v4's and dots3note's gated MLA are replayed (`mla_gate`), bailingmoe3's and
        // kimi-k3's (`kda_hybrid_gate`).
        let replayed = matches!(
            self.p.arch.as_str(),
            "hy_v4" | "dots3note" | "bailingmoe3" | "kimi-k3"
        );
        if gate && !replayed {
            self.approximate("recipe-approx-attention-output-gate-attn");
        }
    }

    /// The mask an attention over the full or the sliding-window cache reads: with an F32 mask
    /// and flash attention, older builds cast it once to F16, at the first layer that reads it.
    pub(super) fn attn_mask(&mut self, swa: bool) -> Id {
        let mut cache = self.inputs.caches[swa as usize].expect("cache for layer");
        if self.r.fa && !self.rules.f16_fa_mask && cache.cast.is_none() {
            let bytes = self.g.bytes(cache.mask) / 2;
            cache.cast = Some(self.g.op(bytes, &[cache.mask]));
            self.inputs.caches[swa as usize] = Some(cache);
        }
        cache.cast.unwrap_or(cache.mask)
    }

    /// Layer `il`'s attention weights and its cache's K and V views.
    fn attn_weights(&mut self, il: usize) -> AttnWeights {
        let (kv_k, kv_v, kv_dev) = self.kv(il);
        let [q, k, v, q_norm, k_norm] = self.weights(
            il,
            [
                "attn_q.weight",
                "attn_k.weight",
                "attn_v.weight",
                "attn_q_norm.weight",
                "attn_k_norm.weight",
            ],
        );
        AttnWeights {
            q,
            k,
            v,
            q_norm,
            k_norm,
            k_cache: self.g.cache_view(kv_k, be(kv_dev)),
            v_cache: self.g.cache_view(kv_v, be(kv_dev)),
            cache_backend: be(kv_dev),
        }
    }

    /// An attention layer's mixer, through its output projection (`wo`).
    pub(super) fn attention(&mut self, il: usize, x: Id) -> Id {
        let layers = self.layers;
        let l = &layers[il];
        let (r, t) = (self.r, self.cur_t);
        let (kv_k, _, kv_dev) = self.kv(il);
        // kimi-k3 has none (its MLA rotates nothing): the tokens stand in, never read.
        let pos = self.inputs.pos.unwrap_or(self.inputs.tokens);
        let cache = self.inputs.caches[l.swa as usize].expect("cache for layer");
        self.note_unreplayed_attention(il);
        let o = if self.p.is_mla {
            let kc = self.g.cache_view(kv_k, be(kv_dev));
            self.mla(il, x, (pos, kc, be(kv_dev)), (cache.k_idx, cache.mask))
        } else {
            let mask = self.attn_mask(l.swa);
            let aw = self.attn_weights(il);
            let n_kv = if l.swa {
                r.cells_swa.unwrap_or(r.cells_full)
            } else {
                r.cells_full
            };
            // MiniMax-M3's sparse layers expand Q, K, V in that order (msa.rs).
            let msa = self.msa_prelude(il, x, pos, mask);
            let qsa = self.qsa_prelude(il, x, (mask, pos));
            let k_before_v = l.swa || self.p.cache == CacheKind::Iswa || msa.is_some();
            let idx = (cache.k_idx, cache.v_idx, mask);
            let shape = AttnShape {
                scale_q: self.gemma,
                k_before_v,
                n_kv,
                // One Q projection carrying query and gate (`n_embd_head * 2` per head in
                // build_qkv): models/qwen35.cpp, qwen35moe.cpp, qwen3next.cpp, qwen4exp.cpp.
                q_gate: matches!(
                    self.p.arch.as_str(),
                    "qwen4exp" | "qwen35" | "qwen35moe" | "qwen3next"
                ),
            };
            let step = Step { l, x, pos, r, t };
            let mut mask_f32 = None;
            let kept = &mut mask_f32;
            let mut core = msa.map(|m| {
                move |g: &mut Graph, q: Id| {
                    let (o, mf) = m.build(g, q, t);
                    *kept = mf;
                    o
                }
            });
            // qwen4exp's QSA layers: the sparse mask written after the cache writes (qsa.rs)
            let (kc, vc) = (aw.k_cache, aw.v_cache);
            let mut qsa_core = qsa
                .map(|m| move |g: &mut Graph, q: Id| m.attend(g, (l, r.fa, t, n_kv), [q, kc, vc]));
            let core = match qsa_core.as_mut() {
                Some(c) => Some(c as &mut Core<'_>),
                None => core.as_mut().map(|c| c as &mut Core<'_>),
            };
            let o = attention(&mut self.g, &step, &aw, idx, &shape, core);
            if let (Some(mf), Some(i)) = (mask_f32, self.inputs.msa.as_mut()) {
                i.keep_mask_f32(mf);
            }
            o
        };
        let o = self.mla_gate(il, x, o);
        let o = self.kda_hybrid_gate(il, x, o);
        let wo = self.weight(Some(il), "attn_output.weight");
        let et = self.et();
        self.g.op(et, &[wo, o])
    }

    /// The FFN block: its norm, the dense FFN or the experts, the shared experts.
    pub(super) fn feed_forward(&mut self, il: usize, x: Id) -> Id {
        let layers = self.layers;
        let l = &layers[il];
        let (e, t) = (self.p.n_embd, self.cur_t);
        let n = self.norm(il, x, "ffn_norm.weight");
        let mut out = if let Some(shape) = l.moe {
            self.approximate("recipe-approx-moe-routing");
            let ws = self.moe_weights(il);
            // build_moe_ffn: the router's and the experts' biases (gpt-oss), each an ADD_ID.
            let biases = [
                "ffn_gate_inp.bias",
                "ffn_up_exps.bias",
                "ffn_gate_exps.bias",
                "ffn_down_exps.bias",
            ]
            .map(|b| {
                let has = self.tensors.has(&format!("blk.{il}.{b}"));
                has.then(|| self.weight(Some(il), b))
            });
            let out = moe(&mut self.g, e, n, t, shape, ws, biases);
            self.kda_gather_early(il + 1);
            out
        } else {
            let ws = self.weights(il, ["ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"]);
            ffn(&mut self.g, e, n, t, l.n_ff, l.glu, ws)
        };
        if l.shared_ff > 0 {
            let ws = self.weights(
                il,
                [
                    "ffn_gate_shexp.weight",
                    "ffn_up_shexp.weight",
                    "ffn_down_shexp.weight",
                ],
            );
            let s = ffn(&mut self.g, e, n, t, l.shared_ff, Glu::Gate, ws);
            out = self.g.inplace(self.et(), &[out, s]);
        }
        out
    }

    /// The output norm and the logits, both graph outputs; returns the logits' bytes.
    pub(super) fn output(&mut self, inp: Id) -> u64 {
        let et = self.et();
        // qwen4exp's final hyper-connection mixer is its output norm (mhc.rs)
        let result_norm = if self.qhc().is_some() {
            inp
        } else {
            let n = self.g.inplace(et, &[inp]);
            let w = self.weight(None, "output_norm.weight");
            self.g.inplace(et, &[n, w])
        };
        let result_norm = self.late_output_rows(result_norm);
        self.g.set_output(result_norm);
        let logits_bytes = self.p.n_vocab * self.cur_t * F32;
        // A tied output reads token_embd's copy in the output layer's buffer.
        let out_w = if self.tensors.contains("output.weight") {
            self.weight(None, "output.weight")
        } else {
            let bytes = self.tensors.bytes("token_embd.weight");
            let on = self.place.overridden.get("token_embd.weight");
            self.g
                .weight(bytes, be(on.copied().unwrap_or(self.place.output_device)))
        };
        let logits = self.g.op(logits_bytes, &[out_w, result_norm]);
        self.g.set_output(logits);
        logits_bytes
    }
}
