"""Random cases of the GPU kernels, shared by the emulated (test_emulation_*.py) and the
device (test_cupy_*.py) tests: each case runs the CPU operator through a pipeline for the
expected output, and the kernel through a backend - `emulated` (g++ and emulate.py) or
`on_device` (CuPy) - with the arguments its host helper (`_*_gpu.py`) builds.
"""

from __future__ import annotations

import os
import types

import emulate
import numpy as np
from pipeline_utils import run_op

from dali import types as dali_types
from dali.ops import _crop_window
from dali.ops.geometry import _flip_gpu
from dali.ops.image import _crop_mirror_normalize_gpu as _cmn_gpu
from dali.ops.image import crop_mirror_normalize as _cmn
from dali.ops.tensor import _cast_gpu

FLIP_CU = _flip_gpu.__file__.replace("_flip_gpu.py", "flip.cu")
CAST_CU = _cast_gpu.__file__.replace("_cast_gpu.py", "cast.cu")
CMN_CU = _cmn_gpu.__file__.replace("_crop_mirror_normalize_gpu.py", "crop_mirror_normalize.cu")


def emulated(cu, launch, args):
    """Run `launch` (a host helper's Launch) of `cu` on the CPU; returns `args` (numpy arrays
    written in place)."""
    emulate.load(cu).launch(launch.kernel, launch.grid, launch.block, args)
    return args


def on_device(cu, launch, args):
    """Run `launch` of `cu` on CUDA device 0 through dali._gpu.modules; returns the arguments
    copied back to numpy."""
    import cupy

    from dali._gpu import modules

    copies = {id(a): cupy.asarray(a) for a in args if isinstance(a, np.ndarray)}
    dev = [copies[id(a)] if isinstance(a, np.ndarray) else a for a in args]   # one per buffer
    modules.kernel(cu, launch.kernel, 0)(launch.grid, launch.block, tuple(dev))
    cupy.cuda.Device(0).synchronize()
    return [cupy.asnumpy(a) if isinstance(a, cupy.ndarray) else a for a in dev]


def _pack(samples, dtype):
    return np.concatenate([np.ascontiguousarray(s, dtype).reshape(-1) for s in samples]
                          or [np.zeros(0, dtype)])


def _unpack(flat, shapes):
    out, at = [], 0
    for s in shapes:
        size = int(np.prod(s, dtype=np.int64))
        out.append(flat[at:at + size].reshape(s))
        at += size
    return out


def _random(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * 100).astype(dtype)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    return rng.integers(lo, hi, shape, endpoint=True).astype(dtype)


# ---- flip -----------------------------------------------------------------------------
FLIP_LAYOUTS = {"HWC": 3, "CHW": 3, "FHWC": 4, "DHWC": 4, "FDHWC": 5, "FCDHW": 5}
FLIP_DTYPES = (np.uint8, np.int16, np.int32, np.float32, np.int64, np.float64)


def flip_case(seed):
    """(samples, layout, horizontal, vertical, depthwise) of a random batch."""
    rng = np.random.default_rng(seed)
    layout = list(FLIP_LAYOUTS)[seed % len(FLIP_LAYOUTS)]
    dtype = FLIP_DTYPES[seed % len(FLIP_DTYPES)]
    n = int(rng.integers(1, 5))
    samples = []
    for _ in range(n):
        shape = [int(rng.integers(1, 9)) for _ in layout]
        shape[layout.index("C")] = int(rng.choice([1, 3, 4]))
        samples.append(_random(rng, shape, dtype))
    flags = [rng.integers(0, 2, n).astype(np.int32) for _ in range(3)]
    return samples, layout, *flags


def flip_expected(samples, layout, horizontal, vertical, depthwise):
    """fn.flip on the CPU, per-sample flags as argument inputs."""
    def scalars(values):
        return [np.array(v, np.int32) for v in values]

    return run_op(lambda fn, x, h, v, d: fn.flip(x, horizontal=h, vertical=v, depthwise=d),
                  [samples, scalars(horizontal), scalars(vertical), scalars(depthwise)],
                  layouts=[layout, None, None, None])[0]


def flip_kernel(backend, samples, layout, horizontal, vertical, depthwise):
    """The flip kernel's output samples, run by `backend`."""
    dtype = samples[0].dtype
    flags = _flip_gpu.axis_flags(layout, horizontal, vertical, depthwise)
    shapes = [s.shape for s in samples]
    launch = _flip_gpu.launch(shapes, flags, dtype.itemsize)
    unsigned = np.dtype(f"u{dtype.itemsize}")
    src = _pack(samples, dtype).view(unsigned)
    args = backend(FLIP_CU, launch, [src, np.zeros_like(src), launch.samples])
    return _unpack(args[1].view(dtype), shapes)


# ---- crop_mirror_normalize ---------------------------------------------------------------
CMN_INPUTS = (np.uint8, np.int16, np.uint16, np.int32, np.float16, np.float32)
CMN_OUTPUTS = (np.float32, np.float16, np.uint8, np.int8)


