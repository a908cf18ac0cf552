"""`_conditional.not_` (a DataNode's `not` under `enable_conditionals=True`): per-sample logical
not of scalars of any numeric type, from dense batches and from a branch's batch (also empty)."""

import numpy as np
import pytest

from dali import fn, pipeline_def


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.uint8, np.float32])
def test_not_of_dense_and_branch_batches(dtype):
    n = 9
    rng = np.random.default_rng(3)
    values = rng.integers(0, 3, n).astype(dtype)
    if dtype == np.float32:
        values[:3] = [np.nan, -0.0, 0.5]
    gate = [np.array(v) for v in [True] * 4 + [False] * 5]

    @pipeline_def(batch_size=n, num_threads=1, device_id=None, enable_conditionals=True,
                  exec_async=False, exec_pipelined=False)
    def pipe():
        v = fn.external_source(source=lambda: [np.array(x) for x in values])
        g = fn.external_source(source=lambda: gate)
        whole = not v
        if g:
            part = not v
        else:
            part = v == v
        if g < 0:                       # no sample: `not` of an empty batch
            empty = not v
        else:
            empty = v == v
        return whole, part, empty

    p = pipe()
    p.build()
    whole, part, empty = (np.array([np.asarray(t) for t in tl]) for tl in p.run())
    want = np.array([not bool(x) for x in values])
    np.testing.assert_array_equal(whole, want)
    np.testing.assert_array_equal(part[:4], want[:4])
    np.testing.assert_array_equal(part[4:], values[4:] == values[4:])
    np.testing.assert_array_equal(empty, values == values)
    assert whole.dtype == part.dtype == np.bool_
