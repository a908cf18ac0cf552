"""Regenerate warp_perspective.npz with real NVIDIA DALI: fn.experimental.warp_perspective on
small images of every supported type and layout, each border mode and interpolation.

The npz holds `cases` (a JSON list of {"input": name, "layout": ..., "args": keyword
arguments; "interp_type" a DALIInterpType name}), `input_{name}_{i}` and `out_{k}_{i}` (case
k, sample i).  Run: `python tests/goldens/make_warp_perspective.py`.
"""
import numpy as np
from _goldens import dali_kwargs, run_graph, write_cases
from nvidia.dali import fn

RNG = np.random.default_rng(5)
U8 = [RNG.integers(0, 256, (h, w, 3)).astype(np.uint8) for h, w in ((23, 31), (30, 19))]
INPUTS = {
    "u8": U8,
    "u8c1": [np.ascontiguousarray(x[:, :, :1]) for x in U8],
    "u8c2": [np.ascontiguousarray(x[:, :, :2]) for x in U8],
    "u8hw": [np.ascontiguousarray(x[:, :, 0]) for x in U8],
    "u8chw": [np.ascontiguousarray(x.transpose(2, 0, 1)) for x in U8],
    "u16": [(x.astype(np.uint16) * 250 + 7) for x in U8],
    "i16": [(x.astype(np.int16) * 100 - 12000) for x in U8],
    "f32": [(x.astype(np.float32) / 7 - 3) for x in U8],
    "seq": [np.stack([x, x[::-1]]) for x in U8],
}
LAYOUTS = {"u8hw": "HW", "u8chw": "CHW", "seq": "FHWC"}
M1 = [0.9, -0.2, 3.0, 0.1, 1.1, -2.0, -0.002, 0.001, 1.05]
M2 = [1.2, 0.15, -4.0, -0.05, 0.85, 5.0, 0.003, -0.002, 0.95]
CASES = [{"input": "u8", "args": {"matrix": M1}}]
for border in ("constant", "replicate", "reflect", "reflect_101", "wrap"):
    for interp in ("INTERP_NN", "INTERP_LINEAR"):
        CASES.append({"input": "u8", "args": {"matrix": M2, "border_mode": border,
                                              "interp_type": interp, "fill_value": [9, 99, 199]}})
CASES += [
    {"input": "u8", "args": {"matrix": M1, "pixel_origin": "center", "size": [17, 40.6]}},
    {"input": "u8", "args": {"matrix": M2, "inverse_map": False}},
    {"input": "u8c1", "args": {"matrix": M2, "fill_value": [300]}},
    {"input": "u8c2", "args": {"matrix": M2, "border_mode": "reflect"}},
    {"input": "u8hw", "args": {"matrix": M1, "interp_type": "INTERP_NN"}},
    {"input": "u8chw", "args": {"matrix": M2, "fill_value": [5]}},
    {"input": "u16", "args": {"matrix": M1, "border_mode": "wrap"}},
    {"input": "i16", "args": {"matrix": M2, "fill_value": [-7.5]}},
    {"input": "i16", "args": {"matrix": M1, "interp_type": "INTERP_NN", "border_mode": "reflect"}},
    {"input": "f32", "args": {"matrix": M2, "border_mode": "replicate"}},
    {"input": "seq", "args": {"matrix": M1, "pixel_origin": "center"}},
]


def run(case):
    batch = INPUTS[case["input"]]

    def graph():
        x = fn.external_source(source=lambda: batch, layout=LAYOUTS.get(case["input"], "HWC"))
        return fn.experimental.warp_perspective(x, **dali_kwargs(case["args"], ("interp_type",)))
    return run_graph(graph, len(batch))


def main():
    write_cases("warp_perspective.npz", INPUTS, CASES, run, LAYOUTS)


if __name__ == "__main__":
    main()
