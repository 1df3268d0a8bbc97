#!/usr/bin/env python3
"""Writes tiny GGUF models of the sparse-attention architectures (deepseek32, glm-dsa,
minimax-m3, dots3note, hy_v4, glm5-next) and of gemma3n with the `gguf` package's writer, each
with the keys and tensor shapes llama.cpp b11434's `load_arch_hparams` / `load_arch_tensors`
require (src/models/deepseek32.cpp, glm-dsa.cpp, minimax-m3.cpp, dots3note.cpp, hy-v4.cpp,
glm5-next.cpp, gemma3n.cpp).

Used by crates/workloads/tests/llama_indexer_grid.rs. Weights are small random values (seeded):
the models only need to load, not to be good. The helpers (vocabulary, matrices) are
gen_models.py's; the newer writers give shapes in ggml's order with gen_models_2026.py's `Model`.

usage: gen_models_indexer.py OUT_DIR [NAME ...]      (no NAME: all)
"""
import os
import sys

import numpy as np
import gguf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import RNG, add_spm_vocab, finish, mat, vec  # noqa: E402
from gen_models_2026 import Model  # noqa: E402


def t3(n2, n1, n0):
    """A 3-D tensor with ggml ne = [n0, n1, n2] (numpy's shape is reversed)."""
    return (RNG.standard_normal((n2, n1, n0)) * 0.02).astype(np.float32)


def header(path, arch, *, n_layer, n_embd, n_head, ctx, n_words=1700):
    w = gguf.GGUFWriter(path, arch)
    w.add_string("general.name", os.path.basename(path))
    n_vocab = add_spm_vocab(w, n_words)
    w.add_uint32(f"{arch}.block_count", n_layer)
    w.add_uint32(f"{arch}.context_length", ctx)
    w.add_uint32(f"{arch}.embedding_length", n_embd)
    w.add_uint32(f"{arch}.attention.head_count", n_head)
    w.add_float32(f"{arch}.attention.layer_norm_rms_epsilon", 1e-6)
    w.add_float32(f"{arch}.rope.freq_base", 10000.0)
    w.add_uint32("general.file_type", 0)
    return w, n_vocab


