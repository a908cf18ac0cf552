"""fn.slice: windows from arguments and positional inputs, rounding, border policies, fill
values, output types and errors; checked against NumPy, DALI's goldens and real DALI."""

import numpy as np
import pytest
import slicing_goldens
from pipeline_utils import run_op

from dali import types
from dali._executor.errors import PipelineError

MODES = {"edge": "edge", "clamp": "edge", "reflect": "symmetric", "reflect_1001": "symmetric",
         "reflect_101": "reflect", "wrap": "wrap"}


def reference(x, start, end, policy="error", fill=(0,), channel=-1):
    """The window [start, end) of `x` (all dimensions), with `policy` outside."""
    start, end = np.asarray(start), np.asarray(end)
    if policy == "trim_to_shape":
        start, end = np.clip(start, 0, x.shape), np.clip(end, 0, x.shape)
    margin = int(max(np.abs(start).max(initial=0), np.abs(end).max(initial=0))) + 1
    mode = MODES.get(policy, "constant")
    padded = np.pad(x, margin, mode=mode) if mode != "constant" else np.pad(x, margin)
    window = zip(start, end, strict=True)
    out = padded[tuple(slice(margin + a, margin + b) for a, b in window)].copy()
    if mode == "constant":
        inside = np.ones(out.shape, bool)
        for d in range(x.ndim):
            pos = start[d] + np.arange(out.shape[d])
            shape = [1] * x.ndim
            shape[d] = -1
            inside &= ((pos >= 0) & (pos < x.shape[d])).reshape(shape)
        f = np.asarray(fill, np.float64)
        shape = [1] * x.ndim
        if f.size > 1:
            shape[channel] = -1
        f = np.broadcast_to(np.trunc(f).astype(np.int64).astype(x.dtype).reshape(shape),
                            out.shape)
        out = np.where(inside, out, f)
    return out


@pytest.mark.parametrize("k, kwargs, layout", slicing_goldens.cases("slice"))
def test_goldens(k, kwargs, layout):
    out, expected = slicing_goldens.replay("slice", k, kwargs, layout)
    for o, e in zip(out, expected, strict=True):
        assert o.dtype == e.dtype
        np.testing.assert_array_equal(o, e)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("policy", ["pad", "trim_to_shape", "edge", "reflect", "reflect_101",
                                    "wrap"])
def test_random_windows_against_numpy(seed, policy):
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(1, 5))
    dtype = rng.choice([np.uint8, np.int16, np.float32, np.int64])
    xs = [(rng.random(tuple(rng.integers(1, 7, ndim))) * 100).astype(dtype) for _ in range(3)]
    axes = rng.permutation(ndim)[:int(rng.integers(1, ndim + 1))].tolist()
    start = rng.integers(-6, 6, len(axes))
    end = start + rng.integers(0, 9, len(axes))
    fill = [float(rng.integers(-20, 300))]
    out = run_op(lambda fn, x: fn.slice(x, start=start.tolist(), end=end.tolist(), axes=axes,
                                        out_of_bounds_policy=policy, fill_values=fill),
                 [xs])[0]
    for o, x in zip(out, xs, strict=True):
        lo, hi = np.zeros(ndim, int), np.array(x.shape)
        lo[axes], hi[axes] = start, end
        np.testing.assert_array_equal(o, reference(x, lo, hi, policy, fill))


@pytest.mark.parametrize("layout, channel", [("HWC", 2), ("CHW", 0)])
def test_per_channel_fill(layout, channel):
    rng = np.random.default_rng(3)
    xs = [rng.integers(0, 256, (3, 5, 4) if channel == 0 else (5, 4, 3), dtype=np.uint8)
          for _ in range(2)]
    fill = [10, 20, 30]
    out = run_op(lambda fn, x: fn.slice(x, start=[-1, -2], end=[6, 4], axis_names="WH",
                                        out_of_bounds_policy="pad", fill_values=fill),
                 [xs], layouts=[layout])[0]
    h, w = (1, 2) if channel == 0 else (0, 1)
    for o, x in zip(out, xs, strict=True):
        lo, hi = np.zeros(3, int), np.array(x.shape)
        lo[[w, h]], hi[[w, h]] = [-1, -2], [6, 4]
        np.testing.assert_array_equal(o, reference(x, lo, hi, "pad", fill, channel))


