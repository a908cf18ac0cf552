"""The paste kernel: random regions of several batches (contiguous and per-sample) pasted in
order into zeroed outputs, against NumPy, on the caller and on a pool; and the checks made
before it runs."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import paste


@pytest.mark.parametrize("threads", [None, 2])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64])
def test_random_regions_equal_numpy(threads, dtype):
    rng = np.random.default_rng(3)
    pool = ThreadPool(threads) if threads else None
    for _ in range(20):
        c = int(rng.integers(1, 4))
        inputs = [[(rng.random((int(rng.integers(1, 9)), int(rng.integers(1, 9)), c)) * 100)
                   .astype(dtype) for _ in range(3)] for _ in range(2)]
        canvases = [(int(rng.integers(1, 12)), int(rng.integers(1, 12)), c) for _ in range(3)]
        dst = BatchStorage.allocate(dtype, canvases)
        dst.samples()[0][...] = 7                   # outputs are zeroed first
        rows, starts, want = [], [0], []
        for canvas in canvases:
            out = np.zeros(canvas, dtype)
            for _ in range(int(rng.integers(0, 4))):
                k, j = int(rng.integers(0, 2)), int(rng.integers(0, 3))
                src = inputs[k][j]
                h = int(rng.integers(0, min(src.shape[0], canvas[0]) + 1))
                w = int(rng.integers(0, min(src.shape[1], canvas[1]) + 1))
                iy, ix = int(rng.integers(0, src.shape[0] - h + 1)), \
                    int(rng.integers(0, src.shape[1] - w + 1))
                oy, ox = int(rng.integers(0, canvas[0] - h + 1)), \
                    int(rng.integers(0, canvas[1] - w + 1))
                out[oy:oy + h, ox:ox + w] = src[iy:iy + h, ix:ix + w]
                rows.append((k, j, iy, ix, oy, ox, h, w))
            starts.append(len(rows))
            want.append(out)
        # input 1 per sample (an external_source's arrays, one of them a strided view)
        inputs[1][0] = np.asfortranarray(inputs[1][0])
        srcs = [BatchStorage.from_arrays(inputs[0]), BatchStorage.from_samples(inputs[1])]
        paste.paste_batch(pool, srcs, dst, np.array(rows, np.int64).reshape(-1, 8), starts)
        for got, w in zip(dst.samples(), want, strict=True):
            np.testing.assert_array_equal(got, w)


def test_large_batch_streams_the_same_bytes():
    """A batch over 8 MiB is written with streaming stores (paste.h): the same bytes, for
    outputs covered by one whole-sample region (one copy), partly covered ones (zeroed first)
    and regions at odd byte offsets, on a pool."""
    rng = np.random.default_rng(5)
    srcs = [rng.integers(0, 256, (1000, 1001, 3), np.uint8) for _ in range(2)]
    canvases = [(1000, 1001, 3), (1003, 997, 3), (1000, 1001, 3)]
    rows = [(0, 0, 0, 0, 0, 0, 1000, 1001),
            (0, 1, 1, 5, 1, 7, 999, 989), (0, 0, 17, 1, 0, 0, 500, 333),
            (0, 1, 0, 0, 0, 0, 1000, 1001), (0, 0, 1, 2, 3, 4, 5, 6)]
    starts = [0, 1, 3, 5]
    dst = BatchStorage.allocate(np.uint8, canvases)
    assert dst.nbytes > 8 << 20
    for got in dst.samples():
        got[...] = 7
    paste.paste_batch(ThreadPool(2), [BatchStorage.from_samples(srcs)], dst, rows, starts)
    for i, (got, canvas) in enumerate(zip(dst.samples(), canvases, strict=True)):
        want = np.zeros(canvas, np.uint8)
        for _, j, iy, ix, oy, ox, h, w in rows[starts[i]:starts[i + 1]]:
            want[oy:oy + h, ox:ox + w] = srcs[j][iy:iy + h, ix:ix + w]
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("regions, starts, message", [
    ([[0, 0, 0, 0, 0, 0, 3, 1]], [0, 1], "inside their source samples"),
    ([[0, 0, 0, 0, 1, 0, 2, 2]], [0, 1], "inside their output samples"),
    ([[1, 0, 0, 0, 0, 0, 1, 1]], [0, 1], "region input out of range"),
    ([[0, 4, 0, 0, 0, 0, 1, 1]], [0, 1], "region source sample out of range"),
    ([[0, 0, 0, 0, 0, 0, 1, 1]], [0, 2], "starts must rise from 0 to 1"),
])
def test_checks(regions, starts, message):
    src = BatchStorage.from_arrays([np.zeros((2, 2, 1), np.uint8)])
    dst = BatchStorage.allocate(np.uint8, [(2, 2, 1)])
    with pytest.raises(ValueError, match=message):
        paste.paste_batch(None, [src], dst, regions, starts)
