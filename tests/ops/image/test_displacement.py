"""fn.water and fn.sphere: displacement filters (nearest neighbour and linear sampling)."""

import json
import math
import pathlib

import numpy as np
import pytest
from color_utils import max_error
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError

F32 = np.float32
RNG = np.random.default_rng(8)
IMG = RNG.integers(0, 256, (23, 31, 3), dtype=np.uint8)
GOLDEN = pathlib.Path(__file__).parents[2] / "goldens" / "displacement.npz"
WAVE = {"ampl_x": 10.0, "freq_x": 2 * math.pi / 128, "phase_x": 0.0, "ampl_y": 10.0,
        "freq_y": 2 * math.pi / 128, "phase_y": 0.0}


def positions(shape, op, **kw):
    """DALI's float32 source positions (pixel-corner coordinates)."""
    h, w = shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(F32)
    if op == "water":
        k = {n: F32(v) for n, v in {**WAVE, **kw}.items()}
        px = xs + k["ampl_x"] * np.sin(k["freq_x"] * ys + k["phase_x"]).astype(F32)
        py = ys + k["ampl_y"] * np.cos(k["freq_y"] * xs + k["phase_y"]).astype(F32)
        return px, py
    mx, my = F32(w * F32(0.5)), F32(h * F32(0.5))
    d = F32(int(max(mx, my)))
    tx, ty = xs + F32(0.5) - mx, ys + F32(0.5) - my
    rad = np.sqrt(tx * tx + ty * ty) / d
    return mx + rad * tx, my + rad * ty


