"""fn.mfcc: the four DCTs (plain and orthonormal) against sums written out, scipy where
installed, liftering, axes, goldens, real DALI and DALI's errors."""

import math

import numpy as np
import pytest
from layout_utils import run_layouts
from pipeline_utils import run_op
from signal_utils import assert_spectrum_close, golden_cases, run_golden


def dct(x, dct_type, normalize):
    """The DCT of vector x (Wikipedia's sums; orthonormal with `normalize`)."""
    n = len(x)
    out = []
    for k in range(n):
        if dct_type == 1:
            s = 0.5 * (x[0] + (-1) ** k * x[-1])
            s += sum(x[j] * math.cos(math.pi * j * k / (n - 1)) for j in range(1, n - 1))
        elif dct_type == 2:
            s = sum(x[j] * math.cos(math.pi / n * (j + 0.5) * k) for j in range(n))
            if normalize:
                s *= math.sqrt((1 if k == 0 else 2) / n)
        elif dct_type == 3:
            s = sum(x[j] * math.cos(math.pi / n * j * (k + 0.5)) for j in range(1, n))
            s = (x[0] / math.sqrt(n) + math.sqrt(2 / n) * s) if normalize else 0.5 * x[0] + s
        else:
            s = sum(x[j] * math.cos(math.pi / n * (j + 0.5) * (k + 0.5)) for j in range(n))
            s *= math.sqrt(2 / n) if normalize else 1
        out.append(s)
    return np.array(out)


def reference(x, axis=0, dct_type=2, normalize=False, n_mfcc=20, lifter=0.0):
    y = np.apply_along_axis(dct, axis, x.astype(np.float64), dct_type, normalize)
    y = np.moveaxis(np.moveaxis(y, axis, 0)[:n_mfcc], 0, axis)
    if lifter:
        count = y.shape[axis]
        scale = 1 + np.sin(np.pi * (np.arange(count) + 1) / lifter) * (lifter / 2)
        y = y * scale.reshape([-1 if d == axis else 1 for d in range(y.ndim)])
    return y


@pytest.mark.parametrize("dct_type, normalize", [(1, False), (2, False), (2, True),
                                                 (3, False), (3, True), (4, False), (4, True)])
def test_dct_types_against_sums(dct_type, normalize):
    rng = np.random.default_rng(dct_type)
    batch = [rng.random((n, 4)).astype(np.float32) * 10 for n in (16, 5, 2)]
    kwargs = {"dct_type": dct_type, "normalize": normalize, "n_mfcc": 9}
    (out,) = run_op(lambda fn, x: fn.mfcc(x, **kwargs), [batch])
    for x, o in zip(batch, out, strict=True):
        assert o.shape == (min(9, x.shape[0]), 4)
        assert_spectrum_close(o, reference(x, **kwargs), rtol=2e-6)


@pytest.mark.parametrize("seed", range(6))
def test_random_axes_and_lifter(seed):
    rng = np.random.default_rng(seed)
    ndim = 2 + seed % 2
    axis = int(rng.integers(0, ndim))
    kwargs = {"axis": axis, "dct_type": 2 + seed % 3, "normalize": seed % 2 == 0,
              "n_mfcc": int(rng.integers(1, 25)), "lifter": [0.0, 22.0, -3.0][seed % 3]}
    batch = [rng.random(rng.integers(1, 20, ndim)).astype(np.float32) for _ in range(3)]
    (out,) = run_op(lambda fn, x: fn.mfcc(x, **kwargs), [batch], num_threads=2)
    for x, o in zip(batch, out, strict=True):
        assert_spectrum_close(o, reference(x, **kwargs), rtol=2e-6)


def test_against_scipy():
    sf = pytest.importorskip("scipy.fft")
    x = np.random.default_rng(3).random((40, 6)).astype(np.float32)
    for t in (2, 3, 4):
        (o,) = run_op(lambda fn, v, t=t: fn.mfcc(v, dct_type=t, normalize=True, n_mfcc=40),
                      [[x]])
        assert_spectrum_close(o[0], sf.dct(x.astype(np.float64), type=t, norm="ortho", axis=0),
                              rtol=2e-6)


def test_layout_kept():
    out, layout = run_layouts(lambda fn, t: fn.mfcc(t, n_mfcc=3), [[np.ones((6, 2), np.float32)]],
                              ["ft"])
    assert layout == "ft" and out[0].shape == (3, 2)
    np.testing.assert_allclose(out[0], [[6, 6], [0, 0], [0, 0]], atol=1e-5)


@pytest.mark.parametrize("kwargs, sample, match", [
    ({"axis": 2}, np.ones((5, 7), np.float32), r"Axis 2 is out of bounds \[0,2\)"),
    ({"axis": -1}, np.ones((5, 7), np.float32), "Provided axis cannot be negative"),
    ({"n_mfcc": 0}, np.ones((5, 7), np.float32), "number of MFCCs should be > 0"),
    ({"dct_type": 5}, np.ones((5, 7), np.float32), "Unsupported DCT type: 5"),
    ({"dct_type": 1, "normalize": True}, np.ones((5, 7), np.float32),
     "Ortho-normalization is not supported for DCT type I"),
    ({"dct_type": 1}, np.ones((1, 7), np.float32), "DCT type I requires an input length > 1"),
    ({}, np.ones((5, 7), np.float64), "Unsupported data type"),
    ({}, np.ones(7, np.float32), "Unsupported number of dimensions 1"),
])
def test_errors(kwargs, sample, match):
    with pytest.raises(Exception, match="mfcc") as info:
        run_op(lambda fn, t: fn.mfcc(t, **kwargs), [[sample]])
    assert info.match(match)


@pytest.mark.parametrize("k", golden_cases("mfcc"))
def test_golden(k):
    out, expected = run_golden(k)
    for o, e in zip(out, expected, strict=True):
        assert_spectrum_close(o, e, rtol=1e-5)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [{}, {"dct_type": 3, "normalize": True, "lifter": 22.0},
                                    {"dct_type": 1, "n_mfcc": 50, "axis": 1},
                                    {"dct_type": 4, "n_mfcc": 13}])
def test_oracle(kwargs):
    rng = np.random.default_rng(5)
    batch = [(rng.random((40, n)) * 20 - 10).astype(np.float32) for n in (30, 2, 64)]

    def build(fn, x):
        return fn.mfcc(x, **kwargs)
    for o, r in zip(run_op(build, [batch])[0], run_op(build, [batch], real=True)[0],
                    strict=True):
        assert_spectrum_close(o, r, rtol=1e-5)
