"""fn.per_frame: marks a batch as sequences (layout only)."""

import numpy as np
import pytest
from layout_utils import run_layouts
from pipeline_utils import run_op

from dali._executor.errors import PipelineError

X = [np.arange(6, dtype=np.float32).reshape(3, 2), np.ones((1, 2), np.float32)]


def _layout(build, layout):
    return run_layouts(build, [X], [layout], num_threads=1)


@pytest.mark.parametrize("layout, kwargs, want", [
    (None, {}, "F*"), ("FX", {}, "FX"), ("AB", {"replace": True}, "FB")])
def test_layout_and_data(layout, kwargs, want):
    out, lay = _layout(lambda fn, x: fn.per_frame(x, **kwargs), layout)
    assert lay == want
    for o, x in zip(out, X, strict=True):
        np.testing.assert_array_equal(o, x)


def test_layout_not_starting_with_f_fails():
    with pytest.raises(PipelineError, match="should start with 'F', got: AB"):
        _layout(lambda fn, x: fn.per_frame(x), "AB")


def test_scalars_cannot_be_sequences():
    with pytest.raises(PipelineError, match="zero-dimensional"):
        run_op(lambda fn, x: fn.per_frame(x), [[np.float32(1.0).reshape(())]])


def test_output_is_the_input(view_of_input):
    out = view_of_input(lambda fn, t: fn.per_frame(t), X, layout="FC")
    assert [o.shape for o in out] == [x.shape for x in X]
