"""Random cases of the sample-copy kernels (`dali/ops/_conditional/copy_samples.cu`), shared by
the emulated and the device tests: `_conditional.split` and `_conditional.merge` against the CPU
kernels (`dali._ext.kernels.conditional`), fn.permute_batch against the CPU operator, on batches
of several element types and ragged shapes with empty samples.
"""

from __future__ import annotations

import numpy as np
from dali._ext.tensor_storage import BatchStorage
from gpu_cases import _pack, _random, _unpack
from pipeline_utils import run_op

from dali._ext.kernels import conditional
from dali.ops._conditional import _copy_samples_gpu

COPY_CU = _copy_samples_gpu.__file__.replace("_copy_samples_gpu.py", "copy_samples.cu")
DTYPES = (np.uint8, np.int16, np.float32, np.float64, np.int32)


def batch_case(seed):
    """(samples, mask): 1 to 12 samples of one type, ragged, some empty."""
    rng = np.random.default_rng(seed)
    dtype = DTYPES[seed % len(DTYPES)]
    n = int(rng.integers(1, 13))
    samples = [_random(rng, (int(rng.integers(0, 9)), int(rng.integers(1, 4))), dtype)
               for _ in range(n)]
    mask = rng.random(n) < rng.choice([0.0, 0.5, 1.0])
    return samples, mask


def _bytes(samples):
    sizes = np.array([s.nbytes for s in samples], np.int64)
    return sizes, np.cumsum(sizes) - sizes


def _run(backend, launch, srcs, dsts):
    """Destination buffers after the launch (uint8 arrays: the kernel takes their addresses,
    16-byte aligned as numpy's and CuPy's allocations are)."""
    if launch is None:
        return dsts
    for b in (*srcs, *dsts):
        assert b.ctypes.data % 16 == 0
    return backend(COPY_CU, launch, [*srcs, *dsts, launch.ranges])[2:4]


def _raw(samples):
    return _pack(samples, samples[0].dtype).view(np.uint8) if samples else np.zeros(16, np.uint8)


def _padded(nbytes):
    return np.zeros(max(int(nbytes), 16), np.uint8)


def split_run(backend, samples, mask):
    """(expected (true, false) sample lists from the CPU kernel, the kernel's)."""
    storage = BatchStorage.from_arrays(samples)
    sides = conditional.split(storage, mask, np.arange(len(samples)), None)
    expected = [side[0].samples() for side in sides]
    sizes, offsets = _bytes(samples)
    launch = _copy_samples_gpu.split(sizes, offsets, mask)
    src = _raw(samples)
    t, f = _run(backend, launch, [src, src], [_padded(sizes[mask].sum()),
                                              _padded(sizes[~mask].sum())])
    got = []
    for side, buf in ((mask, t), (~mask, f)):
        picked = [s for s, m in zip(samples, side, strict=True) if m]
        got.append(_unpack(buf[:sum(s.nbytes for s in picked)].view(samples[0].dtype),
                           [s.shape for s in picked]))
    return expected, got


def merge_run(backend, samples, mask):
    """The branches are the split's sides, merged back by `mask`."""
    t = [s for s, m in zip(samples, mask, strict=True) if m]
    f = [s for s, m in zip(samples, mask, strict=True) if not m]
    sides = conditional.split(BatchStorage.from_arrays(samples), mask, np.arange(len(mask)),
                              None)
    st_t, st_f = sides[0][0], sides[1][0]
    out, _, _ = conditional.merge(st_t, st_f, mask, np.arange(len(t)), np.arange(len(f)), None,
                                  None)
    expected = out.samples()
    (ts, to), (fs, fo) = _bytes(t), _bytes(f)
    launch = _copy_samples_gpu.merge(ts, to, fs, fo, mask)
    total = sum(s.nbytes for s in samples)
    dst, _ = _run(backend, launch, [_raw(t), _raw(f)], [_padded(total), _padded(0)])
    return expected, _unpack(dst[:total].view(samples[0].dtype), [s.shape for s in samples])


def permute_run(backend, samples, seed):
    """fn.permute_batch with random indices (repeats, samples left out)."""
    rng = np.random.default_rng(seed)
    indices = [int(i) for i in rng.integers(0, len(samples), len(samples))]
    expected = run_op(lambda fn, x: fn.permute_batch(x, indices=indices), [samples])[0]
    sizes, offsets = _bytes(samples)
    launch = _copy_samples_gpu.gather(sizes, offsets, indices)
    total = int(sizes[indices].sum())
    src = _raw(samples)
    dst, _ = _run(backend, launch, [src, src], [_padded(total), _padded(0)])
    return expected, _unpack(dst[:total].view(samples[0].dtype),
                             [samples[i].shape for i in indices])
