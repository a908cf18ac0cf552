"""The resampling kernel's row loops against a float32 NumPy formulation of the same sums, bit
for bit, on both of its paths (AVX2 where the CPU has it, SSE4.1 otherwise)."""

import itertools
import math

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


@pytest.mark.parametrize("interp, n_in, n_out, antialias", [
    (Interp.INTERP_LINEAR, 97, 41, False),     # 2 taps per output: each tap widened as read
    (Interp.INTERP_LINEAR, 500, 224, False),   # the EfficientNet pipeline's reductions
    (Interp.INTERP_NN, 150, 200, False),       # 1 tap: widened as read even when enlarging
    (Interp.INTERP_LINEAR, 60, 224, False),    # more taps than twice the positions: the
    (Interp.INTERP_CUBIC, 300, 224, False),    # whole row widened first
    (Interp.INTERP_LINEAR, 97, 41, True),
])
@pytest.mark.parametrize("flip", [False, True])
def test_uint8_rgb_rows_equal_the_float32_sums(path, interp, n_in, n_out, antialias, flip):
    # the horizontal pass over uint8 RGB, whichever way its row is widened (the last position
    # of the buffer read without reading past it)
    src = RNG.integers(0, 256, (1, 5, n_in, 3), np.uint8)
    lo, hi = (float(n_in), 0.0) if flip else (0.0, float(n_in))
    f = _resampling.axis_filter(int(interp), n_in, n_out, lo, hi, antialias)
    assert f.starts.max() + f.support == n_in          # the row's last position is read
    dst = np.empty((1, 5, n_out, 3), F32)
    resample.resample(src, dst, [(1, f.starts, f.weights)])
    np.testing.assert_array_equal(dst, _pass(src, 2, f))


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


@pytest.mark.parametrize("axis, even_end", [(1, -1), (1, 0), (1, 20), (2, -1)])
def test_uint8_ties_round_alike(axis, even_end):
    # exact halves, the floats next to them, -0.0, NaN and out-of-range values through a pass
    # of weight 1 over rows of 48 values: along the rows (an outer axis) they round half to
    # even before `even_end`, along the columns (pixels) half away from zero
    base = np.array([0.5, 1.5, 2.5, 254.5, 255.5, np.nextafter(F32(0.5), F32(0)),
                     np.nextafter(F32(0.5), F32(1)), np.nextafter(F32(2.5), F32(0)), -0.0,
                     -0.5, -7.0, np.nan, 1e10, 3.0, 100.49999, 127.5], F32)
    src = np.tile(base, 12).reshape(1, 4, 16, 3)
    n = src.shape[axis]
    out = np.empty(src.shape, np.uint8)
    resample.resample(src, out, [(axis - 1, np.arange(n, dtype=np.int32), np.ones((n, 1), F32))],
                      even_end)
    vals = np.nan_to_num(np.clip(src.astype(np.float64), 0, 255), nan=0.0).reshape(4, 48)
    boundary = (48 if even_end < 0 else even_end) if axis == 1 else 0
    expected = np.where(np.arange(48) < boundary, np.rint(vals), np.floor(vals + 0.5))
    np.testing.assert_array_equal(out.reshape(4, 48), expected.astype(np.uint8))


def _cheapest_order(in_sizes, out_sizes, supports, identity):
    """The pass order by DALI's cost estimate, written out: of the orders of the resized axes
    (lexicographic), the first of least sum of values produced x (taps x 1.4 along the last
    axis, else 1, + 3)."""
    axes = [a for a in range(len(in_sizes)) if not identity[a]]
    best, best_cost = axes, None
    for order in itertools.permutations(axes):
        sizes, cost = list(in_sizes), 0.0
        for a in order:
            sizes[a] = out_sizes[a]
            tap = 1.4 if a == len(in_sizes) - 1 else 1.0
            cost += math.prod(sizes) * (supports[a] * tap + 3.0)
        if best_cost is None or cost < best_cost:
            best, best_cost = list(order), cost
    return best


def test_pass_order_is_the_cheapest():
    # the order both engines take from resample_filter.h, against the cost written out; the
    # sizes make near ties and both orders of two axes occur
    seen = set()
    for _ in range(3000):
        n = int(RNG.integers(1, 4))
        in_sizes = RNG.integers(1, 400, n).tolist()
        out_sizes = RNG.integers(1, 400, n).tolist()
        supports = RNG.integers(1, 12, n).tolist()
        identity = (RNG.random(n) < 0.2).tolist()
        got = resample.pass_order(in_sizes, out_sizes, supports, identity)
        assert got == _cheapest_order(in_sizes, out_sizes, supports, identity)
        seen.add(tuple(got))
    assert {(0, 1), (1, 0), (0, 1, 2), (2, 1, 0), ()} <= seen
    # exact ties keep the first order
    assert resample.pass_order([10, 10], [10, 10], [2, 2], [False, False]) == [0, 1]


@pytest.mark.parametrize("interp", [Interp.INTERP_LINEAR, Interp.INTERP_LANCZOS3])
def test_input_span_holds_what_the_window_reads(interp):
    for n_in, n_out, lo, hi in ((50, 20, 0.0, 50.0), (50, 20, 48.0, 3.5), (10, 37, 2.0, 9.0)):
        f = _resampling.axis_filter(int(interp), n_in, n_out, lo, hi)
        for a, b in ((0, n_out), (3, 11), (5, 6), (7, 7)):
            first, last = resample.input_span(f.starts, f.support, f.identity, a, b)
            if b <= a:
                assert (first, last) == (a, a)
                continue
            read = f.starts[a:b, None] + np.arange(f.support)
            assert (first, last) == (read.min(), read.max() + 1)
    with pytest.raises(ValueError, match="outside"):
        resample.input_span(f.starts, f.support, False, 0, len(f.starts) + 1)


def test_even_end_counts_whole_vectors_of_the_full_row():
    assert resample.even_end(37, 3, 0, 37) == -1            # the whole row: the kernel's rule
    assert resample.even_end(37, 3, 0, 20) == 96             # 111 values: 6 vectors of 16
    assert resample.even_end(37, 3, 10, 30) == 96 - 30      # seen from the window's start
    assert resample.even_end(37, 3, 33, 37) == 0             # past the last whole vector
