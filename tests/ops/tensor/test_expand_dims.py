"""fn.expand_dims: new dimensions of extent 1."""


import numpy as np
import pytest
from pipeline_utils import run_one as run

from dali._executor.errors import PipelineError

X = [np.arange(12, dtype=np.int16).reshape(3, 4), np.arange(6, dtype=np.int16).reshape(2, 3)]


@pytest.mark.parametrize("axes, names, layout, want_layout", [
    ([0], "", "HW", ""), ([0, 3], "AB", "HW", "AHWB"), ([2, 1], "AB", "HW", "HBAW"),
    (0, "F", "HW", "FHW"), ([0], "H", "HW", "HHW"), ([], "", "HW", "HW"), ([1], "", None, "")])
def test_expand_dims(axes, names, layout, want_layout):
    axes_list = [axes] if isinstance(axes, int) else axes
    for batch in (X, [X[0], X[0] + 1]):
        out, lay = run(lambda fn, x: fn.expand_dims(x, axes=axes, new_axis_names=names), batch,
                       layout=layout)
        assert lay == want_layout
        for o, x in zip(out, batch, strict=True):
            np.testing.assert_array_equal(o, np.expand_dims(x, tuple(axes_list)))


def test_expand_dims_of_scalars_and_empty_samples():
    out, lay = run(lambda fn, x: fn.expand_dims(x, axes=[0, 1], new_axis_names="AB"),
                   [np.array(5, np.int32)], layout="")
    assert out[0].shape == (1, 1) and out[0].tolist() == [[5]] and lay == "AB"
    out, _ = run(lambda fn, x: fn.expand_dims(x, axes=[1]), [np.zeros((0, 2))])
    assert out[0].shape == (0, 1, 2)


@pytest.mark.parametrize("kwargs, match", [
    ({"axes": [-1]}, "can't be negative"), ({"axes": [0, 0]}, "Duplicate axis"),
    ({"axes": [0, 2], "new_axis_names": "A"}, "Specified 2 new dimensions")])
def test_bad_arguments_fail_at_build(kwargs, match):
    with pytest.raises(RuntimeError, match=match):
        run(lambda fn, x: fn.expand_dims(x, **kwargs), X)


@pytest.mark.parametrize("kwargs, layout, match", [
    ({"axes": [3]}, "HW", "not enough dimensions"),
    ({"axes": [0], "new_axis_names": "F"}, None, "requires an input with a proper layout")])
def test_bad_inputs_fail_when_run(kwargs, layout, match):
    with pytest.raises(PipelineError, match=match):
        run(lambda fn, x: fn.expand_dims(x, **kwargs), X, layout=layout)


def test_axes_are_required():
    with pytest.raises(RuntimeError, match='"axes"'):
        run(lambda fn, x: fn.expand_dims(x), X)


@pytest.mark.oracle
@pytest.mark.parametrize("axes, names", [([0], ""), ([0, 3], "AB"), ([2, 1], "AB"), ([1], ""),
                                         ([], "")])
def test_matches_real_dali(axes, names):
    def build(fn, x):
        # DALI 2.4 gives a layout of the wrong length for an explicit new_axis_names=""
        return fn.expand_dims(x, axes=axes, **({"new_axis_names": names} if names else {}))

    ours, lo = run(build, X, layout="HW")
    real, lr = run(build, X, layout="HW", real=True)
    assert lo == lr
    for a, b in zip(ours, real, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64])
def test_outputs_are_views(view_of_input, dtype):
    rng = np.random.default_rng(3)
    batch = [rng.integers(0, 9, (rng.integers(0, 4), 3)).astype(dtype) for _ in range(5)]
    out = view_of_input(lambda fn, t: fn.expand_dims(t, axes=[0, 2]), batch, layout="HW")
    assert [o.shape for o in out] == [(1, b.shape[0], 1, 3) for b in batch]
    uniform = view_of_input(lambda fn, t: fn.expand_dims(t, axes=[2]), [batch[0]] * 3)
    assert [o.shape for o in uniform] == [(*batch[0].shape, 1)] * 3
