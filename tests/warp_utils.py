"""Helpers of the warp tests (fn.rotate, fn.warp_affine): a float64 NumPy reference warp, the
tolerance our outputs meet, and the outputs recorded from real DALI (tests/goldens/geometry.npz,
made by tests/goldens/make_geometry.py)."""

import functools
import json
import pathlib

import numpy as np
from pipeline_utils import run_one

from dali import types

GOLDEN = pathlib.Path(__file__).parent / "goldens" / "geometry.npz"

run = functools.partial(run_one, layout="HWC", seed=5)


def warp_reference(img, m, out_hw, nn=False, fill=None, dtype=None):
    """float64 output->input warp of an HWC image: src = M @ (dst + 0.5) - 0.5."""
    h, w, _ = img.shape
    ys, xs = np.mgrid[0:out_hw[0], 0:out_hw[1]] + 0.5
    m = np.asarray(m, np.float64).reshape(2, 3)
    sx = m[0, 0] * xs + m[0, 1] * ys + m[0, 2] - 0.5
    sy = m[1, 0] * xs + m[1, 1] * ys + m[1, 2] - 0.5
    src = img.astype(np.float64)

    def fetch(yi, xi):
        inside = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
        v = src[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
        return v if fill is None else np.where(inside[..., None], v, fill)

    if nn:
        out = fetch(np.floor(sy + 0.5).astype(int), np.floor(sx + 0.5).astype(int))
    else:
        x0, y0 = np.floor(sx), np.floor(sy)
        fx, fy = (sx - x0)[..., None], (sy - y0)[..., None]
        x0, y0 = x0.astype(int), y0.astype(int)
        top = fetch(y0, x0) * (1 - fx) + fetch(y0, x0 + 1) * fx
        bottom = fetch(y0 + 1, x0) * (1 - fx) + fetch(y0 + 1, x0 + 1) * fx
        out = top * (1 - fy) + bottom * fy
    dtype = np.dtype(dtype or img.dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        out = np.clip(np.floor(out + 0.5), info.min, info.max)
    return out.astype(dtype)


def assert_close(got, want, off=0.0, atol=1e-3):
    """Equal up to rounding: integers within 1 (on at most a fraction `off` of the elements),
    floats within `atol` (float32 source positions are off by ~1e-5 pixel, times the image's
    gradient)."""
    assert got.shape == want.shape and got.dtype == want.dtype
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    if got.dtype.kind in "iu":
        assert diff.max(initial=0) <= 1, diff.max(initial=0)
        assert (diff > 0).sum() <= off * diff.size, (diff > 0).sum()
    else:
        np.testing.assert_allclose(got, want, atol=atol, rtol=1e-5)


def assert_matches_golden(op, name):
    """`fn.<op>` on the golden batch `name` matches the outputs recorded from real DALI."""
    g = np.load(GOLDEN)
    batch = [g[f"{name}_input_0"], g[f"{name}_input_1"]]
    for k, case in enumerate(json.loads(str(g[f"{name}_cases"]))):
        kwargs = {key: getattr(types, v) if isinstance(v, str) else v
                  for key, v in case.items()}
        out, _ = run(lambda fn, x, kw=kwargs: getattr(fn, op)(x, **kw), batch)
        for i, o in enumerate(out):
            assert_close(o, g[f"{name}_{k}_{i}"], off=0.005)
