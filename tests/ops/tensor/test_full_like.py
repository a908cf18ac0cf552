"""fn.full_like: the first input's shape, type and layout, the fill value converted as fn.cast
converts and broadcast, against NumPy and real DALI."""

import numpy as np
import pytest
from layout_utils import run_layouts

from dali._executor.errors import PipelineError

RNG = np.random.default_rng(44)


@pytest.mark.parametrize("fill, like_type, want", [
    (np.float32(2.5), np.uint8, 3), (np.float32(-2.5), np.int16, -3),
    (np.float32(300.7), np.uint8, 255), (np.int64(-5), np.uint8, 0),
    (np.float32(1.5), np.float16, 1.5), (np.int32(7), np.bool_, True)])
def test_fill_converted_to_the_input_type(fill, like_type, want):
    batch = [np.zeros((2, 3), like_type), np.zeros((0, 1), like_type)]
    out, layout = run_layouts(lambda fn, x: fn.full_like(x, fill), [batch], ["HW"])
    assert layout == "HW"
    for o, x in zip(out, batch, strict=True):
        assert o.dtype == like_type
        np.testing.assert_array_equal(o, np.full(x.shape, want, like_type))


def test_per_sample_broadcast_fills():
    like = [np.zeros((2, 3), np.float32), np.zeros((4, 1), np.float32)]
    fills = [np.array([1, 2, 3], np.int32), np.array([5], np.int32)]
    out, _ = run_layouts(lambda fn, x, f: fn.full_like(x, f), [like, fills], ["HW", None])
    np.testing.assert_array_equal(out[0], [[1, 2, 3], [1, 2, 3]])
    np.testing.assert_array_equal(out[1], [[5]] * 4)


def test_broadcast_error():
    with pytest.raises(PipelineError, match="Shapes 1 x 4 and 3 can't be broadcast"):
        run_layouts(lambda fn, x, f: fn.full_like(x, f),
                    [[np.zeros((1, 4), np.uint8)], [np.zeros(3, np.uint8)]])


@pytest.mark.oracle
def test_matches_dali():
    pytest.importorskip("nvidia.dali")
    like = [RNG.integers(0, 9, (2, 3)).astype(np.int16), np.zeros((3, 3), np.int16)]
    fills = [np.array([1.5, -2.5, 1e6], np.float32), np.array([7.7], np.float32)]
    ours = run_layouts(lambda fn, x, f: fn.full_like(x, f), [like, fills], ["AB", None])
    theirs = run_layouts(lambda fn, x, f: fn.full_like(x, f), [like, fills], ["AB", None],
                         real=True)
    assert ours[1] == theirs[1]
    for o, t in zip(ours[0], theirs[0], strict=True):
        assert o.dtype == t.dtype
        np.testing.assert_array_equal(o, t)
