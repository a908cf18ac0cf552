"""fn.gaussian_blur: the windows, a NumPy reference (separable float32 passes, innermost axis
first, reflect-101), goldens and the oracle, layouts and errors."""

import json
import pathlib

import numpy as np
import pytest
from filter_utils import conv_axis
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError
from dali._ext.kernels import convolution

F32 = np.float32
GOLDEN = pathlib.Path(__file__).parents[2] / "goldens" / "filters.npz"


def window(sigma, size):
    """DALI's window in float64 (equal to the kernel's within float32 rounding)."""
    if size == 0:
        size = 2 * int(np.ceil(F32(sigma) * F32(3))) + 1
    if sigma == 0:
        sigma = F32(((size - 1) // 2 - 1) * 0.3 + 0.8)
    x = np.arange(size) - size // 2
    g = np.exp(-x * x / (2.0 * float(F32(sigma)) ** 2))
    return g / g.sum()


def reference(img, sigmas, sizes, axes):
    out = img.astype(F32)
    for axis, s, n in reversed(list(zip(axes, sigmas, sizes, strict=True))):
        s = s or F32(((n - 1) // 2 - 1) * 0.3 + 0.8)
        n = n or 2 * int(np.ceil(F32(s) * F32(3))) + 1
        out = conv_axis(out, convolution.gaussian_window(s, n), axis)
    return out


def to_u8(x):
    return np.clip(np.floor(np.abs(x) + 0.5) * np.sign(x), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("sigma,size", [(0.5, 0), (1.0, 0), (2.3, 0), (0, 3), (0, 7), (0, 15),
                                        (1.5, 5)])
def test_windows_are_normalised_gaussians(sigma, size):
    s = sigma or F32(((size - 1) // 2 - 1) * 0.3 + 0.8)
    n = size or 2 * int(np.ceil(F32(sigma) * F32(3))) + 1
    w = convolution.gaussian_window(s, n)
    assert w.dtype == F32 and len(w) == n
    np.testing.assert_allclose(w, window(sigma, size), rtol=1e-6, atol=1e-8)
    assert abs(float(w.sum()) - 1) < 1e-6 and np.array_equal(w, w[::-1])


@pytest.mark.parametrize("seed", range(6))
def test_against_numpy_reference(seed):
    rng = np.random.default_rng(seed)
    imgs = [rng.integers(0, 256, (rng.integers(1, 30), rng.integers(1, 30), 3), dtype=np.uint8)
            for _ in range(3)]
    sig = [float(F32(v)) for v in rng.uniform(0.3, 3, 2)]
    out, = run_op(lambda fn, x: fn.gaussian_blur(x, sigma=sig, dtype=types.FLOAT), [imgs],
                  layouts=["HWC"])
    for img, o in zip(imgs, out, strict=True):
        assert o.dtype == F32
        np.testing.assert_array_equal(o, reference(img, sig, [0, 0], (0, 1)))
    out8, = run_op(lambda fn, x: fn.gaussian_blur(x, sigma=sig), [imgs], layouts=["HWC"])
    for o8, o in zip(out8, out, strict=True):
        assert o8.dtype == np.uint8
        np.testing.assert_array_equal(o8, to_u8(o))


def test_channel_first_sequence_and_volume():
    rng = np.random.default_rng(3)
    seq = rng.random((2, 3, 9, 10)).astype(F32)          # FCHW: every plane on its own
    out, = run_op(lambda fn, x: fn.gaussian_blur(x, sigma=[1.0, 0.7]), [[seq]],
                  layouts=["FCHW"])
    for f in range(2):
        for c in range(3):
            np.testing.assert_array_equal(out[0][f, c],
                                          reference(seq[f, c], [1.0, 0.7], [0, 0], (0, 1)))
    vol = rng.random((5, 6, 7)).astype(F32)              # no layout: three data axes
    out, = run_op(lambda fn, x: fn.gaussian_blur(x, window_size=3), [[vol]])
    np.testing.assert_array_equal(out[0], reference(vol, [0, 0, 0], [3, 3, 3], (0, 1, 2)))


def test_per_sample_and_per_frame_sigma():
    rng = np.random.default_rng(4)
    imgs = [rng.random((8, 9, 1)).astype(F32) for _ in range(2)]
    sig = [np.array([0.5, 1.5], F32), np.array([2.0, 0.8], F32)]
    out, = run_op(lambda fn, x, s: fn.gaussian_blur(x, sigma=s), [imgs, sig],
                  layouts=["HWC", None])
    for img, s, o in zip(imgs, sig, out, strict=True):
        np.testing.assert_array_equal(o, reference(img, s, [0, 0], (0, 1)))
    seq = rng.random((3, 8, 9)).astype(F32)
    fs = np.array([0.5, 1.0, 2.0], F32)
    out, = run_op(lambda fn, x, s: fn.gaussian_blur(x, sigma=fn.per_frame(s)), [[seq], [fs]],
                  layouts=["FHW", None])
    for f in range(3):
        np.testing.assert_array_equal(out[0][f], reference(seq[f], [fs[f]] * 2, [0, 0], (0, 1)))


@pytest.mark.parametrize("k", [0, 1, 2, 3, 4])
def test_golden(k):
    data = np.load(GOLDEN)
    name, op, kw, layout = json.loads(str(data["cases"]))[k]
    assert op == "gaussian_blur"
    kw = {a: getattr(types, v) if v == "FLOAT" else v for a, v in kw.items()}
    out, = run_op(lambda fn, x: fn.gaussian_blur(x, **kw), [[data[name]]], layouts=[layout])
    assert out[0].dtype == data[f"out_{k}"].dtype
    np.testing.assert_array_equal(out[0], data[f"out_{k}"])


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint16, np.int32, np.float32,
                                   np.float16])
def test_oracle(dtype):
    rng = np.random.default_rng(7)
    imgs = [(rng.random((rng.integers(1, 25), rng.integers(1, 25), 2)) * 200).astype(dtype)
            for _ in range(3)]
    for kw in ({"sigma": 1.7}, {"window_size": [3, 9]}, {"sigma": [0.4, 3.0], "window_size": 5},
               {"sigma": 1.0, "dtype": types.FLOAT}):
        def build(fn, x, kw=kw):
            return fn.gaussian_blur(x, **kw)
        ours, = run_op(build, [imgs], layouts=["HWC"])
        real, = run_op(build, [imgs], layouts=["HWC"], real=True)
        for a, b in zip(ours, real, strict=True):
            assert a.dtype == b.dtype
            if imgs[0].dtype == np.float16:   # DALI's float16 path rounds differently
                np.testing.assert_allclose(a, b, rtol=2e-3)
            else:
                np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kw,layout,shape,match", [
    ({}, "HWC", (4, 4, 3), "`sigma` and `window_size` shouldn't be 0"),
    ({"sigma": -1.0}, "HWC", (4, 4, 3), "`sigma` must have non-negative values"),
    ({"window_size": -3}, "HWC", (4, 4, 3), "`window_size` must have non-negative values"),
    ({"window_size": 4}, "HWC", (4, 4, 3), "Kernel window should have odd length"),
    ({"sigma": [1.0, 2.0, 3.0]}, "HWC", (4, 4, 3),
     'Argument "sigma" expects either a single value or a list of 2 elements. 3 given'),
    ({"sigma": 1.0}, "HCW", (4, 3, 4), "Only channel-first or channel-last layouts"),
    ({"sigma": 1.0}, "", (2, 3, 4, 5), "empty layout cannot have more than 3 dimensions"),
    ({"sigma": 1.0, "dtype": types.INT16}, "HWC", (4, 4, 3),
     "Output data type must be same as input, FLOAT"),
])
def test_errors(kw, layout, shape, match):
    with pytest.raises(PipelineError, match=match) as e:
        run_op(lambda fn, x: fn.gaussian_blur(x, **kw), [[np.zeros(shape, np.uint8)]],
               layouts=[layout])
    assert "gaussian_blur" in str(e.value)


def test_bool_is_not_supported():
    with pytest.raises(PipelineError, match="Unsupported data type: bool"):
        run_op(lambda fn, x: fn.gaussian_blur(x, sigma=1.0), [[np.zeros((4, 4, 1), np.bool_)]],
               layouts=["HWC"])


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_oracle_wide_types_within_float32_rounding(dtype):
    """int64 and float64 are computed in float32 here: equal to DALI's within its rounding."""
    rng = np.random.default_rng(2)
    imgs = [(rng.random((9, 11, 2)) * 1000).astype(dtype) for _ in range(2)]
    ours, = run_op(lambda fn, x: fn.gaussian_blur(x, sigma=1.3), [imgs], layouts=["HWC"])
    real, = run_op(lambda fn, x: fn.gaussian_blur(x, sigma=1.3), [imgs], layouts=["HWC"],
                   real=True)
    for a, b in zip(ours, real, strict=True):
        assert a.dtype == b.dtype == dtype
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1)


@pytest.mark.oracle
def test_oracle_per_frame_sigma_on_channel_first_video():
    rng = np.random.default_rng(1)
    seq = rng.random((3, 2, 9, 10)).astype(F32)
    sig = np.array([0.5, 1.0, 2.0], F32)

    def build(fn, x, s):
        return fn.gaussian_blur(x, sigma=fn.per_frame(s))
    ours, = run_op(build, [[seq], [sig]], layouts=["FCHW", None])
    real, = run_op(build, [[seq], [sig]], layouts=["FCHW", None], real=True)
    np.testing.assert_array_equal(ours[0], real[0])
