"""convolution.cu under the CPU emulation equals fn.gaussian_blur, fn.laplacian and fn.filter
on the CPU, bit for bit: random batches over layouts (channels first or last, sequences,
volumes, no layout), element types, output types, per-sample and per-frame argument inputs,
border modes, "same" and "valid" modes and empty samples."""

import cases_filters
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.filters import _convolution_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(20))
def test_gaussian_blur_kernels_equal_cpu(seed):
    expected, got = cases_filters.gaussian_run(gpu_cases.emulated,
                                               *cases_filters.gaussian_case(seed))
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("seed", range(18))
def test_laplacian_kernels_equal_cpu(seed):
    expected, got = cases_filters.laplacian_run(gpu_cases.emulated,
                                                *cases_filters.laplacian_case(seed))
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("seed", range(20))
def test_filter_kernel_equals_cpu(seed):
    expected, got = cases_filters.filter_run(gpu_cases.emulated, *cases_filters.filter_case(seed))
    gpu_cases.assert_same(got, expected)


def test_filter_rounds_halves_to_even():
    """Integer outputs are rounded half to even before the conversion (OpenCV's cvRound): a
    filter of 0.5 makes every odd value a tie."""
    x = np.arange(0, 64, dtype=np.uint8).reshape(8, 8, 1)
    expected, got = cases_filters.filter_run(
        gpu_cases.emulated, [x], "HWC", [np.array([[0.5]], np.float32)], False, None,
        {"border": "reflect_101", "mode": "same"})
    gpu_cases.assert_same(got, expected)
    np.testing.assert_array_equal(got[0][0, :4, 0], [0, 0, 1, 2])


def test_gaussian_large_part_uses_grid_stride():
    """A part larger than MAX_BLOCKS_X blocks cover: the grid-stride loop reaches all of it."""
    x = np.random.default_rng(0).integers(0, 256, (520, 520, 1), dtype=np.uint8)
    assert x.size > _convolution_gpu.BLOCK * _convolution_gpu.MAX_BLOCKS_X
    expected, got = cases_filters.gaussian_run(gpu_cases.emulated, [x], "HWC",
                                               {"sigma": [1.0]}, {})
    gpu_cases.assert_same(got, expected)


def test_separable_program_passes_and_scratch():
    """A 3-D laplacian: 3 terms of 3 passes; the first pass of each term reads the input, the
    last writes the accumulator (then the output); two ping-pong buffers and the accumulator."""
    geo = np.array([[2, 3, 4, 5, 6, 3]], np.int64)       # 2 parts of 4x5x6x3
    index = np.zeros((2, 3, 3, 2), np.int64)
    index[..., 1] = 3
    program = _convolution_gpu.separable(geo, np.ones(3, np.float32), index,
                                         np.ones((2, 3), np.float32), np.uint8, np.uint8)
    assert program.temps == {"tmp0": 2880, "tmp1": 2880, "acc": 2880}       # bytes
    assert [(la.kernel, la.args[0], la.args[1], int(la.args[-1])) for la in program.launches] == [
        ("sep_u8_f32", "src", "tmp0", 0), ("sep_f32_f32", "tmp0", "tmp1", 0),
        ("sep_f32_f32", "tmp1", "acc", 1),
        ("sep_u8_f32", "src", "tmp0", 0), ("sep_f32_f32", "tmp0", "tmp1", 0),
        ("sep_f32_f32", "tmp1", "acc", 2),
        ("sep_u8_f32", "src", "tmp0", 0), ("sep_f32_f32", "tmp0", "tmp1", 0),
        ("sep_f32_u8", "tmp1", "dst", 2)]
    first = program.launches[0].args[4]
    assert first[1].tolist() == [360, 360, 360, 20, 6, 3, 0, 3]     # the second part, along W
    assert program.launches[2].args[4][0, 3:6].tolist() == [1, 4, 90]


@pytest.mark.parametrize("change, message", [
    (dict(parts=70000), "at most 65535 parts"),
    (dict(window=(0, 2)), "odd-sized range"),
    (dict(window=(2, 3)), "odd-sized range"),
    (dict(out=np.int8), "input's or float32"),
    (dict(in_dtype=np.bool_), "no kernel for bool"),
])
def test_separable_program_rejects(change, message):
    parts = change.get("parts", 1)
    geo = np.array([[parts, 1, 4, 1, 1, 1]], np.int64)
    index = np.zeros((parts, 1, 3, 2), np.int64)
    index[..., 1] = 1
    index[:, 0, 0] = change.get("window", (0, 1))
    with pytest.raises(ValueError, match=message):
        _convolution_gpu.separable(geo, np.ones(3, np.float32), index,
                                   np.ones((parts, 1), np.float32),
                                   change.get("in_dtype", np.uint8), change.get("out", np.uint8))


@pytest.mark.parametrize("change, message", [
    (dict(anchor=(3, 0)), "anchor inside"),
    (dict(out_hw=(5, 5)), "smaller by the filter's extents - 1"),
    (dict(dtypes=(np.uint8, np.int16)), "no filter from uint8 to int16"),
    (dict(border=5), "unknown border mode 5"),
])
def test_filter_program_rejects(change, message):
    geo = np.array([[1, 2, 8, 8, 1, 1]], np.int64)
    out_geo = geo.copy()
    out_geo[0, 2:4] = change.get("out_hw", (8, 8))
    with pytest.raises(ValueError, match=message):
        _convolution_gpu.filter_(geo, out_geo, np.ones(9, np.float32), [[0, 3, 3]],
                                 [change.get("anchor", (1, 1))], [0.0], change.get("border", 0),
                                 *change.get("dtypes", (np.uint8, np.uint8)))
