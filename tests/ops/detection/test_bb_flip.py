"""fn.bb_flip: x -> 1 - (x + w) (xywh) or l, r -> 1 - r, 1 - l (ltrb), and likewise for y."""

import numpy as np
import pytest
from detection_utils import golden_cases, random_boxes, run_golden
from pipeline_utils import run_op

from dali._executor.errors import PipelineError

F32 = np.float32
ONE = F32(1)


def reference(b, horizontal, vertical, ltrb):
    """Through ltrb, as DALI: sizes become (x + w) - x on every axis."""
    ndim = b.shape[-1] // 2 if b.ndim == 2 and b.shape[-1] == 6 else 2
    x = b.reshape(-1, 2 * ndim)
    out = x.copy()
    for axis, flip in ((0, horizontal), (1, vertical), (2, False))[:ndim]:
        lo = x[:, axis]
        hi = x[:, axis + ndim] if ltrb else lo + x[:, axis + ndim]
        if flip:
            lo, hi = ONE - hi, ONE - lo
        out[:, axis] = lo
        out[:, axis + ndim] = hi if ltrb else hi - lo
    return out.reshape(b.shape)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ltrb", [False, True])
def test_against_numpy(seed, ltrb):
    rng = np.random.default_rng(seed)
    boxes = random_boxes(rng, rng.integers(0, 9, 5), ltrb=ltrb)
    h, v = int(rng.integers(0, 2)), int(rng.integers(0, 2))
    (out,) = run_op(lambda fn, x: fn.bb_flip(x, horizontal=h, vertical=v, ltrb=ltrb), [boxes])
    for o, b in zip(out, boxes, strict=True):
        assert o.dtype == F32 and o.shape == b.shape
        np.testing.assert_array_equal(o, reference(b, h, v, ltrb))


def test_default_is_horizontal_xywh():
    b = np.array([[0.1, 0.2, 0.5, 0.7]], F32)
    (out,) = run_op(lambda fn, x: fn.bb_flip(x), [[b]])
    np.testing.assert_array_equal(out[0], [[ONE - (F32(0.1) + F32(0.5)), F32(0.2), F32(0.5),
                                            F32(0.7)]])


def test_per_sample_flags():
    rng = np.random.default_rng(5)
    boxes = random_boxes(rng, [3, 2, 4])
    hs = [np.int32(1), np.int32(0), np.int32(1)]
    vs = [np.int32(0), np.int32(1), np.int32(1)]
    (out,) = run_op(lambda fn, x, h, v: fn.bb_flip(x, horizontal=h, vertical=v, ltrb=True),
                    [boxes, hs, vs])
    for o, b, h, v in zip(out, boxes, hs, vs, strict=True):
        np.testing.assert_array_equal(o, reference(b, h, v, True))


@pytest.mark.parametrize("ltrb", [False, True])
def test_3d_boxes_flip_x_and_y(ltrb):
    rng = np.random.default_rng(6)
    boxes = random_boxes(rng, [3, 0, 2], ltrb=ltrb, ndim=3)
    (out,) = run_op(lambda fn, x: fn.bb_flip(x, vertical=1, ltrb=ltrb), [boxes])
    for o, b in zip(out, boxes, strict=True):
        want = reference(b, 1, 1, ltrb)
        np.testing.assert_array_equal(o, want)
        np.testing.assert_array_equal(o[:, 2], b[:, 2])     # z not flipped


def test_flat_run_of_boxes_keeps_shape():
    b = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.1, 0.7, 0.2], F32)
    (out,) = run_op(lambda fn, x: fn.bb_flip(x, ltrb=True), [[b]])
    assert out[0].shape == (8,)
    np.testing.assert_array_equal(out[0], reference(b.reshape(2, 4), 1, 0, True).ravel())


def test_empty_samples():
    (out,) = run_op(lambda fn, x: fn.bb_flip(x), [[np.zeros((0, 4), F32)] * 2])
    assert [o.shape for o in out] == [(0, 4), (0, 4)]


@pytest.mark.parametrize("case", range(4))
def test_golden(case):
    """Outputs recorded from real DALI by tests/goldens/make_detection.py."""
    kwargs, inputs, outputs = golden_cases("bb_flip")[case]
    for got, want in zip(run_golden("bb_flip", kwargs, inputs), outputs, strict=True):
        for o, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(o, w)


@pytest.mark.parametrize("x, match", [
    (np.zeros((2, 4), np.float64), "bounding boxes must be float32, got float64"),
    (np.zeros((3,), F32), "multiple of 4, got 3"),
    (np.zeros((2, 5), F32), "multiple of 4, got 10"),
])
def test_errors(x, match):
    with pytest.raises(PipelineError, match=f"bb_flip.*{match}"):
        run_op(lambda fn, b: fn.bb_flip(b), [[x]])


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [{}, {"ltrb": True, "vertical": 1},
                                    {"horizontal": 0, "vertical": 1}])
def test_matches_dali(kwargs):
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(9)
    boxes = random_boxes(rng, [40, 0, 7], ltrb=kwargs.get("ltrb", False))
    ours = run_op(lambda fn, x: fn.bb_flip(x, **kwargs), [boxes])
    theirs = run_op(lambda fn, x: fn.bb_flip(x, **kwargs), [boxes], real=True)
    for o, t in zip(ours[0], theirs[0], strict=True):
        np.testing.assert_array_equal(o, t)
