"""Writes the GGUF header of a crafted deep model with the real `gguf` writer (PyPI) and extends
the file sparsely to its full size: what a hostile or odd `llama-server -m` could load, for
scripts/deep-model-cost.sh (issue 40: the --fit replay must stay bounded on it).

A qwen3moe of N layers (default 7000), 1024 wide, 8 experts of 256 per layer, layer 0's
a hundred times the others (so llama.cpp's --fit search cannot guess its way quickly).
Usage: python3 deep_model.py OUT.gguf [LAYERS]
"""
import os
import sys

import numpy as np
import gguf

ARCH = "qwen3moe"


def main(path, n_layer):
    w = gguf.GGUFWriter(path, ARCH)
    for k, v in [("block_count", n_layer), ("context_length", 4096), ("embedding_length", 1024),
                 ("attention.head_count", 8), ("attention.head_count_kv", 8),
                 ("vocab_size", 1000), ("expert_count", 8), ("expert_used_count", 2),
                 ("expert_feed_forward_length", 256)]:
        w.add_uint32(f"{ARCH}.{k}", v)

    def f32(name, *shape):
        n = int(np.prod(shape))
        # gguf-py takes the numpy shape (outermost first); GGUF stores it reversed.
        w.add_tensor_info(name, tuple(reversed(shape)), np.dtype(np.float32), n * 4)

    f32("token_embd.weight", 1024, 1000)
    for i in range(n_layer):
        p = f"blk.{i}."
        f32(p + "attn_norm.weight", 1024)
        f32(p + "attn_q.weight", 1024, 1024)
        if i == 0:
            # Weights no op reads, a hundred layers' worth: the search's guesses crawl past it.
            f32("blk.0.extra.weight", 100 * 1024, 1024)
        f32(p + "ffn_gate_inp.weight", 1024, 8)
        for e in ("up", "gate", "down"):
            f32(p + f"ffn_{e}_exps.weight", 1024, 256, 8)
    f32("output_norm.weight", 1024)
    f32("output.weight", 1024, 1000)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    end = w.fout[0].tell()
    w.close()
    size = end + sum(ti.nbytes for ti in w.tensors[0].values()) + 32 * len(w.tensors[0])
    os.truncate(path, size)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 7000)