def test_per_sample_argument_inputs():
    rng = np.random.default_rng(4)
    xs = [rng.integers(0, 256, (8 + i, 9, 3), dtype=np.uint8) for i in range(3)]
    starts = [np.array([i, 2 * i], np.int32) for i in range(3)]
    shapes = [np.array([3, 4 - i], np.int32) for i in range(3)]
    out = run_op(lambda fn, x, s, e: fn.slice(x, start=s, shape=e), [xs, starts, shapes],
                 layouts=["HWC", None, None])[0]
    for o, x, s, e in zip(out, xs, starts, shapes, strict=True):
        np.testing.assert_array_equal(o, x[s[1]:s[1] + e[1], s[0]:s[0] + e[0]])


def test_positional_inputs_and_layout():
    rng = np.random.default_rng(5)
    xs = [rng.integers(0, 256, (3, 10, 12), dtype=np.uint8) for _ in range(2)]
    anchors = [np.array([2, 1], np.int64), np.array([0, 5], np.int64)]
    shapes = [np.array([4, 6], np.int64), np.array([12, 5], np.int64)]
    out = run_op(lambda fn, x, a, s: fn.slice(x, a, s), [xs, anchors, shapes],
                 layouts=["CHW", None, None])[0]
    for o, x, a, s in zip(out, xs, anchors, shapes, strict=True):
        np.testing.assert_array_equal(o, x[:, a[1]:a[1] + s[1], a[0]:a[0] + s[0]])


@pytest.mark.parametrize("out_type, np_type", [(types.UINT8, np.uint8),
                                               (types.FLOAT16, np.float16),
                                               (types.FLOAT, np.float32)])
def test_dtype_saturates_and_truncates(out_type, np_type):
    x = np.array([-1e6, -2.7, -0.5, 0.5, 2.7, 254.9, 255.5, 7e4, 1e6, np.inf, np.nan],
                 np.float64)
    (out,) = run_op(lambda fn, a: fn.slice(a, start=[0], end=[x.size], axes=[0],
                                           dtype=out_type), [[x]])[0]
    assert out.dtype == np_type
    if np_type == np.uint8:
        expected = np.trunc(np.nan_to_num(np.clip(x, 0, 255), nan=0)).astype(np.uint8)
    else:
        limit = np.finfo(np_type).max
        expected = np.clip(x, -limit, limit).astype(np_type)
    np.testing.assert_array_equal(out, expected)


def test_float16_to_float_keeps_infinities():
    x = np.array([np.inf, -np.inf, 1.5], np.float16)
    (out,) = run_op(lambda fn, a: fn.slice(a, start=[0], end=[3], axes=[0],
                                           dtype=types.FLOAT), [[x]])[0]
    np.testing.assert_array_equal(out, x.astype(np.float32))


def test_empty_layout_names_axes_by_rank():
    x = np.arange(24).reshape(4, 6)
    (out,) = run_op(lambda fn, a: fn.slice(a, start=[1, 0], end=[3, 2]), [[x]])[0]
    np.testing.assert_array_equal(out, x[0:2, 1:3])


@pytest.mark.parametrize("build, inputs, layout, message", [
    (lambda fn, x: fn.slice(x, start=[1], end=[3]), [np.arange(5)], None,
     "Axis 'W' is not present in the input layout"),
    (lambda fn, x: fn.slice(x, start=[0], end=[2], axes=[0]), [np.ones(3, bool)], None,
     "Not supported input type: bool"),
    (lambda fn, x: fn.slice(x, start=[0], end=[2], axes=[0], dtype=types.INT32),
     [np.ones(3, np.float32)], None, "Not supported output type: int32"),
    (lambda fn, x: fn.slice(x, start=[-1], end=[2], axes=[0]), [np.ones(3)], None,
     "Slice can't be placed out of bounds with current policy. Got: input_shape={3}, "
     "slice_anchor={-1}, slice_shape={3}"),
    (lambda fn, x: fn.slice(x, start=[0], end=[2], axes=[0], out_of_bounds_policy="pad",
                            fill_values=[1, 2]), [np.ones((3, 2))], None,
     "Multi-channel fill_values was provided but channel dimension could not be found"),
    (lambda fn, x: fn.slice(x, start=[0], end=[2], axes=[0], out_of_bounds_policy="pad",
                            fill_values=[1, 2, 3]), [np.ones((3, 2))], "HC",
     "Multi-channel fill value does not match the number of channels in the output: 3 "
     "values for 2 channels"),
    (lambda fn, x: fn.slice(x), [np.ones((3, 2))], "HW",
     "Expected named slice arguments (e.g. start/end, start/shape) or positional inputs"),
    (lambda fn, x: fn.slice(x, start=[0, 1, 2], end=[1, 2, 3]), [np.ones((3, 2))], "HW",
     'Argument "start" expected shape 2 but got 3 values'),
    (lambda fn, x: fn.slice(x, start=[2, 0], end=[1, 2]), [np.ones((3, 2))], "HW",
     "end coordinates can't be before start coordinates. Got: start=2 end=1"),
    (lambda fn, x: fn.slice(x, start=[0], end=[2], axes=[3]), [np.ones((3, 2))], "HW",
     "Axis 3 out of range. Expected range is [-2, 1] for a 2D input"),
    (lambda fn, x: fn.slice(x, start=[-1, 0], end=[2, 1], out_of_bounds_policy="wrap"),
     [np.ones((1, 0))], "HW", 'out_of_bounds_policy "wrap" needs a non-empty input'),
])
def test_errors(build, inputs, layout, message):
    with pytest.raises(PipelineError, match=f"fn.slice: {_escape(message)}"):
        run_op(build, [inputs], layouts=[layout])


