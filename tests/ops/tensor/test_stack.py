"""fn.stack: joining along a new axis, against np.stack and real DALI."""

import numpy as np
import pytest
from layout_utils import run_layouts as run

from dali._executor.errors import PipelineError

RNG = np.random.default_rng(22)


def _batches(ndim, k, dtype, n=4):
    shapes = [tuple(RNG.integers(0, 5, ndim)) for _ in range(n)]
    return [[(RNG.random(s) * 200).astype(dtype) for s in shapes] for _ in range(k)]


@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float32, np.bool_])
def test_random_shapes_equal_numpy(dtype):
    for ndim in (0, 1, 2, 3):
        for axis in range(-ndim, ndim + 1):
            k = int(RNG.integers(1, 4))
            batches = _batches(ndim, k, dtype)
            out, layout = run(lambda fn, *x, a=axis: fn.stack(*x, axis=a), batches)
            assert layout == ""
            numpy_axis = axis + ndim + 1 if axis < 0 else axis
            for i, o in enumerate(out):
                want = np.stack([b[i] for b in batches], numpy_axis)
                assert o.dtype == want.dtype
                np.testing.assert_array_equal(o, want)


@pytest.mark.parametrize("kwargs, layout, want", [
    ({}, "HWC", ""), ({"axis_name": "F"}, "HWC", "FHWC"), ({"axis": -1, "axis_name": "F"},
                                                            "HWC", "HWCF"),
    ({"axis": 1, "axis_name": "W"}, "HWC", "HWWC")])
def test_layouts(kwargs, layout, want):
    batches = _batches(3, 2, np.uint8)
    out, got = run(lambda fn, x, y: fn.stack(x, y, **kwargs), batches, [layout, layout])
    assert got == want
    axis = {"": 0, "FHWC": 0, "HWCF": 3, "HWWC": 1}[want]
    for i, o in enumerate(out):
        np.testing.assert_array_equal(o, np.stack([b[i] for b in batches], axis))


def test_scalars_take_the_axis_name_as_layout():
    out, layout = run(lambda fn, x, y: fn.stack(x, y, axis_name="X"),
                      [[np.float32(1), np.float32(2)], [np.float32(3), np.float32(4)]])
    assert layout == "X" and [o.tolist() for o in out] == [[1, 3], [2, 4]]


@pytest.mark.parametrize("kwargs, layouts, second, match", [
    ({"axis": 4}, ["HWC", "HWC"], None, r"Invalid axis argument, 4 for 3-D tensors. Accepted "
     r"range is \[-3, 3\]"),
    ({"axis_name": "F"}, [None, None], None, "requires a non-empty input layout"),
    ({}, ["HWC", "HWC"], "other", "requires that all tensors being stacked are of equal shape"),
    ({}, ["HWC", "HWC"], "f32", "same type and number of dimensions"),
])
def test_errors(kwargs, layouts, second, match):
    a = [np.zeros((2, 3, 4), np.uint8)]
    b = {"f32": [np.zeros((2, 3, 4), np.float32)], "other": [np.zeros((3, 3, 4), np.uint8)],
         None: a}[second]
    with pytest.raises(PipelineError, match=match) as e:
        run(lambda fn, x, y: fn.stack(x, y, **kwargs), [a, b], layouts)
    assert "fn.stack" in str(e.value)


def test_long_axis_name_fails_at_build():
    with pytest.raises(RuntimeError, match="``axis_name`` must be a single character; got WW"):
        run(lambda fn, x: fn.stack(x, axis_name="WW"), [[np.zeros((2, 2), np.uint8)]], ["HW"])


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs, layouts", [
    ({}, ["HWC", "HWC"]), ({"axis": -1, "axis_name": "F"}, ["HWC", None]),
    ({"axis": -3}, ["HWC", "HWC"]), ({"axis": 2, "axis_name": "Q"}, ["HWC", "CHW"])])
def test_matches_dali(kwargs, layouts):
    pytest.importorskip("nvidia.dali")
    batches = _batches(3, 2, np.float32)
    ours = run(lambda fn, *x: fn.stack(*x, **kwargs), batches, layouts)
    theirs = run(lambda fn, *x: fn.stack(*x, **kwargs), batches, layouts, real=True)
    assert ours[1] == theirs[1]
    for o, t in zip(ours[0], theirs[0], strict=True):
        assert o.dtype == t.dtype
        np.testing.assert_array_equal(o, t)
