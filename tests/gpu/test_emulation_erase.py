"""erase.cu under the CPU emulation equals fn.erase on the CPU: random batches over layouts,
element types, regions (constant or per sample, pixels or normalized, centred, inside or
across the border), axes and fill values."""

import cases_geometry
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.image import _erase_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(30))
def test_erase_kernel_equals_cpu(seed):
    case = cases_geometry.erase_case(seed)
    got, expected = cases_geometry.erase_compare(gpu_cases.emulated, *case)
    gpu_cases.assert_same(got, expected)


def test_erase_launch_validates():
    with pytest.raises(ValueError, match="1 to 8 dimensions"):
        _erase_gpu.launch([(1,) * 9], np.uint8, np.zeros((0, 2, 9)), [0, 0], [[0]])
    with pytest.raises(ValueError, match="per-channel fill values"):
        _erase_gpu.launch([(2, 2, 3)], np.uint8, np.zeros((0, 2, 3)), [0, 0],
                          [[1, 2]], channel_axis=2)
    with pytest.raises(ValueError, match="3-byte"):
        _erase_gpu.launch([(2, 2)], np.dtype("V3"), np.zeros((0, 2, 2)), [0, 0], [[b"abc"]])
