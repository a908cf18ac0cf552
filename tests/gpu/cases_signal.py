"""Random cases of the audio kernels (`dali/ops/signal/*.cu`), shared by the emulated and the
device tests: each case runs the CPU operator through a synchronous pipeline whose `run_cpu`
also builds the kernels' program from its plan and workspace (as `run_gpu` does), then runs the
program through a backend on the same samples.
"""

from __future__ import annotations

import numpy as np
from cases_filters import run_program, run_sync
from gpu_cases import _pack, _random, _unpack

from dali import types as dali_types
from dali.ops.signal import (
    _axis_matmul_gpu,
    _preemphasis_filter_gpu,
    _to_decibels_gpu,
    mel_filter_bank,
    mfcc,
    preemphasis_filter,
    to_decibels,
)

AXIS_MATMUL_CU = _axis_matmul_gpu.__file__.replace("_axis_matmul_gpu.py", "axis_matmul.cu")

PREEMPH_TYPES = (np.float32, np.int16, np.float64, np.uint8, np.int32, np.int64, np.uint16,
                 np.int8, np.uint32, np.uint64)


def preemphasis_case(seed):
    """(samples, kwargs, arg_inputs): 1-D or 2-D signals (some of 0 or 1 element), every
    border, the output type the default float or another, coefficients constant or per
    sample."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(PREEMPH_TYPES[seed % len(PREEMPH_TYPES)])
    n = int(rng.integers(1, 5))
    two_d = seed % 3 == 2
    samples = [_random(rng, (int(rng.choice([0, 1, 2, 50, 700])),) + ((2,) if two_d else ()),
                       dtype) for _ in range(n)]
    kwargs = {"border": ("zero", "clamp", "reflect")[seed % 3]}
    if seed % 2:
        out = PREEMPH_TYPES[(seed // 2) % len(PREEMPH_TYPES)]
        kwargs["dtype"] = dali_types.to_dali_type(np.dtype(out))
    arg_inputs = {}
    if rng.integers(0, 2):
        arg_inputs["preemph_coeff"] = [np.float32(rng.uniform(-1, 1)) for _ in samples]
    else:
        kwargs["preemph_coeff"] = float(rng.uniform(0, 1))
    return samples, kwargs, arg_inputs


def preemphasis_run(backend, samples, kwargs, arg_inputs):
    names = list(arg_inputs)

    def build(fn, x, *args):
        return fn.preemphasis_filter(x, **kwargs, **dict(zip(names, args, strict=True)))

    def take(op, ws, plan):
        return plan, _preemphasis_filter_gpu.program(
            ws.input_storage(0).shapes, ws.arg_array("preemph_coeff", np.float32),
            op.args["border"], ws.input_dtype(0), op.dtype)

    expected, (plan, program) = run_sync(preemphasis_filter.PreemphasisFilter, build,
                                         [samples] + [arg_inputs[k] for k in names],
                                         [None] * (1 + len(names)), take)
    out = plan.outputs[0]
    return expected, run_program(backend, program, samples, out.shapes, out.dtype)


def decibels_case(seed):
    """(samples, kwargs): power-like float32 samples (1-D and 2-D, some empty, of zeros, or with
    -0.0, NaN and infinity, a NaN first), reference given or each sample's maximum, cut-offs
    above and below FLT_MIN."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5))
    two_d = seed % 2 == 1
    samples = []
    for i in range(n):
        k = int(rng.choice([0, 1, 7, 9, 64, 333]))
        s = (rng.random(k) * rng.choice([1.0, 1e4])).astype(np.float32)
        if k and rng.integers(0, 3) == 0:
            s[rng.integers(0, k, max(k // 4, 1))] = rng.choice([0.0, -0.0, np.nan, np.inf])
        if seed % 5 == 0 and i == 0:
            s[:] = 0
        if seed % 7 == 3 and k:
            s[0] = np.nan
        samples.append(s.reshape(-1, 1) if two_d else s)
    kwargs = {"multiplier": float(rng.choice([10.0, 20.0, -3.0])),
              "cutoff_db": float(rng.choice([-200.0, -80.0, -400.0, 5.0]))}
    if seed % 3 == 1:
        kwargs["reference"] = float(rng.choice([1.0, 0.37, 1e4]))
    return samples, kwargs


def decibels_run(backend, samples, kwargs):
    def take(op, ws, plan):
        a = op.args
        return plan, _to_decibels_gpu.program(ws.input_storage(0).shapes, a["multiplier"],
                                              a["reference"], a["cutoff_db"])

    expected, (plan, program) = run_sync(to_decibels.ToDecibels,
                                         lambda fn, x: fn.to_decibels(x, **kwargs), [samples],
                                         [None], take)
    out = plan.outputs[0]
    return expected, run_program(backend, program, samples, out.shapes, out.dtype)


def mel_case(seed):
    """(samples, layout, kwargs): spectrograms frequency-major ("ft": columns are frames,
    fewer or more than 16) or time-major ("tf": one column), without a layout (2-D, 3-D),
    bin counts differing between samples, both formulas, normalized or not."""
    rng = np.random.default_rng(seed)
    layout = ("ft", "tf", None, None)[seed % 4]
    n = int(rng.integers(1, 4))
    bins = [int(rng.choice([33, 65, 129])) for _ in range(n)]
    samples = []
    for b in bins:
        frames = int(rng.choice([0, 1, 5, 15, 16, 17, 40]))
        if layout == "tf":
            shape = (frames, b)
        elif layout is None and seed % 8 == 3:
            shape = (2, b, frames)
        else:
            shape = (b, frames)
        samples.append((rng.random(shape) * 10).astype(np.float32))
    kwargs = {"nfilter": int(rng.choice([8, 20, 40])), "sample_rate": 16000.0,
              "mel_formula": ("slaney", "htk")[seed % 2], "normalize": bool(seed % 3)}
    if seed % 5 == 1:
        kwargs.update(freq_low=300.0, freq_high=6000.0)
    return samples, layout, kwargs


def mel_run(backend, samples, layout, kwargs):
    return _axis_matmul_run(backend, mel_filter_bank.MelFilterBank, "mel_filter_bank", samples,
                            layout, kwargs)


def mfcc_case(seed):
    """(samples, layout, kwargs): mel spectrograms transformed along axis 0 or 1 (frames fewer
    or more than 16), every DCT type, normalized or not, liftered or not, n_mfcc above and below
    the axis' length."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 4))
    samples = [(rng.random((int(rng.choice([4, 20, 40])), int(rng.choice([1, 9, 16, 30])))) * 5)
               .astype(np.float32) for _ in range(n)]
    dct_type = seed % 4 + 1
    kwargs = {"axis": seed % 2, "dct_type": dct_type, "n_mfcc": int(rng.choice([3, 13, 50])),
              "normalize": dct_type != 1 and bool(seed % 3), "lifter": float(seed % 5 == 2) * 22}
    return samples, None, kwargs


def mfcc_run(backend, samples, layout, kwargs):
    return _axis_matmul_run(backend, mfcc.Mfcc, "mfcc", samples, layout, kwargs)


def _axis_matmul_run(backend, cls, name, samples, layout, kwargs):
    def take(op, ws, plan):
        return plan, _axis_matmul_gpu.launch(ws.input_storage(0).shapes, plan.matrices,
                                             plan.axis)

    expected, (plan, launch) = run_sync(cls, lambda fn, x: getattr(fn, name)(x, **kwargs),
                                        [samples], [layout], take)
    out_shapes = plan.outputs[0].shapes
    if launch is None:
        return expected, [np.zeros(s, np.float32) for s in out_shapes]
    size = int(sum(np.prod(s) for s in out_shapes))
    done = backend(AXIS_MATMUL_CU, launch, [_pack(samples, np.float32),
                                            np.zeros(size, np.float32), launch.weights,
                                            launch.lo, launch.hi, launch.pieces])
    return expected, _unpack(done[1], out_shapes)
