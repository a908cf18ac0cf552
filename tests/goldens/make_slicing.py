"""Regenerate slicing.npz with real NVIDIA DALI: fn.slice (fractional windows and their
rounding, positional anchor/shape inputs, border policies, output types) and the other
slicing/pasting operators.

The npz holds `cases` (a JSON list of [operator, keyword arguments, input layout, names of
argument inputs]; a string "DT:NAME" stands for `types.DALIDataType.NAME`), `{k}_in{j}_{i}`
(sample i of positional input j of case k), `{k}_arg_{name}_{i}` (sample i of its argument
input `name`) and `{k}_out_{i}` (sample i of its output).
Run: `python tests/goldens/make_slicing.py`.
"""
import json
import pathlib

import numpy as np
from nvidia.dali import fn, pipeline_def, types

RNG = np.random.default_rng(21)
U8 = [RNG.integers(0, 256, (13, 17, 3), dtype=np.uint8),
      RNG.integers(0, 256, (10, 6, 3), dtype=np.uint8)]
F32 = [(RNG.random((9, 11, 2)) * 600 - 100).astype(np.float32),
       (RNG.random((5, 8, 2)) * 600 - 100).astype(np.float32)]
VEC = [np.arange(7, dtype=np.int16), np.arange(4, dtype=np.int16) * 3]
MATCHING = [RNG.integers(0, 256, (9, 11, 3), dtype=np.uint8) for _ in range(3)]
RAGGED = [RNG.integers(0, 100, (3, 5, 2)).astype(np.int32),
          RNG.integers(0, 100, (6, 2, 2)).astype(np.int32),
          RNG.integers(0, 100, (1, 4, 2)).astype(np.int32)]
SEQ = [RNG.integers(0, 256, (3, 6, 7, 2), dtype=np.uint8)]


def _f32(*rows):
    return [np.array(r, np.float32) for r in rows]


def _i32(*rows):
    return [np.array(r, np.int32) for r in rows]


NONE = np.zeros((0, 2))        # no regions

