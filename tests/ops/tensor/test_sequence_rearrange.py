"""fn.sequence_rearrange: constant and per-sample orders against NumPy indexing, layouts and
errors, and real DALI."""

import numpy as np
import pytest
from layout_utils import run_layouts
from pipeline_utils import run_op

from dali._executor.errors import PipelineError

RNG = np.random.default_rng(52)


def _sequences(dtype=np.uint8, n=4):
    return [RNG.integers(0, 200, (int(RNG.integers(3, 6)), 4, 3)).astype(dtype)
            for _ in range(n)]


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64])
@pytest.mark.parametrize("order", [[2, 0, 0, 1, 2], [1], [0, 1, 2]])
def test_constant_order_equals_numpy(dtype, order):
    batch = _sequences(dtype)
    out, layout = run_layouts(lambda fn, x: fn.sequence_rearrange(x, new_order=order), [batch],
                              ["FHW"])
    assert layout == "FHW"
    for o, x in zip(out, batch, strict=True):
        assert o.dtype == dtype
        np.testing.assert_array_equal(o, x[order])


def test_per_sample_orders():
    batch = _sequences()
    orders = [RNG.integers(0, len(x), int(RNG.integers(1, 7))).astype(np.int32) for x in batch]
    out, layout = run_layouts(lambda fn, x, o: fn.sequence_rearrange(x, new_order=o),
                              [batch, orders], [None, None])
    assert layout == ""
    for o, x, order in zip(out, batch, orders, strict=True):
        np.testing.assert_array_equal(o, x[order])


@pytest.mark.parametrize("order, layout, match", [
    ([3], "FHW", r"new_order\[0\] must be between 0 and input_sequence_length = 3 for sample "
                 r"1, but it is: 3"),
    ([0, -1], "FHW", r"new_order\[1\] must be between 0 and input_sequence_length = 4 for "
                     r"sample 0, but it is: -1"),
    ([0], "HWC", 'Expected sequence as the input, where outermost dimension represents frames '
                 'dimension `F`, got data with layout = "HWC"')])
def test_run_errors(order, layout, match):
    batch = [np.zeros((4, 2, 2), np.uint8), np.zeros((3, 2, 2), np.uint8)]
    with pytest.raises(PipelineError, match=match) as e:
        run_layouts(lambda fn, x: fn.sequence_rearrange(x, new_order=order), [batch], [layout])
    assert "fn.sequence_rearrange" in str(e.value)


def test_empty_order_and_flat_input():
    with pytest.raises(RuntimeError, match="Empty result sequences are not allowed"):
        run_layouts(lambda fn, x: fn.sequence_rearrange(x, new_order=[]), [_sequences()])
    with pytest.raises(PipelineError, match="Sequence elements must have at least 1 dim"):
        run_layouts(lambda fn, x: fn.sequence_rearrange(x, new_order=[0]),
                    [[np.arange(3, dtype=np.uint8)]])


@pytest.mark.oracle
def test_matches_dali():
    pytest.importorskip("nvidia.dali")
    batch = _sequences(np.int16)
    orders = [RNG.integers(0, len(x), int(RNG.integers(1, 7))).astype(np.int32) for x in batch]
    ours = run_layouts(lambda fn, x, o: fn.sequence_rearrange(x, new_order=o), [batch, orders],
                       ["FHW", None])
    theirs = run_layouts(lambda fn, x, o: fn.sequence_rearrange(x, new_order=o),
                         [batch, orders], ["FHW", None], real=True)
    assert ours[1] == theirs[1]
    for o, t in zip(ours[0], theirs[0], strict=True):
        assert o.dtype == t.dtype
        np.testing.assert_array_equal(o, t)


def test_sequence_lengths_changing_between_iterations():
    its = [[[np.arange(4 * 6, dtype=np.uint8).reshape(4, 6)]], [[np.zeros((2, 6), np.uint8)]],
           [[np.arange(4 * 6, dtype=np.uint8).reshape(4, 6)]]]
    outs = run_op(lambda fn, x: fn.sequence_rearrange(x, new_order=[1, 0]), its, iterations=3)
    for it, (out,) in zip(its, outs, strict=True):
        np.testing.assert_array_equal(out[0], it[0][0][[1, 0]])
    with pytest.raises(PipelineError, match="input_sequence_length = 1"):
        run_op(lambda fn, x: fn.sequence_rearrange(x, new_order=[1, 0]),
               [[[np.zeros((2, 6), np.uint8)]], [[np.zeros((1, 6), np.uint8)]]], iterations=2)
