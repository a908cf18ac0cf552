"""The audio kernels on a real device (CuPy, dali._gpu.modules) against the CPU operators, as
under the emulation (spectrogram within its stated tolerance, nonsilent_region and
audio_resample bit for bit); skipped without CuPy and a CUDA device."""

import cases_audio
import gpu_cases
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("seed", range(30))
def test_spectrogram_on_device_close_to_cpu(seed):
    samples, kwargs = cases_audio.spectrogram_case(seed)
    expected, got = cases_audio.spectrogram_run(gpu_cases.on_device, samples, kwargs)
    cases_audio.assert_spectrogram_close(got, expected, samples, kwargs)


@pytest.mark.parametrize("seed", range(36))
def test_nonsilent_region_on_device_equals_cpu(seed):
    expected, got = cases_audio.nonsilent_run(gpu_cases.on_device,
                                              *cases_audio.nonsilent_case(seed))
    for g, e in zip(got, expected, strict=True):
        gpu_cases.assert_same(g, e)


@pytest.mark.parametrize("seed", range(42))
def test_audio_resample_on_device_equals_cpu(seed):
    expected, got = cases_audio.resample_run(gpu_cases.on_device,
                                             *cases_audio.resample_case(seed))
    gpu_cases.assert_same(got, expected)
