"""Random cases of the colour and intensity kernels (`dali/ops/color/color.cu`), shared by the
emulated (test_emulation_*.py) and the device (test_cupy_*.py) tests: each case runs the CPU
operator through a pipeline for the expected output, and the kernel through a backend
(`gpu_cases.emulated` or `gpu_cases.on_device`) with the launch its host helper builds from
the values the CPU operator's plan holds.
"""

from __future__ import annotations

import numpy as np
from gpu_cases import _pack, _unpack
from pipeline_utils import run_op

from dali import _types
from dali import types as dali_types
from dali._types import DALIImageType as Img
from dali.ops.color import _color_gpu, _lookup_table_gpu
from dali.ops.color import brightness_contrast as _bc
from dali.ops.color import color_space_conversion as _csc
from dali.ops.color import color_twist as _twist
from dali.ops.color import lookup_table as _lookup_table

COLOR_CU = _color_gpu.__file__.replace("_color_gpu.py", "color.cu")
LOOKUP_CU = _lookup_table_gpu.__file__.replace("_lookup_table_gpu.py", "lookup_table.cu")

# the factor arguments of each operator and the range of their random values
BC_OPS = {"brightness_contrast": ("brightness", "brightness_shift", "contrast",
                                  "contrast_center"),
          "brightness": ("brightness", "brightness_shift"),
          "contrast": ("contrast", "contrast_center")}
TWIST_OPS = {"color_twist": ("hue", "saturation", "brightness", "contrast"),
             "hsv": ("hue", "saturation", "value"), "hue": ("hue",),
             "saturation": ("saturation",)}
_RANGES = {"brightness": (-0.5, 2.5), "brightness_shift": (-0.6, 0.6), "contrast": (-1, 3),
           "contrast_center": (-100, 300), "hue": (-400, 400), "saturation": (-0.5, 2.5),
           "value": (0, 2.5)}
BC_TYPES = tuple(np.dtype(t) for t in (np.uint8, np.int16, np.int32, np.float32))
TWIST_TYPES = (*BC_TYPES, np.dtype(np.float16))
_LAYOUTS = ("HWC", "FHWC", "DHWC")


def _values(rng, shape, dtype):
    """Random values of `dtype` over its whole range (integers) or at several scales with
    infinities and NaN (floats)."""
    if dtype.kind == "f":
        scale = rng.choice([1.0, 300.0, 1e5, 1e10], shape)
        v = rng.standard_normal(shape) * scale
        flat = v.reshape(-1)
        if flat.size > 4:
            flat[rng.integers(0, flat.size, 3)] = [np.nan, np.inf, -np.inf]
        with np.errstate(over="ignore"):
            return v.astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dtype)


def linear_case(seed, op):
    """A random batch of `op` (a key of BC_OPS or TWIST_OPS): samples, layout, the factor
    arguments (name -> ("const", float), ("sample", per-sample floats) or ("frame", per-frame
    arrays) on sequences) and the output dtype (None: not given)."""
    rng = np.random.default_rng(seed)
    twist = op in TWIST_OPS
    types = TWIST_TYPES if twist else BC_TYPES
    layout = _LAYOUTS[seed % 3]
    in_dtype = types[seed % len(types)]
    out_dtype = None if seed % 4 == 0 else types[int(rng.integers(0, len(types)))]
    channels = 3 if twist else int(rng.choice([1, 2, 3, 4]))
    n = int(rng.integers(1, 5))
    samples = []
    for _ in range(n):
        shape = [int(rng.integers(0 if rng.random() < 0.1 else 1, 7)) for _ in layout]
        shape[-1] = channels
        if layout[0] == "F":
            shape[0] = int(rng.integers(1, 4))
        samples.append(_values(rng, shape, in_dtype))
    args = {}
    for name in (TWIST_OPS if twist else BC_OPS)[op]:
        lo, hi = _RANGES[name]
        kind = rng.choice(["const", "sample", "frame"] if layout[0] == "F" else
                          ["const", "sample"])
        if name == "contrast_center" and rng.random() < 0.3:
            continue                               # the default center of the input type
        if kind == "const":
            args[name] = ("const", float(rng.uniform(lo, hi)))
        elif kind == "sample":
            args[name] = ("sample", [np.float32(rng.uniform(lo, hi)) for _ in range(n)])
        else:
            args[name] = ("frame", [rng.uniform(lo, hi, s.shape[0]).astype(np.float32)
                                    for s in samples])
    return samples, layout, op, args, out_dtype


