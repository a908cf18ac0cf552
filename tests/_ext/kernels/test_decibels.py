"""The decibel kernel's AVX2 and SSE paths: the same bits for every element (lengths around
the vector widths, all float magnitudes, zeros, infinity, NaN, a given and a per-sample
reference)."""
import numpy as np
import pytest
from dali._ext.tensor_storage import BatchStorage

from dali._ext.kernels import decibels


@pytest.fixture
def restore():
    before = decibels.avx2()
    yield
    decibels.avx2(before)


def convert(batch, **kwargs):
    src = BatchStorage.from_arrays(batch)
    dst = BatchStorage.from_arrays([np.empty_like(x) for x in batch])
    decibels.decibels_batch(None, src, dst, kwargs.get("multiplier", 10.0),
                            kwargs.get("reference", 0.0), kwargs.get("cutoff_db", -200.0))
    return [x.copy() for x in dst.samples()]


@pytest.mark.parametrize("kwargs", [{}, {"reference": 3.0, "multiplier": 20.0},
                                    {"cutoff_db": -60.0}, {"cutoff_db": -500.0}])
def test_avx2_and_sse_agree_bit_for_bit(restore, kwargs):
    if not decibels.avx2():
        pytest.skip("the CPU has no AVX2")
    rng = np.random.default_rng(len(kwargs))
    batch = [(rng.random(n) * 10.0 ** rng.uniform(-40, 38, n)).astype(np.float32)
             for n in (1, 7, 8, 9, 15, 16, 17, 31, 33, 257, 1000)]
    batch.append(np.float32([0, 1, np.inf, 2, 0, 5, 1e-42, 3, 4, 1e30, np.nan, 7, 8, 9, 1, 2]))
    batch.append(np.zeros(19, np.float32))
    paths = []
    for on in (False, True):
        decibels.avx2(on)
        assert decibels.avx2() == on
        paths.append(convert(batch, **kwargs))
    for a, b in zip(*paths, strict=True):
        assert a.tobytes() == b.tobytes()
