"""fn.preemphasis_filter: NumPy reference over random shapes, coefficients, borders and types,
per-sample coefficients, goldens and real DALI."""

import numpy as np
import pytest
from pipeline_utils import run_op
from signal_utils import golden_cases, round_half_away, run_golden

from dali import types

TYPES = {np.uint8: types.UINT8, np.int8: types.INT8, np.int16: types.INT16,
         np.uint16: types.UINT16, np.int32: types.INT32, np.uint32: types.UINT32,
         np.int64: types.INT64, np.float32: types.FLOAT, np.float64: types.FLOAT64}


def reference(x, coeff, border, dtype=np.float32):
    flat = x.reshape(-1)
    wide = np.float64 if x.dtype == np.float64 else np.float32
    prev = np.concatenate([[0], flat[:-1]]).astype(flat.dtype)
    if flat.size:
        prev[0] = {"zero": 0, "clamp": flat[0],
                   "reflect": flat[1] if flat.size > 1 else 0}[border]
    y = flat.astype(wide) - np.array(coeff, wide) * prev.astype(wide)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        y = np.clip(round_half_away(y.astype(np.float64)), info.min, info.max)
    return y.astype(dtype).reshape(x.shape)


@pytest.mark.parametrize("seed", range(6))
def test_random_against_numpy(seed):
    rng = np.random.default_rng(seed)
    border = ["zero", "clamp", "reflect"][seed % 3]
    src = [np.float32, np.int16, np.float64, np.uint8, np.int32, np.int8][seed]
    dst = [np.float32, np.int16, np.float64, np.uint8, np.int32, np.float32][seed]
    ndim = 1 + seed % 2
    batch = [(rng.standard_normal(rng.integers(0, 40, ndim)) * 60).astype(src)
             for _ in range(5)]
    coeffs = rng.uniform(-2, 2, 5).astype(np.float32)
    (out,) = run_op(lambda fn, x, c: fn.preemphasis_filter(x, preemph_coeff=c, border=border,
                                                          dtype=TYPES[dst]),
                    [batch, list(coeffs)], num_threads=3)
    for x, c, o in zip(batch, coeffs, out, strict=True):
        assert o.dtype == dst and o.shape == x.shape
        np.testing.assert_allclose(o, reference(x, c, border, dst), rtol=1e-6, atol=1e-5)


def test_borders_and_layout():
    x = np.array([[1, 2, 4], [7, 11, 3]], np.float32)
    got = {b: run_op(lambda fn, t, b=b: fn.preemphasis_filter(t, border=b, preemph_coeff=0.5),
                     [[x]], layouts=["ab"])[0][0] for b in ("zero", "clamp", "reflect")}
    assert got["zero"].ravel().tolist() == [1, 1.5, 3, 5, 7.5, -2.5]
    assert got["clamp"].ravel()[0] == 0.5 and got["reflect"].ravel()[0] == 0
    (one,) = run_op(lambda fn, t: fn.preemphasis_filter(t, border="reflect"),
                    [[np.array([3], np.float32), np.zeros(0, np.float32)]])
    assert one[0].tolist() == [3] and one[1].shape == (0,)


def test_long_signal_pieces():
    x = np.random.default_rng(3).standard_normal(200_003).astype(np.float32)
    (out,) = run_op(lambda fn, t: fn.preemphasis_filter(t, preemph_coeff=0.9), [[x, x[:5]]],
                    num_threads=4)
    np.testing.assert_array_equal(out[0], reference(x, 0.9, "clamp"))


def test_rounding_half_away_saturating():
    x = np.array([1, 3, 5, 7, -1, -3, -5], np.int32)
    (out,) = run_op(lambda fn, t: fn.preemphasis_filter(t, preemph_coeff=0.5, border="zero",
                                                       dtype=types.INT32), [[x]])
    assert out[0].tolist() == [1, 3, 4, 5, -5, -3, -4]
    (out,) = run_op(lambda fn, t: fn.preemphasis_filter(t, preemph_coeff=2.0,
                                                       dtype=types.UINT8),
                    [[np.array([1, 2, 4, 300], np.float32)]])
    assert out[0].tolist() == [0, 0, 0, 255]


@pytest.mark.parametrize("kwargs, dtype, exc, match", [
    ({"border": "wrap"}, np.float32, ValueError, '"wrap" is not supported'),
    ({"dtype": types.BOOL}, np.float32, TypeError, "Unsupported output type"),
    ({"dtype": types.FLOAT16}, np.float32, TypeError, "Unsupported output type"),
    ({}, np.bool_, TypeError, "Unsupported input type"),
    ({}, np.float16, TypeError, "Unsupported input type"),
])
def test_errors(kwargs, dtype, exc, match):
    with pytest.raises(Exception, match="preemphasis_filter") as info:
        run_op(lambda fn, t: fn.preemphasis_filter(t, **kwargs), [[np.ones(4, dtype)]])
    assert match in str(info.value)
    assert isinstance(info.value, exc) or isinstance(info.value.__cause__, exc)


@pytest.mark.parametrize("k", golden_cases("preemphasis_filter"))
def test_golden(k):
    out, expected = run_golden(k)
    for o, e in zip(out, expected, strict=True):
        assert o.dtype == e.dtype and o.shape == e.shape
        np.testing.assert_allclose(o, e, rtol=1e-6, atol=1e-5)


@pytest.mark.oracle
@pytest.mark.parametrize("border", ["zero", "clamp", "reflect"])
def test_oracle(border):
    # not a 1-element sample with "reflect": DALI reads the element after it (its x[1])
    rng = np.random.default_rng(9)
    batch = [rng.standard_normal(n).astype(np.float32)
             for n in (100, 3 if border == "reflect" else 1, 2, 0)]
    coeffs = [np.float32(c) for c in (0.3, -1.0, 0.97, 2.0)]

    def build(fn, x, c):
        return fn.preemphasis_filter(x, preemph_coeff=c, border=border)
    ours = run_op(build, [batch, coeffs])[0]
    real = run_op(build, [batch, coeffs], real=True)[0]
    for o, r in zip(ours, real, strict=True):
        np.testing.assert_array_equal(o, r)
