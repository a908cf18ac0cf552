"""The one_hot kernel: every index type and element size against NumPy, tiled large samples
on a pool, and the checks made before it runs."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import onehot

RNG = np.random.default_rng(8)


def _encode(batch, classes, axis, word, on, off, pool=None):
    src = BatchStorage.from_arrays(batch)
    out_shapes = [x.shape[:axis] + (classes,) + x.shape[axis:] for x in batch]
    dst = BatchStorage.allocate(np.dtype(f"u{word}"), out_shapes)
    outer = np.array([int(np.prod(x.shape[:axis])) for x in batch], np.int64)
    inner = np.array([int(np.prod(x.shape[axis:])) for x in batch], np.int64)
    onehot.one_hot_batch(pool, src, dst, outer, inner, classes, on, off)
    return dst.samples()


@pytest.mark.parametrize("in_type", [np.int8, np.uint16, np.int32, np.uint32, np.int64,
                                     np.uint64, np.float32, np.float64])
@pytest.mark.parametrize("word", [1, 2, 4, 8])
def test_types_equal_numpy(in_type, word):
    batch = [RNG.uniform(0, 9, (4, 5)).astype(in_type), np.zeros((0, 5), in_type)]
    on, off = 2 ** (8 * word) - 1, 7
    for axis in (0, 1, 2):
        for x, o in zip(batch, _encode(batch, 6, axis, word, on, off), strict=True):
            idx = np.expand_dims(np.trunc(x.astype(np.float64)), axis)
            classes = np.arange(6).reshape((-1,) + (1,) * (2 - axis))
            want = np.where(idx == classes, np.uint64(on), np.uint64(off))
            np.testing.assert_array_equal(o, want)


def test_tiled_on_a_pool():
    batch = [RNG.integers(0, 500, (3000, 4)).astype(np.int32) for _ in range(2)]
    for x, o in zip(batch, _encode(batch, 500, 1, 4, 1, 0, ThreadPool(3)), strict=True):
        np.testing.assert_array_equal(o, (x[:, None, :] == np.arange(500)[:, None]))


def test_checks_before_running():
    src = BatchStorage.from_arrays([np.zeros(3, np.int32)])
    dst = BatchStorage.allocate(np.float32, [(3, 4)])
    with pytest.raises(ValueError, match="unsupported index type bool"):
        onehot.one_hot_batch(None, BatchStorage.from_arrays([np.zeros(3, np.bool_)]), dst,
                             [3], [1], 4, 1, 0)
    with pytest.raises(ValueError, match="destination's sample sizes"):
        onehot.one_hot_batch(None, src, dst, [3], [1], 5, 1, 0)
    with pytest.raises(ValueError, match="source's sample sizes"):
        onehot.one_hot_batch(None, src, dst, [2], [1], 4, 1, 0)
    with pytest.raises(ValueError, match="num_classes must not be negative"):
        onehot.one_hot_batch(None, src, dst, [3], [1], -1, 1, 0)
