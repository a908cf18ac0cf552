"""fn.one_hot: against a NumPy reference over random shapes, axes, types and values, real
DALI's conversions of on/off values, layouts and errors."""

import numpy as np
import pytest
from layout_utils import run_layouts as run

from dali import types
from dali._executor.errors import PipelineError

RNG = np.random.default_rng(31)


def reference(x, classes, axis, on, off, dtype):
    idx = np.trunc(x.astype(np.float64)) if x.dtype.kind == "f" else x.astype(np.float64)
    idx = np.where((x > -1) & (x < classes), idx, -1) if x.dtype.kind == "f" else idx
    axis = x.ndim if axis == -1 else axis
    hot = np.expand_dims(idx, axis) == np.arange(classes).reshape(
        (-1,) + (1,) * (x.ndim - axis))
    return np.where(hot, on, off).astype(dtype)


@pytest.mark.parametrize("in_type", [np.int8, np.uint8, np.int32, np.int64, np.uint64,
                                     np.float32, np.float64])
@pytest.mark.parametrize("out_type", [types.FLOAT, types.INT32, types.UINT8, types.INT16,
                                      types.FLOAT64, types.INT64])
def test_random_shapes_and_axes_equal_numpy(in_type, out_type):
    dtype = types.to_numpy_type(out_type)
    for ndim in (0, 1, 2, 3):
        classes = int(RNG.integers(0, 12))
        axis = int(RNG.integers(-1, ndim + 1))
        lo = 0 if np.dtype(in_type).kind == "u" else -3
        batch = [(RNG.uniform(lo, classes + 3, tuple(RNG.integers(0, 5, ndim)))).astype(in_type)
                 for _ in range(4)]
        on, off = float(RNG.integers(1, 100)), float(RNG.integers(-5, 1))
        if np.dtype(dtype).kind == "u":
            off = 0.0
        kwargs = {"num_classes": classes, "axis": axis, "on_value": on, "off_value": off,
                  "dtype": out_type}
        out, layout = run(lambda fn, x, kw=kwargs: fn.one_hot(x, **kw), [batch])
        assert layout == ""
        for o, x in zip(out, batch, strict=True):
            want = reference(x, classes, axis, on, off, dtype)
            assert o.dtype == want.dtype and o.shape == want.shape
            np.testing.assert_array_equal(o, want)


def test_large_batch_on_a_pool():
    batch = [RNG.integers(-2, 1002, (200, 30)).astype(np.int32) for _ in range(3)]
    out, _ = run(lambda fn, x: fn.one_hot(x, num_classes=1000, axis=1), [batch])
    for o, x in zip(out, batch, strict=True):
        np.testing.assert_array_equal(o, reference(x, 1000, 1, 1.0, 0.0, np.float32))


@pytest.mark.parametrize("on, off, dtype, want_on, want_off", [
    (300.0, -1.5, types.UINT8, 44, 255), (2.7, -1.5, types.INT32, 2, -1),
    (1e10, -1e10, types.INT32, -2 ** 31, -2 ** 31), (1e10, -1e10, types.INT16, 0, 0),
    (1e10, -1e10, types.UINT32, 1410065408, 2884901888),
    (1e10, -1e10, types.INT64, 10 ** 10, -10 ** 10), (0.1, 0.0, types.FLOAT64,
                                                      float(np.float32(0.1)), 0.0)])
def test_value_conversions_as_dali(on, off, dtype, want_on, want_off):
    out, _ = run(lambda fn, x: fn.one_hot(x, num_classes=3, on_value=on, off_value=off,
                                          dtype=dtype), [[np.array(1, np.int32)]])
    assert out[0].tolist() == [want_off, want_on, want_off]


@pytest.mark.parametrize("kwargs, layout, want", [
    ({"axis_name": "X"}, "AB", "ABX"), ({"axis": 1, "axis_name": "X"}, "AB", "AXB"),
    ({"axis": 0}, "AB", ""), ({"axis_name": "X"}, None, "error")])
def test_layouts(kwargs, layout, want):
    batch = [RNG.integers(0, 4, (3, 2)).astype(np.int32)]
    build = lambda fn, x: fn.one_hot(x, num_classes=4, **kwargs)  # noqa: E731
    if want == "error":
        with pytest.raises(PipelineError, match='expected input layout to be of size 2 but '
                                                'instead got "", which is of size 0'):
            run(build, [batch], [layout])
        return
    assert run(build, [batch], [layout])[1] == want


def test_scalar_input_takes_the_axis_name_as_layout():
    out, layout = run(lambda fn, x: fn.one_hot(x, num_classes=3, axis_name="Z"),
                      [[np.array(2, np.int32), np.array(0, np.int32)]])
    assert layout == "Z" and [o.tolist() for o in out] == [[0, 0, 1], [1, 0, 0]]


@pytest.mark.parametrize("kwargs, data, match", [
    ({"num_classes": 4, "axis": 2}, np.zeros(2, np.int32),
     r"Provided axis is outside of allowed range, got: 2, expected to be in range: \[-1, 1\]"),
    ({"num_classes": 4, "axis": 1}, np.int32(0), r"got: 1, expected to be in range: \[-1, 0\]"),
    ({"num_classes": 4}, np.zeros(2, np.bool_), "Unsupported input type: bool"),
    ({"num_classes": 4}, np.zeros(2, np.float16), "Unsupported input type: float16")])
def test_run_errors(kwargs, data, match):
    with pytest.raises(PipelineError, match=match) as e:
        run(lambda fn, x: fn.one_hot(x, **kwargs), [[np.asarray(data)]])
    assert "fn.one_hot" in str(e.value)


@pytest.mark.parametrize("kwargs, match", [
    ({"dtype": types.BOOL}, "Unsupported output type: bool"),
    ({"dtype": types.FLOAT16}, "Unsupported output type: float16"),
    ({"axis_name": "XY"}, 'must be a single character, got "XY" instead'),
    ({"num_classes": -1}, "Input size less than zero not supported")])
def test_build_errors(kwargs, match):
    with pytest.raises(RuntimeError, match=match):
        run(lambda fn, x: fn.one_hot(x, **kwargs), [[np.zeros(2, np.int32)]])


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {"num_classes": 7}, {"num_classes": 5, "axis": 0, "dtype": types.INT8, "on_value": 200.0,
                         "off_value": -3.6},
    {"num_classes": 6, "axis": 1, "axis_name": "X", "dtype": types.UINT16, "on_value": -2.0},
    {"num_classes": 4, "dtype": types.UINT64, "off_value": 3e9}])
@pytest.mark.parametrize("in_type", [np.int32, np.float32, np.uint8])
def test_matches_dali(kwargs, in_type):
    pytest.importorskip("nvidia.dali")
    batch = [RNG.uniform(0, 8, (5, 3)).astype(in_type) for _ in range(3)]
    ours = run(lambda fn, x: fn.one_hot(x, **kwargs), [batch], ["AB"])
    theirs = run(lambda fn, x: fn.one_hot(x, **kwargs), [batch], ["AB"], real=True)
    assert ours[1] == theirs[1]
    for o, t in zip(ours[0], theirs[0], strict=True):
        assert o.dtype == t.dtype
        np.testing.assert_array_equal(o, t)
