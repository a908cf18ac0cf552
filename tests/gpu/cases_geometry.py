"""Random cases of the geometry and tensor-layout GPU kernels (slice.cu: crop, slice, pad,
transpose), shared by the emulated (test_emulation_*.py) and the device (test_cupy_*.py)
tests.

Each case runs the CPU operator through a synchronous pipeline for the expected output; its
`run_cpu` is wrapped to record the launch the operator's host helper (`_slice_gpu.for_*`)
builds from the very plan and workspace the CPU path got, so the kernel is run by a backend
(`gpu_cases.emulated` or `gpu_cases.on_device`) on exactly what the CPU operator saw.
"""

from __future__ import annotations

import contextlib

import numpy as np
from gpu_cases import _pack, _random, _unpack
from pipeline_utils import run_op

from dali import types as dali_types
from dali.ops.geometry import _slice_gpu
from dali.ops.geometry import crop as _crop
from dali.ops.geometry import pad as _pad
from dali.ops.geometry import slice as _slice
from dali.ops.tensor import transpose as _transpose

SLICE_CU = _slice_gpu.__file__.replace("_slice_gpu.py", "slice.cu")
DTYPES = (np.uint8, np.int16, np.float32, np.int32, np.float16, np.int64, np.float64, np.int8,
          np.uint16, np.uint32, np.uint64)


@contextlib.contextmanager
def recorded(op_class, make_launch):
    """Within: every `op_class.run_cpu` call records `make_launch(op, ws, plan)` in the
    yielded list."""
    calls = []
    run_cpu = op_class.run_cpu

    def recording(self, ws, plan):
        calls.append(make_launch(self, ws, plan))
        return run_cpu(self, ws, plan)

    op_class.run_cpu = recording
    try:
        yield calls
    finally:
        op_class.run_cpu = run_cpu


def run_kernel(backend, samples, launch, out_shapes, out_dtype):
    """Output samples of `launch` of slice.cu on packed `samples`, run by `backend`."""
    in_dtype, out_dtype = samples[0].dtype, np.dtype(out_dtype)
    src = _pack(samples, in_dtype)
    dst = np.zeros(sum(int(np.prod(s, dtype=np.int64)) for s in out_shapes), out_dtype)
    if in_dtype == out_dtype:
        unsigned = np.dtype(f"u{in_dtype.itemsize}")
        src, dst = src.view(unsigned), dst.view(unsigned)
    out = backend(SLICE_CU, launch, [src, dst, launch.samples, launch.fill])
    return _unpack(np.asarray(out[1]).view(out_dtype), out_shapes)


def compare(backend, op_class, make_launch, build, inputs, layouts=None):
    """(kernel outputs, CPU outputs) of `build(fn, *nodes)` on `inputs`, the kernel's launch
    recorded from `op_class`'s run_cpu."""
    samples = inputs[0]
    with recorded(op_class, make_launch) as calls:
        # synchronous: no iteration runs ahead in the background, into a later test
        expected = run_op(build, inputs, layouts=layouts, exec_async=False,
                          exec_pipelined=False)[0]
    assert len(calls) == 1
    launch = calls[0]
    got = run_kernel(backend, samples, launch, [e.shape for e in expected],
                     expected[0].dtype if expected else samples[0].dtype)
    return got, expected


def _batch(rng, layout, dtype, lo=1, hi=9, empty=False):
    n = int(rng.integers(1, 5))
    samples = []
    for _ in range(n):
        shape = [int(rng.integers(lo, hi)) for _ in layout]
        if "C" in layout:
            shape[layout.index("C")] = int(rng.choice([1, 3, 4]))
        if empty and rng.integers(0, 4) == 0:
            shape[int(rng.integers(0, len(shape)))] = 0
        samples.append(_random(rng, shape, dtype))
    return samples


def _maybe_convert(rng, seed, dtype):
    """An output type for crop/slice: the input's, or uint8, float16 or float."""
    if seed % 3:
        return None
    return np.dtype(rng.choice([np.uint8, np.float16, np.float32]))


