#!/usr/bin/env python3
"""Writes tiny GGUF models of several architectures with the `gguf` package's writer.

Used by the workloads crate's llama-server comparison tests and the header-read bench.
Weights are small random values (seeded): the models only need to load, not to be good.

usage: gen_models.py OUT_DIR [NAME ...]      (no NAME: all loadable models)
       gen_models.py OUT_DIR bench-vocab     (a header-only file with a 150k-token vocabulary)
"""
import sys
import os
import numpy as np
import gguf

RNG = np.random.default_rng(1234)


def mat(rows, cols, dtype=np.float32):
    # numpy shape is reversed relative to ggml's ne: ne = [cols, rows]
    return (RNG.standard_normal((rows, cols)) * 0.02).astype(dtype)


def vec(n):
    return np.ones((n,), dtype=np.float32)


def add_spm_vocab(w, n_words):
    """SPM ("llama") vocab: <unk>, <s>, </s>, 256 byte tokens, then n_words word pieces."""
    toks = [b"<unk>", b"<s>", b"</s>"] + [("<0x%02X>" % i).encode() for i in range(256)]
    toks += [("\u2581w%d" % i).encode() for i in range(n_words)]
    types = [2, 3, 3] + [6] * 256 + [1] * n_words
    w.add_string("tokenizer.ggml.model", "llama")
    w.add_array("tokenizer.ggml.tokens", toks)
    w.add_array("tokenizer.ggml.scores", [0.0] * len(toks))
    w.add_array("tokenizer.ggml.token_type", types)
    w.add_uint32("tokenizer.ggml.bos_token_id", 1)
    w.add_uint32("tokenizer.ggml.eos_token_id", 2)
    w.add_uint32("tokenizer.ggml.unknown_token_id", 0)
    return len(toks)


def write_llama(path, *, n_layer=2, n_embd=128, n_head=4, n_head_kv=2, n_ff=256, ctx=1024,
                tied=False, n_words=1700, wtype=np.float32, arch="llama", head_dim=None):
    w = gguf.GGUFWriter(path, arch)
    w.add_string("general.name", os.path.basename(path))
    n_vocab = add_spm_vocab(w, n_words)
    hd = head_dim or n_embd // n_head
    w.add_uint32(f"{arch}.block_count", n_layer)
    w.add_uint32(f"{arch}.context_length", ctx)
    w.add_uint32(f"{arch}.embedding_length", n_embd)
    w.add_uint32(f"{arch}.feed_forward_length", n_ff)
    w.add_uint32(f"{arch}.attention.head_count", n_head)
    if isinstance(n_head_kv, list):
        w.add_array(f"{arch}.attention.head_count_kv", n_head_kv)
    else:
        w.add_uint32(f"{arch}.attention.head_count_kv", n_head_kv)
    if head_dim:
        w.add_uint32(f"{arch}.attention.key_length", hd)
        w.add_uint32(f"{arch}.attention.value_length", hd)
    w.add_uint32(f"{arch}.rope.dimension_count", hd)
    w.add_float32(f"{arch}.attention.layer_norm_rms_epsilon", 1e-5)
    w.add_float32(f"{arch}.rope.freq_base", 10000.0)
    w.add_uint32("general.file_type", 0 if wtype == np.float32 else 1)
    w.add_tensor("token_embd.weight", mat(n_vocab, n_embd, wtype))
    for il in range(n_layer):
        kv = n_head_kv[il] if isinstance(n_head_kv, list) else n_head_kv
        p = f"blk.{il}."
        w.add_tensor(p + "attn_norm.weight", vec(n_embd))
        w.add_tensor(p + "attn_q.weight", mat(n_head * hd, n_embd, wtype))
        w.add_tensor(p + "attn_k.weight", mat(kv * hd, n_embd, wtype))
        w.add_tensor(p + "attn_v.weight", mat(kv * hd, n_embd, wtype))
        w.add_tensor(p + "attn_output.weight", mat(n_embd, n_head * hd, wtype))
        w.add_tensor(p + "ffn_norm.weight", vec(n_embd))
        w.add_tensor(p + "ffn_gate.weight", mat(n_ff, n_embd, wtype))
        w.add_tensor(p + "ffn_up.weight", mat(n_ff, n_embd, wtype))
        w.add_tensor(p + "ffn_down.weight", mat(n_embd, n_ff, wtype))
    w.add_tensor("output_norm.weight", vec(n_embd))
    if not tied:
        w.add_tensor("output.weight", mat(n_vocab, n_embd, wtype))
    finish(w)


