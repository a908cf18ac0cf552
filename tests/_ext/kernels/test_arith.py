"""NumPy's loops on the pool: the same values as the ufunc (chunks across the pool's threads,
constants broadcast), and operands of another type or shape refused before anything runs."""

import numpy as np
import pytest
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import arith

RNG = np.random.default_rng(4)


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.divide,
                                   np.bitwise_and, np.minimum, np.negative])
@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 100, 3 * (1 << 15) + 7])
def test_loops_equal_the_ufunc(ufunc, dtype, n):
    k = arith.loop_index(ufunc, dtype)
    if k < 0:
        kind = np.dtype(dtype).kind        # no such loop: NumPy would cast
        assert (ufunc is np.bitwise_and and kind == "f") or (ufunc is np.divide and kind != "f")
        return
    x = (RNG.random(n) * 200).astype(dtype)
    y = (RNG.random(n) * 50 + 1).astype(dtype)
    c = np.asarray(dtype(3))
    for operands in ([x], [x, y], [x, c], [c, x]):
        if len(operands) != ufunc.nin:
            continue
        out = np.full(n, 7, dtype)
        with np.errstate(all="ignore"):
            arith.run(ThreadPool(2), ufunc, k, operands, out)
            np.testing.assert_array_equal(out, ufunc(*operands))


def test_operands_are_checked():
    x = np.zeros(10, np.float32)
    out = np.zeros(10, np.float32)
    k = arith.loop_index(np.add, np.float32)
    with pytest.raises(TypeError, match="operand 1 has type float64"):
        arith.run(None, np.add, k, [x, np.zeros(10)], out)
    with pytest.raises(ValueError, match="of size 1 or 10"):
        arith.run(None, np.add, k, [x, x[:5]], out)
    with pytest.raises(ValueError, match="C-contiguous"):
        arith.run(None, np.add, k, [x, np.zeros(20, np.float32)[::2]], out)
    assert arith.loop_index(np.add, np.float16) >= 0
    assert arith.loop_index(np.bitwise_and, np.float32) == -1
