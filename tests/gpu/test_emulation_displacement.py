"""fn.sphere and fn.water on the emulated device (the kernels of jitter.cu) equal them on the
CPU, bit for bit: uint8 and float images (empty samples too), NN and linear, fill values,
per-sample masks, random waves, and an empty batch (fn.jitter too); water's wave terms are
those of the CPU kernel's loop."""

import cases_image
import numpy as np
import pytest

from dali._ext.kernels import displace as _displace
from dali.ops.image import _jitter_gpu


@pytest.mark.parametrize("op", ["sphere", "water"])
@pytest.mark.parametrize("seed", range(8))
def test_displacement_equals_cpu(emulated_gpu, op, seed):
    cases_image.check_equal(cases_image.displace_case(seed, op))
    assert f"{op}_{('u8', 'f32')[seed % 2]}" in emulated_gpu.launches


@pytest.mark.parametrize("op", ["sphere", "water", "jitter"])
def test_displacement_empty_batch(emulated_gpu, op):
    case = cases_image.displace_case(1, op) if op != "jitter" else \
        (lambda fn, x, m: fn.jitter(x, mask=m), cases_image.displace_case(1, "sphere")[1],
         ["HWC", None])
    cases_image.check_equal(case, empty=True)
    assert not any(k.startswith(op) for k in emulated_gpu.launches)


def test_water_waves_are_the_kernels():
    """The wave terms shift pixels as the CPU kernel does: a 1-row image whose columns read
    x + waves[0], with nearest neighbour."""
    wave = (2.5, 0.3, 0.7, 1.0, 0.2, -0.4)
    waves = _displace.water_waves([(3, 4, 1), (0, 2, 1)], wave)
    assert waves.dtype == np.float32 and waves.shape == (3 + 4 + 0 + 2,)
    f = np.float32
    np.testing.assert_allclose(waves[:3], f(2.5) * np.sin(f(0.3) * np.arange(3, dtype=f) +
                                                          f(0.7)), rtol=1e-6)
    np.testing.assert_allclose(waves[7:], f(1.0) * np.cos(f(0.2) * np.arange(2, dtype=f) -
                                                          f(0.4)), rtol=1e-6)


def test_displacement_launch():
    launch = _jitter_gpu.launch([(3, 4, 1), (2, 5, 3)], [1, 0], None, np.float32, mode="water")
    assert launch.kernel == "water_f32"
    assert launch.samples[:, 5].tolist() == [0, 7] and launch.samples[:, 6].tolist() == [1, 0]
    empty = _jitter_gpu.launch(np.zeros((0, 3), np.int64), [], None, np.uint8, mode="sphere")
    assert empty.grid[1] == 0 and empty.samples.shape == (1, _jitter_gpu.FIELDS)
    with pytest.raises(ValueError, match="'swirl'"):
        _jitter_gpu.launch([(2, 2, 3)], [1], None, np.uint8, mode="swirl")
