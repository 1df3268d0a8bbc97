#!/usr/bin/env python3
"""Tiny GGUF models of the 2026 architectures llama.cpp b11434 runs: hybrids with Gated DeltaNet
(qwen3next, qwen35, qwen35moe) or KDA (kimi-linear) recurrent layers, Nemotron-H's three layer
kinds, and the attention windows llama.cpp forces (llama4's chunks, smallthinker, exaone4).

Each file has the keys and tensor shapes b11434's `load_arch_hparams` / `load_arch_tensors`
(src/models/<arch>.cpp) require; weights are small seeded random values (the models only load). The recurrent states are made
large enough (a few hundred KiB per layer) that llama-server's 0.01 MiB print checks them.
Tensors are given in ggml's order (ne0 first), as llama.cpp's `create_tensor` lists them.

usage: gen_models_2026.py OUT_DIR [NAME ...]      (no NAME: all)
"""
import os
import sys

import numpy as np
import gguf

RNG = np.random.default_rng(2026)


class Model:
    """A GGUF writer for one architecture: `u32`/`f32`/`arr` write `{arch}.KEY`, `t` a tensor
    given by its ggml shape."""

    def __init__(self, path, arch, n_words=1700):
        self.arch = arch
        self.w = gguf.GGUFWriter(path, arch)
        self.w.add_string("general.name", os.path.basename(path))
        self.w.add_uint32("general.file_type", 0)
        self.n_vocab = add_spm_vocab(self.w, n_words)

    def u32(self, **kv):
        for k, v in kv.items():
            self.w.add_uint32(f"{self.arch}.{k.replace('__', '.')}", v)

    def f32(self, key, v):
        self.w.add_float32(f"{self.arch}.{key}", v)

    def arr(self, key, values):
        self.w.add_array(f"{self.arch}.{key}", values)

    def t(self, name, *ne, ones=False):
        shape = tuple(reversed(ne))
        data = np.ones(shape, np.float32) if ones else (RNG.standard_normal(shape) * 0.02).astype(np.float32)
        self.w.add_tensor(name, data)

    def finish(self):
        self.w.write_header_to_file()
        self.w.write_kv_data_to_file()
        self.w.write_tensors_to_file()
        self.w.close()


def add_spm_vocab(w, n_words):
    """SPM ("llama") vocab: <unk>, <s>, </s>, 256 byte tokens, then n_words word pieces."""
    toks = [b"<unk>", b"<s>", b"</s>"] + [("<0x%02X>" % i).encode() for i in range(256)]
    toks += [("\u2581w%d" % i).encode() for i in range(n_words)]
    w.add_string("tokenizer.ggml.model", "llama")
    w.add_array("tokenizer.ggml.tokens", toks)
    w.add_array("tokenizer.ggml.scores", [0.0] * len(toks))
    w.add_array("tokenizer.ggml.token_type", [2, 3, 3] + [6] * 256 + [1] * n_words)
    w.add_uint32("tokenizer.ggml.bos_token_id", 1)
    w.add_uint32("tokenizer.ggml.eos_token_id", 2)
    w.add_uint32("tokenizer.ggml.unknown_token_id", 0)
    return len(toks)


def common(m, *, n_layer, n_embd, ctx=8192, eps=1e-6):
    m.u32(block_count=n_layer, context_length=ctx, embedding_length=n_embd)
    m.f32("attention.layer_norm_rms_epsilon", eps)
    m.f32("rope.freq_base", 10000.0)
    m.t("token_embd.weight", n_embd, m.n_vocab)
    m.t("output_norm.weight", n_embd, ones=True)
    m.t("output.weight", n_embd, m.n_vocab)


def moe(m, p, n_embd, n_ff_exp, n_expert, shared=0):
    m.t(p + "ffn_gate_inp.weight", n_embd, n_expert)
    m.t(p + "ffn_gate_exps.weight", n_embd, n_ff_exp, n_expert)
    m.t(p + "ffn_up_exps.weight", n_embd, n_ff_exp, n_expert)
    m.t(p + "ffn_down_exps.weight", n_ff_exp, n_embd, n_expert)
    if shared:
        m.t(p + "ffn_gate_shexp.weight", n_embd, shared)
        m.t(p + "ffn_up_shexp.weight", n_embd, shared)
        m.t(p + "ffn_down_shexp.weight", shared, n_embd)


