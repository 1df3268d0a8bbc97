//! Self-attention over the KV cache as the graph writes it: the llama family's attention with
//! optional Q/K norms (op for op, flash or not) and deepseek2's multi-head latent attention
//! (coarsely).

use crate::gguf::GgufModel;

use super::super::galloc::{Graph, Id};
use super::super::hparams::ModelParams;
use super::layers::Layer;
use super::{Reserve, F32};

/// Writes an attention's own core from the stored layer's Q (MiniMax-M3's sparse layers).
pub(super) type Core<'a> = dyn FnMut(&mut Graph, Id) -> Id + 'a;
/// Writes the mask an MLA attention reads, after its K cache write (DSA's sparse mask).
pub(super) type MaskWriter<'a> = dyn FnMut(&mut Graph) -> Id + 'a;

/// The weights and cache views one attention layer reads.
pub(super) struct AttnWeights {
    pub(super) q: Id,
    pub(super) k: Id,
    pub(super) v: Id,
    pub(super) q_norm: Id,
    pub(super) k_norm: Id,
    pub(super) k_cache: Id,
    pub(super) v_cache: Id,
    pub(super) cache_backend: u8,
}

/// One cache's per-ubatch inputs: K and V row indices (none in builds that write the cache
/// with ggml_cpy, before rule kv-write-idxs), the mask, and its F16 cast (older builds with
/// flash attention make it once, at the first layer that reads it).
#[derive(Clone, Copy)]
pub(super) struct Cache {
    pub(super) k_idx: Option<Id>,
    pub(super) v_idx: Option<Id>,
    pub(super) mask: Id,
    pub(super) cast: Option<Id>,
}

/// The layer being written: its shapes, its input, the positions, what the graph is reserved for
/// and the tokens it carries now.
pub(super) struct Step<'a> {
    pub(super) l: &'a Layer,
    pub(super) x: Id,
    pub(super) pos: Id,
    pub(super) r: &'a Reserve,
    pub(super) t: u64,
}

/// How the attention is written: Gemma scales the queries, sliding-window models write K before
/// V, `n_kv` cells are attended, and (`q_gate`, qwen4exp) Q's projection carries a sigmoid
/// output gate per head.
pub(super) struct AttnShape {
    pub(super) scale_q: bool,
    pub(super) k_before_v: bool,
    pub(super) n_kv: u64,
    pub(super) q_gate: bool,
}

/// The write of `src` into the cache: `ggml_set_rows` reading its row indices, or (builds before
/// rule kv-write-idxs) `ggml_cpy` into a view of the cache, which reads no index.
pub(super) fn write_cache(g: &mut Graph, src: Id, idx: Option<Id>, cache_backend: u8) {
    match idx {
        Some(i) => g.external(&[src, i], Some(cache_backend)),
        None => g.external(&[src], Some(cache_backend)),
    };
}

