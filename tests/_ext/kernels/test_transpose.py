"""The transpose kernel against NumPy's transpose: every permutation of small shapes (extents
of 1 collapse away), every element size, the images' HWC <-> CHW, large samples cut into
pieces, ragged and per-sample batches, on the caller and on a pool."""

import itertools
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import transpose

DTYPES = [np.uint8, np.int16, np.float32, np.float64, np.dtype("V3"), np.dtype("V12")]


def _array(shape, dtype, rng):
    dtype = np.dtype(dtype)
    raw = rng.integers(0, 256, int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(5,), (3, 7), (1, 6), (4, 1, 3), (2, 3, 4), (6, 5, 4, 3),
                                   (2, 1, 3, 1, 2)], ids=str)
def test_every_permutation(dtype, shape):
    x = _array(shape, dtype, np.random.default_rng(0))
    for perm in itertools.permutations(range(len(shape))):
        want = x.transpose(perm)
        got = np.empty(want.shape, x.dtype)
        transpose.transpose_array(x, got, perm)
        assert got.tobytes() == np.ascontiguousarray(want).tobytes(), perm


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("perm", [(2, 0, 1), (1, 2, 0), (1, 0, 2), (2, 1, 0)], ids=str)
@pytest.mark.parametrize("channels", [1, 2, 3, 4, 5, 40])
def test_images(dtype, perm, channels):
    x = _array((37, 70, channels), dtype, np.random.default_rng(1))
    want = np.ascontiguousarray(x.transpose(perm))
    got = np.empty(want.shape, x.dtype)
    transpose.transpose_array(x, got, perm)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("per_sample", [False, True])
@pytest.mark.parametrize("pool", [None, ThreadPool(3, inline_cost=0)], ids=["caller", "pool"])
@pytest.mark.parametrize("perm", [(2, 0, 1), (1, 2, 0), (0, 2, 1), (2, 1, 0)], ids=str)
def test_batches(per_sample, pool, perm):
    rng = np.random.default_rng(2)
    shapes = [(3, 4, 3), (0, 4, 3), (700, 500, 3), (1, 1, 1), (1, 70001, 2), (300, 2, 900)]
    samples = [_array(s, np.uint8, rng) for s in shapes]
    src = BatchStorage.from_samples(samples) if per_sample else BatchStorage.from_arrays(samples)
    dst = BatchStorage.allocate(np.uint8, [tuple(s[p] for p in perm) for s in shapes])
    transpose.transpose_batch(pool, src, dst, perm)
    for got, x in zip(dst.samples(), samples, strict=True):
        np.testing.assert_array_equal(got, x.transpose(perm))


def test_checks():
    src = BatchStorage.from_dense(np.zeros((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match="permuted"):
        transpose.transpose_batch(None, src, BatchStorage.allocate(np.float32, [(3, 4)] * 2),
                                  (1, 0))
    with pytest.raises(ValueError, match="permutation"):
        transpose.transpose_batch(None, src, BatchStorage.allocate(np.float32, [(4, 3)] * 2),
                                  (0, 0))
    with pytest.raises(ValueError, match="type"):
        transpose.transpose_batch(None, src, BatchStorage.allocate(np.int32, [(4, 3)] * 2),
                                  (1, 0))
    with pytest.raises(ValueError, match="contiguous"):
        transpose.transpose_batch(None, src, BatchStorage.from_samples([np.zeros((4, 3))] * 2),
                                  (1, 0))
    with pytest.raises(ValueError, match="permuted"):
        transpose.transpose_array(np.zeros((3, 4)), np.zeros((3, 4)), (1, 0))


def test_threads_at_once():
    pool = ThreadPool(2, inline_cost=0)
    x = _array((64, 224, 224, 3), np.uint8, np.random.default_rng(3))
    src = BatchStorage.from_dense(x)
    outs = [BatchStorage.allocate(np.uint8, [(3, 224, 224)] * 64) for _ in range(4)]
    with ThreadPoolExecutor(4) as ex:
        list(ex.map(lambda o: transpose.transpose_batch(pool, src, o, (2, 0, 1)), outs))
    want = x.transpose(0, 3, 1, 2)
    for o in outs:
        np.testing.assert_array_equal(o.dense(), want)
