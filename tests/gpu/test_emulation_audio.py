"""The audio kernels under the CPU emulation against the CPU operators: spectrogram.cu against
fn.spectrogram within its stated tolerance (a direct DFT in double against the CPU's float
FFT) over FFT sizes, window lengths and steps, window functions, powers, centring and padding,
layouts; nonsilent_region.cu against fn.nonsilent_region bit for bit over every input type,
windows, reset intervals, references and cut-offs (empty, silent and partly loud signals);
audio_resample.cu against fn.audio_resample bit for bit over every input and output type,
channels, qualities and the factor given as scale, rates or length (per sample too); the host
helpers' descriptors, empty batches and rejected arguments."""

import cases_audio
import emulate
import gpu_cases
import numpy as np
import pytest

from dali.ops.audio import _audio_resample_gpu, _resampling
from dali.ops.signal import _nonsilent_region_gpu, _spectrogram_gpu

pytestmark = pytest.mark.skipif(not emulate.AVAILABLE, reason="the CUDA emulation needs g++")


@pytest.mark.parametrize("seed", range(30))
def test_spectrogram_kernel_close_to_cpu(seed):
    samples, kwargs = cases_audio.spectrogram_case(seed)
    expected, got = cases_audio.spectrogram_run(gpu_cases.emulated, samples, kwargs)
    cases_audio.assert_spectrogram_close(got, expected, samples, kwargs)


def test_spectrogram_tolerance_is_tight():
    """The kernel's error is far below the stated bound (so the bound checks something): a
    bin off by 1% of the bound fails."""
    samples, kwargs = cases_audio.spectrogram_case(0)
    expected, got = cases_audio.spectrogram_run(gpu_cases.emulated, samples, kwargs)
    bound = cases_audio.spectrogram_bound(samples, kwargs)[0]
    err = np.abs(got[0].astype(np.float64) - expected[0]).max()
    assert err < 1e-6 * bound
    got[0][0, 0] += np.float32(2e-5 * bound)
    with pytest.raises(AssertionError):
        cases_audio.assert_spectrogram_close(got, expected, samples, kwargs)


def test_spectrogram_program():
    window = np.ones(4, np.float32)
    prog = _spectrogram_gpu.program([(10, 1), (3, 1)], [(5, 3), (5, 1)], 8, window, 4, True,
                                    True, 2, False)
    (launch,) = prog.launches
    assert launch.kernel == "spectrogram" and launch.grid == (1, 2, 1)
    assert launch.args[2].tolist() == [[0, 0, 10, 3], [10, 15, 3, 1]]
    assert int(launch.args[8]) == -2 and int(launch.args[9]) == 1
    assert launch.args[4].shape == (16,) and launch.args[4][2:4].tolist() == [
        pytest.approx(np.cos(np.pi / 4)), pytest.approx(np.sin(np.pi / 4))]
    empty = _spectrogram_gpu.program(np.zeros((0, 1), np.int64), np.zeros((0, 2), np.int64),
                                     8, window, 4, True, True, 2, False)
    assert empty.launches == []


@pytest.mark.parametrize("call, message", [
    (lambda w: _spectrogram_gpu.program([(10,)], [(5, 3)], 3, w, 4, True, True, 2, False),
     "bad window"),
    (lambda w: _spectrogram_gpu.program([(10,)], [(4, 3)], 8, w, 4, True, True, 2, False),
     "must have 5 bins"),
    (lambda w: _spectrogram_gpu.program([(0,)], [(5, 1)], 8, w, 4, True, True, 2, False),
     "at least one sample"),
    (lambda w: _spectrogram_gpu.program([(10,)], [(5, 3)], 8, w, 4, True, True, 2, False,
                                        src_offsets=[2]), "multiples of 4"),
])
def test_spectrogram_program_rejects(call, message):
    with pytest.raises(ValueError, match=message):
        call(np.ones(4, np.float32))


