"""Regenerate promotion_add.json with real NVIDIA DALI: result type of `a + b` for every pair of
input types (external_source inputs of the exact types) and for Python scalars."""
import json
import pathlib

import numpy as np
from nvidia.dali import fn, pipeline_def

NAMES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
         "float32", "float64"]


def _ones(dtype):
    def source():
        return [np.ones(1, dtype=dtype)]
    return source


def main():
    pairs = [(a, b) for a in NAMES for b in NAMES if not (a == "bool" and b == "bool")]

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        src = {n: fn.external_source(source=_ones(n)) for n in NAMES}
        outs = [src[a] + src[b] for a, b in pairs]
        for n in NAMES:
            outs += [src[n] + 1, src[n] + 1.5, src[n] * True]
        return tuple(outs)

    p = pipe()
    p.build()
    o = p.run()
    res = {f"{a},{b}": np.dtype(o[i].as_array().dtype).name for i, (a, b) in enumerate(pairs)}
    base = len(pairs)
    for i, n in enumerate(NAMES):
        for j, kind in enumerate(["int", "float", "pybool"]):
            res[f"{n},{kind}"] = np.dtype(o[base + 3 * i + j].as_array().dtype).name
    out = pathlib.Path(__file__).with_name("promotion_add.json")
    out.write_text(json.dumps(res, indent=0, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
