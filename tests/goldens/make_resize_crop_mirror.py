"""Regenerate resize_crop_mirror.npz with real NVIDIA DALI: fn.resize_crop_mirror (and
fn.fast_resize_crop_mirror) on small HWC images and a volume.

The npz holds `cases` (a JSON list of {"op", "input", "layout", "args"}; an "interp_type" or
"dtype" is a type name), `input_{name}_{i}` and `out_{k}_{i}` (case k, sample i).  Run:
`python tests/goldens/make_resize_crop_mirror.py`.
"""
import numpy as np
from _goldens import dali_kwargs, run_graph, write_cases
from nvidia.dali import fn

RNG = np.random.default_rng(9)
INPUTS = {
    "img": [RNG.integers(0, 256, (h, w, 3)).astype(np.uint8) for h, w in ((40, 60), (53, 31))],
    "vol": [RNG.integers(0, 256, (9, 10, 11, 2)).astype(np.uint8) for _ in range(2)],
}
LAYOUTS = {"img": "HWC", "vol": "DHWC"}
CASES = [
    {"op": "resize_crop_mirror", "input": "img",
     "args": {"size": [30, 45], "crop": [20, 25], "crop_pos_x": 0.3, "crop_pos_y": 0.8,
              "mirror": 1}},
    {"op": "resize_crop_mirror", "input": "img",
     "args": {"size": [17, 21], "crop": [10, 12], "crop_pos_x": 0.37, "crop_pos_y": 0.61,
              "mirror": 2}},
    {"op": "resize_crop_mirror", "input": "img",
     "args": {"size": [33, 47], "crop": [20, 25], "crop_pos_x": 0.37, "crop_pos_y": 0.61,
              "rounding": "truncate", "mirror": 3, "antialias": False}},
    {"op": "resize_crop_mirror", "input": "img",
     "args": {"resize_shorter": 24, "crop_w": 20, "crop_h": 18, "interp_type": "INTERP_CUBIC"}},
    {"op": "resize_crop_mirror", "input": "img",
     "args": {"size": [30, 45], "crop": [50, 60], "dtype": "FLOAT"}},
    {"op": "resize_crop_mirror", "input": "img",
     "args": {"size": [30, 45], "crop": [20, 25], "roi_start": [5, 10], "roi_end": [35, 50],
              "interp_type": "INTERP_LANCZOS3"}},
    {"op": "resize_crop_mirror", "input": "vol",
     "args": {"size": [6, 7, 8], "crop": [4, 5, 6], "mirror": 4}},
    {"op": "fast_resize_crop_mirror", "input": "img",
     "args": {"size": [17, 21], "crop": [10, 12], "mirror": 1}},
]


def run(case):
    batch = INPUTS[case["input"]]

    def graph():
        x = fn.external_source(source=lambda: batch, layout=LAYOUTS[case["input"]])
        return getattr(fn, case["op"])(x, **dali_kwargs(case["args"], ("interp_type", "dtype")))
    return run_graph(graph, len(batch))


def main():
    write_cases("resize_crop_mirror.npz", INPUTS, CASES, run, LAYOUTS)


if __name__ == "__main__":
    main()