def write_dsa(path, arch, *, n_layer=3, n_embd=128, n_head=4, q_lora=64, kv_lora=64, rope=32,
              nope=32, v_head=32, n_ff=256, idx_heads=4, idx_dim=64, top_k=64, ctx=16384,
              types=None):
    """deepseek32 / glm-dsa: MLA attention (one latent head of kv_lora + rope) and the DSA
    lightning indexer (idx_heads query heads of idx_dim, one key head cached per layer); every
    layer dense (leading_dense_block_count = n_layer) so no expert tensors are needed."""
    w, n_vocab = header(path, arch, n_layer=n_layer, n_embd=n_embd, n_head=n_head, ctx=ctx)
    w.add_uint32(f"{arch}.feed_forward_length", n_ff)
    w.add_uint32(f"{arch}.attention.head_count_kv", 1)
    w.add_uint32(f"{arch}.attention.key_length", kv_lora + rope)
    w.add_uint32(f"{arch}.attention.value_length", kv_lora)
    w.add_uint32(f"{arch}.attention.key_length_mla", nope + rope)
    w.add_uint32(f"{arch}.attention.value_length_mla", v_head)
    w.add_uint32(f"{arch}.attention.q_lora_rank", q_lora)
    w.add_uint32(f"{arch}.attention.kv_lora_rank", kv_lora)
    w.add_uint32(f"{arch}.rope.dimension_count", rope)
    w.add_uint32(f"{arch}.leading_dense_block_count", n_layer)
    w.add_uint32(f"{arch}.expert_feed_forward_length", n_ff)
    w.add_uint32(f"{arch}.expert_count", 0)
    w.add_uint32(f"{arch}.expert_shared_count", 0)
    w.add_uint32(f"{arch}.expert_gating_func", 2)  # sigmoid
    w.add_uint32(f"{arch}.attention.indexer.head_count", idx_heads)
    w.add_uint32(f"{arch}.attention.indexer.key_length", idx_dim)
    w.add_uint32(f"{arch}.attention.indexer.top_k", top_k)
    if types is not None:
        w.add_array(f"{arch}.attention.indexer.types", types)
    w.add_tensor("token_embd.weight", mat(n_vocab, n_embd))
    for il in range(n_layer):
        p = f"blk.{il}."
        w.add_tensor(p + "attn_norm.weight", vec(n_embd))
        w.add_tensor(p + "attn_q_a_norm.weight", vec(q_lora))
        w.add_tensor(p + "attn_kv_a_norm.weight", vec(kv_lora))
        w.add_tensor(p + "attn_q_a.weight", mat(q_lora, n_embd))
        w.add_tensor(p + "attn_q_b.weight", mat(n_head * (nope + rope), q_lora))
        w.add_tensor(p + "attn_kv_a_mqa.weight", mat(kv_lora + rope, n_embd))
        w.add_tensor(p + "attn_k_b.weight", t3(n_head, kv_lora, nope))
        w.add_tensor(p + "attn_v_b.weight", t3(n_head, v_head, kv_lora))
        w.add_tensor(p + "attn_output.weight", mat(n_embd, n_head * v_head))
        w.add_tensor(p + "ffn_norm.weight", vec(n_embd))
        w.add_tensor(p + "indexer.k_norm.weight", vec(idx_dim))
        w.add_tensor(p + "indexer.k_norm.bias", np.zeros((idx_dim,), dtype=np.float32))
        w.add_tensor(p + "indexer.proj.weight", mat(idx_heads, n_embd))
        w.add_tensor(p + "indexer.attn_k.weight", mat(idx_dim, n_embd))
        w.add_tensor(p + "indexer.attn_q_b.weight", mat(idx_heads * idx_dim, q_lora))
        w.add_tensor(p + "ffn_gate.weight", mat(n_ff, n_embd))
        w.add_tensor(p + "ffn_up.weight", mat(n_ff, n_embd))
        w.add_tensor(p + "ffn_down.weight", mat(n_embd, n_ff))
    w.add_tensor("output_norm.weight", vec(n_embd))
    w.add_tensor("output.weight", mat(n_vocab, n_embd))
    finish(w)


