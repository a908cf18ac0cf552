"""The cast kernel against a NumPy statement of DALI's conversion rules, for every type pair,
on random values and the types' boundaries, and its batch entry point on every batch form."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import cast

TYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32,
                               np.uint32, np.int64, np.uint64, np.float16, np.float32,
                               np.float64)]
# NaN converted to these integer types gives what DALI's CPU conversion gives.
_NAN_AS = {np.dtype(np.int32): np.iinfo(np.int32).min, np.dtype(np.int64): np.iinfo(np.int64).min,
           np.dtype(np.uint64): 2 ** 63}


def reference(x, dtype):
    """`x` converted to `dtype` with DALI's rules (see dali/ops/tensor/cast.py)."""
    dtype, src = np.dtype(dtype), x.dtype
    if dtype == src:
        return x.copy()
    if dtype == np.bool_:
        if src.kind == "f":
            return (np.abs(x) >= 0.5) | np.isnan(x)
        return x != 0
    if dtype.kind == "f" or src == np.bool_:
        with np.errstate(over="ignore"):
            return x.astype(dtype)
    info = np.iinfo(dtype)
    if src.kind == "f":
        with np.errstate(invalid="ignore", over="ignore"):
            return _float_to_int(x, dtype, info)
    src_info = np.iinfo(src)
    lo, hi = max(info.min, src_info.min), min(info.max, src_info.max)
    return np.clip(x, src.type(lo), src.type(hi)).astype(dtype)


def _float_to_int(x, dtype, info):
    x = x.astype(np.float64)
    t = np.trunc(x)
    v = t + np.copysign((np.abs(x - t) >= 0.5).astype(np.float64), x)
    nan = np.isnan(v)
    top = v >= float(info.max)          # float(max) rounds up for 64-bit types
    low = v <= float(info.min)
    out = np.where(nan | top | low, 0, v).astype(dtype)
    out[top] = info.max
    out[low] = info.min
    out[nan] = _NAN_AS.get(dtype, 0)
    return out


def _values(dtype, rng, n=4000):
    """Random values of `dtype` over its whole range, plus its boundaries and halves."""
    if dtype == np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind == "f":
        mags = 10.0 ** rng.uniform(-8, 40, n) * rng.choice([-1, 1], n)
        halves = np.arange(-300, 300) + 0.5
        special = [0.0, -0.0, 0.4999999, 0.5, 1.5, 65504, 65519.9, 65520, 2.0 ** 31, -2.0 ** 31,
                   2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 5.96e-8, 2.98e-8, 6.1e-5, np.inf,
                   -np.inf, np.nan]
        with np.errstate(over="ignore"):
            return np.concatenate([mags, halves, special]).astype(dtype)
    info = np.iinfo(dtype)
    vals = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    edges = np.array([info.min, info.min + 1, 0, 1, info.max - 1, info.max], dtype)
    return np.concatenate([vals, edges])


@pytest.mark.parametrize("src", TYPES, ids=str)
def test_every_type_pair_matches_the_reference(src):
    x = _values(src, np.random.default_rng(7))
    for dst in TYPES:
        got = np.empty(x.shape, dst)
        cast.cast_array(x, got)
        want = reference(x, dst)
        if dst.kind == "f":
            np.testing.assert_array_equal(got, want, err_msg=f"{src} -> {dst}")
        else:
            assert got.tolist() == want.tolist(), f"{src} -> {dst}"


def test_double_to_half_rounds_once():
    # just above a half-way point in double, exactly half-way once rounded to float
    x = np.array([1 + 2.0 ** -11 + 2.0 ** -40, 2.0 ** -24 * 1.5 + 2.0 ** -60], np.float64)
    got = np.empty(2, np.float16)
    cast.cast_array(x, got)
    np.testing.assert_array_equal(got, x.astype(np.float16))


def _storage(samples, per_sample):
    return BatchStorage.from_samples(samples) if per_sample else \
        BatchStorage.from_arrays(samples)