def cmn_case(seed):
    """Samples, layout and fn.crop_mirror_normalize arguments of a random batch: crops at
    positions 0, 1/4, 1/2 or 1, larger than the input with the "pad" policy, mirror per
    sample, per-channel or scalar mean and std, scale, shift, output layout, pad_output."""
    rng = np.random.default_rng(seed)
    layout = ("HWC", "CHW", "FHWC")[seed % 3]
    in_dtype = np.dtype(CMN_INPUTS[seed % len(CMN_INPUTS)])
    out_dtype = np.dtype(CMN_OUTPUTS[(seed // 2) % len(CMN_OUTPUTS)])
    channels = int(rng.choice([1, 3, 4]))
    n = int(rng.integers(1, 5))
    samples = []
    for _ in range(n):
        shape = [int(rng.integers(2, 12)) for _ in layout]
        shape[layout.index("C")] = channels
        if "F" in layout:
            shape[layout.index("F")] = int(rng.integers(1, 3))
        samples.append(_random(rng, shape, in_dtype))
    pad = bool(rng.integers(0, 2))
    limit = 16 if pad else 2
    args = {
        "crop": [float(rng.integers(1, limit)), float(rng.integers(1, limit))],
        "crop_pos_x": float(rng.choice([0.0, 0.25, 0.5, 1.0])),
        "crop_pos_y": float(rng.choice([0.0, 0.25, 0.5, 1.0])),
        "mean": [float(v) for v in rng.uniform(-50, 150, rng.choice([1, channels]))],
        "std": [float(v) for v in rng.uniform(0.5, 80, rng.choice([1, channels]))],
        "scale": float(rng.choice([1.0, 64.0, 0.5])),
        "shift": float(rng.choice([0.0, 128.0, -3.5])),
        "dtype": out_dtype,
        "output_layout": "".join(rng.permutation(list(layout))),
        "pad_output": bool(rng.integers(0, 2)),
        "out_of_bounds_policy": "pad" if pad else "trim_to_shape",
        "fill_values": [float(v) for v in rng.uniform(-10, 200, rng.choice([1, channels]))],
    }
    if args["pad_output"] and len(args["fill_values"]) > 1:
        args["fill_values"] = args["fill_values"][:1]    # one per *output* channel otherwise
    mirror = rng.integers(0, 2, n).astype(np.int32)
    return samples, layout, mirror, args


def cmn_expected(samples, layout, mirror, args):
    """fn.crop_mirror_normalize on the CPU, mirror per sample as an argument input."""
    kwargs = dict(args, dtype=dali_types.to_dali_type(args["dtype"]))
    return run_op(lambda fn, x, m: fn.crop_mirror_normalize(x, mirror=m, **kwargs),
                  [samples, [np.array(v, np.int32) for v in mirror]],
                  layouts=[layout, None])[0]


def cmn_kernel(backend, samples, layout, mirror, args):
    """The kernel's output samples, run by `backend`; the windows and the (mean, mul) rows are
    worked out as the CPU operator does (anchors of `dali.ops._crop_window`'s rule for
    positions that are exact in binary, `CropMirrorNormalize._normalization`)."""
    in_dtype, out_dtype = samples[0].dtype, np.dtype(args["dtype"])
    channel = layout.index("C")
    perm = [layout.index(c) for c in args["output_layout"]]
    anchors, extents, out_shapes, means, muls, fills = [], [], [], [], [], []
    op = types.SimpleNamespace(args={"scale": args["scale"], "shift": args["shift"]})
    for s in samples:
        anchor, extent = [0] * len(layout), list(s.shape)
        for axis, size, pos in (("H", args["crop"][0], args["crop_pos_y"]),
                                ("W", args["crop"][1], args["crop_pos_x"])):
            d = layout.index(axis)
            extent[d] = int(size)
            anchor[d] = int(np.floor((s.shape[d] - extent[d]) * pos + 0.5)) \
                if s.shape[d] >= extent[d] else -int(np.floor((extent[d] - s.shape[d]) * pos
                                                               + 0.5))
            if args["out_of_bounds_policy"] == "trim_to_shape":
                lo, hi = max(anchor[d], 0), min(anchor[d] + extent[d], s.shape[d])
                anchor[d], extent[d] = lo, hi - lo
        c = extent[channel]
        padded = 1 << (c - 1).bit_length() if args["pad_output"] and c > 1 else c
        shape = list(extent)
        shape[channel] = padded
        out_shapes.append(tuple(shape[p] for p in perm))
        mean, mul = _cmn.CropMirrorNormalize._normalization(op, None, 0, args["mean"],
                                                             args["std"], c, c)
        anchors.append(anchor)
        extents.append(extent)
        means.append(mean)
        muls.append(mul)
        fills.append(_crop_window.fill_array(None, 0, args["fill_values"], padded, out_dtype))
    pad = args["out_of_bounds_policy"] == "pad"
    launch = _cmn_gpu.launch([s.shape for s in samples], out_shapes, layout, perm, anchors,
                             extents, mirror, means, muls, fills if pad else None, in_dtype,
                             out_dtype)
    size = sum(int(np.prod(s)) for s in out_shapes)
    dst = np.zeros(size, out_dtype)
    out = backend(CMN_CU, launch, [_pack(samples, in_dtype), dst, launch.samples, launch.mean,
                                   launch.mul, launch.fill, np.int32(launch.row)])
    return _unpack(out[1], out_shapes)



# ---- cast ------------------------------------------------------------------------------
CAST_TYPES = tuple(np.dtype(t) for t in (
    np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
    np.float16, np.float32, np.float64))
_EDGES = (0, 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, 0.50000006, 127.5, -128.5, 255.5,
          -129, 256, 32767.5, -32768.5, 65504, 65519.99, 65520, 2.0**31 - 0.5, 2.0**31,
          -2.0**31 - 1, 2.0**32, 2.0**53 + 1, 2.0**63, -2.0**63, 2.0**64, 1e30, -1e30, 6e-8,
          3e-8, 1e-45, float("inf"), float("-inf"), float("nan"))


def cast_case(seed, src):
    """Samples of type `src` (edge values of every conversion, then random ones at several
    scales), cut into a few shapes."""
    rng = np.random.default_rng(seed)
    src = np.dtype(src)
    if src == np.bool_:
        values = rng.integers(0, 2, 64).astype(bool)
    elif src.kind == "f":
        scales = rng.choice([1.0, 300.0, 7e4, 3e9, 1e19], 256)
        with np.errstate(over="ignore"):
            edges = np.array(_EDGES, np.float64).astype(src)
            noise = (rng.standard_normal(256) * scales).astype(src)
        values = np.concatenate([edges, -edges, noise])
    else:
        info = np.iinfo(src)
        edges = [info.min, info.max, info.min + 1, info.max - 1, 0, 1, 127, 128, 255, 256,
                 32767, 32768, 65535, 65536, 2**31 - 1, 2**31, 2**32, 2**53 + 1, 2**63 - 1]
        edges = [e for e in edges if info.min <= e <= info.max]
        values = np.concatenate([np.array(edges, src),
                                 rng.integers(info.min, info.max, 256, dtype=src,
                                              endpoint=True)])
    cuts = np.sort(rng.choice(np.arange(1, values.size), 2, replace=False))
    return [part.reshape(-1, 1) for part in np.split(values, cuts)]


def cast_expected(samples, dtype):
    return run_op(lambda fn, x: fn.cast(x, dtype=dali_types.to_dali_type(dtype)),
                  [samples])[0]


# CUDA's math functions against glibc's (the CPU and the emulation): the ULPs a pipeline's
# float outputs may differ by where a kernel calls them on a real device (DALI_TEST_DEVICE=cuda)
DEVICE_MATH_ULPS = 4 if os.environ.get("DALI_TEST_DEVICE") == "cuda" else 0


def assert_same(got, expected, ulps=0):
    """Equal samples: same dtype and shape, equal values (NaN where NaN) and, for floats, the
    same sign of zero (NaN payloads may differ between devices); float values within `ulps`
    units of the last place where it is given."""
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        if ulps and e.dtype.kind == "f":
            assert max_ulps(g, e) <= ulps
        else:
            np.testing.assert_array_equal(g, e)
        if e.dtype.kind == "f":
            numbers = ~np.isnan(e)
            np.testing.assert_array_equal(np.signbit(g[numbers]), np.signbit(e[numbers]))


def max_ulps(got, expected):
    """Largest distance in units of the last place between finite float arrays (NaN and
    infinities must match exactly: they count as 0 when they do, as a huge number if not)."""
    got, expected = np.asarray(got), np.asarray(expected)
    itype = np.int32 if got.dtype == np.float32 else np.int64
    same_special = (np.isnan(got) & np.isnan(expected)) | (got == expected)
    g = got.view(itype).astype(np.int64)
    e = expected.view(itype).astype(np.int64)
    sign = np.int64(1) << (8 * got.dtype.itemsize - 1)
    g = np.where(g < 0, -(g + sign) if got.dtype == np.float32 else -(g ^ sign), g)
    e = np.where(e < 0, -(e + sign) if got.dtype == np.float32 else -(e ^ sign), e)
    dist = np.abs(g.astype(object) - e.astype(object)) if got.dtype == np.float64 else \
        np.abs(g - e)
    dist = np.where(same_special, 0, dist)
    bad = (np.isnan(got) != np.isnan(expected)) | (np.isinf(got) != np.isinf(expected))
    return int(np.where(bad, 1 << 62, dist).max(initial=0))


def cast_kernel(backend, samples, dtype):
    """The cast kernel's output samples, run by `backend`."""
    src = _pack(samples, samples[0].dtype)
    launch = _cast_gpu.launch(src.size, src.dtype, dtype)
    out = backend(CAST_CU, launch, [src, np.zeros(src.size, dtype), launch.count])
    return _unpack(out[1], [s.shape for s in samples])