# [operator, kwargs, layout, positional inputs(, argument inputs)]
CASES = [
    # halves and values just off them, relative to extents 13/17 and 10/6
    ["slice", {"rel_start": [0.25, 0.5], "rel_shape": [0.5, 0.25]}, "HWC", [U8]],
    ["slice", {"rel_start": [0.1, 0.7], "rel_end": [0.9, 0.95]}, "HWC", [U8]],
    ["slice", {"start": [1, 2], "shape": [5, 3]}, "HWC", [U8]],
    ["slice", {"start": [2], "end": [5], "axis_names": "H"}, "HWC", [U8]],
    ["slice", {"rel_start": [0.3, 0.2], "rel_shape": [0.3, 0.3], "axes": [0, 1]}, "HWC", [U8]],
    ["slice", {}, "HWC", [U8, _f32([0.15, 0.35], [0.25, 0.05]), _f32([0.5, 0.45], [0.75, 0.5])]],
    ["slice", {"normalized_anchor": False, "normalized_shape": False}, "HWC",
     [U8, _f32([1.5, 2.5], [0.5, 3.49]), _f32([4.5, 3.5], [2.5, 1.5])]],
    ["slice", {"normalized_shape": False}, "HWC",
     [U8, _f32([0.1, 0.2], [0.5, 0.3]), _f32([4.5, 3.5], [2.5, 1.5])]],
    ["slice", {}, "HWC", [U8, _i32([1, 2], [3, 0]), _i32([4, 5], [2, 6])]],
    ["slice", {"start": [-3, -2], "end": [20, 15], "out_of_bounds_policy": "pad",
               "fill_values": [7, 300, -2]}, "HWC", [U8]],
    ["slice", {"start": [-3, -2], "end": [20, 15], "out_of_bounds_policy": "trim_to_shape"},
     "HWC", [U8]],
    ["slice", {"start": [-5, -4], "end": [22, 15], "out_of_bounds_policy": "edge"}, "HWC", [U8]],
    ["slice", {"start": [-5, -4], "end": [22, 15], "out_of_bounds_policy": "reflect"}, "HWC",
     [U8]],
    ["slice", {"start": [-5, -4], "end": [22, 15], "out_of_bounds_policy": "reflect_101"},
     "HWC", [U8]],
    ["slice", {"start": [-5, -4], "end": [22, 15], "out_of_bounds_policy": "wrap"}, "HWC", [U8]],
    ["slice", {"start": [-2, -1], "end": [12, 7], "out_of_bounds_policy": "pad",
               "fill_values": [1.5, -3.25], "dtype": "DT:UINT8"}, "HWC", [F32]],
    ["slice", {"start": [1, 1], "end": [4, 4], "dtype": "DT:FLOAT16"}, "HWC", [F32]],
    ["slice", {"start": [1, 1], "end": [4, 4], "dtype": "DT:FLOAT"}, "HWC", [U8]],
    ["slice", {"start": [-3], "end": [9], "axes": [0], "out_of_bounds_policy": "reflect_101"},
     "", [VEC]],
    ["slice", {"rel_start": [0.5], "rel_end": [0.9], "axes": [-1]}, "", [VEC]],
    ["pad", {}, "HWC", [RAGGED]],
    ["pad", {"fill_value": -1.5, "axis_names": "W"}, "HWC", [RAGGED]],
    ["pad", {"fill_value": 1e10, "axes": [0, 1], "align": [4, 3]}, "HWC", [RAGGED]],
    ["pad", {"fill_value": 300.7, "axes": [0, 1], "shape": [7, -1], "align": 2}, "HWC", [U8]],
    ["pad", {"fill_value": -7.0, "axes": [0, 1], "shape": [1, 1], "align": [5, 4]}, "HWC",
     [U8]],
    ["pad", {"fill_value": 1e5, "shape": [8, 20, 4]}, "HWC", [F32]],
    ["pad", {"fill_value": 2.5}, "", [VEC]],
    ["paste", {"ratio": 1.7, "paste_x": 0.3, "paste_y": 0.7, "fill_value": [9, 300, -1]},
     "HWC", [U8]],
    ["paste", {"ratio": 2.5, "paste_x": 0.77, "paste_y": 0.21, "fill_value": [5]}, "HWC", [U8]],
    ["paste", {"ratio": 1.0, "min_canvas_size": 15.5, "paste_x": 1.0, "paste_y": 0.0,
               "fill_value": [1, 2, 3]}, "HWC", [U8]],
    ["paste", {"ratio": 3.3, "fill_value": [0, 0, 0]}, "", [U8]],
    ["multi_paste", {"output_size": [12, 15]}, "HWC", [U8, U8[::-1]],
     {"out_anchors": _i32([[0, 0], [4, 5]], [[2, 3], [0, 0]]),
      "shapes": _i32([[5, 6], [8, 6]], [[4, 4], [7, 2]])}],
    ["multi_paste", {}, "HWC", [MATCHING],
     {"in_ids": _i32([1, 0, 2], [2], []),
      "in_anchors_rel": _f32([[0.1, 0.2], [0.3, 0.45], [0.5, 0.5]], [[0.25, 0.7]], NONE),
      "out_anchors_rel": _f32([[0.0, 0.0], [0.37, 0.11], [0.6, 0.6]], [[0.5, 0.125]], NONE),
      "shapes_rel": _f32([[0.5, 0.5], [0.3, 0.5], [0.4, 0.4]], [[0.5, 0.3]], NONE)}],
    ["multi_paste", {"in_ids": [0, 1], "dtype": "DT:UINT8"}, "HWC", [F32[:1] * 2]],
    ["erase", {"anchor": [1, 2, 5, 0], "shape": [3, 4, 2, 20], "fill_value": [9, 300, -1.5]},
     "HWC", [U8]],
    ["erase", {"anchor": [0.15, 0.25, 0.7, 0.05], "shape": [0.3, 0.45, 0.33, 0.29],
               "normalized": True}, "HWC", [U8]],
    ["erase", {"anchor": [2.5, 3.5], "shape": [2.5, 1.5], "centered_anchor": True,
               "normalized_anchor": False, "fill_value": [-7.25]}, "HWC", [F32]],
    ["erase", {"anchor": [0.3, 4], "shape": [0.4, 3.3], "axis_names": "WH",
               "normalized_anchor": True}, "HWC", [U8]],
    ["erase", {"anchor": [1.7, -3], "shape": [2.6, 5.5], "axes": [0]}, "", [VEC]],
    ["erase", {"anchor": [0.1, 0.2, 0.3], "shape": [0.5, 0.5, 0.5], "normalized": True,
               "centered_anchor": True, "fill_value": [3, 4]}, "FHWC", [SEQ]],
    ["grid_mask", {"tile": 4}, "HWC", [U8]],
    ["grid_mask", {"tile": 5, "ratio": 0.3, "angle": 0.7, "shift_x": 1.5, "shift_y": -2.25},
     "HWC", [U8]],
    ["grid_mask", {"tile": 3, "ratio": 0.6, "angle": -2.0, "shift_x": 100.5}, "", [F32]],
]


def _value(v):
    return getattr(types.DALIDataType, v[3:]) if isinstance(v, str) and v.startswith("DT:") \
        else v


def _returning(batch):
    return lambda: batch


def _run(op, kwargs, layout, inputs, arg_inputs):
    @pipeline_def(batch_size=len(inputs[0]), num_threads=1, device_id=None)
    def pipe():
        nodes = [fn.external_source(source=_returning(b), layout=layout if j == 0 else None)
                 for j, b in enumerate(inputs)]
        args = {k: fn.external_source(source=_returning(b)) for k, b in arg_inputs.items()}
        return getattr(fn, op)(*nodes, **{k: _value(v) for k, v in kwargs.items()}, **args)

    p = pipe()
    p.build()
    (tl,) = p.run()
    return [np.array(t) for t in tl]


def main():
    cases = [(*c[:4], c[4] if len(c) > 4 else {}) for c in CASES]
    data = {"cases": np.array(json.dumps([[*c[:3], sorted(c[4])] for c in cases]))}
    for k, (op, kwargs, layout, inputs, arg_inputs) in enumerate(cases):
        for j, batch in enumerate(inputs):
            for i, x in enumerate(batch):
                data[f"{k}_in{j}_{i}"] = x
        for name, batch in arg_inputs.items():
            for i, x in enumerate(batch):
                data[f"{k}_arg_{name}_{i}"] = x
        for i, y in enumerate(_run(op, kwargs, layout, inputs, arg_inputs)):
            data[f"{k}_out_{i}"] = y
    out = pathlib.Path(__file__).with_name("slicing.npz")
    np.savez_compressed(out, **data)
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
