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


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply])
def test_large_float32_outputs_equal_the_ufunc(ufunc):
    """Outputs over 16 MiB are written with streaming stores (arith_stream.h): the same bits,
    from an output that does not start on a 16-byte boundary, with special values."""
    n = (1 << 22) + 7
    x = ((RNG.random(n) - 0.5) * 1e4).astype(np.float32)
    x[:6] = [np.nan, np.inf, -np.inf, -0.0, 1e-40, -3e38]
    y = ((RNG.random(n) - 0.5) * 1e3).astype(np.float32)
    y[6:12] = [3e38, 0.0, -0.0, np.inf, 1e-39, np.nan]
    out = np.zeros(n + 1, np.float32)[1:]
    k = arith.loop_index(ufunc, np.float32)
    for operands in ([x, y], [x, np.float32(-0.5).reshape(1)], [np.float32(2.5).reshape(1), y]):
        with np.errstate(all="ignore"):
            arith.run(ThreadPool(2), ufunc, k, operands, out)
            ref = ufunc(*operands)
        np.testing.assert_array_equal(out, ref)
        finite = ~np.isnan(ref)
        np.testing.assert_array_equal(out[finite].view(np.uint32), ref[finite].view(np.uint32))


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


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 100, (1 << 16) + (1 << 12) + 3])
@pytest.mark.parametrize("threads", [0, 2])
def test_programs_equal_the_ufuncs_one_after_another(dtype, n, threads):
    """(x * c0 + y) - (x - c1), computed chunk by chunk with two scratch chunks (one reused),
    equals the ufuncs applied to whole arrays."""
    x = (RNG.random(n) * 200).astype(dtype)
    y = (RNG.random(n) * 50 + 1).astype(dtype)
    c0, c1 = np.asarray(dtype(3)), np.asarray(dtype(2))
    mul, add, sub = (arith.loop_index(u, dtype) for u in (np.multiply, np.add, np.subtract))
    inp, const, tmp = arith.SRC_INPUT, arith.SRC_CONST, arith.SRC_TEMP
    steps = [(np.multiply, mul, [(inp, 0), (const, 0)], (tmp, 0)),
             (np.add, add, [(tmp, 0), (inp, 1)], (tmp, 0)),
             (np.subtract, sub, [(inp, 0), (const, 1)], (tmp, 1)),
             (np.subtract, sub, [(tmp, 0), (tmp, 1)], (arith.SRC_OUT, 0))]
    out = np.full(n, 7, dtype)
    pool = ThreadPool(threads) if threads else None
    arith.run_program(pool, steps, 2, [x, y], [c0, c1], out)
    with np.errstate(all="ignore"):
        want = np.subtract(np.add(np.multiply(x, c0), y), np.subtract(x, c1))
    np.testing.assert_array_equal(out, want)
    assert out.dtype == want.dtype


@pytest.mark.parametrize("dtype, last", [(np.float32, np.add), (np.float32, np.subtract),
                                         (np.float32, np.maximum), (np.int32, np.add)])
def test_large_program_outputs_equal_the_ufuncs(dtype, last):
    """Outputs over 16 MiB are written with streaming stores: a float32 add or subtract last by
    arith_stream's loop, anything else through a scratch chunk copied out; the same bits, from
    an output that does not start on a 16-byte boundary."""
    n = (1 << 22) + 7
    x = ((RNG.random(n) - 0.5) * 1e4).astype(dtype)
    y = ((RNG.random(n) - 0.5) * 1e3).astype(dtype)
    if dtype == np.float32:
        x[:6] = [np.nan, np.inf, -np.inf, -0.0, 1e-40, -3e38]
    c = np.asarray(dtype(3))
    inp, const, tmp = arith.SRC_INPUT, arith.SRC_CONST, arith.SRC_TEMP
    steps = [(np.multiply, arith.loop_index(np.multiply, dtype), [(inp, 0), (const, 0)],
              (tmp, 0)),
             (last, arith.loop_index(last, dtype), [(inp, 1), (tmp, 0)], (arith.SRC_OUT, 0))]
    out = np.zeros(n + 1, dtype)[1:]
    arith.run_program(ThreadPool(2), steps, 1, [x, y], [c], out)
    with np.errstate(all="ignore"):
        want = last(y, np.multiply(x, c))
    np.testing.assert_array_equal(out.view(np.uint32), want.view(np.uint32))


def test_programs_refuse_what_they_cannot_run():
    x = np.arange(10, dtype=np.float32)
    out = np.empty(10, np.float32)
    add = arith.loop_index(np.add, np.float32)
    inp, tmp, res = arith.SRC_INPUT, arith.SRC_TEMP, (arith.SRC_OUT, 0)
    with pytest.raises(ValueError, match="operand 1 refers to nothing"):
        arith.run_program(None, [(np.add, add, [(inp, 0), (inp, 1)], res)], 0, [x], [], out)
    with pytest.raises(ValueError, match="operand 1 refers to nothing"):
        arith.run_program(None, [(np.add, add, [(inp, 0), (tmp, 0)], res)], 0, [x], [], out)
    with pytest.raises(ValueError, match="result must be out"):
        arith.run_program(None, [(np.add, add, [(inp, 0), (inp, 0)], (tmp, 0))], 1, [x], [],
                          out)
    with pytest.raises(ValueError, match="input 0"):
        arith.run_program(None, [(np.add, add, [(inp, 0), (inp, 0)], res)], 0,
                          [x.astype(np.float64)], [], out)
    with pytest.raises(TypeError, match="loop's types"):
        arith.run_program(None, [(np.add, arith.loop_index(np.add, np.float64),
                                  [(inp, 0), (inp, 0)], res)], 0, [x], [], out)
    assert out.shape == (10,)
