"""The displacement kernel's batch entry point: images on the pool, largest first, with the
values of one call each; masked-off images copied; every job checked before any runs."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext import rng
from dali._ext.kernels import displace

RNG = np.random.default_rng(4)
WAVE = [10.0, 0.05, 0.0, 10.0, 0.05, 0.0]


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_batch_equals_one_call_each(dtype):
    srcs = [(RNG.random((h, w, 3)) * 255).astype(dtype) for h, w in
            [(300, 280), (7, 5), (0, 4), (64, 90)]]
    modes = ["water", "sphere", "water", "copy"]
    outs = [np.zeros_like(s) for s in srcs]
    displace.displace_batch(ThreadPool(2), [(s, o, m, None) for s, o, m in
                                            zip(srcs, outs, modes, strict=True)], 1, 3.0, WAVE)
    for s, o, m in zip(srcs, outs, modes, strict=True):
        one = np.zeros_like(s)
        displace.displace(s, one, m, 1, 3.0, WAVE)
        np.testing.assert_array_equal(o, one)
    np.testing.assert_array_equal(outs[3], srcs[3])
    assert not np.array_equal(outs[0], srcs[0])


def test_every_job_is_checked_before_any_runs():
    src = np.full((4, 4, 3), 9, np.uint8)
    dst = np.zeros_like(src)
    with pytest.raises(ValueError, match="remap needs the positions"):
        displace.displace_batch(ThreadPool(2), [(src, dst, "sphere", None),
                                                (src, np.zeros_like(src), "remap", None)], 0, 0)
    assert not dst.any()
    with pytest.raises(TypeError, match="unsupported types uint8 -> float32"):
        displace.displace_batch(None, [(src, dst.astype(np.float32), "sphere", None)], 0, 0)


def _jitter_reference(src, u, degree, fill):
    """NumPy jitter of one image from its 2 * H * W draws."""
    h, w = src.shape[:2]
    r = np.minimum(np.floor(u * degree), degree - 1).astype(np.int64) - degree // 2
    ys, xs = np.mgrid[0:h, 0:w]
    px = np.clip(xs + r[:h * w].reshape(h, w), 0, w)
    py = np.clip(ys + r[h * w:].reshape(h, w), 0, h)
    padded = np.full((h + 1, w + 1, src.shape[2]), fill, src.dtype)
    padded[:h, :w] = src
    return padded[py, px]


@pytest.mark.parametrize("avx2", [True, False])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_jitter_draws_the_streams_of_rng_uniform(avx2, dtype):
    """The kernel makes the draws of rng.uniform(key, ids, 2 * H * W) itself (Philox blocks 8
    or 4 at a time, and one by one at the ends): the same pixels move as with those draws."""
    shapes = [(13, 17, 3), (1, 1, 1), (0, 5, 3), (8, 33, 4), (40, 2, 2)]
    srcs = [(RNG.random(s) * 255).astype(dtype) for s in shapes]
    src = BatchStorage.from_arrays(srcs)
    dst = BatchStorage.allocate(np.dtype(dtype), shapes)
    ids = np.array([7, 2 ** 33 + 1, 0, 5, 9], np.int64)
    masks = np.array([1, 1, 1, 1, 0], np.int32)
    key, degree = 12345, 5
    was = displace.philox_avx2()
    try:
        displace.philox_avx2(avx2)
        displace.displace_storage(ThreadPool(2), src, dst, "jitter", masks, 0, 7.0,
                                  degree=degree, key=key, sample_ids=ids)
    finally:
        displace.philox_avx2(was)
    counts = np.array([2 * s[0] * s[1] for s in shapes], np.int64)
    draws = np.split(rng.uniform(key, ids, counts, 0), np.cumsum(counts)[:-1])
    for i, (s, u) in enumerate(zip(srcs, draws, strict=True)):
        want = _jitter_reference(s, u, degree, 7.0) if masks[i] else s
        np.testing.assert_array_equal(dst.sample(i), want)


def test_storage_batch_equals_one_call_each():
    shapes = [(30, 28, 3), (7, 5, 1), (0, 4, 3)]
    srcs = [(RNG.random(s) * 255).astype(np.uint8) for s in shapes]
    for mode in ("water", "sphere"):
        for interp in (0, 1):
            dst = BatchStorage.allocate(np.dtype(np.uint8), shapes)
            displace.displace_storage(None, BatchStorage.from_samples(srcs), dst, mode,
                                      np.array([1, 0, 1], np.int32), interp, 3.0, WAVE)
            for i, s in enumerate(srcs):
                one = np.zeros_like(s)
                displace.displace(s, one, mode if i != 1 else "copy", interp, 3.0, WAVE)
                np.testing.assert_array_equal(dst.sample(i), one)


@pytest.mark.parametrize("threads", [None, 2])
def test_water_runs_of_one_shape_share_their_waves(threads):
    """Samples of one shape in a row share wave terms computed once (single ones make their
    own): the values of one call per image, on a pool or not, masked samples included."""
    shapes = [(9, 6, 3), (9, 6, 3), (9, 6, 3), (4, 6, 3), (9, 6, 3), (9, 6, 3), (6, 9, 3),
              (0, 6, 3), (0, 6, 3), (5, 5, 3)]
    masks = np.array([1, 0, 1, 1, 1, 1, 1, 1, 1, 1], np.int32)
    srcs = [(RNG.random(s) * 255).astype(np.uint8) for s in shapes]
    pool = None if threads is None else ThreadPool(threads, inline_cost=0.0)
    for interp in (0, 1):
        dst = BatchStorage.allocate(np.dtype(np.uint8), shapes)
        displace.displace_storage(pool, BatchStorage.from_arrays(srcs), dst, "water", masks,
                                  interp, 3.0, WAVE)
        for i, s in enumerate(srcs):
            one = np.zeros_like(s)
            displace.displace(s, one, "water" if masks[i] else "copy", interp, 3.0, WAVE)
            np.testing.assert_array_equal(dst.sample(i), one)

