"""fn.cat: joining along an existing axis, against np.concatenate and real DALI."""

import numpy as np
import pytest
from layout_utils import run_layouts as run

from dali._executor.errors import PipelineError

RNG = np.random.default_rng(21)


def _batches(ndim, axis, k, dtype, n=4):
    base = [RNG.integers(0, 5, ndim) for _ in range(n)]
    out = []
    for _ in range(k):
        batch = []
        for s in base:
            s = s.copy()
            s[axis] = RNG.integers(0, 4)
            batch.append((RNG.random(tuple(s)) * 200).astype(dtype))
        out.append(batch)
    return out


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float32, np.float16])
def test_random_shapes_equal_numpy(dtype):
    for ndim in (1, 2, 3, 4):
        for axis in range(-ndim, ndim):
            k = int(RNG.integers(1, 4))
            batches = _batches(ndim, axis, k, dtype)
            out, layout = run(lambda fn, *x, a=axis: fn.cat(*x, axis=a), batches)
            assert layout == ""
            for i, o in enumerate(out):
                want = np.concatenate([b[i] for b in batches], axis)
                assert o.dtype == want.dtype
                np.testing.assert_array_equal(o, want)


@pytest.mark.parametrize("name, axis", [("H", 0), ("W", 1), ("C", 2)])
def test_axis_name_and_first_input_layout(name, axis):
    batches = _batches(3, axis, 2, np.uint8)
    out, layout = run(lambda fn, x, y: fn.cat(x, y, axis_name=name), batches, ["HWC", "CHW"])
    assert layout == "HWC"
    for i, o in enumerate(out):
        np.testing.assert_array_equal(o, np.concatenate([b[i] for b in batches], axis))
    _, layout = run(lambda fn, x, y: fn.cat(x, y), _batches(3, 0, 2, np.uint8), [None, "HWC"])
    assert layout == ""


def test_large_images():
    a = [RNG.integers(0, 255, (300, 200, 3), np.uint8) for _ in range(3)]
    b = [RNG.integers(0, 255, (300, 100, 3), np.uint8) for _ in range(3)]
    out, _ = run(lambda fn, x, y: fn.cat(x, y, axis=1), [a, b])
    for i, o in enumerate(out):
        np.testing.assert_array_equal(o, np.concatenate([a[i], b[i]], 1))


@pytest.mark.parametrize("kwargs, layouts, second, match", [
    ({"axis": 3}, ["HWC", "HWC"], None, r"Invalid axis argument, 3 for 3-D tensors. Accepted "
     r"range is \[-3, 2\]"),
    ({"axis": -4}, ["HWC", "HWC"], None, r"Invalid axis argument, -4"),
    ({"axis_name": "F"}, ["HWC", "HWC"], None, "undefined axis 'F' for layout \"HWC\""),
    ({"axis_name": "W"}, [None, None], None, "undefined axis 'W' for layout \"\""),
    ({}, ["HWC", "HWC"], "f32", "same type and number of dimensions"),
    ({}, ["HWC", None], "2d", "same type and number of dimensions"),
    ({"axis": 1}, ["HWC", "HWC"], None, r"differ in size only in the concatenation axis \(1\)"),
])
def test_errors(kwargs, layouts, second, match):
    a = [np.zeros((2, 3, 4), np.uint8)]
    b = {"f32": [np.zeros((2, 3, 4), np.float32)], "2d": [np.zeros((2, 3), np.uint8)],
         None: [np.zeros((3, 3, 4), np.uint8)]}[second]
    with pytest.raises(PipelineError, match=match) as e:
        run(lambda fn, x, y: fn.cat(x, y, **kwargs), [a, b], layouts)
    assert "fn.cat" in str(e.value)


def test_axis_with_axis_name_fails_at_build():
    with pytest.raises(RuntimeError, match="``axis`` and ``axis_name`` cannot be used together"):
        run(lambda fn, x: fn.cat(x, axis=0, axis_name="H"), [[np.zeros((2, 2), np.uint8)]],
            ["HW"])


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs, layouts", [
    ({}, ["HWC", "HWC"]), ({"axis": -1}, ["HWC", None]), ({"axis_name": "W"}, ["HWC", "CHW"]),
    ({"axis": 1}, [None, "HWC"])])
def test_matches_dali(kwargs, layouts):
    pytest.importorskip("nvidia.dali")
    axis = kwargs.get("axis", 1 if "axis_name" in kwargs else 0)
    batches = _batches(3, axis, 2, np.int16)
    ours = run(lambda fn, *x: fn.cat(*x, **kwargs), batches, layouts)
    theirs = run(lambda fn, *x: fn.cat(*x, **kwargs), batches, layouts, real=True)
    assert ours[1] == theirs[1]
    for o, t in zip(ours[0], theirs[0], strict=True):
        assert o.dtype == t.dtype
        np.testing.assert_array_equal(o, t)
