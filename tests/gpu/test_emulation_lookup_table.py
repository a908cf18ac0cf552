"""lookup_table.cu under the CPU emulation equals fn.lookup_table on the CPU: every integer
input type (keys at the type's limits, inside and outside the table), output types of every
size (values rounded, saturated, float16, bool), tables of 0 to 65536 keys, empty samples."""

import cases_color
import emulate
import gpu_cases
import numpy as np
import pytest

from dali import types as dali_types
from dali.ops.color import _lookup_table_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(36))
def test_lookup_table_kernel_equals_cpu(seed):
    case = cases_color.lookup_case(seed)
    gpu_cases.assert_same(cases_color.lookup_kernel(gpu_cases.emulated, *case),
                          cases_color.lookup_expected(*case))


def test_lookup_table_known_values():
    """Keys 0..2 map to their values, others (negative, past the table) to the default."""
    x = [np.array([[0, 1, 2, 3, -1, 2**31 - 1]], np.int32)]
    args = {"keys": [0, 1, 2], "values": [10.0, 20.5, -3.0], "default_value": 7.0,
            "dtype": dali_types.FLOAT}
    got = cases_color.lookup_kernel(gpu_cases.emulated, x, args)[0]
    np.testing.assert_array_equal(got, [[10, 20.5, -3, 7, 7, 7]])


def test_lookup_launch_validates():
    with pytest.raises(ValueError, match="has 256 entries"):
        _lookup_table_gpu.launch(4, np.uint8, np.zeros(10, np.float32), np.zeros(1, np.float32))
    with pytest.raises(ValueError, match="no kernel from float32"):
        _lookup_table_gpu.launch(4, np.float32, np.zeros(10, np.float32),
                                 np.zeros(1, np.float32))
