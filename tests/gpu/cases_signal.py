"""Random cases of the audio kernels (`dali/ops/signal/*.cu`), shared by the emulated and the
device tests: each case runs the CPU operator through a synchronous pipeline whose `run_cpu`
also builds the kernels' program from its plan and workspace (as `run_gpu` does), then runs the
program through a backend on the same samples.
"""

from __future__ import annotations

import numpy as np
from cases_filters import run_program, run_sync
from gpu_cases import _random

from dali import types as dali_types
from dali.ops.signal import _preemphasis_filter_gpu, preemphasis_filter

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