# ---- crop --------------------------------------------------------------------------------
CROP_LAYOUTS = ("HWC", "CHW", "DHWC", "FHWC", "CDHW", "FCHW", "FDHWC")


def crop_case(seed):
    """(samples, layout, kwargs, per-sample positions): windows smaller or larger than the
    input, each out-of-bounds policy, one or per-channel fill values, conversion."""
    rng = np.random.default_rng(seed)
    layout = CROP_LAYOUTS[seed % len(CROP_LAYOUTS)]
    dtype = np.dtype(DTYPES[seed % len(DTYPES)])
    samples = _batch(rng, layout, dtype, 2, 10)
    policy = ("pad", "trim_to_shape", "error")[seed % 3]
    limit = 2 if policy == "error" else 14
    sizes = [int(rng.integers(1, limit)) for _ in range(3)]
    kwargs = {"out_of_bounds_policy": policy}
    if policy == "error":
        small = np.min([s.shape for s in samples], axis=0)
        sizes = [1, 1, 1]
        kwargs["crop_h"] = float(small[layout.index("H")])
        kwargs["crop_w"] = float(rng.integers(1, small[layout.index("W")] + 1))
    elif "D" in layout or "F" in layout:
        kwargs["crop"] = [float(v) for v in sizes]
    else:
        kwargs["crop"] = [float(v) for v in sizes[:2]]
    if "C" in layout and len({s.shape[layout.index("C")] for s in samples}) == 1 \
            and rng.integers(0, 2):
        c = samples[0].shape[layout.index("C")]
        kwargs["fill_values"] = [float(v) for v in rng.uniform(-5, 300, c)]
    else:
        kwargs["fill_values"] = [float(rng.uniform(-5, 300))]
    out = _maybe_convert(rng, seed, dtype)
    if out is not None:
        kwargs["dtype"] = dali_types.to_dali_type(out)
    n = len(samples)
    positions = [rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], n).astype(np.float32)
                 for _ in range(3)]
    return samples, layout, kwargs, positions


def crop_compare(backend, samples, layout, kwargs, positions):
    def build(fn, x, px, py, pz):
        return fn.crop(x, crop_pos_x=px, crop_pos_y=py, crop_pos_z=pz, **kwargs)

    def make(op, ws, plan):
        return _slice_gpu.for_crop(ws, plan, op.args["fill_values"])

    scalars = [[np.array(v, np.float32) for v in p] for p in positions]
    return compare(backend, _crop.Crop, make, build, [samples, *scalars],
                   layouts=[layout, None, None, None])


# ---- slice -------------------------------------------------------------------------------
SLICE_POLICIES = ("pad", "trim_to_shape", "edge", "reflect", "reflect_101", "wrap", "error")


