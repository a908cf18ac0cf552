"""The gather kernel: frames of random sequences gathered into new sequences and whole samples
into a permuted batch, against NumPy indexing, on the caller and on a pool, and the checks
made before it runs."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import gather

RNG = np.random.default_rng(12)


@pytest.mark.parametrize("threads", [None, 2])
@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float64])
def test_frames_equal_numpy_indexing(threads, dtype):
    pool = ThreadPool(threads) if threads else None
    batch = [RNG.integers(0, 100, (int(RNG.integers(1, 6)), 3, 2)).astype(dtype)
             for _ in range(5)]
    src = BatchStorage.from_arrays(batch)
    sources = RNG.integers(0, 5, 7)
    orders = [RNG.integers(0, len(batch[s]), int(RNG.integers(0, 4))) for s in sources]
    dst = BatchStorage.allocate(np.dtype(dtype), [(len(o), 3, 2) for o in orders])
    fbytes = np.array([x[0].nbytes for x in batch])
    start = np.concatenate([[0], np.cumsum([len(o) for o in orders])])
    gather.gather_batch(pool, src, dst, sources, fbytes, np.concatenate(orders), start)
    for s, o, out in zip(sources, orders, dst.samples(), strict=True):
        np.testing.assert_array_equal(out, batch[s][o])


def test_whole_samples():
    batch = [RNG.integers(0, 100, (200, 300, 3)).astype(np.uint8) for _ in range(3)]
    src = BatchStorage.from_arrays(batch)
    dst = BatchStorage.allocate(np.uint8, [batch[i].shape for i in (2, 0, 2)])
    gather.gather_batch(ThreadPool(3), src, dst, [2, 0, 2], [x.nbytes for x in batch], [0] * 3,
                        [0, 1, 2, 3])
    for i, out in zip((2, 0, 2), dst.samples(), strict=True):
        np.testing.assert_array_equal(out, batch[i])


@pytest.mark.parametrize("threads", [None, 2])
def test_large_output_streamed(threads):
    # 24 MiB out, above the streaming threshold; odd frame sizes put the destination frames at
    # every alignment, so the streaming copy's unaligned head and tail are checked too
    batch = [RNG.integers(0, 256, (3, 1001, 1001 + i, 3), dtype=np.uint8) for i in range(2)]
    src = BatchStorage.from_arrays(batch)
    orders = [[2, 0, 1, 0], [1, 1, 2, 0]]
    dst = BatchStorage.allocate(np.uint8, [(4, 1001, 1001 + i, 3) for i in range(2)])
    gather.gather_batch(ThreadPool(threads) if threads else None, src, dst, [0, 1],
                        [x[0].nbytes for x in batch], np.concatenate(orders), [0, 4, 8])
    for x, o, out in zip(batch, orders, dst.samples(), strict=True):
        np.testing.assert_array_equal(out, x[o])


def test_checks_before_running():
    src = BatchStorage.from_arrays([np.zeros((3, 2), np.uint8)])
    dst = BatchStorage.allocate(np.uint8, [(2, 2)])
    with pytest.raises(ValueError, match=r"sample 0: frame 3 out of range \[0, 3\)"):
        gather.gather_batch(None, src, dst, [0], [2], [0, 3], [0, 2])
    with pytest.raises(ValueError, match=r"sample 0: source sample 1 out of range \[0, 1\)"):
        gather.gather_batch(None, src, dst, [1], [2], [0, 1], [0, 2])
    with pytest.raises(ValueError, match="sample 0: 4 bytes, not 1 frames of 2"):
        gather.gather_batch(None, src, dst, [0], [2], [0], [0, 1])
    with pytest.raises(ValueError, match="frames of 4 bytes do not divide its 6 bytes"):
        gather.gather_batch(None, src, dst, [0], [4], [0], [0, 1])
    with pytest.raises(ValueError, match="start must rise from 0"):
        gather.gather_batch(None, src, dst, [0], [2], [0, 1], [0, 3])
