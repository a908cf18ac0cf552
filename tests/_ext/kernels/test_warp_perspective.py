"""The perspective kernel (warp.pyx `warp_perspective_batch`, warp_perspective.h): its AVX2/FMA
path gives the plain path's results bit for bit, and work items cut into row bands on a pool
give the single-call result."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage

from dali._ext import thread_pool
from dali._ext.kernels import warp

M = [0.9, 0.05, 4.0, -0.05, 0.95, 6.0, 0.0002, -0.0001, 1.0]


def _run(imgs, out_hw, interp, border, pool=None):
    src = BatchStorage.from_dense(np.stack(imgs))
    n, h, w, c = src.dense().shape
    oh, ow = out_hw
    out = np.zeros((n, oh, ow, c), imgs[0].dtype)
    dst = BatchStorage.from_dense(out)
    images = [[i, 0, 0, h, w, c, oh, ow, i % 2, 0] for i in range(n)]
    mats = np.array([M, np.array(M) * [1.1, 1, 1, 1, 0.9, 1, 1, 1, 1]])
    warp.warp_perspective_batch(pool, src, dst, images, mats, interp, border,
                                np.full((1, 4), 17.0))
    return dst.dense().copy()


@pytest.mark.skipif(not warp.perspective_fma(), reason="the CPU lacks AVX2/FMA")
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("channels", [1, 3, 4])
@pytest.mark.parametrize("border", range(5))
def test_fma_path_equals_plain_path(dtype, channels, border):
    rng = np.random.default_rng(channels * 10 + border)
    imgs = [(rng.random((37, 41, channels)) * 250).astype(dtype) for _ in range(3)]
    fast = _run(imgs, (45, 33), 1, border)
    try:
        warp.perspective_fma(False)
        plain = _run(imgs, (45, 33), 1, border)
    finally:
        warp.perspective_fma(True)
    np.testing.assert_array_equal(fast, plain)


@pytest.mark.parametrize("interp", [0, 1])
def test_bands_on_a_pool_equal_one_call(interp):
    rng = np.random.default_rng(interp)
    imgs = [rng.integers(0, 256, (300, 280, 3)).astype(np.uint8) for _ in range(2)]
    pool = thread_pool.ThreadPool(3)
    np.testing.assert_array_equal(_run(imgs, (310, 290), interp, 2, pool),
                                  _run(imgs, (310, 290), interp, 2))


def test_rejects_images_outside_their_samples():
    src = BatchStorage.from_dense(np.zeros((1, 4, 4, 3), np.uint8))
    dst = BatchStorage.from_dense(np.zeros((1, 4, 4, 3), np.uint8))
    with pytest.raises(ValueError, match="outside its sample"):
        warp.warp_perspective_batch(None, src, dst, [[0, 0, 0, 5, 4, 3, 4, 4, 0, 0]], [M], 1,
                                    0, np.zeros((1, 4)))


def test_per_sample_sources_equal_contiguous_ones():
    """An external_source's arrays (one not C-contiguous) are read where they are."""
    rng = np.random.default_rng(5)
    imgs = [rng.integers(0, 256, (13, 12, 3)).astype(np.uint8),
            rng.integers(0, 256, (12, 13, 3)).astype(np.uint8).transpose(1, 0, 2)]
    outs = []
    for src in (BatchStorage.from_samples(imgs), BatchStorage.from_arrays(imgs)):
        dst = BatchStorage.from_dense(np.zeros((2, 10, 11, 3), np.uint8))
        warp.warp_perspective_batch(None, src, dst, [[i, 0, 0, 13, 12, 3, 10, 11, 0, 0]
                                                     for i in range(2)], [M], 1, 0,
                                    np.full((1, 4), 17.0))
        outs.append(dst.dense())
    np.testing.assert_array_equal(outs[0], outs[1])