def linear_expected(samples, layout, op, args, out_dtype):
    """The CPU operator's output, argument inputs per sample or per frame ("F" layout)."""
    names = [k for k, (kind, _) in args.items() if kind != "const"]
    consts = {k: v for k, (kind, v) in args.items() if kind == "const"}
    if out_dtype is not None:
        consts["dtype"] = dali_types.to_dali_type(out_dtype)
    inputs = [samples] + [[np.asarray(v, np.float32) for v in args[k][1]] for k in names]
    layouts = [layout] + ["F" if args[k][0] == "frame" else None for k in names]

    def build(fn, x, *nodes):
        return getattr(fn, op)(x, **consts, **dict(zip(names, nodes, strict=True)))

    return run_op(build, inputs, layouts=layouts)[0]


def linear_params(samples, layout, op, args, out_dtype):
    """(mats, offsets, frames) as the CPU operator's plan holds them."""
    in_dtype = samples[0].dtype
    out_dtype = _output_dtype(op, in_dtype, out_dtype)
    frames = None
    if any(kind == "frame" for kind, _ in args.values()):
        frames = np.array([s.shape[0] for s in samples], np.int64)
    parts = np.ones(len(samples), np.int64) if frames is None else frames
    if all(kind == "const" for kind, _ in args.values()):
        parts = np.ones(1, np.int64)           # one matrix for the whole batch
        values = {k: np.float32([v]) for k, (_, v) in args.items()}
    else:
        values = {}
        for k, (kind, v) in args.items():
            if kind == "const":
                values[k] = np.full(int(parts.sum()), v, np.float32)
            elif kind == "sample":
                values[k] = np.repeat(np.float32(v), parts)
            else:
                values[k] = np.concatenate(v)
    if op in BC_OPS:
        mul, add = _bc.kernel_factors(
            _types.dali_type_of(in_dtype), _types.dali_type_of(out_dtype),
            values.get("brightness", 1.0), values.get("brightness_shift", 0.0),
            values.get("contrast", 1.0), values.get("contrast_center"))
        count = int(parts.sum())
        return (np.broadcast_to(mul, count).reshape(-1, 1, 1),
                np.broadcast_to(add, count).reshape(-1, 1), frames)
    mats = _twist.twist_matrices(**values)
    offsets = np.zeros((len(mats), 3), np.float32)
    if op == "color_twist":
        half = 0.5 if in_dtype.kind == "f" else 128.0
        offsets[:] = np.reshape(_twist.contrast_offsets(
            values.get("brightness", np.float32(1)), values.get("contrast", np.float32(1)),
            half), (-1, 1))
    return mats, offsets, frames


def _output_dtype(op, in_dtype, out_dtype):
    if out_dtype is not None:
        return np.dtype(out_dtype)
    return np.dtype(np.uint8) if op == "hsv" else in_dtype


def linear_kernel(backend, samples, layout, op, args, out_dtype):
    """The linear colour kernel's output samples, run by `backend`."""
    in_dtype = samples[0].dtype
    out = _output_dtype(op, in_dtype, out_dtype)
    mats, offsets, frames = linear_params(samples, layout, op, args, out_dtype)
    shapes = [s.shape for s in samples]
    launch = _color_gpu.linear_launch(shapes, mats, offsets, frames, in_dtype, out)
    size = sum(s.size for s in samples) // int(launch.cin) * int(launch.cout)
    got = backend(COLOR_CU, launch, [_pack(samples, in_dtype), np.zeros(size, out),
                                     launch.samples, launch.mats, launch.offsets, launch.cin,
                                     launch.cout])
    return _unpack(got[1], shapes)


# ---- color_space_conversion ----------------------------------------------------------------
SPACES = (Img.RGB, Img.BGR, Img.GRAY, Img.YCbCr)
SPACE_PAIRS = tuple((a, b) for a in SPACES for b in SPACES if a != b)
_SPACE_CHANNELS = {Img.RGB: 3, Img.BGR: 3, Img.GRAY: 1, Img.YCbCr: 3}
_SPACE_LAYOUTS = ("HWC", "FHWC", "DHWC", "FDHWC")


