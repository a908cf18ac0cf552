"""fn.decoders.numpy: .npy bytes to arrays (C and Fortran order, every type, dtype conversion),
checked against NumPy and real DALI, and its errors."""

from __future__ import annotations

import io

import numpy as np
import pytest
from pipeline_utils import run_op

DTYPES = [np.uint8, np.int8, np.uint16, np.int16, np.int32, np.uint32, np.int64, np.uint64,
          np.float16, np.float32, np.float64, np.bool_]


def enc(a, version=None):
    f = io.BytesIO()
    np.lib.format.write_array(f, a, version=version)
    return np.frombuffer(f.getvalue(), np.uint8).copy()


@pytest.mark.parametrize("dtype", DTYPES)
def test_arrays_round_trip(dtype):
    rng = np.random.default_rng(1)
    arrays = [(rng.integers(0, 100, rng.integers(1, 6, 3)) % (2 if dtype is np.bool_ else 100))
              .astype(dtype) for _ in range(4)]
    arrays[1] = np.asfortranarray(arrays[1])
    out, = run_op(lambda fn, x: fn.decoders.numpy(x), [[enc(a) for a in arrays]])
    for got, ref in zip(out, arrays, strict=True):
        assert got.dtype == ref.dtype and got.shape == ref.shape
        np.testing.assert_array_equal(got, ref)


def test_dtype_converts_with_rounding_and_saturation():
    from dali import types
    arrays = [np.array([0.7, 1.5, -3.2, 400.0], np.float32), np.array([7, -1, 300, 2], np.int64)]
    out, = run_op(lambda fn, x: fn.decoders.numpy(x, dtype=types.UINT8),
                  [[enc(a) for a in arrays]])
    assert out[0].tolist() == [1, 2, 0, 255] and out[1].tolist() == [7, 0, 255, 2]


@pytest.mark.oracle
def test_matches_the_oracle():
    pytest.importorskip("nvidia.dali")
    rng = np.random.default_rng(3)
    samples = [enc(rng.standard_normal((3, 4 + i)).astype(np.float32)) for i in range(3)]
    for kwargs in ({}, {"dtype": 6}):                 # INT32
        def build(fn, x, kwargs=kwargs):
            return fn.decoders.numpy(x, **kwargs)

        ours, = run_op(build, [samples])
        theirs, = run_op(build, [samples], real=True)
        for a, b in zip(ours, theirs, strict=True):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("samples,message", [
    ([enc(np.arange(3, dtype=np.int16)), enc(np.arange(3, dtype=np.float32))],
     "same data type"),
    ([enc(np.arange(3)), enc(np.arange(4).reshape(2, 2))], "same number of dimensions"),
    ([enc(np.arange(3), version=(2, 0))], "Only major version 1"),
    ([enc(np.arange(3))[:-2]], "Expected data numpy size 24 bytes does not match the actual "
                               "size 22"),
    ([np.frombuffer(b"not a numpy file at all", np.uint8)], "not a numpy file"),
    ([enc(np.arange(3, dtype=">i4"))], "Big Endian"),
])
def test_errors(samples, message):
    with pytest.raises(RuntimeError, match=message):
        run_op(lambda fn, x: fn.decoders.numpy(x), [samples])
