"""color.cu's linear kernels under the CPU emulation equal fn.color_twist, fn.hsv, fn.hue and
fn.saturation on the CPU: random RGB batches over layouts (per-frame arguments on sequences),
input and output types (float16 included; integers over their whole range, floats with
infinities and NaN), constant, per-sample and per-frame arguments, empty samples."""

import cases_color
import emulate
import gpu_cases
import numpy as np
import pytest

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("op", sorted(cases_color.TWIST_OPS))
@pytest.mark.parametrize("seed", range(15))
def test_color_twist_kernel_equals_cpu(op, seed):
    case = cases_color.linear_case(seed, op)
    gpu_cases.assert_same(cases_color.linear_kernel(gpu_cases.emulated, *case),
                          cases_color.linear_expected(*case))


def test_color_twist_known_values():
    """saturation 0 makes every channel the luma (0.299, 0.587, 0.114 weights, to DALI's
    rounded YIQ matrix); hue 0 keeps
    the pixel; float16 output."""
    x = [np.array([[[100, 100, 100], [255, 0, 0]]], np.float32)]
    got = cases_color.linear_kernel(gpu_cases.emulated, x, "HWC", "saturation",
                                    {"saturation": ("const", 0.0)}, np.float16)[0]
    np.testing.assert_allclose(got[0, 1], [255 * 0.299] * 3, atol=0.5)
    np.testing.assert_allclose(got[0, 0], [100] * 3, atol=0.5)
    assert got.dtype == np.float16
    got = cases_color.linear_kernel(gpu_cases.emulated, [x[0].astype(np.uint8)], "HWC", "hue",
                                    {"hue": ("const", 0.0)}, None)[0]
    np.testing.assert_array_equal(got, x[0])
