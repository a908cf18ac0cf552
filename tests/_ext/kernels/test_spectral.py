"""The spectral kernels (spectral.pyx on fft.h) and axis_matmul called directly: FFT sizes of
every radix path against NumPy, the same results from one thread, a pool and several callers
at once, and the checks of their arguments."""

import threading

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import axis_matmul, spectral


def power(x, nfft, pool=None):
    src = BatchStorage.from_arrays([x])
    dst = BatchStorage.allocate(np.float32, [(x.shape[0], nfft // 2 + 1)])
    spectral.power_spectrum_batch(pool, src, dst, [spectral.RealFFT(nfft)], 1, 2)
    return dst.samples()[0]


@pytest.mark.parametrize("nfft", [3, 4, 5, 6, 7, 8, 9, 12, 25, 49, 98, 128, 210, 343, 1024,
                                  1031, 2310])
def test_fft_sizes(nfft):
    x = np.random.default_rng(nfft).standard_normal((20, nfft)).astype(np.float32)
    want = np.abs(np.fft.rfft(x.astype(np.float64), axis=1)) ** 2
    np.testing.assert_allclose(power(x, nfft, ThreadPool(2)), want, rtol=1e-4,
                               atol=1e-5 * want.max())


def _spectrogram(batch, pool):
    fft = spectral.RealFFT(256)
    windows = [spectral.num_windows(len(x), 200, 80, True) for x in batch]
    src = BatchStorage.from_arrays(batch)
    dst = BatchStorage.allocate(np.float32, [(129, w) for w in windows])
    spectral.spectrogram_batch(pool, src, dst, fft, np.hanning(200), 80, True, True, 2, False)
    return dst.samples()


def test_pool_and_concurrent_callers_agree():
    rng = np.random.default_rng(1)
    batch = [rng.standard_normal(n).astype(np.float32) for n in (5000, 3, 700, 12345, 90)]
    want = _spectrogram(batch, None)
    pool = ThreadPool(3)
    results = [None] * 4

    def work(k):
        results[k] = _spectrogram(batch, pool)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got in results:
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)


def test_argument_checks():
    src = BatchStorage.from_arrays([np.ones(100, np.float32)])
    bad = BatchStorage.allocate(np.float32, [(129, 1)])
    with pytest.raises(ValueError, match="destination shapes"):
        spectral.spectrogram_batch(None, src, bad, spectral.RealFFT(256), np.ones(200), 80,
                                   True, True, 2, False)
    with pytest.raises(ValueError, match="positive"):
        spectral.RealFFT(0)
    matrix = axis_matmul.AxisMatrix(np.eye(3))
    with pytest.raises(ValueError, match="do not match the matrices"):
        axis_matmul.matmul_axis_batch(None, BatchStorage.from_arrays([np.ones((4, 2),
                                                                              np.float32)]),
                                      BatchStorage.allocate(np.float32, [(3, 2)]), [matrix], 0)


def test_banded_matrix_skips_zeros():
    w = np.zeros((3, 6), np.float32)
    w[0, 1:3], w[1, 2:5], w[2, 5] = 1, 2, 3
    m = axis_matmul.AxisMatrix(w)
    assert m.macs == 2 + 3 + 1
    x = np.random.default_rng(0).random((6, 40)).astype(np.float32)
    dst = BatchStorage.allocate(np.float32, [(3, 40)])
    axis_matmul.matmul_axis_batch(None, BatchStorage.from_arrays([x]), dst, [m], 0)
    np.testing.assert_allclose(dst.samples()[0], w @ x, rtol=1e-6)


def _few_columns_reference(w, x):
    """axis_matmul.h's sums for fewer than 16 columns, in float32: per row and column four
    partial sums over the row's band [lo, hi) in steps of four, the rest into the first one,
    then (p0 + p1) + (p2 + p3)."""
    out = np.zeros((x.shape[0], w.shape[0], x.shape[2]), np.float32)
    for r in range(w.shape[0]):
        nz = np.flatnonzero(w[r])
        if not nz.size:
            continue
        lo, hi = nz[0], nz[-1] + 1
        part = np.zeros((4, x.shape[0], x.shape[2]), np.float32)
        k = lo
        while k + 4 <= hi:
            for b in range(4):
                part[b] += w[r, k + b] * x[:, k + b, :]
            k += 4
        for rest in range(k, hi):
            part[0] += w[r, rest] * x[:, rest, :]
        out[:, r, :] = (part[0] + part[1]) + (part[2] + part[3])
    return out


@pytest.mark.parametrize("inner", range(1, 16))
def test_few_columns_sum_in_a_fixed_order(inner):
    """Fewer than 16 columns (two at a time in SIMD lanes, then one): the same float32 sums,
    bit for bit, as the order the kernel states, for bands of every length."""
    rng = np.random.default_rng(inner)
    w = rng.standard_normal((9, 13)).astype(np.float32)
    for r in range(9):                     # row r: a band of r + 1 columns from column r // 2
        w[r, :r // 2] = 0
        w[r, r // 2 + r + 1:] = 0
    w[8, 6] = -0.0
    x = rng.standard_normal((3, 13, inner)).astype(np.float32)
    x[1, :, 0] = -0.0
    src = BatchStorage.from_arrays([x])
    dst = BatchStorage.allocate(np.float32, [(3, 9, inner)])
    axis_matmul.matmul_axis_batch(None, src, dst, [axis_matmul.AxisMatrix(w)], 1)
    want = _few_columns_reference(w, x)
    np.testing.assert_array_equal(dst.samples()[0].view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("shape, axis", [((3, 400, 5000), 1), ((1, 400, 20000), 1),
                                         ((20000, 400), 1), ((2, 5), 0)])
def test_large_samples_split_into_items_give_the_same_values(shape, axis):
    """Samples of over a million multiply-adds are cut into work items (outer rows, or inner
    columns when there is one outer row): the values of one item, on a pool or not."""
    rng = np.random.default_rng(len(shape))
    m = axis_matmul.AxisMatrix(rng.standard_normal((7, shape[axis])).astype(np.float32))
    x = rng.standard_normal(shape).astype(np.float32)
    out_shape, small_shape = list(shape), [1] * len(shape)
    out_shape[axis] = small_shape[axis] = shape[axis]
    out_shape[axis] = 7
    small = np.ones(small_shape, np.float32)
    small_out = small_shape.copy()
    small_out[axis] = 7
    got = []
    for pool in (None, ThreadPool(2, inline_cost=0.0)):
        dst = BatchStorage.allocate(np.float32, [tuple(out_shape), tuple(small_out)])
        src = BatchStorage.from_samples([x, small])
        axis_matmul.matmul_axis_batch(pool, src, dst, [m, m], axis)
        got.append([s.copy() for s in dst.samples()])
    want = np.moveaxis(np.tensordot(m.weights.astype(np.float64), x.astype(np.float64),
                                    axes=([1], [axis])), 0, axis)
    np.testing.assert_allclose(got[0][0], want, rtol=1e-4, atol=1e-4)
    for a, b in zip(got[0], got[1], strict=True):
        np.testing.assert_array_equal(a, b)


def test_matrix_and_shape_checks():
    m = axis_matmul.AxisMatrix(np.ones((3, 4), np.float32))
    src = BatchStorage.from_arrays([np.ones((2, 4), np.float32)])
    with pytest.raises(ValueError, match="destination shapes do not match"):
        axis_matmul.matmul_axis_batch(None, src, BatchStorage.allocate(np.float32, [(2, 4)]),
                                      [m], 1)
    with pytest.raises(ValueError, match="must match and have the axis"):
        axis_matmul.matmul_axis_batch(None, src, BatchStorage.allocate(np.float32, [(2, 3)]),
                                      [m], 2)
    with pytest.raises(TypeError):
        axis_matmul.matmul_axis_batch(None, src, BatchStorage.allocate(np.float32, [(2, 3)]),
                                      ["not a matrix"], 1)

