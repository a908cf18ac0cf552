"""fn.random_bbox_crop: property tests over many seeds (thresholds met, windows within the
scaling and aspect ratio ranges, boxes and labels those that survive the crop, remapped), the
outputs' structure against real DALI, and the errors."""

import warnings

import numpy as np
import pytest
from detection_utils import random_boxes
from pipeline_utils import run_op

from dali._executor.errors import PipelineError

F32 = np.float32
RNG = np.random.default_rng(17)
BOXES = random_boxes(RNG, [6, 1, 0, 9, 3, 12, 2, 5])
LABELS = [np.arange(len(b), dtype=np.int32) * 10 + 1 for b in BOXES]


def crop(boxes, labels=None, seed=123, num_threads=1, **kwargs):
    inputs = [boxes] if labels is None else [boxes, labels]
    return run_op(lambda fn, *x: tuple(fn.random_bbox_crop(*x, **kwargs)), inputs, seed=seed,
                  num_threads=num_threads)


def iou(lo, hi, clo, chi):
    inter = np.prod(np.maximum(np.minimum(hi, chi) - np.maximum(lo, clo), 0), axis=-1)
    a = np.prod(hi - lo, axis=-1)
    return inter / (a + np.prod(chi - clo) - inter), inter / a


def expected(box, anchor, shape, prune=None):
    """(kept indices, remapped ltrb boxes) of one sample for a relative window."""
    nd = box.shape[1] // 2
    lo, hi = box[:, :nd], box[:, nd:]
    clo, chi = anchor, anchor + shape
    if prune is None:
        c = (lo + hi) * F32(0.5)
        keep = ((c >= clo) & (c <= chi)).all(axis=1)
    else:
        _, frac = iou(lo, hi, clo, chi)
        keep = (frac >= prune) & (frac > 0)
    new = np.concatenate([(np.clip(lo, clo, chi) - clo) / shape,
                          (np.clip(hi, clo, chi) - clo) / shape], axis=1)
    return np.flatnonzero(keep), new[keep]


def check_outputs(boxes, labels, outs, prune=None, nocrop_ok=True):
    anchors, shapes, out_boxes, out_labels, idx = outs
    for b, lab, a, s, ob, ol, ix in zip(boxes, labels, anchors, shapes, out_boxes, out_labels,
                                        idx, strict=True):
        assert a.dtype == s.dtype == ob.dtype == F32 and ol.dtype == ix.dtype == np.int32
        assert (a >= 0).all() and (a + s <= 1 + 1e-6).all()
        if (a == 0).all() and (s == 1).all() and nocrop_ok:
            np.testing.assert_array_equal(ob, b)       # no crop: every box unchanged
            np.testing.assert_array_equal(ix, np.arange(len(b)))
        else:
            want_idx, want = expected(b, a, s, prune)
            np.testing.assert_array_equal(ix, want_idx)
            np.testing.assert_allclose(ob, want, atol=2e-6)
            assert len(b) == 0 or len(ix) > 0          # a crop keeps at least one box
        assert ((ob >= 0) & (ob <= 1)).all()
        np.testing.assert_array_equal(ol, lab[ix])


@pytest.mark.parametrize("seed", range(12))
def test_thresholds_and_ranges_are_met(seed):
    """IoU of the one box (or overlap of every box of several) at least the threshold."""
    thr = [0.1, 0.3, 0.5, 0.7][seed % 4]
    kind = "iou" if seed % 2 else "overlap"
    kwargs = dict(scaling=[0.3, 1.0], aspect_ratio=[0.5, 2.0], thresholds=[thr],
                  allow_no_crop=False, num_attempts=10, output_bbox_indices=True,
                  threshold_type=kind)
    if kind == "iou":
        lo = RNG.uniform(0, 0.3, (7, 1, 2))
        boxes = list(np.concatenate([lo, lo + RNG.uniform(0.4, 0.7, lo.shape)], 2).astype(F32))
        labels = [np.array([i], np.int32) for i in range(7)]
    else:
        boxes = [b[:3] for b in BOXES if len(b)]
        labels = [lab[:3] for lab in LABELS if len(lab)]
    outs = crop(boxes, labels, seed=seed, **kwargs)
    check_outputs(boxes, labels, outs, nocrop_ok=False)
    for b, a, s in zip(boxes, outs[0], outs[1], strict=True):
        assert (s >= 0.3 - 1e-6).all() and (s <= 1 + 1e-6).all()
        assert 0.5 - 1e-5 <= s[0] / s[1] <= 2 + 1e-5
        m_iou, m_overlap = iou(b[:, :2], b[:, 2:], a, a + s)
        assert ((m_iou if kind == "iou" else m_overlap) >= thr - 1e-6).all()


