"""fn.box_encoder: SSD matching (every box claims its best anchor, the last on ties; other
anchors take their best box when its IoU > criteria) and the (cx, cy, w, h) / offset
encodings."""

import numpy as np
import pytest
from detection_utils import golden_cases, random_boxes, run_golden
from pipeline_utils import run_op

from dali._executor.errors import PipelineError

F32 = np.float32
RNG = np.random.default_rng(21)
ANCHORS = random_boxes(RNG, [200])[0]
BOXES = random_boxes(RNG, [5, 0, 11, 30])
LABELS = [np.arange(1, len(b) + 1, dtype=np.int32) * 3 for b in BOXES]


def iou(a, b):
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt, 0, None)
    inter = (wh[..., 0] * wh[..., 1]).astype(F32)
    area = lambda x: ((x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])).astype(F32)  # noqa: E731
    return inter / (area(a)[:, None] + area(b)[None] - inter)


def centers(x):
    return np.stack([F32(0.5) * (x[:, 0] + x[:, 2]), F32(0.5) * (x[:, 1] + x[:, 3]),
                     x[:, 2] - x[:, 0], x[:, 3] - x[:, 1]], 1)


def log(x):
    """float32 log as C's logf rounds it (NumPy's float32 log may be 1 ulp off)."""
    return np.log(x.astype(np.float64)).astype(F32)


def last_argmax(x, axis):
    flipped = np.flip(x, axis=axis)
    return x.shape[axis] - 1 - np.argmax(flipped, axis=axis)


def reference(anchors, b, lab, criteria=0.5, offset=False, scale=1.0, means=(0,) * 4,
              stds=(1,) * 4):
    m = len(anchors)
    best = np.full(m, -1.0, F32)
    idx = np.full(m, -1)
    if len(b):
        ious = iou(anchors, b)                       # (M, N)
        idx = last_argmax(ious, 1)
        best = ious[np.arange(m), idx]
        for n in range(len(b)):
            a = last_argmax(ious[:, n], 0)
            idx[a], best[a] = n, 2.0
    match = (idx >= 0) & (best > F32(criteria))
    s = F32(scale) if offset else F32(1)
    ca = centers(anchors) * s
    out = np.zeros((m, 4), F32) if offset else ca.copy()
    labels = np.zeros(m, np.int32)
    if match.any():
        cb = centers(b[idx[match]]) * s
        a = ca[match]
        if offset:
            mean, std = np.asarray(means, F32), np.asarray(stds, F32)
            out[match] = np.stack([((cb[:, 0] - a[:, 0]) / a[:, 2] - mean[0]) / std[0],
                                   ((cb[:, 1] - a[:, 1]) / a[:, 3] - mean[1]) / std[1],
                                   (log(cb[:, 2] / a[:, 2]) - mean[2]) / std[2],
                                   (log(cb[:, 3] / a[:, 3]) - mean[3]) / std[3]], 1)
        else:
            out[match] = cb
        labels[match] = lab[idx[match]]
    return out, labels


def encode(boxes, labels, anchors=ANCHORS, **kwargs):
    return run_op(lambda fn, b, lab: tuple(fn.box_encoder(b, lab, anchors=anchors.ravel(),
                                                          **kwargs)), [boxes, labels])


@pytest.mark.parametrize("kwargs", [
    {}, {"criteria": 0.2}, {"criteria": 0.0}, {"criteria": 1.0}, {"offset": True},
    {"offset": True, "scale": 300.0, "means": [0.1, 0.2, -0.1, 0.0],
     "stds": [0.1, 0.1, 0.2, 0.2]},
])
def test_against_numpy(kwargs):
    out_boxes, out_labels = encode(BOXES, LABELS, **kwargs)
    for b, lab, ob, ol in zip(BOXES, LABELS, out_boxes, out_labels, strict=True):
        assert ob.shape == (len(ANCHORS), 4) and ob.dtype == F32
        assert ol.shape == (len(ANCHORS),) and ol.dtype == np.int32
        want_boxes, want_labels = reference(ANCHORS, b, lab, **kwargs)
        np.testing.assert_array_equal(ol, want_labels)
        np.testing.assert_allclose(ob, want_boxes, rtol=2e-6, atol=2e-6)