@pytest.mark.parametrize("seed", range(36))
def test_nonsilent_region_kernel_equals_cpu(seed):
    expected, got = cases_audio.nonsilent_run(gpu_cases.emulated,
                                              *cases_audio.nonsilent_case(seed))
    for g, e in zip(got, expected, strict=True):
        gpu_cases.assert_same(g, e)


def test_nonsilent_region_launch():
    launch = _nonsilent_region_gpu.launch([(5,), (0,), (300,)], np.int16, 4, 8, -60.0, 0.0,
                                          begin_offsets=[0, 8, 16])
    assert launch.kernel == "nonsilent_i16" and launch.grid == (1, 1, 1)
    assert launch.args[3].tolist() == [[0, 5, 0, 0], [5, 0, 2, 1], [5, 300, 4, 2]]
    assert launch.args[7] == np.float32(1e-6) and launch.args[7].dtype == np.float32
    assert _nonsilent_region_gpu.launch(np.zeros((0, 1), np.int64), np.float32, 4, 8, -60.0,
                                        0.0) is None


@pytest.mark.parametrize("call, message", [
    (lambda: _nonsilent_region_gpu.launch([(5,)], np.float64, 4, 8, -60.0, 0.0),
     "no kernel for float64"),
    (lambda: _nonsilent_region_gpu.launch([(5,)], np.float32, 0, 8, -60.0, 0.0),
     "window must be positive"),
    (lambda: _nonsilent_region_gpu.launch([(5, 2)], np.float32, 4, 8, -60.0, 0.0), "1-D"),
    (lambda: _nonsilent_region_gpu.launch([(5,)], np.int16, 4, 8, -60.0, 0.0,
                                          src_offsets=[3]), "multiples of the element"),
])
def test_nonsilent_region_launch_rejects(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("seed", range(42))
def test_audio_resample_kernels_equal_cpu(seed):
    expected, got = cases_audio.resample_run(gpu_cases.emulated,
                                             *cases_audio.resample_case(seed))
    gpu_cases.assert_same(got, expected)


def test_audio_resample_program():
    window = _resampling.window(3)
    prog = _audio_resample_gpu.program([(5, 2), (0, 2), (300, 2)], [(10, 2), (0, 2), (600, 2)],
                                       np.int16, np.float32, [0.5, 1.0, 0.5], window, 3)
    (launch,) = prog.launches
    assert launch.kernel == "resample_i16_f32" and launch.grid == (5, 3, 1)
    assert launch.args[2].tolist() == [[0, 5, 0, 10, 2], [10, 0, 20, 0, 2],
                                       [10, 300, 20, 600, 2]]
    assert launch.args[5].shape == (32 * 2 * 6,) and int(launch.args[8]) == 3
    for shapes in ([(0,)], np.zeros((0, 1), np.int64)):
        assert _audio_resample_gpu.program(shapes, shapes, np.float32, np.float32,
                                           np.ones(len(shapes)), window, 3).launches == []


@pytest.mark.parametrize("call, message", [
    (lambda w: _audio_resample_gpu.program([(5,)], [(5,)], np.float64, np.float32, [1.0], w,
                                           3), "no kernel from float64"),
    (lambda w: _audio_resample_gpu.program([(5, 2)], [(5, 3)], np.int16, np.int16, [1.0], w,
                                           3), "same channels"),
    (lambda w: _audio_resample_gpu.program([(5,)], [(5,)], np.int16, np.int16, [0.0], w, 3),
     "positive"),
    (lambda w: _audio_resample_gpu.program([(5,)], [(5,)], np.int16, np.int16, [1.0], w, 16),
     "too few"),
    (lambda w: _audio_resample_gpu.program([(5,)], [(5,)], np.int16, np.int16, [1.0], w, 3,
                                           dst_offsets=[1]), "multiples of the element"),
])
def test_audio_resample_program_rejects(call, message):
    with pytest.raises(ValueError, match=message):
        call(_resampling.window(3))