def write_qwen35(path, *, arch="qwen35", n_layer=8, n_embd=128, n_head=4, n_head_kv=2, head=32,
                 n_ff=256, d_conv=4, d_state=64, n_group=2, dt_rank=16, interval=None,
                 recurrent=None, n_expert=0, n_used=0, n_ff_exp=64):
    """qwen35 / qwen35moe / qwen3next: Gated DeltaNet layers (llama_model_qwen35::load_arch_tensors)
    and gated full-attention layers; which are which from `recurrent` (the converter's
    attention.recurrent_layers) or `interval` (full_attention_interval, llama.cpp's default 4)."""
    m = Model(path, arch)
    common(m, n_layer=n_layer, n_embd=n_embd)
    m.u32(feed_forward_length=n_ff, attention__head_count=n_head, attention__head_count_kv=n_head_kv,
          attention__key_length=head, attention__value_length=head, rope__dimension_count=head // 2,
          ssm__conv_kernel=d_conv, ssm__state_size=d_state, ssm__group_count=n_group,
          ssm__time_step_rank=dt_rank, ssm__inner_size=d_state * dt_rank)
    if arch != "qwen3next":
        m.arr("rope.dimension_sections", [4, 2, 2, 0])
    if n_expert:
        m.u32(expert_count=n_expert, expert_used_count=n_used, expert_feed_forward_length=n_ff_exp,
              expert_shared_feed_forward_length=n_ff_exp)
    if interval is not None:
        m.u32(full_attention_interval=interval)
    if recurrent is not None:
        m.arr("attention.recurrent_layers", recurrent)
        is_recr = recurrent
    else:
        iv = interval or 4
        is_recr = [(il + 1) % iv != 0 for il in range(n_layer)]
    key_dim, value_dim = d_state * n_group, d_state * dt_rank
    for il in range(n_layer):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", n_embd, ones=True)
        m.t(p + "post_attention_norm.weight", n_embd, ones=True)
        if not is_recr[il]:
            m.t(p + "attn_q.weight", n_embd, head * n_head * 2)
            m.t(p + "attn_k.weight", n_embd, head * n_head_kv)
            m.t(p + "attn_v.weight", n_embd, head * n_head_kv)
            m.t(p + "attn_output.weight", head * n_head, n_embd)
            m.t(p + "attn_q_norm.weight", head, ones=True)
            m.t(p + "attn_k_norm.weight", head, ones=True)
        else:
            if arch == "qwen3next":
                m.t(p + "ssm_in.weight", n_embd, key_dim * 2 + value_dim * 2)
                m.t(p + "ssm_ba.weight", n_embd, dt_rank * 2)
            else:
                m.t(p + "attn_qkv.weight", n_embd, key_dim * 2 + value_dim)
                m.t(p + "attn_gate.weight", n_embd, value_dim)
                m.t(p + "ssm_beta.weight", n_embd, dt_rank)
                m.t(p + "ssm_alpha.weight", n_embd, dt_rank)
            m.t(p + "ssm_conv1d.weight", d_conv, key_dim * 2 + value_dim)
            m.t(p + "ssm_dt.bias", dt_rank)
            m.t(p + "ssm_a", dt_rank)
            m.t(p + "ssm_norm.weight", d_state, ones=True)
            m.t(p + "ssm_out.weight", value_dim, n_embd)
        if n_expert:
            moe(m, p, n_embd, n_ff_exp, n_expert, shared=n_ff_exp)
            m.t(p + "ffn_gate_inp_shexp.weight", n_embd)
        else:
            m.t(p + "ffn_gate.weight", n_embd, n_ff)
            m.t(p + "ffn_up.weight", n_embd, n_ff)
            m.t(p + "ffn_down.weight", n_ff, n_embd)
    m.finish()


