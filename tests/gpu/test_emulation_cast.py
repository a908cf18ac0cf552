"""cast.cu under the CPU emulation equals fn.cast on the CPU for all 144 pairs of types, on
the edge values of every conversion (halves, limits, infinities, NaN, float16 overflow and
subnormals) and random values at several scales."""

import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.tensor import _cast_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("src", gpu_cases.CAST_TYPES, ids=str)
def test_cast_kernel_equals_cpu(src):
    samples = gpu_cases.cast_case(7, src)
    for dst in gpu_cases.CAST_TYPES:
        gpu_cases.assert_same(gpu_cases.cast_kernel(gpu_cases.emulated, samples, dst),
                              gpu_cases.cast_expected(samples, dst))


def test_cast_known_values():
    """A few conversions stated in cast.cu's header, independent of the CPU operator."""
    x = [np.array([0.5, -0.5, 2.5, 300.0, -300.0, np.nan, np.inf], np.float32)]
    got = gpu_cases.cast_kernel(gpu_cases.emulated, x, np.uint8)[0]
    np.testing.assert_array_equal(got, [1, 0, 3, 255, 0, 0, 255])
    got = gpu_cases.cast_kernel(gpu_cases.emulated, x, np.int32)[0]
    np.testing.assert_array_equal(got, [1, -1, 3, 300, -300, -2**31, 2**31 - 1])
    got = gpu_cases.cast_kernel(gpu_cases.emulated, x, np.bool_)[0]
    np.testing.assert_array_equal(got, [True, True, True, True, True, True, True])
    got = gpu_cases.cast_kernel(gpu_cases.emulated, [np.array([70000, -5], np.int64)],
                                np.float16)[0]
    np.testing.assert_array_equal(got, np.array([np.inf, -5], np.float16))


def test_cast_grid_stride_and_names():
    n = _cast_gpu.BLOCK * _cast_gpu.MAX_BLOCKS + 1001
    x = [np.arange(n, dtype=np.int32).reshape(-1, 1)]
    got = gpu_cases.cast_kernel(gpu_cases.emulated, x, np.int16)[0]
    np.testing.assert_array_equal(got, np.minimum(x[0], 32767).astype(np.int16))
    assert _cast_gpu.launch(10, np.float16, np.uint64).kernel == "cast_f16_u64"
    with pytest.raises(ValueError, match="complex64"):
        _cast_gpu.kernel_name(np.complex64, np.float32)
