"""fn.bbox_paste: x -> x / ratio + paste_x * (ratio - 1) / ratio (float32, DALI's order)."""

import numpy as np
import pytest
from detection_utils import golden_cases, random_boxes, run_golden
from pipeline_utils import run_op

from dali._executor.errors import PipelineError

F32 = np.float32


def reference(b, ratio, px, py, ltrb):
    r = F32(ratio)
    s = F32(1) / r
    x = b.reshape(-1, 4)
    out = np.empty_like(x)
    for axis, p in ((0, px), (1, py)):
        off = F32(p) * ((r - F32(1)) * s)
        out[:, axis] = x[:, axis] * s + off
        out[:, axis + 2] = x[:, axis + 2] * s + off if ltrb else x[:, axis + 2] * s
    return out.reshape(b.shape)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ltrb", [False, True])
def test_against_numpy(seed, ltrb):
    rng = np.random.default_rng(seed)
    boxes = random_boxes(rng, rng.integers(0, 9, 5), ltrb=ltrb)
    ratio, px, py = float(rng.uniform(1, 4)), float(rng.uniform()), float(rng.uniform())
    (out,) = run_op(lambda fn, x: fn.bbox_paste(x, ratio=ratio, paste_x=px, paste_y=py,
                                                ltrb=ltrb), [boxes])
    for o, b in zip(out, boxes, strict=True):
        assert o.dtype == F32 and o.shape == b.shape
        np.testing.assert_array_equal(o, reference(b, ratio, px, py, ltrb))


def test_per_sample_arguments():
    rng = np.random.default_rng(5)
    boxes = random_boxes(rng, [3, 2, 4])
    ratios = [F32(1.5), F32(2.0), F32(3.25)]
    xs, ys = [F32(0.0), F32(0.5), F32(1.0)], [F32(1.0), F32(0.2), F32(0.5)]
    (out,) = run_op(lambda fn, x, r, px, py: fn.bbox_paste(x, ratio=r, paste_x=px, paste_y=py,
                                                           ltrb=True), [boxes, ratios, xs, ys])
    for o, b, r, px, py in zip(out, boxes, ratios, xs, ys, strict=True):
        np.testing.assert_array_equal(o, reference(b, r, px, py, True))


def test_pasted_boxes_keep_their_place_on_the_canvas():
    """A box of an image pasted at (px, py) of a canvas `ratio` times larger covers the same
    pixels: canvas coordinates * ratio - paste offset in input units = input coordinates."""
    b = np.array([[0.25, 0.5, 0.75, 1.0]], F32)
    ratio, px, py = 4.0, 1 / 3, 1.0
    (out,) = run_op(lambda fn, x: fn.bbox_paste(x, ratio=ratio, paste_x=px, paste_y=py,
                                                ltrb=True), [[b]])
    back = out[0] * ratio - np.array([px, py, px, py]) * (ratio - 1)
    np.testing.assert_allclose(back, b, atol=1e-6)


@pytest.mark.parametrize("case", range(4))
def test_golden(case):
    """Outputs recorded from real DALI by tests/goldens/make_detection.py."""
    kwargs, inputs, outputs = golden_cases("bbox_paste")[case]
    for got, want in zip(run_golden("bbox_paste", kwargs, inputs), outputs, strict=True):
        for o, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(o, w)


@pytest.mark.parametrize("x, kwargs, match", [
    (np.zeros((2, 4), np.float64), {"ratio": 2.0}, "must be float32, got float64"),
    (np.zeros((3,), F32), {"ratio": 2.0}, "multiple of 4, got 3"),
    (np.zeros((1, 4), F32), {"ratio": 0.0}, "`ratio` must be positive, got 0.0"),
])
def test_errors(x, kwargs, match):
    with pytest.raises(PipelineError, match=f"bbox_paste.*{match}"):
        run_op(lambda fn, b: fn.bbox_paste(b, **kwargs), [[x]])


def test_ratio_is_required():
    with pytest.raises(RuntimeError, match='specify values for arguments: "ratio"'):
        run_op(lambda fn, b: fn.bbox_paste(b), [[np.zeros((1, 4), F32)]])


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [{"ratio": 2.7}, {"ratio": 1.3, "ltrb": True, "paste_x": 0.9,
                                                      "paste_y": 0.05}])
def test_matches_dali(kwargs):
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(9)
    boxes = random_boxes(rng, [40, 0, 7], ltrb=kwargs.get("ltrb", False))
    ours = run_op(lambda fn, x: fn.bbox_paste(x, **kwargs), [boxes])
    theirs = run_op(lambda fn, x: fn.bbox_paste(x, **kwargs), [boxes], real=True)
    for o, t in zip(ours[0], theirs[0], strict=True):
        np.testing.assert_array_equal(o, t)
