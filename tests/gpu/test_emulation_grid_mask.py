"""grid_mask.cu under the emulated device equals fn.grid_mask on the CPU: uint8, int16, int32
and float images (empty samples too), constant and per-sample tiles, ratios, angles and
shifts, an empty batch; the grid constants are the CPU kernel's; the launch's checks."""

import cases_image
import numpy as np
import pytest

from dali._ext.kernels import grid_mask as _kernel
from dali.ops.image import _grid_mask_gpu


@pytest.mark.parametrize("seed", range(12))
def test_grid_mask_equals_cpu(emulated_gpu, seed):
    cases_image.check_equal(cases_image.grid_mask_case(seed))
    assert any(k.startswith("grid_mask_") for k in emulated_gpu.launches)


def test_grid_mask_empty_batch(emulated_gpu):
    cases_image.check_equal(cases_image.grid_mask_case(1), empty=True)
    assert not any(k.startswith("grid_mask_") for k in emulated_gpu.launches)


def test_grid_geometry_is_the_cpu_kernels():
    """The constants: cosine and sine of the angle and the shifts over the tile, the ratio."""
    rng = np.random.default_rng(0)
    angle = rng.uniform(-4, 4, 50).astype(np.float32)
    g = _kernel.grid_geometry(7, 0.4, angle, 1.5, -2.0)
    assert g.shape == (50, 5) and g.dtype == np.float32
    np.testing.assert_allclose(g[:, 0], np.cos(angle.astype(np.float64)) / 7, rtol=1e-6)
    np.testing.assert_array_equal(g[:, 2], np.float32(1.5) / np.float32(7))
    np.testing.assert_array_equal(g[:, 4], np.float32(0.4))


def test_grid_mask_launch_checks():
    launch = _grid_mask_gpu.launch([(2, 3, 4)], np.ones((1, 5)), 2, [8], [0])
    assert launch.kernel == "grid_mask_2" and launch.samples[0].tolist() == [4, 0, 2, 3, 4]
    with pytest.raises(ValueError, match="8-byte"):
        _grid_mask_gpu.launch([(2, 3, 4)], np.ones((1, 5)), 8, [0], [0])
    with pytest.raises(ValueError, match="multiples"):
        _grid_mask_gpu.launch([(2, 3, 4)], np.ones((1, 5)), 4, [2], [0])
    with pytest.raises(ValueError, match=r"\(n, 5\)"):
        _grid_mask_gpu.launch([(2, 3, 4)], np.ones((2, 5)), 4, [0], [0])
