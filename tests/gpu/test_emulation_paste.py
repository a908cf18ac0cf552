"""fn.paste on the emulated device (its window copy is a launch of slice.cu) equals fn.paste on
the CPU: random uint8 batches (empty samples too), constant and per-sample ratios, positions
and minimum canvas sizes, one fill value or one per channel, and an empty batch."""

import cases_image
import pytest


@pytest.mark.parametrize("seed", range(10))
def test_paste_equals_cpu(emulated_gpu, seed):
    cases_image.check_equal(cases_image.paste_case(seed))
    assert "slice_copy_1" in emulated_gpu.launches


def test_paste_empty_batch(emulated_gpu):
    cases_image.check_equal(cases_image.paste_case(3), empty=True)
    assert "slice_copy_1" not in emulated_gpu.launches