def write_minimax_m3(path, *, n_layer=3, n_embd=128, n_head=4, n_head_kv=2, head_dim=32,
                     n_ff=256, n_expert=4, n_used=2, n_ff_exp=64, idx_heads=2, idx_dim=32,
                     ctx=16384):
    """minimax-m3: standard GQA attention with Q/K norms, one leading dense layer, then MoE
    layers with a shared expert and the MSA block indexer (one key head cached per layer)."""
    arch = "minimax-m3"
    w, n_vocab = header(path, arch, n_layer=n_layer, n_embd=n_embd, n_head=n_head, ctx=ctx)
    w.add_uint32(f"{arch}.feed_forward_length", n_ff)
    w.add_uint32(f"{arch}.attention.head_count_kv", n_head_kv)
    w.add_uint32(f"{arch}.attention.key_length", head_dim)
    w.add_uint32(f"{arch}.attention.value_length", head_dim)
    w.add_uint32(f"{arch}.rope.dimension_count", head_dim)
    w.add_uint32(f"{arch}.leading_dense_block_count", 1)
    w.add_uint32(f"{arch}.expert_count", n_expert)
    w.add_uint32(f"{arch}.expert_used_count", n_used)
    w.add_uint32(f"{arch}.expert_feed_forward_length", n_ff_exp)
    w.add_uint32(f"{arch}.expert_shared_count", 1)
    w.add_uint32(f"{arch}.expert_gating_func", 2)  # sigmoid
    w.add_uint32(f"{arch}.attention.indexer.head_count", idx_heads)
    w.add_uint32(f"{arch}.attention.indexer.key_length", idx_dim)
    w.add_uint32(f"{arch}.attention.indexer.top_k", 4)
    w.add_uint32(f"{arch}.attention.indexer.block_size", 64)
    w.add_uint32(f"{arch}.attention.indexer.local_blocks", 1)
    w.add_tensor("token_embd.weight", mat(n_vocab, n_embd))
    for il in range(n_layer):
        p = f"blk.{il}."
        w.add_tensor(p + "attn_norm.weight", vec(n_embd))
        w.add_tensor(p + "attn_q.weight", mat(n_head * head_dim, n_embd))
        w.add_tensor(p + "attn_k.weight", mat(n_head_kv * head_dim, n_embd))
        w.add_tensor(p + "attn_v.weight", mat(n_head_kv * head_dim, n_embd))
        w.add_tensor(p + "attn_output.weight", mat(n_embd, n_head * head_dim))
        w.add_tensor(p + "attn_q_norm.weight", vec(head_dim))
        w.add_tensor(p + "attn_k_norm.weight", vec(head_dim))
        w.add_tensor(p + "ffn_norm.weight", vec(n_embd))
        if il == 0:
            w.add_tensor(p + "ffn_gate.weight", mat(n_ff, n_embd))
            w.add_tensor(p + "ffn_up.weight", mat(n_ff, n_embd))
            w.add_tensor(p + "ffn_down.weight", mat(n_embd, n_ff))
            continue
        w.add_tensor(p + "ffn_gate_inp.weight", mat(n_expert, n_embd))
        w.add_tensor(p + "exp_probs_b.bias", np.zeros((n_expert,), dtype=np.float32))
        w.add_tensor(p + "ffn_gate_exps.weight", t3(n_expert, n_ff_exp, n_embd))
        w.add_tensor(p + "ffn_up_exps.weight", t3(n_expert, n_ff_exp, n_embd))
        w.add_tensor(p + "ffn_down_exps.weight", t3(n_expert, n_embd, n_ff_exp))
        w.add_tensor(p + "ffn_gate_shexp.weight", mat(n_ff_exp, n_embd))
        w.add_tensor(p + "ffn_up_shexp.weight", mat(n_ff_exp, n_embd))
        w.add_tensor(p + "ffn_down_shexp.weight", mat(n_embd, n_ff_exp))
        w.add_tensor(p + "indexer.q_proj.weight", mat(idx_heads * idx_dim, n_embd))
        w.add_tensor(p + "indexer.k_proj.weight", mat(idx_dim, n_embd))
        w.add_tensor(p + "indexer.q_norm.weight", vec(idx_dim))
        w.add_tensor(p + "indexer.k_norm.weight", vec(idx_dim))
    w.add_tensor("output_norm.weight", vec(n_embd))
    w.add_tensor("output.weight", mat(n_vocab, n_embd))
    finish(w)


