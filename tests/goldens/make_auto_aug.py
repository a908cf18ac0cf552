"""Regenerate auto_aug.npz with real NVIDIA DALI: every augmentation of
`nvidia.dali.auto_aug.augmentations` on four small images at magnitude bins 0, 3, 7, 10 (of 11)
with signs +, -, -, +, with the default warp arguments and with `fill_value=None` /
nearest-neighbour interpolation for the warps.

Run: python tests/goldens/make_auto_aug.py  (a few seconds).
"""
import json
import pathlib
import sys

import numpy as np
from nvidia.dali import types

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import auto_aug_utils as utils  # noqa: E402

WARPS = ["shear_x", "shear_y", "translate_x_no_shape", "translate_y_no_shape", "rotate"]


def cases():
    out = [(name, {}) for name in utils.AUGMENTATIONS]
    out += [(name, {"fill_value": None}) for name in WARPS]
    out += [(name, {"interp_type": "INTERP_NN"}) for name in WARPS]
    return out


def main():
    imgs = utils.images()
    data = {"cases": np.array(json.dumps(cases()))}
    for i, x in enumerate(imgs):
        data[f"input_{i}"] = x
    for k, (name, kwargs) in enumerate(cases()):
        args = {key: getattr(types, v) if key == "interp_type" else v
                for key, v in kwargs.items()}
        for i, o in enumerate(utils.run_augmentation(name, imgs, real=True, **args)):
            data[f"out_{k}_{i}"] = o
    np.savez_compressed(pathlib.Path(__file__).with_name("auto_aug.npz"), **data)


if __name__ == "__main__":
    main()
