"""Random cases of the math family's and the random generators' GPU kernels, shared by the
emulated (test_emulation_*.py) and the device (test_cupy_*.py) tests: each case runs the CPU
operator for the expected output and the kernel through a backend, `emulated` (g++ and
emulate.py) or `on_device` (CuPy), with the arguments its host helper builds.

Arithmetic cases are expressions in DALI's grammar (`expression_desc`) on batches of several
inputs of any supported type, ragged and broadcast per sample (full shape, axes of extent 1,
fewer axes, one value).
"""

from __future__ import annotations

import types

import emulate
import numpy as np
from gpu_cases import _pack, _unpack
from pipeline_utils import run_op

from dali import _types, tensors
from dali._executor import errors as exec_errors
from dali._ext import rng as _rng
from dali._operator import make_spec
from dali.ops.math import _arithmetic_gpu, arithmetic
from dali.ops.math import _arithmetic_kernels as kernels
from dali.ops.random import _random_gpu
from dali.ops.reductions import _reductions_gpu

ARITH_CU = _arithmetic_gpu.__file__.replace("_arithmetic_gpu.py", "arithmetic.cu")
RANDOM_CU = _random_gpu.__file__.replace("_random_gpu.py", "random.cu")
REDUCTIONS_CU = _reductions_gpu.__file__.replace("_reductions_gpu.py", "reductions.cu")


# ---- backends ----------------------------------------------------------------------------
def emulated(cu, launch, inputs, args):
    """Run `launch` of `cu` on the CPU; `inputs` are the arrays whose addresses the kernel
    gets as one uint64 array (`args(addresses)` gives the kernel's arguments); returns the
    arguments (numpy arrays written in place)."""
    addresses = np.array([a.ctypes.data for a in inputs], np.uint64)
    values = args(addresses)
    emulate.load(cu).launch(launch.kernel, launch.grid, launch.block, values)
    return values


def on_device(cu, launch, inputs, args):
    """Run `launch` of `cu` on CUDA device 0 (as `emulated`); returns the arguments copied
    back to numpy."""
    import cupy

    from dali._gpu import modules

    dev_inputs = [cupy.asarray(a) for a in inputs]
    addresses = np.array([a.data.ptr for a in dev_inputs], np.uint64)
    dev = [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in args(addresses)]
    modules.kernel(cu, launch.kernel, 0)(launch.grid, launch.block, tuple(dev))
    cupy.cuda.Device(0).synchronize()
    return [cupy.asnumpy(a) if isinstance(a, cupy.ndarray) else a for a in dev]


# ---- arithmetic --------------------------------------------------------------------------
ARITH_TYPES = _arithmetic_gpu.TYPES
EXACT_BINARY = ("add", "sub", "mul", "fdiv", "div", "mod", "pow", "min", "max", "bitand",
                "bitor", "bitxor", "lshift", "rshift", "eq", "neq", "lt", "leq", "gt", "geq")
EXACT_UNARY = ("minus", "plus", "abs", "bitnot", "sqrt", "rsqrt", "fabs", "floor", "ceil")
_NAMES = {np.dtype(t): n for t, n in (
    (np.bool_, "bool"), (np.int8, "int8"), (np.uint8, "uint8"), (np.int16, "int16"),
    (np.uint16, "uint16"), (np.int32, "int32"), (np.uint32, "uint32"), (np.int64, "int64"),
    (np.uint64, "uint64"), (np.float32, "float32"), (np.float64, "float64"))}


class ArithCase(types.SimpleNamespace):
    """desc, ints, reals: the operator's arguments; inputs: per input, its samples;
    layouts: per input."""


