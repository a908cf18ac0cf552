"""The audio operators with device="gpu" on the emulated device, end to end: the GPU pipeline
equals the same pipeline on the CPU (per-sample arguments, output types, empty signals), over
two iterations."""

import numpy as np
from cases_filters import assert_same_as_cpu

from dali import fn, types


def test_preemphasis_filter_equals_cpu(emulated_gpu):
    rng = np.random.default_rng(0)
    audio = [rng.integers(-3000, 3000, k).astype(np.int16) for k in (300, 0, 1, 1000)]
    coeffs = [np.float32(v) for v in rng.uniform(0, 1, len(audio))]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: audio, batch=True)
        c = fn.external_source(source=lambda: coeffs, batch=True)
        if on_gpu:
            x = x.gpu()
        return (fn.preemphasis_filter(x, preemph_coeff=c),
                fn.preemphasis_filter(x, border="reflect", dtype=types.INT16),
                fn.preemphasis_filter(fn.cast(x, dtype=types.FLOAT64), border="zero",
                                      dtype=types.FLOAT64))

    assert_same_as_cpu(graph, len(audio))
    assert {"preemph_i16_f32", "cast_f32_i16", "preemph_f64_f64"} <= set(emulated_gpu.launches)


def test_to_decibels_equals_cpu(emulated_gpu):
    rng = np.random.default_rng(1)
    spectra = [(rng.random((k, 9)) * 100).astype(np.float32) for k in (40, 0, 3, 17)]
    spectra[2][:] = 0

    def graph(on_gpu):
        x = fn.external_source(source=lambda: spectra, batch=True, layout="ft")
        if on_gpu:
            x = x.gpu()
        return (fn.to_decibels(x), fn.to_decibels(x, multiplier=20.0, reference=50.0,
                                                  cutoff_db=-60.0))

    assert_same_as_cpu(graph, len(spectra))
    assert {"db_lanes", "db_reference", "db_convert"} <= set(emulated_gpu.launches)


def test_mel_filter_bank_and_mfcc_equal_cpu(emulated_gpu):
    rng = np.random.default_rng(2)
    spectra = [(rng.random((65, k)) * 10).astype(np.float32) for k in (30, 0, 7, 12)]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: spectra, batch=True, layout="ft")
        if on_gpu:
            x = x.gpu()
        mel = fn.mel_filter_bank(x, nfilter=20, sample_rate=16000.0)
        db = fn.to_decibels(mel, multiplier=10.0, cutoff_db=-80.0)
        return mel, db, fn.mfcc(db, n_mfcc=13, lifter=22.0, normalize=True)

    assert_same_as_cpu(graph, len(spectra))
    assert "axis_matmul" in emulated_gpu.launches
