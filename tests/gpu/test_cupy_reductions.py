"""reductions.cu on a real device (CuPy, dali._gpu.modules) equals fn.reductions.* on the CPU
bit for bit (the same double sums in the same order, correctly rounded division and square
root); skipped without CuPy and a CUDA device."""

import cases_math
import pytest
from test_emulation_reductions import check_equal

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("op", cases_math.REDUCTIONS)
@pytest.mark.parametrize("seed", range(8))
def test_reduction_on_device_equals_cpu(op, seed):
    check_equal(cases_math.reduce_case(seed, op), cases_math.on_device)
