"""remap.cu (fn.experimental.remap) under the CPU emulation equals a NumPy reference of its
float32 arithmetic over random types, channels, sequences (maps per frame or per sequence),
interpolations, pixel origins and maps reaching past the image, with empty samples; and equals
cv2.remap (BORDER_CONSTANT 0) with the "center" pixel origin, as DALI documents."""

import cases_remap as cases
import cv2
import emulate
import numpy as np
import pytest
from gpu_cases import emulated

from dali.ops.geometry import _remap_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(16))
def test_remap_kernel_equals_reference(seed):
    case = cases.case(seed)
    got = cases.kernel(emulated, *case)
    expected = cases.reference(*case)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("channels", [1, 3])
def test_center_origin_matches_opencv(channels):
    """Nearest neighbour equals cv2.remap's away from exact half-pixel ties (OpenCV rounds them
    to even); linear is within one unit of OpenCV's (its 5-bit fixed-point weights for uint8)
    and within 1e-3 for float32."""
    rng = np.random.default_rng(channels)
    x = rng.integers(0, 256, (13, 17, channels)).astype(np.uint8)
    mx = rng.uniform(-2, 18, (13, 17)).astype(np.float32)
    my = rng.uniform(-2, 14, (13, 17)).astype(np.float32)
    mx[np.abs(mx - np.round(mx) ) == 0.5] += 0.01
    border = {"borderMode": cv2.BORDER_CONSTANT, "borderValue": 0}
    nn = cases.kernel(emulated, [x], [mx], [my], [False], False, "center")[0]
    np.testing.assert_array_equal(
        nn, cv2.remap(x, mx, my, cv2.INTER_NEAREST, **border).reshape(x.shape))
    lin = cases.kernel(emulated, [x], [mx], [my], [False], True, "center")[0]
    cv_lin = cv2.remap(x, mx, my, cv2.INTER_LINEAR, **border).reshape(x.shape)
    assert np.abs(lin.astype(int) - cv_lin.astype(int)).max() <= 1
    xf = x.astype(np.float32)
    got = cases.kernel(emulated, [xf], [mx], [my], [False], True, "center")[0]
    np.testing.assert_allclose(
        got, cv2.remap(xf, mx, my, cv2.INTER_LINEAR, **border).reshape(x.shape), atol=1e-3)


def test_corner_origin_reads_the_pixel_under_the_coordinate():
    """With the "corner" origin a map value in [k, k + 1) picks pixel k (nearest), and k + 0.5
    reads pixel k exactly (linear)."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4, 1)
    mx = np.array([[0.0, 1.99, 2.5, 3.5]] * 3, np.float32)
    my = np.array([[0.5] * 4, [1.2] * 4, [2.5] * 4], np.float32)
    nn = cases.kernel(emulated, [x], [mx], [my], [False], False, "corner")[0][..., 0]
    np.testing.assert_array_equal(nn, [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]])
    lin = cases.kernel(emulated, [x], [mx], [my], [False], True, "corner")[0][..., 0]
    np.testing.assert_array_equal(lin[2, 2:], [10, 11])
    assert lin[0, 0] == 0 and lin[2, 0] == 4      # half of pixel (2, 0) = 8, half of 0 outside


def test_empty_batch_and_launch_checks():
    launch = _remap_gpu.launch(np.zeros((0, 3), np.int64), [], np.uint8, True, "corner")
    assert launch.parts.shape == (0, _remap_gpu.FIELDS)
    with pytest.raises(ValueError, match="no kernel for int32"):
        _remap_gpu.launch([(2, 2, 1)], [False], np.int32, True, "corner")
    with pytest.raises(ValueError, match="pixel origin"):
        _remap_gpu.launch([(2, 2, 1)], [False], np.uint8, True, "middle")
    with pytest.raises(ValueError, match="HWC or FHWC"):
        _remap_gpu.launch([(2, 2)], [False], np.uint8, True, "corner")
