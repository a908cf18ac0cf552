"""crop_mirror_normalize.cu under the CPU emulation equals fn.crop_mirror_normalize on the
CPU, bit for bit: random batches over input and output types, layouts and output layouts,
windows inside and outside the input (pad and trim_to_shape), mirror per sample, mean/std,
scale/shift, fill values and pad_output."""

import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.image import _crop_mirror_normalize_gpu as _cmn_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(24))
def test_cmn_kernel_equals_cpu(seed):
    case = gpu_cases.cmn_case(seed)
    expected = gpu_cases.cmn_expected(*case)
    got = gpu_cases.cmn_kernel(gpu_cases.emulated, *case)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


def test_cmn_conversions_round_and_saturate():
    """Values at the edges of the conversions (halves, saturation, NaN, float16 overflow and
    subnormals) against numpy and the CPU operator: integers round half away from zero."""
    values = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 254.5, 255.5, 300, -300, 127.5, -128.5,
                       np.nan, 65519, 65520, 1e-7, 3e-5, -6e-8, np.inf], np.float32)
    halves = np.nan_to_num(np.sign(values) * np.floor(np.abs(values) + 0.5), nan=0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = {np.uint8: np.clip(halves, 0, 255).astype(np.uint8),
                    np.int8: np.clip(halves, -128, 127).astype(np.int8),
                    np.float16: values.astype(np.float16)}
    for out, expect in expected.items():
        case = ([values.reshape(1, -1, 1)], "HWC", np.zeros(1, np.int32),
                {"crop": [1.0, float(values.size)], "crop_pos_x": 0.0, "crop_pos_y": 0.0,
                 "mean": [0.0], "std": [1.0], "scale": 1.0, "shift": 0.0, "dtype": out,
                 "output_layout": "HWC", "pad_output": False,
                 "out_of_bounds_policy": "error", "fill_values": [0.0]})
        got = gpu_cases.cmn_kernel(gpu_cases.emulated, *case)[0].reshape(-1)
        np.testing.assert_array_equal(got, expect)
        np.testing.assert_array_equal(got, gpu_cases.cmn_expected(*case)[0].reshape(-1))


def test_cmn_kernel_names():
    assert _cmn_gpu.kernel_name(np.uint8, np.float16) == "cmn_u8_f16"
    with pytest.raises(ValueError, match="float64"):
        _cmn_gpu.kernel_name(np.float64, np.float32)