def arith_values(rng, shape, dtype, special=True):
    """Random values of `dtype`: small and extreme integers (zeros rare), floats at several
    scales with NaN, infinities and signed zeros."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind == "f":
        v = rng.standard_normal(size) * rng.choice([1.0, 10.0, 1e4, 1e-3], size)
        if special:
            picks = rng.random(size)
            v = np.where(picks < 0.03, np.nan, v)
            v = np.where((picks >= 0.03) & (picks < 0.05), np.inf, v)
            v = np.where((picks >= 0.05) & (picks < 0.07), -np.inf, v)
            v = np.where((picks >= 0.07) & (picks < 0.09), -0.0, v)
        return v.astype(dtype).reshape(shape)
    info = np.iinfo(dtype)
    small = rng.integers(max(info.min, -40), min(info.max, 40), size, endpoint=True)
    small = np.where(small == 0, 1, small)
    big = rng.integers(info.min, info.max, size, dtype=dtype, endpoint=True)
    v = np.where(rng.random(size) < 0.8, small.astype(dtype), big)
    if special and size:
        v[rng.integers(0, size)] = info.min if rng.random() < 0.5 else info.max
    return v.astype(dtype).reshape(shape)


def arith_case(seed, ops=None):
    """A random ArithCase: 1 to 3 inputs of random types, a valid random expression of depth
    at most 3 over them and typed constants, on a ragged batch of 1 to 4 samples."""
    rng = np.random.default_rng(seed)
    while True:
        n_in = int(rng.integers(1, 4))
        dtypes = [ARITH_TYPES[int(rng.integers(0, len(ARITH_TYPES)))] for _ in range(n_in)]
        ints, reals = [], []
        try:
            desc, _ = _expression(rng, 3, dtypes, ints, reals, ops)
        except TypeError:
            continue
        if all(f"&{j}" in desc for j in range(n_in)):   # as the DataNode front end makes
            break
    n = int(rng.integers(1, 5))
    ndim = int(rng.integers(0, 4))
    inputs = [[] for _ in range(n_in)]
    for _ in range(n):
        shape = [int(rng.integers(1, 6)) for _ in range(ndim)]
        for j in range(n_in):
            kind = rng.integers(0, 4)
            if kind == 0 or not shape:
                s = list(shape)
            elif kind == 1:
                s = [e if rng.random() < 0.5 else 1 for e in shape]
            elif kind == 2:
                s = shape[int(rng.integers(0, len(shape) + 1)):]
            else:
                s = []
            inputs[j].append(arith_values(rng, s, dtypes[j]))
    # every input has the same ndim in every sample; give the others the most dimensions
    for j in range(n_in):
        nd = max(x.ndim for x in inputs[j])
        inputs[j] = [x.reshape((1,) * (nd - x.ndim) + x.shape) for x in inputs[j]]
    return ArithCase(desc=desc, ints=ints, reals=reals, inputs=inputs, layouts=[None] * n_in)


def _expression(rng, depth, dtypes, ints, reals, ops, root=True):
    """(desc, DALI type) of a random subexpression (an operation at the root); TypeError where
    the type rules reject it."""
    if depth == 0 or (not root and rng.random() < 0.25):
        if rng.random() < 0.75:
            j = int(rng.integers(0, len(dtypes)))
            return f"&{j}", _types.dali_type_of(dtypes[j])
        dtype = ARITH_TYPES[int(rng.integers(0, len(ARITH_TYPES)))]
        t = _types.dali_type_of(dtype)
        if dtype.kind == "f":
            reals.append(float(rng.choice([0.5, -2.0, 3.25, 1e10, -0.0, 7.0])))
            return f"${len(reals) - 1}:{_NAMES[dtype]}", t
        if dtype == np.bool_:
            ints.append(int(rng.integers(0, 2)))
            return f"${len(ints) - 1}:bool", t
        info = np.iinfo(dtype)
        choices = [v for v in (0, 1, 2, 3, -1, -7, 100, int(info.max), int(info.min))
                   if info.min <= v <= info.max]
        ints.append(choices[int(rng.integers(0, len(choices)))])
        return f"${len(ints) - 1}:{_NAMES[dtype]}", t
    names = ops or (EXACT_BINARY + EXACT_UNARY + ("clamp",))
    name = str(names[int(rng.integers(0, len(names)))])
    subs = [_expression(rng, depth - 1, dtypes, ints, reals, ops, False)
            for _ in range(kernels.ARITY[name])]
    t = kernels.result_type(name, [s[1] for s in subs])
    if name in ("pow", "fpow", "atan2") and _types.is_float(t) and ops is None:
        raise TypeError("inexact")       # float pow is tested with a tolerance
    return f"{name}({' '.join(s[0] for s in subs)})", t


def _op(case):
    schema = arithmetic.ArithmeticGenericOp.schema
    consts = {"expression_desc": case.desc, "integer_constants": case.ints or None,
              "real_constants": case.reals or None}
    op = arithmetic.ArithmeticGenericOp(make_spec(
        schema, "arith", "cpu", consts, (), seed=None, origin=[], max_batch_size=64,
        num_threads=1, device_id=None))
    op.setup()
    return op


def _raise(i, message, exc_type=ValueError):
    return exec_errors.SampleError(i, message, exc_type)


def arith_plan(case):
    """(operator, plan) of the CPU path's `infer` on the case's batch."""
    op = _op(case)
    tls = [tensors.TensorListCPU(samples, layout)
           for samples, layout in zip(case.inputs, case.layouts, strict=True)]
    ws = types.SimpleNamespace(inputs=tls, batch_size=len(case.inputs[0]), sample_error=_raise)
    return op, op.infer(ws)


def arith_expected(case):
    """The CPU operator's output samples, or the index of the sample its integer division by
    zero names."""
    try:
        return run_op(lambda fn, *x: fn._arithmetic_generic_op(
            *x, expression_desc=case.desc, integer_constants=case.ints or None,
            real_constants=case.reals or None), case.inputs, layouts=case.layouts)[0]
    except Exception as e:          # the pipeline's error, naming the sample
        if "Integer division by zero" not in str(e):
            raise
        return int(str(e).split("sample ", 1)[1].split()[0].strip(":,."))


def arith_kernel(backend, case):
    """(output samples, per-sample error flags) of the kernel, run by `backend`."""
    op, plan = arith_plan(case)
    program = _arithmetic_gpu.compile(op.tree, plan.prog)
    desc = plan.outputs[0]
    shapes = [tuple(s) for s in desc.shapes]
    in_dtypes = [samples[0].dtype for samples in case.inputs]
    launch = _arithmetic_gpu.launch(program, np.array(shapes, np.int64).reshape(len(shapes), -1),
                                    [[x.shape for x in samples] for samples in case.inputs],
                                    in_dtypes)
    flat_in = [_pack(samples, d) for samples, d in zip(case.inputs, in_dtypes, strict=True)]
    out = np.zeros(sum(int(np.prod(s, dtype=np.int64)) for s in shapes), program.out_dtype)
    errors = np.zeros(len(shapes), np.int32)
    values = backend(ARITH_CU, launch, flat_in,
                     lambda addresses: list(launch.arguments(addresses, out, errors)))
    return _unpack(values[6], shapes), values[-1]


# ULP tolerances of the math functions: the emulation (glibc's float and double functions)
# against the CPU operator (NumPy's: its own SIMD code for some float32 functions, SVML or libm
# for others), measured with margin; on a device CUDA's documented maximum errors add to them.
MATH_FUNCTIONS = ("sqrt", "rsqrt", "cbrt", "exp", "log", "log2", "log10", "fabs", "floor",
                  "ceil", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                  "asinh", "acosh", "atanh")
EMULATION_ULPS = {
    np.dtype(np.float32): dict(cbrt=3, exp=3, log=3, log2=3, log10=3, sin=2, cos=2, tan=4, asin=3,
                               acos=3, atan=3, sinh=3, cosh=3, tanh=4, asinh=2, acosh=2, atanh=3,
                               pow=2, atan2=3),
    np.dtype(np.float64): dict(cbrt=4, exp=2, log=2, log2=2, log10=3, sin=1, cos=1, tan=2, asin=2,
                               acos=2, atan=2, sinh=3, cosh=2, tanh=3, asinh=2, acosh=2, atanh=2,
                               pow=2, atan2=2),
}
CUDA_ULPS = {      # CUDA C Programming Guide, "Mathematical Functions" (no fast math)
    np.dtype(np.float32): dict(cbrt=1, exp=2, log=1, log2=1, log10=2, sin=2, cos=2, tan=4, asin=2,
                               acos=2, atan=2, sinh=3, cosh=2, tanh=2, asinh=3, acosh=4, atanh=3,
                               pow=4, atan2=3),
    np.dtype(np.float64): dict(cbrt=1, exp=1, log=1, log2=1, log10=1, sin=2, cos=2, tan=2, asin=2,
                               acos=2, atan=2, sinh=2, cosh=1, tanh=1, asinh=3, acosh=3, atanh=2,
                               pow=2, atan2=2),
}


def math_case(seed, name, dtype):
    """An ArithCase of `name(&0)` (or `name(&0 &1)` for pow, fpow, atan2, mod) on values of
    `dtype` in the function's domain, with some outside it and special values."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    n = 600

    def values():
        if dtype.kind != "f":
            return arith_values(rng, (n,), dtype)
        x = rng.standard_normal(n) * rng.choice([0.3, 3.0, 40.0, 1e4], n)
        if name in ("asin", "acos", "atanh"):
            x = rng.random(n) * 2 - 1
        elif name == "acosh":
            x = np.abs(x) + 1
        elif name in ("log", "log2", "log10", "sqrt", "rsqrt", "pow", "fpow"):
            x = np.abs(x)
        x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-30]
        return x.astype(dtype)

    binary = name in ("pow", "fpow", "atan2", "mod")
    inputs = [[values()], [values()]] if binary else [[values()]]
    desc = f"{name}(&0 &1)" if binary else f"{name}(&0)"
    return ArithCase(desc=desc, ints=[], reals=[], inputs=inputs, layouts=[None] * len(inputs))


