#!/usr/bin/env python3
"""Writes tiny GGUF models of qwen4exp (Gated DeltaNet layers, QSA attention layers with their
indexer, hyper-connections, MoE with a shared expert) and deepseek4 (a sliding-window K cache,
CSA/HCA compressed layers, the lightning indexer, hyper-connections) with the `gguf` package's
writer, with the keys and tensor shapes llama.cpp b11434's `load_arch_hparams` /
`load_arch_tensors` require (src/models/qwen4exp.cpp, src/models/deepseek4.cpp).

Used by crates/workloads/tests/llama_indexer_grid2.rs. Weights are small seeded random values (the
models only load). The writer and vocabulary are gen_models_2026.py's; tensors are given in ggml's
order (ne0 first), as `create_tensor` lists them.

usage: gen_models_indexer2.py OUT_DIR [NAME ...]      (no NAME: all)
"""
import os
import sys

import gguf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models_2026 import Model  # noqa: E402


def write_qwen4exp(path, *, n_layer=4, n_embd=128, n_head=4, n_head_kv=2, head=32, d_conv=4,
                   d_state=64, n_group=2, dt_rank=16, interval=2, hc=2, hc_lr=16, n_expert=4,
                   n_used=2, n_ff_exp=64, idx_heads=4, idx_dim=64, top_k=64, kpool=4, ple=None):
    """qwen4exp: every `interval`-th layer full attention with the QSA indexer (one key head of
    idx_dim cached per layer; with `kpool` the compress ratio that pools the keys, so the cache
    row is raw key | pooled key), the others Gated DeltaNet; no layer norms (hyper-connections
    with `hc` streams replace them). `ple`: the per-layer n-gram embedding's recurrent layer."""
    arch = "qwen4exp"
    m = Model(path, arch)
    m.u32(block_count=n_layer, context_length=16384, embedding_length=n_embd,
          attention__head_count=n_head, attention__head_count_kv=n_head_kv,
          attention__key_length=head, attention__value_length=head, rope__dimension_count=head // 2,
          ssm__conv_kernel=d_conv, ssm__state_size=d_state, ssm__group_count=n_group,
          ssm__time_step_rank=dt_rank, ssm__inner_size=d_state * dt_rank,
          full_attention_interval=interval, hyper_connection__count=hc,
          hyper_connection__low_rank=hc_lr, expert_count=n_expert, expert_used_count=n_used,
          expert_feed_forward_length=n_ff_exp, expert_shared_feed_forward_length=n_ff_exp,
          attention__indexer__head_count=idx_heads, attention__indexer__key_length=idx_dim,
          attention__indexer__top_k=top_k)
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.f32("rope.freq_base", 10000.0)
    m.arr("rope.dimension_sections", [4, 2, 2, 0])
    is_recr = [(il + 1) % interval != 0 for il in range(n_layer)]
    if kpool:
        m.arr("attention.compress_ratios", [0 if r else kpool for r in is_recr])
    hc_dim = hc * n_embd
    if ple is not None:
        ple_keys(m, ple, n_embd)
    m.t("token_embd.weight", n_embd, m.n_vocab)
    m.t("output_hc_norm.weight", n_embd, hc, ones=True)
    m.t("output_hc_down.weight", hc_dim, hc_lr)
    m.t("output_hc_up.weight", hc_lr, hc_dim)
    m.t("output.weight", n_embd, m.n_vocab)
    key_dim, value_dim = d_state * n_group, d_state * dt_rank
    for il in range(n_layer):
        p = f"blk.{il}."
        for mod in ("attn", "ffn"):
            m.t(p + f"hc_{mod}_norm.weight", n_embd, hc, ones=True)
            m.t(p + f"hc_{mod}_down.weight", hc_dim, hc_lr)
            m.t(p + f"hc_{mod}_up.weight", hc_lr, hc_dim)
            m.t(p + f"hc_{mod}_inject.weight", hc_dim, hc)
        if not is_recr[il]:
            m.t(p + "attn_q.weight", n_embd, head * n_head * 2)
            m.t(p + "attn_k.weight", n_embd, head * n_head_kv)
            m.t(p + "attn_v.weight", n_embd, head * n_head_kv)
            m.t(p + "attn_output.weight", head * n_head, n_embd)
            m.t(p + "attn_q_norm.weight", head, ones=True)
            m.t(p + "attn_k_norm.weight", head, ones=True)
            m.t(p + "indexer.q_proj.weight", n_embd, idx_heads * idx_dim)
            m.t(p + "indexer.k_proj.weight", n_embd, idx_dim)
            m.t(p + "indexer.q_norm.weight", idx_dim, ones=True)
            m.t(p + "indexer.k_norm.weight", idx_dim, ones=True)
        else:
            m.t(p + "attn_qkv.weight", n_embd, key_dim * 2 + value_dim)
            m.t(p + "attn_gate.weight", n_embd, value_dim)
            m.t(p + "ssm_conv1d.weight", d_conv, key_dim * 2 + value_dim)
            m.t(p + "ssm_dt.bias", dt_rank)
            m.t(p + "ssm_a", dt_rank)
            m.t(p + "ssm_beta.weight", n_embd, dt_rank)
            m.t(p + "ssm_alpha.weight", n_embd, dt_rank)
            m.t(p + "ssm_norm.weight", d_state, ones=True)
            m.t(p + "ssm_out.weight", value_dim, n_embd)
        if il == ple:
            m.t(p + "ple_key.weight", n_embd, hc_dim)
            m.t(p + "ple_value.weight", n_embd, n_embd)
            for norm in ("key", "query", "conv"):
                m.t(p + f"ple_norm_{norm}.weight", n_embd, hc, ones=True)
            m.t(p + "ple_conv1d.weight", PLE_CONV, hc_dim)
        m.t(p + "ffn_gate_inp.weight", n_embd, n_expert)
        m.t(p + "ffn_gate_exps.weight", n_embd, n_ff_exp, n_expert)
        m.t(p + "ffn_up_exps.weight", n_embd, n_ff_exp, n_expert)
        m.t(p + "ffn_down_exps.weight", n_ff_exp, n_embd, n_expert)
        m.t(p + "ffn_gate_inp_shexp.weight", n_embd)
        m.t(p + "ffn_gate_shexp.weight", n_embd, n_ff_exp)
        m.t(p + "ffn_up_shexp.weight", n_embd, n_ff_exp)
        m.t(p + "ffn_down_shexp.weight", n_ff_exp, n_embd)
    m.finish()