def write_gemma3n(path, *, n_layer=5, n_embd=128, n_head=4, n_head_kv=2, head_dim=32, n_ff=256,
                  swa=128, ctx=16384):
    """gemma3n: AltUp (llama.cpp's fixed n_altup = 4), LAuReL (rank 64) and per-layer inputs
    (llama.cpp's fixed 256 per layer): per_layer_token_embd [256 × n_layer, n_vocab] is the
    largest tensor, as in the real E2B/E4B. Tied output (no output.weight)."""
    arch = "gemma3n"
    n_altup, n_pl, rank = 4, 256, 64
    w, n_vocab = header(path, arch, n_layer=n_layer, n_embd=n_embd, n_head=n_head, ctx=ctx)
    w.add_uint32(f"{arch}.feed_forward_length", n_ff)
    w.add_uint32(f"{arch}.attention.head_count_kv", n_head_kv)
    w.add_uint32(f"{arch}.attention.key_length", head_dim)
    w.add_uint32(f"{arch}.attention.value_length", head_dim)
    w.add_uint32(f"{arch}.attention.sliding_window", swa)
    w.add_uint32(f"{arch}.rope.dimension_count", head_dim)
    w.add_tensor("token_embd.weight", mat(n_vocab, n_embd))
    w.add_tensor("altup_proj.weight", t3(n_altup - 1, n_embd, n_embd))
    w.add_tensor("altup_unembd_proj.weight", t3(n_altup - 1, n_embd, n_embd))
    w.add_tensor("per_layer_token_embd.weight", mat(n_vocab, n_pl * n_layer, np.float16))
    w.add_tensor("per_layer_model_proj.weight", mat(n_pl * n_layer, n_embd))
    w.add_tensor("per_layer_proj_norm.weight", vec(n_pl))
    for il in range(n_layer):
        p = f"blk.{il}."
        for name, rows, cols in [
            ("attn_q", n_head * head_dim, n_embd), ("attn_k", n_head_kv * head_dim, n_embd),
            ("attn_v", n_head_kv * head_dim, n_embd), ("attn_output", n_embd, n_head * head_dim),
            ("ffn_gate", n_ff, n_embd), ("ffn_up", n_ff, n_embd), ("ffn_down", n_embd, n_ff),
            ("inp_gate", n_pl, n_embd), ("proj", n_embd, n_pl),
            ("altup_correct_coef", n_altup, n_altup),
            ("altup_predict_coef", n_altup * n_altup, n_altup),
            ("altup_router", n_altup, n_embd), ("laurel_l", rank, n_embd),
            ("laurel_r", n_embd, rank),
        ]:
            w.add_tensor(p + name + ".weight", mat(rows, cols))
        for name, n in [
            ("attn_norm", n_embd), ("attn_q_norm", head_dim), ("attn_k_norm", head_dim),
            ("post_attention_norm", n_embd), ("ffn_norm", n_embd), ("post_ffw_norm", n_embd),
            ("post_norm", n_embd), ("altup_correct_scale", n_embd),
            ("altup_router_norm", n_embd), ("laurel_post_norm", n_embd),
        ]:
            w.add_tensor(p + name + ".weight", vec(n))
    w.add_tensor("output_norm.weight", vec(n_embd))
    finish(w)

def mla(m, p, n_embd, n_head, q_lora, kv_lora, rope, nope, v_head):
    """DeepSeek-style MLA with a low-rank Q and the split attn_k_b / attn_v_b (ggml order)."""
    m.t(p + "attn_q_a_norm.weight", q_lora, ones=True)
    m.t(p + "attn_kv_a_norm.weight", kv_lora, ones=True)
    m.t(p + "attn_q_a.weight", n_embd, q_lora)
    m.t(p + "attn_q_b.weight", q_lora, n_head * (nope + rope))
    m.t(p + "attn_kv_a_mqa.weight", n_embd, kv_lora + rope)
    m.t(p + "attn_k_b.weight", nope, kv_lora, n_head)
    m.t(p + "attn_v_b.weight", kv_lora, v_head, n_head)
    m.t(p + "attn_output.weight", n_head * v_head, n_embd)


def dsa_indexer(m, p, n_embd, q_lora, idx_heads, idx_dim):
    """The DSA lightning indexer's tensors of one layer (ggml order)."""
    m.t(p + "indexer.k_norm.weight", idx_dim, ones=True)
    m.t(p + "indexer.k_norm.bias", idx_dim)
    m.t(p + "indexer.proj.weight", n_embd, idx_heads)
    m.t(p + "indexer.attn_k.weight", n_embd, idx_dim)
    m.t(p + "indexer.attn_q_b.weight", q_lora, idx_heads * idx_dim)


def dense_ffn(m, p, n_embd, n_ff):
    m.t(p + "ffn_gate.weight", n_embd, n_ff)
    m.t(p + "ffn_up.weight", n_embd, n_ff)
    m.t(p + "ffn_down.weight", n_ff, n_embd)


def tiny_common(m, *, n_layer, n_embd, ctx):
    m.u32(block_count=n_layer, context_length=ctx, embedding_length=n_embd)
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.f32("rope.freq_base", 10000.0)
    m.t("token_embd.weight", n_embd, m.n_vocab)
    m.t("output_norm.weight", n_embd, ones=True)
    m.t("output.weight", n_embd, m.n_vocab)


