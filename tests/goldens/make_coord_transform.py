"""Regenerate coord_transform.npz with real NVIDIA DALI: fn.coord_transform on point sets of
every input type, with constant M / T / MT, rounding to integer outputs included.

The npz holds `cases` (a JSON list of {"input": name, "args": keyword arguments}; a "dtype"
is a type name such as "UINT8"), `input_{name}_{i}` and `out_{k}_{i}` (case k, sample i).
Run: `python tests/goldens/make_coord_transform.py`.
"""
import numpy as np
from _goldens import dali_kwargs, run_graph, write_cases
from nvidia.dali import fn

RNG = np.random.default_rng(11)
INPUTS = {
    "f2": [RNG.normal(scale=50, size=(n, 2)).astype(np.float32) for n in (7, 1, 30)],
    "f3": [RNG.normal(scale=50, size=(n, 3)).astype(np.float32) for n in (5, 12, 0)],
    "u8": [RNG.integers(0, 256, size=(4, 6, 3)).astype(np.uint8) for _ in range(3)],
    "i16": [RNG.integers(-300, 300, size=(n, 2)).astype(np.int16) for n in (9, 3, 4)],
    "u16": [RNG.integers(0, 2000, size=(n, 2)).astype(np.uint16) for n in (9, 3, 4)],
    "i32": [RNG.integers(-9, 9, size=(n, 1)).astype(np.int32) for n in (19, 3, 4)],
}
CASES = [
    {"input": "f2", "args": {}},
    {"input": "f2", "args": {"M": [0.5, -1.25, 2.0, 0.75], "T": [3.5, -1.0]}},
    {"input": "f2", "args": {"M": [0.5, -1.25], "T": 2.0}},
    {"input": "f2", "args": {"M": 1.5}},
    {"input": "f2", "args": {"T": [1.0, 2.0]}},
    {"input": "f2", "args": {"MT": [0.9, 0.1, 5, -0.2, 1.1, -3]}},
    {"input": "f2", "args": {"MT": [1, 2, 3, 4, 5, 6, 7, 8, 9]}},
    {"input": "f2", "args": {"MT": -2.0}},
    {"input": "f3", "args": {"MT": [0.3, 0.2, 0.1, 1, 0.4, 0.5, 0.6, 2, 0.7, 0.8, 0.9, 3]}},
    {"input": "u8", "args": {"M": [0.299, 0.587, 0.114], "T": 0.5}},
    {"input": "u8", "args": {"M": [0.299, 0.587, 0.114], "T": 0.5, "dtype": "UINT8"}},
    {"input": "u8", "args": {"M": [1.2, 0, 0, 0, -1, 0, 0.5, 0.5, 0], "T": [-20, 255, 0.5],
                             "dtype": "UINT8"}},
    {"input": "i16", "args": {"M": [100, 0, 1.5, 2], "dtype": "INT16"}},
    {"input": "u16", "args": {"MT": [1.5, 0, -0.5, 0, 40, 7], "dtype": "UINT16"}},
    {"input": "i32", "args": {"M": 0.5, "dtype": "INT32"}},
    {"input": "i32", "args": {"M": 3e9, "dtype": "INT32"}},
]


def run(case):
    batch = INPUTS[case["input"]]
    return run_graph(lambda: fn.coord_transform(fn.external_source(source=lambda: batch),
                                                **dali_kwargs(case["args"], ("dtype",))), 3)


def main():
    write_cases("coord_transform.npz", INPUTS, CASES, run)


if __name__ == "__main__":
    main()
