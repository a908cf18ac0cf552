"""copy_samples.cu under the CPU emulation equals the CPU's `_conditional.split`,
`_conditional.merge` and fn.permute_batch: random ragged batches of several types with empty
samples, masks taking every, no or some samples, indices repeating and leaving out samples."""

import cases_copy_samples as cases
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops._conditional import _copy_samples_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(15))
def test_split_kernel_equals_cpu(seed):
    expected, got = cases.split_run(gpu_cases.emulated, *cases.batch_case(seed))
    for g, e in zip(got, expected, strict=True):
        gpu_cases.assert_same(g, e)


@pytest.mark.parametrize("seed", range(15))
def test_merge_kernel_equals_cpu(seed):
    expected, got = cases.merge_run(gpu_cases.emulated, *cases.batch_case(seed))
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("seed", range(15))
def test_permute_batch_kernel_equals_cpu(seed):
    samples, _ = cases.batch_case(seed)
    expected, got = cases.permute_run(gpu_cases.emulated, samples, seed)
    gpu_cases.assert_same(got, expected)


def test_copy_unit_is_the_widest_dividing_every_range():
    assert _copy_samples_gpu.copies(0, [0, 32], 0, [0, 48], [16, 64]).unit == 16
    assert _copy_samples_gpu.copies(0, [0, 8], 0, [0, 48], [16, 64]).unit == 8
    assert _copy_samples_gpu.copies(0, [0, 6], 0, [0, 48], [16, 64]).unit == 2
    assert _copy_samples_gpu.copies(0, [0, 32], 0, [0, 48], [16, 64], base_align=4).unit == 4
    launch = _copy_samples_gpu.copies([0, 1, 0], [0, 8, 4], [1, 0, 0], [12, 0, 16], [4, 0, 8])
    assert launch.unit == 4 and launch.ranges.tolist() == [[0, 0, 1, 3, 1], [0, 1, 0, 4, 2]]
    assert _copy_samples_gpu.copies(0, [0], 0, [0], [0]) is None


def test_large_sample_uses_grid_stride():
    n = _copy_samples_gpu.BLOCK * _copy_samples_gpu.MAX_BLOCKS_X + 333
    x = np.arange(n, dtype=np.uint8)
    expected, got = cases.permute_run(gpu_cases.emulated, [x.reshape(-1, 1)], 0)
    gpu_cases.assert_same(got, expected)


@pytest.mark.parametrize("call, message", [
    (lambda: _copy_samples_gpu.copies(2, 0, 0, 0, 4), "0 or 1"),
    (lambda: _copy_samples_gpu.copies(0, -4, 0, 0, 4), "negative"),
    (lambda: _copy_samples_gpu.copies(0, np.zeros(70000, np.int64), 0, 0, 4), "at most 65535"),
    (lambda: _copy_samples_gpu.merge([4], [0], [4], [0], [True, True]), "as many samples"),
    (lambda: _copy_samples_gpu.gather([4, 4], [0, 4], [2]), "out of range"),
])
def test_copy_helpers_reject(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_alignment_of_base_addresses():
    assert _copy_samples_gpu.alignment(256, 4096) == 16
    assert _copy_samples_gpu.alignment(256, 4100) == 4
    assert _copy_samples_gpu.alignment(7) == 1
    assert _copy_samples_gpu.gather([32, 32], [0, 32], [1, 0], base_align=8).unit == 8


@pytest.mark.parametrize("seed", range(6))
def test_gpu_split_merge_metadata_equal_host(seed):
    """The ids and source info the GPU split and merge give (`_predicate.picked_info`,
    `merged_meta`) are those of the host kernels."""
    from dali._ext.tensor_storage import BatchStorage

    from dali._ext.kernels import conditional
    from dali.ops._conditional import _predicate

    samples, mask = cases.batch_case(seed)
    n = len(samples)
    ids = np.arange(100, 100 + n)
    info = [f"file{i}" for i in range(n)] if seed % 2 else None
    sides = conditional.split(BatchStorage.from_arrays(samples), mask, ids, info)
    for (_, side_ids, side_info), side in zip(sides, (mask, ~mask), strict=True):
        idx = np.flatnonzero(side)
        np.testing.assert_array_equal(ids[idx], side_ids)
        assert _predicate.picked_info(info, idx) == (None if side_info is None
                                                     else list(side_info))
    (t, t_ids, t_info), (f, f_ids, f_info) = sides
    _, m_ids, m_info = conditional.merge(t, f, mask, t_ids, f_ids, t_info, f_info)
    ids2, info2 = _predicate.merged_meta(mask, t_ids, f_ids, t_info, f_info)
    np.testing.assert_array_equal(ids2, m_ids)
    assert info2 == (None if m_info is None else list(m_info))