def write_kimi_linear(path, *, n_layer=4, n_embd=128, n_head=8, kda=64, d_conv=4, kv_lora=64,
                      rope=32, nope=32, v_head=32, n_expert=4, n_used=2, n_ff_exp=64, n_ff=256):
    """kimi-linear: KDA layers (head_count_kv 0: recurrent) and MLA layers, a dense first layer
    then experts (llama_model_kimi_linear::load_arch_tensors)."""
    m = Model(path, "kimi-linear")
    common(m, n_layer=n_layer, n_embd=n_embd)
    kv = [0 if il % 2 == 0 else 1 for il in range(n_layer)]  # KDA, MLA, KDA, MLA
    m.u32(feed_forward_length=n_ff, attention__head_count=n_head, attention__key_length=kv_lora + rope,
          attention__value_length=kv_lora, attention__key_length_mla=nope + rope,
          attention__value_length_mla=v_head, attention__kv_lora_rank=kv_lora,
          rope__dimension_count=rope, ssm__conv_kernel=d_conv, kda__head_dim=kda,
          expert_count=n_expert, expert_used_count=n_used, expert_feed_forward_length=n_ff_exp,
          expert_shared_count=1, leading_dense_block_count=1, expert_gating_func=2)
    m.arr("attention.head_count_kv", kv)
    for il in range(n_layer):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", n_embd, ones=True)
        if kv[il] == 0:
            for x in "qkv":
                m.t(p + f"ssm_conv1d_{x}.weight", d_conv, 1, kda * n_head)
                m.t(p + f"attn_{x}.weight", n_embd, kda * n_head)
            m.t(p + "ssm_f_a.weight", n_embd, kda)
            m.t(p + "ssm_f_b.weight", kda, kda * n_head)
            m.t(p + "ssm_beta.weight", n_embd, n_head)
            m.t(p + "ssm_a", 1, n_head)
            m.t(p + "ssm_dt.bias", kda * n_head)
            m.t(p + "ssm_g_a.weight", n_embd, kda)
            m.t(p + "ssm_g_b.weight", kda, kda * n_head)
            m.t(p + "ssm_norm.weight", kda, ones=True)
            m.t(p + "attn_output.weight", kda * n_head, n_embd)
        else:
            m.t(p + "attn_kv_a_norm.weight", kv_lora, ones=True)
            m.t(p + "attn_q.weight", n_embd, n_head * (nope + rope))
            m.t(p + "attn_kv_a_mqa.weight", n_embd, kv_lora + rope)
            m.t(p + "attn_k_b.weight", nope, kv_lora, n_head)
            m.t(p + "attn_v_b.weight", kv_lora, v_head, n_head)
            m.t(p + "attn_output.weight", n_head * v_head, n_embd)
        m.t(p + "ffn_norm.weight", n_embd, ones=True)
        if il < 1:
            m.t(p + "ffn_gate.weight", n_embd, n_ff)
            m.t(p + "ffn_up.weight", n_embd, n_ff)
            m.t(p + "ffn_down.weight", n_ff, n_embd)
        else:
            moe(m, p, n_embd, n_ff_exp, n_expert, shared=n_ff_exp)
            m.t(p + "exp_probs_b.bias", n_expert)
    m.finish()


