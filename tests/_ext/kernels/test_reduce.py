"""The reduction kernel: every operation over random shapes, axes and types against NumPy, on
the caller and on a pool, integer outputs wrapping as DALI's, NaN and empty reductions, and
the checks made before it runs."""

import itertools

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import reduce

RNG = np.random.default_rng(9)


def _reduce(batch, op, axes, out_type, pool=None, mean=None, ddof=0):
    flags = np.isin(np.arange(batch[0].ndim), axes)
    src = BatchStorage.from_arrays(batch)
    dst = BatchStorage.allocate(np.dtype(out_type),
                                [tuple(int(e) for e in np.array(x.shape, int)[~flags])
                                 for x in batch])
    reduce.reduce_batch(pool, src, dst, op, flags,
                        None if mean is None else BatchStorage.from_arrays(mean), ddof)
    return dst.samples()


def _numpy(x, op, axes, mean=None, ddof=0):
    x64 = x.astype(np.float64)
    if op == "min":
        return x.min(axis=axes)
    if op == "max":
        return x.max(axis=axes)
    if op == "sum":
        return x64.sum(axis=axes)
    if op == "mean":
        return x64.mean(axis=axes)
    if op == "mean_square":
        return (x64 ** 2).mean(axis=axes)
    if op == "rms":
        return np.sqrt((x64 ** 2).mean(axis=axes))
    m = mean.astype(np.float64).reshape(np.mean(x64, axis=axes, keepdims=True).shape
                                        if mean.size > 1 else ())
    var = ((x64 - m) ** 2).sum(axis=axes) / (np.prod([x.shape[a] for a in axes]) - ddof)
    return var if op == "variance" else np.sqrt(var)


@pytest.mark.parametrize("threads", [None, 2])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.uint64, np.float32])
@pytest.mark.parametrize("op", ["min", "max", "sum", "mean", "mean_square", "rms"])
def test_random_shapes_and_axes_equal_numpy(threads, dtype, op):
    pool = ThreadPool(threads) if threads else None
    out_type = dtype if op in ("min", "max") else np.float32
    for ndim in (1, 2, 3, 4):
        for k in range(ndim + 1):
            for axes in itertools.combinations(range(ndim), k):
                shapes = [tuple(RNG.integers(1, 6, ndim)) for _ in range(3)]
                batch = [(RNG.random(s) * 100).astype(dtype) for s in shapes]
                for x, o in zip(batch, _reduce(batch, op, axes, out_type, pool), strict=True):
                    want = _numpy(x, op, axes)
                    assert o.shape == np.shape(want)
                    np.testing.assert_allclose(o, want, rtol=1e-6)


@pytest.mark.parametrize("op", ["variance", "std_dev"])
@pytest.mark.parametrize("ddof", [0, 1])
def test_centred_with_scalar_and_per_output_means(op, ddof):
    for axes in [(0,), (1,), (0, 2), (0, 1, 2)]:
        batch = [(RNG.random((4, 5, 3)) * 10).astype(np.float32) for _ in range(2)]
        for per_output in (False, True):
            mean = [np.mean(x, axis=axes).astype(np.float32) if per_output
                    else np.float32(RNG.random() * 10) for x in batch]
            out = _reduce(batch, op, axes, np.float32, mean=mean, ddof=ddof)
            for x, m, o in zip(batch, mean, out, strict=True):
                np.testing.assert_allclose(o, _numpy(x, op, axes, np.asarray(m), ddof),
                                           rtol=1e-5)


def test_integer_outputs_wrap_and_truncate_as_dali():
    batch = [np.array([250, 10], np.uint8), np.array(np.arange(24) * 10, np.uint8)]
    assert [o.item() for o in _reduce(batch, "sum", (0,), np.uint8)] == [4, 2760 % 256]
    assert [o.item() for o in _reduce(batch, "mean", (0,), np.uint8)] == [2, 2760 % 256 // 24]
    neg = [np.array([-1, -2], np.int16), np.array([-3, -4, -4, -4], np.int16)]
    assert [o.item() for o in _reduce(neg, "mean", (0,), np.int16)] == [-1, -3]
    assert [o.item() for o in _reduce(neg, "rms", (0,), np.int16)] == [1, 3]
    big = [np.full(10, 2 ** 62, np.int64)]
    assert _reduce(big, "sum", (0,), np.int64)[0].item() == (10 * 2 ** 62 + 2 ** 63) % 2 ** 64 \
        - 2 ** 63


def test_nan_and_empty_reductions():
    x = [np.array([np.nan, 1, 2], np.float32), np.array([2, np.nan, 1], np.float32)]
    assert [o.item() for o in _reduce(x, "min", (0,), np.float32)] == [1, 1]
    assert [o.item() for o in _reduce(x, "max", (0,), np.float32)] == [2, 2]
    e = [np.zeros((0, 3), np.float32)]
    f32 = np.finfo(np.float32)
    assert _reduce(e, "min", (0,), np.float32)[0].tolist() == [f32.max] * 3
    assert _reduce(e, "max", (0,), np.float32)[0].tolist() == [f32.min] * 3
    assert _reduce(e, "sum", (0,), np.float32)[0].tolist() == [0] * 3
    assert np.isnan(_reduce(e, "mean", (0,), np.float32)[0]).all()
    assert _reduce([np.zeros((0, 3), np.uint8)], "min", (0,), np.uint8)[0].tolist() == [255] * 3


def test_checks_before_running():
    src = BatchStorage.from_arrays([np.zeros((2, 3), np.uint8)])
    dst = BatchStorage.allocate(np.float32, [(3,)])
    with pytest.raises(ValueError, match="unknown reduction"):
        reduce.reduce_batch(None, src, dst, "median", [1, 0])
    with pytest.raises(ValueError, match="min of uint8 cannot give float32"):
        reduce.reduce_batch(None, src, dst, "min", [1, 0])
    with pytest.raises(ValueError, match="the destination has 3 elements, the reduction gives 2"):
        reduce.reduce_batch(None, src, dst, "sum", [0, 1])
    with pytest.raises(ValueError, match="reduced must have 2 flags"):
        reduce.reduce_batch(None, src, dst, "sum", [1])
    with pytest.raises(ValueError, match="only"):
        reduce.reduce_batch(None, src, dst, "variance", [1, 0])
    mean = BatchStorage.from_arrays([np.zeros(2, np.float32)])
    with pytest.raises(ValueError, match="the mean has 2 elements, not 1 or 3"):
        reduce.reduce_batch(None, src, dst, "variance", [1, 0], mean)