@pytest.mark.parametrize("kwargs, message", [
    ({"start": [0, 0], "rel_start": [0.1, 0.1]},
     '"start" and "rel_start" arguments are mutually exclusive'),
    ({"end": [1, 1], "shape": [1, 1]},
     '"end", "rel_end", "shape", and "rel_shape" arguments are mutually exclusive'),
    ({"start": [0, 0], "axes": [0, 1], "axis_names": "HW"},
     '"axes" and "axis_names" are mutually exclusive'),
    ({"start": [0, 0], "out_of_bounds_policy": "mirror"},
     "Not supported out_of_bounds_policy: mirror"),
])
def test_definition_errors(kwargs, message):
    with pytest.raises(RuntimeError, match=_escape(message)):
        run_op(lambda fn, x: fn.slice(x, **kwargs), [[np.ones((3, 2))]], layouts=["HW"])


def _escape(message):
    return message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[") \
        .replace("]", r"\]").replace("{", r"\{").replace("}", r"\}").replace(".", r"\.")


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(8))
def test_fractional_windows_match_dali(seed):
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(seed)
    imgs = [rng.integers(0, 255, tuple(rng.integers(3, 30, 2)) + (3,), dtype=np.uint8)
            for _ in range(3)]
    n = len(imgs)
    kind = seed % 4
    kwargs = {"out_of_bounds_policy": "pad"}
    inputs = [imgs]
    if kind == 0:
        kwargs.update(rel_start=rng.uniform(0, 0.5, 2).tolist(),
                      rel_shape=rng.uniform(0, 0.5, 2).tolist())
    elif kind == 1:
        kwargs.update(rel_start=rng.uniform(0, 0.5, 2).tolist(),
                      rel_end=rng.uniform(0.5, 1, 2).tolist())
    else:
        if kind == 3:
            kwargs.update(normalized_anchor=False, normalized_shape=False)
        scale = 1 if kind == 2 else 20
        inputs += [[rng.uniform(0, 0.5, 2).astype(np.float32) * scale for _ in range(n)]
                   for _ in range(2)]
    layouts = ["HWC"] + [None] * (len(inputs) - 1)

    def build(fn, *x):
        return fn.slice(*x, **kwargs)

    ours = run_op(build, inputs, layouts=layouts)[0]
    real = run_op(build, inputs, layouts=layouts, real=True)[0]
    for o, r in zip(ours, real, strict=True):
        np.testing.assert_array_equal(o, r)


def test_windows_follow_the_input_shapes_from_batch_to_batch():
    rng = np.random.default_rng(6)
    batches = [[[rng.integers(0, 256, (h, h + 1, 3), dtype=np.uint8) for _ in range(2)]]
               for h in (8, 8, 12, 8)]
    outs = run_op(lambda fn, x: fn.slice(x, rel_start=[0.25, 0.5], rel_end=[0.75, 1.0]),
                  batches, iterations=len(batches), layouts=["HWC"])
    for (batch,), (out,) in zip(batches, outs, strict=True):
        for x, o in zip(batch, out, strict=True):
            h, w = x.shape[:2]
            top, left = int(np.floor(0.5 * h + 0.5)), int(np.floor(0.25 * w + 0.5))
            np.testing.assert_array_equal(o, x[top:h, left:int(np.floor(0.75 * w + 0.5))])
