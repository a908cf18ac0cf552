"""lookup_table.cu on a real device (CuPy, dali._gpu.modules) equals fn.lookup_table on the
CPU; skipped without CuPy and a CUDA device."""

import cases_color
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(36))
def test_lookup_table_on_device_equals_cpu(seed):
    case = cases_color.lookup_case(seed)
    gpu_cases.assert_same(cases_color.lookup_kernel(gpu_cases.on_device, *case),
                          cases_color.lookup_expected(*case))
