"""Regenerate displacement.npz with real NVIDIA DALI: fn.water and fn.sphere on a small photo
(uint8) and a float image, nearest neighbour and linear.

The npz holds `{t}_input` (t = "u8" or "f32"), `cases` (a JSON list of [operator, keyword
arguments]; "INTERP_LINEAR" stands for `types.INTERP_LINEAR`) and `{t}_{k}` (case k).
Run: `python tests/goldens/make_displacement.py`.
"""
import json
import pathlib

import cv2
import numpy as np
from nvidia.dali import fn, pipeline_def, types

ROOT = pathlib.Path(__file__).resolve().parents[2]
CASES = [
    ["water", {}],
    ["water", {"ampl_x": 3.5, "freq_x": 0.3, "phase_x": 1.0, "ampl_y": -6.0, "freq_y": 0.12,
               "phase_y": 2.0, "fill_value": 42.0, "interp_type": "INTERP_LINEAR"}],
    ["sphere", {}],
    ["sphere", {"fill_value": 7.0, "interp_type": "INTERP_LINEAR"}],
]


def main():
    photo = cv2.imread(str(ROOT / "dali/data/images/photos/coffee.jpg"))[:, :, ::-1]
    u8 = cv2.resize(photo, (40, 30), interpolation=cv2.INTER_AREA)
    f32 = (np.random.default_rng(2).random((17, 22, 2)) * 10).astype(np.float32)
    data = {"cases": np.array(json.dumps(CASES))}
    for name, img in (("u8", u8), ("f32", f32)):
        @pipeline_def(batch_size=1, num_threads=1, device_id=None)
        def pipe(img=img):
            x = fn.external_source(source=lambda: [img], layout="HWC")
            return tuple(getattr(fn, op)(x, **{k: getattr(types, v) if isinstance(v, str)
                                                else v for k, v in kw.items()})
                         for op, kw in CASES)

        p = pipe()
        p.build()
        data[f"{name}_input"] = img
        for k, tl in enumerate(p.run()):
            data[f"{name}_{k}"] = np.array(tl[0])
    out = pathlib.Path(__file__).with_name("displacement.npz")
    np.savez_compressed(out, **data)
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
