"""subscript.cu under the CPU emulation equals the CPU copies of `x[...]`: integer indices and
slices with any bounds and steps (reversed too) over 1 to 4 dimensions, element sizes 1 to 8,
empty samples and empty batches."""

import cases_subscript
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.tensor import _subscript_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(40))
def test_subscript_kernel_equals_cpu(seed):
    case = cases_subscript.subscript_case(seed)
    gpu_cases.assert_same(cases_subscript.subscript_kernel(gpu_cases.emulated, *case),
                          cases_subscript.subscript_expected(*case))


def test_views_merge_contiguous_axes():
    # x[1, ::-1] of a (3, 4, 5) sample: one reversed axis of 4 rows of 5, base row 1 * 20 + 15
    row = _subscript_gpu.launch([(3, 4, 5)], [(1, slice(None, None, -1))], 4).samples[0]
    assert row[2:5].tolist() == [20, 2, 35]
    assert row[5:7].tolist() == [4, 5] and row[5 + 8:7 + 8].tolist() == [-5, 1]
    # a full view collapses to one axis; a scalar output has none
    assert _subscript_gpu.launch([(3, 4, 5)], [(slice(None),)], 1).samples[0, 3] == 1
    assert _subscript_gpu.launch([(3, 4)], [(2, 3)], 1).samples[0, 2:5].tolist() == [1, 0, 11]


def test_subscript_launch_validates():
    with pytest.raises(ValueError, match="no kernel for 16-byte"):
        _subscript_gpu.launch([(2,)], [(0,)], 16)
    with pytest.raises(ValueError, match="index tuples for 1 samples"):
        _subscript_gpu.launch([(2,)], [], 1)
    with pytest.raises(ValueError, match="out of range"):
        _subscript_gpu.launch([(2,)], [(2,)], 1)
    with pytest.raises(ValueError, match="3 indices for a 2-D sample"):
        _subscript_gpu.launch([(2, 2)], [(0, 0, 0)], 1)
    with pytest.raises(ValueError, match="collapses to 9 axes"):
        _subscript_gpu.launch([(3,) * 9], [(slice(None, None, 2),) * 9], 1)
    empty = _subscript_gpu.launch([], [], 4)
    assert empty.grid[1] == 1 and empty.samples.shape == (1, _subscript_gpu.FIELDS)
    assert not np.any(empty.samples)
