"""one_hot.cu under the CPU emulation equals fn.one_hot on the CPU: random batches over index
types (out-of-range, fractional, NaN and infinite indices), output types (on/off values that
wrap or saturate), ranks, axes, class counts (0 too) and empty samples."""

import cases_one_hot
import emulate
import gpu_cases
import numpy as np
import pytest

from dali import types as dali_types
from dali.ops.tensor import _one_hot_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(30))
def test_one_hot_kernel_equals_cpu(seed):
    case = cases_one_hot.one_hot_case(seed)
    gpu_cases.assert_same(cases_one_hot.one_hot_kernel(gpu_cases.emulated, *case),
                          cases_one_hot.one_hot_expected(*case))


def test_one_hot_known_values():
    """Float indices truncate toward zero (-0.5 is class 0, 2.99 class 2); 3 and NaN are no
    class; 1 and -1 as int8 output."""
    x = [np.float32([-0.5, 2.99, 3, np.nan, -1.0])]
    args = {"num_classes": 3, "axis": -1, "dtype": dali_types.INT8,
            "on_value": 1.0, "off_value": -1.0}
    got = cases_one_hot.one_hot_kernel(gpu_cases.emulated, x, args)[0]
    np.testing.assert_array_equal(got, [[1, -1, -1], [-1, -1, 1], [-1, -1, -1],
                                        [-1, -1, -1], [-1, -1, -1]])


def test_one_hot_launch_validates():
    with pytest.raises(ValueError, match="no kernel from float16"):
        _one_hot_gpu.launch([1], [2], 3, 1, 0, np.float16, 4)
    with pytest.raises(ValueError, match="3-byte"):
        _one_hot_gpu.launch([1], [2], 3, 1, 0, np.int32, 3)
    with pytest.raises(ValueError, match="one value per sample"):
        _one_hot_gpu.launch([1, 2], [2], 3, 1, 0, np.int32, 4)