@pytest.mark.parametrize("seed", range(6))
def test_any_box_overlap_threshold(seed):
    outs = crop(BOXES, LABELS, seed=seed, scaling=[0.2, 0.6], aspect_ratio=[0.5, 2.0],
                thresholds=[0.6], threshold_type="overlap", all_boxes_above_threshold=False,
                allow_no_crop=False, num_attempts=20, output_bbox_indices=True)
    check_outputs(BOXES, LABELS, outs, nocrop_ok=False)
    for b, a, s in zip(BOXES, outs[0], outs[1], strict=True):
        if len(b):
            _, frac = iou(b[:, :2], b[:, 2:], a, a + s)
            assert frac.max() >= 0.6 - 1e-6


@pytest.mark.parametrize("seed", range(6))
def test_prune_threshold(seed):
    outs = crop(BOXES, LABELS, seed=seed, scaling=[0.3, 0.8], aspect_ratio=[0.5, 2.0],
                bbox_prune_threshold=0.4, output_bbox_indices=True, thresholds=[0.0, 0.2])
    check_outputs(BOXES, LABELS, outs, prune=0.4)


def test_outcomes_include_no_crop_and_every_threshold():
    """Over many samples every outcome shows up: no crop (whole image) and crops."""
    boxes = [BOXES[0]] * 64
    anchors, shapes, *_ = crop(boxes, scaling=[0.3, 0.9], aspect_ratio=[0.5, 2.0],
                               thresholds=[0.0, 0.1])
    whole = [(a == 0).all() and (s == 1).all() for a, s in zip(anchors, shapes, strict=True)]
    assert 5 < sum(whole) < 45


def test_square_windows_by_default():
    """The default aspect ratio [1, 1] gives square (relative) windows of any scale."""
    anchors, shapes, *_ = crop([BOXES[0]] * 16, scaling=[0.3, 1.0], allow_no_crop=False)
    s = np.array(shapes)
    np.testing.assert_allclose(s[:, 0], s[:, 1], rtol=1e-6)
    assert len(np.unique(s[:, 0])) > 8


def test_input_shape_makes_aspect_ratio_absolute():
    anchors, shapes, *_ = crop([BOXES[0]] * 32, scaling=[0.2, 1.0], aspect_ratio=[0.9, 1.1],
                               input_shape=[300, 100], allow_no_crop=False, num_attempts=50)
    s = np.array(shapes)
    ratio = s[:, 0] * 300 / (s[:, 1] * 100)
    assert ((ratio >= 0.9 - 1e-5) & (ratio <= 1.1 + 1e-5)).all()


def test_crop_shape_gives_pixel_windows():
    anchors, shapes, boxes, labels = crop(BOXES, LABELS, crop_shape=[60, 50],
                                          input_shape=[200, 100], seed=5)
    for b, lab, a, s, ob, ol in zip(BOXES, LABELS, anchors, shapes, boxes, labels, strict=True):
        np.testing.assert_array_equal(s, [60, 50])
        assert (a == np.round(a)).all() and 0 <= a[0] <= 140 and 0 <= a[1] <= 50
        size = np.array([200, 100], F32)
        idx, want = expected(b, (a / size).astype(F32), (s / size).astype(F32))
        np.testing.assert_allclose(ob, want, atol=2e-6)
        np.testing.assert_array_equal(ol, lab[idx])


def test_crop_shape_layout_and_overhang():
    anchors, shapes, *_ = crop([BOXES[0]] * 16, crop_shape=[50, 40], input_shape=[100, 20],
                               shape_layout="HW")
    for a, s in zip(anchors, shapes, strict=True):
        np.testing.assert_array_equal(s, [40, 50])       # always x, y order
        assert -20 <= a[0] <= 0 and 0 <= a[1] <= 50


