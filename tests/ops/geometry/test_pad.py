"""fn.pad: extents (batch maximum, per-sample shape, alignment), axes, fill values and their
conversion, per-sample argument inputs and errors; against NumPy, DALI's goldens and real
DALI."""

import numpy as np
import pytest
import slicing_goldens
from pipeline_utils import run_op

from dali._executor.errors import PipelineError


def reference(x, out_shape, fill):
    out = np.full(out_shape, fill, x.dtype)
    out[tuple(slice(0, e) for e in x.shape)] = x
    return out


def expected_shapes(shapes, axes, shape=None, align=None):
    """DALI's rule: the requested extent (or the batch's largest), at least the sample's,
    rounded up to `align`."""
    shapes = np.array(shapes)
    largest = shapes.max(axis=0)
    out = shapes.copy()
    for k, a in enumerate(axes):
        want = np.full(len(shapes), largest[a])
        if shape is not None and shape[k] > 0:
            want[:] = shape[k]
        want = np.maximum(want, shapes[:, a])
        if align is not None:
            al = align[k] if len(align) > 1 else align[0]
            want = -(-want // al) * al
        out[:, a] = want
    return out


@pytest.mark.parametrize("k, kwargs, layout", slicing_goldens.cases("pad"))
def test_goldens(k, kwargs, layout):
    out, expected = slicing_goldens.replay("pad", k, kwargs, layout)
    for o, e in zip(out, expected, strict=True):
        assert o.dtype == e.dtype
        np.testing.assert_array_equal(o, e)


@pytest.mark.parametrize("seed", range(16))
def test_random_against_numpy(seed):
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(1, 5))
    dtype = [np.uint8, np.int16, np.float32, np.int64, np.bool_][seed % 5]
    xs = [(rng.random(tuple(rng.integers(0, 6, ndim))) * 50).astype(dtype)
          for _ in range(int(rng.integers(1, 5)))]
    axes = rng.permutation(ndim)[:int(rng.integers(1, ndim + 1))].tolist()
    kwargs = {"axes": axes, "fill_value": float(rng.integers(0, 40))}
    shape = align = None
    if seed % 3 == 1:
        shape = rng.integers(-1, 8, len(axes)).tolist()
        kwargs["shape"] = shape
    if seed % 4 >= 2:
        align = rng.integers(1, 5, 1 if seed % 2 else len(axes)).tolist()
        kwargs["align"] = align
    out = run_op(lambda fn, x: fn.pad(x, **kwargs), [xs])[0]
    shapes = expected_shapes([x.shape for x in xs], axes, shape, align)
    for o, x, s in zip(out, xs, shapes, strict=True):
        assert o.dtype == x.dtype
        np.testing.assert_array_equal(o, reference(x, tuple(s), dtype(kwargs["fill_value"])))


def test_every_axis_by_default_and_layout_kept():
    xs = [np.ones((3, 4, 2), np.uint8), np.ones((5, 2, 2), np.uint8)]
    out = run_op(lambda fn, x: fn.pad(x, fill_value=9), [xs], layouts=["HWC"])[0]
    for o, x in zip(out, xs, strict=True):
        np.testing.assert_array_equal(o, reference(x, (5, 4, 2), 9))


def test_per_sample_argument_inputs():
    xs = [np.ones((3, 4), np.int32), np.ones((5, 2), np.int32)]
    fills = [np.float32(3), np.float32(-4)]
    shapes = [np.array([6], np.int32), np.array([4], np.int32)]
    aligns = [np.array([4], np.int32), np.array([3], np.int32)]
    out = run_op(lambda fn, x, f, s, a: fn.pad(x, fill_value=f, axes=[0], shape=s, align=a),
                 [xs, fills, shapes, aligns])[0]
    np.testing.assert_array_equal(out[0], reference(xs[0], (8, 4), 3))
    np.testing.assert_array_equal(out[1], reference(xs[1], (6, 2), -4))


