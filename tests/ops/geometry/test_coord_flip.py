"""fn.coord_flip: v -> 2 * center - v on the flipped axes."""

import numpy as np
import pytest
from pipeline_utils import run_op

from dali._executor.errors import PipelineError

F32 = np.float32
RNG = np.random.default_rng(4)
PTS = [RNG.random((5, 2), dtype=F32), RNG.random((3, 2), dtype=F32)]
PTS3 = [RNG.random((4, 3), dtype=F32)]


def flipped(x, col, center=0.5):
    out = x.copy()
    out[:, col] = F32(2) * F32(center) - x[:, col]
    return out


@pytest.mark.parametrize("pts, kwargs, flips", [
    (PTS, {}, [(0, 0.5)]),
    (PTS, {"flip_x": 0, "flip_y": 1, "center_y": 0.3}, [(1, 0.3)]),
    (PTS, {"layout": "yx"}, [(1, 0.5)]),
    (PTS, {"layout": "xyz", "flip_y": 1}, [(0, 0.5), (1, 0.5)]),
    (PTS3, {"flip_z": 1, "center_z": 1.0, "center_x": 0.1}, [(0, 0.1), (2, 1.0)]),
    (PTS3, {"layout": "zyx", "flip_x": 0, "flip_z": 1}, [(0, 0.5)]),
    ([np.array([[0.2], [0.9]], F32)], {}, [(0, 0.5)]),
])
def test_against_numpy(pts, kwargs, flips):
    (out,) = run_op(lambda fn, x: fn.coord_flip(x, **kwargs), [pts])
    for o, x in zip(out, pts, strict=True):
        want = x
        for col, center in flips:
            want = flipped(want, col, center)
        np.testing.assert_array_equal(o, want)


def test_per_sample_arguments():
    flags = [np.int32(1), np.int32(0)]
    centers = [F32(0.25), F32(0.75)]
    (out,) = run_op(lambda fn, x, f, c: fn.coord_flip(x, flip_x=f, flip_y=f, center_y=c),
                    [PTS, flags, centers])
    np.testing.assert_array_equal(out[0], flipped(flipped(PTS[0], 0), 1, 0.25))
    np.testing.assert_array_equal(out[1], PTS[1])


def test_empty_sample():
    (out,) = run_op(lambda fn, x: fn.coord_flip(x), [[np.zeros((0, 2), F32), PTS[0]]])
    assert out[0].shape == (0, 2)


@pytest.mark.parametrize("x, kwargs, match", [
    (np.ones((2, 4), F32), {}, "Unexpected number of dimensions 4"),
    (np.ones((2, 2), np.uint8), {}, "expected to be float"),
    (np.ones((4,), F32), {}, "must be 2-dimensional"),
    (np.ones((2, 2), F32), {"layout": "xq"}, 'Dimension "y" not found'),
])
def test_bad_input_fails_at_run(x, kwargs, match):
    with pytest.raises(PipelineError, match=match):
        run_op(lambda fn, t: fn.coord_flip(t, **kwargs), [[x]])


@pytest.mark.oracle
def test_live_oracle():
    flags = [np.int32(1), np.int32(0)]
    centers = [F32(0.3), F32(0.8)]

    def build(fn, x, f, c):
        return (fn.coord_flip(x, flip_y=f, center_x=c),
                fn.coord_flip(x, layout="yx", flip_x=f, flip_y=1, center_y=c))

    ours = run_op(build, [PTS, flags, centers])
    real = run_op(build, [PTS, flags, centers], real=True)
    for o, w in zip(ours, real, strict=True):
        for a, e in zip(o, w, strict=True):
            np.testing.assert_array_equal(a, e)