/// Self-attention with the KV store (`build_attn` + `build_attn_mha`), up to the attention output
/// (before `wo`); `core`, given the stored layer's Q, writes the attention itself instead.
pub(super) fn attention(
    g: &mut Graph,
    step: &Step,
    w: &AttnWeights,
    (k_idx, v_idx, mask): (Option<Id>, Option<Id>, Id),
    shape: &AttnShape,
    core: Option<&mut Core<'_>>,
) -> Id {
    let Step { l, x, pos, r, t } = *step;
    let AttnShape {
        scale_q,
        k_before_v,
        n_kv,
        q_gate,
    } = *shape;
    let qb = l.n_head * l.head_k * t * F32;
    let kb = l.n_head_kv * l.head_k * t * F32;
    let vb = l.n_head_kv * l.head_v * t * F32;
    // matmul, reshape (a view: a norm or rope after it cannot run in place), norm, rope.
    // qwen4exp's K (`q_gate`): the norm runs in place on the product, ggml-alloc reusing a
    // view's source when it is its one view at its start (`ggml_gallocr_allocate_node`).
    let rope = |g: &mut Graph, bytes: u64, mm: Id, norm_w: Option<Id>, direct: bool| {
        let v = if direct { mm } else { g.view(mm) };
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
    // models/qwen4exp.cpp build_layer_attn: Q and its gate interleaved per head, both views
    let q_mm = g.op(if q_gate { 2 * qb } else { qb }, &[w.q, x]);
    let mut q = rope(g, qb, q_mm, qn, false);
    if scale_q {
        q = g.inplace(qb, &[q]);
    }
    // build_attn expands q, v, k; the sliding-window variant q, k, v.
    let (k, v) = if k_before_v {
        let k_mm = g.op(kb, &[w.k, x]);
        let k = rope(g, kb, k_mm, kn, q_gate);
        let v_mm = g.op(vb, &[w.v, x]);
        (k, g.view(v_mm))
    } else {
        let v_mm = g.op(vb, &[w.v, x]);
        let v = g.view(v_mm);
        let k_mm = g.op(kb, &[w.k, x]);
        (rope(g, kb, k_mm, kn, q_gate), v)
    };
    // set_rows (or, in older builds, cpy) into the cache (external memory): runs where the
    // cache is.
    let kv = g.view(k);
    write_cache(g, kv, k_idx, w.cache_backend);
    let vv = g.view(v);
    write_cache(g, vv, v_idx, w.cache_backend);
    // MiniMax-M3's sparse layers attend their own way (msa.rs).
    let o = match core {
        Some(core) => core(g, q),
        None => attend(g, (l, r.fa, t, n_kv), [q, w.k_cache, w.v_cache, mask]),
    };
    if !q_gate {
        return o;
    }
    // the gate's view made contiguous after the attention (first expanded there), its sigmoid
    // in place, times the attention
    let gv = g.view(q_mm);
    let gate = g.op(qb, &[gv]);
    let gate = g.inplace(qb, &[gate]);
    g.inplace(l.n_head * l.head_v * t * F32, &[o, gate])
}

/// build_attn_mha over the cache from the stored layer's Q: flash attention, or KQ, the masked
/// softmax and KQV, permuted and made contiguous.
pub(super) fn attend(
    g: &mut Graph,
    (l, fa, t, n_kv): (&Layer, bool, u64, u64),
    [q, k_cache, v_cache, mask]: [Id; 4],
) -> Id {
    let qv = g.view(q);
    let qp = g.view(qv);
    if fa {
        let o = g.op(l.n_head * l.head_v * t * F32, &[qp, k_cache, v_cache, mask]);
        g.view(o)
    } else {
        let kq_bytes = n_kv * t * l.n_head * F32;
        let kq = g.op(kq_bytes, &[k_cache, qp]);
        let sm = g.inplace(kq_bytes, &[kq, mask]);
        let kqv = g.op(l.head_v * t * l.n_head * F32, &[v_cache, sm]);
        let p = g.view(kqv);
        g.op(l.head_v * t * l.n_head * F32, &[p])
    }
}

/// Multi-head latent attention (deepseek2 with `wk_b`/`wv_b`): the cache holds the compressed
/// latent; Q is absorbed into it and the output decompressed with `wv_b`. Written coarsely.
pub(super) fn mla_attention(
    g: &mut Graph,
    (model, p): (&GgufModel, &ModelParams),
    step: &Step,
    ([wq, wk_b, wkv_a, wv_b], q_in, k_cache, cache_be): ([Id; 4], Id, Id, u8),
    (k_idx, mask): (Option<Id>, &mut MaskWriter<'_>),
) -> Id {
    let Step { l, x, pos, r, t } = *step;
    let arch = p.arch.as_str();
    let key = |k: &str| model.get(&format!("{arch}.{k}")).and_then(|v| v.as_u64());
    let rope = key("rope.dimension_count").unwrap_or(0);
    let kv_lora = l.head_k.saturating_sub(rope);
    let k_mla = key("attention.key_length_mla").unwrap_or(l.head_k);
    let v_mla = key("attention.value_length_mla").unwrap_or(l.head_v);
    let h = l.n_head;
    // Q: projection, the no-RoPE part absorbed into the latent (wk_b), the RoPE part rotated.
    // `q_in`: the normed Q latent where the model has one (attn_q_a; wq is then attn_q_b).
    let q = g.op(h * k_mla * t * F32, &[wq, q_in]);
    let q_nope = g.view(q);
    let q_nope = g.view(q_nope);
    let q_abs = g.op(h * kv_lora * t * F32, &[wk_b, q_nope]);
    let q_abs = g.view(q_abs);
    // kimi-k3's MLA is nope-only (models/kimi-k3.cpp build_mla_layer): its "rope" parts are
    // joined unrotated, and its graph has no positions.
    let rotated = p.arch != "kimi-k3";
    let q_pe_v = g.view(q);
    let q_pe = if rotated {
        g.inplace(h * rope * t * F32, &[q_pe_v, pos])
    } else {
        q_pe_v
    };
    let q_cur = g.op(h * (kv_lora + rope) * t * F32, &[q_abs, q_pe]);
    // K: the compressed latent (normed) joined to its rotated RoPE part; V is the latent.
    let kv_pe = g.op((kv_lora + rope) * t * F32, &[wkv_a, x]);
    let kv_c = g.view(kv_pe);
    let kv_n = g.inplace(kv_lora * t * F32, &[kv_c]);
    let kv_n = g.inplace(kv_lora * t * F32, &[kv_n]);
    let v_cur = g.view(kv_n);
    let k_pe_v = g.view(kv_pe);
    let k_pe = if rotated {
        g.inplace(rope * t * F32, &[k_pe_v, pos])
    } else {
        k_pe_v
    };
    let k_cur = g.op((kv_lora + rope) * t * F32, &[v_cur, k_pe]);
    let kv = g.view(k_cur);
    write_cache(g, kv, k_idx, cache_be);
    // The mask is written here: DSA's sparse mask (dsa.rs) comes after the K cache write.
    let mask = mask(g);
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
