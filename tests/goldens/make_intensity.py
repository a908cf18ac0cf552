"""Regenerate intensity.npz with real NVIDIA DALI: fn.equalize on a photo cut from dali/data
(HWC and CHW), a low-contrast image, a sequence (FHWC) and a grayscale image (HW); and
fn.lookup_table on random integers of several types.

The npz holds, per case `c`: `{c}_input`, `{c}_layout`, `{c}_args` (JSON keyword arguments;
"dtype" names a `types` member) and `{c}_output`.  Run: `python tests/goldens/make_intensity.py`.
"""
import json
import pathlib

import cv2
import numpy as np
from nvidia.dali import fn, pipeline_def, types

ROOT = pathlib.Path(__file__).resolve().parents[2]


def inputs():
    photo = cv2.imread(str(ROOT / "dali/data/images/photos/coffee.jpg"))[:, :, ::-1]
    small = cv2.resize(photo, (40, 30), interpolation=cv2.INTER_AREA)
    rng = np.random.default_rng(11)
    dull = (rng.integers(0, 40, (21, 17, 3)) + 100).astype(np.uint8)
    seq = rng.integers(0, 120, (3, 9, 7, 3), dtype=np.uint8)
    gray = np.ascontiguousarray(small[:, :, 1])
    keys = rng.integers(0, 300, 30).tolist()
    values = (rng.normal(size=30) * 150).round(2).tolist()
    lut = {"keys": keys, "values": values, "default_value": -7.25}
    return {
        "eq_photo": (small, "HWC", "equalize", {}),
        "eq_chw": (np.ascontiguousarray(small.transpose(2, 0, 1)), "CHW", "equalize", {}),
        "eq_dull": (dull, "HWC", "equalize", {}),
        "eq_seq": (seq, "FHWC", "equalize", {}),
        "eq_gray": (gray, "HW", "equalize", {}),
        "lut_u8": (rng.integers(0, 256, (6, 7, 3), dtype=np.uint8), "HWC", "lookup_table",
                   {**lut, "dtype": "UINT8"}),
        "lut_i16": (rng.integers(-50, 400, (40,)).astype(np.int16), "", "lookup_table",
                    {**lut, "dtype": "FLOAT"}),
        "lut_i64": (rng.integers(-50, 400, (5, 8)).astype(np.int64), "", "lookup_table",
                    {**lut, "dtype": "INT32"}),
    }


def run(x, layout, op, kwargs):
    kwargs = {k: getattr(types, v) if k == "dtype" else v for k, v in kwargs.items()}

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        src = fn.external_source(source=lambda: [x], layout=layout or None)
        return getattr(fn, op)(src, **kwargs)

    p = pipe()
    p.build()
    (tl,) = p.run()
    return np.array(tl[0])


def main():
    data = {}
    for name, (x, layout, op, kwargs) in inputs().items():
        data[f"{name}_input"] = x
        data[f"{name}_layout"] = np.array(layout)
        data[f"{name}_args"] = np.array(json.dumps(kwargs))
        data[f"{name}_output"] = run(x, layout, op, kwargs)
    out = pathlib.Path(__file__).with_name("intensity.npz")
    np.savez_compressed(out, **data)
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
