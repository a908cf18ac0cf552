"""Regenerate warp_sequences.npz with real NVIDIA DALI: fn.rotate and fn.warp_affine on FHWC
sequences with per-frame arguments (`fn.per_frame` angles and 2x3 matrices, as an argument
and as the second input), including a sample given a single frame's value for all its frames.

The npz holds `cases` (a JSON list of {"op": "rotate" or "warp_affine", "input": name, "param":
name, "positional": whether the matrix is the second input, "args": other keyword arguments;
"interp_type" a DALIInterpType name}), `input_{name}_{i}` and `out_{k}_{i}` (case k, sample i).
Run: `python tests/goldens/make_warp_sequences.py`.
"""
import numpy as np
from _goldens import dali_kwargs, run_graph, write_cases
from nvidia.dali import fn

RNG = np.random.default_rng(8)
SEQ = [RNG.integers(0, 256, (f, h, w, 3)).astype(np.uint8)
       for f, h, w in ((4, 13, 8), (2, 11, 16), (3, 9, 9))]


def _matrices(frames, seed):
    rng = np.random.default_rng(seed)
    m = np.tile(np.array([[1, 0, 0], [0, 1, 0]], np.float32), (frames, 1, 1))
    m += rng.uniform(-0.3, 0.3, (frames, 2, 3)).astype(np.float32)
    m[:, :, 2] = rng.uniform(-3, 3, (frames, 2))
    return m


INPUTS = {
    "seq": SEQ,
    "seqf": [(x.astype(np.float32) / 3 - 20) for x in SEQ],
    "angles": [np.array([10, 100, -35, 170], np.float32), np.array([60, -20], np.float32),
               np.array([45], np.float32)],
    "matrices": [_matrices(4, 1), _matrices(2, 2), _matrices(1, 3)],
    "matrices_all": [_matrices(4, 1), _matrices(2, 2), _matrices(3, 3)],
}
CASES = [
    {"op": "rotate", "input": "seq", "param": "angles", "args": {}},
    {"op": "rotate", "input": "seq", "param": "angles", "args": {"fill_value": 9}},
    {"op": "rotate", "input": "seq", "param": "angles",
     "args": {"keep_size": True, "interp_type": "INTERP_NN"}},
    {"op": "rotate", "input": "seq", "param": "angles", "args": {"size": [12, 10]}},
    {"op": "rotate", "input": "seqf", "param": "angles", "args": {"fill_value": -1.5}},
    {"op": "warp_affine", "input": "seq", "param": "matrices", "args": {}},
    {"op": "warp_affine", "input": "seq", "param": "matrices",
     "args": {"inverse_map": False, "fill_value": 200, "size": [7, 15]}},
    {"op": "warp_affine", "input": "seqf", "param": "matrices",
     "args": {"interp_type": "INTERP_NN"}},
    {"op": "warp_affine", "input": "seq", "param": "matrices_all", "positional": True,
     "args": {"fill_value": 3}},
]


def run(case):
    batch, param = INPUTS[case["input"]], INPUTS[case["param"]]

    def graph():
        x = fn.external_source(source=lambda: batch, layout="FHWC")
        v = fn.per_frame(fn.external_source(source=lambda: param))
        args = dali_kwargs(case["args"], ("interp_type",))
        if case["op"] == "rotate":
            return fn.rotate(x, angle=v, **args)
        if case.get("positional"):
            return fn.warp_affine(x, v, **args)
        return fn.warp_affine(x, matrix=v, **args)
    return run_graph(graph, len(batch))


def main():
    write_cases("warp_sequences.npz", INPUTS, CASES, run)


if __name__ == "__main__":
    main()
