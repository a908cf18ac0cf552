"""What the tests of fn.reductions.* share: a NumPy reference, random batches, and checks of an
operation against the reference and against real DALI."""

from __future__ import annotations

import numpy as np
import pytest
from layout_utils import run_layouts

TYPES = (np.uint8, np.int8, np.uint16, np.int16, np.int32, np.uint32, np.int64, np.uint64,
         np.float32)
CENTRED = ("variance", "std_dev")


def reference(x, op, axes, keep_dims, mean=None, ddof=0, dtype=None):
    """NumPy's `op` of sample `x` over `axes` (float64 arithmetic, DALI's output type)."""
    axes = tuple(range(x.ndim)) if axes is None else tuple(a % x.ndim for a in axes)
    x64 = x.astype(np.float64)
    count = int(np.prod([x.shape[a] for a in axes]))
    if op in ("min", "max"):
        if count == 0:
            info = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
            shape = np.sum(x64, axis=axes, keepdims=keep_dims).shape
            return np.full(shape, info.max if op == "min" else info.min, x.dtype)
        return getattr(np, op)(x, axis=axes, keepdims=keep_dims)
    if op == "sum":
        default = x.dtype if x.dtype.kind == "f" else (np.int64 if x.dtype.kind == "i"
                                                       else np.uint64)
        out = dtype or default
        if np.dtype(out).kind in "iu":
            return x.astype(np.uint64).sum(axis=axes, keepdims=keep_dims).astype(out)
        return x64.sum(axis=axes, keepdims=keep_dims).astype(out)
    with np.errstate(invalid="ignore", divide="ignore"):
        if op == "mean":
            return (x64.sum(axis=axes, keepdims=keep_dims) / count).astype(np.float32)
        if op in ("mean_square", "rms"):
            ms = (x64 ** 2).sum(axis=axes, keepdims=keep_dims) / count
            return (ms if op == "mean_square" else np.sqrt(ms)).astype(np.float32)
        m = np.asarray(mean, np.float64)
        if m.size > 1:
            m = m.reshape(x64.sum(axis=axes, keepdims=True).shape)
        var = ((x64 - m) ** 2).sum(axis=axes, keepdims=keep_dims) / (count - ddof)
        return (var if op == "variance" else np.sqrt(var)).astype(np.float32)


def random_batch(rng, ndim, dtype, n=3, high=100):
    shapes = [tuple(int(e) for e in rng.integers(1, 6, ndim)) for _ in range(n)]
    lo = 0 if np.dtype(dtype).kind in "uf" else -high
    return [rng.uniform(lo, high, s).astype(dtype) for s in shapes]


def build(op, kwargs, mean=None):
    """build(fn, x) of fn.reductions.<op>(x, **kwargs), with the mean of x over the same axes
    (or the constant `mean`) as second input for variance/std_dev."""
    def graph(fn, x):
        f = getattr(fn.reductions, op)
        if op not in CENTRED:
            return f(x, **kwargs)
        axes = {k: v for k, v in kwargs.items() if k in ("axes", "axis_names")}
        m = fn.reductions.mean(x, **axes) if mean is None else mean
        return f(x, m, **kwargs)
    return graph


def check_random(op, rng, types=TYPES):
    """op over random shapes, axes and keep_dims for every type, against `reference`."""
    for dtype in types:
        for ndim in (0, 1, 2, 3):
            axes_choices = [None, []] + [[int(a)] for a in range(-ndim, ndim)]
            if ndim > 1:
                axes_choices.append(sorted(int(a) for a in rng.choice(ndim, 2, replace=False)))
            for axes in axes_choices:
                keep = bool(rng.integers(0, 2))
                kwargs = {"keep_dims": keep} | ({} if axes is None else {"axes": axes})
                if op in CENTRED:
                    kwargs["ddof"] = int(rng.integers(0, 2))
                batch = random_batch(rng, ndim, dtype)
                out, _ = run_layouts(build(op, kwargs), [batch])
                for x, o in zip(batch, out, strict=True):
                    mean = None
                    if op in CENTRED:
                        mean = reference(x, "mean", axes, False)
                    want = reference(x, op, axes, keep, mean, kwargs.get("ddof", 0))
                    assert o.dtype == want.dtype and o.shape == want.shape, (dtype, axes, keep)
                    np.testing.assert_allclose(o, want, rtol=2e-6, atol=1e-5)


def check_dali(op, kwargs, batch, layout=None, mean=None):
    """op on `batch` equals real DALI's result (values within float rounding, types, shapes
    and layout exactly)."""
    pytest.importorskip("nvidia.dali")
    ours = run_layouts(build(op, kwargs, mean), [batch], [layout])
    theirs = run_layouts(build(op, kwargs, mean), [batch], [layout], real=True)
    assert ours[1] == theirs[1]
    for o, t in zip(ours[0], theirs[0], strict=True):
        assert o.dtype == t.dtype and o.shape == t.shape
        np.testing.assert_allclose(o, t, rtol=1e-5)