def write_dots3note(path, *, kinds="FSSF", mtp=1, n_embd=128, q_lora=64, rope=32, n_ff=256,
                    swa=128, idx_heads=4, idx_dim=64, top_k=64, ctx=16384):
    """dots3note: MLA full-attention layers with the DSA indexer (F) and MLA sliding-window
    layers of their own, smaller geometry (S), a head-wise output gate, and `mtp` NextN blocks
    whose tensors b11434 never loads (TENSOR_SKIP); keys as conversion/dots3.py writes them: the
    window pattern and the indexer types cover the trunk only, head_count is per layer. Every
    layer dense (leading_dense_block_count), so no expert tensors are needed."""
    arch = "dots3note"
    m = Model(path, arch)
    n_trunk = len(kinds)
    n_layer = n_trunk + mtp
    is_swa = [k == "S" for k in kinds]
    # the NextN block uses the sliding-window geometry (dots3note.cpp load_arch_tensors)
    geo_swa = is_swa + [True] * mtp
    full = dict(n_head=4, kv_lora=64, nope=32, v_head=32)
    small = dict(n_head=2, kv_lora=32, nope=16, v_head=16)
    tiny_common(m, n_layer=n_layer, n_embd=n_embd, ctx=ctx)
    m.f32("rope.freq_base_swa", 10000.0)
    m.arr("attention.head_count", [(small if s else full)["n_head"] for s in geo_swa])
    m.u32(feed_forward_length=n_ff, attention__head_count_kv=1,
          attention__key_length=full["kv_lora"] + rope, attention__value_length=full["kv_lora"],
          attention__key_length_mla=full["nope"] + rope, attention__value_length_mla=full["v_head"],
          attention__q_lora_rank=q_lora, attention__kv_lora_rank=full["kv_lora"],
          attention__kv_lora_rank_swa=small["kv_lora"],
          attention__key_length_swa=small["kv_lora"] + rope,
          attention__value_length_swa=small["kv_lora"],
          attention__key_length_mla_swa=small["nope"] + rope,
          attention__value_length_mla_swa=small["v_head"],
          rope__dimension_count=rope, attention__sliding_window=swa,
          leading_dense_block_count=n_layer, expert_feed_forward_length=n_ff,
          expert_shared_count=0, expert_gating_func=2,
          attention__indexer__head_count=idx_heads, attention__indexer__key_length=idx_dim,
          attention__indexer__top_k=top_k)
    if mtp:
        m.u32(nextn_predict_layers=mtp)
    m.arr("attention.sliding_window_pattern", is_swa)
    m.arr("attention.indexer.types", [not s for s in is_swa])
    for il in range(n_layer):
        p = f"blk.{il}."
        g = small if geo_swa[il] else full
        m.t(p + "attn_norm.weight", n_embd, ones=True)
        m.t(p + "attn_k_norm.weight", rope, ones=True)
        mla(m, p, n_embd, g["n_head"], q_lora, g["kv_lora"], rope, g["nope"], g["v_head"])
        m.t(p + "attn_gate.weight", n_embd, g["n_head"])
        m.t(p + "ffn_norm.weight", n_embd, ones=True)
        if il < n_trunk and not is_swa[il]:
            dsa_indexer(m, p, n_embd, q_lora, idx_heads, idx_dim)
        dense_ffn(m, p, n_embd, n_ff)
        if il >= n_trunk:
            m.t(p + "nextn.eh_proj.weight", 2 * n_embd, n_embd)
            m.t(p + "nextn.enorm.weight", n_embd, ones=True)
            m.t(p + "nextn.hnorm.weight", n_embd, ones=True)
            m.t(p + "nextn.embed_tokens.weight", n_embd, m.n_vocab)
            m.t(p + "nextn.shared_head_norm.weight", n_embd, ones=True)
    m.finish()


