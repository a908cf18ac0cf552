"""Regenerate tensor_resize.npz with real NVIDIA DALI: fn.tensor_resize on small tensors with
sizes, scales, axes, modes, alignment, rounding and regions of interest.

The npz holds `cases` (a JSON list of {"input": name, "args": keyword arguments; an
"interp_type" is a type name}), `input_{name}_{i}` and `out_{k}_{i}` (case k, sample i).  Run:
`python tests/goldens/make_tensor_resize.py`.
"""
import numpy as np
from _goldens import dali_kwargs, run_graph, write_cases
from nvidia.dali import fn

RNG = np.random.default_rng(13)
INPUTS = {
    "u8": [RNG.integers(0, 256, s).astype(np.uint8) for s in ((10, 17, 3), (13, 8, 3))],
    "f1": [RNG.random(n).astype(np.float32) for n in (20, 9)],
    "f5": [RNG.random((2, 6, 5, 8, 2)).astype(np.float32) for _ in range(2)],
}
CASES = [
    {"input": "u8", "args": {"sizes": [5, 8, 3]}},
    {"input": "u8", "args": {"sizes": [5], "axes": [0]}},
    {"input": "u8", "args": {"sizes": [5, 0], "axes": [0, 1]}},
    {"input": "u8", "args": {"sizes": [5, 0], "axes": [0, 1], "mode": "stretch"}},
    {"input": "u8", "args": {"sizes": [5, 5], "axes": [0, 1], "mode": "not_larger"}},
    {"input": "u8", "args": {"sizes": [5.5, 7.3], "axes": [-3, -2]}},
    {"input": "u8", "args": {"scales": [0.55, 0.45], "axes": [0, 1]}},
    {"input": "u8", "args": {"scales": [0.55, 0.45], "axes": [0, 1], "size_rounding": "ceil"}},
    {"input": "u8", "args": {"scales": [1.37, 0.45], "axes": [0, 1], "alignment": [1.0, 0.2],
                             "size_rounding": "truncate"}},
    {"input": "u8", "args": {"scales": [0.55]}},
    {"input": "u8", "args": {"sizes": [5, 8], "axes": [0, 1], "roi_start": [0.9, 0.1],
                             "roi_end": [0.1, 0.8], "roi_relative": True}},
    {"input": "u8", "args": {"sizes": [20, 0], "axes": [0, 1], "max_size": [15, 25]}},
    {"input": "u8", "args": {"scales": [2.0, 1.5], "axes": [0, 1], "interp_type": "INTERP_NN"}},
    {"input": "f1", "args": {"sizes": [7], "interp_type": "INTERP_CUBIC"}},
    {"input": "f1", "args": {"scales": [2.5], "subpixel_scale": False}},
    {"input": "f5", "args": {"sizes": [3, 4], "axes": [1, 3], "interp_type": "INTERP_LANCZOS3"}},
]


def run(case):
    batch = INPUTS[case["input"]]
    return run_graph(lambda: fn.tensor_resize(fn.external_source(source=lambda: batch),
                                              **dali_kwargs(case["args"], ("interp_type",))),
                     len(batch))


def main():
    write_cases("tensor_resize.npz", INPUTS, CASES, run)


if __name__ == "__main__":
    main()
