#!/usr/bin/env python3
"""Writes tiny GGUF models of the sparse-attention architectures (deepseek32, glm-dsa,
minimax-m3) and of gemma3n with the `gguf` package's writer, each with the keys and tensor
shapes llama.cpp b11434's `load_arch_hparams` / `load_arch_tensors` require
(src/models/deepseek32.cpp, glm-dsa.cpp, minimax-m3.cpp, gemma3n.cpp).

Used by crates/workloads/tests/llama_indexer_grid.rs. Weights are small random values (seeded):
the models only need to load, not to be good. The helpers (vocabulary, matrices) are
gen_models.py's.

usage: gen_models_indexer.py OUT_DIR [NAME ...]      (no NAME: all)
"""
import os
import sys

import numpy as np
import gguf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import RNG, add_spm_vocab, finish, mat, vec  # noqa: E402


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


MODELS = {
    # DeepSeek V3.2's layout in small: every layer indexed
    "deepseek32-dsa": lambda p: write_dsa(p, "deepseek32"),
    # GLM 5 (trained below 1M tokens, no indexer.types): every layer indexed
    "glm-dsa-all": lambda p: write_dsa(p, "glm-dsa", n_layer=4),
    # GLM-5.2 style: attention.indexer.types names the full-indexer layers
    "glm-dsa-types": lambda p: write_dsa(p, "glm-dsa", n_layer=4, types=[1, 0, 1, 0]),
    # MiniMax M3: a dense first layer, then MoE + MSA indexer layers
    "minimax-m3-msa": lambda p: write_minimax_m3(p),
    # Gemma 3n: per-layer embeddings on the host, AltUp / LAuReL in the graph
    "gemma3n-ple": lambda p: write_gemma3n(p),
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