def write_hy_v4(path, *, n_layer=4, n_embd=128, n_head=4, q_lora=64, kv_lora=64, rope=32,
                nope=32, v_head=32, n_ff=256, hc=4, idx_heads=4, idx_dim=64, top_k=64,
                types=(True, False, True, False), ctx=16384):
    """hy_v4: MLA with attention sinks and an output gate, iHC hyper-connections (hc streams),
    and the DSA indexer on the layers `types` marks full (the others reuse the previous full
    layer's top-k); top_k=0 writes no indexer keys, as conversion/hy_v4.py does for an
    all-full-attention checkpoint. Every layer dense."""
    arch = "hy_v4"
    m = Model(path, arch)
    tiny_common(m, n_layer=n_layer, n_embd=n_embd, ctx=ctx)
    m.u32(feed_forward_length=n_ff, attention__head_count=n_head, attention__head_count_kv=1,
          attention__key_length=kv_lora + rope, attention__value_length=kv_lora,
          attention__key_length_mla=nope + rope, attention__value_length_mla=v_head,
          attention__q_lora_rank=q_lora, attention__kv_lora_rank=kv_lora,
          rope__dimension_count=rope, leading_dense_block_count=n_layer,
          expert_feed_forward_length=n_ff, expert_shared_count=0, expert_gating_func=2,
          hyper_connection__count=hc)
    m.f32("hyper_connection.epsilon", 1e-6)
    m.f32("hyper_connection.magnitude", 1.0)
    if top_k:
        m.u32(attention__indexer__head_count=idx_heads, attention__indexer__key_length=idx_dim,
              attention__indexer__top_k=top_k)
        m.arr("attention.indexer.types", list(types))
    m.t("output_hc_fn.weight", hc * n_embd, hc)
    m.t("output_hc_base.weight", hc)
    m.t("output_hc_scale.weight", 1)
    for il in range(n_layer):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", n_embd, ones=True)
        m.t(p + "attn_sinks.weight", n_head)
        mla(m, p, n_embd, n_head, q_lora, kv_lora, rope, nope, v_head)
        m.t(p + "attn_gate.weight", n_embd, n_head * v_head)
        if top_k and types[il]:
            dsa_indexer(m, p, n_embd, q_lora, idx_heads, idx_dim)
        for part in ("attn", "ffn"):
            m.t(p + f"hc_{part}_fn.weight", hc * n_embd, 2 * hc)
            m.t(p + f"hc_{part}_base.weight", 2 * hc)
            m.t(p + f"hc_{part}_scale.weight", 2)
        m.t(p + "ffn_norm.weight", n_embd, ones=True)
        dense_ffn(m, p, n_embd, n_ff)
    m.finish()