def space_case(seed, src, dst):
    """A random uint8 batch of `src` pixels (every value of a channel occurs: the conversions
    are exact integer functions of the pixel) and its layout."""
    rng = np.random.default_rng(seed)
    layout = _SPACE_LAYOUTS[seed % len(_SPACE_LAYOUTS)]
    samples = []
    for _ in range(int(rng.integers(1, 5))):
        shape = [int(rng.integers(0 if rng.random() < 0.1 else 1, 9)) for _ in layout]
        shape[-1] = _SPACE_CHANNELS[src]
        samples.append(rng.integers(0, 256, shape, dtype=np.uint8))
    c = _SPACE_CHANNELS[src]
    every = np.stack([rng.permutation(256) for _ in range(c)], axis=-1).astype(np.uint8)
    samples.append(every.reshape((1,) * (len(layout) - 2) + (256, c)))
    return samples, layout


def space_expected(samples, layout, src, dst):
    return run_op(lambda fn, x: fn.color_space_conversion(x, image_type=src, output_type=dst),
                  [samples], layouts=[layout])[0]


def space_kernel(backend, samples, layout, src, dst):
    """The conversion kernel's output samples, run by `backend`."""
    name, red = _csc.conversion(src, dst)
    shapes = [s.shape for s in samples]
    launch = _color_gpu.space_launch(shapes, name, red)
    out_shapes = [(*s[:-1], _SPACE_CHANNELS[dst]) for s in shapes]
    size = sum(int(np.prod(s)) for s in out_shapes)
    got = backend(COLOR_CU, launch, [_pack(samples, np.uint8), np.zeros(size, np.uint8),
                                     launch.samples, launch.code, launch.red, launch.coeffs])
    return _unpack(got[1], out_shapes)


# ---- lookup_table --------------------------------------------------------------------------
LOOKUP_INPUTS = tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                            np.uint32, np.int64, np.uint64))
LOOKUP_OUTPUTS = tuple(np.dtype(t) for t in (np.uint8, np.int8, np.int16, np.uint16, np.int32,
                                             np.uint32, np.int64, np.uint64, np.float16,
                                             np.float32, np.float64, np.bool_))


def lookup_case(seed):
    """(samples, args): keys anywhere in 0..65535 (some listed twice), values that round,
    saturate or wrap in the output type, inputs around the table and at the type's limits."""
    rng = np.random.default_rng(seed)
    src = LOOKUP_INPUTS[seed % len(LOOKUP_INPUTS)]
    out = LOOKUP_OUTPUTS[seed % len(LOOKUP_OUTPUTS)]
    top = int(rng.choice([0, 5, 300, 70000 if src.itemsize > 2 else 65535]))
    count = int(rng.integers(0, 12))
    keys = [int(k) for k in rng.integers(0, min(top, 65535) + 1, count)]
    values = [float(v) for v in rng.choice([-1.5, 2.5, 300.0, -40000.0, 1e10, 0.49], count)]
    info = np.iinfo(src)
    samples = []
    for _ in range(int(rng.integers(1, 5))):
        shape = tuple(int(rng.integers(0 if rng.random() < 0.1 else 1, 6)) for _ in range(2))
        x = rng.integers(max(info.min, -3), min(info.max, max(keys, default=2) + 3), shape,
                         endpoint=True).astype(src)
        flat = x.reshape(-1)
        if flat.size > 2:
            flat[:2] = [info.min, info.max]
        samples.append(x)
    args = {"keys": keys, "values": values, "default_value": float(rng.choice([0.0, -7.25])),
            "dtype": dali_types.to_dali_type(out)}
    return samples, args


def lookup_expected(samples, args):
    return run_op(lambda fn, x: fn.lookup_table(x, **args), [samples])[0]


def lookup_kernel(backend, samples, args):
    """The kernel's output samples, run by `backend`, with the table the CPU operator builds
    (`LookupTable.setup` and its per-type table)."""
    op = _lookup_table.LookupTable.__new__(_lookup_table.LookupTable)
    op.args = dict(args)
    op.error = lambda msg, exc: exc(msg)
    op.setup()
    src = _pack(samples, samples[0].dtype)
    launch = _lookup_table_gpu.launch(src.size, src.dtype, op._table_for(src.dtype),
                                      op.default)
    out = np.zeros(src.size, launch.table.dtype)
    got = backend(LOOKUP_CU, launch, [src, out, launch.count, launch.table, launch.lo,
                                      launch.size, launch.default])
    return _unpack(got[1].view(op.dtype), [s.shape for s in samples])
