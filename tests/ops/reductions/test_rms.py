"""fn.reductions.rms: its own behaviours (the NumPy and DALI checks are
in test_reductions.py)."""

import numpy as np
from layout_utils import run_layouts

from dali import types


def test_integer_output_truncates():
    batch = [np.array([1, 2], np.uint8), np.array([2, 2, 2, 1], np.uint8)]
    out, _ = run_layouts(lambda fn, x: fn.reductions.rms(x, dtype=types.UINT8), [batch])
    assert [o.item() for o in out] == [1, 1] and out[0].dtype == np.uint8
    out, _ = run_layouts(lambda fn, x: fn.reductions.rms(x, dtype=types.INT16),
                         [[np.array([-3, -4, -4, -4], np.int16)]])
    assert out[0].item() == 3