def write_llama_quant(path, *, n_layer=2, n_embd=256, n_head=4, n_head_kv=2, n_ff=512, ctx=2048,
                      n_words=1700):
    """llama with block-quantised weights of several types (what gguf.quants can write)."""
    T = gguf.GGMLQuantizationType
    types = {"attn_q": T.Q8_0, "attn_k": T.Q4_0, "attn_v": T.Q5_1, "attn_output": T.Q4_1,
             "ffn_gate": T.Q5_0, "ffn_up": T.BF16, "ffn_down": T.MXFP4}
    arch = "llama"
    w = gguf.GGUFWriter(path, arch)
    w.add_string("general.name", os.path.basename(path))
    n_vocab = add_spm_vocab(w, n_words)
    hd = n_embd // n_head
    for k, v in [("block_count", n_layer), ("context_length", ctx), ("embedding_length", n_embd),
                 ("feed_forward_length", n_ff), ("attention.head_count", n_head),
                 ("attention.head_count_kv", n_head_kv), ("rope.dimension_count", hd)]:
        w.add_uint32(f"{arch}.{k}", v)
    w.add_float32(f"{arch}.attention.layer_norm_rms_epsilon", 1e-5)
    w.add_uint32("general.file_type", 7)

    def q(name, rows, cols, t):
        data = gguf.quants.quantize(mat(rows, cols), t)
        w.add_tensor(name, data, raw_dtype=t)

    q("token_embd.weight", n_vocab, n_embd, T.Q8_0)
    shapes = {"attn_q": (n_embd, n_embd), "attn_k": (n_head_kv * hd, n_embd),
              "attn_v": (n_head_kv * hd, n_embd), "attn_output": (n_embd, n_embd),
              "ffn_gate": (n_ff, n_embd), "ffn_up": (n_ff, n_embd), "ffn_down": (n_embd, n_ff)}
    for il in range(n_layer):
        p = f"blk.{il}."
        w.add_tensor(p + "attn_norm.weight", vec(n_embd))
        w.add_tensor(p + "ffn_norm.weight", vec(n_embd))
        for t, (r, c) in shapes.items():
            q(p + t + ".weight", r, c, types[t])
    w.add_tensor("output_norm.weight", vec(n_embd))
    q("output.weight", n_vocab, n_embd, T.Q4_0)
    finish(w)


