"""Random cases of the GPU kernels of fn.spectrogram (`spectrogram.cu`), fn.nonsilent_region
(`nonsilent_region.cu`) and fn.audio_resample (`audio_resample.cu`), shared by the emulated and
the device tests: each case runs the CPU operator through a synchronous pipeline whose
`run_cpu` also builds the kernels' program from its plan and workspace (as `run_gpu` does),
then runs the program through a backend on the same samples.
"""

from __future__ import annotations

import numpy as np
from cases_filters import recorded, run_program, run_sync
from gpu_cases import _pack, _random
from pipeline_utils import run_op

from dali import types as dali_types
from dali.ops.audio import _audio_resample_gpu, _resampling, audio_resample
from dali.ops.signal import _nonsilent_region_gpu, _spectrogram_gpu, nonsilent_region, spectrogram


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


# ---- nonsilent_region ---------------------------------------------------------------------
SILENCE_TYPES = (np.float32, np.int16, np.uint8, np.int32, np.int8, np.uint16, np.uint32,
                 np.int64, np.uint64)


def nonsilent_case(seed):
    """(samples, kwargs): signals of every type (some empty, of one sample, all silent, or
    quiet with a loud stretch), windows shorter and longer than the signals, reset intervals
    (never, or a multiple of the window), the reference each signal's largest power or given,
    cut-offs."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(SILENCE_TYPES[seed % len(SILENCE_TYPES)])
    window = int(rng.choice([1, 4, 16, 100]))
    kwargs = {"window_length": window, "cutoff_db": float(rng.choice([-60.0, -20.0, -3.0])),
              "reset_interval": -1 if seed % 4 == 0 else window * int(rng.choice([1, 3, 50]))}
    if seed % 3 == 1:
        kwargs["reference_power"] = float(rng.choice([0.5, 1e3, 1e6]))
    samples = []
    for _ in range(int(rng.integers(1, 6))):
        n = int(rng.choice([0, 1, 7, 300, 2000]))
        x = _random(rng, n, dtype)
        if n > 10 and rng.integers(0, 2):             # quiet with a loud stretch
            lo = int(rng.integers(0, n - 5))
            loud = x[lo:lo + int(rng.integers(1, n - lo))].copy()
            x = (x // 50 if dtype.kind in "iu" else x / 1e4).astype(dtype)
            x[lo:lo + len(loud)] = loud
        if n and rng.integers(0, 5) == 0:
            x[:] = 0
        samples.append(x)
    return samples, kwargs


def nonsilent_run(backend, samples, kwargs):
    """(CPU operator's (begin, length) samples, the kernel's)."""
    def take(op, ws, plan):
        a = op.args
        return _nonsilent_region_gpu.launch(ws.input_storage(0).shapes, ws.input_dtype(0),
                                            a["window_length"], a["reset_interval"],
                                            a["cutoff_db"], a["reference_power"])

    with recorded(nonsilent_region.NonsilentRegion, take) as taken:
        outputs = run_op(lambda fn, x: tuple(fn.nonsilent_region(x, **kwargs)), [samples],
                         exec_async=False, exec_pipelined=False)
    launch = taken[-1]
    n = len(samples)
    buffers = {"src": _pack(samples, samples[0].dtype), "begin": np.full(n, -7, np.int32),
               "length": np.full(n, -7, np.int32)}
    done = backend(launch.module, launch,
                   [buffers[a] if isinstance(a, str) else a for a in launch.args])
    got = [[np.asarray(v) for v in done[1]], [np.asarray(v) for v in done[2]]]
    return outputs, got


# ---- audio_resample -----------------------------------------------------------------------
RESAMPLE_TYPES = (np.float32, np.int16, np.uint8, np.int32, np.int8, np.uint16, np.uint32)


def resample_case(seed):
    """(samples, kwargs, arg_inputs): 1-D or 2-D (channels) signals of every type (some empty,
    some of one sample, some long enough for several blocks of 256 outputs), outputs of the
    input's type or another, up- and downsampling by scale, rates or output length (constant
    or per sample), qualities from 0 to 100 (3 to 64 lobes)."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(RESAMPLE_TYPES[seed % len(RESAMPLE_TYPES)])
    channels = (None, 1, 2, 3)[seed % 4]
    samples = []
    for _ in range(int(rng.integers(1, 5))):
        n = int(rng.choice([0, 1, 5, 60, 700]))
        shape = (n,) if channels is None else (n, channels)
        x = _random(rng, shape, dtype)
        if dtype == np.float32:
            x = (x / 300).astype(np.float32)
        elif rng.integers(0, 2):                      # the whole range: saturating outputs
            info = np.iinfo(dtype)
            x = rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
        samples.append(x)
    kwargs = {"quality": float(rng.choice([0.0, 20.0, 50.0, 77.0, 100.0]))}
    if seed % 3 == 1:
        kwargs["dtype"] = dali_types.to_dali_type(RESAMPLE_TYPES[(seed // 3) % 7])
    arg_inputs = {}
    factor = seed % 5
    if factor == 0:
        kwargs["scale"] = float(rng.choice([0.3, 0.97, 1.0, 1.7, 4.0]))
    elif factor == 1:
        arg_inputs["scale"] = [np.float32(rng.uniform(0.2, 3)) for _ in samples]
    elif factor == 2:
        kwargs["in_rate"], kwargs["out_rate"] = 44100.0, float(rng.choice([16000.0, 48000.0]))
    elif factor == 3:
        arg_inputs["in_rate"] = [np.float32(rng.choice([8000, 22050])) for _ in samples]
        arg_inputs["out_rate"] = [np.float32(rng.choice([16000, 11025])) for _ in samples]
    else:
        arg_inputs["out_length"] = [np.int64(rng.integers(0, 900)) for _ in samples]
    return samples, kwargs, arg_inputs


def resample_run(backend, samples, kwargs, arg_inputs):
    """(CPU operator's output, the kernel's output)."""
    names = list(arg_inputs)

    def build(fn, x, *args):
        return fn.audio_resample(x, **kwargs, **dict(zip(names, args, strict=True)))

    def take(op, ws, plan):
        src = ws.input_storage(0)
        return plan, _audio_resample_gpu.program(
            src.shapes, plan.outputs[0].shapes, src.dtype, plan.outputs[0].dtype, plan.scales,
            _resampling.window(op.lobes), op.lobes)

    expected, (plan, program) = run_sync(audio_resample.AudioResample, build,
                                         [samples] + [arg_inputs[k] for k in names],
                                         [None] * (1 + len(names)), take)
    out = plan.outputs[0]
    return expected, run_program(backend, program, samples, out.shapes, out.dtype)
