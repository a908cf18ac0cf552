"""Regenerate normalize.npz with real NVIDIA DALI: fn.normalize on float, uint8 and int16
batches with computed, scalar and tensor statistics, batch mode and integer outputs.

The npz holds `{g}_input_{i}` per group g, `{g}_cases` (a JSON list of keyword arguments; type
names such as "UINT8" stand for `types.UINT8`, "MEAN_T"/"STD_T" for the group's tensor
arguments `{g}_mean_{i}` / `{g}_std_{i}`) and `{g}_{k}_{i}` (case k, sample i).
Run: `python tests/goldens/make_normalize.py`.
"""
import json
import pathlib

import numpy as np
from nvidia.dali import fn, pipeline_def, types

CASES = {
    "f32": [
        {}, {"axes": [0, 1]}, {"axis_names": "W", "ddof": 1}, {"axes": [0, 2], "epsilon": 2.0},
        {"mean": 40.0}, {"stddev": 25.0, "scale": 2.0, "shift": 1.0},
        {"mean": 50.0, "stddev": 20.0},
        {"mean": "MEAN_T"}, {"mean": "MEAN_T", "stddev": "STD_T", "epsilon": 0.5},
    ],
    "batch": [
        {"batch": True}, {"batch": True, "axes": [0, 1], "shift": 3.0},
        {"batch": True, "axis_names": "HW", "mean": 10.0, "ddof": 2},
    ],
    "u8": [
        {"dtype": "UINT8", "scale": 64.0, "shift": 128.0},
        {"dtype": "INT8", "axes": [2], "scale": 40.0},
        {"dtype": "INT16", "axes": [0, 1], "scale": 1000.0},
        {"dtype": "UINT16", "scale": 3000.0, "shift": 20000.0},
        {"dtype": "FLOAT", "axes": [1]},
    ],
    "i16": [{}, {"dtype": "INT32", "scale": 1e6, "axes": [0]}],
}


def batches():
    rng = np.random.default_rng(3)
    f32 = [(rng.random((6, 8, 3)) * 100).astype(np.float32),
           (rng.random((5, 7, 3)) * 50 + 20).astype(np.float32)]
    same_hw = [(rng.random((6, 8, 3)) * 100).astype(np.float32),
               (rng.random((6, 8, 3)) * 10).astype(np.float32)]
    u8 = [rng.integers(0, 256, (9, 7, 3), dtype=np.uint8),
          rng.integers(0, 256, (4, 5, 3), dtype=np.uint8)]
    i16 = [rng.integers(-20000, 20000, (10, 12, 2)).astype(np.int16)]
    mean = [np.array([[[10.0, 50.0, 90.0]]], np.float32),
            np.array([[[30.0, 40.0, 60.0]]], np.float32)]
    std = [np.array([[[5.0, 20.0, 0.0]]], np.float32),
           np.array([[[1.0, 2.0, 3.0]]], np.float32)]
    return {"f32": (f32, mean, std), "batch": (same_hw, None, None), "u8": (u8, None, None),
            "i16": (i16, None, None)}


def dali_kwargs(case, mean=None, std=None):
    out = {}
    for k, v in case.items():
        if v == "MEAN_T":
            v = mean
        elif v == "STD_T":
            v = std
        elif isinstance(v, str) and k == "dtype":
            v = getattr(types, v)
        out[k] = v
    return out


def run(batch, cases, mean, std):
    @pipeline_def(batch_size=len(batch), num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: batch, layout="HWC")
        m = None if mean is None else fn.external_source(source=lambda: mean)
        s = None if std is None else fn.external_source(source=lambda: std)
        return tuple(fn.normalize(x, **dali_kwargs(c, m, s)) for c in cases)

    p = pipe()
    p.build()
    return [[np.array(t) for t in tl] for tl in p.run()]


def main():
    data = {}
    for name, (batch, mean, std) in batches().items():
        cases = CASES[name]
        for i, x in enumerate(batch):
            data[f"{name}_input_{i}"] = x
        for key, values in (("mean", mean), ("std", std)):
            for i, v in enumerate(values or []):
                data[f"{name}_{key}_{i}"] = v
        data[f"{name}_cases"] = np.array(json.dumps(cases))
        for k, outs in enumerate(run(batch, cases, mean, std)):
            for i, o in enumerate(outs):
                data[f"{name}_{k}_{i}"] = o
    out = pathlib.Path(__file__).with_name("normalize.npz")
    np.savez_compressed(out, **data)
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
