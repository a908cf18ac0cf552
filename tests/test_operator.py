"""dali/_operator.py: the plan cache operators keep for repeated batches."""

import numpy as np

from dali import _operator


def test_shapes_key_tells_shapes_and_extras_apart():
    shapes = np.array([[2, 3, 3], [4, 5, 3]], np.int64)
    key = _operator.shapes_key(shapes, "HWC", np.dtype(np.uint8))
    assert key == _operator.shapes_key(shapes.copy(), "HWC", np.dtype(np.uint8))
    assert key != _operator.shapes_key(shapes[::-1].copy(), "HWC", np.dtype(np.uint8))
    assert key != _operator.shapes_key(shapes.reshape(3, 2), "HWC", np.dtype(np.uint8))
    assert key != _operator.shapes_key(shapes, "CHW", np.dtype(np.uint8))
    assert key != _operator.shapes_key(shapes, "HWC", np.dtype(np.int16))


def test_last_plan_keeps_one_value_for_its_key():
    memo = _operator.LastPlan()
    a, b = _operator.shapes_key(np.ones((2, 3), np.int64)), _operator.shapes_key(
        np.zeros((2, 3), np.int64))
    assert memo.get(a) is None
    plan = object()
    assert memo.keep(a, plan) is plan
    assert memo.get(a) is plan
    assert memo.get(b) is None
    other = object()
    memo.keep(b, other)                 # only the last batch's
    assert memo.get(a) is None and memo.get(b) is other
    assert memo.keep(None, plan) is plan    # a None key keeps nothing
    assert memo.get(None) is None and memo.get(b) is other
