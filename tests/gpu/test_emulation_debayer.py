"""debayer.cu under the emulated device equals fn.debayer's bilinear rule on the CPU: uint8
and uint16 mosaics in HW, HWC, FHW and FHWC, 2-pixel (black) images, blue positions constant,
per sample or per frame, "default_npp" (the GPU's default) giving the CPU's bilinear values,
fn.experimental.debayer, an empty batch; the launch's checks and the algorithms the GPU does
not implement."""

import warnings

import cases_image
import numpy as np
import pytest

from dali import fn, pipeline_def
from dali.ops.color import _debayer_gpu


@pytest.mark.parametrize("seed", range(12))
def test_debayer_equals_cpu(emulated_gpu, seed):
    cases_image.check_equal(cases_image.debayer_case(seed))
    assert emulated_gpu.launches[-1] == ("debayer_u8", "debayer_u16")[seed // 4 % 2]


def test_experimental_debayer_equals_cpu(emulated_gpu):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cases_image.check_equal(cases_image.debayer_case(3, "experimental.debayer"))
    assert "debayer_u8" in emulated_gpu.launches


def test_debayer_empty_batch(emulated_gpu):
    cases_image.check_equal(cases_image.debayer_case(1), empty=True)
    assert "debayer_u8" not in emulated_gpu.launches


def test_debayer_other_algorithms_not_on_gpu(emulated_gpu):
    @pipeline_def(batch_size=1, num_threads=1, device_id=0)
    def pipe():
        x = fn.external_source(source=lambda: [np.zeros((4, 4), np.uint8)], batch=True,
                               layout="HW")
        return fn.debayer(x.gpu(), blue_position=[0, 0], algorithm="vng_ocv")

    with pytest.raises(NotImplementedError, match=r"debayer.*`vng_ocv` algorithm"):
        pipe().build()


def test_debayer_launch_checks():
    launch = _debayer_gpu.launch(np.uint16, [4], [0], [(2, 4)], [(1, 0)])
    assert launch.kernel == "debayer_u16" and launch.images[0].tolist() == [2, 0, 2, 4, 1, 0]
    with pytest.raises(ValueError, match="bad image size"):
        _debayer_gpu.launch(np.uint8, [0], [0], [(3, 4)], [(0, 0)])
    with pytest.raises(ValueError, match="one entry per image"):
        _debayer_gpu.launch(np.uint8, [0], [0], [(2, 4)], [(0, 0), (1, 1)])
    with pytest.raises(ValueError, match="float32"):
        _debayer_gpu.launch(np.float32, [0], [0], [(2, 4)], [(0, 0)])
    empty = _debayer_gpu.launch(np.uint8, [], [], np.zeros((0, 2)), np.zeros((0, 2)))
    assert empty.grid[1] == 0 and empty.images.shape == (1, _debayer_gpu.FIELDS)
