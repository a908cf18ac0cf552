"""Random cases of rank_filter.cu (fn.experimental.median_blur, dilate, erode: GPU only, no CPU
operator to compare with), shared by test_emulation_rank_filter.py and test_cupy_rank_filter.py:
a NumPy reference of CV-CUDA's MedianBlur and Morphology, and the kernels run by a backend
(`gpu_cases.emulated` or `gpu_cases.on_device`) with the launches `_rank_filter_gpu` builds.
"""

from __future__ import annotations

import numpy as np
from gpu_cases import _pack, _unpack

from dali.ops.filters import _convolution
from dali.ops.filters import _rank_filter_gpu as _rank

LAYOUTS = ("HW", "HWC", "FHWC", "CHW", "FCHW")
DTYPES = (np.uint8, np.uint16, np.float32)
PAD_MODES = {"replicate": "edge", "reflect": "symmetric", "reflect_101": "reflect",
             "wrap": "wrap"}


def axes_of(layout):
    start = 1 if layout[0] == "F" else 0
    return _convolution.Axes(start == 1, layout[start] == "C", layout[-1] == "C", 2)


def planes(x, layout):
    """The sample's channel planes as (frames * channels-first planes, H, W, C) views."""
    if layout == "HW":
        return x[None, :, :, None]
    if layout == "HWC":
        return x[None]
    if layout == "FHWC":
        return x
    if layout == "CHW":
        return x[:, :, :, None]
    return x.reshape(x.shape[0] * x.shape[1], *x.shape[2:])[..., None]        # FCHW


def random_sample(rng, layout, dtype, channels=None, empty=False):
    shape = []
    for a in layout:
        if a == "C":
            shape.append(channels or int(rng.choice([1, 2, 3, 4])))
        elif a == "F":
            shape.append(int(rng.integers(1, 4)))
        else:
            shape.append(0 if empty and a == "H" else int(rng.integers(1, 14)))
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(shape) * 50).astype(dtype)
    hi = 256 if dtype == np.uint8 else 65536
    # few distinct values: ties in the windows
    return (rng.integers(0, 6, shape) * (hi // 6)).astype(dtype)


def case(seed):
    """(samples, layout) of a random batch of several layouts and types; an empty sample
    sometimes."""
    rng = np.random.default_rng(seed)
    layout = LAYOUTS[seed % len(LAYOUTS)]
    dtype = DTYPES[seed % len(DTYPES)]
    n = int(rng.integers(1, 5))
    samples = [random_sample(rng, layout, dtype, empty=(k == 1 and seed % 4 == 0))
               for k in range(n)]
    return samples, layout


def geometry(samples, layout):
    shapes = np.array([s.shape for s in samples], np.int64).reshape(len(samples), len(layout))
    return _convolution.geometry(shapes, axes_of(layout))


# ---- references --------------------------------------------------------------------------
def _windows(plane, kw, kh, ax, ay, mode, value):
    """(H, W, C, kh, kw) windows of an (H, W, C) plane padded by numpy's `mode`."""
    widths = ((ay, kh - 1 - ay), (ax, kw - 1 - ax), (0, 0))
    if mode == "constant":
        padded = np.pad(plane, widths, "constant", constant_values=value)
    else:
        padded = np.pad(plane, widths, mode)
    w = np.lib.stride_tricks.sliding_window_view(padded, (kh, kw), axis=(0, 1))
    return w


def median_reference(samples, layout, windows):
    """CV-CUDA's MedianBlur: the sorted window's element kw * kh // 2, edges replicated."""
    out, part = [], 0
    for x in samples:
        y = np.empty_like(x)
        src, dst = planes(x, layout), planes(y, layout)
        for p in range(src.shape[0]):
            kw, kh = (int(v) for v in windows[part])
            part += 1
            if src[p].size == 0:
                continue
            w = _windows(src[p], kw, kh, kw // 2, kh // 2, "edge", 0)
            flat = np.sort(w.reshape(*w.shape[:3], -1), axis=-1)
            dst[p] = flat[..., (kw * kh) // 2]
        out.append(y)
    return out


def morphology_reference(samples, layout, dilate, masks, anchors, iterations, border):
    """CV-CUDA's Morphology: `iterations` times the maximum (minimum) of the window, from the
    type's numeric_limits min (max), which is also the constant border's value."""
    out, part = [], 0
    for x in samples:
        y = x.copy()
        dst = planes(y, layout)
        for p in range(dst.shape[0]):
            (kw, kh), (ax, ay) = masks[part], anchors[part]
            part += 1
            if dst[p].size == 0:
                continue
            ident = _rank.identity(x.dtype, dilate)
            for _ in range(iterations):
                w = _windows(dst[p].copy(), int(kw), int(kh), int(ax), int(ay),
                             PAD_MODES.get(border, "constant"), ident)
                red = w.max(axis=(-2, -1)) if dilate else w.min(axis=(-2, -1))
                dst[p] = np.maximum(red, ident) if dilate else np.minimum(red, ident)
        out.append(y)
    return out


# ---- kernels -----------------------------------------------------------------------------
def run_program(backend, program, samples):
    """The output samples of a `_gpu_program.Program` run by `backend` (the same shapes and
    type as the input)."""
    dtype = samples[0].dtype
    src = _pack(samples, dtype)
    buffers = {"src": src, "dst": np.zeros_like(src)}
    buffers.update({k: np.zeros(v, np.uint8) for k, v in program.temps.items()})
    for launch in program.launches:
        args = [buffers[a] if isinstance(a, str) else a for a in launch.args]
        done = backend(launch.module, launch, args)
        for a, value in zip(launch.args, done, strict=True):
            if isinstance(a, str):
                buffers[a] = value
    return _unpack(buffers["dst"], [s.shape for s in samples])


def median_kernel(backend, samples, layout, windows):
    program = _rank.median(geometry(samples, layout), windows, samples[0].dtype)
    return run_program(backend, program, samples)


def morphology_kernel(backend, samples, layout, dilate, masks, anchors, iterations, border):
    nbytes = sum(s.nbytes for s in samples)
    program = _rank.morphology(dilate, geometry(samples, layout), masks, anchors, iterations,
                               border, samples[0].dtype, dst_nbytes=nbytes)
    return run_program(backend, program, samples)


def median_case(seed):
    samples, layout = case(seed)
    rng = np.random.default_rng(seed + 100)
    parts = int(geometry(samples, layout)[:, 0].sum())
    windows = rng.choice([1, 3, 5, 7], (parts, 2))
    return samples, layout, windows


def morphology_case(seed):
    samples, layout = case(seed)
    rng = np.random.default_rng(seed + 200)
    parts = int(geometry(samples, layout)[:, 0].sum())
    masks = rng.integers(1, 6, (parts, 2))
    anchors = np.array([[int(rng.integers(0, m)) for m in row] for row in masks],
                       np.int64).reshape(-1, 2)
    border = ("constant", "replicate", "reflect", "reflect_101", "wrap")[seed % 5]
    iterations = int(rng.integers(0, 4))
    return samples, layout, bool(seed % 2), masks, anchors, iterations, border