def test_per_sample_axes():
    xs = [np.ones((3, 4), np.uint8), np.ones((5, 2), np.uint8)]
    axes = [np.array([0], np.int32), np.array([1], np.int32)]
    out = run_op(lambda fn, x, a: fn.pad(x, axes=a), [xs, axes])[0]
    np.testing.assert_array_equal(out[0], reference(xs[0], (5, 4), 0))
    np.testing.assert_array_equal(out[1], reference(xs[1], (5, 4), 0))


@pytest.mark.parametrize("dtype, fill, value", [
    (np.uint8, 300.7, 44), (np.uint8, -1.5, 255), (np.uint8, 1e10, 0), (np.uint8, 1e5, 160),
    (np.int32, 1e10, -2**31), (np.int32, float("nan"), -2**31), (np.int64, 1e10, 10**10),
    (np.uint16, -1.5, 65535), (np.float16, 1e5, np.inf), (np.bool_, 2.0, True)])
def test_fill_value_is_cast_like_c(dtype, fill, value):
    xs = [np.ones(1, dtype), np.ones(2, dtype)]
    out = run_op(lambda fn, x: fn.pad(x, fill_value=fill), [xs])[0]
    assert out[0].dtype == dtype
    assert out[0][1] == value


@pytest.mark.parametrize("build, inputs, layout, message", [
    (lambda fn, x: fn.pad(x, shape=[7, 6]), [np.ones((2, 2, 2))], None,
     'Argument "shape" expected shape 3 but got 2 values'),
    (lambda fn, x: fn.pad(x, axes=[0, 1], align=[2, 3, 4]), [np.ones((2, 2, 2))], None,
     'Argument "align" expected shape 2 but got 3 values'),
    (lambda fn, x: fn.pad(x, align=0), [np.ones((2, 2))], None,
     "Values of `align` argument must be positive"),
    (lambda fn, x: fn.pad(x, axes=[3]), [np.ones((2, 2, 2))], None,
     r"Axis 3 out of range. Expected range is \[-3, 2\] for a 3D input"),
    (lambda fn, x: fn.pad(x, axis_names="D"), [np.ones((2, 2, 2))], "HWC",
     "Axis 'D' is not present in the input layout"),
    (lambda fn, x: fn.pad(x), [np.float32(1)], None, "Unsupported number of dimensions 0"),
])
def test_errors(build, inputs, layout, message):
    with pytest.raises(PipelineError, match=f"fn.pad: {message}"):
        run_op(build, [inputs], layouts=[layout])


def test_axes_and_axis_names_exclude_each_other():
    with pytest.raises(RuntimeError, match='"axes" and "axis_names" are mutually exclusive'):
        run_op(lambda fn, x: fn.pad(x, axes=[0], axis_names="H"), [[np.ones((2, 2))]],
               layouts=["HW"])


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(6))
def test_matches_dali(seed):
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(seed)
    xs = [rng.integers(0, 50, (int(rng.integers(1, 7)), int(rng.integers(1, 7)), 3))
          .astype(np.int16) for _ in range(3)]
    kwargs = {"fill_value": float(rng.uniform(-400, 400)),
              "shape": rng.integers(-1, 9, 2).tolist(), "axis_names": "HW"}
    if seed % 2:
        kwargs["align"] = rng.integers(1, 5, 2).tolist()

    def build(fn, x):
        return fn.pad(x, **kwargs)

    ours = run_op(build, [xs], layouts=["HWC"])[0]
    real = run_op(build, [xs], layouts=["HWC"], real=True)[0]
    for o, r in zip(ours, real, strict=True):
        np.testing.assert_array_equal(o, r)


def test_extents_follow_the_batch_from_batch_to_batch():
    batches = [[[np.ones((h, 2), np.uint8), np.ones((3, h), np.uint8)]] for h in (2, 2, 5, 2)]
    outs = run_op(lambda fn, x: fn.pad(x, fill_value=4), batches, iterations=len(batches))
    for (batch,), (out,) in zip(batches, outs, strict=True):
        big = tuple(np.max([x.shape for x in batch], axis=0))
        for x, o in zip(batch, out, strict=True):
            np.testing.assert_array_equal(o, reference(x, big, 4))
