"""The displacement kernel's batch entry point: images on the pool, largest first, with the
values of one call each; masked-off images copied; every job checked before any runs."""

import numpy as np
import pytest
from dali._ext.thread_pool import ThreadPool

from dali._ext.kernels import displace

RNG = np.random.default_rng(4)
WAVE = [10.0, 0.05, 0.0, 10.0, 0.05, 0.0]


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_batch_equals_one_call_each(dtype):
    srcs = [(RNG.random((h, w, 3)) * 255).astype(dtype) for h, w in
            [(300, 280), (7, 5), (0, 4), (64, 90)]]
    modes = ["water", "sphere", "water", "copy"]
    outs = [np.zeros_like(s) for s in srcs]
    displace.displace_batch(ThreadPool(2), [(s, o, m, None) for s, o, m in
                                            zip(srcs, outs, modes, strict=True)], 1, 3.0, WAVE)
    for s, o, m in zip(srcs, outs, modes, strict=True):
        one = np.zeros_like(s)
        displace.displace(s, one, m, 1, 3.0, WAVE)
        np.testing.assert_array_equal(o, one)
    np.testing.assert_array_equal(outs[3], srcs[3])
    assert not np.array_equal(outs[0], srcs[0])


def test_every_job_is_checked_before_any_runs():
    src = np.full((4, 4, 3), 9, np.uint8)
    dst = np.zeros_like(src)
    with pytest.raises(ValueError, match="remap needs the positions"):
        displace.displace_batch(ThreadPool(2), [(src, dst, "sphere", None),
                                                (src, np.zeros_like(src), "remap", None)], 0, 0)
    assert not dst.any()
    with pytest.raises(TypeError, match="unsupported types uint8 -> float32"):
        displace.displace_batch(None, [(src, dst.astype(np.float32), "sphere", None)], 0, 0)