def write_gemma3(path, *, n_layer=7, n_embd=128, n_head=4, n_head_kv=2, head_dim=32, n_ff=256,
                 ctx=8192, swa=128, n_words=1700):
    arch = "gemma3"
    w = gguf.GGUFWriter(path, arch)
    w.add_string("general.name", os.path.basename(path))
    n_vocab = add_spm_vocab(w, n_words)
    w.add_uint32(f"{arch}.block_count", n_layer)
    w.add_uint32(f"{arch}.context_length", ctx)
    w.add_uint32(f"{arch}.embedding_length", n_embd)
    w.add_uint32(f"{arch}.feed_forward_length", n_ff)
    w.add_uint32(f"{arch}.attention.head_count", n_head)
    w.add_uint32(f"{arch}.attention.head_count_kv", n_head_kv)
    w.add_uint32(f"{arch}.attention.key_length", head_dim)
    w.add_uint32(f"{arch}.attention.value_length", head_dim)
    w.add_uint32(f"{arch}.attention.sliding_window", swa)
    w.add_float32(f"{arch}.attention.layer_norm_rms_epsilon", 1e-6)
    w.add_float32(f"{arch}.rope.freq_base", 1000000.0)
    w.add_uint32("general.file_type", 0)
    w.add_tensor("token_embd.weight", mat(n_vocab, n_embd))
    for il in range(n_layer):
        p = f"blk.{il}."
        w.add_tensor(p + "attn_norm.weight", vec(n_embd))
        w.add_tensor(p + "attn_q.weight", mat(n_head * head_dim, n_embd))
        w.add_tensor(p + "attn_k.weight", mat(n_head_kv * head_dim, n_embd))
        w.add_tensor(p + "attn_v.weight", mat(n_head_kv * head_dim, n_embd))
        w.add_tensor(p + "attn_q_norm.weight", vec(head_dim))
        w.add_tensor(p + "attn_k_norm.weight", vec(head_dim))
        w.add_tensor(p + "attn_output.weight", mat(n_embd, n_head * head_dim))
        w.add_tensor(p + "post_attention_norm.weight", vec(n_embd))
        w.add_tensor(p + "ffn_norm.weight", vec(n_embd))
        w.add_tensor(p + "ffn_gate.weight", mat(n_ff, n_embd))
        w.add_tensor(p + "ffn_up.weight", mat(n_ff, n_embd))
        w.add_tensor(p + "ffn_down.weight", mat(n_embd, n_ff))
        w.add_tensor(p + "post_ffw_norm.weight", vec(n_embd))
    w.add_tensor("output_norm.weight", vec(n_embd))
    finish(w)


def write_qwen3moe(path, *, n_layer=2, n_embd=128, n_head=4, n_head_kv=2, head_dim=32,
                   n_expert=8, n_used=2, n_ff_exp=64, ctx=4096, n_words=1700):
    """Mixture of experts: a router over 8 experts, 2 used per token, Q/K norms, tied output."""
    arch = "qwen3moe"
    w = gguf.GGUFWriter(path, arch)
    w.add_string("general.name", os.path.basename(path))
    n_vocab = add_spm_vocab(w, n_words)
    for k, v in [("block_count", n_layer), ("context_length", ctx), ("embedding_length", n_embd),
                 ("feed_forward_length", n_ff_exp * n_used), ("attention.head_count", n_head),
                 ("attention.head_count_kv", n_head_kv), ("attention.key_length", head_dim),
                 ("attention.value_length", head_dim), ("rope.dimension_count", head_dim),
                 ("expert_count", n_expert), ("expert_used_count", n_used),
                 ("expert_feed_forward_length", n_ff_exp)]:
        w.add_uint32(f"{arch}.{k}", v)
    w.add_float32(f"{arch}.attention.layer_norm_rms_epsilon", 1e-6)
    w.add_float32(f"{arch}.rope.freq_base", 1000000.0)
    w.add_uint32("general.file_type", 0)
    w.add_tensor("token_embd.weight", mat(n_vocab, n_embd))
    for il in range(n_layer):
        p = f"blk.{il}."
        w.add_tensor(p + "attn_norm.weight", vec(n_embd))
        w.add_tensor(p + "attn_q.weight", mat(n_head * head_dim, n_embd))
        w.add_tensor(p + "attn_k.weight", mat(n_head_kv * head_dim, n_embd))
        w.add_tensor(p + "attn_v.weight", mat(n_head_kv * head_dim, n_embd))
        w.add_tensor(p + "attn_q_norm.weight", vec(head_dim))
        w.add_tensor(p + "attn_k_norm.weight", vec(head_dim))
        w.add_tensor(p + "attn_output.weight", mat(n_embd, n_head * head_dim))
        w.add_tensor(p + "ffn_norm.weight", vec(n_embd))
        w.add_tensor(p + "ffn_gate_inp.weight", mat(n_expert, n_embd))
        experts = lambda rows, cols: (RNG.standard_normal((n_expert, rows, cols)) * 0.02).astype(np.float32)
        w.add_tensor(p + "ffn_gate_exps.weight", experts(n_ff_exp, n_embd))
        w.add_tensor(p + "ffn_up_exps.weight", experts(n_ff_exp, n_embd))
        w.add_tensor(p + "ffn_down_exps.weight", experts(n_embd, n_ff_exp))
    w.add_tensor("output_norm.weight", vec(n_embd))
    finish(w)


