"""noise.noise_batch against rng.uniform / rng.normal: the same draws (streams 0 and 1, the
per-pixel grouping), chunked samples, whatever the pool; argument checks."""

import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool

from dali._ext import rng
from dali._ext.kernels import noise as kernel

KEY = rng.mix_key(99, 1)
SHAPES = [(5, 3), (0, 3), (kernel.CHUNK + 5, 3), (1, 3)]
IDS = np.array([4, 1, 2**33 + 2, 0], np.int64)


def _batch(dtype, fill=10):
    return BatchStorage.from_arrays([np.full(s, fill, dtype) for s in SHAPES])


def _out(dtype):
    return BatchStorage.from_arrays([np.zeros(s, dtype) for s in SHAPES])


def _params(*row):
    return np.tile(np.array(row + (0.0,) * (4 - len(row)), np.float64), (len(SHAPES), 1))


@pytest.mark.parametrize("per_pixel", [False, True])
def test_salt_and_pepper_uses_the_uniform_streams(per_pixel):
    src, dst = _batch(np.float32), _out(np.float32)
    groups = np.array([[3, 1]] * len(SHAPES)) if per_pixel else None
    kernel.noise_batch(None, src, dst, KEY, IDS, "salt_and_pepper", _params(0.4, 0.3, 1, -1),
                       groups)
    counts = np.array([np.prod(s) // (3 if per_pixel else 1) for s in SHAPES], np.int64)
    u = rng.uniform(KEY, IDS, counts, 0)
    v = rng.uniform(KEY, IDS, counts, 1)
    want = np.where(u < 0.4, np.where(v < 0.3, 1.0, -1.0), 10.0).astype(np.float32)
    if per_pixel:
        want = np.repeat(want, 3)
    np.testing.assert_array_equal(np.concatenate([s.ravel() for s in dst.samples()]), want)


def test_gaussian_uses_the_normal_stream_in_float32():
    src, dst = _batch(np.float32, 0.25), _out(np.float32)
    kernel.noise_batch(None, src, dst, KEY, IDS, "gaussian", _params(1.5, 2.0))
    counts = np.array([np.prod(s) for s in SHAPES], np.int64)
    z = rng.normal(KEY, IDS, counts, 0)
    want = np.float32(0.25) + (1.5 + 2.0 * z).astype(np.float32)
    np.testing.assert_array_equal(np.concatenate([s.ravel() for s in dst.samples()]), want)


@pytest.mark.parametrize("mode,params", [("gaussian", (0.0, 30.0)), ("shot", (3.0,)),
                                         ("salt_and_pepper", (0.5, 0.5, 255, 0))])
def test_pool_and_chunks_do_not_change_values(mode, params):
    src = _batch(np.uint8, 100)
    a, b = _out(np.uint8), _out(np.uint8)
    kernel.noise_batch(None, src, a, KEY, IDS, mode, _params(*params))
    kernel.noise_batch(ThreadPool(3), src, b, KEY, IDS, mode, _params(*params))
    for x, y in zip(a.samples(), b.samples(), strict=True):
        np.testing.assert_array_equal(x, y)
    assert (a.samples()[2] != 100).any()


def test_checks():
    src = _batch(np.uint8)
    with pytest.raises(TypeError, match="unsupported type"):
        kernel.noise_batch(None, _batch(np.float64), _out(np.float64), KEY, IDS, "shot",
                           _params(1.0))
    with pytest.raises(ValueError, match="unknown noise"):
        kernel.noise_batch(None, src, _out(np.uint8), KEY, IDS, "speckle", _params(1.0))
    with pytest.raises(ValueError, match="multiple of nc"):
        kernel.noise_batch(None, src, _out(np.uint8), KEY, IDS, "shot", _params(1.0),
                           np.array([[2, 1]] * len(SHAPES)))
    with pytest.raises(ValueError, match="one sample id"):
        kernel.noise_batch(None, src, _out(np.uint8), KEY, IDS[:2], "shot", _params(1.0))