def slice_case(seed):
    """(samples, layout, kwargs, inputs): positional anchor/shape inputs (normalized or not)
    or named arguments (absolute or relative, by axis names or indices), every border policy,
    one or per-channel fill values, conversion (with DALI's plain casts where it pads with
    per-channel values)."""
    rng = np.random.default_rng(seed)
    layout = ("HWC", "CHW", "DHWC", "HW", "FHWC")[seed % 5]
    dtype = np.dtype(DTYPES[seed % len(DTYPES)])
    samples = _batch(rng, layout, dtype, 1, 9, empty=seed % 7 == 0)
    policy = SLICE_POLICIES[seed % len(SLICE_POLICIES)]
    if policy in ("edge", "reflect", "reflect_101", "wrap"):
        samples = [s if s.size else _random(rng, np.maximum(s.shape, 1), dtype)
                   for s in samples]
    kwargs = {"out_of_bounds_policy": policy}
    names = "".join(rng.permutation([c for c in layout if c != "C"])[:int(rng.integers(1, 3))])
    k = len(names)
    n = len(samples)
    inputs, extra_layouts = [], []
    mode = seed % 4 if policy != "error" else 3
    if mode == 0:              # positional, normalized floats
        kwargs["axis_names"] = names
        inputs = [[rng.uniform(-0.5, 1.2, k).astype(np.float32) for _ in range(n)],
                  [rng.uniform(0.0, 1.5, k).astype(np.float32) for _ in range(n)]]
    elif mode == 1:            # positional, absolute integers, by axis indices
        kwargs["axes"] = [layout.index(c) for c in names]
        inputs = [[rng.integers(-4, 8, k).astype(np.int32) for _ in range(n)],
                  [rng.integers(0, 12, k).astype(np.int32) for _ in range(n)]]
    elif mode == 2:            # named, relative
        kwargs["axis_names"] = names
        kwargs["rel_start"] = [float(v) for v in rng.uniform(-0.3, 0.8, k)]
        kwargs["rel_shape"] = [float(v) for v in rng.uniform(0.1, 1.3, k)]
    else:                      # named, absolute, inside every sample
        kwargs["axis_names"] = names
        small = np.min([s.shape for s in samples], axis=0)
        start = [int(rng.integers(0, small[layout.index(c)] + 1)) for c in names]
        kwargs["start"] = start
        kwargs["end"] = [int(rng.integers(a, small[layout.index(c)] + 1))
                         for a, c in zip(start, names, strict=True)]
    channels = {s.shape[layout.index("C")] for s in samples} if "C" in layout else set()
    if len(channels) == 1 and rng.integers(0, 2):
        kwargs["fill_values"] = [float(v) for v in rng.uniform(-300, 300, channels.pop())]
    else:
        kwargs["fill_values"] = [float(rng.uniform(-300, 300))]
    out = _maybe_convert(rng, seed, dtype)
    if out is not None:
        kwargs["dtype"] = dali_types.to_dali_type(out)
    extra_layouts = [None] * len(inputs)
    return samples, layout, kwargs, inputs, extra_layouts


def slice_compare(backend, samples, layout, kwargs, inputs, extra_layouts):
    def build(fn, x, *rest):
        return fn.slice(x, *rest, **kwargs)

    def make(op, ws, plan):
        policy = _slice._POLICIES[op.args["out_of_bounds_policy"]]
        return _slice_gpu.for_slice(ws, plan, _slice_gpu.CONSTANT if policy is None else policy)

    return compare(backend, _slice.Slice, make, build, [samples, *inputs],
                   layouts=[layout, *extra_layouts])


# ---- pad ---------------------------------------------------------------------------------
def pad_case(seed):
    """(samples, layout, kwargs): every axis or some (by index or name), to the batch's
    largest extent or a given shape, aligned, with a fill value converted to the type."""
    rng = np.random.default_rng(seed)
    layout = ("HWC", "CHW", "HW", "DHWC", "W")[seed % 5]
    dtype = np.dtype((np.uint8, np.int16, np.float32, np.int32, np.float16, np.int64,
                      np.float64, np.bool_)[seed % 8])
    samples = _batch(rng, layout, np.uint8 if dtype == np.bool_ else dtype, 0, 7)
    if dtype == np.bool_:
        samples = [s % 2 == 1 for s in samples]
    kwargs = {"fill_value": float(rng.choice([0.0, -1.5, 7.25, 300.0, 1.0]))}
    axes = sorted(rng.choice(len(layout), int(rng.integers(1, len(layout) + 1)), False))
    choice = seed % 3
    if choice == 1:
        kwargs["axes"] = [int(a) for a in axes]
    elif choice == 2:
        kwargs["axis_names"] = "".join(layout[a] for a in axes)
    k = len(axes) if choice else len(layout)
    if rng.integers(0, 2):
        kwargs["shape"] = [int(v) for v in rng.integers(-1, 10, k)]
    if rng.integers(0, 2):
        kwargs["align"] = [int(v) for v in rng.integers(1, 5, rng.choice([1, k]))]
    return samples, layout, kwargs


def pad_compare(backend, samples, layout, kwargs):
    def build(fn, x):
        return fn.pad(x, **kwargs)

    return compare(backend, _pad.Pad, lambda op, ws, plan: _slice_gpu.for_pad(ws, plan),
                   build, [samples], layouts=[layout])


