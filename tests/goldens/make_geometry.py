"""Regenerate geometry.npz with real NVIDIA DALI: outputs of fn.rotate, fn.warp_affine and
fn.crop_mirror_normalize on small images cut from dali/data (a photo, so interpolation sees
natural edges) and on a float image.

The npz holds, per operator `op`: `{op}_input_{i}` (the batch), `{op}_cases` (a JSON list of
keyword arguments; type names such as "UINT8" stand for `types.UINT8`) and `{op}_{k}_{i}`
(output k of case k, sample i).  Run: `python tests/goldens/make_geometry.py`.
"""
import json
import pathlib

import cv2
import numpy as np
from nvidia.dali import fn, pipeline_def, types

ROOT = pathlib.Path(__file__).resolve().parents[2]
MEAN = [123.675, 116.28, 103.53]
STD = [58.395, 57.12, 57.375]

ROTATE_CASES = [
    {"angle": 10.0, "fill_value": 0},
    {"angle": -37.0, "interp_type": "INTERP_NN"},
    {"angle": 45.0, "keep_size": True, "fill_value": 0},
    {"angle": 135.0, "size": [20, 30]},
    {"angle": 200.0, "fill_value": 77.7, "dtype": "FLOAT"},
    {"angle": 90.0, "interp_type": "INTERP_NN"},
    {"angle": 1.5},
]
WARP_CASES = [
    {"matrix": [0.9, 0.2, 1.3, -0.1, 1.1, -2.2]},
    {"matrix": [0.9, 0.2, 1.3, -0.1, 1.1, -2.2], "fill_value": 3, "interp_type": "INTERP_NN"},
    {"matrix": [1.5, 0.3, -4.0, 0.4, 0.7, 3.0], "size": [25, 33], "fill_value": 0},
    {"matrix": [0.8, -0.3, 5.0, 0.25, 1.2, -1.0], "inverse_map": False, "fill_value": 255},
]
CMN_CASES = [
    {"crop": [32, 32], "mean": [0.485 * 255, 0.456 * 255, 0.406 * 255],
     "std": [0.229 * 255, 0.224 * 255, 0.225 * 255], "mirror": 1},
    {"crop": [20, 24], "crop_pos_x": 0.2, "crop_pos_y": 0.7, "mean": MEAN, "std": STD,
     "scale": 64.0, "shift": 128.0, "dtype": "UINT8", "output_layout": "HWC"},
    {"crop": [50, 44], "out_of_bounds_policy": "pad", "fill_values": [0, 0, 0, 0],
     "pad_output": True, "mean": MEAN, "std": STD, "dtype": "FLOAT16"},
]


def dali_kwargs(case):
    """JSON case -> DALI keyword arguments (type and interpolation names to enums)."""
    out = {}
    for k, v in case.items():
        if isinstance(v, str) and hasattr(types, v) and k != "out_of_bounds_policy":
            v = getattr(types, v)
        out[k] = v
    return out


def images():
    photo = cv2.imread(str(ROOT / "dali/data/images/photos/astronaut.jpg"))[:, :, ::-1]
    small = cv2.resize(photo, (48, 36), interpolation=cv2.INTER_AREA)
    crop = np.ascontiguousarray(photo[100:140, 180:230])
    rng = np.random.default_rng(0)
    flt = (rng.random((17, 23, 1)) * 100).astype(np.float32)
    return [small, crop], [small.astype(np.float32), flt]


def run(op, batch, cases):
    @pipeline_def(batch_size=len(batch), num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: batch, layout="HWC")
        return tuple(op(x, **dali_kwargs(c)) for c in cases)

    p = pipe()
    p.build()
    return [[np.array(t) for t in tl] for tl in p.run()]


def main():
    uint8_batch, float_batch = images()
    data = {}
    specs = [("rotate", fn.rotate, uint8_batch, ROTATE_CASES),
             ("rotatef", fn.rotate, float_batch, ROTATE_CASES[:3]),
             ("warp", fn.warp_affine, uint8_batch, WARP_CASES),
             ("warpf", fn.warp_affine, float_batch, WARP_CASES[:2]),
             ("cmn", fn.crop_mirror_normalize, uint8_batch, CMN_CASES)]
    for name, op, batch, cases in specs:
        for i, x in enumerate(batch):
            data[f"{name}_input_{i}"] = x
        data[f"{name}_cases"] = np.array(json.dumps(cases))
        for k, outs in enumerate(run(op, batch, cases)):
            for i, o in enumerate(outs):
                data[f"{name}_{k}_{i}"] = o
    out = pathlib.Path(__file__).with_name("geometry.npz")
    np.savez_compressed(out, **data)
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
