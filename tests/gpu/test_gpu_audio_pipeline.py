"""The audio operators with device="gpu" on the emulated device, end to end: the GPU pipeline
equals the same pipeline on the CPU (spectrogram within its kernel's stated tolerance), over
two iterations."""

import cases_audio
import numpy as np
import pytest
from cases_filters import assert_same_as_cpu

from dali import fn, pipeline_def, types


def _outputs(graph_of, batch_size, on_gpu, iterations=2):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=0 if on_gpu else None,
                  seed=7, prefetch_queue_depth=1)
    def pipe():
        return graph_of(on_gpu)

    p = pipe()
    p.build()
    return [p.run() for _ in range(iterations)]


def test_spectrogram_close_to_cpu(emulated_gpu):
    rng = np.random.default_rng(0)
    audio = [(rng.standard_normal(k) * 100).astype(np.float32) for k in (700, 1, 90, 2000)]
    settings = [{"window_length": 64, "window_step": 32, "power": 2, "center_windows": True,
                 "reflect_padding": True, "layout": "ft"},
                {"window_length": 50, "window_step": 20, "nfft": 77, "power": 1,
                 "center_windows": True, "reflect_padding": False, "layout": "tf",
                 "window_fn": [float(v) for v in rng.uniform(0, 1, 50)]}]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: audio, batch=True)
        if on_gpu:
            x = x.gpu()
        return tuple(fn.spectrogram(x, **kw) for kw in settings)

    gpu_runs = _outputs(graph, len(audio), True)
    cpu_runs = _outputs(graph, len(audio), False)
    for gpu, cpu in zip(gpu_runs, cpu_runs, strict=True):
        for g, c, kw in zip(gpu, cpu, settings, strict=True):
            assert type(g).__name__ == "TensorListGPU"
            assert g.layout() == c.layout() and g.dtype == c.dtype and g.shape() == c.shape()
            cases_audio.assert_spectrogram_close([np.asarray(t) for t in g.as_cpu()],
                                                 [np.asarray(t) for t in c], audio, kw)
    assert "spectrogram" in emulated_gpu.launches


def test_nonsilent_region_equals_cpu(emulated_gpu):
    rng = np.random.default_rng(1)
    audio = [rng.integers(-3000, 3000, k).astype(np.int16) for k in (3000, 0, 1, 900)]
    audio[0][:1000] //= 300
    floats = [(x / 32768).astype(np.float32) for x in audio]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: audio, batch=True)
        f = fn.external_source(source=lambda: floats, batch=True)
        if on_gpu:
            x, f = x.gpu(), f.gpu()
        return (*fn.nonsilent_region(x, window_length=64, cutoff_db=-30.0),
                *fn.nonsilent_region(f, window_length=32, reset_interval=256,
                                     cutoff_db=-40.0, reference_power=0.01))

    assert_same_as_cpu(graph, len(audio))
    assert {"nonsilent_i16", "nonsilent_f32"} <= set(emulated_gpu.launches)


def test_audio_resample_equals_cpu(emulated_gpu):
    rng = np.random.default_rng(2)
    audio = [rng.integers(-30000, 30000, (k, 2)).astype(np.int16) for k in (700, 0, 1, 90)]
    scales = [np.float32(v) for v in (0.5, 2.0, 3.0, 1.3)]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: audio, batch=True, layout="tc")
        s = fn.external_source(source=lambda: scales, batch=True)
        if on_gpu:
            x = x.gpu()
        return (fn.audio_resample(x, scale=s, quality=30.0),
                fn.audio_resample(x, in_rate=44100.0, out_rate=16000.0, dtype=types.FLOAT),
                fn.experimental.audio_resample(x, out_length=333, dtype=types.UINT8))

    with pytest.warns(DeprecationWarning, match="experimental.audio_resample"):
        assert_same_as_cpu(graph, len(audio))
    assert {"resample_i16_i16", "resample_i16_f32", "resample_i16_u8"} <= set(
        emulated_gpu.launches)
