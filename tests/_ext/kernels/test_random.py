"""random.draw_batch against rng.uniform / rng.normal and the NumPy formulas it replaces: the
same numbers, for every mode and output type, chunked samples included, whatever the pool."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext import rng
from dali._ext.kernels import random as kernel

KEY = rng.mix_key(1234, 3)
SHAPES = [(3, 5), (0, 7), (1, 1), (kernel.CHUNK + 3, 2), (kernel.CHUNK // 2 + 1, 1)]
IDS = np.array([5, 0, 2**33 + 7, 11, 1], np.int64)


def _round_clip(x, dtype):
    info = np.iinfo(dtype)
    hi = np.float64(info.max)
    if int(hi) > info.max:
        hi = np.nextafter(hi, 0.0)
    r = np.trunc(x + np.copysign(0.5, x))
    return np.clip(r, float(info.min), hi).astype(dtype)


def _expected(mode, dtype, a, b, end, stream):
    counts = np.array([np.prod(s, dtype=np.int64) for s in SHAPES], np.int64)
    draw = rng.normal if mode == "normal" else rng.uniform
    flat = draw(KEY, IDS, counts, stream)
    ea, eb, ee = (np.repeat(v, counts) for v in (a, b, end))
    x = {"uniform": lambda: ea + flat * eb, "rint": lambda: np.rint(ea + flat * eb),
         "normal": lambda: ea + eb * flat, "coin": lambda: (flat < ea).astype(np.float64),
         "index": lambda: np.minimum((flat * ea).astype(np.int64), ea - 1).astype(float)}[mode]()
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        y = x.astype(dtype)
        if mode == "uniform":
            e = ee.astype(dtype)
            y = np.where(y >= e, np.nextafter(e, np.asarray(-np.inf, dtype)), y)
    elif dtype.kind == "b":
        y = x != 0
    else:
        y = _round_clip(x, dtype)
    return np.split(y, np.cumsum(counts)[:-1])


CASES = [("uniform", np.float32, [-3.0, 0.0, 1.0, 5.0, -1e-3], [10.5, 1e-30, 1e-7, 1.0, 2e-3]),
         ("uniform", np.float64, [-3.0, 0.0, 1.0, 5.0, 7.0], [10.5, 1e-300, 1e-15, 1.0, 0.5]),
         ("rint", np.int32, [-5, 0, 3, -1, 2], [14, 1, 0, 2, 100]),
         ("rint", np.uint8, [0, 0, 3, 250, 2], [255, 1, 0, 5, 100]),
         ("rint", np.int64, [-1e15, 0, 3, -1, 2], [2e15, 1, 0, 2, 100]),
         ("normal", np.float32, [3.0, 0, -1, 2, 0], [-2.5, 1, 0.5, 1e3, 1]),
         ("normal", np.float64, [0.0, 0, -1, 2, 0], [1.0, 1, 0.5, 1e3, 1e-10]),
         ("normal", np.int8, [0.0, 0, -1, 2, 0], [100.0, 1, 0.5, 1e3, 300]),
         ("normal", np.uint16, [10.0, 0, -1, 2, 0], [100.0, 1, 0.5, 1e5, 300]),
         ("normal", np.uint64, [10.0, 0, -1, 2, 0], [1e20, 1, 0.5, 1e5, 300]),
         ("coin", np.int32, [0.3, 0.5, 1.0, 0.0, 0.7], None),
         ("coin", np.bool_, [0.3, 0.5, 1.0, 0.0, 0.7], None),
         ("coin", np.uint8, [0.3, 0.5, 1.0, 0.0, 0.7], None),
         ("index", np.int64, [7, 1, 3, 100, 2**40], None),
         ("index", np.uint8, [7, 1, 3, 300, 2], None)]


@pytest.mark.parametrize("threads", [None, 1, 2])
@pytest.mark.parametrize("mode,dtype,a,b", CASES)
def test_draw_batch_equals_rng_and_numpy(mode, dtype, a, b, threads):
    pool = None if threads is None else ThreadPool(threads, inline_cost=0.0)
    a = np.array(a, np.float64)
    b = np.zeros(len(a)) if b is None else np.array(b, np.float64)
    end = a + b
    out = BatchStorage.allocate(dtype, SHAPES)
    stream = 2 if mode == "coin" else 0
    kernel.draw_batch(pool, out, KEY, IDS, stream, mode, a, b, end)
    for got, want, shape in zip(out.samples(), _expected(mode, dtype, a, b, end, stream),
                                SHAPES, strict=True):
        assert got.dtype == np.dtype(dtype) and got.shape == shape
        np.testing.assert_array_equal(got.reshape(-1), want)


def test_uniform_floats_stay_below_end():
    out = BatchStorage.allocate(np.float32, [(1000,)])
    kernel.draw_batch(None, out, KEY, [0], 0, "uniform", [1.0], [1e-7], [1.0 + 1e-7])
    x = out.samples()[0]
    # [1, 1 + 1e-7) holds one float32: draws rounding up to the end are moved back below it
    assert (x == np.float32(1.0)).all() and np.float32(1.0 + 1e-7) > 1.0


def test_per_sample_storage():
    arrays = [np.zeros((4, 3), np.float64), np.zeros((5, 1), np.float64)]
    out = BatchStorage.from_samples(arrays)
    kernel.draw_batch(None, out, KEY, [3, 4], 1, "normal", [0.0, 1.0], [1.0, 2.0])
    want = rng.normal(KEY, np.array([3, 4], np.int64), np.array([12, 5], np.int64), 1)
    np.testing.assert_array_equal(out.samples()[0].reshape(-1), want[:12])
    np.testing.assert_array_equal(out.samples()[1].reshape(-1), 1.0 + 2.0 * want[12:])


def test_wrong_parameter_count():
    out = BatchStorage.allocate(np.float32, [(2,), (3,)])
    with pytest.raises(ValueError, match="one sample id and parameter per sample"):
        kernel.draw_batch(None, out, KEY, [0], 0, "uniform", [0.0, 1.0])


def _sincos_2pi(u):
    """dali_sincos_2pi of random_draws.h in NumPy (the same operations in the same order)."""
    x = 8.0 * u
    q = x.astype(np.int64)
    f = x - q
    a = 0.78539816339744830962 * np.where(q & 1, 1.0 - f, f)
    z = a * a
    rs = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04 + z * (
        2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08
                                          + z * 1.58969099521155010221e-10)))
    rc = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03 + z * (
        2.48015872894767294178e-05 + z * (-2.75573143513906633035e-07 + z * (
            2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))))
    hz = 0.5 * z
    w = 1.0 - hz
    sa = a + (z * a) * (-1.66666666666666324348e-01 + z * rs)
    ca = w + (((1.0 - w) - hz) + z * rc)
    swap = ((q + 1) >> 1) & 1 == 1
    s, c = np.where(swap, ca, sa), np.where(swap, sa, ca)
    return np.where(q >= 4, -s, s), np.where((q + 2) & 4, -c, c)


def test_sincos_2pi_is_within_two_ulps_of_sin_and_cos():
    u = np.concatenate([np.arange(64) / 64, np.nextafter(np.arange(1, 65) / 64, 0),
                        np.random.default_rng(0).random(100000)])
    s, c = _sincos_2pi(u)
    # the exact angle: 2 pi u reduced to [-pi/4, pi/4] around a multiple of pi/2 in float64
    # is exact for these u (k / 4 and u - k / 4 are), so np.sin / np.cos of it are correct
    k = np.floor(4 * u + 0.5)
    r = 2 * np.pi * (u - k / 4)
    sr, cr = np.sin(r), np.cos(r)
    want_s = np.select([k % 4 == 0, k % 4 == 1, k % 4 == 2], [sr, cr, -sr], -cr)
    want_c = np.select([k % 4 == 0, k % 4 == 1, k % 4 == 2], [cr, -sr, -cr], sr)
    for got, want in ((s, want_s), (c, want_c)):
        assert (np.abs(got - want) <= 2 * np.spacing(np.abs(want)) + 1e-300).all()


def _beta_normal(ids, counts, stream):
    """The beta kernel's normals: Box-Muller of rng's uniforms with `_sincos_2pi`."""
    even = counts + counts % 2
    u = np.split(rng.uniform(KEY, ids, even, stream), np.cumsum(even)[:-1])
    z = []
    for x, n in zip(u, counts, strict=True):
        rad = np.sqrt(-2.0 * np.log(1.0 - x[0::2]))
        s, c = _sincos_2pi(x[1::2])
        z.append(np.stack([rad * c, rad * s], axis=1).reshape(-1)[:n])
    return np.concatenate(z)


def _gamma_reference(k, ids, counts, var, lin):
    """Gamma(k) (`lin`) or log Gamma(k) draws by the batch-wide NumPy rejection loop
    random_draws.h describes."""
    boost = k < 1.0
    d = np.where(boost, k + 1.0, k) - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    result = np.full(k.size, np.nan)
    pending = np.ones(k.size, bool)
    for r in range(64):
        z = _beta_normal(ids, counts, 2 + 4 * r + 2 * var)
        u = rng.uniform(KEY, ids, counts, 3 + 4 * r + 2 * var)
        t = 1.0 + c * z
        v = t * t * t
        with np.errstate(invalid="ignore", divide="ignore"):
            log_v = np.log(v)
            test = np.log1p(-u) < 0.5 * z * z + d - d * v + d * log_v
            if lin:
                test |= u > 0.0331 * ((z * z) * (z * z))
            ok = pending & (v > 0) & test
        result[ok] = (d * v if lin else np.log(d) + log_v)[ok]
        pending &= ~ok
        if not pending.any():
            break
    u = rng.uniform(KEY, ids, counts, var)
    return np.where(boost, result + np.log1p(-u) / k, result)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("lin", [False, True])
def test_beta_batch_equals_the_rejection_loop(dtype, lin):
    """alpha and beta both at least 1 (`lin`): X / (X + Y); otherwise from the logs."""
    shapes = [(3, 5), (0, 1), (1, 1), (kernel.BETA_CHUNK + 3, 2)]
    ids = np.array([5, 0, 2**33 + 7, 11], np.int64)
    if lin:
        alpha, beta = np.array([1.0, 1.0, 3.0, 1.5]), np.array([2.5, 1.0, 1.0, 200.0])
    else:
        alpha, beta = np.array([0.7, 1.0, 3.0, 0.05]), np.array([2.5, 1.0, 0.3, 20.0])
    counts = np.array([np.prod(s) for s in shapes], np.int64)
    out = BatchStorage.allocate(dtype, shapes)
    assert kernel.beta_batch(ThreadPool(2, inline_cost=0.0), out, KEY, ids, alpha, beta) == -1
    with np.errstate(over="ignore"):
        lin_s = np.repeat((alpha >= 1) & (beta >= 1), counts)
        gx = _gamma_reference(np.repeat(alpha, counts), ids, counts, 0, True)
        gy = _gamma_reference(np.repeat(beta, counts), ids, counts, 1, True)
        log_x = _gamma_reference(np.repeat(alpha, counts), ids, counts, 0, False)
        log_y = _gamma_reference(np.repeat(beta, counts), ids, counts, 1, False)
        want = np.where(lin_s, gx / (gx + gy), 1.0 / (1.0 + np.exp(log_y - log_x)))
    got = np.concatenate([x.reshape(-1) for x in out.samples()])
    assert got.dtype == dtype and (got >= 0).all() and (got <= 1).all()
    # NumPy's SIMD log/exp/log1p may differ from the C library's in the last bit; exp of a
    # difference of logs (up to ~60 here) turns an ulp of it into ~1e-14 relative
    rtol = 1e-12 if dtype == np.float64 else 4 * np.finfo(dtype).eps
    np.testing.assert_allclose(got, want.astype(dtype), rtol=rtol, atol=0)
    assert (got == want.astype(dtype)).mean() > 0.9
    again = BatchStorage.allocate(dtype, shapes)
    kernel.beta_batch(None, again, KEY, ids, alpha, beta)
    np.testing.assert_array_equal(np.concatenate([x.reshape(-1) for x in again.samples()]), got)


def test_beta_batch_checks_the_output_type():
    out = BatchStorage.allocate(np.float32, [(2,), (2,)])
    with pytest.raises(ValueError, match="float32 or float64"):
        kernel.beta_batch(None, BatchStorage.allocate(np.int32, [(2,)]), KEY, [0], [1.0], [1.0])
    assert kernel.beta_batch(None, out, KEY, [0, 1], [1.0, 1.0], [1.0, 1.0]) == -1