def write_nemotron_h(path, *, n_embd=128, n_head=4, n_head_kv=2, head=32, d_conv=4, d_inner=256,
                     d_state=64, n_group=2, n_ssm_head=8, n_ff=256):
    """nemotron_h: Mamba-2 layers (no KV heads, no FFN), attention layers (KV heads, no FFN) and
    MLP-only layers (neither), as llama_model_nemotron_h::load_arch_hparams tells them apart."""
    kinds = "MEM*EMEM"  # M mamba2, E MLP, * attention
    m = Model(path, "nemotron_h")
    common(m, n_layer=len(kinds), n_embd=n_embd)
    m.u32(attention__head_count=n_head, attention__key_length=head, attention__value_length=head,
          rope__dimension_count=head, ssm__conv_kernel=d_conv, ssm__inner_size=d_inner,
          ssm__state_size=d_state, ssm__group_count=n_group, ssm__time_step_rank=n_ssm_head)
    m.f32("attention.layer_norm_epsilon", 1e-5)
    m.arr("attention.head_count_kv", [n_head_kv if k == "*" else 0 for k in kinds])
    m.arr("feed_forward_length", [n_ff if k == "E" else 0 for k in kinds])
    conv = d_inner + 2 * n_group * d_state
    for il, k in enumerate(kinds):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", n_embd, ones=True)
        if k == "M":
            m.t(p + "ssm_in.weight", n_embd, 2 * d_inner + 2 * n_group * d_state + n_ssm_head)
            m.t(p + "ssm_conv1d.weight", d_conv, conv)
            m.t(p + "ssm_conv1d.bias", conv)
            m.t(p + "ssm_dt.bias", n_ssm_head)
            m.t(p + "ssm_a", 1, n_ssm_head)
            m.t(p + "ssm_d", 1, n_ssm_head)
            m.t(p + "ssm_norm.weight", d_inner // n_group, n_group, ones=True)
            m.t(p + "ssm_out.weight", d_inner, n_embd)
        elif k == "*":
            m.t(p + "attn_q.weight", n_embd, head * n_head)
            m.t(p + "attn_k.weight", n_embd, head * n_head_kv)
            m.t(p + "attn_v.weight", n_embd, head * n_head_kv)
            m.t(p + "attn_output.weight", head * n_head, n_embd)
        else:
            m.t(p + "ffn_up.weight", n_embd, n_ff)
            m.t(p + "ffn_down.weight", n_ff, n_embd)
    m.finish()


def attention_layer(m, p, n_embd, n_head, n_head_kv, head):
    m.t(p + "attn_q.weight", n_embd, head * n_head)
    m.t(p + "attn_k.weight", n_embd, head * n_head_kv)
    m.t(p + "attn_v.weight", n_embd, head * n_head_kv)
    m.t(p + "attn_output.weight", head * n_head, n_embd)


def write_llama4(path, *, n_layer=4, n_embd=128, n_head=4, n_head_kv=2, head=32, n_ff=256,
                 n_expert=4, n_used=1, n_ff_exp=64, swa=None):
    """llama4: every 2nd layer MoE with a shared expert; chunked attention (8192) unless the file
    sets sliding_window to 0 (llama_model_llama4::load_arch_hparams)."""
    m = Model(path, "llama4")
    common(m, n_layer=n_layer, n_embd=n_embd, ctx=32768)
    m.u32(feed_forward_length=n_ff, attention__head_count=n_head, attention__head_count_kv=n_head_kv,
          rope__dimension_count=head, expert_count=n_expert, expert_used_count=n_used,
          expert_feed_forward_length=n_ff_exp, interleave_moe_layer_step=2)
    if swa is not None:
        m.u32(attention__sliding_window=swa)
    for il in range(n_layer):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", n_embd, ones=True)
        attention_layer(m, p, n_embd, n_head, n_head_kv, head)
        m.t(p + "ffn_norm.weight", n_embd, ones=True)
        if (il + 1) % 2 == 0:
            moe(m, p, n_embd, n_ff_exp, n_expert, shared=n_ff_exp)
        else:
            m.t(p + "ffn_gate.weight", n_embd, n_ff)
            m.t(p + "ffn_up.weight", n_embd, n_ff)
            m.t(p + "ffn_down.weight", n_ff, n_embd)
    m.finish()


def write_smallthinker(path, *, n_layer=5, n_embd=128, n_head=4, n_head_kv=2, head=32,
                       n_expert=4, n_used=2, n_ff_exp=64, swa=512):
    """smallthinker: any sliding window in the file becomes 4096, dense first (1 full : 3 SWA)."""
    m = Model(path, "smallthinker")
    common(m, n_layer=n_layer, n_embd=n_embd, ctx=32768)
    m.u32(feed_forward_length=n_ff_exp, attention__head_count=n_head, attention__head_count_kv=n_head_kv,
          rope__dimension_count=head, expert_count=n_expert, expert_used_count=n_used,
          expert_feed_forward_length=n_ff_exp, attention__sliding_window=swa,
          expert_gating_func=1)  # softmax: without it build_moe_ffn aborts (no gating)
    for il in range(n_layer):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", n_embd, ones=True)
        attention_layer(m, p, n_embd, n_head, n_head_kv, head)
        m.t(p + "ffn_norm.weight", n_embd, ones=True)
        moe(m, p, n_embd, n_ff_exp, n_expert)
    m.finish()


def write_exaone4(path, *, n_layer, n_embd=64, n_head=2, n_head_kv=1, head=32, n_ff=64, swa=None):
    """exaone4: a sliding window (4096 unless the file gives one) only at 64 layers."""
    m = Model(path, "exaone4")
    common(m, n_layer=n_layer, n_embd=n_embd, ctx=32768)
    m.u32(feed_forward_length=n_ff, attention__head_count=n_head, attention__head_count_kv=n_head_kv,
          rope__dimension_count=head)
    if swa is not None:
        m.u32(attention__sliding_window=swa)
    for il in range(n_layer):
        p = f"blk.{il}."
        attention_layer(m, p, n_embd, n_head, n_head_kv, head)
        m.t(p + "post_attention_norm.weight", n_embd, ones=True)
        m.t(p + "attn_q_norm.weight", head, ones=True)
        m.t(p + "attn_k_norm.weight", head, ones=True)
        m.t(p + "ffn_gate.weight", n_embd, n_ff)
        m.t(p + "ffn_up.weight", n_embd, n_ff)
        m.t(p + "ffn_down.weight", n_ff, n_embd)
        m.t(p + "post_ffw_norm.weight", n_embd, ones=True)
    m.finish()


MODELS = {
    # llama.cpp's default layout: full attention every 4th layer (3 Gated DeltaNet : 1 full)
    "qwen35-interval": lambda p: write_qwen35(p),
    # the converter's per-layer array, not the interval: full attention at layers 1 and 6
    "qwen35-array": lambda p: write_qwen35(
        p, recurrent=[True, False, True, True, True, True, False, True]),
    "qwen35moe": lambda p: write_qwen35(p, arch="qwen35moe", n_expert=4, n_used=2, interval=2),
    "qwen3next": lambda p: write_qwen35(p, arch="qwen3next", n_expert=4, n_used=2),
    "kimi-linear": lambda p: write_kimi_linear(p),
    "nemotron-h": lambda p: write_nemotron_h(p),
    "llama4-chunked": lambda p: write_llama4(p),
    "llama4-nochunk": lambda p: write_llama4(p, swa=0),
    "smallthinker-swa": lambda p: write_smallthinker(p),
    "exaone4-64": lambda p: write_exaone4(p, n_layer=64),
    "exaone4-30": lambda p: write_exaone4(p, n_layer=30, swa=4096),
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