# ---- transpose ---------------------------------------------------------------------------
def transpose_case(seed):
    """(samples, kwargs): 1 to 6 dimensions, any permutation (default: reversed), every
    element size, empty samples."""
    rng = np.random.default_rng(seed)
    ndim = 1 + seed % 6
    dtype = np.dtype((np.uint8, np.int16, np.float32, np.int64, np.bool_, np.float16)[seed % 6])
    n = int(rng.integers(1, 5))
    samples = []
    for i in range(n):          # the first sample not empty (else the executor runs nothing)
        shape = [int(rng.integers(0 if seed % 5 == 0 and i else 1, 7)) for _ in range(ndim)]
        s = _random(rng, shape, np.uint8 if dtype == np.bool_ else dtype)
        samples.append(s % 2 == 1 if dtype == np.bool_ else s)
    kwargs = {} if seed % 4 == 0 else {"perm": [int(p) for p in rng.permutation(ndim)]}
    return samples, kwargs


def transpose_compare(backend, samples, kwargs):
    def build(fn, x):
        return fn.transpose(x, **kwargs)

    return compare(backend, _transpose.Transpose,
                   lambda op, ws, plan: _slice_gpu.for_transpose(ws, plan), build, [samples])


EDGE_VALUES = (0.0, -0.0, 0.5, -0.5, 254.9, 255.0, 255.5, 256.0, -1.0, 65504.0, 65519.0,
               65520.0, 1e30, -1e30, 2.0**31, -2.0**31 - 1, 3.4e38, float("inf"),
               float("-inf"), float("nan"))


def slice_edges_case(in_dtype, per_channel):
    """(samples, layout, kwargs, inputs, extra_layouts) of a padded HWC slice of edge values
    of the conversions to uint8, float16 and float (saturation, NaN, infinities; DALI's plain
    casts where the fill values are per channel)."""
    values = np.array(EDGE_VALUES, np.float64)
    if np.dtype(in_dtype).kind in "iu":
        info = np.iinfo(in_dtype)
        values = np.array([info.min, info.max, 0, 1, 255, 256, -1 % (info.max + 1), 65535,
                           65536, 70000], np.float64)
        values = np.clip(values, info.min, info.max)
    with np.errstate(over="ignore", invalid="ignore"):
        sample = np.resize(values, (4, values.size, 3)).astype(in_dtype)
    kwargs = {"out_of_bounds_policy": "pad", "axis_names": "WH", "start": [-2, -1],
              "end": [values.size + 1, 6],
              "fill_values": [7.9, -3.2, 300.5] if per_channel else [-1.5]}
    return [sample], "HWC", kwargs, [], []


# ---- cat, stack ----------------------------------------------------------------------------
def join_case(seed, stack):
    """(inputs, layout, kwargs): 1 to 4 inputs of 1 to 4 dimensions joined along any axis (by
    index, negative too, or by name), every element size, empty parts."""
    rng = np.random.default_rng(seed)
    ndim = 1 + seed % 4
    layout = "DHWC"[4 - ndim:]
    dtype = np.dtype((np.uint8, np.int16, np.float32, np.int64, np.bool_, np.float16)[seed % 6])
    k = int(rng.integers(1, 5))
    n = int(rng.integers(1, 5))
    axis = int(rng.integers(0, ndim + 1 if stack else ndim))
    base = [[int(rng.integers(1, 5)) for _ in range(ndim)] for _ in range(n)]
    inputs = []
    for _ in range(k):
        samples = []
        for i in range(n):
            shape = list(base[i])
            if not stack:
                shape[axis] = int(rng.integers(0 if seed % 3 == 0 else 1, 5))
            s = _random(rng, shape, np.uint8 if dtype == np.bool_ else dtype)
            samples.append(s % 2 == 1 if dtype == np.bool_ else s)
        inputs.append(samples)
    negative = seed % 2 and (axis or not stack)     # stack's range stops at -ndim
    kwargs = {"axis": axis - (ndim + stack) if negative else axis}
    if not stack and seed % 5 == 1:
        kwargs = {"axis_name": layout[axis]}
    elif stack and seed % 5 == 1:
        kwargs["axis_name"] = "X"
    return inputs, layout, kwargs


