#!/usr/bin/env python3
"""Tiny GGUF models of the widely used architectures llama.cpp b11434 runs that the older grids
(gen_models.py, gen_models_2026.py, gen_models_indexer.py) do not: dense transformers with their
own norms, fused projections or windows (qwen2, qwen3, mistral3, glm4, phi3, olmo2, cohere2...),
mixtures of experts (gpt-oss, glm4moe, granitemoe, olmoe, ernie4_5-moe) and recurrent models and
hybrids (mamba2, rwkv6, rwkv7, lfm2, falcon-h1, granitehybrid, jamba).

Each file has the keys and tensor shapes b11434's `load_arch_hparams` / `load_arch_tensors`
(src/models/<arch>.cpp) require, nothing optional; tensors in ggml's order (ne0 first). The writer
and vocabulary are gen_models_2026.py's, the shared layer pieces grid_layers.py's, the recurrent
models grid_recurrent.py's, gemma4, the latent-attention variants, MTP layers, nemotron_h_moe,
dbrx, arctic, grok, mimo2 and hy_v3 grid_more.py's, the KDA + MLA hybrids (bailingmoe3,
kimi-k3), grovemoe, laguna and spark2_5 grid_2026b.py's.

usage: gen_models_grid.py OUT_DIR [NAME ...]      (no NAME: all)
"""
import os
import sys

import grid_2026b
import grid_more
import grid_recurrent
from gen_models_2026 import Model, moe
from grid_layers import D, E, FF, H, HKV, attn, experts, ffn, moe_keys


def dense(path, arch, *, n_layer=4, ctx=8192, norms=("attn_norm", "ffn_norm"), qk_norm=None,
          bias=False, ffn_kind="gated", tied=False, eps="rms", u32=None, f32=None, layer=None,
          hkv=HKV, fused_qkv=False, arr=None, norm_bias=False, output_bias=False,
          output_norm=True, flags=(), n_ff=FF, pos_embd=False, embd_norm=False):
    """A transformer of `n_layer` attention + FFN layers: `norms` names the per-layer norm weights,
    `layer(m, p, il)` adds what an architecture has beyond them; `norm_bias`: layer norms with
    biases."""
    m = Model(path, arch)
    m.u32(block_count=n_layer, context_length=ctx, embedding_length=E, feed_forward_length=n_ff,
          attention__head_count=H, attention__head_count_kv=hkv, attention__key_length=D,
          attention__value_length=D, rope__dimension_count=D)
    m.f32("attention.layer_norm_rms_epsilon" if eps == "rms" else "attention.layer_norm_epsilon",
          1e-6)
    m.f32("rope.freq_base", 10000.0)
    m.u32(**(u32 or {}))
    for k, v in (f32 or {}).items():
        m.f32(k, v)
    for k, v in (arr or {}).items():
        m.arr(k, v)
    for k in flags:
        m.w.add_bool(f"{arch}.{k}", True)
    m.t("token_embd.weight", E, m.n_vocab)
    if pos_embd:  # learned positions, one row per training position (gpt2, starcoder)
        m.t("position_embd.weight", E, ctx)
    if embd_norm:  # a layer norm on the embeddings (bloom)
        m.t("token_embd_norm.weight", E, ones=True)
        m.t("token_embd_norm.bias", E)
    if output_norm:
        m.t("output_norm.weight", E, ones=True)
    if output_norm and norm_bias:
        m.t("output_norm.bias", E)
    if not tied:
        m.t("output.weight", E, m.n_vocab)
    if output_bias:
        m.t("output.bias", m.n_vocab)
    for il in range(n_layer):
        p = f"blk.{il}."
        for n in norms:
            m.t(p + n + ".weight", E, ones=True)
            if norm_bias:
                m.t(p + n + ".bias", E)
        attn(m, p, qk_norm=qk_norm, bias=bias, hkv=hkv, fused=fused_qkv)
        if layer:
            layer(m, p, il)
        else:
            ffn(m, p, ffn_kind)
    m.finish()
    return m


def out_bias(m, p, il):
    """A bias on the attention output, then the gated FFN (pangu-embedded)."""
    m.t(p + "attn_output.bias", E)
    ffn(m, p)


def biased(kind="up", fused_qkv=False, **sizes):
    """A `layer` callback for the GPT-style families: the FFN (`kind`) and the bias tensors
    llama.cpp requires, named by `sizes` (tensor name -> length)."""
    def f(m, p, il):
        ffn(m, p, kind)
        for name, n in sizes.items():
            m.t(p + name.replace("__", ".") + ".bias", n)
    return f



