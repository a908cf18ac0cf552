"""fn.bbox_rotate: box corners rotated about the image centre onto fn.rotate's canvas, the
modes, clipping and removal with the labels, against a corner-by-corner NumPy reference, real
DALI's goldens and DALI itself (within 2e-7: DALI computes in float32)."""

import math

import numpy as np
import pytest
from detection_utils import golden_cases, random_boxes, run_golden
from pipeline_utils import run_op

from dali._executor.errors import PipelineError
from dali.ops._rotation import rotated_size

F32 = np.float32
RNG = np.random.default_rng(31)
BOXES = random_boxes(RNG, [9, 0, 4, 25])
LABELS = [np.arange(len(b), dtype=np.int32) + 1 for b in BOXES]


def reference(b, angle, hw, mode="expand", keep_size=False, size=None, threshold=0.1):
    """Every corner rotated, then the bounding box, mode, clip and removal (float64)."""
    h, w = hw
    out_h, out_w = size if size else (hw if keep_size else rotated_size(hw, angle))
    t = math.radians(angle)
    c, s = math.cos(t), math.sin(t)
    x = b[:, [0, 2, 2, 0]].astype(np.float64) * w - w / 2
    y = b[:, [1, 1, 3, 3]].astype(np.float64) * h - h / 2
    xr, yr = c * x + s * y, -s * x + c * y
    lo = np.stack([xr.min(1), yr.min(1)], 1)
    hi = np.stack([xr.max(1), yr.max(1)], 1)
    if mode != "expand":
        own = np.stack([x[:, 1] - x[:, 0], y[:, 2] - y[:, 0]], 1)
        if math.floor(abs(math.remainder(angle, 360)) / 90 + 0.5) % 2:
            own = own[:, ::-1]
        half = (own if mode == "fixed" else (own + hi - lo) / 2) / 2
        lo, hi = (lo + hi) / 2 - half, (lo + hi) / 2 + half
    wh = np.array([out_w, out_h], np.float64)
    lo, hi = lo + wh / 2, hi + wh / 2
    area = np.prod(hi - lo, 1)
    lo, hi = np.clip(lo, 0, wh), np.clip(hi, 0, wh)
    keep = np.prod(hi - lo, 1) >= threshold * area
    return np.concatenate([lo / wh, hi / wh], 1)[keep].astype(F32), np.flatnonzero(keep)


def rotate(boxes, labels=None, **kwargs):
    inputs = [boxes] if labels is None else [boxes, labels]
    return run_op(lambda fn, *x: _outputs(fn.bbox_rotate(*x, **kwargs)), inputs)


def _outputs(out):
    return tuple(out) if isinstance(out, list) else out


@pytest.mark.parametrize("angle", [0.0, 30.0, 90.0, -73.0, 123.0, 180.0, 271.5])
@pytest.mark.parametrize("mode", ["expand", "fixed", "halfway"])
def test_against_numpy(angle, mode):
    boxes, labels = rotate(BOXES, LABELS, angle=angle, input_shape=[120, 200], mode=mode)
    for b, lab, ob, ol in zip(BOXES, LABELS, boxes, labels, strict=True):
        want, idx = reference(b, angle, (120, 200), mode)
        assert ob.dtype == F32 and ol.dtype == np.int32
        np.testing.assert_allclose(ob, want, atol=3e-7)
        np.testing.assert_array_equal(ol, lab[idx])


def test_quarter_turn_is_exact_swap():
    """90 degrees on the expanded canvas: x' = y, y' = 1 - x (relative)."""
    b = np.array([[0.1, 0.2, 0.3, 0.5]], F32)
    (out,) = rotate([b], angle=90.0, input_shape=[100, 200])
    np.testing.assert_allclose(out[0], [[0.2, 0.7, 0.5, 0.9]], atol=1e-6)


@pytest.mark.parametrize("kwargs", [
    {"keep_size": True}, {"keep_size": True, "remove_threshold": 0.7},
    {"keep_size": True, "remove_threshold": 0.0}, {"size": [80, 150]},
    {"size": [50, 70], "remove_threshold": 0.4, "mode": "fixed"},
])
def test_clipping_and_removal(kwargs):
    angle = 37.0
    boxes, labels = rotate(BOXES, LABELS, angle=angle, input_shape=[120, 200], **kwargs)
    for b, lab, ob, ol in zip(BOXES, LABELS, boxes, labels, strict=True):
        want, idx = reference(b, angle, (120, 200), kwargs.get("mode", "expand"),
                              kwargs.get("keep_size", False), kwargs.get("size"),
                              kwargs.get("remove_threshold", 0.1))
        np.testing.assert_allclose(ob, want, atol=3e-7)
        np.testing.assert_array_equal(ol, lab[idx])
        assert ((ob >= 0) & (ob <= 1)).all()


def test_per_sample_angles_and_shapes():
    angles = [F32(a) for a in (10, -50, 95, 180)]
    shapes = [np.array(s, np.int32) for s in ([100, 100], [50, 200], [300, 90], [64, 64])]
    (out,) = run_op(lambda fn, x, a, s: fn.bbox_rotate(x, angle=a, input_shape=s),
                    [BOXES, angles, shapes])
    for b, a, s, o in zip(BOXES, angles, shapes, out, strict=True):
        want, _ = reference(b, float(a), tuple(s.tolist()))
        np.testing.assert_allclose(o, want, atol=3e-7)


