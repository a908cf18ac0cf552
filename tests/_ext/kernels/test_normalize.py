"""The normalize kernel's batch entry points: slabs on the pool with the values of one call
each (checked against NumPy), sums of separate slabs kept apart, every job checked first."""

import numpy as np
import pytest
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import normalize

RNG = np.random.default_rng(6)


@pytest.mark.parametrize("threads", [None, 2])
def test_accumulate_batch_sums_each_slab_into_its_own_sums(threads):
    # (rows, 50) uint8 slabs reduced over rows: one sum per column
    slabs = [RNG.integers(0, 256, (n, 50), np.uint8) for n in (3000, 1, 0, 700)]
    sums = [np.zeros(50) for _ in slabs]
    mean = np.full(50, 100, np.float32)
    normalize.accumulate_batch(ThreadPool(threads) if threads else None,
                               [(s, acc, [0, 1], mean) for s, acc in zip(slabs, sums,
                                                                         strict=True)])
    for s, acc in zip(slabs, sums, strict=True):
        np.testing.assert_allclose(acc, ((s.astype(np.float64) - 100) ** 2).sum(axis=0))


def test_normalize_batch_equals_numpy():
    srcs = [RNG.random((n, 8)).astype(np.float32) for n in (40000, 3)]
    dsts = [np.zeros((n, 8), np.float32) for n in (40000, 3)]
    mean = RNG.random(8).astype(np.float32)
    inv = (RNG.random(8) + 0.5).astype(np.float32)
    normalize.normalize_batch(ThreadPool(2), [(s, d, [0, 1], mean, inv, 2.0)
                                              for s, d in zip(srcs, dsts, strict=True)])
    for s, d in zip(srcs, dsts, strict=True):
        np.testing.assert_array_equal(d, (s - mean) * inv + np.float32(2))


def test_every_job_is_checked_before_any_runs():
    src = np.ones((4, 3), np.float32)
    dst = np.zeros((4, 3), np.float32)
    mean, inv = np.zeros(3, np.float32), np.ones(3, np.float32)
    with pytest.raises(ValueError, match="src and dst must have the same size"):
        normalize.normalize_batch(ThreadPool(2), [(src, dst, [0, 1], mean, inv, 0.0),
                                                  (src, dst[:2], [0, 1], mean, inv, 0.0)])
    assert not dst.any()
    with pytest.raises(ValueError, match="mean needs as many values as sums"):
        normalize.accumulate_batch(None, [(src, np.zeros(3), [0, 1], mean[:2])])