def test_per_sample_input_shape():
    shapes_in = [np.array([100 + 10 * i, 80], np.int32) for i in range(len(BOXES))]
    anchors, shapes, *_ = run_op(
        lambda fn, x, ish: tuple(fn.random_bbox_crop(x, crop_shape=[40, 40], input_shape=ish)),
        [BOXES, shapes_in])
    for a, ish in zip(anchors, shapes_in, strict=True):
        assert 0 <= a[0] <= ish[0] - 40 and 0 <= a[1] <= 40


@pytest.mark.parametrize("layout", ["xyWH", "XYxy"])
def test_other_layouts_match_xyxy(layout):
    kw = dict(scaling=[0.3, 1.0], aspect_ratio=[0.5, 2.0], allow_no_crop=False)
    ref = crop(BOXES, **kw)
    conv = []
    for b in BOXES:
        if layout == "xyWH":
            conv.append(np.concatenate([b[:, :2], b[:, 2:] - b[:, :2]], axis=1))
        else:
            conv.append(b[:, [2, 3, 0, 1]])
    out = crop(conv, bbox_layout=layout, **kw)
    for r, o in zip(ref[2], out[2], strict=True):
        back = np.concatenate([o[:, :2], o[:, :2] + o[:, 2:]], 1) if layout == "xyWH" \
            else o[:, [2, 3, 0, 1]]
        np.testing.assert_allclose(back, r, atol=3e-6)


def test_3d_boxes():
    boxes = random_boxes(np.random.default_rng(3), [4, 7, 2], ndim=3)
    anchors, shapes, out, idx = crop(boxes, scaling=[0.4, 1.0], aspect_ratio=[0.5, 2.0],
                                     allow_no_crop=False, output_bbox_indices=True)
    for b, a, s, ob, ix in zip(boxes, anchors, shapes, out, idx, strict=True):
        assert a.shape == s.shape == (3,)
        assert (s >= 0.4 - 1e-6).all()
        for d0, d1 in ((0, 1), (0, 2), (1, 2)):
            assert 0.5 - 1e-5 <= s[d0] / s[d1] <= 2 + 1e-5
        want_idx, want = expected(b, a, s)
        np.testing.assert_array_equal(ix, want_idx)
        np.testing.assert_allclose(ob, want, atol=2e-6)


def test_labels_keep_their_shape():
    labels = [lab.reshape(-1, 1) for lab in LABELS]
    *_, out_labels, idx = crop(BOXES, labels, scaling=[0.3, 1.0], output_bbox_indices=True,
                               aspect_ratio=[0.5, 2.0])
    for lab, ol, ix in zip(labels, out_labels, idx, strict=True):
        assert ol.shape == (len(ix), 1)
        np.testing.assert_array_equal(ol, lab[ix])


def test_same_seed_same_crops_whatever_the_thread_count():
    kw = dict(scaling=[0.3, 1.0], aspect_ratio=[0.5, 2.0], thresholds=[0.1, 0.5, 0.9])
    a = crop(BOXES, LABELS, seed=7, num_threads=1, **kw)
    b = crop(BOXES, LABELS, seed=7, num_threads=2, **kw)
    c = crop(BOXES, LABELS, seed=8, num_threads=1, **kw)
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            np.testing.assert_array_equal(u, v)
    assert any(not np.array_equal(u, v) for u, v in zip(a[0], c[0], strict=True))