def join_compare(backend, stack, inputs, layout, kwargs):
    """(kernel outputs, CPU outputs) of fn.cat (fn.stack) of `inputs`, one launch per input."""
    from dali.ops.tensor import _cat_gpu
    from dali.ops.tensor import cat as _cat
    from dali.ops.tensor import stack as _stack

    def build(fn, *xs):
        return (fn.stack if stack else fn.cat)(*xs, **kwargs)

    with recorded(_stack.Stack if stack else _cat.Cat,
                  lambda op, ws, plan: _cat_gpu.for_join(plan)) as calls:
        expected = run_op(build, inputs, layouts=[layout] * len(inputs), exec_async=False,
                          exec_pipelined=False)[0]
    assert len(calls) == 1
    dtype = inputs[0][0].dtype
    dst = np.zeros(sum(e.size for e in expected) * dtype.itemsize, np.uint8)
    for launch in calls[0]:
        word = np.dtype(f"u{launch.kernel.rsplit('_', 1)[1]}")
        src = _pack(inputs[launch.input], dtype).view(np.uint8)
        src = np.concatenate([src, np.zeros(-src.size % 8, np.uint8)]).view(word)
        dst = np.asarray(backend(JOIN_CU, launch, [src, dst.view(word), launch.samples])[1])
        dst = dst.view(np.uint8)
    return _unpack(dst.view(dtype), [e.shape for e in expected]), expected


JOIN_CU = SLICE_CU.replace("geometry/slice.cu", "tensor/cat.cu")


# ---- warp_affine, rotate -----------------------------------------------------------------
WARP_TYPES = ((np.uint8, np.uint8), (np.uint8, np.float32), (np.int16, np.int16),
              (np.int16, np.float32), (np.int32, np.int32), (np.int32, np.float32),
              (np.float32, np.uint8), (np.float32, np.int16), (np.float32, np.int32),
              (np.float32, np.float32))


def _warp_batch(rng, seed, sequences):
    """Random HWC (FHWC) samples of a type pair of `WARP_TYPES` and the common kwargs."""
    in_dtype, out_dtype = (np.dtype(t) for t in WARP_TYPES[seed % len(WARP_TYPES)])
    samples = []
    channels = int(rng.choice([1, 3, 4]))
    for _ in range(int(rng.integers(1, 4))):
        shape = [int(rng.integers(1, 4))] if sequences else []
        shape += [int(rng.integers(1, 14)), int(rng.integers(1, 14)), channels]
        if in_dtype.kind == "f":
            x = (rng.standard_normal(shape) * 200).astype(np.float32)
            if seed % 5 == 0:
                x.flat[::7] = np.float32(rng.choice([np.nan, np.inf, -np.inf, 3e9, -3e9]))
            samples.append(x)
        else:
            samples.append(_random(rng, shape, in_dtype))
    kwargs = {"interp_type": dali_types.INTERP_NN if seed % 2 else dali_types.INTERP_LINEAR}
    if out_dtype != in_dtype:
        kwargs["dtype"] = dali_types.to_dali_type(out_dtype)
    if rng.integers(0, 2):
        kwargs["fill_value"] = float(rng.choice([0.0, 42.0, -7.5, 300.0, 1e10]))
    if rng.integers(0, 3) == 0:
        kwargs["size"] = [float(rng.integers(1, 16)), float(rng.integers(1, 16))]
    return samples, kwargs