def gpt_style(path, arch, **kw):
    """GPT-2-style: layer norms with biases, one fused, biased attn_qkv (as many KV heads as
    heads), biased projections, an ungated FFN, the output tied to the embeddings."""
    return dense(path, arch, eps="ln", norm_bias=True, fused_qkv=True, hkv=H, tied=True, ctx=2048,
                 layer=biased(attn_qkv=3 * D * H, attn_output=E, ffn_down=E, ffn_up=FF), **kw)


# The multimodal rope's sections (rope.dimension_sections), which the vl models require.
MROPE = {"rope.dimension_sections": [4, 2, 2, 0]}


def write_apertus(path):
    """apertus: ungated FFN (xIELU), per-head Q/K norms; xIELU's constants are keys without the
    architecture's prefix."""
    m = Model(path, "apertus")
    for k in ("alpha_n", "alpha_p", "beta", "eps"):
        m.w.add_float32(f"xielu.{k}", 0.5)
    m.u32(block_count=4, context_length=8192, embedding_length=E, feed_forward_length=FF,
          attention__head_count=H, attention__head_count_kv=HKV, rope__dimension_count=D)
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.f32("rope.freq_base", 10000.0)
    common_tensors(m)
    for il in range(4):
        p = f"blk.{il}."
        for n in ("attn_norm", "ffn_norm"):
            m.t(p + n + ".weight", E, ones=True)
        attn(m, p, qk_norm="head")
        ffn(m, p, "up")
    m.finish()


def common_tensors(m, tied=False):
    m.t("token_embd.weight", E, m.n_vocab)
    m.t("output_norm.weight", E, ones=True)
    if not tied:
        m.t("output.weight", E, m.n_vocab)


def gpt_oss(m, p, il, n_expert=4, n_ff_exp=64):
    """gpt-oss (llama_model_openai_moe): attention sinks, an output bias, biased experts."""
    m.t(p + "attn_sinks.weight", H)
    m.t(p + "attn_output.bias", E)
    moe(m, p, E, n_ff_exp, n_expert)
    m.t(p + "ffn_gate_inp.bias", n_expert)
    m.t(p + "ffn_gate_exps.bias", n_ff_exp, n_expert)
    m.t(p + "ffn_up_exps.bias", n_ff_exp, n_expert)
    m.t(p + "ffn_down_exps.bias", E, n_expert)


def qwen2moe(m, p, il):
    moe(m, p, E, 64, 4, shared=64)
    m.t(p + "ffn_gate_inp_shexp.weight", E)


