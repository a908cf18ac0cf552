"""The fill kernel: patterns of every length repeated over samples of every size, one shared
pattern, zero patterns, tiled large samples on a pool, and the checks made before it runs."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import fill

RNG = np.random.default_rng(4)


@pytest.mark.parametrize("threads", [None, 3])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64])
def test_patterns_repeated_equal_numpy(threads, dtype):
    pool = ThreadPool(threads) if threads else None
    patterns = [RNG.integers(0, 100, k).astype(dtype) for k in (1, 3, 7, 1, 2)]
    patterns[3][:] = 0
    reps = [5, 0, 40000, 3, 1]
    shapes = [(r, len(p)) for r, p in zip(reps, patterns, strict=True)]
    dst = BatchStorage.allocate(np.dtype(dtype), shapes)
    fill.fill_batch(pool, BatchStorage.from_arrays([p.reshape(1, -1) for p in patterns]), dst)
    for p, r, o in zip(patterns, reps, dst.samples(), strict=True):
        np.testing.assert_array_equal(o, np.tile(p, (r, 1)))


def test_one_shared_pattern():
    dst = BatchStorage.allocate(np.dtype(np.int32), [(3, 2), (500, 700), (0, 4)])
    fill.fill_batch(ThreadPool(2), BatchStorage.from_arrays([np.array(-7, np.int32)]), dst)
    for o in dst.samples():
        assert (o == -7).all()


def test_checks_before_running():
    dst = BatchStorage.allocate(np.dtype(np.uint8), [(5,), (6,)])
    three = BatchStorage.from_arrays([np.zeros(3, np.uint8)] * 2)
    with pytest.raises(ValueError, match="sample 0: 5 bytes are not a multiple of the pattern's 3"):
        fill.fill_batch(None, three, dst)
    with pytest.raises(ValueError, match="3 patterns for 2 samples"):
        fill.fill_batch(None, BatchStorage.from_arrays([np.zeros(1, np.uint8)] * 3), dst)
    with pytest.raises(ValueError, match="the patterns are float32"):
        fill.fill_batch(None, BatchStorage.from_arrays([np.zeros(1, np.float32)]), dst)
