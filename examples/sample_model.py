"""Writes the GGUF *header* of Qwen3-8B at Q4_K_M for the README's sample, with the real `gguf`
writer (PyPI), and extends the file sparsely to its full size: the tensor table, the hyper-
parameters and the file size are what the estimate reads; no weights are stored.

Hyper-parameters: Qwen/Qwen3-8B's published config.json (36 layers, hidden 4096, 32 heads, 8 KV
heads, head_dim 128, intermediate 12288, vocab 151936, untied embeddings, rope theta 1e6).
Tensor types: llama.cpp's Q4_K_M rule (llama_tensor_get_type): Q4_K everywhere, Q6_K for the
output and for attn_v / ffn_down on the layers `use_more_bits` picks; norms F32.
Usage: python3 sample_model.py OUT.gguf
"""
import os
import sys

import numpy as np
import gguf

T = gguf.GGMLQuantizationType
ARCH = "qwen3"
N_LAYER, N_EMBD, N_HEAD, N_HEAD_KV, HEAD_DIM, N_FF, N_VOCAB = 36, 4096, 32, 8, 128, 12288, 151936


def use_more_bits(i, n):
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def main(path):
    w = gguf.GGUFWriter(path, ARCH)
    w.add_string("general.name", "Qwen3 8B")
    w.add_uint32("general.file_type", 15)  # MOSTLY_Q4_K_M
    for k, v in [("block_count", N_LAYER), ("context_length", 40960), ("embedding_length", N_EMBD),
                 ("feed_forward_length", N_FF), ("attention.head_count", N_HEAD),
                 ("attention.head_count_kv", N_HEAD_KV), ("attention.key_length", HEAD_DIM),
                 ("attention.value_length", HEAD_DIM)]:
        w.add_uint32(f"{ARCH}.{k}", v)
    w.add_float32(f"{ARCH}.rope.freq_base", 1000000.0)
    w.add_float32(f"{ARCH}.attention.layer_norm_rms_epsilon", 1e-6)
    w.add_string("tokenizer.ggml.model", "gpt2")
    w.add_array("tokenizer.ggml.tokens", [f"t{i}" for i in range(N_VOCAB)])

    def q(name, rows, cols, t):
        block, size = gguf.GGML_QUANT_SIZES[t]
        w.add_tensor_info(name, (rows, cols // block * size), np.dtype(np.uint8),
                          rows * cols // block * size, raw_dtype=t)

    def f32(name, n):
        w.add_tensor_info(name, (n,), np.dtype(np.float32), n * 4)

    q("token_embd.weight", N_VOCAB, N_EMBD, T.Q4_K)
    for i in range(N_LAYER):
        p = f"blk.{i}."
        more = use_more_bits(i, N_LAYER)
        f32(p + "attn_norm.weight", N_EMBD)
        f32(p + "ffn_norm.weight", N_EMBD)
        f32(p + "attn_q_norm.weight", HEAD_DIM)
        f32(p + "attn_k_norm.weight", HEAD_DIM)
        q(p + "attn_q.weight", N_HEAD * HEAD_DIM, N_EMBD, T.Q4_K)
        q(p + "attn_k.weight", N_HEAD_KV * HEAD_DIM, N_EMBD, T.Q4_K)
        q(p + "attn_v.weight", N_HEAD_KV * HEAD_DIM, N_EMBD, T.Q6_K if more else T.Q4_K)
        q(p + "attn_output.weight", N_EMBD, N_HEAD * HEAD_DIM, T.Q4_K)
        q(p + "ffn_gate.weight", N_FF, N_EMBD, T.Q4_K)
        q(p + "ffn_up.weight", N_FF, N_EMBD, T.Q4_K)
        q(p + "ffn_down.weight", N_EMBD, N_FF, T.Q6_K if more else T.Q4_K)
    f32("output_norm.weight", N_EMBD)
    q("output.weight", N_VOCAB, N_EMBD, T.Q6_K)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.close()
    # The data section, sparse: aligned start, then every tensor at its aligned offset.
    align = 32
    head = os.path.getsize(path)
    start = (head + align - 1) // align * align
    total = start
    for ti in w.tensors[0].values():
        total += (ti.nbytes + align - 1) // align * align
    os.truncate(path, total)


if __name__ == "__main__":
    main(sys.argv[1])