def test_total_num_attempts_takes_the_best_window():
    kw = dict(scaling=[0.2, 0.3], thresholds=[0.99], allow_no_crop=False, total_num_attempts=4,
              num_attempts=2)
    big = [np.array([[0.0, 0.0, 1.0, 1.0]], F32)]
    with pytest.warns(UserWarning, match="Could not find a valid cropping window"):
        anchors, shapes, boxes = crop(big, **kw)
    assert (shapes[0] <= 0.3 + 1e-6).all()
    _, want = expected(big[0], anchors[0], shapes[0])          # may be empty
    np.testing.assert_allclose(boxes[0], want, atol=2e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        crop(big, quiet=True, **kw)


def test_empty_samples():
    anchors, shapes, boxes, labels = crop([np.zeros((0, 4), F32)] * 3,
                                          [np.zeros(0, np.int32)] * 3, scaling=[0.5, 0.9],
                                          allow_no_crop=False)
    assert [b.shape for b in boxes] == [(0, 4)] * 3 and [x.shape for x in labels] == [(0,)] * 3
    assert all(((s >= 0.5) & (s <= 0.9)).all() for s in shapes)


@pytest.mark.parametrize("kwargs, match", [
    ({"thresholds": [1.5]}, r"Threshold value must be within the range \[0.0, 1.0\]"),
    ({"scaling": [0.5, 0.3]}, "`scaling` range must be positive and min <= max"),
    ({"num_attempts": 0}, "Minimum number of attempts must be greater than zero"),
    ({"threshold_type": "foo"}, 'Not supported `threshold_type` value: "foo"'),
    ({"crop_shape": [10, 10]}, "`input_shape` must be provided when providing `crop_shape`"),
    ({"crop_shape": [10, 10], "input_shape": [50, 50], "scaling": [0.5, 1.0]},
     "`scaling` is incompatible with providing the crop shape"),
    ({"aspect_ratio": [0.5, 2.0, 1.0, 2.0]}, "should have 2 elements, or 6 elements"),
    ({"bbox_prune_threshold": 1.5}, r"`bbox_prune_threshold` must be within \[0.0, 1.0\]"),
])
def test_argument_errors(kwargs, match):
    with pytest.raises(RuntimeError, match=f"random_bbox_crop: .*{match}"):
        crop(BOXES, **kwargs)


@pytest.mark.parametrize("inputs, kwargs, match", [
    ([[np.zeros((2, 4), np.float64)]], {}, "bounding boxes must be float32, got float64"),
    ([[np.zeros((4,), F32)]], {}, "Unexpected number of dimensions for bounding boxes input: 1"),
    ([[np.zeros((2, 5), F32)]], {}, "Unexpected number of coordinates for bounding boxes"),
    ([[np.array([[0.5, 0.5, 1.5, 1.0]], F32)]], {}, "is out of bounds"),
    ([BOXES[:1], [np.zeros(2, np.int32)]], {}, "the sample has 6 boxes but 2 labels"),
    ([BOXES[:1], [LABELS[0].astype(np.int64)]], {}, "labels must be int32, got int64"),
    ([BOXES[:1]], {"bbox_layout": "xyXZ"}, '`bbox_layout` "xyXZ" must hold "y" and one of'),
    ([BOXES[:1]], {"crop_shape": [1, 2, 3], "input_shape": [5, 5, 5]}, "must have 2 values"),
])
def test_input_errors(inputs, kwargs, match):
    with pytest.raises(PipelineError, match=f"random_bbox_crop: .*{match}"):
        run_op(lambda fn, *x: tuple(fn.random_bbox_crop(*x, **kwargs)), inputs)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs, with_labels", [
    ({}, True),
    ({"scaling": [0.3, 1.0], "aspect_ratio": [0.5, 2.0], "output_bbox_indices": True}, True),
    ({"crop_shape": [50, 40], "input_shape": [200, 100]}, False),
    ({"bbox_layout": "xyWH", "thresholds": [0.0, 0.5], "scaling": [0.5, 1.0]}, True),
])
def test_structure_matches_dali(kwargs, with_labels):
    pytest.importorskip("nvidia.dali")
    boxes = [b for b in BOXES if len(b)]
    if kwargs.get("bbox_layout") == "xyWH":
        boxes = [np.concatenate([b[:, :2], b[:, 2:] - b[:, :2]], axis=1) for b in boxes]
    labels = [lab.reshape(-1, 1) for lab, b in zip(LABELS, BOXES, strict=True) if len(b)]
    inputs = [boxes, labels] if with_labels else [boxes]

    def build(fn, *x):
        return tuple(fn.random_bbox_crop(*x, **kwargs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = run_op(build, inputs)
        theirs = run_op(build, inputs, real=True)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs, strict=True):
        assert [x.dtype for x in o] == [x.dtype for x in t]
        assert [x.ndim for x in o] == [x.ndim for x in t]
    assert [x.shape for x in ours[0]] == [x.shape for x in theirs[0]]
    if "crop_shape" in kwargs:
        for o, t in zip(ours[1], theirs[1], strict=True):
            np.testing.assert_array_equal(o, t)