MODELS = {
    "qwen2": lambda p: dense(p, "qwen2", bias=True),
    "qwen3": lambda p: dense(p, "qwen3", qk_norm="head"),
    "mistral3": lambda p: dense(p, "mistral3"),
    "seed-oss": lambda p: dense(p, "seed_oss", norms=("attn_norm", "post_attention_norm")),
    "arcee": lambda p: dense(p, "arcee", ffn_kind="up"),
    "granite": lambda p: dense(p, "granite", f32={"logit_scale": 8.0}),
    "smollm3": lambda p: dense(p, "smollm3"),
    "ernie4_5": lambda p: dense(p, "ernie4_5"),
    "apertus": write_apertus,
    "olmo2": lambda p: dense(p, "olmo2", norms=("post_attention_norm", "post_ffw_norm"),
                             qk_norm="full"),
    "olmo2-swa": lambda p: dense(p, "olmo2", norms=("post_attention_norm", "post_ffw_norm"),
                                 qk_norm="full", u32={"attention__sliding_window": 512}),
    "command-r": lambda p: dense(p, "command-r", norms=("attn_norm",), tied=True, eps="ln"),
    "cohere2": lambda p: dense(p, "cohere2", norms=("attn_norm",), tied=True, eps="ln",
                               u32={"attention__sliding_window": 512},
                               f32={"logit_scale": 0.5}),
    "glm4": lambda p: dense(p, "glm4", ffn_kind="fused",
                            norms=("attn_norm", "post_attention_norm", "ffn_norm",
                                   "post_ffw_norm")),
    # not "phi3": a name with phi3 in it makes the vocab loader look up phi-3's special tokens
    # a window in the file, which llama.cpp switches off for phi3
    "phi-fused": lambda p: dense(p, "phi3", ffn_kind="fused",
                                 u32={"attention__sliding_window": 512}),
    "gpt-oss": lambda p: dense(p, "gpt-oss", norms=("attn_norm", "post_attention_norm"),
                               u32=moe_keys(attention__sliding_window=128), layer=gpt_oss),
    "glm4moe": lambda p: dense(p, "glm4moe", norms=("attn_norm", "post_attention_norm"),
                               u32=moe_keys(expert_shared_count=1, leading_dense_block_count=1),
                               layer=experts(shared=64, probs_b=True, dense_lead=1)),
    "granitemoe": lambda p: dense(p, "granitemoe", u32=moe_keys(), f32={"logit_scale": 8.0},
                                  layer=experts(n_ff_exp=FF)),
    "olmoe": lambda p: dense(p, "olmoe", qk_norm="embd", u32=moe_keys(), hkv=H,
                             layer=experts(n_ff_exp=FF)),
    "qwen2moe": lambda p: dense(p, "qwen2moe", bias=True, layer=qwen2moe,
                                u32=moe_keys(expert_shared_feed_forward_length=64)),
    "ernie4_5-moe": lambda p: dense(p, "ernie4_5-moe", layer=experts(dense_lead=1),
                                    u32=moe_keys(interleave_moe_layer_step=1,
                                                 leading_dense_block_count=1)),
    "hunyuan-moe": lambda p: dense(p, "hunyuan-moe", qk_norm="head", tied=True,
                                   u32=moe_keys(n_ff_exp=FF, expert_shared_feed_forward_length=64),
                                   layer=experts(n_ff_exp=FF, shared=64)),
    "minimax-m2": lambda p: dense(p, "minimax-m2", qk_norm="full",
                                  u32=moe_keys(n_ff_exp=FF, expert_gating_func=2),
                                  layer=experts(n_ff_exp=FF, probs_b=True)),
    "bailingmoe2": lambda p: dense(p, "bailingmoe2", qk_norm="head", fused_qkv=True,
                                   u32=moe_keys(expert_shared_count=1, expert_gating_func=2,
                                                leading_dense_block_count=1),
                                   layer=experts(shared=64, dense_lead=1)),
    "dots1": lambda p: dense(p, "dots1", qk_norm="head", hkv=H,
                             u32=moe_keys(expert_shared_count=1, leading_dense_block_count=1,
                                          expert_gating_func=2),
                             layer=experts(shared=64, dense_lead=1)),
    "deepseek": lambda p: dense(p, "deepseek", u32=moe_keys(expert_shared_count=1,
                                                            leading_dense_block_count=1),
                                layer=experts(shared=64, dense_lead=1)),
    "gemma2": lambda p: dense(p, "gemma2", tied=True, u32={"attention__sliding_window": 512},
                              norms=("attn_norm", "post_attention_norm", "ffn_norm",
                                     "post_ffw_norm")),
    "exaone": lambda p: dense(p, "exaone", tied=True),
    "internlm2": lambda p: dense(p, "internlm2"),
    "baichuan": lambda p: dense(p, "baichuan"),
    "xverse": lambda p: dense(p, "xverse"),
    "orion": lambda p: dense(p, "orion", eps="ln", norm_bias=True),
    "nanbeige": lambda p: dense(p, "nanbeige"),
    "pangu-embedded": lambda p: dense(p, "pangu-embedded", layer=out_bias),
    "minicpm": lambda p: dense(p, "minicpm"),
    "qwen2vl": lambda p: dense(p, "qwen2vl", arr=MROPE),
    "qwen3vl": lambda p: dense(p, "qwen3vl", qk_norm="head", arr=MROPE),
    "maincoder": lambda p: dense(p, "maincoder", qk_norm="head"),
    "qwen3vlmoe": lambda p: dense(p, "qwen3vlmoe", qk_norm="head", u32=moe_keys(), arr=MROPE,
                                  layer=experts()),
    "mellum": lambda p: dense(p, "mellum", qk_norm="head", layer=experts(),
                              u32=moe_keys(attention__sliding_window=512)),
    "phimoe": lambda p: dense(p, "phimoe", u32=moe_keys(), norm_bias=True, output_bias=True,
                              layer=lambda m, q, il: (m.t(q + "attn_output.bias", E),
                                                      experts(n_ff_exp=FF)(m, q, il))),
    "gemma": lambda p: dense(p, "gemma", tied=True),
    "deci": lambda p: dense(p, "deci"),
    "plamo": lambda p: dense(p, "plamo", norms=("attn_norm",)),
    "chatglm": lambda p: dense(p, "chatglm", ffn_kind="fused"),
    "olmo": lambda p: dense(p, "olmo", norms=(), eps="ln", output_norm=False),
    "stablelm": lambda p: dense(p, "stablelm", eps="ln", norm_bias=True),
    "mpt": lambda p: dense(p, "mpt", norms=("attn_norm", "ffn_norm"), eps="ln", tied=True,
                           fused_qkv=True, ffn_kind="up"),
    # qwen's FFN is half the file's feed_forward_length (llama_model_qwen::load_arch_tensors)
    "qwen": lambda p: dense(p, "qwen", fused_qkv=True, hkv=H, n_ff=2 * FF,
                            layer=biased("gated", attn_qkv=D * 3 * H)),
    "starcoder2": lambda p: dense(p, "starcoder2", eps="ln", norm_bias=True, tied=True,
                                  layer=biased(attn_output=E, ffn_down=E, ffn_up=FF)),
    "phi2": lambda p: dense(p, "phi2", norms=("attn_norm",), eps="ln", norm_bias=True,
                            output_bias=True, layer=biased(attn_output=E, ffn_down=E, ffn_up=FF)),
    "falcon": lambda p: dense(p, "falcon", norms=("attn_norm",), eps="ln", norm_bias=True,
                              fused_qkv=True, tied=True, layer=biased()),
    "gptneox": lambda p: dense(p, "gptneox", eps="ln", norm_bias=True, fused_qkv=True,
                               flags=("use_parallel_residual",),
                               layer=biased(attn_qkv=D * (H + 2 * HKV), attn_output=E,
                                            ffn_down=E, ffn_up=FF)),
    "codeshell": lambda p: dense(p, "codeshell", eps="ln", norm_bias=True,
                                 layer=biased(attn_output=E, ffn_down=E, ffn_up=FF)),
    "nemotron": lambda p: dense(p, "nemotron", eps="ln", norm_bias=True, ffn_kind="up"),
    "bailingmoe": lambda p: dense(p, "bailingmoe", u32=moe_keys(expert_shared_count=1),
                                  layer=experts(shared=64)),
    "gpt2": lambda p: gpt_style(p, "gpt2", pos_embd=True),
    "starcoder": lambda p: gpt_style(p, "starcoder", pos_embd=True),
    "bloom": lambda p: gpt_style(p, "bloom", embd_norm=True),
    "refact": lambda p: dense(p, "refact"),
    "jais2": lambda p: dense(p, "jais2", eps="ln", norm_bias=True,
                             layer=biased(attn_output=E, ffn_down=E, ffn_up=FF)),
    # windows: granite_swa's per-layer pattern array, exaone-moe's 3 SWA : 1 full, cohere2moe's
    # dense-first pattern
    "granite_swa": lambda p: dense(p, "granite_swa", f32={"logit_scale": 8.0},
                                   u32={"attention__sliding_window": 512},
                                   arr={"attention.sliding_window_pattern":
                                        [True, True, True, False]},
                                   layer=lambda m, q, il: (m.t(q + "attn_sinks.weight", H),
                                                           ffn(m, q))),
    "exaone-moe": lambda p: dense(p, "exaone-moe", qk_norm="head",
                                  u32=moe_keys(attention__sliding_window=512, expert_gating_func=2,
                                               expert_shared_count=1,
                                               expert_shared_feed_forward_length=64,
                                               leading_dense_block_count=1),
                                  layer=experts(shared=64, dense_lead=1)),
    # 5 layers: dense first gives 2 full layers (0, 4), the plain pattern 1 (3)
    "cohere2moe": lambda p: dense(p, "cohere2moe", norms=("attn_norm",), tied=True, eps="ln",
                                  n_layer=5,
                                  f32={"logit_scale": 0.5},
                                  u32=moe_keys(attention__sliding_window=512,
                                               expert_shared_count=1,
                                               expert_shared_feed_forward_length=64,
                                               leading_dense_block_count=1),
                                  layer=experts(shared=64, dense_lead=1)),
    # afmoe: gated attention (attn_gate), pre and post norms, a window every 4th layer full
    "afmoe": lambda p: dense(p, "afmoe", qk_norm="head",
                             norms=("attn_norm", "post_attention_norm", "ffn_norm",
                                    "post_ffw_norm"),
                             u32=moe_keys(attention__sliding_window=512, expert_shared_count=1,
                                          leading_dense_block_count=1),
                             layer=lambda m, q, il: (m.t(q + "attn_gate.weight", E, D * H),
                                                     experts(shared=64, probs_b=True,
                                                             dense_lead=1)(m, q, il))),
    # both load with llama_model_hunyuan_vl's rules (hunyuan_vl: its text decoder)
    "hunyuan-dense": lambda p: dense(p, "hunyuan-dense", qk_norm="head"),
    "hunyuan_vl": lambda p: dense(p, "hunyuan_vl", qk_norm="head"),
}
MODELS.update(grid_recurrent.MODELS)
MODELS.update(grid_more.MODELS)
MODELS.update(grid_2026b.MODELS)


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
