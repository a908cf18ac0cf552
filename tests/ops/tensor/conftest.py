"""Fixtures of the tensor family's tests."""

import numpy as np
import pytest

import dali
from dali import tensors


def _run_with_input(build, batch, layout, iterations):
    """(input, output) TensorLists of `build(fn, x)` on `batch`, after `iterations` runs."""

    @dali.pipeline_def(batch_size=len(batch), num_threads=2, device_id=None)
    def pipe():
        x = dali.fn.external_source(source=lambda: batch, layout=layout)
        return x, build(dali.fn, x)

    p = pipe()
    p.build()
    for _ in range(iterations):
        x, out = p.run()
    return x, out


@pytest.fixture
def view_of_input():
    """`check(build, batch, layout=None)`: runs `build(fn, x)` twice (the second run takes the
    memoized shapes), asserts that every output sample shares the input sample's memory and
    holds its bytes, and returns the output samples."""

    def check(build, batch, layout=None):
        x, out = _run_with_input(build, batch, layout, 2)
        assert tensors.storage_of(out).base is tensors.storage_of(x).base
        samples = [np.asarray(t) for t in out]
        for o, i in zip(samples, x, strict=True):
            i = np.asarray(i)
            assert o.size == 0 or np.shares_memory(o, i)
            assert o.tobytes() == i.tobytes()
        return samples

    return check
