"""arithmetic.cu on a real device (CuPy, dali._gpu.modules) equals the arithmetic operator on
the CPU: the emulation's random expressions bit for bit; the transcendental functions within
the emulation's ULP tolerance plus CUDA's documented maximum error (`cases_math.CUDA_ULPS`:
libdevice and NumPy each round their own way); skipped without CuPy and a CUDA device."""

import cases_math
import gpu_cases
import numpy as np
import pytest
from test_emulation_arithmetic import COMPARE_OPS, INTEGER_OPS, check_equal

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(48))
def test_expression_on_device_equals_cpu(seed):
    check_equal(cases_math.arith_case(seed), cases_math.on_device)


@pytest.mark.parametrize("seed", range(16))
def test_integer_and_comparison_expressions_on_device(seed):
    check_equal(cases_math.arith_case(1000 + seed, INTEGER_OPS), cases_math.on_device)
    check_equal(cases_math.arith_case(2000 + seed, COMPARE_OPS), cases_math.on_device)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("name", [*cases_math.MATH_FUNCTIONS, "pow", "fpow", "atan2", "mod"])
def test_math_function_on_device_within_ulps(name, dtype):
    case = cases_math.math_case(7, name, dtype)
    expected = cases_math.arith_expected(case)
    if isinstance(expected, int) or expected[0].dtype.kind != "f":
        check_equal(case, cases_math.on_device)
        return
    got, _ = cases_math.arith_kernel(cases_math.on_device, case)
    out = expected[0].dtype
    key = name.replace("fpow", "pow")
    tolerance = cases_math.EMULATION_ULPS[out].get(key, 0) + cases_math.CUDA_ULPS[out].get(key, 0)
    assert gpu_cases.max_ulps(got[0], expected[0]) <= tolerance