def test_every_box_gets_an_anchor():
    """Even a box overlapping no anchor beyond `criteria` claims its best anchor."""
    out_boxes, out_labels = encode(BOXES, LABELS, criteria=1.0)
    for lab, ol in zip(LABELS, out_labels, strict=True):
        assert set(ol[ol > 0]) <= set(lab) and len(set(ol[ol > 0])) >= min(len(lab), 1)


def test_ties_go_to_the_last_anchor_and_box():
    anchors = np.array([[0, 0, 1, 1], [0, 0, 0.5, 0.5], [0, 0, 0.5, 0.55]], F32)
    boxes = [np.array([[0, 0, 0.5, 1], [0, 0, 0.5, 0.5], [0, 0, 0.5, 0.5]], F32)]
    labels = [np.array([3, 5, 7], np.int32)]
    (ob,), (ol,) = encode(boxes, labels, anchors=anchors)
    # box 0 claims anchor 2 (IoU 0.55 > 0.5 with anchors 0 and 1); boxes 1 and 2 (equal) claim
    # anchor 1 (IoU 1), the last one winning; anchor 0's best IoU (0.5, box 0) is not above
    # the criteria.
    np.testing.assert_array_equal(ol, [0, 7, 3])
    np.testing.assert_array_equal(ob[0], [0.5, 0.5, 1, 1])


@pytest.mark.parametrize("case", range(4))
def test_golden(case):
    """Outputs recorded from real DALI by tests/goldens/make_detection.py."""
    kwargs, inputs, outputs = golden_cases("box_encoder")[case]
    for got, want in zip(run_golden("box_encoder", kwargs, inputs), outputs, strict=True):
        for o, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(o, w)


def test_labels_as_columns_and_extra_labels():
    labels = [lab.reshape(-1, 1) for lab in LABELS]
    _, a = encode(BOXES, labels)
    _, b = encode(BOXES, LABELS)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("kwargs, match", [
    ({"anchors": [0.0] * 7}, "Anchors size must be divisible by 4, actual value = 7"),
    ({"anchors": [0.0] * 8, "criteria": 1.5}, "Expected criteria in"),
    ({"anchors": [0.0] * 8, "means": [0.0] * 3}, "means size must be a list of 4 values"),
    ({"anchors": [0.0] * 8, "stds": [0.0, 1, 1, 1]}, "stds values must be != 0"),
])
def test_argument_errors(kwargs, match):
    with pytest.raises(RuntimeError, match=f"box_encoder: {match}"):
        run_op(lambda fn, b, lab: tuple(fn.box_encoder(b, lab, **kwargs)),
               [BOXES[:1], LABELS[:1]])


@pytest.mark.parametrize("boxes, labels, match", [
    (np.zeros((2, 4), np.float64), np.zeros(2, np.int32), "must be float32, got float64"),
    (np.zeros((2, 4), F32), np.zeros(2, np.int64), "labels must be int32, got int64"),
    (np.zeros((2, 5), F32), np.zeros(2, np.int32), r"must be \[N, 4\] per sample"),
    (np.zeros((3, 4), F32), np.zeros(2, np.int32), "the sample has 3 boxes but 2 labels"),
])
def test_input_errors(boxes, labels, match):
    with pytest.raises(PipelineError, match=f"box_encoder: .*{match}"):
        run_op(lambda fn, b, lab: tuple(fn.box_encoder(b, lab, anchors=[0, 0, 1, 1])),
               [[boxes], [labels]])


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [{}, {"offset": True, "scale": 2.0, "criteria": 0.4,
                                         "means": [0.0, 0.1, 0.2, 0.3]}])
def test_matches_dali(kwargs):
    pytest.importorskip("nvidia.dali")

    def build(fn, b, lab):
        return tuple(fn.box_encoder(b, lab, anchors=ANCHORS.ravel().tolist(), **kwargs))
    ours = run_op(build, [BOXES, LABELS])
    theirs = run_op(build, [BOXES, LABELS], real=True)
    for o, t in zip(ours, theirs, strict=True):
        for x, y in zip(o, t, strict=True):
            np.testing.assert_array_equal(x, y)
