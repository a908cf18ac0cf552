"""Regenerate resize.npz with real NVIDIA DALI: fn.resize outputs for small inputs in ~30
configurations (every filter, antialiasing on/off, up/downscaling, each way of giving the
size, max_size, ROI, mirroring, float output, other input types and layouts).

The archive holds the inputs (`in_<name>`), the configurations (`spec`, JSON: name, input
names, layout, arguments with enums by name) and the outputs (`out_<config>_<sample>`, plus
`attr_<config>_<sample>` for save_attrs).
Run: python tests/goldens/make_resize.py  (a few seconds).
"""
import json
import pathlib

import numpy as np
from nvidia.dali import fn, pipeline_def, types


def inputs():
    rng = np.random.default_rng(2024)
    yy, xx = np.mgrid[0:37, 0:53]
    return {
        "random": rng.integers(0, 256, (37, 53, 3), dtype=np.uint8),
        "gradient": np.stack([xx * 4, yy * 6, (xx + yy) * 2], -1).clip(0, 255).astype(np.uint8),
        "seq": rng.integers(0, 256, (3, 15, 21, 3), dtype=np.uint8),
        "planar": rng.integers(0, 256, (2, 19, 23), dtype=np.uint8),
        "volume": rng.integers(0, 256, (7, 11, 13, 2), dtype=np.uint8),
        "int16": rng.integers(-2000, 2000, (19, 23, 3)).astype(np.int16),
        "uint16": rng.integers(0, 65536, (19, 23, 3)).astype(np.uint16),
        "float": (rng.random((19, 23, 1)) * 10 - 5).astype(np.float32),
    }


IMAGES = ["random", "gradient"]
CONFIGS = [
    ("linear_down", IMAGES, "HWC", {"size": [20, 30]}),
    ("linear_up", IMAGES, "HWC", {"size": [50, 70]}),
    ("linear_up2x", IMAGES, "HWC", {"size": [74, 106]}),
    ("linear_noaa_down", IMAGES, "HWC", {"size": [20, 30], "antialias": False}),
    ("nn_down", IMAGES, "HWC", {"size": [20, 30], "interp_type": "INTERP_NN"}),
    ("nn_up", IMAGES, "HWC", {"size": [50, 70], "interp_type": "INTERP_NN"}),
    ("cubic_mixed", IMAGES, "HWC", {"size": [20, 80], "interp_type": "INTERP_CUBIC"}),
    ("cubic_up", IMAGES, "HWC", {"size": [45, 61], "interp_type": "INTERP_CUBIC"}),
    ("cubic_noaa_down", IMAGES, "HWC",
     {"size": [15, 22], "interp_type": "INTERP_CUBIC", "antialias": False}),
    ("lanczos_down", IMAGES, "HWC", {"size": [15, 22], "interp_type": "INTERP_LANCZOS3"}),
    ("lanczos_up", IMAGES, "HWC", {"size": [45, 70], "interp_type": "INTERP_LANCZOS3"}),
    ("gaussian_down", IMAGES, "HWC", {"size": [20, 30], "interp_type": "INTERP_GAUSSIAN"}),
    ("gaussian_up", IMAGES, "HWC", {"size": [45, 61], "interp_type": "INTERP_GAUSSIAN"}),
    ("triangular_down", IMAGES, "HWC", {"size": [12, 17], "interp_type": "INTERP_TRIANGULAR"}),
    ("min_mag", IMAGES, "HWC",
     {"size": [20, 80], "min_filter": "INTERP_NN", "mag_filter": "INTERP_CUBIC"}),
    ("resize_shorter", IMAGES, "HWC", {"resize_shorter": 24}),
    ("resize_longer", IMAGES, "HWC", {"resize_longer": 31.5}),
    ("resize_x", IMAGES, "HWC", {"resize_x": 27}),
    ("shorter_max_size", IMAGES, "HWC", {"resize_shorter": 60, "max_size": 70}),
    ("not_smaller", IMAGES, "HWC", {"size": [25, 25], "mode": "not_smaller"}),
    ("not_larger_max", IMAGES, "HWC",
     {"size": [100, 100], "mode": "not_larger", "max_size": [50, 60]}),
    ("stretch", IMAGES, "HWC", {"size": [20, 0], "mode": "stretch"}),
    ("roi_mirrored", IMAGES, "HWC",
     {"size": [20, 30], "roi_start": [3.5, 40], "roi_end": [30.2, 5]}),
    ("roi_relative", IMAGES, "HWC", {"resize_y": 30, "roi_start": [0.1, 0.2],
                                     "roi_end": [0.9, 0.7], "roi_relative": True}),
    ("negative_size", IMAGES, "HWC", {"size": [-20, 30]}),
    ("fractional", IMAGES, "HWC", {"size": [20.4, 30.7]}),
    ("no_subpixel", IMAGES, "HWC", {"resize_y": 20.4, "subpixel_scale": False}),
    ("float_out", IMAGES, "HWC", {"size": [20, 30], "dtype": "FLOAT"}),
    ("save_attrs", IMAGES, "HWC", {"size": [20, 30], "save_attrs": True}),
    ("sequence", ["seq"], "FHWC", {"size": [9, 40]}),
    ("planar", ["planar"], "CHW", {"size": [9, 40], "interp_type": "INTERP_CUBIC"}),
    ("volume", ["volume"], "DHWC", {"size": [4, 20, 7]}),
    ("int16", ["int16"], "HWC", {"size": [9, 40], "interp_type": "INTERP_LANCZOS3"}),
    ("uint16", ["uint16"], "HWC", {"size": [31, 12], "interp_type": "INTERP_CUBIC"}),
    ("float_in", ["float"], "HWC", {"size": [31, 12]}),
]


def dali_kwargs(kwargs):
    out = dict(kwargs)
    for k in ("interp_type", "min_filter", "mag_filter"):
        if k in out:
            out[k] = getattr(types, out[k])
    if "dtype" in out:
        out["dtype"] = getattr(types, out["dtype"])
    return out


def run(samples, layout, kwargs):
    @pipeline_def(batch_size=len(samples), num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: samples, layout=layout, batch=True)
        out = fn.resize(x, **dali_kwargs(kwargs))
        return tuple(out) if isinstance(out, list) else (out,)

    p = pipe()
    p.build()
    return [[np.array(t) for t in tl] for tl in p.run()]


def main():
    ins = inputs()
    arrays = {f"in_{k}": v for k, v in ins.items()}
    spec = []
    for name, names, layout, kwargs in CONFIGS:
        outs = run([ins[n] for n in names], layout, kwargs)
        for k, out in enumerate(outs[0]):
            arrays[f"out_{name}_{k}"] = out
        if len(outs) > 1:
            for k, attr in enumerate(outs[1]):
                arrays[f"attr_{name}_{k}"] = attr
        spec.append({"name": name, "inputs": names, "layout": layout, "kwargs": kwargs})
    arrays["spec"] = np.array(json.dumps(spec))
    path = pathlib.Path(__file__).with_name("resize.npz")
    np.savez_compressed(path, **arrays)
    print(f"wrote {path} ({path.stat().st_size} bytes, {len(spec)} configurations)")


if __name__ == "__main__":
    main()