def _matrix(rng):
    """A 2x3 matrix: a rotation (45 degrees, a quarter turn or random) with scale and shift,
    or one that maps everything far outside."""
    kind = rng.integers(0, 4)
    angle = (np.pi / 4, np.pi / 2, rng.uniform(-np.pi, np.pi), 0.3)[kind]
    scale = rng.choice([1.0, 0.5, 2.0, 1.3])
    c, s = np.cos(angle) * scale, np.sin(angle) * scale
    shift = rng.uniform(-6, 6, 2) if kind != 3 else np.array([1e6, -1e6])
    return np.array([[c, -s, shift[0]], [s, c, shift[1]]], np.float32)


def warp_case(seed):
    """(samples, layout, kwargs, inputs, build): fn.warp_affine with the matrix as a constant,
    a per-sample argument input, a second input or a per-frame argument (sequences), inverse
    or not, each interpolation, fill value or clamped edge, output size and type."""
    rng = np.random.default_rng(seed)
    mode = ("constant", "argument", "input", "per_frame")[seed % 4]
    samples, kwargs = _warp_batch(rng, seed, sequences=mode == "per_frame" or seed % 3 == 0)
    layout = "FHWC" if samples[0].ndim == 4 else "HWC"
    if rng.integers(0, 3) == 0:
        kwargs["inverse_map"] = False
    inputs = []
    if mode == "constant":
        kwargs["matrix"] = [float(v) for v in _matrix(rng).ravel()]
    elif mode == "per_frame":
        inputs = [[np.stack([_matrix(rng) for _ in range(len(s))]) for s in samples]]
    else:
        inputs = [[_matrix(rng) for _ in samples]]

    def build(fn, x, *rest):
        if mode == "argument":
            return fn.warp_affine(x, matrix=rest[0], **kwargs)
        if mode == "per_frame":
            return fn.warp_affine(x, matrix=fn.per_frame(rest[0]), **kwargs)
        return fn.warp_affine(x, *rest, **kwargs)

    return samples, layout, inputs, build


def rotate_case(seed):
    """(samples, layout, inputs, build): fn.rotate with a constant, per-sample or per-frame
    angle (sequences), keep_size or size, each interpolation, fill value or edge, type."""
    rng = np.random.default_rng(seed)
    mode = ("constant", "argument", "per_frame")[seed % 3]
    samples, kwargs = _warp_batch(rng, seed, sequences=mode == "per_frame" or seed % 4 == 1)
    layout = "FHWC" if samples[0].ndim == 4 else "HWC"
    if "size" not in kwargs and rng.integers(0, 2):
        kwargs["keep_size"] = True
    angles = [45.0, 90.0, -30.0, 180.0, 12.5, -135.0]
    inputs = []
    if mode == "constant":
        kwargs["angle"] = float(rng.choice(angles + [float(rng.uniform(-360, 360))]))
    elif mode == "argument":
        inputs = [[np.float32(rng.choice(angles)) if rng.integers(0, 2) else
                   np.float32(rng.uniform(-360, 360)) for _ in samples]]
    else:
        inputs = [[rng.uniform(-200, 200, len(s)).astype(np.float32) for s in samples]]

    def build(fn, x, *rest):
        if mode == "argument":
            return fn.rotate(x, angle=rest[0], **kwargs)
        if mode == "per_frame":
            return fn.rotate(x, angle=fn.per_frame(rest[0]), **kwargs)
        return fn.rotate(x, **kwargs)

    return samples, layout, inputs, build


def warp_compare(backend, op_class, samples, layout, inputs, build):
    """(kernel outputs, CPU outputs) of a warp case of `op_class` (WarpAffine or Rotate)."""
    from dali.ops.geometry import _warp_affine_gpu

    with recorded(op_class, lambda op, ws, plan: _warp_affine_gpu.for_warp(ws, plan)) as calls:
        expected = run_op(build, [samples, *inputs], layouts=[layout] + [None] * len(inputs),
                          exec_async=False, exec_pipelined=False)[0]
    assert len(calls) == 1
    launch = calls[0]
    out_dtype = expected[0].dtype
    dst = np.zeros(sum(e.size for e in expected), out_dtype)
    out = backend(WARP_CU, launch, [_pack(samples, samples[0].dtype), dst, launch.images,
                                    launch.matrices, launch.interp, launch.use_fill,
                                    launch.fill])
    return _unpack(np.asarray(out[1]), [e.shape for e in expected]), expected


