"""The colour kernels' batch entry points: every job on the pool without the GIL, the values of
the one-call functions (checked against NumPy), all jobs checked before any runs."""

import numpy as np
import pytest
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import color

RNG = np.random.default_rng(3)


def _linear_jobs():
    jobs, refs = [], []
    for n, cin, cout, dtype in [(70000, 3, 3, np.uint8), (5, 3, 1, np.float32),
                                (0, 3, 3, np.uint8), (300, 1, 1, np.int16)]:
        src = RNG.integers(0, 200, (n, cin)).astype(dtype)
        mat = RNG.uniform(-1, 1.5, (cout, cin)).astype(np.float32)
        off = RNG.uniform(-5, 5, cout).astype(np.float32)
        dst = np.zeros((n, cout), dtype)
        acc = np.zeros((n, cout), np.float32)
        for c in range(cout):
            for k in range(cin):                         # summed left to right, float32
                acc[:, c] = acc[:, c] + mat[c, k] * src[:, k].astype(np.float32)
            acc[:, c] = acc[:, c] + off[c]
        if np.dtype(dtype).kind != "f":
            info = np.iinfo(dtype)
            acc = np.clip(np.sign(acc) * np.floor(np.abs(acc) + 0.5), info.min, info.max)
        jobs.append((src, dst, mat, off))
        refs.append(acc.astype(dtype))
    return jobs, refs


@pytest.mark.parametrize("threads", [None, 1, 2])
def test_linear_batch_equals_numpy(threads):
    jobs, refs = _linear_jobs()
    color.linear_batch(ThreadPool(threads) if threads else None, jobs)
    for (_, dst, _, _), ref in zip(jobs, refs, strict=True):
        np.testing.assert_array_equal(dst, ref)


def test_convert_space_batch_equals_one_call_each():
    srcs = [RNG.integers(0, 256, (n, 3), np.uint8) for n in (100000, 17, 0)]
    batch = [np.zeros((len(s), 1), np.uint8) for s in srcs]
    color.convert_space_batch(ThreadPool(2), list(zip(srcs, batch, strict=True)), "to_gray", 2)
    for s, b in zip(srcs, batch, strict=True):
        one = np.zeros_like(b)
        color.convert_space(s, one, "to_gray", 2)
        ref = (s[:, ::-1].astype(np.int64) @ [9798, 19235, 3735] + (1 << 14)) >> 15
        np.testing.assert_array_equal(b, one)
        np.testing.assert_array_equal(b[:, 0], ref)


def test_every_job_is_checked_before_any_runs():
    src = np.full((10, 3), 7, np.uint8)
    dst = np.zeros((10, 3), np.uint8)
    eye = np.eye(3, dtype=np.float32)
    bad = (src, np.zeros((9, 3), np.uint8), eye, np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="same length"):
        color.linear_batch(ThreadPool(2), [(src, dst, eye, np.zeros(3, np.float32)), bad])
    assert not dst.any()
    with pytest.raises(ValueError, match=r"to_gray needs \(pixels, 3\) -> \(pixels, 1\)"):
        color.convert_space_batch(None, [(src, np.zeros((10, 1), np.uint8)), (src, dst)],
                                  "to_gray")
