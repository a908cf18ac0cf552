"""Random cases of the noise operators' kernel (`dali/ops/noise/noise.cu`), shared by the
emulated and the device tests: the CPU kernel (`noise_batch`, what `Noise.run_cpu` calls) with
a given Philox key and sample ids gives the expected output; the kernel runs through a backend
(`gpu_cases.emulated` or `gpu_cases.on_device`) with the same key, ids, parameters and groups.
"""

from __future__ import annotations

import numpy as np
from dali._ext.tensor_storage import BatchStorage
from gpu_cases import _pack, _unpack

from dali._ext.kernels import noise as _kernel
from dali.ops.noise import _noise_gpu

NOISE_CU = _noise_gpu.__file__.replace("_noise_gpu.py", "noise.cu")
MODES = ("gaussian", "salt_and_pepper", "shot")
DTYPES = tuple(_noise_gpu.DTYPES)


def _data(rng, shape, dtype):
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * 60 + 40).astype(dtype)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -300), min(info.max, 300)
    x = rng.integers(lo, hi, shape, endpoint=True).astype(dtype)
    x.reshape(-1)[:2] = (info.min, info.max)[:x.size]       # saturation at both ends
    return x


def noise_case(seed, mode=None):
    """(mode, samples, params, groups, key, sample_ids): a batch of 0 to 4 samples of one type
    (empty samples too), per-sample parameters of `mode` (by default, one by the seed) and,
    for salt and pepper, channel-last or channel-first groups or none."""
    rng = np.random.default_rng(seed)
    mode = mode or MODES[seed % 3]
    dtype = np.dtype(DTYPES[seed % len(DTYPES)])
    n = int(rng.integers(0, 5)) if seed % 7 == 6 else int(rng.integers(1, 5))
    channels = int(rng.integers(1, 5))
    samples = [_data(rng, (int(rng.integers(0 if i == 2 else 1, 9)), int(rng.integers(1, 9)),
                           channels), dtype) for i in range(n)]
    params = np.zeros((n, 4))
    groups = None
    if mode == "gaussian":
        params[:, 0] = rng.normal(0, 5, n)
        params[:, 1] = rng.uniform(0, 30, n)
    elif mode == "salt_and_pepper":
        params[:, 0] = rng.uniform(0, 1, n)
        params[:, 1] = rng.uniform(0, 1, n)
        info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
        params[:, 2] = 1.0 if dtype.kind == "f" else float(info.max)
        params[:, 3] = -1.0 if dtype.kind == "f" else float(info.min)
        layout = seed // 3 % 3                  # per_channel, channel-last, channel-first
        if layout:
            groups = np.ones((n, 2), np.int64)
            groups[:, 0] = channels
            if layout == 2:
                samples = [np.ascontiguousarray(np.moveaxis(s, -1, 0)) for s in samples]
                groups[:, 1] = [s[0].size for s in samples]
    else:
        # factors below and above 1: Poisson means on both sides of 10 (inversion and PTRS)
        params[:, 0] = rng.choice([0.0, 0.05, 0.5, 3.0, 40.0], n)
    key = int(rng.integers(0, 2**63)) * 2 + 1
    sample_ids = rng.integers(0, 2**40, n)
    return mode, samples, params, groups, key, sample_ids


def noise_expected(mode, samples, params, groups, key, sample_ids):
    """The CPU kernel's output."""
    if not samples:
        return []
    src = BatchStorage.from_arrays(samples)
    dst = BatchStorage.allocate(samples[0].dtype, [s.shape for s in samples])
    _kernel.noise_batch(None, src, dst, key, sample_ids, mode, params, groups)
    return [np.array(dst.sample(i)) for i in range(len(samples))]


def noise_kernel(backend, mode, samples, params, groups, key, sample_ids):
    """The kernel's output samples, run by `backend`."""
    dtype = samples[0].dtype if samples else np.dtype(np.uint8)
    shapes = [s.shape for s in samples]
    launch = _noise_gpu.launch(mode, shapes, dtype, sample_ids, params, groups)
    src = _pack(samples, dtype)
    dst = np.zeros_like(src)
    got = backend(NOISE_CU, launch, list(launch.arguments(src, dst, key)))
    return _unpack(got[1], shapes)
