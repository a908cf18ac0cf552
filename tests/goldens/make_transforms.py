"""Regenerate transforms.npz with real NVIDIA DALI: matrices of the fn.transforms.* operators.

Each case is a JSON object: `op` (the transform's name), `args` (keyword arguments) and
optionally `input` (the name of an input batch of matrices stored in the npz as
`input_{name}_{i}`, layout in `layouts`).  The npz holds `cases` (the JSON list) and
`out_{k}_{i}` (case k, sample i).  Run: `python tests/goldens/make_transforms.py`.
"""
import numpy as np
from _goldens import run_graph, write_cases
from nvidia.dali import fn

RNG = np.random.default_rng(7)
INPUTS = {
    "m2": [RNG.normal(size=(2, 3)).astype(np.float32) for _ in range(3)],
    "m3": [RNG.normal(size=(3, 4)).astype(np.float32) for _ in range(3)],
    "seq": [RNG.normal(size=(f, 2, 3)).astype(np.float32) for f in (3, 1, 2)],
}
LAYOUTS = {"seq": "F**"}
CASES = [
    {"op": "translation", "args": {"offset": [1.5, -2.0]}},
    {"op": "translation", "args": {"offset": [1, 2, 3, 4, 5]}},
    {"op": "translation", "args": {"offset": [0.5, 0.25]}, "input": "m2"},
    {"op": "translation", "args": {"offset": [0.5, 0.25, 2], "reverse_order": True},
     "input": "m3"},
    {"op": "scale", "args": {"scale": [2.0, 0.5]}},
    {"op": "scale", "args": {"scale": [2.0, 0.5, 3], "center": [1, 2, 3]}},
    {"op": "scale", "args": {"scale": [1.5], "ndim": 4}},
    {"op": "scale", "args": {"scale": [1.5], "center": [3, 4]}, "input": "m2"},
    {"op": "scale", "args": {"scale": [1.5, 3.0], "reverse_order": True}, "input": "m2"},
    {"op": "rotation", "args": {"angle": 30.0}},
    {"op": "rotation", "args": {"angle": -73.0, "center": [10, 20]}},
    {"op": "rotation", "args": {"angle": 120.0, "axis": [1, -2, 0.5]}},
    {"op": "rotation", "args": {"angle": 45.0, "axis": [0, 0, 1], "center": [1, 2, 3]}},
    {"op": "rotation", "args": {"angle": 10.0, "reverse_order": True}, "input": "m2"},
    {"op": "rotation", "args": {"angle": 10.0, "axis": [1, 1, 1]}, "input": "m3"},
    {"op": "shear", "args": {"shear": [0.5, -0.2]}},
    {"op": "shear", "args": {"shear": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], "center": [1, 2, 3]}},
    {"op": "shear", "args": {"angles": [30.0, -15.0], "center": [5, 6]}},
    {"op": "shear", "args": {"angles": [10, 20, 30, 40, 50, 60]}, "input": "m3"},
    {"op": "crop", "args": {"from_start": [10, 20], "from_end": [110, 70]}},
    {"op": "crop", "args": {"from_start": [0.1], "from_end": [0.9, 0.8, 0.7],
                            "to_start": [-1], "to_end": [1]}},
    {"op": "crop", "args": {"from_start": [5, 4], "from_end": [1, 8], "to_start": [3, 1],
                            "to_end": [0, 2], "absolute": True}},
    {"op": "crop", "args": {"from_start": [5, 4], "from_end": [1, 8], "to_start": [3, 1],
                            "to_end": [0, 2]}},
    {"op": "crop", "args": {"to_start": [2, 3], "to_end": [4, 7], "reverse_order": True},
     "input": "m2"},
    {"op": "translation", "args": {"offset": [1.0, 2.0]}, "input": "seq"},
    {"op": "combine", "args": {}, "input": "m2"},
    {"op": "combine", "args": {"reverse_order": True}, "input": "m2"},
    {"op": "combine", "args": {}, "input": "seq"},
]


def build(case, x):
    op = getattr(fn.transforms, case["op"])
    if case["op"] == "combine":
        # the input, a fixed transform and the input again: order and broadcasting matter
        return op(x, fn.transforms.rotation(angle=25.0, center=[1, 2]), x, **case["args"])
    return op(x, **case["args"]) if x is not None else op(**case["args"])


def run(case):
    batch = INPUTS.get(case.get("input"))

    def graph():
        x = None
        if batch is not None:
            x = fn.external_source(source=lambda: batch, layout=LAYOUTS.get(case["input"]))
        return build(case, x)
    return run_graph(graph, 3)


def main():
    write_cases("transforms.npz", INPUTS, CASES, run, LAYOUTS)


if __name__ == "__main__":
    main()