def write_deepseek2(path, *, n_layer=2, n_embd=128, n_head=4, kv_lora=64, rope=32, nope=32,
                    v_head=32, n_ff=256, ctx=2048, n_words=1700, legacy=False, arch="deepseek2"):
    """deepseek2 as the current converter writes it, with multi-head latent attention (split
    attn_k_b / attn_v_b, one KV head of kv_lora + rope); `legacy`: an older conversion without
    MLA (head_count_kv = head_count, key_length nope+rope, value_length v_head, no *_mla lengths,
    one unsplit attn_kv_b), which llama.cpp runs as multi-head attention with full per-head K/V.
    `arch`: mistral4 loads and runs as deepseek2 (llama_model_mistral4 derives from it)."""
    w = gguf.GGUFWriter(path, arch)
    w.add_string("general.name", os.path.basename(path))
    n_vocab = add_spm_vocab(w, n_words)
    w.add_uint32(f"{arch}.block_count", n_layer)
    w.add_uint32(f"{arch}.context_length", ctx)
    w.add_uint32(f"{arch}.embedding_length", n_embd)
    w.add_uint32(f"{arch}.feed_forward_length", n_ff)
    w.add_uint32(f"{arch}.attention.head_count", n_head)
    if legacy:
        w.add_uint32(f"{arch}.attention.head_count_kv", n_head)
        w.add_uint32(f"{arch}.attention.key_length", nope + rope)
        w.add_uint32(f"{arch}.attention.value_length", v_head)
    else:
        w.add_uint32(f"{arch}.attention.head_count_kv", 1)
        w.add_uint32(f"{arch}.attention.key_length", kv_lora + rope)
        w.add_uint32(f"{arch}.attention.value_length", kv_lora)
        w.add_uint32(f"{arch}.attention.key_length_mla", nope + rope)
        w.add_uint32(f"{arch}.attention.value_length_mla", v_head)
    w.add_uint32(f"{arch}.attention.kv_lora_rank", kv_lora)
    w.add_uint32(f"{arch}.attention.q_lora_rank", 0)
    w.add_uint32(f"{arch}.rope.dimension_count", rope)
    w.add_uint32(f"{arch}.leading_dense_block_count", n_layer)
    w.add_uint32(f"{arch}.expert_feed_forward_length", n_ff)
    w.add_uint32(f"{arch}.expert_count", 0)
    w.add_uint32(f"{arch}.expert_shared_count", 0)
    w.add_float32(f"{arch}.expert_weights_scale", 1.0)
    w.add_float32(f"{arch}.attention.layer_norm_rms_epsilon", 1e-6)
    w.add_float32(f"{arch}.rope.freq_base", 10000.0)
    w.add_uint32("general.file_type", 0)
    w.add_tensor("token_embd.weight", mat(n_vocab, n_embd))
    for il in range(n_layer):
        p = f"blk.{il}."
        w.add_tensor(p + "attn_norm.weight", vec(n_embd))
        w.add_tensor(p + "attn_q.weight", mat(n_head * (nope + rope), n_embd))
        w.add_tensor(p + "attn_kv_a_mqa.weight", mat(kv_lora + rope, n_embd))
        w.add_tensor(p + "attn_kv_a_norm.weight", vec(kv_lora))
        if legacy:
            w.add_tensor(p + "attn_kv_b.weight", mat(n_head * (nope + v_head), kv_lora))
        else:
            # k_b: per head [nope, kv_lora] ; v_b: per head [kv_lora, v_head]  (ne order)
            w.add_tensor(p + "attn_k_b.weight",
                         (RNG.standard_normal((n_head, kv_lora, nope)) * 0.02).astype(np.float32))
            w.add_tensor(p + "attn_v_b.weight",
                         (RNG.standard_normal((n_head, v_head, kv_lora)) * 0.02).astype(np.float32))
        w.add_tensor(p + "attn_output.weight", mat(n_embd, n_head * v_head))
        w.add_tensor(p + "ffn_norm.weight", vec(n_embd))
        w.add_tensor(p + "ffn_gate.weight", mat(n_ff, n_embd))
        w.add_tensor(p + "ffn_up.weight", mat(n_ff, n_embd))
        w.add_tensor(p + "ffn_down.weight", mat(n_embd, n_ff))
    w.add_tensor("output_norm.weight", vec(n_embd))
    w.add_tensor("output.weight", mat(n_vocab, n_embd))
    finish(w)



