#!/usr/bin/env python3
"""Times the `gguf` package's GGUFReader on a file: the side-by-side figure for the header bench.

usage: py_gguf_reader_time.py FILE [RUNS]   -> prints "median_ms min_ms"
"""
import sys
import time

from gguf import GGUFReader

path = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
times = []
for _ in range(runs):
    t0 = time.perf_counter()
    r = GGUFReader(path)
    # Touch what the Rust side exposes: the vocabulary length and the tensor table.
    n_tok = len(r.fields["tokenizer.ggml.tokens"].data)
    n_tensors = len(r.tensors)
    times.append((time.perf_counter() - t0) * 1000)
times.sort()
print(f"{times[len(times) // 2]:.3f} {times[0]:.3f} tokens={n_tok} tensors={n_tensors}")
