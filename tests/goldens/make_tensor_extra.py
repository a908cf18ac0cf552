"""Regenerate tensor_extra.npz with real NVIDIA DALI: outputs of the tensor operators cat,
stack, one_hot, zeros/ones/full(_like), shapes, element_extract, sequence_rearrange,
permute_batch and of the reductions on small batches.

The npz holds `cases` (a JSON list of {"op": fn path, "kwargs": keyword arguments, "inputs":
names of the input batches, "layouts": their layouts, "batch_size"}; type names such as
"UINT8" stand for `types.UINT8`), the input batches `in_{name}_{i}` and the outputs
`out_{c}_{k}_{i}` (case c, output k, sample i).  Run: `python tests/goldens/make_tensor_extra.py`.
"""
import json
import pathlib

import numpy as np
from nvidia.dali import fn, pipeline_def, types

OUT = pathlib.Path(__file__).resolve().parent / "tensor_extra.npz"


def batches():
    rng = np.random.default_rng(7)
    img = [rng.integers(0, 256, (4, 5, 3), dtype=np.uint8),
           rng.integers(0, 256, (3, 6, 3), dtype=np.uint8)]
    return {
        "img": img,
        "img2": [rng.integers(0, 256, (4, 2, 3), dtype=np.uint8),
                 rng.integers(0, 256, (3, 1, 3), dtype=np.uint8)],
        "imgf": [x.astype(np.float32) * 1.5 for x in img],
        "i16": [rng.integers(-30000, 30000, (6, 7)).astype(np.int16),
                rng.integers(-30000, 30000, (5, 2)).astype(np.int16)],
        "labels": [rng.integers(-1, 7, (3, 4)).astype(np.int32),
                   rng.integers(-1, 7, (2, 4)).astype(np.int32)],
        "flabels": [np.array(2.7, np.float32), np.array(-0.5, np.float32)],
        "mean_c": [x.reshape(-1, 3).mean(axis=0).astype(np.float32) for x in img],
        "fill": [np.array([1.5, -2.5, 300.0], np.float32), np.array([7.0], np.float32)],
        "seq": [rng.integers(0, 256, (4, 2, 3), dtype=np.uint8),
                rng.integers(0, 256, (3, 2, 3), dtype=np.uint8)],
        "shape": [np.array([2, 3], np.int32), np.array([1, 4], np.int32)],
        "none": [np.zeros(1, np.uint8)] * 2,
    }


def case(op, kwargs=None, inputs=("img",), layouts=None):
    return {"op": op, "kwargs": kwargs or {}, "inputs": list(inputs),
            "layouts": list(layouts or ["HWC"] + [None] * (len(inputs) - 1))}


CASES = [
    case("cat", {"axis": 1}, ("img", "img2"), ["HWC", "HWC"]),
    case("cat", {"axis_name": "W"}, ("img", "img2"), ["HWC", "CHW"]),
    case("stack", {"axis": -1, "axis_name": "F"}, ("imgf", "imgf")),
    case("stack", {"axis": 1}, ("img", "img")),
    case("one_hot", {"num_classes": 6, "axis": 0, "dtype": "UINT8", "on_value": 300.0,
                     "off_value": -1.5}, ("labels",), ["AB"]),
    case("one_hot", {"num_classes": 5, "axis_name": "C"}, ("flabels",), [None]),
    case("zeros", {"shape": [2, 3], "dtype": "UINT8", "layout": "HW"}, ("none",)),
    case("ones", {"shape": [4], "dtype": "FLOAT16"}, ("none",)),
    case("full", {"shape": [2, 3]}, ("fill",), [None]),
    case("zeros_like", {"dtype": "FLOAT"}),
    case("ones_like"),
    case("full_like", {}, ("img", "fill")),
    case("shapes", {"dtype": "FLOAT"}),
    case("element_extract", {"element_map": [2, 0]}, ("seq",), ["FHW"]),
    case("sequence_rearrange", {"new_order": [2, 0, 0]}, ("seq",), ["FHW"]),
    case("permute_batch", {"indices": [1, 1]}),
] + [case(f"reductions.{op}", kw) for op in ("min", "max", "sum", "mean", "mean_square", "rms")
     for kw in ({}, {"axes": [0, 1]}, {"axis_names": "C", "keep_dims": True})] + [
    case("reductions.sum", {"dtype": "INT16", "axes": [1]}, ("i16",), [None]),
    case("reductions.sum", {}, ("i16",), [None]),
    case("reductions.mean", {"dtype": "UINT8", "axes": [0]}),
    case("reductions.rms", {"dtype": "INT16"}, ("i16",), [None]),
    case("reductions.std_dev", {"axes": [0, 1]}, ("img", "mean_c")),
    case("reductions.variance", {"axes": [0, 1], "ddof": 1}, ("imgf", "mean_c")),
]


def dali_kwargs(kwargs):
    """JSON keyword arguments -> DALI's (type names to `types` enums)."""
    return {k: getattr(types, v) if isinstance(v, str) and hasattr(types, v) else v
            for k, v in kwargs.items()}


def op_fn(path):
    f = fn
    for part in path.split("."):
        f = getattr(f, part)
    return f


def returning(batch):
    return lambda: batch


def run(c, data):
    """The outputs (lists of arrays) of case `c` on real DALI."""
    inputs = [] if c["inputs"] == ["none"] else [data[name] for name in c["inputs"]]

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        nodes = [fn.external_source(source=returning(b), layout=lay)
                 for b, lay in zip(inputs, c["layouts"][:len(inputs)], strict=True)]
        out = op_fn(c["op"])(*nodes, **dali_kwargs(c["kwargs"]))
        return tuple(out) if isinstance(out, list) else out

    p = pipe()
    p.build()
    return [[np.array(t) for t in tl] for tl in p.run()]


def main():
    data = batches()
    arrays = {f"in_{name}_{i}": x for name, b in data.items() for i, x in enumerate(b)}
    for c_i, c in enumerate(CASES):
        for k, out in enumerate(run(c, data)):
            for i, x in enumerate(out):
                arrays[f"out_{c_i}_{k}_{i}"] = x
    arrays["cases"] = np.array(json.dumps(CASES))
    np.savez_compressed(OUT, **arrays)


if __name__ == "__main__":
    main()
