"""The warp kernel's fast paths against its general ones: 3-channel uint8 linear warps (the
vector step of warp.h) equal the per-channel warps of the scalar loop bit for bit, nearest
neighbour equals numpy indexing, results do not depend on the thread count, and per-sample
sources give what contiguous ones give."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import warp

RNG = np.random.default_rng(3)


def _matrices(n, h, w):
    """Rotations, scalings, shears and shifts mapping around an (h, w) image."""
    out = []
    for _ in range(n):
        a, s = RNG.uniform(-np.pi, np.pi), RNG.uniform(0.3, 2.0)
        out.append([np.cos(a) * s, -np.sin(a) * s + RNG.uniform(-0.2, 0.2), RNG.uniform(-3, w),
                    np.sin(a) * s, np.cos(a) * s, RNG.uniform(-3, h)])
    out.append([1.0, 0.0, 0.0, 0.0, 1.0, 0.0])         # identity: pixel centres exactly
    out.append([1.0, 0.0, 0.25, 0.0, 1.0, -0.5])
    return out


@pytest.mark.parametrize("fill", [None, 17.0])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_three_channels_equal_each_channel_alone(fill, dtype):
    for h, w in [(1, 1), (1, 5), (2, 2), (7, 3), (23, 31)]:
        src = RNG.integers(0, 256, (h, w, 3), dtype=np.uint8)
        for m in _matrices(6, h, w):
            oh, ow = RNG.integers(1, 30, 2)
            for interp in (0, 1):
                out = np.empty((oh, ow, 3), dtype)
                warp.warp_affine_2d(src, out, m, interp, fill)
                for c in range(3):
                    one = np.empty((oh, ow, 1), dtype)
                    warp.warp_affine_2d(np.ascontiguousarray(src[:, :, c:c + 1]), one, m,
                                        interp, fill)
                    assert out[:, :, c].tobytes() == one[:, :, 0].tobytes(), (h, w, m, interp)


def test_identity_and_shifts_by_whole_pixels_copy_the_image():
    src = RNG.integers(0, 256, (9, 11, 3), dtype=np.uint8)
    for interp in (0, 1):
        out = np.empty_like(src)
        warp.warp_affine_2d(src, out, [1, 0, 0, 0, 1, 0], interp)
        np.testing.assert_array_equal(out, src)
        out = np.empty((9, 10, 3), np.uint8)
        warp.warp_affine_2d(src, out, [1, 0, 1, 0, 1, 0], interp)
        np.testing.assert_array_equal(out, src[:, 1:])


def test_nearest_neighbour_equals_numpy_indexing():
    src = RNG.integers(0, 256, (13, 17, 3), dtype=np.uint8)
    m = np.array([[0.7, -0.3, 4.0], [0.25, 0.9, -2.0]], np.float32)
    out = np.empty((20, 20, 3), np.uint8)
    warp.warp_affine_2d(src, out, m.ravel(), 0, 5.0)
    y, x = np.mgrid[0:20, 0:20].astype(np.float32) + np.float32(0.5)
    sx = m[0, 0] * x + m[0, 1] * y + m[0, 2]
    sy = m[1, 0] * x + m[1, 1] * y + m[1, 2]
    xi, yi = np.floor(sx).astype(int), np.floor(sy).astype(int)
    inside = (xi >= 0) & (xi < 17) & (yi >= 0) & (yi < 13)
    # positions exactly on a pixel boundary may differ (the kernel accumulates along rows)
    exact = np.abs(sx - np.round(sx)) > 1e-3
    exact &= np.abs(sy - np.round(sy)) > 1e-3
    want = np.where(inside[..., None], src[yi.clip(0, 12), xi.clip(0, 16)], 5)
    np.testing.assert_array_equal(out[exact], want[exact])


@pytest.mark.parametrize("interp", [0, 1])
def test_threads_do_not_change_results(interp):
    shapes = [(int(h), int(w), 3) for h, w in RNG.integers(1, 120, (12, 2))]
    arrays = [RNG.integers(0, 256, s, dtype=np.uint8) for s in shapes]
    mats = [_matrices(1, s[0], s[1])[0] for s in shapes]
    out_shapes = [(int(h), int(w), 3) for h, w in RNG.integers(1, 120, (12, 2))]
    results = []
    for pool in (None, ThreadPool(1), ThreadPool(2), ThreadPool(3)):
        dst = BatchStorage.allocate(np.uint8, out_shapes)
        warp.warp_batch(pool, BatchStorage.from_arrays(arrays), dst, mats, interp, None)
        results.append([s.tobytes() for s in dst.samples()])
    assert all(r == results[0] for r in results)


def test_one_matrix_per_frame():
    """FHWC samples with one matrix per frame: every frame as the same warp of that frame
    alone (an HWC sample); a count that is neither per sample nor per frame is refused."""
    seqs = [RNG.integers(0, 256, (f, 9, 11, 3), dtype=np.uint8) for f in (3, 1, 2)]
    mats = _matrices(6, 9, 11)[:6]
    pool = ThreadPool(2)
    dst = BatchStorage.allocate(np.uint8, [(len(s), 7, 10, 3) for s in seqs])
    warp.warp_batch(pool, BatchStorage.from_arrays(seqs), dst, mats, 1, 4.0)
    frames = [f for s in seqs for f in s]
    want = BatchStorage.allocate(np.uint8, [(7, 10, 3)] * len(frames))
    warp.warp_batch(pool, BatchStorage.from_arrays(frames), want, mats, 1, 4.0)
    np.testing.assert_array_equal(np.concatenate(list(dst.samples())),
                                  np.stack(list(want.samples())))
    with pytest.raises(ValueError, match="one matrix per sample \\(3\\) or per frame \\(6\\)"):
        warp.warp_batch(pool, BatchStorage.from_arrays(seqs), dst, mats[:4], 1, 4.0)


def test_image_into_every_frame():
    """HWC sources with FHWC outputs: each source warped into every frame of its output."""
    images = [RNG.integers(0, 256, (9, 11, 3), dtype=np.uint8) for _ in range(2)]
    mats = _matrices(5, 9, 11)[:5]
    dst = BatchStorage.allocate(np.uint8, [(3, 6, 8, 3), (2, 6, 8, 3)])
    warp.warp_batch(ThreadPool(2), BatchStorage.from_arrays(images), dst, mats, 0, None)
    want = BatchStorage.allocate(np.uint8, [(6, 8, 3)] * 5)
    warp.warp_batch(None, BatchStorage.from_arrays([images[0]] * 3 + [images[1]] * 2), want,
                    mats, 0, None)
    np.testing.assert_array_equal(np.concatenate(list(dst.samples())),
                                  np.stack(list(want.samples())))


@pytest.mark.parametrize("interp", [0, 1])
def test_per_sample_sources_equal_contiguous_ones(interp):
    """An external_source's arrays (one not C-contiguous) are read where they are."""
    arrays = [RNG.integers(0, 256, (9, 11, 3), dtype=np.uint8),
              RNG.integers(0, 256, (11, 9, 3), dtype=np.uint8).transpose(1, 0, 2)]
    mats = _matrices(2, 9, 11)[:2]
    results = []
    for src in (BatchStorage.from_samples(arrays), BatchStorage.from_arrays(arrays)):
        dst = BatchStorage.allocate(np.uint8, [(7, 10, 3)] * 2)
        warp.warp_batch(None, src, dst, mats, interp, 3.0)
        results.append(dst.dense().copy())
    np.testing.assert_array_equal(results[0], results[1])
