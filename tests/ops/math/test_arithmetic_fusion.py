"""Fused arithmetic pairs (`arithmetic.link`): a producer computing its consumer's expression
gives the values of the two operators, and only pairs that allow it are fused."""

import numpy as np
import pytest
from pipeline_utils import run_op

from dali import fn, pipeline_def
from dali import math as dmath
from dali._executor.errors import PipelineError
from dali.ops.math import arithmetic


def _returning(batch):
    return lambda: batch


def _build(expr, batches, layout="HWC", fuse=True):
    """A pipeline of `expr(*external_sources)` on `batches` (one list of samples per source),
    with or without fusion."""
    @pipeline_def(batch_size=len(batches[0]), num_threads=2, device_id=None)
    def pipe():
        srcs = [fn.external_source(source=_returning(b), layout=layout) for b in batches]
        out = expr(*srcs)
        return out if isinstance(out, tuple) else (out,)

    p = pipe()
    p._fuse_regions = fuse
    p.build()
    return p


def _outputs(p):
    return [[np.array(t) for t in tl] for tl in p.run()]


def _pairs(p):
    """(producer index, consumer index) of the fused pairs, in operator order."""
    ops = [op for op in p._executor.ops if isinstance(op, arithmetic.ArithmeticGenericOp)]
    return [(ops.index(op), ops.index(op.fused_consumer)) for op in ops
            if op.fused_consumer is not None]


def _images(dtype, n=4, shape=(33, 47, 3), seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(shape) * 100).astype(dtype) for _ in range(n)]


def _assert_bits_equal(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("shape", [(33, 47, 3), (224, 224, 3)])
def test_mul_add_float_is_fused_and_rounds_each_operation(shape):
    # (224, 224, 3) x 64 is larger than the streaming threshold: the streamed copy-out.
    n = 64 if shape == (224, 224, 3) else 4
    data = _images(np.float32, n, shape)
    p = _build(lambda x: x * 0.5 + 1, [data])
    assert _pairs(p) == [(0, 1)]
    (got,) = _outputs(p)
    for g, x in zip(got, data, strict=True):
        _assert_bits_equal(g, (x * np.float32(0.5)) + np.float32(1))


def test_fused_pair_keeps_the_consumers_layout_and_shapes_of_ragged_batches():
    data = [np.arange(k * 6, dtype=np.float32).reshape(k, 2, 3) / 7 for k in (1, 5, 3)]
    p = _build(lambda x: (x - 0.25) * 3, [data])
    assert _pairs(p) == [(0, 1)]
    (tl,) = p.run()
    assert tl.layout() == "HWC"
    for g, x in zip(tl, data, strict=True):
        _assert_bits_equal(np.array(g), (x - np.float32(0.25)) * np.float32(3))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float64])
def test_integer_and_double_pairs_wrap_and_round_like_two_operators(dtype):
    data = _images(dtype)
    expr = lambda x: (x * 3) - 7  # noqa: E731
    p = _build(expr, [data])
    assert _pairs(p) == [(0, 1)]
    fused = _outputs(p)[0]
    unfused = _outputs(_build(expr, [data], fuse=False))[0]
    for f, u in zip(fused, unfused, strict=True):
        _assert_bits_equal(f, u)


@pytest.mark.parametrize("expr", [
    lambda x: dmath.clamp(x * 2, -10.5, 30),           # NumPy fallback (C's float rules)
    lambda x: dmath.max(x - 3, 0.0),
    lambda x: (x * 0.5) < 7])                           # a comparison at the root
def test_pairs_off_the_chunked_loops_give_the_unfused_values(expr):
    data = _images(np.float32, shape=(5, 7, 3))
    data[0][0, 0] = np.nan
    p = _build(expr, [data])
    assert _pairs(p) == [(0, 1)]
    unfused = _outputs(_build(expr, [data], fuse=False))[0]
    for f, u in zip(_outputs(p)[0], unfused, strict=True):
        _assert_bits_equal(f, u)


def test_producer_with_two_inputs_and_a_unary_consumer():
    a, b = _images(np.float32, seed=1), _images(np.float32, seed=2)
    p = _build(lambda x, y: -(x * y), [a, b])
    assert _pairs(p) == [(0, 1)]
    (got,) = _outputs(p)
    for g, x, y in zip(got, a, b, strict=True):
        _assert_bits_equal(g, -(x * y))


def test_only_pairs_are_fused_in_a_chain():
    data = _images(np.float32)
    p = _build(lambda x: ((x * 0.5 + 1) * 3) - 2, [data])
    assert _pairs(p) == [(0, 1), (2, 3)]
    (got,) = _outputs(p)
    h, one, three, two = (np.float32(v) for v in (0.5, 1, 3, 2))
    for g, x in zip(got, data, strict=True):
        _assert_bits_equal(g, ((x * h + one) * three) - two)


def test_not_fused_where_the_intermediate_is_observed_or_the_consumer_reads_more():
    data = _images(np.float32)
    other = _images(np.float32, seed=3)

    def observed(x):
        y = x * 0.5
        return y, y + 1

    p = _build(observed, [data])
    assert _pairs(p) == []
    y, z = _outputs(p)
    for a, b, x in zip(y, z, data, strict=True):
        _assert_bits_equal(a, x * np.float32(0.5))
        _assert_bits_equal(b, x * np.float32(0.5) + np.float32(1))
    p = _build(lambda x, w: x * 0.5 + w, [data, other])
    assert _pairs(p) == []
    p = _build(lambda x: (x * 0.5) // 2, [data])
    assert _pairs(p) == []


def test_consumer_of_another_type_computes_itself():
    data = [(np.arange(60, dtype=np.int32) * 7919).reshape(4, 5, 3) for _ in range(3)]
    p = _build(lambda x: (x * 3) + 0.5, [data])
    assert _pairs(p) == [(0, 1)]            # linked, but int32 -> float32 is not passed on
    (got,) = _outputs(p)
    for g, x in zip(got, data, strict=True):
        _assert_bits_equal(g, (x * np.int32(3)).astype(np.float32) + np.float32(0.5))


def test_a_rejected_consumer_raises_in_its_own_name():
    data = [np.ones((2, 2, 3), np.int32)]
    p = _build(lambda x: -(x == 1), [data])
    assert _pairs(p) == [(0, 1)]
    with pytest.raises(PipelineError, match="ArithmeticGenericOp_2") as info:
        p.run()
    assert "cannot be a boolean" in str(info.value)


@pytest.mark.oracle
def test_fused_chain_matches_real_dali():
    data = _images(np.float32, 8, (40, 30, 3))
    ours = run_op(lambda fn, x: x * 0.5 + 1, [data], num_threads=2)
    real = run_op(lambda fn, x: x * 0.5 + 1, [data], real=True, num_threads=2)
    for o, r in zip(ours[0], real[0], strict=True):
        _assert_bits_equal(o, r)


def test_outputs_handed_on_stay_intact_while_held():
    # The consumer's output is the producer's buffer: held batches must not be reused.
    @pipeline_def(batch_size=4, num_threads=2, device_id=None, prefetch_queue_depth=3)
    def pipe():
        x = fn.external_source(
            source=lambda info: [np.full((64, 64, 3), info.iteration + k, np.float32)
                                 for k in range(4)], batch=True, layout="HWC", batch_info=True)
        return x * 0.5 + 1

    p = pipe()
    p.build()
    held = [p.run()[0] for _ in range(8)]
    for it, tl in enumerate(held):
        for k, s in enumerate(tl):
            np.testing.assert_array_equal(np.array(s), np.float32(it + k) * np.float32(0.5) + 1)
