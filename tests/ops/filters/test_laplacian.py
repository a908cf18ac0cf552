"""fn.laplacian: the windows, a NumPy reference (sum of scaled separable partials), goldens,
the oracle and errors."""

import json
import pathlib

import numpy as np
import pytest
from filter_utils import conv_axis
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError
from dali.ops.filters import laplacian

F32 = np.float32
GOLDEN = pathlib.Path(__file__).parents[2] / "goldens" / "filters.npz"


def reference(img, sizes, smooth, scales, naxes):
    x = img.astype(F32)
    out = None
    for i in range(naxes):
        p = x
        for j in reversed(range(naxes)):
            w = (laplacian.derivative_window(sizes[i]) if i == j else
                 laplacian.smoothing_window(smooth[j] or sizes[i]))
            p = conv_axis(p, w, j)
        term = F32(scales[i]) * p
        out = term if out is None else (out + term).astype(F32)
    return out


def test_windows():
    assert laplacian.derivative_window(3).tolist() == [1, -2, 1]
    assert laplacian.derivative_window(5).tolist() == [1, 0, -2, 0, 1]
    assert laplacian.derivative_window(7).tolist() == [1, 2, -1, -4, -1, 2, 1]
    assert laplacian.smoothing_window(5).tolist() == [1, 4, 6, 4, 1]
    assert laplacian.smoothing_window(1).tolist() == [1]


@pytest.mark.parametrize("seed", range(5))
def test_against_numpy_reference(seed):
    rng = np.random.default_rng(seed)
    imgs = [(rng.random((rng.integers(1, 20), rng.integers(1, 20), 2)) * 50).astype(F32)
            for _ in range(3)]
    sizes = [int(v) for v in rng.choice([3, 5, 7], 2)]
    smooth = [int(v) for v in rng.choice([1, 3, 5], 2)]
    scales = [float(F32(v)) for v in rng.uniform(0.1, 2, 2)]
    out, = run_op(lambda fn, x: fn.laplacian(x, window_size=sizes, smoothing_size=smooth,
                                             scale=scales), [imgs], layouts=["HWC"])
    for img, o in zip(imgs, out, strict=True):
        np.testing.assert_array_equal(o, reference(img, sizes, smooth, scales, 2))
    out, = run_op(lambda fn, x: fn.laplacian(x, window_size=sizes[0], normalized_kernel=True),
                  [imgs], layouts=["HWC"])
    norm = [2.0 ** (-2 * sizes[0] + 4)] * 2
    for img, o in zip(imgs, out, strict=True):
        np.testing.assert_array_equal(o, reference(img, [sizes[0]] * 2, [0, 0], norm, 2))


def test_per_sample_window_size_on_a_volume():
    rng = np.random.default_rng(9)
    vols = [rng.random((6, 7, 8)).astype(F32) for _ in range(2)]
    ws = [np.array([3], np.int32), np.array([5, 3, 7], np.int32)]
    out, = run_op(lambda fn, x, w: fn.laplacian(x, window_size=w), [vols, ws],
                  layouts=["DHW", None])
    for v, w, o in zip(vols, ws, out, strict=True):
        s = np.broadcast_to(w, 3).tolist()
        np.testing.assert_array_equal(o, reference(v, s, [0] * 3, [1.0] * 3, 3))


@pytest.mark.parametrize("k", [5, 6, 7, 8, 9])
def test_golden(k):
    data = np.load(GOLDEN)
    name, op, kw, layout = json.loads(str(data["cases"]))[k]
    assert op == "laplacian"
    kw = {a: getattr(types, v) if v == "FLOAT" else v for a, v in kw.items()}
    out, = run_op(lambda fn, x: fn.laplacian(x, **kw), [[data[name]]], layouts=[layout])
    assert out[0].dtype == data[f"out_{k}"].dtype
    np.testing.assert_array_equal(out[0], data[f"out_{k}"])


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.int64, np.float32])
def test_oracle(dtype):
    rng = np.random.default_rng(11)
    imgs = [(rng.random((rng.integers(1, 25), rng.integers(1, 25), 3)) * 200).astype(dtype)
            for _ in range(3)]
    for kw in ({}, {"window_size": [5, 9], "smoothing_size": 3}, {"scale": [0.5, 3.0]},
               {"window_size": 7, "normalized_kernel": True, "dtype": types.FLOAT}):
        def build(fn, x, kw=kw):
            return fn.laplacian(x, **kw)
        ours, = run_op(build, [imgs], layouts=["HWC"])
        real, = run_op(build, [imgs], layouts=["HWC"], real=True)
        for a, b in zip(ours, real, strict=True):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kw,match", [
    ({"window_size": 4}, "Window size must be an odd integer between 3 and 31, got 4"),
    ({"window_size": 33}, "Window size must be an odd integer between 3 and 31, got 33"),
    ({"smoothing_size": 2}, "Smoothing window size must be an odd integer between 1 and 31"),
    ({"scale": [1.0, 2.0, 3.0]},
     'Argument "scale" expects either a single value or a list of 2 elements. 3 given'),
    ({"scale": 2.0, "normalized_kernel": True},
     "``scale`` cannot be specified when ``normalized_kernel`` is set to True"),
    ({"dtype": types.INT16}, "Output data type must be same as input, FLOAT"),
])
def test_errors(kw, match):
    with pytest.raises((PipelineError, ValueError), match=match) as e:
        run_op(lambda fn, x: fn.laplacian(x, **kw), [[np.zeros((5, 5, 3), np.uint8)]],
               layouts=["HWC"])
    assert "laplacian" in str(e.value)


def test_float64_is_not_supported():
    with pytest.raises(PipelineError, match="Unsupported data type: double"):
        run_op(lambda fn, x: fn.laplacian(x), [[np.zeros((5, 5, 1))]], layouts=["HWC"])
