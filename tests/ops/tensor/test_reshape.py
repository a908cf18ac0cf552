"""fn.reshape and fn.reinterpret: new shapes, layouts and types without copying."""

import functools

import numpy as np
import pytest
from pipeline_utils import run_one

import dali
from dali import types
from dali._executor.errors import PipelineError

X = np.arange(24, dtype=np.int16).reshape(2, 3, 4)


run = functools.partial(run_one, layout="HWC")


@pytest.mark.parametrize("kwargs, shape, layout", [
    ({"shape": [6, 4]}, (6, 4), ""),
    ({"shape": [4, 3, 2]}, (4, 3, 2), "HWC"),
    ({"shape": [-1, 4]}, (6, 4), ""),
    ({"shape": [-2, 4]}, (6, 4), ""),
    ({"shape": 24}, (24,), ""),
    ({"shape": [6, 4], "layout": "AB"}, (6, 4), "AB"),
    ({"layout": "ABC"}, (2, 3, 4), "ABC"),
    ({"layout": ""}, (2, 3, 4), ""),
    ({"rel_shape": [0.5, 2, 1]}, (1, 6, 4), "HWC"),
    ({"rel_shape": [1.5, 2 / 3, 1]}, (3, 2, 4), "HWC"),
    ({"rel_shape": [-1, 1]}, (8, 3), ""),
    ({"rel_shape": [1, 1, 1, -1]}, (2, 3, 4, 1), ""),
    ({"src_dims": [2, 0, 1]}, (4, 2, 3), "HWC"),
    ({"src_dims": [2, 0, 1], "layout": "XYZ"}, (4, 2, 3), "XYZ"),
    ({"src_dims": [0, -1, 1, 2]}, (2, 1, 3, 4), ""),
    ({"src_dims": [1, 0], "rel_shape": [2, 0.5]}, (6, 1), "HW")])
def test_reshape(kwargs, shape, layout):
    x = np.arange(6, dtype=np.int16).reshape(2, 3) if kwargs.get("src_dims") == [1, 0] else X
    out, lay = run(lambda fn, t: fn.reshape(t, **kwargs), [x], layout="HWC"[:x.ndim])
    assert lay == layout and out[0].shape == shape
    np.testing.assert_array_equal(out[0].reshape(-1), x.reshape(-1))


def test_rel_shape_rounds_to_nearest():
    x = np.arange(12, dtype=np.uint8).reshape(3, 4)
    for rel, shape in (([0.5, -1], (2, 6)), ([0.83, -1], (2, 6)), ([0.84, -1], (3, 4))):
        out, _ = run(lambda fn, t, rel=rel: fn.reshape(t, rel_shape=rel), [x], layout="")
        assert out[0].shape == shape


def test_src_dims_removes_unit_dimensions():
    x = np.arange(12, dtype=np.float32).reshape(1, 3, 4)
    out, lay = run(lambda fn, t: fn.reshape(t, src_dims=[1, 2]), [x])
    assert out[0].shape == (3, 4) and lay == ""


def test_shape_as_input_and_argument_input():
    batch = [np.arange(12, dtype=np.int16).reshape(3, 4), np.arange(6, dtype=np.int16)
             .reshape(2, 3)]
    shapes = [np.array([2, 6], np.int64), np.array([6, 1], np.int64)]
    for build in (lambda fn, t, s: fn.reshape(t, s), lambda fn, t, s: fn.reshape(t, shape=s)):
        out, lay = run(build, batch, shapes, layout="AB")
        assert lay == "AB" and [o.shape for o in out] == [(2, 6), (6, 1)]
        np.testing.assert_array_equal(out[1].ravel(), batch[1].ravel())
    with pytest.raises(PipelineError, match="integral type"):
        run(lambda fn, t, s: fn.reshape(t, s), batch,
            [s.astype(np.float32) for s in shapes], layout="AB")


def test_empty_samples_and_wildcards():
    out, _ = run(lambda fn, t: fn.reshape(t, shape=[-1, 4]), [np.zeros((0, 4), np.int16)],
                 layout="")
    assert out[0].shape == (0, 4)


@pytest.mark.parametrize("kwargs, match", [
    ({"shape": [5, 5]}, "same size in bytes"),
    ({"shape": [-1, 5]}, "same size in bytes"),
    ({"shape": [-1, -1]}, "Only one negative extent"),
    ({"shape": [0, 4]}, "Extent of 0 is illegal"),
    ({"shape": [6, 4], "layout": "ABC"}, "not compatible with a 2D shape"),
    ({"layout": "AB"}, "not compatible with a 3D shape"),
    ({"rel_shape": [1, 1, 1, 1]}, "more elements"),
    ({"src_dims": [0, 3]}, "out of bounds"),
    ({"src_dims": [1, 2]}, "same size in bytes")])
def test_errors_at_run(kwargs, match):
    with pytest.raises(PipelineError, match=match):
        run(lambda fn, t: fn.reshape(t, **kwargs), [X])


