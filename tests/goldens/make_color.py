"""Regenerate color.npz with real NVIDIA DALI: outputs of the colour operators (color_twist,
hsv, hue, saturation, brightness_contrast, brightness, contrast, color_space_conversion) on a
small photo cut from dali/data, on random integer and float images, and on a sequence with
per-frame arguments.

The npz holds, per group `g`: `{g}_input_{i}` (the batch), `{g}_cases` (a JSON list of
[operator, keyword arguments]; strings naming `types` members such as "UINT8" or "YCbCr" stand
for them) and `{g}_{k}_{i}` (case k, sample i).  Group "seq" also holds `seq_arg_{i}`, the
per-frame values given as `fn.per_frame` argument inputs where a case says "PER_FRAME".
Run: `python tests/goldens/make_color.py`.
"""
import json
import pathlib

import cv2
import numpy as np
from nvidia.dali import fn, pipeline_def, types

ROOT = pathlib.Path(__file__).resolve().parents[2]

TWIST = [
    ["color_twist", {"hue": 35.0, "saturation": 0.6, "brightness": 1.2, "contrast": 0.7}],
    ["color_twist", {"hue": -120.0, "saturation": 1.8, "dtype": "FLOAT"}],
    ["color_twist", {"contrast": 1.9, "dtype": "FLOAT16"}],
    ["hsv", {"hue": 60.0, "saturation": 0.5, "value": 1.3}],
    ["hsv", {"hue": 200.0, "value": 0.8, "dtype": "FLOAT"}],
    ["hue", {"hue": 90.0}],
    ["hue", {"hue": -15.0, "dtype": "INT16"}],
    ["saturation", {"saturation": 0.0}],
    ["saturation", {"saturation": 2.5, "dtype": "INT32"}],
]
BC = [
    ["brightness_contrast", {"brightness": 1.4, "brightness_shift": 0.05, "contrast": 0.8}],
    ["brightness_contrast", {"contrast": 2.2, "contrast_center": 70.0, "dtype": "FLOAT"}],
    ["brightness_contrast", {"brightness": 0.5, "dtype": "INT16"}],
    ["brightness", {"brightness": 1.7, "brightness_shift": -0.1}],
    ["brightness", {"brightness_shift": 0.25, "dtype": "UINT8"}],
    ["contrast", {"contrast": 0.3}],
    ["contrast", {"contrast": 3.0, "dtype": "INT32"}],
]
SPACES = ["RGB", "BGR", "GRAY", "YCbCr"]
CSC = [["color_space_conversion", {"image_type": a, "output_type": b}]
       for a in SPACES for b in SPACES if a != b and a != "GRAY"]
CSC_GRAY = [["color_space_conversion", {"image_type": "GRAY", "output_type": b}]
            for b in SPACES if b != "GRAY"]
SEQ = [
    ["brightness_contrast", {"brightness": "PER_FRAME", "contrast": 1.5}],
    ["color_twist", {"hue": "PER_FRAME", "saturation": 0.7}],
    ["hsv", {"value": "PER_FRAME", "dtype": "FLOAT"}],
]


def dali_kwargs(case, arg=None):
    """JSON case -> DALI keyword arguments."""
    out = {}
    for k, v in case.items():
        if v == "PER_FRAME":
            v = fn.per_frame(arg)
        elif isinstance(v, str):
            v = getattr(types, v)
        out[k] = v
    return out


def batches():
    photo = cv2.imread(str(ROOT / "dali/data/images/photos/astronaut.jpg"))[:, :, ::-1]
    small = cv2.resize(photo, (32, 24), interpolation=cv2.INTER_AREA)
    rng = np.random.default_rng(7)
    colours = rng.integers(0, 256, (16, 16, 3), dtype=np.uint8)
    gray = rng.integers(0, 256, (9, 11, 1), dtype=np.uint8)
    ints = rng.integers(-3000, 3000, (7, 9, 3)).astype(np.int16)
    floats = rng.random((10, 8, 3), dtype=np.float32) * 1.2 - 0.1
    seq = rng.integers(0, 256, (4, 6, 5, 3), dtype=np.uint8)
    frames = np.array([0.5, 0.9, 1.3, 2.0], np.float32)
    return {
        "u8": ([small, colours], TWIST + BC),
        "i16": ([ints], TWIST + BC),
        "f32": ([floats], TWIST + BC),
        "f16": ([floats.astype(np.float16)], TWIST),
        "csc": ([small, colours], CSC),
        "cscgray": ([gray], CSC_GRAY),
    }, (seq, frames)


def run(batch, cases, layout="HWC", arg=None):
    @pipeline_def(batch_size=len(batch), num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: batch, layout=layout)
        a = None if arg is None else fn.external_source(source=lambda: [arg] * len(batch))
        return tuple(getattr(fn, op)(x, **dali_kwargs(kw, a)) for op, kw in cases)

    p = pipe()
    p.build()
    return [[np.array(t) for t in tl] for tl in p.run()]


def main():
    groups, (seq, frames) = batches()
    data = {}

    def save(name, batch, cases, outputs):
        for i, x in enumerate(batch):
            data[f"{name}_input_{i}"] = x
        data[f"{name}_cases"] = np.array(json.dumps(cases))
        for k, outs in enumerate(outputs):
            for i, o in enumerate(outs):
                data[f"{name}_{k}_{i}"] = o

    for name, (batch, cases) in groups.items():
        save(name, batch, cases, run(batch, cases))
    hues = np.array([10.0, -40.0, 80.0, 170.0], np.float32)
    seq_cases = [(c, frames if c[0] != "color_twist" else hues) for c in SEQ]
    outputs = [run([seq], [c], layout="FHWC", arg=a)[0] for c, a in seq_cases]
    save("seq", [seq], SEQ, outputs)
    for k, (_, a) in enumerate(seq_cases):
        data[f"seq_arg_{k}"] = a
    out = pathlib.Path(__file__).with_name("color.npz")
    np.savez_compressed(out, **data)
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
