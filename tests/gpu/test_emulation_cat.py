"""cat.cu under the CPU emulation equals fn.cat on the CPU: 1 to 4 inputs of 1 to 4
dimensions, any axis (by index or name), every element size, empty parts."""

import cases_geometry
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.tensor import _cat_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(24))
def test_cat_kernel_equals_cpu(seed):
    case = cases_geometry.join_case(seed, stack=False)
    got, expected = cases_geometry.join_compare(gpu_cases.emulated, False, *case)
    gpu_cases.assert_same(got, expected)


def test_join_word_is_the_largest_dividing_every_block():
    launches = _cat_gpu.launches([2, 3], [[8, 16], [24, 8]])
    assert [la.kernel for la in launches] == ["join_8", "join_8"]
    second = launches[1].samples
    assert second[:, 1].tolist() == [1, (2 * 24 + 24) // 8]     # after the first block
    assert second[:, 4].tolist() == [3, 4] and second[:, 3].tolist() == [2, 1]
    assert _cat_gpu.launches([1], [[6, 3]])[0].kernel == "join_1"
    assert _cat_gpu.launches([1], [[6, 2]])[0].kernel == "join_2"


def test_join_large_sample_uses_grid_stride():
    """More words than MAX_BLOCKS_X blocks cover: the grid-stride loop reaches them all."""
    size = _cat_gpu.BLOCK * _cat_gpu.MAX_BLOCKS_X + 333
    a, b = np.arange(size, dtype=np.uint8), np.arange(7, dtype=np.uint8)
    dst = np.zeros(size + 7, np.uint8)
    for launch in _cat_gpu.launches([1], [[size, 7]]):
        gpu_cases.emulated(cases_geometry.JOIN_CU, launch, [(a, b)[launch.input], dst,
                                                              launch.samples])
    np.testing.assert_array_equal(dst, np.concatenate([a, b]))
