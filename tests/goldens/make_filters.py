"""Regenerate filters.npz with real NVIDIA DALI: fn.gaussian_blur, fn.laplacian and fn.filter
on a uint8 image, a float image, a uint8 volume and an int16 sequence.

The npz holds `cases` (a JSON list of [input name, operator, keyword arguments, layout];
"FLOAT" stands for `types.FLOAT`, a key "filter" holds a nested list given as the operator's
second input), the inputs by name and `out_{k}` (case k).
Run: `python tests/goldens/make_filters.py`.
"""
import json
import pathlib

import numpy as np
from nvidia.dali import fn, pipeline_def, types

RNG = np.random.default_rng(5)
INPUTS = {
    "u8": RNG.integers(0, 256, (19, 23, 3), dtype=np.uint8),
    "f32": (RNG.random((14, 17, 2)) * 10 - 5).astype(np.float32),
    "vol": RNG.integers(0, 256, (7, 9, 11), dtype=np.uint8),
    "seq": RNG.integers(-500, 500, (3, 2, 12, 13), dtype=np.int16),
}
CASES = [
    ["u8", "gaussian_blur", {"sigma": 1.3}, "HWC"],
    ["u8", "gaussian_blur", {"sigma": [0.6, 2.2], "dtype": "FLOAT"}, "HWC"],
    ["f32", "gaussian_blur", {"window_size": [5, 9]}, "HWC"],
    ["vol", "gaussian_blur", {"sigma": [1.0, 0.5, 2.0]}, ""],
    ["seq", "gaussian_blur", {"sigma": 1.1, "window_size": 5}, "FCHW"],
    ["u8", "laplacian", {}, "HWC"],
    ["u8", "laplacian", {"window_size": [5, 7], "dtype": "FLOAT"}, "HWC"],
    ["f32", "laplacian", {"window_size": 5, "smoothing_size": [1, 3], "scale": [0.5, 2.0]},
     "HWC"],
    ["vol", "laplacian", {"window_size": 3, "normalized_kernel": True, "dtype": "FLOAT"}, ""],
    ["seq", "laplacian", {"window_size": 5, "normalized_kernel": True}, "FCHW"],
    ["u8", "filter", {"filter": [[0, -1, 0], [-1, 5, -1], [0, -1, 0]]}, "HWC"],
    ["f32", "filter", {"filter": [[1, 2, 3, 4], [0.5, 0.25, 0, -1]], "border": "wrap"}, "HWC"],
    ["u8", "filter", {"filter": [[0.1] * 5] * 3, "mode": "valid", "dtype": "FLOAT"}, "HWC"],
    ["u8", "filter", {"filter": [[0.2, 0.3], [0.1, 0.4]], "anchor": [0, 1],
                      "border": "reflect_1001"}, "HWC"],
    ["seq", "filter", {"filter": [[0.5, 1, -0.5]], "border": "clamp"}, "FCHW"],
]


def _args(kw):
    return {k: getattr(types, v) if v == "FLOAT" else v for k, v in kw.items() if k != "filter"}


def main():
    data = {"cases": np.array(json.dumps(CASES)), **INPUTS}
    for k, (name, op, kw, layout) in enumerate(CASES):
        @pipeline_def(batch_size=1, num_threads=1, device_id=None)
        def pipe(name=name, op=op, kw=kw, layout=layout):
            x = fn.external_source(source=lambda: [INPUTS[name]], layout=layout)
            if "filter" in kw:
                return getattr(fn, op)(x, np.array(kw["filter"], np.float32), **_args(kw))
            return getattr(fn, op)(x, **_args(kw))

        p = pipe()
        p.build()
        data[f"out_{k}"] = np.array(p.run()[0][0])
    out = pathlib.Path(__file__).with_name("filters.npz")
    np.savez_compressed(out, **data)
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
