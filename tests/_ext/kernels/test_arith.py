"""NumPy's loops on the pool: the same values as the ufunc (chunks across the pool's threads,
constants broadcast, a multiply and an add fused into one loop), and operands of another type
or shape refused before anything runs."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
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


def _mul_add_program(dtype, factors, addend, product_first):
    mul, add = arith.loop_index(np.multiply, dtype), arith.loop_index(np.add, dtype)
    tmp = (arith.SRC_TEMP, 0)
    added = [tmp, addend] if product_first else [addend, tmp]
    return [(np.multiply, mul, factors, tmp), (np.add, add, added, (arith.SRC_OUT, 0))]


def _special_values(dtype, n):
    info = np.finfo(dtype)
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, info.max, -info.max, info.tiny,
                        info.smallest_subnormal, -info.smallest_subnormal, 1.0, -3.5], dtype)
    x = (RNG.standard_normal(n) * 1e3).astype(dtype)
    x[:min(n, special.size)] = special[:n]
    return x


@pytest.fixture(params=[False, True], ids=["plain", "avx2"])
def mul_add_path(request):
    """Runs the test on the fused loop's plain and AVX2 paths, then back to the default (AVX2
    where the CPU has it)."""
    if arith.mul_add_avx2(request.param) != request.param:
        pytest.skip("the CPU has no AVX2")
    yield
    arith.mul_add_avx2(True)


@pytest.mark.usefixtures("mul_add_path")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("x_flat", [True, False])
@pytest.mark.parametrize("y_flat", [True, False])
@pytest.mark.parametrize("z_flat", [True, False])
@pytest.mark.parametrize("product_first", [True, False])
@pytest.mark.parametrize("threads", [0, 2])
def test_fused_mul_add_equals_the_two_ufuncs(dtype, x_flat, y_flat, z_flat, product_first,
                                            threads):
    """A multiply whose product an add reads runs as one loop (arith_fused.h): bit for bit
    np.multiply then np.add, NaNs, infinities, subnormals and -0 included, whichever operands
    are flat or one value and whichever side of the add the product is on, on both paths."""
    n = (1 << 16) + (1 << 12) + 5
    values = [_special_values(dtype, n), RNG.standard_normal(n).astype(dtype),
              _special_values(dtype, n)[::-1].copy()]
    consts = [np.asarray(dtype(v)) for v in (0.1, -np.inf, 1e-30)]
    refs = [(arith.SRC_INPUT, k) if flat else (arith.SRC_CONST, k)
            for k, flat in enumerate((x_flat, y_flat, z_flat))]
    x, y, z = [v if flat else c for v, c, flat in zip(values, consts,
                                                      (x_flat, y_flat, z_flat), strict=True)]
    out = np.empty(n, dtype)
    pool = ThreadPool(threads) if threads else None
    arith.run_program(pool, _mul_add_program(dtype, refs[:2], refs[2], product_first), 1,
                      values, consts, out)
    with np.errstate(all="ignore"):
        product = np.multiply(x, y)
        want = np.add(product, z) if product_first else np.add(z, product)
    want = np.broadcast_to(want, (n,))
    np.testing.assert_array_equal(np.isnan(out), np.isnan(want))
    bits = out.view(f"u{out.itemsize}")
    np.testing.assert_array_equal(bits[~np.isnan(out)], want.view(bits.dtype)[~np.isnan(want)])


def test_fused_mul_add_reads_samples_of_other_types():
    """run_samples' sample-by-sample path takes the fused loop too: a uint8 image (converted
    chunk by chunk) times a per-channel float, plus one value per sample."""
    xs = [RNG.integers(0, 256, (150, 151, 3), dtype=np.uint8), np.zeros((2, 2, 3), np.uint8)]
    scales = [np.array([[[0.5, -2.0, 1e-3]]], np.float32)] * 2
    shifts = [np.array([[[7.25]]], np.float32), np.array([[[np.inf]]], np.float32)]
    inp = arith.SRC_INPUT
    out = BatchStorage.allocate(np.float32, [x.shape for x in xs])
    prog = _mul_add_program(np.float32, [(inp, 0), (inp, 1)], (inp, 2), True)
    assert arith.run_samples(ThreadPool(2), prog, 1,
                             [BatchStorage.from_samples(v) for v in (xs, scales, shifts)], [],
                             out)
    for x, a, b, o in zip(xs, scales, shifts, out.samples(), strict=True):
        np.testing.assert_array_equal(o, x.astype(np.float32) * a + b)


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
