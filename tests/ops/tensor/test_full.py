"""fn.full: scalar and broadcast fill values, per-sample shapes, layouts and errors, against
NumPy and real DALI."""

import numpy as np
import pytest
from layout_utils import run_layouts
from pipeline_utils import run_graph

from dali._executor.errors import PipelineError

RNG = np.random.default_rng(43)


@pytest.mark.parametrize("fill_shape, shape", [
    ((), [2, 3]), ((3,), [2, 3]), ((2, 1), [2, 3]), ((1, 3), [4, 3]), ((3,), [5, 2, 3]),
    ((2, 3), [4, 2, 3]), ((1, 1), [3, 2]), ((), [0, 2]), ((4, 1, 2), [4, 3, 2]),
    ((), [300, 400, 3])])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64, np.bool_])
def test_broadcast_equals_numpy(fill_shape, shape, dtype):
    fills = [RNG.integers(0, 100, fill_shape).astype(dtype) for _ in range(3)]
    out, layout = run_layouts(lambda fn, f: fn.full(f, shape=shape), [fills])
    assert layout == ""
    for o, f in zip(out, fills, strict=True):
        assert o.dtype == f.dtype
        np.testing.assert_array_equal(o, np.broadcast_to(f, shape))


def test_per_sample_shapes_and_layout():
    shapes = [np.array(RNG.integers(1, 5, 2), np.int32) for _ in range(4)]
    fills = [np.float32(i) for i in range(4)]
    out, layout = run_layouts(lambda fn, f, s: fn.full(f, shape=s, layout="AB"),
                              [fills, shapes])
    assert layout == "AB"
    for o, f, s in zip(out, fills, shapes, strict=True):
        np.testing.assert_array_equal(o, np.full(s, f, np.float32))


def test_without_shape_a_scalar_of_the_first_element():
    (out,) = run_graph(lambda fn: fn.full(np.array([4, 2, 3], np.int16)))
    assert [o.tolist() for o in out] == [4, 4] and out[0].dtype == np.int16


@pytest.mark.parametrize("fill_shape, shape, match", [
    ((3,), [2, 2], "Shapes 2 x 2 and 3 can't be broadcast"),
    ((3,), [3, 4], "Shapes 3 x 4 and 3 can't be broadcast"),
    ((2, 3), [3], "Shapes 3 and 2 x 3 can't be broadcast")])
def test_broadcast_errors(fill_shape, shape, match):
    with pytest.raises(PipelineError, match=match) as e:
        run_layouts(lambda fn, f: fn.full(f, shape=shape), [[np.zeros(fill_shape, np.uint8)]])
    assert "fn.full" in str(e.value)


@pytest.mark.oracle
def test_matches_dali():
    pytest.importorskip("nvidia.dali")
    fills = [RNG.integers(0, 100, (2, 1)).astype(np.int16) for _ in range(3)]
    shapes = [np.array([2, int(RNG.integers(0, 5))], np.int32) for _ in range(3)]
    for kwargs in ({}, {"layout": "XY"}):
        ours = run_layouts(lambda fn, f, s, kw=kwargs: fn.full(f, shape=s, **kw),
                           [fills, shapes])
        theirs = run_layouts(lambda fn, f, s, kw=kwargs: fn.full(f, shape=s, **kw),
                             [fills, shapes], real=True)
        assert ours[1] == theirs[1]
        for o, t in zip(ours[0], theirs[0], strict=True):
            assert o.dtype == t.dtype
            np.testing.assert_array_equal(o, t)