def write_mamba(path, *, n_layer=3, n_embd=128, d_conv=4, d_inner=256, d_state=16, dt_rank=8,
                ctx=2048, n_words=1700):
    """Recurrent: Mamba-1 blocks, no attention, state independent of the context."""
    arch = "mamba"
    w = gguf.GGUFWriter(path, arch)
    w.add_string("general.name", os.path.basename(path))
    n_vocab = add_spm_vocab(w, n_words)
    w.add_uint32(f"{arch}.block_count", n_layer)
    w.add_uint32(f"{arch}.context_length", ctx)
    w.add_uint32(f"{arch}.embedding_length", n_embd)
    w.add_uint32(f"{arch}.feed_forward_length", 0)
    w.add_uint32(f"{arch}.attention.head_count", 0)
    w.add_uint32(f"{arch}.ssm.conv_kernel", d_conv)
    w.add_uint32(f"{arch}.ssm.inner_size", d_inner)
    w.add_uint32(f"{arch}.ssm.state_size", d_state)
    w.add_uint32(f"{arch}.ssm.time_step_rank", dt_rank)
    w.add_float32(f"{arch}.attention.layer_norm_rms_epsilon", 1e-5)
    w.add_uint32("general.file_type", 0)
    w.add_tensor("token_embd.weight", mat(n_vocab, n_embd))
    for il in range(n_layer):
        p = f"blk.{il}."
        w.add_tensor(p + "attn_norm.weight", vec(n_embd))
        w.add_tensor(p + "ssm_in.weight", mat(2 * d_inner, n_embd))
        w.add_tensor(p + "ssm_conv1d.weight", mat(d_inner, d_conv))
        w.add_tensor(p + "ssm_conv1d.bias", vec(d_inner))
        w.add_tensor(p + "ssm_x.weight", mat(dt_rank + 2 * d_state, d_inner))
        w.add_tensor(p + "ssm_dt.weight", mat(d_inner, dt_rank))
        w.add_tensor(p + "ssm_dt.bias", vec(d_inner))
        w.add_tensor(p + "ssm_a", -np.ones((d_inner, d_state), dtype=np.float32))
        w.add_tensor(p + "ssm_d", vec(d_inner))
        w.add_tensor(p + "ssm_out.weight", mat(n_embd, d_inner))
    w.add_tensor("output_norm.weight", vec(n_embd))
    w.add_tensor("output.weight", mat(n_vocab, n_embd))
    finish(w)


