"""Arithmetic on batches that are not one flat block of the output's elements: ragged batches
with operands broadcast per sample (one value, one value per channel), branches of an `if`
whose samples are views, inputs of another type than the result.  They run through the
program runner sample by sample (`_ext/kernels/arith.pyx` run_samples); values are checked
against NumPy with DALI's rules (operands converted to the result type, then the operation),
with the runner's own cases and the ones it leaves to the per-sample fallback."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from pipeline_utils import run_op

from dali import fn, pipeline_def, types
from dali._ext.kernels import arith


def ragged(rng, n, dtype, channels=3, lo=0, hi=100):
    return [rng.integers(lo, hi, (rng.integers(1, 40), rng.integers(1, 40), channels))
            .astype(dtype) for _ in range(n)]


def per_sample(rng, n, dtype, shape):
    return [(rng.random(shape) * 50).astype(dtype) for _ in range(n)]


CASES = [
    # (expression, input dtypes, operand shapes after the ragged first, result dtype)
    (lambda x, y: x - y, (np.uint8, np.float32), (1, 1, 1), np.float32),
    (lambda x, y: x - y, (np.uint8, np.uint8), (1, 1, 3), np.uint8),
    (lambda x, y: x & y, (np.uint8, np.uint8), (), np.uint8),
    (lambda x, y: x * y, (np.int16, np.int32), (3,), np.int32),
    (lambda x, y: x * 0.5 + y, (np.uint8, np.float32), (1, 1, 3), np.float32),
    (lambda x, y: (x + y) * y - x, (np.float32, np.float32), (), np.float32),
    (lambda x, y: x + y, (np.int16, np.int32), (1, 1), np.int32),      # (1, 1) vs (H, W, C)
]


def reference(expr, x, y, out_dtype):
    with np.errstate(all="ignore"):
        if expr is CASES[4][0]:
            return (x.astype(np.float32) * np.float32(0.5) + y).astype(out_dtype)
        return np.asarray(expr(x.astype(out_dtype), y.astype(out_dtype))).astype(out_dtype)


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("n", [1, 7])
def test_ragged_batch_with_per_sample_operand(case, n):
    expr, (tx, ty), yshape, out_dtype = CASES[case]
    rng = np.random.default_rng(case * 10 + n)
    xs = ragged(rng, n, tx, channels=yshape[-1] if len(yshape) and yshape[-1] == 3 else 3)
    ys = per_sample(rng, n, ty, yshape)
    (out,) = run_op(lambda fn, x, y: expr(x, y), [xs, ys], num_threads=2)
    for x, y, o in zip(xs, ys, out, strict=True):
        want = reference(expr, x, y, out_dtype)
        assert o.dtype == out_dtype
        np.testing.assert_array_equal(o, want)


def test_bool_times_image_and_uint8_constant_minus_image():
    rng = np.random.default_rng(5)
    xs = ragged(rng, 6, np.uint8, hi=256)
    masks = [rng.random(x.shape) < 0.5 for x in xs]
    prod, diff = run_op(lambda fn, x, m: (m * x, types.Constant(255, types.UINT8) - x),
                        [xs, masks], num_threads=2)
    for x, m, p, d in zip(xs, masks, prod, diff, strict=True):
        np.testing.assert_array_equal(p, m.astype(np.uint8) * x)
        np.testing.assert_array_equal(d, 255 - x)
        assert p.dtype == d.dtype == np.uint8


@pytest.mark.parametrize("size", [(8, 8, 3), (200, 160, 3)])
def test_branch_samples_as_views(size):
    n = 10
    rng = np.random.default_rng(size[0])
    images = [rng.integers(0, 256, size, dtype=np.uint8) for _ in range(n)]
    offsets = [rng.random((1, 1, 3), dtype=np.float32) * 10 for _ in range(n)]
    conds = [np.array(v) for v in rng.integers(0, 2, n).astype(bool)]

    @pipeline_def(batch_size=n, num_threads=2, device_id=None, enable_conditionals=True,
                  exec_async=False, exec_pipelined=False)
    def pipe():
        x = fn.external_source(source=lambda: images, layout="HWC")
        o = fn.external_source(source=lambda: offsets)
        c = fn.external_source(source=lambda: conds)
        if c:
            y = x - o
        else:
            y = x * 0.25 + o
        return y

    p = pipe()
    p.build()
    (out,) = p.run()
    for i, got in enumerate(out):
        x = images[i].astype(np.float32)
        want = x - offsets[i] if conds[i] else x * np.float32(0.25) + offsets[i]
        np.testing.assert_array_equal(np.asarray(got), want)


def add_program(dtype):
    loop = arith.loop_index(np.add, dtype)
    return [(np.add, loop, [(arith.SRC_INPUT, 0), (arith.SRC_INPUT, 1)], (arith.SRC_OUT, 0))]


def test_run_samples_kernel_spans_and_inner_patterns():
    from dali._ext.thread_pool import ThreadPool
    rng = np.random.default_rng(1)
    big = rng.random((300, 301, 3)).astype(np.float32)     # several work items
    xs = [big, rng.random((0, 4, 3)).astype(np.float32), rng.random((2, 2, 3)).astype(np.float32)]
    ys = [np.arange(301 * 3, dtype=np.int32).reshape(1, 301, 3), np.ones((1, 1, 1), np.int32),
          np.full((2, 1, 1), 4, np.int32)[:1]]
    out = BatchStorage.allocate(np.float32, [x.shape for x in xs])
    ok = arith.run_samples(ThreadPool(2), add_program(np.float32), 0,
                           [BatchStorage.from_samples(xs), BatchStorage.from_samples(ys)], [],
                           out)
    assert ok
    for x, y, o in zip(xs, ys, out.samples(), strict=True):
        np.testing.assert_array_equal(o, x + y.astype(np.float32))


def test_run_samples_declines_what_it_cannot_read():
    from dali._ext.thread_pool import ThreadPool
    x = np.ones((4, 5, 3), np.float32)
    out = BatchStorage.allocate(np.float32, [x.shape])
    prog = add_program(np.float32)
    col = np.ones((4, 1, 3), np.float32)                    # not an inner pattern
    strided = np.ones((4, 10, 3), np.float32)[:, ::2]       # not C-contiguous
    for y in (col, strided):
        assert not arith.run_samples(ThreadPool(1), prog, 0, [BatchStorage.from_samples([x]),
                                     BatchStorage.from_samples([y])], [], out)
    with pytest.raises(ValueError, match="input 1 has 2 samples, out has 1"):
        arith.run_samples(ThreadPool(1), prog, 0, [BatchStorage.from_samples([x]),
                          BatchStorage.from_samples([x, x])], [], out)


def test_column_operand_left_to_the_per_sample_fallback():
    rng = np.random.default_rng(9)
    xs = ragged(rng, 5, np.uint8)
    ys = [rng.random((x.shape[0], 1, 3)).astype(np.float32) for x in xs]   # (H, 1, C)
    (out,) = run_op(lambda fn, x, y: x * y - 1.5, [xs, ys], num_threads=2)
    for x, y, o in zip(xs, ys, out, strict=True):
        np.testing.assert_array_equal(o, x.astype(np.float32) * y - np.float32(1.5))


COMPARISONS = [
    # (expression, x dtype, y dtype, y shape, the type both are compared in)
    (lambda x, y: x < y, np.uint8, np.float32, (), np.float32),
    (lambda x, y: x >= y, np.int16, np.uint8, (1, 1, 3), np.int16),
    (lambda x, y: x == y, np.float32, np.float32, (3,), np.float32),
    (lambda x, y: x * 2 > y, np.float32, np.float32, (), np.float32),
    (lambda x, y: x != y, np.uint64, np.int64, (), None),       # exact: left to the fallback
]


@pytest.mark.parametrize("case", range(len(COMPARISONS)))
def test_comparisons_of_ragged_batches(case):
    expr, tx, ty, yshape, work = COMPARISONS[case]
    rng = np.random.default_rng(case)
    xs = ragged(rng, 6, tx, hi=20)
    ys = [rng.integers(0, 20, yshape).astype(ty) for _ in xs]
    if tx == np.float32:
        xs[0].flat[0], ys[1].flat[0] = np.nan, np.nan            # NaN compares false (!= true)
    ys[2].flat[0] = xs[2].flat[0] if yshape == () else ys[2].flat[0]
    (out,) = run_op(lambda fn, x, y: expr(x, y), [xs, ys], num_threads=2)
    for x, y, o in zip(xs, ys, out, strict=True):
        if work is None:
            want = (x.astype(object) != y.astype(object)).astype(bool)
        else:
            want = expr(x.astype(work), y.astype(work))
        assert o.dtype == np.bool_
        np.testing.assert_array_equal(o, want)


@pytest.mark.parametrize("threads", [1, 3])
def test_run_samples_kernel_groups_small_samples_around_large_and_empty_ones(threads):
    from dali._ext.thread_pool import ThreadPool
    rng = np.random.default_rng(threads)
    shapes = [(8, 8, 3)] * 10 + [(0, 3, 3), (260, 300, 3)] + [(100, 100, 3)] * 9 + \
        [(0, 1, 3)] * 3 + [(2, 2, 3)]
    xs = [rng.integers(0, 255, s).astype(np.uint8) for s in shapes]
    ys = [np.float32(rng.random()) * np.ones((1, 1, 1), np.float32) for _ in shapes]
    out = BatchStorage.allocate(np.float32, shapes)
    assert arith.run_samples(ThreadPool(threads), add_program(np.float32), 0,
                             [BatchStorage.from_arrays(xs), BatchStorage.from_samples(ys)], [],
                             out)
    for x, y, o in zip(xs, ys, out.samples(), strict=True):
        np.testing.assert_array_equal(o, x.astype(np.float32) + y)
