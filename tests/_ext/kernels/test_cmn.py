"""The crop_mirror_normalize kernel's batch entry point: every job on the pool, large samples in
tiles along their first axis (never across the channel axis), all checked before any runs."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import cmn

MEAN = np.array([1, 2, 3], np.float32)
MUL = np.array([0.5, 0.25, 2], np.float32)


def _jobs(rng):
    """(jobs, references): HWC sources (mirrored views too) into CHW float outputs, sizes from
    a few elements to several tiles of 2**18 elements, and an empty sample."""
    jobs, refs = [], []
    for h, w in [(900, 700), (3, 5), (700, 301), (0, 4)]:
        src = rng.integers(0, 256, (h, w, 3), np.uint8)[:, ::-1]
        dst = np.full((3, h, w), np.nan, np.float32)
        jobs.append((src, dst.transpose(1, 2, 0), MEAN, MUL))
        refs.append(((src.astype(np.float32) - MEAN) * MUL).transpose(2, 0, 1))
    return jobs, refs


@pytest.mark.parametrize("threads", [None, 1, 2])
def test_batch_equals_numpy(threads):
    jobs, refs = _jobs(np.random.default_rng(0))
    cmn.normalize_batch(ThreadPool(threads) if threads else None, jobs, 2)
    for (_, dst, _, _), ref in zip(jobs, refs, strict=True):
        np.testing.assert_array_equal(dst.transpose(2, 0, 1), ref)


def test_channels_first_are_not_split_into_tiles():
    rng = np.random.default_rng(1)
    src = rng.integers(0, 256, (3, 800, 600), np.uint8)
    dst = np.zeros((3, 800, 600), np.uint8)
    cmn.normalize_batch(ThreadPool(2), [(src, dst, MEAN, MUL)], 0)
    ref = (src.astype(np.float32) - MEAN[:, None, None]) * MUL[:, None, None]
    ref = np.clip(np.sign(ref) * np.floor(np.abs(ref) + 0.5), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(dst, ref)


def test_every_job_is_checked_before_any_runs():
    good = np.ones((4, 4, 3), np.uint8)
    out = np.zeros((4, 4, 3), np.float32)
    with pytest.raises(TypeError, match="unsupported types float64"):
        cmn.normalize_batch(ThreadPool(2), [(good, out, MEAN, MUL),
                                            (np.ones((2, 2, 3)), np.zeros((2, 2, 3)), MEAN,
                                             MUL)], 2)
    assert not out.any()


@pytest.mark.parametrize("mirrored", [False, True])
def test_packed_pixel_rows_of_every_length(mirrored):
    # uint8 HWC into float planes: blocks of 16 pixels, the rest one by one, mirrored rows
    # through buffers of 256 pixels
    rng = np.random.default_rng(2)
    for w in (1, 15, 16, 17, 255, 256, 257, 600):
        src = rng.integers(0, 256, (4, w, 3), np.uint8)
        if mirrored:
            src = src[:, ::-1]
        dst = np.full((3, 4, w), np.nan, np.float32)
        cmn.normalize(src, dst.transpose(1, 2, 0), 2, MEAN, MUL)
        ref = ((src.astype(np.float32) - MEAN) * MUL).transpose(2, 0, 1)
        np.testing.assert_array_equal(dst, ref, err_msg=f"width {w}")


def test_float16_outputs_round_like_numpy():
    # one pass into float16: round to nearest even, overflow to inf, like astype(float16)
    rng = np.random.default_rng(3)
    src = rng.integers(0, 256, (6, 37, 3), np.uint8)
    mul = np.array([1.0001, 300.0, 0.0037], np.float32)      # 255 * 300 overflows float16
    dst = np.zeros((3, 6, 37), np.float16)
    cmn.normalize_batch(ThreadPool(2), [(src[:, ::-1], dst.transpose(1, 2, 0), MEAN, mul)], 2)
    with np.errstate(over="ignore"):
        ref = ((src[:, ::-1].astype(np.float32) - MEAN) * mul).astype(np.float16)
    np.testing.assert_array_equal(dst, ref.transpose(2, 0, 1))
    assert np.isinf(dst[1]).any()


@pytest.mark.parametrize("layout, out_layout, channel, w_axis", [
    ("HWC", "CHW", 2, 1), ("HWC", "HWC", 2, 1), ("CHW", "HWC", 0, 2), ("HWC", "WCH", 2, 1)])
@pytest.mark.parametrize("types", [(np.uint8, np.float32), (np.float32, np.uint8),
                                   (np.int16, np.float16), (np.uint8, np.int8)])
def test_windows_equal_the_views(layout, out_layout, channel, w_axis, types):
    """normalize_windows (strides worked out by the kernel) writes what normalize_batch does
    from numpy views of the same windows, bit for bit: small and tile-sized samples, mirrored
    or not, per-sample parameters, an empty window."""
    rng = np.random.default_rng(3)
    in_t, out_t = types
    perm = [layout.index(c) for c in out_layout]
    hw = [(8, 8), (600, 500), (5, 9), (7, 6)]
    srcs, anchors, shapes = [], [], []
    for k, (h, w) in enumerate(hw):
        full = dict(H=h, W=w, C=3)
        srcs.append((rng.random([full[c] for c in layout]) * 300 - 20).astype(in_t))
        win = dict(H=min(h, 6) if k != 3 else 0, W=min(w, 7), C=3)
        at = dict(H=h - win["H"], W=(w - win["W"]) // 2, C=0)
        anchors.append([at[c] for c in layout])
        shapes.append([win[c] for c in layout])
    mirror = np.array([1, 1, 0, 1], np.uint8)
    mean = (rng.random((4, 3)) * 50).astype(np.float32)
    mul = (rng.random((4, 3)) + 0.1).astype(np.float32)
    outs = [np.zeros([s[p] for p in perm], out_t) for s in shapes]
    src, dst = BatchStorage.from_arrays(srcs), BatchStorage.from_arrays(outs)
    assert cmn.normalize_windows(ThreadPool(2), src, dst, np.array(anchors, np.int64),
                                 np.array(shapes, np.int64), mirror, perm, channel, w_axis,
                                 mean, mul)
    jobs = []
    for i, (s, o) in enumerate(zip(srcs, outs, strict=True)):
        region = s[tuple(slice(a, a + n) for a, n in zip(anchors[i], shapes[i], strict=True))]
        if mirror[i]:
            region = np.flip(region, w_axis)
        jobs.append((region, o.copy().transpose(np.argsort(perm)), mean[i], mul[i]))
    cmn.normalize_batch(None, jobs, channel)
    for (_, want, _, _), got in zip(jobs, dst.samples(), strict=True):
        np.testing.assert_array_equal(got, want.transpose(perm))


def test_windows_outside_the_sample_are_left_to_the_caller():
    src = BatchStorage.from_arrays([np.ones((4, 4, 3), np.uint8)] * 2)
    dst = BatchStorage.from_arrays([np.zeros((3, 4, 4), np.float32)] * 2)
    one = np.ones((1, 3), np.float32)
    assert not cmn.normalize_windows(None, src, dst, np.array([[0, 0, 0], [1, 0, 0]]),
                                     np.array([[4, 4, 3]] * 2), np.zeros(2, np.uint8),
                                     [2, 0, 1], 2, 1, one, one)
    assert not any(d.any() for d in dst.samples())
