"""Random cases of fn.jitter's kernels (`dali/ops/image/jitter.cu`), shared by the emulated
and the device tests: the CPU kernel (`displace_storage`, what `Jitter.run_cpu` calls) with a
given Philox key and sample ids gives the expected output; the kernel runs through a backend
(`gpu_cases.emulated` or `gpu_cases.on_device`) with the same key and ids.
"""

from __future__ import annotations

import numpy as np
from dali._ext.tensor_storage import BatchStorage
from gpu_cases import _pack, _unpack

from dali._ext.kernels import displace as _displace
from dali.ops.image import _jitter_gpu

JITTER_CU = _jitter_gpu.__file__.replace("_jitter_gpu.py", "jitter.cu")


def jitter_case(seed):
    """(samples, masks, interp, fill, degree, key, sample_ids): uint8 or float32 HWC images
    (empty ones too), 1 to 4 channels, masks, NN or linear, fills, degrees 1 to 9."""
    rng = np.random.default_rng(seed)
    dtype = (np.uint8, np.float32)[seed % 2]
    n = int(rng.integers(1, 5))
    channels = int(rng.integers(1, 5))
    samples = []
    for i in range(n):
        shape = (int(rng.integers(0 if i == 2 else 1, 13)), int(rng.integers(1, 13)), channels)
        x = rng.integers(0, 256, shape) if dtype == np.uint8 else rng.normal(0, 50, shape)
        samples.append(x.astype(dtype))
    masks = (rng.random(n) < 0.8).astype(np.int32)
    interp = int(seed // 2 % 2)
    fill = float(rng.integers(0, 256)) if dtype == np.uint8 else float(rng.normal(0, 20))
    degree = int(rng.integers(1, 10))
    key = int(rng.integers(0, 2**63)) * 2 + 1
    sample_ids = rng.integers(0, 2**40, n)
    return samples, masks, interp, fill, degree, key, sample_ids


def jitter_expected(samples, masks, interp, fill, degree, key, sample_ids):
    """The CPU kernel's output."""
    src = BatchStorage.from_arrays(samples)
    dst = BatchStorage.allocate(samples[0].dtype, [s.shape for s in samples])
    _displace.displace_storage(None, src, dst, "jitter", masks, interp, fill, degree=degree,
                               key=key, sample_ids=sample_ids)
    return [np.array(dst.sample(i)) for i in range(len(samples))]


def jitter_kernel(backend, samples, masks, interp, fill, degree, key, sample_ids):
    """The kernel's output samples, run by `backend`."""
    dtype = samples[0].dtype
    shapes = [s.shape for s in samples]
    launch = _jitter_gpu.launch(shapes, masks, sample_ids, dtype)
    src = _pack(samples, dtype)
    got = backend(JITTER_CU, launch, [src, np.zeros_like(src), launch.samples, np.uint64(key),
                                      np.uint32(0), np.int32(degree), np.int32(interp),
                                      np.float32(fill)])
    return _unpack(got[1], shapes)
