"""rank_filter.cu (fn.experimental.median_blur, dilate, erode) under the CPU emulation equals a
NumPy reference of CV-CUDA's MedianBlur and Morphology (and OpenCV's medianBlur, dilate and
erode where their semantics are the same), over random layouts, types, windows, anchors,
border modes and iterations, empty samples and an empty batch."""

import cases_rank_filter as cases
import cv2
import emulate
import numpy as np
import pytest
from gpu_cases import emulated

from dali.ops.filters import _rank_filter_gpu as _rank

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


def _assert_same(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("seed", range(10))
def test_median_kernel_equals_reference(seed):
    samples, layout, windows = cases.median_case(seed)
    _assert_same(cases.median_kernel(emulated, samples, layout, windows),
          cases.median_reference(samples, layout, windows))


@pytest.mark.parametrize("seed", range(15))
def test_morphology_kernel_equals_reference(seed):
    samples, layout, dilate, masks, anchors, iterations, border = cases.morphology_case(seed)
    _assert_same(cases.morphology_kernel(emulated, samples, layout, dilate, masks, anchors,
                                         iterations, border),
                 cases.morphology_reference(samples, layout, dilate, masks, anchors, iterations,
                                            border))


@pytest.mark.parametrize("ksize", [3, 5])
def test_median_equals_opencv(ksize):
    """cv2.medianBlur (replicated border) on uint8 and float32 images of 1, 3 and 4 channels."""
    rng = np.random.default_rng(ksize)
    for dtype, channels in ((np.uint8, 1), (np.uint8, 3), (np.float32, 4)):
        x = cases.random_sample(rng, "HWC", dtype, channels)
        got = cases.median_kernel(emulated, [x], "HWC", [[ksize, ksize]])[0]
        np.testing.assert_array_equal(got, cv2.medianBlur(x, ksize).reshape(x.shape))


@pytest.mark.parametrize("border, cv_border", [
    ("constant", cv2.BORDER_CONSTANT), ("replicate", cv2.BORDER_REPLICATE),
    ("reflect", cv2.BORDER_REFLECT), ("reflect_101", cv2.BORDER_REFLECT_101)])
@pytest.mark.parametrize("dilate", [True, False])
def test_morphology_equals_opencv(border, cv_border, dilate):
    """cv2.dilate / cv2.erode with a rectangular element, an anchor and the same border (the
    constant border as OpenCV's default, which does not count) on uint8 and uint16 images
    (OpenCV's morphology has no wrap border: the NumPy reference covers it)."""
    rng = np.random.default_rng(len(border))
    op = cv2.dilate if dilate else cv2.erode
    for dtype, (kw, kh), (ax, ay) in ((np.uint8, (3, 5), (0, 4)), (np.uint16, (4, 2), (-1, -1))):
        x = cases.random_sample(rng, "HWC", dtype, 3)
        x = np.ascontiguousarray(np.pad(x, ((5, 5), (5, 5), (0, 0))))    # larger than the mask
        anchor = [kw // 2 if ax < 0 else ax, kh // 2 if ay < 0 else ay]
        got = cases.morphology_kernel(emulated, [x], "HWC", dilate, [[kw, kh]], [anchor], 1,
                                      border)[0]
        expected = op(x, np.ones((kh, kw), np.uint8), anchor=(ax, ay), borderType=cv_border)
        np.testing.assert_array_equal(got, expected)


def test_float_dilation_starts_from_the_smallest_normal():
    """CV-CUDA starts a float dilation (and fills its constant border) with
    std::numeric_limits<float>::min(): negative images dilate to 1.18e-38."""
    x = -np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    got = cases.morphology_kernel(emulated, [x], "HW", True, [[3, 3]], [[1, 1]], 1,
                                  "replicate")[0]
    np.testing.assert_array_equal(got, np.full_like(x, np.finfo(np.float32).tiny))
    eroded = cases.morphology_kernel(emulated, [x], "HW", False, [[3, 3]], [[1, 1]], 1,
                                     "constant")[0]
    assert eroded[0, 0] == -6 and eroded[2, 3] == -12


def test_iterations_zero_copies_and_several_chain():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((9, 7, 2)) * 10).astype(np.float32)
    np.testing.assert_array_equal(
        cases.morphology_kernel(emulated, [x], "HWC", True, [[3, 3]], [[1, 1]], 0, "wrap")[0], x)
    program = _rank.morphology(False, cases.geometry([x], "HWC"), [[3, 3]], [[1, 1]], 3,
                               "reflect", x.dtype, dst_nbytes=x.nbytes)
    targets = [launch.args[:2] for launch in program.launches]
    assert targets == [("src", "dst"), ("dst", "tmp"), ("tmp", "dst")]
    assert program.temps == {"tmp": x.nbytes}


def test_empty_batch_and_empty_samples_launch_nothing():
    assert _rank.median(np.zeros((0, 6), np.int64), np.zeros((0, 2)), np.uint8).launches == []
    geo = cases.geometry([np.zeros((0, 4, 3), np.uint8)], "HWC")
    program = _rank.morphology(True, geo, [[3, 3]], [[1, 1]], 2, "constant", np.uint8)
    assert [launch.grid for launch in program.launches] == [(1, 1, 1), (1, 1, 1)]


def test_large_plane_uses_grid_stride():
    x = np.arange(_rank.BLOCK * _rank.MAX_BLOCKS_X + 77, dtype=np.float32).reshape(1, -1)
    got = cases.median_kernel(emulated, [x], "HW", [[3, 1]])[0]
    np.testing.assert_array_equal(got, x)


def test_launch_checks():
    geo = cases.geometry([np.zeros((4, 4), np.uint8)], "HW")
    with pytest.raises(ValueError, match="odd"):
        _rank.median(geo, [[2, 3]], np.uint8)
    with pytest.raises(ValueError, match="no kernel for int32"):
        _rank.median(geo, [[3, 3]], np.int32)
    with pytest.raises(ValueError, match="anchors inside"):
        _rank.morphology(True, geo, [[3, 3]], [[3, 0]], 1, "wrap", np.uint8)
    with pytest.raises(ValueError, match="expected 1 windows"):
        _rank.morphology(True, geo, [[3, 3], [3, 3]], [[1, 1]], 1, "wrap", np.uint8)
    with pytest.raises(ValueError, match="border mode"):
        _rank.morphology(True, geo, [[3, 3]], [[1, 1]], 1, "mirror", np.uint8)
