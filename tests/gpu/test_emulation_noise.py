"""noise.cu under the CPU emulation equals the noise operators' CPU kernel with the same Philox
key and sample ids: fn.noise.gaussian, salt_and_pepper (per channel, channel-last and
channel-first pixels) and shot (Poisson means below and above 10, factor 0) over every type
the operators take, empty samples and empty batches."""

import cases_noise
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.noise import _noise_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("mode", cases_noise.MODES)
@pytest.mark.parametrize("seed", range(18))
def test_noise_kernel_equals_cpu(mode, seed):
    case = cases_noise.noise_case(seed, mode)
    gpu_cases.assert_same(cases_noise.noise_kernel(gpu_cases.emulated, *case),
                          cases_noise.noise_expected(*case))


def test_shot_noise_large_means_take_ptrs_rounds():
    """Means far above 10 (PTRS, rejected rounds on streams 2r, 2r + 1) on a large sample."""
    rng = np.random.default_rng(5)
    x = [rng.uniform(0, 5000, (64, 64)).astype(np.float32)]
    case = ("shot", x, np.array([[1.5, 0, 0, 0]]), None, 987654321, np.int64([3]))
    got = cases_noise.noise_kernel(gpu_cases.emulated, *case)
    gpu_cases.assert_same(got, cases_noise.noise_expected(*case))
    assert not np.array_equal(got[0], x[0])


def test_empty_batch_launches_one_padded_row():
    launch = _noise_gpu.launch("gaussian", [], np.uint8, [], np.zeros((0, 4)))
    assert launch.grid[1] == 1 and len(launch.samples) == 1
    assert launch.samples["pixels"][0] == 0
    assert cases_noise.noise_kernel(gpu_cases.emulated, "gaussian", [], np.zeros((0, 4)),
                                    None, 1, np.int64([])) == []


def test_noise_launch_validates():
    with pytest.raises(ValueError, match="no kernel for float64"):
        _noise_gpu.launch("shot", [(2, 2)], np.float64, [0], np.zeros((1, 4)))
    with pytest.raises(ValueError, match="unknown noise 'pink'"):
        _noise_gpu.launch("pink", [(2, 2)], np.uint8, [0], np.zeros((1, 4)))
    with pytest.raises(ValueError, match="4 parameters"):
        _noise_gpu.launch("shot", [(2, 2)], np.uint8, [0], np.zeros((2, 4)))
    with pytest.raises(ValueError, match="multiple of nc"):
        _noise_gpu.launch("salt_and_pepper", [(1, 3)], np.uint8, [0], np.zeros((1, 4)),
                          np.int64([[2, 1]]))
