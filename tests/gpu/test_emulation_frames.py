"""fn.element_extract and fn.sequence_rearrange's GPU copies (copy_samples.cu launches of
`_frames.frame_copies`) under the CPU emulation equal the CPU operators: several element types,
ragged sequences, empty frames, repeated and dropped frames, per-sample orders."""

import cases_frames
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops._conditional import _copy_samples_gpu
from dali.ops.tensor import _frames

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(10))
def test_element_extract_copies_equal_cpu(seed):
    case = cases_frames.sequence_case(seed)
    got = cases_frames.element_extract_kernel(gpu_cases.emulated, *case)
    expected = cases_frames.element_extract_expected(*case)
    for g, e in zip(got, expected, strict=True):
        gpu_cases.assert_same(g, e)


@pytest.mark.parametrize("seed", range(10))
def test_sequence_rearrange_copies_equal_cpu(seed):
    case = cases_frames.sequence_case(seed)
    gpu_cases.assert_same(cases_frames.sequence_rearrange_kernel(gpu_cases.emulated, *case),
                          cases_frames.sequence_rearrange_expected(*case))


def test_frame_copies_ranges_and_chunks():
    # two samples of 3 and 2 frames of 8 and 4 bytes; output: frames (2, 0) and (1, 1, 1)
    launches = _frames.frame_copies([0, 24], [0, 16], [0, 1], [8, 4], [2, 0, 1, 1, 1],
                                    [0, 2, 5])
    (launch,) = launches
    assert launch.unit == 4
    np.testing.assert_array_equal(launch.ranges, [[0, 4, 0, 0, 2], [0, 0, 0, 2, 2],
                                                  [0, 7, 0, 4, 1], [0, 7, 0, 5, 1],
                                                  [0, 7, 0, 6, 1]])
    n = _copy_samples_gpu.MAX_RANGES + 3
    launches = _frames.frame_copies([0], [0], [0], [1], np.zeros(n), [0, n])
    assert [len(x.ranges) for x in launches] == [_copy_samples_gpu.MAX_RANGES, 3]
    assert _frames.frame_copies([0], [0], [0], [0], [0, 0], [0, 2]) == []
    with pytest.raises(ValueError, match="one run per output sample"):
        _frames.frame_copies([0], [0], [0], [1], [0, 0], [0, 1])
