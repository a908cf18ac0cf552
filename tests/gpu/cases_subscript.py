"""Random cases of `x[...]`'s kernels (`dali/ops/tensor/subscript.cu`), shared by the emulated
and the device tests: per-sample index tuples as `TensorSubscript.infer` plans them (integer
indices made non-negative, slices with any bounds and steps, negative ones too); the expected
output is the CPU operator's copy, `sample[index]`."""

from __future__ import annotations

import numpy as np
from gpu_cases import _pack, _random, _unpack

from dali.ops.tensor import _subscript_gpu

SUBSCRIPT_CU = _subscript_gpu.__file__.replace("_subscript_gpu.py", "subscript.cu")
DTYPES = (np.uint8, np.bool_, np.int16, np.float16, np.float32, np.int32, np.float64,
          np.int64)


def _bound(rng, extent):
    return None if rng.random() < 0.3 else int(rng.integers(-extent - 2, extent + 3))


def subscript_case(seed):
    """(samples, indices): 0 to 5 samples of 1 to 4 dimensions (one ndim for the batch, empty
    extents too) and one index tuple per sample over its leading axes."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(DTYPES[seed % len(DTYPES)])
    ndim = int(rng.integers(1, 5))
    n = int(rng.integers(0, 3)) if seed % 9 == 8 else int(rng.integers(1, 6))
    count = int(rng.integers(1, ndim + 1))
    kinds = rng.integers(0, 3, count)           # 0: integer index, else a slice
    samples, indices = [], []
    for i in range(n):
        shape = [int(rng.integers(1, 7)) for _ in range(ndim)]
        if i == 1 and kinds[-1]:
            shape[count - 1] = 0
        x = _random(rng, shape, dtype) if dtype != np.bool_ else rng.random(shape) < 0.5
        samples.append(x)
        index = []
        for d in range(count):
            if kinds[d] == 0:
                index.append(int(rng.integers(0, shape[d])))
            else:
                step = None if rng.random() < 0.3 else int(rng.choice([-3, -2, -1, 1, 2, 3]))
                index.append(slice(_bound(rng, shape[d]), _bound(rng, shape[d]), step))
        indices.append(tuple(index))
    return samples, indices


def subscript_expected(samples, indices):
    return [np.array(s[ix]) for s, ix in zip(samples, indices, strict=True)]


def subscript_kernel(backend, samples, indices):
    """The kernel's output samples, run by `backend`."""
    dtype = samples[0].dtype if samples else np.dtype(np.uint8)
    launch = _subscript_gpu.launch([s.shape for s in samples], indices, dtype.itemsize)
    shapes = [s[ix].shape for s, ix in zip(samples, indices, strict=True)]
    unsigned = np.dtype(f"u{dtype.itemsize}")
    src = _pack(samples, dtype).view(unsigned)
    size = sum(int(np.prod(s, dtype=np.int64)) for s in shapes)
    got = backend(SUBSCRIPT_CU, launch, [src, np.zeros(max(size, 1), unsigned), launch.samples])
    return _unpack(got[1][:size].view(dtype), shapes)