WARP_CU = SLICE_CU.replace("slice.cu", "warp_affine.cu")


# ---- erase -------------------------------------------------------------------------------
def erase_case(seed):
    """(samples, layout, kwargs, inputs, build): 0 to 3 regions per sample given as constants
    or per-sample argument inputs, in pixels or normalized, centred or not, inside, across or
    outside the sample, along named, indexed or the default axes; one or per-channel fill
    values (argument inputs too)."""
    rng = np.random.default_rng(seed)
    layout = ("HWC", "CHW", "FHWC", "DHWC", "HW")[seed % 5]
    dtype = np.dtype(DTYPES[seed % len(DTYPES)])
    samples = _batch(rng, layout, dtype, 1, 12)
    if "C" in layout:           # one channel count, so that per-channel fill values fit all
        c = layout.index("C")
        samples = [np.ascontiguousarray(np.resize(s, s.shape[:c] + (3,) + s.shape[c + 1:]))
                   for s in samples]
    kwargs = {}
    choice = seed % 3
    if choice == 0:
        names = "HW" if rng.integers(0, 2) else "WH"
        kwargs["axis_names"] = names
    elif choice == 1:
        axes = [layout.index(c) for c in "HW"]
        kwargs["axes"] = axes
        names = "HW"
    else:
        names = [c for c in layout if c != "C"]       # DALI's default: all but C
    k = len(names)
    normalized = bool(rng.integers(0, 2))
    if normalized:
        kwargs["normalized"] = True
    if rng.integers(0, 3) == 0:
        kwargs["centered_anchor"] = True

    def regions(count):
        if normalized:
            return (rng.uniform(-0.3, 1.0, count * k).astype(np.float32),
                    rng.uniform(0.0, 0.8, count * k).astype(np.float32))
        return (rng.uniform(-4, 12, count * k).astype(np.float32),
                rng.uniform(0, 9, count * k).astype(np.float32))

    inputs = []
    per_sample = seed % 2 == 0
    if per_sample:
        pairs = [regions(int(rng.integers(0, 4))) for _ in samples]
        inputs = [[a for a, _ in pairs], [s for _, s in pairs]]
    else:
        anchor, shape = regions(int(rng.integers(1, 4)))
        kwargs["anchor"] = [float(v) for v in anchor]
        kwargs["shape"] = [float(v) for v in shape]
    if "C" in layout and seed % 4 != 3:
        kwargs["fill_value"] = [float(v) for v in rng.uniform(-300, 300, 3)]
    else:
        kwargs["fill_value"] = [float(rng.uniform(-300, 300))]

    def build(fn, x, *rest):
        if per_sample:
            return fn.erase(x, anchor=rest[0], shape=rest[1], **kwargs)
        return fn.erase(x, **kwargs)

    return samples, layout, inputs, build


def erase_compare(backend, samples, layout, inputs, build):
    """(kernel outputs, CPU outputs) of an erase case."""
    from dali.ops.image import _erase_gpu
    from dali.ops.image import erase as _erase

    with recorded(_erase.Erase, lambda op, ws, plan: _erase_gpu.for_erase(ws, plan)) as calls:
        expected = run_op(build, [samples, *inputs], layouts=[layout] + [None] * len(inputs),
                          exec_async=False, exec_pipelined=False)[0]
    assert len(calls) == 1
    launch = calls[0]
    dtype = samples[0].dtype
    word = np.dtype(f"u{dtype.itemsize}")
    src = _pack(samples, dtype).view(word)
    out = backend(ERASE_CU, launch, [src, np.zeros_like(src), launch.samples, launch.boxes,
                                     launch.fill])
    return _unpack(np.asarray(out[1]).view(dtype), [e.shape for e in expected]), expected


ERASE_CU = SLICE_CU.replace("geometry/slice.cu", "image/erase.cu")