@pytest.mark.parametrize("per_sample", [False, True])
@pytest.mark.parametrize("pool", [None, ThreadPool(3, inline_cost=0)], ids=["caller", "pool"])
def test_batch_of_every_form(per_sample, pool):
    rng = np.random.default_rng(1)
    shapes = [(3, 4), (0, 4), (300, 500), (1, 1), (1, 70001)]
    samples = [rng.normal(0, 300, s).astype(np.float32) for s in shapes]
    src = _storage(samples, per_sample)
    if per_sample:      # non-contiguous samples are accepted
        src = BatchStorage.from_samples([np.asfortranarray(s) for s in src.samples()])
    dst = BatchStorage.allocate(np.int16, [s.shape for s in samples])
    cast.cast_batch(pool, src, dst)
    for got, x in zip(dst.samples(), samples, strict=True):
        np.testing.assert_array_equal(got, reference(x, np.int16))


def test_batch_copy_and_reshaped_destination():
    src = BatchStorage.from_dense(np.arange(24, dtype=np.uint16).reshape(2, 3, 4))
    dst = BatchStorage.allocate(np.uint16, [(12,), (12,)])
    cast.cast_batch(None, src, dst)
    np.testing.assert_array_equal(dst.dense(), np.arange(24).reshape(2, 12))


def test_batch_checks():
    src = BatchStorage.from_dense(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="element counts"):
        cast.cast_batch(None, src, BatchStorage.allocate(np.int8, [(3,), (4,)]))
    with pytest.raises(ValueError, match="samples"):
        cast.cast_batch(None, src, BatchStorage.allocate(np.int8, [(3,)]))
    with pytest.raises(ValueError, match="contiguous"):
        cast.cast_batch(None, src, BatchStorage.from_samples([np.zeros(3), np.zeros(3)]))
    with pytest.raises(TypeError, match="cannot convert"):
        cast.cast_batch(None, src, BatchStorage.allocate(np.complex64, [(3,), (3,)]))
    with pytest.raises(ValueError, match="same size"):
        cast.cast_array(np.zeros(3), np.zeros(4))


def _edge_floats(dtype, rng):
    """Values where a float -> integer conversion can go wrong: NaNs (with payloads and
    signs), infinities, halves, the integer types' boundaries and their neighbours, and
    random values, shuffled so that each one meets every vector lane."""
    bounds = [2.0 ** b for b in (7, 8, 15, 16, 24, 31, 32, 63)]
    near = [b + d for b in bounds for d in (-1.5, -1, -0.5, 0, 0.5, 1, 1.5)]
    special = [0.0, -0.0, 0.5, 1.5, 2.5, 0.49999997, 0.5000001, 1e-45, 8388607.5, 8388608.5,
               2.0 ** 31 - 128, 2.0 ** 31 - 64, 1e30, np.inf, np.nan]
    base = np.array(near + special)
    halves = np.arange(-70000, 70000) + 0.5
    rand = np.concatenate([rng.uniform(-70000, 70000, 20000),
                           10.0 ** rng.uniform(-8, 40, 20000)])
    with np.errstate(over="ignore"):
        x = np.concatenate([base, -base, halves, rand, -rand]).astype(dtype)
    bits = np.uint32 if dtype == np.float32 else np.uint64
    top = 32 if dtype == np.float32 else 64
    exp = (1 << (top - 1)) - (1 << (23 if top == 32 else 52))        # exponent all ones
    payloads = np.array([exp | 1, exp | 5, (1 << (top - 1)) | exp | 1], bits).view(dtype)
    x = np.concatenate([np.tile(x, 2), np.repeat(payloads, 40)])
    rng.shuffle(x)
    return x


@pytest.mark.parametrize("src", [np.float32, np.float64], ids=str)
@pytest.mark.parametrize("dst", [np.int8, np.uint8, np.int16, np.uint16, np.int32], ids=str)
def test_vector_paths_give_the_scalar_results(src, dst):
    x = _edge_floats(src, np.random.default_rng(11))
    best = cast.simd()
    starts = (0, 1, 5)
    try:
        results = []
        for level in range(best + 1):
            assert cast.simd(level) == level
            for start in starts:        # several alignments and tail lengths
                got = np.empty(x.size - start, dst)
                cast.cast_array(np.ascontiguousarray(x[start:]), got)
                results.append(got)
        for got, start in zip(results, starts * (best + 1), strict=True):
            np.testing.assert_array_equal(got, reference(x[start:], dst))
    finally:
        cast.simd(best)
