"""`if` statements on GPU data (`_conditional.split` and `_conditional.merge` on the GPU) and
fn.permute_batch with device="gpu" on the emulated device, end to end: the GPU pipeline equals
the same pipeline on the CPU (ragged and empty samples, predicates taking every, no or some
samples, so that a branch may get an empty batch; nested branches; repeated and dropped
samples), over two iterations."""

import numpy as np
import pytest
from cases_filters import assert_same_as_cpu

from dali import fn, types


def _data(seed, n):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (int(rng.integers(0 if i == 2 else 1, 9)),
                                  int(rng.integers(1, 5)), 3)).astype(np.uint8) for i in range(n)]


@pytest.mark.parametrize("pattern", [[1, 0, 1, 1, 0, 0], [1] * 6, [0] * 6, [0, 1, 0, 0, 1, 0]])
def test_if_on_gpu_data_equals_cpu(emulated_gpu, pattern):
    data = _data(len(pattern) + sum(pattern), len(pattern))
    preds = [np.bool_(p) for p in pattern]
    inner = [np.bool_(i % 2) for i in range(len(pattern))]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, batch=True, layout="HWC")
        p = fn.external_source(source=lambda: preds, batch=True)
        q = fn.external_source(source=lambda: inner, batch=True)
        if on_gpu:
            x = x.gpu()
        if p:
            y = fn.cast(x, dtype=types.INT16)
            if q:
                y = fn.gaussian_blur(y, window_size=3)
        else:
            y = fn.laplacian(fn.cast(x, dtype=types.INT16), window_size=3)
        return y, x

    assert_same_as_cpu(graph, len(data), enable_conditionals=True)
    if 0 < sum(pattern) < len(pattern):
        assert any(k.startswith("copy_") for k in emulated_gpu.launches)


def test_permute_batch_equals_cpu(emulated_gpu):
    data = _data(3, 5)
    picks = [np.int32(v) for v in (4, 2, 2, 0, 1)]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, batch=True, layout="HWC")
        i = fn.external_source(source=lambda: picks, batch=True)
        if on_gpu:
            x = x.gpu()
        return fn.permute_batch(x, indices=[1, 1, 0, 4, 3]), fn.permute_batch(x, indices=i)

    assert_same_as_cpu(graph, len(data))
    assert any(k.startswith("copy_") for k in emulated_gpu.launches)