# ---- random generators ---------------------------------------------------------------------
RANDOM_OPS = ("uniform", "normal", "coin_flip", "choice", "beta")
_RANDOM_TYPES = {
    "uniform": (np.float32, np.float64, np.uint8, np.int8, np.int16, np.uint16, np.int32,
                np.uint32, np.int64, np.uint64),
    "normal": (np.float32, np.float64, np.uint8, np.int16, np.int32, np.int64),
    "coin_flip": (np.int32, np.uint8, np.bool_),
    "choice": (np.int32, np.int64, np.uint8, np.int16),
    "beta": (np.float32, np.float64),
}


class RandomCase(types.SimpleNamespace):
    """op (a RANDOM_OPS name), dtype, shapes (per sample), params (name -> per-sample float
    values; choice: `a`, the range), seed (the operator's)."""


def random_case(seed, op=None):
    """A random RandomCase: 1 to 5 samples of random shapes (some empty), per-sample
    parameters in the operator's domain."""
    rng = np.random.default_rng(seed)
    op = op or RANDOM_OPS[seed % len(RANDOM_OPS)]
    types_ = _RANDOM_TYPES[op]
    dtype = np.dtype(types_[int(rng.integers(0, len(types_)))])
    n = int(rng.integers(1, 6))
    ndim = int(rng.integers(0, 3))
    shapes = [tuple(int(rng.integers(0 if rng.random() < 0.1 else 1, 40)) for _ in range(ndim))
              for _ in range(n)]
    if op == "uniform":
        if dtype.kind == "f":
            lo = rng.uniform(-100, 100, n)
            params = {"range": [[a, a + w] for a, w in zip(lo, rng.uniform(0.1, 50, n),
                                                           strict=True)]}
        else:
            info = np.iinfo(dtype)
            lo = rng.integers(max(info.min, -100), min(info.max, 100) - 60, n)
            params = {"range": [[float(a), float(a + w)] for a, w in
                                zip(lo, rng.integers(1, 60, n), strict=True)]}
    elif op == "normal":
        params = {"mean": rng.uniform(-10, 100, n).tolist(),
                  "stddev": rng.uniform(-5, 30, n).tolist()}
    elif op == "coin_flip":
        params = {"probability": rng.choice([0.0, 0.3, 0.5, 0.9, 1.0], n).tolist()}
    elif op == "choice":
        params = {"a": rng.integers(1, 50, n).tolist()}
    else:
        params = {"alpha": rng.choice([0.2, 0.7, 1.0, 2.5, 9.0], n).tolist(),
                  "beta": rng.choice([0.3, 1.0, 4.0], n).tolist()}
    return RandomCase(op=op, dtype=dtype, shapes=shapes, params=params,
                      seed=int(rng.integers(1, 2**31)))


