"""fn.squeeze: removing dimensions of extent 1."""

import functools

import numpy as np
import pytest
from pipeline_utils import run_one

from dali._executor.errors import PipelineError

X = [np.arange(15, dtype=np.int16).reshape(3, 1, 5, 1),
     np.arange(8, dtype=np.int16).reshape(2, 1, 4, 1)]


run = functools.partial(run_one, layout="HWCD")


@pytest.mark.parametrize("kwargs, axes, layout", [
    ({"axes": [1]}, (1,), "HCD"), ({"axes": [1, 3]}, (1, 3), "HC"),
    ({"axes": [3, 1]}, (1, 3), "HC"),
    ({"axes": 3}, (3,), "HWC"), ({"axis_names": "WD"}, (1, 3), "HC"),
    ({"axis_names": "DW"}, (1, 3), "HC"), ({"axes": []}, (), "HWCD"),
    ({"axis_names": ""}, (), "HWCD")])
def test_squeeze(kwargs, axes, layout):
    for batch in (X, [X[0], X[0] + 1]):
        out, lay = run(lambda fn, x: fn.squeeze(x, **kwargs), batch)
        assert lay == layout
        for o, x in zip(out, batch, strict=True):
            np.testing.assert_array_equal(o, np.squeeze(x, axes))


def test_squeeze_without_layout_and_to_a_scalar():
    out, lay = run(lambda fn, x: fn.squeeze(x, axes=[1]), X, layout=None)
    assert lay == "" and [o.shape for o in out] == [(3, 5, 1), (2, 4, 1)]
    out, lay = run(lambda fn, x: fn.squeeze(x, axes=[0, 1, 2]), [np.full((1, 1, 1), 7.0)],
                   layout="ABC")
    assert out[0].shape == () and out[0].tolist() == 7.0 and lay == ""


def test_empty_samples_may_lose_any_dimension():
    out, _ = run(lambda fn, x: fn.squeeze(x, axes=[1]), [np.zeros((0, 3))], layout=None)
    assert out[0].shape == (0,)


def test_per_sample_axes():
    axes = [np.array([1], np.int32), np.array([3], np.int32)]
    out, lay = run(lambda fn, x, a: fn.squeeze(x, axes=a), X, axes)
    assert [o.shape for o in out] == [(3, 5, 1), (2, 1, 4)]
    np.testing.assert_array_equal(out[1], X[1].reshape(2, 1, 4))
    with pytest.raises(PipelineError, match="same number of dimensions"):
        run(lambda fn, x, a: fn.squeeze(x, axes=a), X,
            [np.array([1], np.int32), np.array([1, 3], np.int32)])


@pytest.mark.parametrize("kwargs, match", [
    ({"axes": [1], "axis_names": "W"}, "Provided both"), ({}, "Missing argument")])
def test_bad_arguments_fail_at_build(kwargs, match):
    with pytest.raises(RuntimeError, match=match):
        run(lambda fn, x: fn.squeeze(x, **kwargs), X)


@pytest.mark.parametrize("kwargs, layout, match", [
    ({"axes": [0]}, "HWCD", r"cannot remove dimension 0 of extent 3.*\n\(in sample 0"),
    ({"axes": [2]}, "HWCD", "extent 5"),
    ({"axes": [1, 1]}, "HWCD", "Specified at least twice same dimension"),
    ({"axes": [-1]}, "HWCD", r"Axis -1 is out of range .* must be in \[0, 4\)"),
    ({"axes": [4]}, "HWCD", "Axis 4 is out of range"),
    ({"axis_names": "Q"}, "HWCD", "Axis 'Q' is not present in the input layout"),
    ({"axis_names": "W"}, None, "Axis 'W' is not present")])
def test_bad_inputs_fail_when_run(kwargs, layout, match):
    with pytest.raises(PipelineError, match=match):
        run(lambda fn, x: fn.squeeze(x, **kwargs), X, layout=layout)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [{"axes": [1]}, {"axes": [3, 1]}, {"axis_names": "DW"},
                                    {"axes": []}])
def test_matches_real_dali(kwargs):
    def build(fn, x):
        return fn.squeeze(x, **kwargs)

    ours, lo = run(build, X)
    real, lr = run(build, X, real=True)
    assert lo == lr
    for a, b in zip(ours, real, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64])
def test_outputs_are_views(view_of_input, dtype):
    rng = np.random.default_rng(4)
    batch = [rng.integers(0, 9, (1, rng.integers(0, 4), 1, 2)).astype(dtype) for _ in range(5)]
    out = view_of_input(lambda fn, t: fn.squeeze(t, axes=[2, 0]), batch)
    assert [o.shape for o in out] == [(b.shape[1], 2) for b in batch]
    out = view_of_input(lambda fn, t: fn.squeeze(t, axis_names="C"), batch, layout="HWCD")
    assert [o.shape for o in out] == [(1, b.shape[1], 2) for b in batch]