def write_glm5_next(path, *, kinds="KMKM", types=(False, True, False, False), n_embd=128,
                    n_head=8, kda=64, d_conv=4, q_lora=64, kv_lora=64, nope=32, v_head=32,
                    n_ff=256, hc=4, idx_heads=4, idx_dim=32, top_k=64, kpool=4, ctx=16384):
    """glm5-next: KDA recurrent layers (K: head_count_kv 0) and nope-only MLA layers (M) whose
    DSA indexer pools keys by `kpool` (llama_memory_hybrid_idx); `types` marks the MLA layers
    with their own indexer (the others reuse the previous one's selection, their indexer
    tensors optional), mHC hyper-connections of 4 streams; keys as conversion/glm.py
    Glm5NextModel writes them. Every layer dense."""
    arch = "glm5-next"
    m = Model(path, arch)
    n_layer = len(kinds)
    is_kda = [k == "K" for k in kinds]
    d_inner = kda * n_head
    tiny_common(m, n_layer=n_layer, n_embd=n_embd, ctx=ctx)
    m.arr("attention.head_count_kv", [0 if k else 1 for k in is_kda])
    m.u32(feed_forward_length=n_ff, attention__head_count=n_head,
          attention__key_length=kv_lora, attention__value_length=kv_lora,
          attention__key_length_mla=nope, attention__value_length_mla=v_head,
          attention__q_lora_rank=q_lora, attention__kv_lora_rank=kv_lora,
          rope__dimension_count=0, ssm__conv_kernel=d_conv, kda__head_dim=kda,
          leading_dense_block_count=n_layer, expert_feed_forward_length=n_ff,
          expert_shared_count=0, attention__indexer__head_count=idx_heads,
          attention__indexer__key_length=idx_dim, attention__indexer__top_k=top_k,
          attention__indexer__kpool=kpool, hyper_connection__count=hc,
          hyper_connection__sinkhorn_iterations=20, vocab_size=m.n_vocab)
    m.f32("attention.layer_norm_epsilon", 1e-6)
    m.f32("hyper_connection.epsilon", 1e-6)
    m.w.add_bool(f"{arch}.attention.indexer.kpool_select_tail", True)
    m.arr("attention.indexer.types", list(types))
    mix = (2 + hc) * hc
    for il in range(n_layer):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", n_embd, ones=True)
        m.t(p + "ffn_norm.weight", n_embd, ones=True)
        for part in ("attn", "ffn"):
            m.t(p + f"hc_{part}_fn.weight", hc * n_embd, mix)
            m.t(p + f"hc_{part}_base.weight", mix)
            m.t(p + f"hc_{part}_scale.weight", 3)
        if is_kda[il]:
            for x in "qkv":
                m.t(p + f"ssm_conv1d_{x}.weight", d_conv, 1, d_inner)
                m.t(p + f"attn_{x}.weight", n_embd, d_inner)
            m.t(p + "ssm_f_a.weight", n_embd, kda)
            m.t(p + "ssm_f_b.weight", kda, d_inner)
            m.t(p + "ssm_beta.weight", n_embd, n_head)
            m.t(p + "ssm_a", n_head)
            m.t(p + "ssm_dt.bias", d_inner)
            m.t(p + "ssm_g_a.weight", n_embd, kda)
            m.t(p + "ssm_g_b.weight", kda, d_inner)
            m.t(p + "ssm_norm.weight", kda, ones=True)
            m.t(p + "attn_output.weight", d_inner, n_embd)
        else:
            mla(m, p, n_embd, n_head, q_lora, kv_lora, 0, nope, v_head)
            if types[il]:
                dsa_indexer(m, p, n_embd, q_lora, idx_heads, idx_dim)
                m.t(p + "indexer_compressor_gate.weight", n_embd, idx_dim)
                m.t(p + "indexer_compressor_ape.weight", idx_dim, kpool)
        dense_ffn(m, p, n_embd, n_ff)
    m.finish()


MODELS = {
    # DeepSeek V3.2's layout in small: every layer indexed
    "deepseek32-dsa": lambda p: write_dsa(p, "deepseek32"),
    # GLM 5 (trained below 1M tokens, no indexer.types): every layer indexed
    "glm-dsa-all": lambda p: write_dsa(p, "glm-dsa", n_layer=4),
    # GLM-5.2 style: attention.indexer.types names the full-indexer layers
    "glm-dsa-types": lambda p: write_dsa(p, "glm-dsa", n_layer=4, types=[1, 0, 1, 0]),
    # MiniMax M3: a dense first layer, then MoE + MSA indexer layers
    "minimax-m3-msa": lambda p: write_minimax_m3(p),
    # dots3note: DSA full-attention layers, MLA sliding-window layers, a NextN block not loaded
    "dots3note-dsa-swa": lambda p: write_dots3note(p),
    # hy_v4: the indexer on the layers indexer.types marks full
    "hy-v4-dsa": lambda p: write_hy_v4(p),
    # hy_v4 without indexer keys (indexer_top_k 0): a plain MLA cache
    "hy-v4-full": lambda p: write_hy_v4(p, top_k=0),
    # glm5-next: KDA + MLA hybrid with a k-pool indexer cache on its full-indexer layers
    "glm5-next-kpool": lambda p: write_glm5_next(p),
    # Gemma 3n: per-layer embeddings on the host, AltUp / LAuReL in the graph
    "gemma3n-ple": lambda p: write_gemma3n(p),
    # Gemma 3n past llama.cpp's n_layer_kv_from_start = 20: layers 20 and 21 compute Q only and
    # read the caches of layers 18 (sliding window) and 19 (full)
    "gemma3n-kv-shared": lambda p: write_gemma3n(p, n_layer=22),
}


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    os.makedirs(out, exist_ok=True)
    for name in names:
        path = os.path.join(out, name + ".gguf")
        MODELS[name](path)
        print(path)


if __name__ == "__main__":
    main()