def random_expected(case):
    """The CPU operator's output samples (first iteration), parameters as argument inputs,
    the shapes from a `shape_like` input."""
    likes = [np.zeros(s, np.uint8) for s in case.shapes]
    names = sorted(case.params)
    columns = [[np.asarray(v, case.dtype if name == "a" else np.float32)
                for v in case.params[name]] for name in names]
    dtype = _types.to_dali_type(case.dtype)

    def build(fn, like, *args):
        kwargs = dict(zip(names, args, strict=True))
        if case.op == "choice":
            return fn.random.choice(kwargs["a"], like, seed=case.seed)
        return getattr(fn.random, case.op)(like, seed=case.seed, dtype=dtype, **kwargs)

    return run_op(build, [likes, *columns])[0]


def random_launch(case):
    """The Launch of the case's kernel: the key of the operator's seed in epoch 0, sample ids
    0..n-1, and the mode and per-sample parameters the CPU operator hands `draw_batch`."""
    key = _rng.mix_key(case.seed, 0)
    ids = np.arange(len(case.shapes), dtype=np.int64)
    p = {k: np.asarray(v, np.float64) for k, v in case.params.items()}
    p = {k: v.astype(np.float32).astype(np.float64) if k != "a" else v for k, v in p.items()}
    args = (case.shapes, case.dtype, key, ids)
    if case.op == "uniform":
        lo, hi = p["range"][:, 0], p["range"][:, 1]
        if case.dtype.kind in "iu":
            lo, hi = np.trunc(lo), np.trunc(hi)
            return _random_gpu.draw("rint", *args, 0, lo, hi - lo)
        return _random_gpu.draw("uniform", *args, 0, lo, hi - lo, hi)
    if case.op == "normal":
        return _random_gpu.draw("normal", *args, 0, p["mean"], p["stddev"])
    if case.op == "coin_flip":
        return _random_gpu.draw("coin", *args, 0, p["probability"])
    if case.op == "choice":
        return _random_gpu.draw("index", *args, 0, p["a"])
    return _random_gpu.beta(*args, p["alpha"], p["beta"])


