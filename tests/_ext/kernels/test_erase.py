"""The erase kernel: random boxes (clipped, overlapping, empty) with one or per-channel fill
values on samples of several ranks and types, against NumPy, on the caller and on a pool; and
the checks made before it runs."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import erase


@pytest.mark.parametrize("threads", [None, 2])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64])
def test_random_boxes_equal_numpy(threads, dtype):
    rng = np.random.default_rng(5)
    pool = ThreadPool(threads) if threads else None
    for _ in range(20):
        ndim = int(rng.integers(1, 5))
        xs = [(rng.random(tuple(rng.integers(1, 7, ndim))) * 100).astype(dtype)
              for _ in range(3)]
        channel = int(rng.integers(0, ndim))
        nfill = int(rng.choice([1, 2]))
        if nfill == 2:
            xs = [np.repeat(x.take([0], axis=channel), 2, axis=channel) for x in xs]
        counts = rng.integers(0, 4, len(xs))
        boxes = [np.sort(rng.integers(-2, 9, (2, ndim)), axis=0) for _ in range(counts.sum())]
        fill = rng.integers(-50, 50, (len(xs), nfill)).astype(dtype)
        starts = np.concatenate([[0], np.cumsum(counts)])
        src = BatchStorage.from_arrays(xs)
        dst = BatchStorage.allocate(dtype, [x.shape for x in xs])
        erase.erase_batch(pool, src, dst, np.array(boxes, np.int64).reshape(-1, 2, ndim),
                          starts, fill, channel)
        for i, (x, got) in enumerate(zip(xs, dst.samples(), strict=True)):
            want = x.copy()
            value = fill[i].reshape([-1 if d == channel and nfill > 1 else 1
                                     for d in range(ndim)])
            for lo, hi in boxes[starts[i]:starts[i + 1]]:
                index = tuple(slice(max(a, 0), max(b, 0)) for a, b in zip(lo, hi, strict=True))
                want[index] = np.broadcast_to(value, want.shape)[index]
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kwargs, message", [
    ({"starts": [0, 2]}, "starts must rise from 0 to 1"),
    ({"fill": np.zeros((1, 2), np.uint8)}, "per-channel fill values need a channel axis"),
    ({"dst_shape": (3, 3)}, "same type and shapes"),
])
def test_checks(kwargs, message):
    src = BatchStorage.from_arrays([np.zeros((2, 3), np.uint8)])
    dst = BatchStorage.allocate(np.uint8, [kwargs.pop("dst_shape", (2, 3))])
    args = {"boxes": np.zeros((1, 2, 2)), "starts": [0, 1], "fill": np.zeros((1, 1), np.uint8),
            **kwargs}
    with pytest.raises(ValueError, match=message):
        erase.erase_batch(None, src, dst, **args)