def test_layouts_pixels_and_shape_layout():
    angle, hw = 25.0, (100, 200)
    ref = rotate(BOXES, angle=angle, input_shape=list(hw))[0]
    xywh = [np.concatenate([b[:, :2], b[:, 2:] - b[:, :2]], 1) for b in BOXES]
    out = rotate(xywh, angle=angle, input_shape=list(hw), bbox_layout="xyWH")[0]
    for r, o in zip(ref, out, strict=True):
        np.testing.assert_allclose(np.concatenate([o[:, :2], o[:, :2] + o[:, 2:]], 1), r,
                                   atol=3e-7)
    scale = np.array([hw[1], hw[0]] * 2, F32)
    out = rotate([b * scale for b in BOXES], angle=angle, input_shape=list(hw),
                 bbox_normalized=False)[0]
    oh, ow = rotated_size(hw, angle)
    for r, o in zip(ref, out, strict=True):
        np.testing.assert_allclose(o, r * np.array([ow, oh] * 2), atol=1e-4)
    out = rotate(BOXES, angle=angle, input_shape=[hw[1], hw[0], 3], shape_layout="WHC")[0]
    for r, o in zip(ref, out, strict=True):
        np.testing.assert_array_equal(o, r)


def test_labels_as_column():
    labels = [lab.reshape(-1, 1) for lab in LABELS]
    _, out = rotate(BOXES, labels, angle=60.0, input_shape=[50, 50], keep_size=True,
                    remove_threshold=0.8)
    for lab, o in zip(labels, out, strict=True):
        assert o.ndim == 2 and o.shape[1] == 1 and set(o[:, 0]) <= set(lab[:, 0])


@pytest.mark.parametrize("case", range(5))
def test_golden(case):
    """Outputs recorded from real DALI by tests/goldens/make_detection.py (float32 there)."""
    kwargs, inputs, outputs = golden_cases("bbox_rotate")[case]
    got = run_golden("bbox_rotate", kwargs, inputs)
    for o, w in zip(got[0], outputs[0], strict=True):
        np.testing.assert_allclose(o, w, atol=2e-7)
    for o, w in zip(got[1], outputs[1], strict=True):
        np.testing.assert_array_equal(o, w)


@pytest.mark.parametrize("kwargs, match", [
    ({"mode": "foo"}, "Unknown mode: foo. Supported modes are: expand, halfway, fixed"),
    ({"bbox_layout": "xyXZ"}, "Unknown bbox_layout: xyXZ. Supported layouts are: xyWH, xyXY"),
    ({"shape_layout": "HC"}, '`shape_layout` "HC" must contain "H" and "W"'),
])
def test_argument_errors(kwargs, match):
    with pytest.raises(RuntimeError, match=f"bbox_rotate: {match}"):
        rotate(BOXES, angle=10.0, input_shape=[10, 10], **kwargs)


def test_required_arguments():
    with pytest.raises(RuntimeError, match='specify values for arguments: "input_shape"'):
        rotate(BOXES, angle=10.0)


@pytest.mark.parametrize("inputs, kwargs, match", [
    ([[np.zeros((2, 5), F32)]], {}, r"bounding boxes must be \[N, 4\]"),
    ([[np.zeros((2, 4), np.float64)]], {}, "bounding boxes must be float32"),
    ([[np.zeros((2, 4), F32)], [np.zeros(3, np.int32)]], {}, "2 boxes but 3 labels"),
    ([[np.zeros((2, 4), F32)]], {"input_shape": [10]}, "`input_shape` must have an entry"),
    ([[np.zeros((2, 4), F32)]], {"size": [10.0]}, "`size` must have 2 values"),
])
def test_input_errors(inputs, kwargs, match):
    kwargs = {"angle": 10.0, "input_shape": [10, 10], **kwargs}
    with pytest.raises(PipelineError, match=f"bbox_rotate: .*{match}"):
        run_op(lambda fn, *x: _outputs(fn.bbox_rotate(*x, **kwargs)), inputs)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {"angle": 33.0}, {"angle": -120.0, "mode": "halfway"},
    {"angle": 47.0, "keep_size": True, "remove_threshold": 0.5, "mode": "fixed"},
    {"angle": 80.0, "size": [120.0, 300.0]},
])
def test_matches_dali(kwargs):
    pytest.importorskip("nvidia.dali")
    labels = [lab.reshape(-1, 1) for lab in LABELS]

    def build(fn, x, lab):
        return tuple(fn.bbox_rotate(x, lab, input_shape=[100, 200], **kwargs))
    ours = run_op(build, [BOXES, labels])
    theirs = run_op(build, [BOXES, labels], real=True)
    for o, t in zip(ours[0], theirs[0], strict=True):
        np.testing.assert_allclose(o, t, atol=2e-7)
    for o, t in zip(ours[1], theirs[1], strict=True):
        np.testing.assert_array_equal(o, t)
