"""The bounding-box kernels: the crop window search (windows within the ranges and valid, the
same on the caller and on a pool, drawn from the samples' ids), the boxes of a crop against
NumPy, the SSD encoding and the box rotation on the caller and on a pool, and the checks made
before they run."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import boxes

RNG = np.random.default_rng(5)
COUNTS = np.array([3, 0, 7, 1, 12, 2], np.int64)
LO = RNG.uniform(0, 0.6, (int(COUNTS.sum()), 2)).astype(np.float32)
HI = (LO + RNG.uniform(0.05, 0.4, LO.shape)).astype(np.float32)
ASPECT = [[0.5, 2.0]] * 3


def search(pool=None, ids=None, **kw):
    args = dict(thresholds=[0.0, 0.3], no_crop=False, num_attempts=5, limit=1000,
                keep_best=False, iou=False, all_boxes=False, prune=-1.0, smin=0.3, smax=1.0,
                aspect=ASPECT)
    args.update(kw)
    ids = np.arange(len(COUNTS)) if ids is None else ids
    return boxes.crop_search(pool, LO, HI, COUNTS, ids, 77, 0, args["thresholds"],
                             args["no_crop"], args["num_attempts"], args["limit"],
                             args["keep_best"], args["iou"], args["all_boxes"], args["prune"],
                             args["smin"], args["smax"], args["aspect"])


def test_windows_are_in_range_and_keep_a_box():
    lo, hi, _, status, _ = search()
    assert (status == 0).all()
    size = hi - lo
    assert ((size >= 0.3 - 1e-6) & (size <= 1 + 1e-6)).all()
    assert ((size[:, 0] / size[:, 1] >= 0.5 - 1e-5) & (size[:, 0] / size[:, 1] <= 2 + 1e-5)).all()
    start = np.concatenate([[0], np.cumsum(COUNTS)])
    for i, n in enumerate(COUNTS):
        if n:
            c = (LO[start[i]:start[i + 1]] + HI[start[i]:start[i + 1]]) / 2
            assert ((c >= lo[i]) & (c <= hi[i])).all(1).any()


def test_same_on_a_pool_and_by_sample_id():
    a = search()
    b = search(ThreadPool(2))
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    # the windows come from the samples' ids: other ids, other windows
    c = search(ids=np.arange(len(COUNTS)) + 100)
    assert not np.array_equal(a[0], c[0])


def test_limits_and_best_window():
    _, _, _, status, best = search(thresholds=[1.0], iou=True, all_boxes=True, limit=20,
                                   keep_best=True)
    assert (status[COUNTS > 0] == 2).all() and (best[COUNTS > 0] < 1).all()
    _, _, _, status, _ = search(thresholds=[1.0], iou=True, all_boxes=True, limit=20)
    assert (status[COUNTS > 0] == 3).all() and (status[COUNTS == 0] == 0).all()
    _, _, _, status, _ = search(thresholds=[], no_crop=True)
    assert (status == 1).all()


@pytest.mark.parametrize("kw, match", [
    ({"thresholds": [], "no_crop": False}, "no thresholds"),
    ({"num_attempts": 0}, "num_attempts must be positive"),
])
def test_search_checks(kw, match):
    with pytest.raises(ValueError, match=match):
        search(**kw)


def test_search_checks_counts():
    with pytest.raises(ValueError, match="box counts must add up"):
        boxes.crop_search(None, LO, HI, COUNTS + 1, np.arange(6), 1, 0, [0.0], False, 1, 10,
                          False, True, True, -1.0, 0.3, 1.0, ASPECT)


def _crop_reference(lo, hi, counts, crop_lo, crop_hi, nocrop, prune):
    """NumPy float32 expressions of crop_boxes."""
    wlo, whi = np.repeat(crop_lo, counts, axis=0), np.repeat(crop_hi, counts, axis=0)
    if prune is None:
        centre = (lo + hi) * np.float32(0.5)
        keep = ((centre >= wlo) & (centre <= whi)).all(axis=-1)
    else:
        inter = np.prod(np.maximum(np.minimum(whi, hi) - np.maximum(wlo, lo), 0), axis=-1)
        area = np.prod(np.maximum(hi - lo, 0), axis=-1)
        frac = np.divide(inter, area, out=np.zeros_like(inter), where=area > 0)
        keep = (frac >= prune) & (inter > 0)
    keep |= np.repeat(nocrop, counts)
    new_lo = (np.clip(lo, wlo, whi) - wlo) / (whi - wlo)
    new_hi = (np.clip(hi, wlo, whi) - wlo) / (whi - wlo)
    kept = np.bincount(np.repeat(np.arange(len(counts)), counts)[keep], minlength=len(counts))
    return new_lo, new_hi, keep, kept


def test_first_outside():
    lo = np.array([[0.1, 0.2], [0.0, 0.5], [0.3, -0.1], [0.9, 0.1]], np.float32)
    hi = np.array([[0.2, 0.3], [1.0, 0.5], [0.4, 0.2], [0.8, 0.2]], np.float32)
    assert boxes.first_outside(lo, hi) == 2
    assert boxes.first_outside(lo[3:], hi[3:]) == 0           # end before start
    assert boxes.first_outside(lo[:2], hi[:2]) == -1          # 0, 1 and empty boxes are in
    assert boxes.first_outside(np.full((1, 2), np.nan, np.float32), hi[:1]) == -1


@pytest.mark.parametrize("ndim", [2, 3])
@pytest.mark.parametrize("prune", [None, 0.0, 0.3, 0.1 + 0.2, 1.0])
def test_crop_boxes_equals_numpy(ndim, prune):
    counts = np.array([3, 0, 7, 1, 12, 2], np.int64)
    a, b = (RNG.random((int(counts.sum()), ndim), np.float32) for _ in range(2))
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    hi[0] = lo[0]                                   # an empty box
    crop_lo = (RNG.random((len(counts), ndim), np.float32) * 0.5).astype(np.float32)
    crop_hi = crop_lo + (RNG.random((len(counts), ndim), np.float32) * 0.5).astype(np.float32)
    nocrop = np.array([0, 0, 1, 0, 0, 1], bool)
    got = boxes.crop_boxes(lo, hi, counts, crop_lo, crop_hi, nocrop, prune)
    want = _crop_reference(lo, hi, counts, crop_lo, crop_hi, nocrop, prune)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
    assert [len(x) for x in boxes.crop_boxes(lo[:0], hi[:0], [0], crop_lo[:1], crop_hi[:1],
                                             [False])] == [0, 0, 0, 1]


@pytest.mark.parametrize("threads", [None, 2])
def test_encode_on_caller_and_pool(threads):
    anchors = np.concatenate([LO[:5], HI[:5]], 1)
    centers = np.concatenate([(anchors[:, :2] + anchors[:, 2:]) * np.float32(0.5),
                              anchors[:, 2:] - anchors[:, :2]], 1)
    samples = [np.concatenate([LO[:n], HI[:n]], 1) for n in (3, 0, 6)]
    src = BatchStorage.from_arrays(samples)
    lab = BatchStorage.from_arrays([np.arange(len(s), dtype=np.int32) + 1 for s in samples])
    out = BatchStorage.allocate(np.float32, [(5, 4)] * 3)
    out_lab = BatchStorage.allocate(np.int32, [(5,)] * 3)
    pool = ThreadPool(threads) if threads else None
    boxes.encode_batch(pool, src, lab, anchors, centers, 0.5, False, 1.0, [0] * 4, [1] * 4,
                       out, out_lab)
    got = out.samples()
    labels = out_lab.samples()
    # anchors 0..2 are boxes 0..2 of sample 0 (IoU 1); sample 1 has no boxes
    np.testing.assert_array_equal(labels[0][:3], [1, 2, 3])
    np.testing.assert_array_equal(labels[1], 0)
    np.testing.assert_array_equal(got[1], centers)
    np.testing.assert_array_equal(got[0][:3], centers[:3])


def test_encode_checks():
    anchors = np.zeros((2, 4), np.float32)
    src = BatchStorage.from_arrays([np.zeros((3, 4), np.float32)])
    lab = BatchStorage.from_arrays([np.zeros(2, np.int32)])
    out = BatchStorage.allocate(np.float32, [(2, 4)])
    out_lab = BatchStorage.allocate(np.int32, [(2,)])
    with pytest.raises(ValueError, match="every box needs a label"):
        boxes.encode_batch(None, src, lab, anchors, anchors, 0.5, False, 1.0, [0] * 4, [1] * 4,
                           out, out_lab)


def test_rotate_identity_and_quarter_turn():
    src = np.concatenate([LO, HI], 1)
    n = len(COUNTS)
    hw = np.tile([[100.0, 100.0]], (n, 1))
    same, keep = boxes.rotate_boxes(src, COUNTS, np.ones(n), np.zeros(n), hw, hw,
                                    np.zeros(n, bool), False, True, "expand", 0.1)
    np.testing.assert_allclose(same, src, atol=1e-6)
    assert keep.all()
    turned, _ = boxes.rotate_boxes(src, COUNTS, np.zeros(n), np.ones(n), hw, hw,
                                   np.ones(n, bool), False, True, "fixed", 0.1)
    np.testing.assert_allclose(turned, np.stack([src[:, 1], 1 - src[:, 2], src[:, 3],
                                                 1 - src[:, 0]], 1), atol=1e-6)
    with pytest.raises(ValueError, match="unknown mode"):
        boxes.rotate_boxes(src, COUNTS, np.ones(n), np.zeros(n), hw, hw, np.zeros(n, bool),
                           False, True, "spin", 0.1)


def test_rotate_takes_a_nan_coordinate_as_missing_like_libm_fmin():
    # The corner bounds and the clip are libm's fmin / fmax semantics (inlined): a NaN
    # coordinate gives way to the box's other one, and ties keep +0.
    src = np.array([[np.nan, 0.25, 0.5, 0.75], [0.0, 0.0, 1.0, 1.0]], np.float32)
    hw = np.array([[100.0, 100.0]])
    expected = np.array([[0.5, 0.25, 0.5, 0.75], [0.0, 0.0, 1.0, 1.0]], np.float32)
    for cos in (1.0, -1.0):         # no turn, half a turn
        out, keep = boxes.rotate_boxes(src, np.array([2]), np.array([cos]), np.zeros(1), hw, hw,
                                       np.zeros(1, bool), False, True, "expand", 0.0)
        np.testing.assert_array_equal(out, expected)
        assert not np.signbit(out).any()
        assert keep.all()
