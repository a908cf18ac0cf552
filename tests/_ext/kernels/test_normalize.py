"""The normalize kernel's batch entry point: every pass against NumPy (rows with a tail,
planes of short rows added a block at a time, long kept rows, outer groups, extents of 1),
samples of every size on the pool or on the caller, every argument checked before anything
runs, safe from several threads."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import normalize

RNG = np.random.default_rng(6)
F32 = np.float32


def _poff(samples, reduced):
    counts = [int(np.prod([e for e, r in zip(s.shape, reduced, strict=True) if not r]))
              for s in samples]
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


def _run(samples, reduced, flags, out_dtype=F32, threads=2, **kw):
    src = BatchStorage.from_arrays(samples)
    dst = BatchStorage.from_arrays([np.zeros(s.shape, out_dtype) for s in samples])
    poff = _poff(samples, reduced)
    total = int(poff[-1])
    mean = kw.pop("mean", np.zeros(total, F32))
    inv = kw.pop("inv", np.zeros(total, F32))
    sums = np.zeros(total)
    normalize.normalize_batch(ThreadPool(threads) if threads else None, src, dst, reduced,
                              poff, flags, mean, inv, sums, **kw)
    return dst.samples(), mean, inv, sums


def _params(x, reduced):
    axes = tuple(d for d, r in enumerate(reduced) if r)
    return axes, x.astype(np.float64)


@pytest.mark.parametrize("threads", [None, 2])
def test_sums_of_each_sample_into_its_own_parameters(threads):
    # (rows, 50) uint8 samples reduced over rows: one sum per column
    samples = [RNG.integers(0, 256, (n, 50), np.uint8) for n in (3000, 1, 0, 700)]
    mean = np.full(200, 100, F32)
    _, _, _, sums = _run(samples, [True, False], normalize.SQ, threads=threads, mean=mean)
    for s, acc in zip(samples, sums.reshape(4, 50), strict=True):
        np.testing.assert_allclose(acc, ((s.astype(np.float64) - 100) ** 2).sum(axis=0))
    _, _, _, sums = _run(samples, [True, False], normalize.SUM, threads=threads)
    for s, acc in zip(samples, sums.reshape(4, 50), strict=True):
        np.testing.assert_allclose(acc, s.astype(np.float64).sum(axis=0))


def test_normalize_equals_numpy():
    srcs = [RNG.random((n, 8)).astype(F32) for n in (40000, 3)]
    mean = RNG.random(8).astype(F32)
    inv = (RNG.random(8) + 0.5).astype(F32)
    outs, *_ = _run(srcs, [True, False], normalize.OUT, mean=np.tile(mean, 2),
                    inv=np.tile(inv, 2), shift=2.0)
    for s, d in zip(srcs, outs, strict=True):
        np.testing.assert_array_equal(d, (s - mean) * inv + F32(2))


@pytest.mark.parametrize("shape, reduced", [
    ((5, 7, 3), [True, True, False]),         # a plane of 35 rows of 3: a block and a rest
    ((4, 130), [True, False]),                # kept rows longer than a block
    ((3, 37), [False, True]),                 # reduced rows with a tail of 5
    ((2, 3, 4, 5), [False, True, False, True]),
    ((6, 1, 4), [True, False, True]),         # the extent of 1 dropped: one row of 24
    ((9,), [False]),                          # nothing reduced
    ((64, 64, 3), [True, True, True]),
])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, F32])
def test_fused_statistics_and_output_against_numpy(shape, reduced, dtype):
    samples = [(RNG.random(shape) * 200).astype(dtype) for _ in range(3)]
    out_dtype = np.uint8 if dtype == np.int16 else F32
    poff = _poff(samples, reduced)
    outs, mean, inv, _ = _run(samples, reduced, normalize.MEAN | normalize.INV | normalize.OUT,
                              out_dtype, mean=np.zeros(int(poff[-1]), F32),
                              inv=np.zeros(int(poff[-1]), F32), scale=3.0, shift=4.0, ddof=1)
    for i, (x, o) in enumerate(zip(samples, outs, strict=True)):
        axes, w = _params(x, reduced)
        count = int(np.prod([shape[a] for a in axes]))
        m = mean[poff[i]:poff[i + 1]].reshape(w.mean(axis=axes, keepdims=True).shape)
        f = inv[poff[i]:poff[i + 1]].reshape(m.shape)
        np.testing.assert_allclose(m, w.mean(axis=axes, keepdims=True), rtol=1e-6, atol=1e-6)
        var = ((w - m) ** 2).sum(axis=axes, keepdims=True) / (count - 1) if count > 1 else 0
        want_f = np.where(var > 0, 3.0 / np.sqrt(np.where(var > 0, var, 1)), 0)
        np.testing.assert_allclose(f, want_f, rtol=1e-6)
        y = (x.astype(F32) - m) * f + F32(4)
        if out_dtype == np.uint8:
            y = np.clip(np.where(y >= 0, np.floor(y + F32(0.5)), np.ceil(y - F32(0.5))), 0, 255)
        np.testing.assert_array_equal(o, y.astype(out_dtype))


def test_everything_is_checked_before_anything_runs():
    src = BatchStorage.from_arrays([np.ones((4, 3), F32)] * 2)
    dst = BatchStorage.from_arrays([np.zeros((4, 3), F32), np.zeros((2, 3), F32)])
    poff = np.array([0, 3, 6], np.int64)
    mean, inv = np.zeros(6, F32), np.ones(6, F32)
    with pytest.raises(ValueError, match="src and dst must have the same shapes"):
        normalize.normalize_batch(ThreadPool(2), src, dst, [True, False], poff, normalize.OUT,
                                  mean, inv)
    assert not any(d.any() for d in dst.samples())
    with pytest.raises(ValueError, match="mean needs 6 values"):
        normalize.normalize_batch(None, src, dst, [True, False], poff, normalize.SQ,
                                  mean[:2], sums=np.zeros(6))
    with pytest.raises(ValueError, match="poff does not match"):
        normalize.normalize_batch(None, src, dst, [False, True], poff, normalize.SUM,
                                  sums=np.zeros(6))
    wide = BatchStorage.from_arrays([np.ones((4, 3))])
    with pytest.raises(TypeError, match="unsupported type"):
        normalize.normalize_batch(None, wide, wide, [True, False], poff[:2], normalize.SUM,
                                  sums=np.zeros(3))


def test_from_several_threads():
    x = [RNG.random((64, 3), dtype=F32) for _ in range(4)]
    want, *_ = _run(x, [True, False], normalize.OUT, mean=np.full(12, 0.5, F32),
                    inv=np.full(12, 2.0, F32))

    def job(_):
        _, mean, _, _ = _run(x, [True, False], normalize.MEAN | normalize.INV |
                                 normalize.OUT, threads=None)
        fixed, *_ = _run(x, [True, False], normalize.OUT, threads=None,
                         mean=np.full(12, 0.5, F32), inv=np.full(12, 2.0, F32))
        return fixed, mean

    with ThreadPoolExecutor(4) as pool:
        for fixed, mean in pool.map(job, range(16)):
            for a, b in zip(fixed, want, strict=True):
                np.testing.assert_array_equal(a, b)
            np.testing.assert_allclose(mean.reshape(4, 3),
                                       [s.astype(np.float64).mean(0) for s in x], rtol=1e-6)
