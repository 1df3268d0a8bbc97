#!/usr/bin/env python3
"""Qwen3.6-35B-A3B at its published layout as a sparse GGUF: gen_models_2026.py's qwen35moe writer
with the model card's sizes, every tensor a hole (the file's data region is made by truncate, so
the 35 B parameters take no disk and llama-server maps zeros). Big matrices are TQ1_0 (1.69 bits a
weight: about 7 GiB of address space to map), the small ones F32, as the tiny models.

usage: gen_published.py OUT_DIR

The layout: Qwen3.6-35B-A3B's model card ("Hidden Layout"; the same numbers as recipe_archs.rs
qwen36_35b_a3b, which cites it); the vocabulary is the tiny models' (it sizes no cache).
"""
import os
import sys

import numpy as np
import gguf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_models_2026 as g  # noqa: E402

TQ = gguf.GGMLQuantizationType.TQ1_0
BLOCK, BLOCK_BYTES = gguf.GGML_QUANT_SIZES[TQ]


class Sparse(g.Model):
    def t(self, name, *ne, ones=False):
        shape = tuple(reversed(ne))
        n = int(np.prod(shape))
        if len(ne) >= 2 and ne[0] % BLOCK == 0:
            byte_shape = shape[:-1] + (shape[-1] // BLOCK * BLOCK_BYTES,)
            self.w.add_tensor_info(name, byte_shape, np.dtype(np.uint8), n // BLOCK * BLOCK_BYTES, raw_dtype=TQ)
        else:
            self.w.add_tensor_info(name, shape, np.dtype(np.float32), n * 4)

    def finish(self):
        w = self.w
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_ti_data_to_file()
        f = w.fout[0]
        start = gguf.GGUFWriter.ggml_pad(f.tell(), w.data_alignment)
        total = sum(gguf.GGUFWriter.ggml_pad(ti.nbytes, w.data_alignment) for ti in w.tensors[0].values())
        f.truncate(start + total)
        w.close()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    g.Model = Sparse
    g.write_qwen35(os.path.join(out, "qwen36-35b-a3b.gguf"), arch="qwen35moe", n_layer=40, n_embd=2048,
                   n_head=16, n_head_kv=2, head=256, n_ff=512, d_conv=4, d_state=128, n_group=16,
                   dt_rank=32, interval=4, n_expert=256, n_used=8, n_ff_exp=512)


if __name__ == "__main__":
    main()
