"""Random cases of fn.one_hot's kernels (`dali/ops/tensor/one_hot.cu`), shared by the
emulated and the device tests: the CPU operator through a pipeline gives the expected output,
the kernel runs through a backend (`gpu_cases.emulated` or `gpu_cases.on_device`) with the
plan's rows and row lengths and the operator's on/off bit patterns.
"""

from __future__ import annotations

import numpy as np
from gpu_cases import _pack, _unpack
from pipeline_utils import run_op

from dali import types as dali_types
from dali.ops.tensor import _one_hot_gpu
from dali.ops.tensor import one_hot as _one_hot

ONE_HOT_CU = _one_hot_gpu.__file__.replace("_one_hot_gpu.py", "one_hot.cu")
SOURCES = tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                      np.uint32, np.int64, np.uint64, np.float32, np.float64))
OUTPUTS = tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                      np.uint32, np.int64, np.uint64, np.float32, np.float64))


def one_hot_case(seed):
    """(samples, args): indices around [0, classes) (fractions, NaN and huge values for
    floats, the type's limits for integers), any rank and axis, on/off values that wrap or
    saturate in the output type."""
    rng = np.random.default_rng(seed)
    src = SOURCES[seed % len(SOURCES)]
    classes = int(rng.choice([0, 1, 3, 5, 6]))
    ndim = int(rng.integers(0, 4))
    samples = []
    for _ in range(int(rng.integers(1, 5))):
        shape = tuple(int(rng.integers(0 if rng.random() < 0.1 else 1, 5)) for _ in range(ndim))
        if src.kind == "f":
            v = rng.uniform(-2.5, classes + 1.5, shape)
            flat = v.reshape(-1)
            if flat.size > 3:
                flat[:3] = rng.choice([np.nan, np.inf, -np.inf, 1e300, -0.99, 2**63], 3)
            with np.errstate(over="ignore"):
                samples.append(v.astype(src))
        else:
            info = np.iinfo(src)
            v = rng.integers(max(info.min, -2), classes + 2, shape).astype(src)
            flat = v.reshape(-1)
            if flat.size > 2:
                flat[:2] = [info.min, info.max]
            samples.append(v)
    args = {"num_classes": classes, "axis": int(rng.integers(-1, ndim + 1)),
            "dtype": dali_types.to_dali_type(OUTPUTS[int(rng.integers(0, len(OUTPUTS)))]),
            "on_value": float(rng.choice([1.0, 300.0, -7.5, 2.5e9])),
            "off_value": float(rng.choice([0.0, -1.0, 0.25, 70000.0]))}
    return samples, args


def one_hot_expected(samples, args):
    return run_op(lambda fn, x: fn.one_hot(x, **args), [samples])[0]


def one_hot_kernel(backend, samples, args):
    """The kernel's output samples, run by `backend`."""
    dtype = np.dtype(dali_types.to_numpy_type(args["dtype"]))
    classes = args["num_classes"]
    ndim = samples[0].ndim
    axis = ndim if args["axis"] == -1 else args["axis"]
    outer = [int(np.prod(s.shape[:axis], dtype=np.int64)) for s in samples]
    inner = [int(np.prod(s.shape[axis:], dtype=np.int64)) for s in samples]
    launch = _one_hot_gpu.launch(outer, inner, classes,
                                 _one_hot._bits(args["on_value"], dtype),
                                 _one_hot._bits(args["off_value"], dtype), samples[0].dtype,
                                 dtype.itemsize)
    shapes = [(*s.shape[:axis], classes, *s.shape[axis:]) for s in samples]
    size = sum(int(np.prod(s, dtype=np.int64)) for s in shapes)
    word = np.dtype(f"u{dtype.itemsize}")
    got = backend(ONE_HOT_CU, launch, [_pack(samples, samples[0].dtype), np.zeros(size, word),
                                       launch.samples, launch.classes, launch.on, launch.off])
    return _unpack(got[1].view(dtype), shapes)
