"""The join kernel (fn.cat / fn.stack): random shapes, element sizes and join axes against
np.concatenate, on the caller and on a pool, tiled large samples, and the checks made before
it runs."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import join

RNG = np.random.default_rng(5)


def _join(inputs, axis, pool):
    """Concatenate per sample the batches `inputs` (lists of arrays) along `axis`."""
    srcs = [BatchStorage.from_arrays(b) for b in inputs]
    n = len(inputs[0])
    out_shapes = [np.concatenate([b[i] for b in inputs], axis=axis).shape for i in range(n)]
    dst = BatchStorage.allocate(srcs[0].dtype, out_shapes)
    itemsize = srcs[0].dtype.itemsize
    outer = np.array([int(np.prod(inputs[0][i].shape[:axis])) for i in range(n)], np.int64)
    inner = np.array([[int(np.prod(b[i].shape[axis:])) * itemsize for b in inputs]
                      for i in range(n)], np.int64)
    join.join_batch(pool, srcs, dst, outer, inner)
    return dst.samples()


@pytest.mark.parametrize("threads", [None, 3])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64])
def test_random_shapes_equal_numpy(threads, dtype):
    pool = ThreadPool(threads) if threads else None
    for ndim in range(1, 5):
        for axis in range(ndim):
            k = int(RNG.integers(1, 4))
            base = [RNG.integers(0, 5, ndim) for _ in range(5)]
            inputs = []
            for _ in range(k):
                batch = []
                for s in base:
                    s = s.copy()
                    s[axis] = RNG.integers(0, 4)
                    batch.append((RNG.random(tuple(s)) * 100).astype(dtype))
                inputs.append(batch)
            for i, out in enumerate(_join(inputs, axis, pool)):
                np.testing.assert_array_equal(out, np.concatenate([b[i] for b in inputs], axis))


@pytest.mark.parametrize("threads", [None, 2])
@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.int32, np.float64, "V3", "V16"])
@pytest.mark.parametrize("k", [2, 3])
def test_rows_of_one_element_are_interleaved(threads, dtype, k):
    """Stacking along the innermost axis: every row is one element of each input."""
    pool = ThreadPool(threads) if threads else None
    inputs = [[np.frombuffer(RNG.integers(0, 256, 4000 * np.dtype(dtype).itemsize,
                                          np.uint8).tobytes(), dtype).reshape(50, 80, 1),
               np.zeros((3, 0, 1), dtype)] for _ in range(k)]
    for i, out in enumerate(_join(inputs, 2, pool)):
        np.testing.assert_array_equal(out, np.concatenate([b[i] for b in inputs], 2))


def test_large_samples_are_tiled_and_equal_numpy():
    pool = ThreadPool(4)
    a = [RNG.integers(0, 255, (700, 500, 3), dtype=np.uint8) for _ in range(2)]
    b = [RNG.integers(0, 255, (700, 300, 3), dtype=np.uint8) for _ in range(2)]
    for i, out in enumerate(_join([a, b], 1, pool)):
        np.testing.assert_array_equal(out, np.concatenate([a[i], b[i]], 1))


def test_checks_before_running():
    src = BatchStorage.from_arrays([np.zeros((2, 3), np.uint8)])
    dst = BatchStorage.allocate(np.uint8, [(4, 3)])
    with pytest.raises(ValueError, match="outer must have shape"):
        join.join_batch(None, [src, src], dst, np.array([1, 1]), np.array([[6, 6]]))
    with pytest.raises(ValueError, match="source 1: the sample sizes"):
        join.join_batch(None, [src, src], dst, np.array([1]), np.array([[6, 5]]))
    with pytest.raises(ValueError, match="destination's sample sizes"):
        join.join_batch(None, [src], dst, np.array([1]), np.array([[6]]))
    wide = BatchStorage.from_arrays([np.zeros((2, 3), np.int16)])
    with pytest.raises(ValueError, match="element size"):
        join.join_batch(None, [src, wide], dst, np.array([1]), np.array([[6, 6]]))
