"""fn.reductions.mean: its own behaviours (the NumPy and DALI checks are
in test_reductions.py)."""

import numpy as np
import pytest
from layout_utils import run_layouts

from dali import types
from dali._executor.errors import PipelineError


def test_integer_output_accumulates_in_it_and_truncates():
    batch = [np.array([250, 10], np.uint8), np.array([2, 2, 2, 1], np.uint8)]
    out, _ = run_layouts(lambda fn, x: fn.reductions.mean(x, dtype=types.UINT8), [batch])
    assert [o.item() for o in out] == [2, 1] and out[0].dtype == np.uint8
    neg = [np.array([-1, -2], np.int16), np.array([-3, -4, -4, -4], np.int16)]
    out, _ = run_layouts(lambda fn, x: fn.reductions.mean(x, dtype=types.INT16), [neg])
    assert [o.item() for o in out] == [-1, -3]


def test_empty_reduction_is_nan():
    out, _ = run_layouts(lambda fn, x: fn.reductions.mean(x, axes=0),
                         [[np.zeros((0, 3), np.float32)]])
    assert out[0].shape == (3,) and np.isnan(out[0]).all()


def test_other_dtypes_are_rejected():
    with pytest.raises(PipelineError, match="Unsupported types: uint8, int32"):
        run_layouts(lambda fn, x: fn.reductions.mean(x, dtype=types.INT32),
                    [[np.zeros(3, np.uint8)]])