def write_bench_vocab(path, n_vocab=150_000, n_merges=150_000):
    """Header shaped like a Qwen-style model: a 150k BPE vocabulary with merges, 28 layers of
    tensor infos. Tensor data is left out (only the header is ever read from this file)."""
    arch = "qwen2"
    w = gguf.GGUFWriter(path, arch)
    w.add_string("general.name", "bench-vocab")
    toks = [("tok%d" % i).encode() for i in range(n_vocab)]
    w.add_string("tokenizer.ggml.model", "gpt2")
    w.add_array("tokenizer.ggml.tokens", toks)
    w.add_array("tokenizer.ggml.token_type", [1] * n_vocab)
    w.add_array("tokenizer.ggml.merges", ["t%d k%d" % (i, i) for i in range(n_merges)])
    for k, v in [("block_count", 28), ("context_length", 32768), ("embedding_length", 64),
                 ("feed_forward_length", 128), ("attention.head_count", 4),
                 ("attention.head_count_kv", 2)]:
        w.add_uint32(f"{arch}.{k}", v)
    w.add_uint32("general.file_type", 0)
    # Tensor infos only: tiny shapes so the file stays small; the reader never touches data.
    w.add_tensor("token_embd.weight", np.zeros((4, 64), dtype=np.float32))
    for il in range(28):
        for t in ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"):
            w.add_tensor(f"blk.{il}.{t}.weight", np.zeros((1, 64), dtype=np.float32))
        w.add_tensor(f"blk.{il}.attn_norm.weight", np.zeros((64,), dtype=np.float32))
    finish(w)


def finish(w):
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


MODELS = {
    # llama with grouped-query attention (4 heads, 2 KV heads) and its own output.weight
    "llama-gqa": lambda p: write_llama(p),
    # block-quantised weights: Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, BF16, MXFP4
    "llama-quant": lambda p: write_llama_quant(p),
    # tied embeddings: no output.weight, F16 weights
    "llama-tied": lambda p: write_llama(p, n_layer=3, n_head_kv=1, tied=True, wtype=np.float16),
    # head_count_kv as an array (llama needs equal entries) and explicit key/value lengths
    "llama-kvarr": lambda p: write_llama(p, n_layer=4, n_head_kv=[2, 2, 2, 2], head_dim=32),
    # sliding-window layers: gemma3, 5 SWA : 1 full, window 128
    "gemma3-swa": lambda p: write_gemma3(p),
    # multi-head latent attention as the current converter writes it
    "deepseek2-mla": lambda p: write_deepseek2(p),
    # recurrent state (Mamba-1)
    "mamba-rs": lambda p: write_mamba(p),
    # mixture of experts (8 experts, 2 used)
    "qwen3moe-moe": lambda p: write_qwen3moe(p),
    # experts that dominate the weights (16 of 512, 4 used: 4 MiB per expert tensor), so a copy
    # of host experts in the device's compute buffer would show
    "qwen3moe-wide": lambda p: write_qwen3moe(p, n_expert=16, n_used=4, n_ff_exp=512),
    # enough layers for -ts proportions over two or three devices to give each a share
    "llama-deep": lambda p: write_llama(p, n_layer=8),
    # layers of ~18 MiB, so that --fit's layer choices stand clear of free memory's drift
    "llama-wide": lambda p: write_llama(p, n_layer=8, n_embd=1024, n_head=8, n_head_kv=4,
                                        n_ff=2048, wtype=np.float16),
    # the same over a sliding-window model and a mixture of experts
    "gemma3-deep": lambda p: write_gemma3(p, n_layer=9),
    "qwen3moe-deep": lambda p: write_qwen3moe(p, n_layer=6),
    # a 151,936-token vocabulary (Qwen's) on a tiny body: the logits dominate the compute buffer
    "llama-bigvocab": lambda p: write_llama(p, n_embd=64, n_head=2, n_head_kv=1, n_ff=128,
                                            n_words=151936 - 259, wtype=np.float16, ctx=4096),
    # an older deepseek2 conversion without MLA (unsplit attn_kv_b): full per-head K/V
    "deepseek2-legacy": lambda p: write_deepseek2(p, legacy=True),
}


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    os.makedirs(out, exist_ok=True)
    for name in names:
        path = os.path.join(out, name + ".gguf")
        if name == "bench-vocab":
            write_bench_vocab(path)
        else:
            MODELS[name](path)
        print(path)


if __name__ == "__main__":
    main()