def random_kernel(backend, case):
    """(output samples, per-sample failure flags of beta) of the kernel, run by `backend`."""
    launch = random_launch(case)
    out = np.zeros(sum(int(np.prod(s, dtype=np.int64)) for s in case.shapes), case.dtype)
    failed = np.zeros(len(case.shapes), np.int32)
    rest = (failed,) if case.op == "beta" else (np.uint64(0),)
    values = backend(RANDOM_CU, launch, [], lambda _: list(launch.arguments(out, *rest)))
    return _unpack(values[0], case.shapes), failed


# ---- reductions ----------------------------------------------------------------------------
REDUCTIONS = ("min", "max", "sum", "mean", "mean_square", "rms", "variance", "std_dev")
REDUCE_TYPES = tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                           np.uint32, np.int64, np.uint64, np.float32))


class ReduceCase(types.SimpleNamespace):
    """op, samples, axes (None: all), keep_dims, dtype (the `dtype` argument or None),
    means (variance/std_dev: per sample, one value or one per output element), ddof."""


def reduce_case(seed, op=None):
    """A random ReduceCase: ragged samples of 0 to 4 dimensions (extents of 1 and 0 too), a
    random set of axes, keep_dims, every input type, the `dtype` choices the operation has,
    means of both shapes, ddof."""
    rng = np.random.default_rng(seed)
    op = op or REDUCTIONS[seed % len(REDUCTIONS)]
    dtype = REDUCE_TYPES[int(rng.integers(0, len(REDUCE_TYPES)))]
    ndim = int(rng.integers(0, 5))
    n = int(rng.integers(1, 5))
    samples = []
    for _ in range(n):
        shape = [int(rng.choice([0, 1, 2, 3, 5, 9, 17])) if rng.random() < 0.2
                 else int(rng.integers(1, 12)) for _ in range(ndim)]
        samples.append(arith_values(rng, shape, dtype, special=False) if dtype.kind != "f"
                       else (rng.standard_normal(shape) * 100).astype(dtype))
    axes = None
    if ndim and rng.random() < 0.8:
        axes = sorted(rng.choice(ndim, int(rng.integers(1, ndim + 1)), replace=False).tolist())
        if rng.random() < 0.3:
            axes = [a - ndim for a in axes]
    out_type = None
    if op in ("sum", "mean", "rms") and rng.random() < 0.5:
        out_type = dtype if rng.random() < 0.5 else np.dtype(np.float32)
    case = ReduceCase(op=op, samples=samples, axes=axes, keep_dims=bool(rng.integers(0, 2)),
                      dtype=out_type, means=None, ddof=0)
    if op in ("variance", "std_dev"):
        reduced = reduced_flags(case)
        per_element = rng.random() < 0.5
        case.means = [np.asarray(rng.standard_normal(
            tuple(1 if r and case.keep_dims else e for e, r in zip(x.shape, reduced, strict=True)
                  if case.keep_dims or not r) if per_element else ()) * 50, np.float32)
            for x in samples]
        case.ddof = int(rng.integers(0, 2))
    return case


