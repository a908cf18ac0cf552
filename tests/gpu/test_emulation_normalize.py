"""normalize.cu under the CPU emulation equals fn.normalize on the CPU bit for bit: random
batches over ranks, reduced axes (collapsed rows and planes of every width), input and output
types, computed, scalar and tensor mean/stddev, epsilon, ddof, batch statistics and empty
samples."""

import cases_normalize
import emulate
import gpu_cases
import numpy as np
import pytest

from dali import types as dali_types
from dali.ops.math import _normalize_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(42))
def test_normalize_kernel_equals_cpu(seed):
    case = cases_normalize.normalize_case(seed)
    gpu_cases.assert_same(cases_normalize.normalize_kernel(gpu_cases.emulated, *case),
                          cases_normalize.normalize_expected(*case))


@pytest.mark.parametrize("shape, reduced", [
    ((3, 100, 5), [False, True, False]),         # planes of 5 kept values: 12 partial sums
    ((2, 30, 70), [True, True, False]),          # kept extent above the CPU's block of 64
    ((4, 1000), [False, True]),                  # rows in eight partial sums
    ((5, 3, 4, 2), [True, False, True, False]),  # kept groups around a reduced one
])
def test_normalize_accumulation_order(shape, reduced):
    """Values whose double sums depend on the order of the additions: every parameter's
    elements hold as many 1e20 as -1e20 at random places among small integers, which are
    lost when added to a sum holding 1e20 (the mean is then wrong by their share).  The
    kernel adds them in the CPU kernel's order."""
    rng = np.random.default_rng(5)
    kept = [d for d, r in enumerate(reduced) if not r]
    axes = [d for d, r in enumerate(reduced) if r]
    order = kept + axes
    rows = rng.integers(1, 10, (int(np.prod([shape[d] for d in kept])),
                                int(np.prod([shape[d] for d in axes])))).astype(np.float32)
    for row in rows:
        at = rng.permutation(row.size)[:row.size // 4 * 2]
        row[at[::2]], row[at[1::2]] = 1e20, -1e20
    x = [np.ascontiguousarray(np.transpose(rows.reshape([shape[d] for d in order]),
                                           np.argsort(order)))]
    case = (x, reduced, {"dtype": dali_types.FLOAT, "scale": 1.0,
                         "shift": 0.0, "axes": axes}, {})
    gpu_cases.assert_same(cases_normalize.normalize_kernel(gpu_cases.emulated, *case),
                          cases_normalize.normalize_expected(*case))


def test_normalize_row_partial_sums():
    """A row's eight partial sums are combined as ((a0 + a1) + (a2 + a3)) + ((a4 + a5) +
    (a6 + a7)): with these values another grouping gives another mean."""
    x = [np.float32([[1, 2, 1e20, 4, -1e20, 8, 16, 32, 64, 5, 7],
                     [1e20, 3, 5, -1e20, 1, 1, 1e20, -1e20, 2, 9, 9]])]
    case = (x, [False, True], {"dtype": dali_types.FLOAT, "scale": 1.0,
                               "shift": 0.0, "axes": [1]}, {})
    gpu_cases.assert_same(cases_normalize.normalize_kernel(gpu_cases.emulated, *case),
                          cases_normalize.normalize_expected(*case))


@pytest.mark.parametrize("dtype", cases_normalize.TYPES, ids=str)
def test_normalize_conversions(dtype):
    """Saturation at both ends of every output type, halves, NaN and infinities."""
    x = [np.float32([[np.nan, np.inf, -np.inf, 1e12, -1e12, 2.5, -2.5, 0.5, -0.5, 1.5, 0,
                      4294967295, 2147483647, -2147483648, 8388609, 255.5, -128.5]])]
    case = (x, [True, True], {"dtype": dali_types.to_dali_type(dtype),
                              "scale": 1.0, "shift": 0.0, "mean": 0.0, "stddev": 1.0}, {})
    gpu_cases.assert_same(cases_normalize.normalize_kernel(gpu_cases.emulated, *case),
                          cases_normalize.normalize_expected(*case))


def test_normalize_descriptor():
    launch, out = _normalize_gpu.launches([(2, 1, 3, 4)], [True, True, False, False],
                                          np.uint8, np.int16)
    row = launch.samples[0]
    assert list(row[3:11]) == [24, 12, 2, 2, 0, 24, 2, 12]   # size .. K: a 2 x 12 plane
    assert list(launch.poff) == [0, 12]
    assert (launch.kernel, out.kernel) == ("normalize_stats_u8", "normalize_out_u8_i16")
    with pytest.raises(ValueError, match="no kernel for float64"):
        _normalize_gpu.launches([(2, 2)], [True, False], np.float32, np.float64)
    with pytest.raises(ValueError, match="one flag each"):
        _normalize_gpu.launches([(2, 2)], [True], np.float32, np.float32)
