"""boxes.cu and coords.cu on a real device (CuPy, dali._gpu.modules) equal fn.bb_flip,
fn.coord_flip and fn.coord_transform on the CPU; skipped without CuPy and a CUDA device."""

import cases_boxes
import gpu_cases
import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(16))
def test_bb_flip_on_device_equals_cpu(seed):
    expected, got = cases_boxes.bb_flip_run(gpu_cases.on_device, *cases_boxes.bb_flip_case(seed))
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("seed", range(16))
def test_coord_flip_on_device_equals_cpu(seed):
    expected, got = cases_boxes.coord_flip_run(gpu_cases.on_device,
                                               *cases_boxes.coord_flip_case(seed))
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("seed", range(24))
def test_coord_transform_on_device_equals_cpu(seed):
    expected, got = cases_boxes.coord_transform_run(gpu_cases.on_device,
                                                    *cases_boxes.coord_transform_case(seed))
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("seed", range(18))
def test_box_encoder_on_device_equals_cpu(seed):
    """Labels and (cx, cy, w, h) exact; the offsets of w and h go through CUDA's logf (at most
    1 ulp from the CPU's glibc logf, then one division): within 2 ulp."""
    expected, got = cases_boxes.box_encoder_run(gpu_cases.on_device,
                                                *cases_boxes.box_encoder_case(seed))
    gpu_cases.assert_same(got[1], expected[1])
    for g, e in zip(got[0], expected[0], strict=True):
        np.testing.assert_array_max_ulp(g, e, maxulp=2)
