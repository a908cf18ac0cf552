"""fn.reductions.min and max: NaN handling and the identity of an empty reduction."""

import numpy as np
import pytest
from layout_utils import run_layouts


@pytest.mark.parametrize("op, want, limit", [("max", 2, "min"), ("min", 1, "max")])
def test_nan_never_wins_and_empty_gives_the_identity(op, want, limit):
    def reduce(**kwargs):
        return lambda fn, x: getattr(fn.reductions, op)(x, **kwargs)
    batch = [np.array([np.nan, 1, 2], np.float32), np.array([2, np.nan, 1], np.float32)]
    out, _ = run_layouts(reduce(), [batch])
    assert [o.item() for o in out] == [want, want]
    out, _ = run_layouts(reduce(axes=0), [[np.zeros((0, 2), np.float32)]])
    assert out[0].tolist() == [getattr(np.finfo(np.float32), limit)] * 2
    out, _ = run_layouts(reduce(axes=0), [[np.zeros((0, 2), np.int16)]])
    assert out[0].tolist() == [{"min": -32768, "max": 32767}[limit]] * 2
    assert out[0].dtype == np.int16
