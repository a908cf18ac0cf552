"""The resampling kernel's row loops against a float32 NumPy formulation of the same sums, bit
for bit, on both of its paths (AVX2 where the CPU has it, SSE4.1 otherwise)."""

import numpy as np
import pytest

from dali._ext.kernels import resample
from dali._types import DALIInterpType as Interp
from dali.ops.geometry import _resampling

RNG = np.random.default_rng(5)
F32 = np.float32


def _pass(x, axis, f):
    """One pass in float32, each output summing its taps in order from the first product."""
    x = np.moveaxis(x.astype(F32), axis, 0)
    idx = f.starts[:, None] + np.arange(f.support)
    out = f.weights[:, 0].reshape(-1, *[1] * (x.ndim - 1)) * x[idx[:, 0]]
    for k in range(1, f.support):
        out = out + f.weights[:, k].reshape(-1, *[1] * (x.ndim - 1)) * x[idx[:, k]]
    return np.moveaxis(out.astype(F32), 0, axis)


def _reference(src, filters, order):
    x = src
    for a in order:
        x = _pass(x, a + 1, filters[a])
    return x


@pytest.fixture(params=[False, True], ids=["sse", "avx2"])
def path(request):
    if request.param and not resample.avx2():
        pytest.skip("the CPU has no AVX2")
    before = resample.avx2()
    resample.avx2(request.param)
    yield request.param
    resample.avx2(before)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("channels", [1, 3, 4])
@pytest.mark.parametrize("shape_in, shape_out, interp", [
    ((37, 53), (16, 21), Interp.INTERP_LINEAR),       # rows of 63 and 159 values: tails
    ((64, 48), (30, 100), Interp.INTERP_CUBIC),       # one axis up, one down
    ((300, 310), (224, 224), Interp.INTERP_LINEAR),   # the training pipeline's sizes
    ((17, 200), (40, 33), Interp.INTERP_LANCZOS3),    # wide windows
])
def test_passes_equal_the_float32_sums(path, dtype, channels, shape_in, shape_out, interp):
    src = (RNG.random((1, *shape_in, channels)) * 255).astype(dtype)
    filters = [_resampling.axis_filter(int(interp), n, m, 0.0, float(n))
               for n, m in zip(shape_in, shape_out, strict=True)]
    for order in ([0, 1], [1, 0]):
        passes = [(a, filters[a].starts, filters[a].weights) for a in order]
        dst = np.empty((1, *shape_out, channels), F32)
        resample.resample(src, dst, passes)
        np.testing.assert_array_equal(dst, _reference(src, filters, order))


def test_both_paths_round_alike():
    # uint8 outputs: the vertical pass last (round half to even on whole vectors) and first
    if not resample.avx2():
        pytest.skip("the CPU has no AVX2")
    src = RNG.integers(0, 256, (1, 123, 77, 3), np.uint8)
    filters = [_resampling.axis_filter(int(Interp.INTERP_LINEAR), n, m, 0.0, float(n))
               for n, m in ((123, 50), (77, 61))]
    outs = []
    for on in (False, True):
        resample.avx2(on)
        for order in ([0, 1], [1, 0]):
            dst = np.empty((1, 50, 61, 3), np.uint8)
            resample.resample(src, dst, [(a, filters[a].starts, filters[a].weights)
                                         for a in order])
            outs.append(dst)
    np.testing.assert_array_equal(outs[0], outs[2])
    np.testing.assert_array_equal(outs[1], outs[3])


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint16])
@pytest.mark.parametrize("even_end", [-1, 0, 50, 111])
def test_integer_rows_round_and_saturate(dtype, even_end):
    # the last pass along rows: values before `even_end` round half to even (-1: DALI's whole
    # vectors of 16), the others half away from zero; everything saturates
    info = np.iinfo(dtype)
    src = (RNG.random((1, 40, 37, 3)) * 1.6 * (int(info.max) - int(info.min))
           + int(info.min) * 1.3).astype(F32)
    f = _resampling.axis_filter(int(Interp.INTERP_LINEAR), 40, 17, 0.0, 40.0)
    out = np.empty((1, 17, 37, 3), dtype)
    resample.resample(src, out, [(0, f.starts, f.weights)], even_end)
    sums = _pass(src, 1, f).reshape(17, 111).astype(np.float64)
    clipped = np.clip(sums, info.min, info.max)
    boundary = 111 - 111 % 16 if even_end < 0 else even_end
    expected = np.where(np.arange(111) < boundary, np.rint(clipped),
                        np.sign(clipped) * np.floor(np.abs(clipped) + 0.5))
    np.testing.assert_array_equal(out.reshape(17, 111), expected.astype(dtype))
