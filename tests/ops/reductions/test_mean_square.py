"""fn.reductions.mean_square: its own behaviours (the NumPy and DALI checks are
in test_reductions.py)."""

import numpy as np
import pytest
from layout_utils import run_layouts

from dali import types
from dali._executor.errors import PipelineError


def test_only_float_output():
    out, _ = run_layouts(lambda fn, x: fn.reductions.mean_square(x, dtype=types.FLOAT),
                         [[np.array([250, 10], np.uint8)]])
    assert out[0].item() == 31300 and out[0].dtype == np.float32
    with pytest.raises(PipelineError, match="Unsupported types: uint8, uint8"):
        run_layouts(lambda fn, x: fn.reductions.mean_square(x, dtype=types.UINT8),
                    [[np.zeros(3, np.uint8)]])
