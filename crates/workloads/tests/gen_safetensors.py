#!/usr/bin/env python3
"""Write safetensors test files with the real `safetensors` package (PyPI), for
tests/safetensors_reader.rs. Usage: gen_safetensors.py OUT_DIR

Writes:
  dtypes.safetensors      one tensor per dtype the package writes (BF16, F8, F6, F4 packed ...)
  numpy.safetensors       tensors saved through safetensors.numpy.save_file, with __metadata__
  sharded/                model-0000K-of-00003.safetensors + model.safetensors.index.json,
                          the way transformers' save_pretrained lays a sharded model out
  expected.json           what the package itself reads back: name -> dtype, shape, bytes
"""
import json
import os
import sys

import numpy as np
import safetensors
import safetensors.numpy as stnp
from safetensors import _safetensors_rust as rs


def spec_file(path, tensors, metadata=None):
    """tensors: name -> (dtype name as the package takes it, shape, byte count)."""
    keep = []
    specs = {}
    for name, (dt, shape, nbytes) in tensors.items():
        buf = np.arange(max(nbytes, 1), dtype=np.uint8)[:nbytes].copy()
        keep.append(buf)
        specs[name] = rs.TensorSpec(dtype=dt, shape=list(shape), data_ptr=buf.ctypes.data, data_len=nbytes)
    rs.serialize_file(specs, path, metadata=metadata)


def read_back(path):
    out = {}
    with safetensors.safe_open(path, framework="numpy") as f:
        meta = f.metadata() or {}
        for k in f.keys():
            sl = f.get_slice(k)
            out[k] = {"dtype": sl.get_dtype(), "shape": sl.get_shape()}
    # Byte spans as the package wrote them, from its own header bytes.
    with open(path, "rb") as fh:
        n = int.from_bytes(fh.read(8), "little")
        header = json.loads(fh.read(n))
    for k, v in header.items():
        if k != "__metadata__":
            b, e = v["data_offsets"]
            out[k]["bytes"] = e - b
    return {"tensors": out, "metadata": meta, "file_bytes": os.path.getsize(path)}


def main(out):
    os.makedirs(out, exist_ok=True)
    expected = {}
    p = os.path.join(out, "dtypes.safetensors")
    spec_file(p, {
        "bf16": ("bfloat16", [3, 5], 30),
        "f16": ("float16", [7], 14),
        "f32": ("float32", [2, 2, 2], 32),
        "f64": ("float64", [3], 24),
        "i64": ("int64", [2], 16),
        "u8": ("uint8", [9], 9),
        "boolean": ("bool", [4], 4),
        "f8_e4m3": ("float8_e4m3fn", [4, 4], 16),
        "f8_e5m2": ("float8_e5m2", [6], 6),
        "f8_e8m0": ("float8_e8m0fnu", [5], 5),
        # Packed 4-bit: storage shape [2, 3] bytes = logical [2, 6] values.
        "f4": ("float4_e2m1fn_x2", [2, 3], 6),
        "c64": ("complex64", [2], 16),
        "scalar": ("float32", [], 4),
        "empty": ("float16", [0, 8], 0),
    }, metadata={"format": "pt"})
    expected["dtypes.safetensors"] = read_back(p)

    p = os.path.join(out, "numpy.safetensors")
    stnp.save_file({
        "model.embed_tokens.weight": np.zeros((64, 16), dtype=np.float16),
        "model.norm.weight": np.ones((16,), dtype=np.float32),
        "lm_head.weight": np.zeros((64, 16), dtype=np.float16),
    }, p, metadata={"format": "np", "note": "gpuledger test"})
    expected["numpy.safetensors"] = read_back(p)

    d = os.path.join(out, "sharded")
    os.makedirs(d, exist_ok=True)
    weight_map = {}
    total = 0
    for k in range(1, 4):
        name = f"model-{k:05d}-of-00003.safetensors"
        tensors = {
            f"model.layers.{k}.self_attn.q_proj.weight": np.zeros((32, 16), dtype=np.float16),
            f"model.layers.{k}.mlp.down_proj.weight": np.zeros((16, 48), dtype=np.float16),
        }
        stnp.save_file(tensors, os.path.join(d, name))
        for t, a in tensors.items():
            weight_map[t] = name
            total += a.nbytes
        expected["sharded/" + name] = read_back(os.path.join(d, name))
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
    expected["sharded/total_size"] = total

    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump({"safetensors_version": safetensors.__version__, "files": expected}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
