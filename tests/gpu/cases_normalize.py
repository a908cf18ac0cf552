"""Random cases of fn.normalize's kernels (`dali/ops/math/normalize.cu`), shared by the
emulated and the device tests: the CPU operator through a pipeline gives the expected output;
the kernels run the passes `Normalize.run_cpu` runs, through a backend (`gpu_cases.emulated`
or `gpu_cases.on_device`), with the parameters the operator's own helpers compute.
"""

from __future__ import annotations

import types

import numpy as np
from gpu_cases import _pack, _unpack
from pipeline_utils import run_op

from dali import types as dali_types
from dali.ops.math import _normalize_gpu
from dali.ops.math import normalize as _normalize

NORMALIZE_CU = _normalize_gpu.__file__.replace("_normalize_gpu.py", "normalize.cu")
TYPES = tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                    np.uint32, np.float32))
MODES = ("computed", "axes", "mean", "stddev", "scalars", "tensors", "batch")
_F32 = np.float32


def _values(rng, shape, dtype):
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * rng.choice([1.0, 100.0, 1e6])
                + rng.uniform(-50, 50)).astype(dtype)
    info = np.iinfo(dtype)
    lo, hi = (info.min, info.max) if rng.random() < 0.5 else (max(info.min, -100), 100)
    return rng.integers(lo, hi, shape, endpoint=True, dtype=dtype)


def normalize_case(seed):
    """(samples, reduced, args, tensors): a random batch, the reduced axes (a bool per
    dimension), the operator's constant arguments and its mean/stddev argument inputs (name
    -> per-sample float32 arrays)."""
    rng = np.random.default_rng(seed)
    mode = MODES[seed % len(MODES)]
    ndim = int(rng.integers(1, 5))
    in_dtype = TYPES[seed % len(TYPES)]
    out_dtype = TYPES[int(rng.integers(0, len(TYPES)))] if seed % 3 else np.dtype(np.float32)
    n = int(rng.integers(1, 5))
    reduced = [bool(rng.integers(0, 2)) for _ in range(ndim)]
    if not any(reduced):
        reduced[int(rng.integers(0, ndim))] = True
    first = [int(rng.choice([1, 2, 3, 5, 9, 70])) for _ in range(ndim)]
    shapes = []
    for _ in range(n):
        shape = [int(rng.choice([0, 1, 2, 4, 7, 13, 40])) if reduced[d] else first[d]
                 for d in range(ndim)]
        if mode != "batch" and rng.random() < 0.3:
            shape = [max(0, e + int(rng.integers(-1, 2))) for e in shape]
        shapes.append(shape)
    samples = [_values(rng, s, in_dtype) for s in shapes]
    integer_out = out_dtype.kind != "f"
    args = {"dtype": dali_types.to_dali_type(out_dtype),
            "scale": float(rng.choice([1.0, 64.0, 0.5])) if integer_out else
            float(rng.uniform(0.5, 3)),
            "shift": float(rng.choice([0.0, 128.0, -7.25]))}
    if rng.random() < 0.4:
        args["epsilon"] = float(rng.choice([1e-3, 0.5, 100.0]))
    if rng.random() < 0.3:
        args["ddof"] = int(rng.integers(0, 3))
    tensors = {}
    if mode == "computed":
        reduced = [True] * ndim
    elif mode in ("axes", "batch"):
        args["axes"] = [d for d in range(ndim) if reduced[d]]
        args["batch"] = mode == "batch"
    elif mode in ("mean", "stddev"):
        args["axes"] = [d for d in range(ndim) if reduced[d]]
        args[mode] = float(rng.uniform(-20, 20) if mode == "mean" else
                           rng.choice([0.0, 0.5, 30.0]))
    elif mode == "scalars":
        reduced = [True] * ndim
        args["mean"], args["stddev"] = float(rng.uniform(-20, 20)), float(rng.uniform(0.1, 9))
    else:
        for name in rng.choice(["mean", "stddev"], int(rng.integers(1, 3)), replace=False):
            tensors[str(name)] = [
                (rng.uniform(-20, 20, _param_shape(s.shape, reduced)) if name == "mean" else
                 rng.choice([0.0, 0.5, 30.0], _param_shape(s.shape, reduced))).astype(_F32)
                for s in samples]
        reduced = [all(t.shape[d] == 1 for t in next(iter(tensors.values())))
                   for d in range(ndim)]
    return samples, reduced, args, tensors


def _param_shape(shape, reduced):
    return tuple(1 if r else e for e, r in zip(shape, reduced, strict=True))


def normalize_expected(samples, reduced, args, tensors):
    names = list(tensors)

    def build(fn, x, *nodes):
        return fn.normalize(x, **args, **dict(zip(names, nodes, strict=True)))

    return run_op(build, [samples, *(tensors[k] for k in names)])[0]


def normalize_kernel(backend, samples, reduced, args, tensors):
    """The kernels' output samples, run by `backend`: the passes of `Normalize.run_cpu`."""
    in_dtype = samples[0].dtype
    out_dtype = np.dtype(dali_types.to_numpy_type(args["dtype"]))
    shapes = [s.shape for s in samples]
    stats, out = _normalize_gpu.launches(shapes, reduced, in_dtype, out_dtype)
    total = int(stats.poff[-1])
    scale, eps = _F32(args["scale"]), _F32(args.get("epsilon", 0.0))
    ddof = np.int32(args.get("ddof", 0))
    op = types.SimpleNamespace(args={"scale": args["scale"], "epsilon": args.get("epsilon", 0.0),
                                     "mean": args.get("mean"), "stddev": args.get("stddev"),
                                     "ddof": int(ddof)})
    ws = types.SimpleNamespace(arg_given=lambda name: name in args)
    mean = _normalize.Normalize._given_means(op, ws, tensors.get("mean"), total)
    inv = _normalize.Normalize._given_factors(op, ws, tensors.get("stddev"), total)
    src = _pack(samples, in_dtype)
    sums = np.zeros(total, np.float64)

    def run_stats(flags, mean, inv):
        got = backend(NORMALIZE_CU, stats, [src, stats.samples, sums, mean, inv,
                                            np.int32(flags), scale, eps, ddof])
        return got[2:5]

    if args.get("batch"):
        def batch_sums(flags, mean):
            zeros = np.zeros(total, _F32)
            return run_stats(flags, zeros if mean is None else mean, zeros)[0]

        batch = types.SimpleNamespace(num_samples=len(samples),
                                      shapes=np.array(shapes, np.int64))
        mean, inv = _normalize.Normalize._batch_statistics(op, batch, stats.poff, mean, inv,
                                                           batch_sums)
    else:
        flags = 0
        if mean is None:
            mean, flags = np.zeros(total, _F32), flags | _normalize_gpu.MEAN
        if inv is None:
            inv, flags = np.zeros(total, _F32), flags | _normalize_gpu.INV
        if flags:
            _, mean, inv = run_stats(flags, mean, inv)
    size = sum(s.size for s in samples)
    got = backend(NORMALIZE_CU, out, [src, np.zeros(size, out_dtype), out.samples,
                                      np.ascontiguousarray(mean, _F32),
                                      np.ascontiguousarray(inv, _F32),
                                      _F32(args["shift"])])
    return _unpack(got[1], shapes)
