"""Random cases of the GPU kernels of fn.spectrogram (`spectrogram.cu`), fn.nonsilent_region
(`nonsilent_region.cu`) and fn.audio_resample (`audio_resample.cu`), shared by the emulated and
the device tests: each case runs the CPU operator through a synchronous pipeline whose
`run_cpu` also builds the kernels' program from its plan and workspace (as `run_gpu` does),
then runs the program through a backend on the same samples.
"""

from __future__ import annotations

import numpy as np
from cases_filters import run_program, run_sync

from dali.ops.signal import _spectrogram_gpu, spectrogram


# ---- spectrogram --------------------------------------------------------------------------
def spectrogram_case(seed):
    """(samples, kwargs): 1-D signals, or 2-D with one axis of extent 1 (some shorter than a
    window, one of a single sample with centred windows), FFT sizes odd and even, larger than
    the window or not, steps shorter and longer than it, the default Hann window or a given
    one, both powers, centred windows mirrored or zero-padded or not centred, both layouts."""
    rng = np.random.default_rng(seed)
    wl = int(rng.choice([3, 8, 25, 64, 100]))
    kwargs = {"window_length": wl, "window_step": int(rng.choice([1, 7, wl // 2 + 1, 2 * wl])),
              "power": 1 + seed % 2, "center_windows": seed % 3 != 2,
              "reflect_padding": seed % 4 < 2, "layout": ("ft", "tf")[(seed // 2) % 2]}
    if seed % 5:
        kwargs["nfft"] = wl + int(rng.choice([0, 1, 7, 60]))
    if seed % 3 == 1:
        kwargs["window_fn"] = [float(v) for v in rng.uniform(-1, 1, wl)]
    lo = 1 if kwargs["center_windows"] else wl
    samples = []
    for _ in range(int(rng.integers(1, 5))):
        n = int(rng.integers(lo, 6 * wl))
        if kwargs["center_windows"] and rng.integers(0, 4) == 0:
            n = int(rng.choice([1, 2, max(wl // 3, 1)]))
        x = (rng.standard_normal(n) * rng.choice([1.0, 300.0])).astype(np.float32)
        samples.append(x.reshape(((n,), (n, 1), (1, n))[seed % 3]))
    return samples, kwargs


def spectrogram_run(backend, samples, kwargs):
    """(CPU operator's output, the kernel's output)."""
    def take(op, ws, plan):
        a = op.args
        return plan, _spectrogram_gpu.program(
            ws.input_storage(0).shapes, plan.outputs[0].shapes, op.fft.n, op.window,
            a["window_step"], a["center_windows"], a["reflect_padding"], a["power"],
            a["layout"] == "tf")

    expected, (plan, program) = run_sync(spectrogram.Spectrogram,
                                         lambda fn, x: fn.spectrogram(x, **kwargs), [samples],
                                         [None], take)
    out = plan.outputs[0]
    return expected, run_program(backend, program, samples, out.shapes, out.dtype)


def spectrogram_bound(samples, kwargs):
    """Per sample, the largest |X| a bin can have: max |x| times the sum of |w|."""
    wl = kwargs["window_length"]
    w = (spectrogram.hann(wl) if "window_fn" not in kwargs
         else np.asarray(kwargs["window_fn"], np.float32))
    total = float(np.abs(w.astype(np.float64)).sum())
    return [float(np.abs(x).max()) * total for x in samples]


def assert_spectrogram_close(got, expected, samples, kwargs):
    """Within the kernel's stated tolerance: 1e-5 B (power 1) or 2e-5 B**2 (power 2)."""
    assert len(got) == len(expected)
    for g, e, b in zip(got, expected, spectrogram_bound(samples, kwargs), strict=True):
        assert g.dtype == e.dtype == np.float32 and g.shape == e.shape
        tol = 1e-5 * b if kwargs["power"] == 1 else 2e-5 * b * b
        np.testing.assert_allclose(g, e, rtol=0, atol=tol)