def nearest(img, px, py, fill=0):
    h, w = img.shape[:2]
    xi, yi = np.floor(px).astype(int), np.floor(py).astype(int)
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    out = img[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
    out[~inside] = fill
    return out


@pytest.mark.parametrize("shape, dtype", [((23, 31, 3), np.uint8), ((8, 8, 3), np.uint8),
                                          ((10, 7, 1), np.uint8), ((1, 5, 4), F32),
                                          ((6, 1, 3), F32), ((9, 16, 2), F32)])
def test_sphere_nearest_against_numpy(shape, dtype):
    """Odd and even extents: rows and columns mirrored about the centre share their radii."""
    x = IMG if shape == IMG.shape else (RNG.random(shape) * 255).astype(dtype)
    (out,) = run_op(lambda fn, t: fn.sphere(t, fill_value=9.0), [[x]])
    np.testing.assert_array_equal(out[0], nearest(x, *positions(shape, "sphere"), 9))


def test_water_nearest_against_numpy():
    """Away from exact pixel boundaries (where sinf/cosf rounding decides) the positions are
    NumPy's."""
    kw = {"ampl_x": 2.5, "freq_x": 0.2, "ampl_y": -4.0, "phase_y": 1.0}
    (out,) = run_op(lambda fn, x: fn.water(x, **kw), [[IMG]])
    px, py = positions(IMG.shape, "water", **kw)
    want = nearest(IMG, px, py)
    safe = (np.abs(px - np.round(px)) > 1e-4) & (np.abs(py - np.round(py)) > 1e-4)
    np.testing.assert_array_equal(out[0][safe], want[safe])


def test_linear_identity_and_mask():
    """Zero displacement with linear sampling reads pixel corners: each output averages a 2x2
    neighbourhood (with the fill value beyond the top/left edge), as in DALI."""
    x = RNG.random((6, 7, 1), dtype=F32)
    (out,) = run_op(lambda fn, t: fn.water(t, ampl_x=0.0, ampl_y=0.0,
                                           interp_type=types.INTERP_LINEAR), [[x]])
    pad = np.pad(x[..., 0], ((1, 0), (1, 0)))
    want = (pad[:-1, :-1] + pad[:-1, 1:] + pad[1:, :-1] + pad[1:, 1:]) / 4
    np.testing.assert_allclose(out[0][..., 0], want, rtol=1e-6)
    masks = [np.int32(0), np.int32(1)]
    (out,) = run_op(lambda fn, t, m: fn.water(t, mask=m, ampl_x=50.0), [[IMG, IMG], masks])
    np.testing.assert_array_equal(out[0], IMG)
    assert not np.array_equal(out[1], IMG)
    (out,) = run_op(lambda fn, t: fn.sphere(t, mask=0), [[IMG]])
    np.testing.assert_array_equal(out[0], IMG)


def test_uint8_fill_is_cast_like_c():
    for fill, want in ((300.0, 44), (-5.0, 251), (7.9, 7)):
        (out,) = run_op(lambda fn, t, f=fill: fn.water(t, ampl_x=1000.0, phase_x=1.0,
                                                       fill_value=f), [[IMG]])
        assert (out[0] == want).all()


@pytest.mark.parametrize("x, kwargs, layout, match", [
    (IMG.astype(np.int16), {}, "HWC", "Unexpected input type int16"),
    (IMG, {"interp_type": types.INTERP_CUBIC}, "HWC", "only NN and LINEAR"),
    (IMG, {}, "CHW", 'layout "CHW" does not match'),
])
def test_bad_input_fails_at_run(x, kwargs, layout, match):
    with pytest.raises(PipelineError, match=match):
        run_op(lambda fn, t: fn.sphere(t, **kwargs), [[x]], layouts=[layout])


@pytest.mark.parametrize("t", ["u8", "f32"])
def test_golden(t):
    """Outputs recorded from real DALI by tests/goldens/make_displacement.py: uint8 exact,
    float linear within 1e-6 of the image range (DALI's blend rounds differently)."""
    g = np.load(GOLDEN)
    for k, (op, kw) in enumerate(json.loads(str(g["cases"]))):
        kw = {n: getattr(types, v) if isinstance(v, str) else v for n, v in kw.items()}
        (out,) = run_op(lambda fn, x, op=op, kw=kw: getattr(fn, op)(x, **kw),
                        [[g[f"{t}_input"]]], layouts=["HWC"])
        want = g[f"{t}_{k}"]
        if t == "u8" or kw.get("interp_type") is None:
            np.testing.assert_array_equal(out[0], want, err_msg=f"{op} {kw}")
        else:
            assert max_error(out[0], want) <= 1e-6


@pytest.mark.oracle
def test_live_oracle_with_per_sample_mask():
    imgs = [RNG.integers(0, 256, (19 + i, 27, 3), dtype=np.uint8) for i in range(3)]
    masks = [np.int32(1), np.int32(0), np.int32(1)]

    def build(fn, x, m):
        return fn.water(x, mask=m, ampl_y=4.0, phase_x=0.5), fn.sphere(x, mask=m)

    ours = run_op(build, [imgs, masks], layouts=["HWC", None])
    real = run_op(build, [imgs, masks], layouts=["HWC", None], real=True)
    for o, w in zip(ours, real, strict=True):
        for a, e in zip(o, w, strict=True):
            np.testing.assert_array_equal(a, e)


@pytest.mark.parametrize("degree", [1, 2, 5])
def test_jitter_moves_pixels_within_the_degree(degree):
    """Every output pixel is an input pixel at offset r - degree // 2, r in [0, degree), per
    axis (or the fill value past the far edge); all offsets occur."""
    h, w = 40, 50
    codes = np.arange(h * w, dtype=F32).reshape(h, w, 1)     # pixel value = its index
    (out,) = run_op(lambda fn, t: fn.jitter(t, nDegree=degree, fill_value=-1.0), [[codes]])
    got = out[0][..., 0]
    half = degree // 2
    ys, xs = np.mgrid[0:h, 0:w]
    inside = got >= 0
    dy = np.where(inside, got // w - ys, 0)
    dx = np.where(inside, got % w - xs, 0)
    clamped_x = (xs - half <= 0) | (xs + degree - 1 - half >= w)
    clamped_y = (ys - half <= 0) | (ys + degree - 1 - half >= h)
    free = inside & ~clamped_x & ~clamped_y
    assert (dx[free] >= -half).all() and (dx[free] <= degree - 1 - half).all()
    assert (dy[free] >= -half).all() and (dy[free] <= degree - 1 - half).all()
    assert set(np.unique(dx[free])) == set(range(-half, degree - half))
    if degree == 1:
        np.testing.assert_array_equal(got, codes[..., 0])


def test_jitter_is_deterministic_per_seed_and_sample():
    imgs = [IMG, IMG]
    one = run_op(lambda fn, t: fn.jitter(t, nDegree=4), [imgs], seed=3)[0]
    three = run_op(lambda fn, t: fn.jitter(t, nDegree=4), [imgs], seed=3, num_threads=3)[0]
    other = run_op(lambda fn, t: fn.jitter(t, nDegree=4), [imgs], seed=4)[0]
    for a, b in zip(one, three, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(one[0], one[1])
    assert not np.array_equal(one[0], other[0])
    (out,) = run_op(lambda fn, t: fn.jitter(t, mask=0, nDegree=9), [[IMG]])
    np.testing.assert_array_equal(out[0], IMG)
    with pytest.raises(PipelineError, match="nDegree"):
        run_op(lambda fn, t: fn.jitter(t, nDegree=0), [[IMG]])