def write_deepseek4(path, *, n_embd=128, n_head=4, head=128, q_lora=64, o_groups=2, o_lora=32,
                    hc=4, swa=128, n_expert=4, n_used=2, n_ff_exp=64, idx_heads=8, idx_dim=64,
                    ratios=(0, 4, 128, 4)):
    """deepseek4 (llama_model_deepseek4::load_arch_tensors): one K head of `head` per layer
    (sliding window `swa`), layers compressed by 4 (CSA, with the lightning indexer) or 128
    (HCA) per `ratios`, hyper-connections of `hc` streams, MoE with a shared expert."""
    arch = "deepseek4"
    m = Model(path, arch)
    n_layer = len(ratios)
    m.u32(block_count=n_layer, context_length=16384, embedding_length=n_embd,
          attention__head_count=n_head, attention__head_count_kv=1, attention__key_length=head,
          attention__value_length=head, rope__dimension_count=head // 2,
          attention__q_lora_rank=q_lora, attention__sliding_window=swa,
          expert_count=n_expert, expert_used_count=n_used, expert_feed_forward_length=n_ff_exp,
          expert_shared_count=1, expert_gating_func=4, attention__indexer__head_count=idx_heads,
          attention__indexer__key_length=idx_dim, attention__indexer__top_k=16,
          attention__output_group_count=o_groups, attention__output_lora_rank=o_lora,
          hyper_connection__count=hc, hyper_connection__sinkhorn_iterations=2,
          hash_layer_count=0)
    for key, v in [("attention.layer_norm_rms_epsilon", 1e-6), ("rope.freq_base", 10000.0),
                   ("expert_weights_scale", 1.0), ("swiglu_clamp_exp", 10.0),
                   ("attention.compress_rope_freq_base", 160000.0),
                   ("hyper_connection.epsilon", 1e-6)]:
        m.f32(key, v)
    m.w.add_bool(f"{arch}.expert_weights_norm", True)
    m.arr("attention.compress_ratios", list(ratios))
    hc_dim, hc_mix = hc * n_embd, (2 + hc) * hc
    m.t("token_embd.weight", n_embd, m.n_vocab)
    m.t("output_norm.weight", n_embd, ones=True)
    m.t("output.weight", n_embd, m.n_vocab)
    m.t("output_hc_fn.weight", hc_dim, hc)
    m.t("output_hc_base.weight", hc)
    m.t("output_hc_scale.weight", 1)
    for il, ratio in enumerate(ratios):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", n_embd, ones=True)
        m.t(p + "attn_sinks.weight", n_head)
        m.t(p + "attn_q_a.weight", n_embd, q_lora)
        m.t(p + "attn_q_a_norm.weight", q_lora, ones=True)
        m.t(p + "attn_q_b.weight", q_lora, n_head * head)
        m.t(p + "attn_kv.weight", n_embd, head)
        m.t(p + "attn_kv_a_norm.weight", head, ones=True)
        m.t(p + "attn_output_a.weight", n_head * head // o_groups, o_lora, o_groups)
        m.t(p + "attn_output_b.weight", o_groups * o_lora, n_embd)
        for mod in ("attn", "ffn"):
            m.t(p + f"hc_{mod}_fn.weight", hc_dim, hc_mix)
            m.t(p + f"hc_{mod}_base.weight", hc_mix)
            m.t(p + f"hc_{mod}_scale.weight", 3)
        if ratio:
            coff = 2 if ratio == 4 else 1
            m.t(p + "attn_compressor_kv.weight", n_embd, coff * head)
            m.t(p + "attn_compressor_gate.weight", n_embd, coff * head)
            m.t(p + "attn_compressor_ape.weight", coff * head, ratio)
            m.t(p + "attn_compressor_norm.weight", head, ones=True)
        if ratio == 4:
            m.t(p + "indexer.proj.weight", n_embd, idx_heads)
            m.t(p + "indexer.attn_q_b.weight", q_lora, idx_heads * idx_dim)
            m.t(p + "indexer_compressor_kv.weight", n_embd, 2 * idx_dim)
            m.t(p + "indexer_compressor_gate.weight", n_embd, 2 * idx_dim)
            m.t(p + "indexer_compressor_ape.weight", 2 * idx_dim, ratio)
            m.t(p + "indexer_compressor_norm.weight", idx_dim, ones=True)
        m.t(p + "ffn_gate_inp.weight", n_embd, n_expert)
        m.t(p + "exp_probs_b.bias", n_expert)
        m.t(p + "ffn_norm.weight", n_embd, ones=True)
        m.t(p + "ffn_gate_exps.weight", n_embd, n_ff_exp, n_expert)
        m.t(p + "ffn_down_exps.weight", n_ff_exp, n_embd, n_expert)
        m.t(p + "ffn_up_exps.weight", n_embd, n_ff_exp, n_expert)
        m.t(p + "ffn_gate_shexp.weight", n_embd, n_ff_exp)
        m.t(p + "ffn_down_shexp.weight", n_ff_exp, n_embd)
        m.t(p + "ffn_up_shexp.weight", n_embd, n_ff_exp)
    m.finish()


# The PLE module's shape: n-grams of 3 tokens, 2 hash heads per n-gram size (4 heads), a conv
# kernel of 4 dilated by the n-gram size; each head's table 500 rows.
PLE_NGRAM, PLE_PER_GRAM, PLE_CONV, PLE_ROWS = 3, 2, 4, 500


def ple_keys(m, layer, n_embd):
    """The per-layer n-gram embedding (`ple.*`, llama_model_qwen4exp::load_arch_hparams) on one
    linear layer; the heads' rows concatenate to n_embd (ple_key reads [n_heads x head_dim])."""
    n_heads = (PLE_NGRAM - 1) * PLE_PER_GRAM
    u64 = lambda key, vals: m.w.add_key_value(  # noqa: E731
        f"{m.arch}.{key}", list(vals), gguf.GGUFValueType.ARRAY, gguf.GGUFValueType.UINT64)
    m.arr("ple.layers", [layer])
    m.u32(ple__ngram_size=PLE_NGRAM, ple__heads_per_ngram=PLE_PER_GRAM, ple__conv_kernel=PLE_CONV,
          ple__eos_token_id=2, embedding_length_per_layer_input=n_embd // n_heads)
    u64("ple.layer_multipliers", [1000003 + 2 * i for i in range(PLE_NGRAM)])
    u64("ple.head_offsets", [PLE_ROWS * h for h in range(n_heads)])
    u64("ple.head_vocab_sizes", [PLE_ROWS] * n_heads)
    m.t("per_layer_token_embd.weight", n_embd // n_heads, PLE_ROWS * n_heads)


MODELS = {
    # QSA with pooled keys (compress ratio 4): the indexer row is raw key | pooled key
    "qwen4exp-qsa": lambda p: write_qwen4exp(p),
    # no compress_ratios: the indexer keeps the raw key only
    "qwen4exp-nopool": lambda p: write_qwen4exp(p, kpool=0, n_layer=6, interval=3),
    # the per-layer n-gram embedding on layer 0: its conv history is a third recurrent row
    "qwen4exp-ple": lambda p: write_qwen4exp(p, ple=0),
    # DeepSeek V4: a raw layer, two CSA layers (with the indexer) and an HCA layer
    "deepseek4-dsv4": lambda p: write_deepseek4(p),
    # two hyper-connection streams: b11434 aborts (GGML_ASSERT(hc == 4) in build_hc_pre)
    "deepseek4-hc2": lambda p: write_deepseek4(p, hc=2),
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
