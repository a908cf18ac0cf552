"""npy_views: the arrays in .npy bytes as views, against NumPy's own reader; which samples go
to the fallback, how often headers are parsed, and the flags it returns."""

import io

import numpy as np
import pytest
from dali._ext.kernels.npy_views import npy_views

from dali.ops import _npy


def enc(a, version=None):
    f = io.BytesIO()
    np.lib.format.write_array(f, a, version=version)
    return np.frombuffer(f.getvalue(), np.uint8).copy()


def no_fallback(i, s):
    raise AssertionError(f"sample {i} went to the fallback")


def counting(parse):
    calls = []

    def count(text):
        calls.append(text)
        return parse(text)
    return count, calls


def test_views_equal_numpy_and_share_the_bytes():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)] + \
        [np.arange(5, dtype=np.int64), np.zeros((0, 4), np.uint16), np.array(7, np.int8),
         np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4))]
    samples = [enc(a) for a in arrays]
    views, fortrans, same_type, same_ndim, fortran_nd = npy_views(samples, _npy.parse,
                                                                  no_fallback)
    for v, a, s, f in zip(views, arrays, samples, fortrans, strict=True):
        stored = a.T if f else a
        assert v.dtype == a.dtype and v.shape == stored.shape and v.flags.c_contiguous
        np.testing.assert_array_equal(v, stored)
        assert np.shares_memory(v, s) or v.size == 0
    assert fortrans == [False] * 6 + [True]
    assert (same_type, same_ndim, fortran_nd) == (False, False, True)


def test_one_parse_per_run_of_equal_headers():
    samples = [enc(np.full((2, 2), i, np.float32)) for i in range(5)] + \
        [enc(np.zeros(3, np.uint8))] + [enc(np.full((2, 2), 9, np.float32))]
    parse, calls = counting(_npy.parse)
    views, _, same_type, same_ndim, fortran_nd = npy_views(samples, parse, no_fallback)
    assert len(calls) == 3
    assert [int(v.flat[0]) for v in views] == [0, 1, 2, 3, 4, 0, 9]
    assert (same_type, same_ndim, fortran_nd) == (False, False, False)
    views, _, same_type, same_ndim, _ = npy_views(samples[:5], _npy.parse, no_fallback)
    assert same_type and same_ndim


def test_unaligned_and_read_only_samples():
    a = np.arange(6, dtype=np.float64)
    raw = enc(a)
    buf = np.zeros(raw.size + 1, np.uint8)
    buf[1:] = raw
    unaligned = buf[1:]
    ro = raw.copy()
    ro.flags.writeable = False
    (v1, v2), _, _, _, _ = npy_views([unaligned, ro], _npy.parse, no_fallback)
    np.testing.assert_array_equal(v1, a)
    np.testing.assert_array_equal(v2, a)
    assert v1.flags.aligned == (v1.ctypes.data % 8 == 0) and v1.flags.writeable
    assert not v2.flags.writeable


@pytest.mark.parametrize("name,sample", [
    ("not npy", np.frombuffer(b"not a numpy file at all", np.uint8)),
    ("short", enc(np.arange(3))[:8]),
    ("version 2", enc(np.arange(3), version=(2, 0))),
    ("cut data", enc(np.arange(3))[:-2]),
    ("cut header", enc(np.arange(3))[:40]),
    ("extra data", np.concatenate([enc(np.arange(3)), np.zeros(1, np.uint8)])),
    ("big endian", enc(np.arange(3, dtype=">i4"))),
    ("non-contiguous", np.repeat(enc(np.arange(3)), 2)[::2]),
    ("33 dims", enc(np.zeros((1,) * 33, np.uint8))),
])
def test_what_the_loop_does_not_take_goes_to_the_fallback(name, sample):
    good = enc(np.arange(4, dtype=np.int16))
    seen = []

    def fallback(i, s):
        seen.append(i)
        assert s is sample
        return np.zeros(2, np.int16), False
    views, fortrans, _, _, _ = npy_views([good, sample, good], _npy.parse, fallback)
    assert seen == [1]
    assert views[1].tolist() == [0, 0] and views[2].tolist() == [0, 1, 2, 3]


def test_a_fallback_error_propagates():
    def fallback(i, s):
        raise RuntimeError(f"bad sample {i}")
    with pytest.raises(RuntimeError, match="bad sample 0"):
        npy_views([np.zeros(4, np.uint8)], _npy.parse, fallback)