@pytest.mark.parametrize("build, match", [
    (lambda fn, t: fn.reshape(t, shape=[24], rel_shape=[1.0]), "mutually exclusive"),
    (lambda fn, t: fn.reshape(t), "is no-op"),
    (lambda fn, t: fn.reinterpret(t), "neither new shape, layout nor type")])
def test_errors_at_build(build, match):
    with pytest.raises(RuntimeError, match=match):
        run(build, [X])


@pytest.mark.parametrize("kwargs, dtype, shape, layout", [
    ({"dtype": types.UINT8}, np.uint8, (2, 3, 8), "HWC"),
    ({"dtype": types.INT64}, np.int64, (2, 3, 1), "HWC"),
    ({"dtype": types.UINT8, "shape": [48]}, np.uint8, (48,), ""),
    ({"dtype": types.INT8, "rel_shape": [1, 1, 2]}, np.int8, (2, 3, 8), "HWC"),
    ({"dtype": types.INT8, "src_dims": [1, 0, 2]}, np.int8, (3, 2, 8), "HWC"),
    ({"dtype": types.FLOAT16, "shape": [-1]}, np.float16, (24,), ""),
    ({"layout": "ABC"}, np.int16, (2, 3, 4), "ABC")])
def test_reinterpret(kwargs, dtype, shape, layout):
    batch = [X, X + 100]
    out, lay = run(lambda fn, t: fn.reinterpret(t, **kwargs), batch)
    assert lay == layout
    for o, x in zip(out, batch, strict=True):
        assert o.dtype == dtype and o.shape == shape
        assert o.tobytes() == x.tobytes()


def test_reinterpret_indivisible_innermost_extent():
    with pytest.raises(PipelineError, match="not divisible"):
        run(lambda fn, t: fn.reinterpret(t, dtype=types.INT64), [np.zeros((3, 3), np.int16)],
            layout="")


def test_reinterpret_ragged_batch():
    batch = [np.arange(4, dtype=np.int32), np.arange(2, dtype=np.int32)]
    out, _ = run(lambda fn, t: fn.reinterpret(t, dtype=types.UINT8), batch, layout="")
    assert [o.shape for o in out] == [(16,), (8,)]
    assert out[1].tobytes() == batch[1].tobytes()


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    {"shape": [6, 4]}, {"shape": [4, 3, 2]}, {"rel_shape": [1.5, 2 / 3, 1]},
    {"rel_shape": [-1, 1]}, {"src_dims": [2, 0, 1]}, {"layout": "XYZ"}])
def test_matches_dali(kwargs):
    ours = run(lambda fn, t: fn.reshape(t, **kwargs), [X, X + 1])
    theirs = run(lambda fn, t: fn.reshape(t, **kwargs), [X, X + 1], real=True)
    assert ours[1] == theirs[1]
    for a, b in zip(ours[0], theirs[0], strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("build, shapes", [
    (lambda fn, t: fn.reshape(t, shape=[-1]), [(24,), (12,), (0,)]),
    (lambda fn, t: fn.reshape(t, rel_shape=[1, -1]), [(2, 12), (1, 12), (0, 0)]),
    (lambda fn, t: fn.reshape(t, src_dims=[2, 0, 1]), [(4, 2, 3), (4, 1, 3), (4, 0, 3)]),
    (lambda fn, t: fn.reinterpret(t, dtype=types.UINT8), [(2, 3, 8), (1, 3, 8), (0, 3, 8)]),
    (lambda fn, t: fn.reshape(t, layout="ABC"), [(2, 3, 4), (1, 3, 4), (0, 3, 4)])])
def test_outputs_are_views_of_ragged_batches(view_of_input, build, shapes):
    batch = [X, X[:1] + 7, X[:0]]
    out = view_of_input(build, batch, layout="HWC")
    assert [o.shape for o in out] == shapes


def test_random_shapes_and_types_are_views(view_of_input):
    rng = np.random.default_rng(5)
    for dtype in (np.uint8, np.int16, np.float32, np.float64):
        batch = [rng.integers(0, 100, (rng.integers(1, 5), 2, 4)).astype(dtype)
                 for _ in range(6)]
        out = view_of_input(lambda fn, t: fn.reinterpret(t, dtype=types.INT8, shape=[-1]),
                            batch)
        assert [o.shape for o in out] == [(b.nbytes,) for b in batch]
        uniform = view_of_input(lambda fn, t: fn.reshape(t, shape=[2, -1]), [batch[0]] * 4)
        assert all(o.shape == (2, batch[0].size // 2) for o in uniform)


def test_shapes_change_between_batches():
    """The memoized shapes follow the input shapes."""
    batches = [[X, X], [X[:1], X[:1]], [X, X[:1]]]

    @dali.pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        x = dali.fn.external_source(source=lambda info: batches[info.iteration % 3],
                                    batch_info=True)
        return dali.fn.reshape(x, shape=[-1, 4])

    p = pipe()
    p.build()
    for b in batches * 2:
        (out,) = p.run()
        assert [np.asarray(t).shape for t in out] == [(x.size // 4, 4) for x in b]