def reduced_flags(case):
    ndim = case.samples[0].ndim
    flags = np.zeros(ndim, bool)
    flags[list(range(ndim)) if case.axes is None else case.axes] = True
    return flags


def reduce_expected(case):
    """The CPU operator's output samples."""
    kwargs = {"keep_dims": case.keep_dims}
    if case.axes is not None:
        kwargs["axes"] = case.axes
    if case.dtype is not None:
        kwargs["dtype"] = _types.to_dali_type(case.dtype)
    if case.means is not None:
        return run_op(lambda fn, x, m: getattr(fn.reductions, case.op)(
            x, m, ddof=case.ddof, **kwargs), [case.samples, case.means])[0]
    return run_op(lambda fn, x: getattr(fn.reductions, case.op)(x, **kwargs),
                  [case.samples])[0]


def reduce_kernel(backend, case, out_dtype, out_shapes):
    """The kernel's output samples (of the CPU operator's type and shapes), run by
    `backend`."""
    src_dtype = case.samples[0].dtype
    means = None if case.means is None else [m.shape for m in case.means]
    launch = _reductions_gpu.launch(case.op, reduced_flags(case),
                                    [x.shape for x in case.samples], src_dtype, out_dtype,
                                    means, ddof=case.ddof)
    out = np.zeros(sum(int(np.prod(s, dtype=np.int64)) for s in out_shapes), out_dtype)
    inputs = [_pack(case.samples, src_dtype)]
    if case.means is not None:
        inputs.append(_pack(case.means, np.float32))
    values = backend(REDUCTIONS_CU, launch, inputs, lambda addresses: list(launch.arguments(
        inputs[0], out, inputs[1] if len(inputs) > 1 else np.uint64(0))))
    return _unpack(values[1], out_shapes)
