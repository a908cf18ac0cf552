"""fn.copy: a deep copy with the same shapes, type and layout."""

import numpy as np
import pytest
from pipeline_utils import run_op

import dali


def test_copy_keeps_values_shapes_and_layout():
    batch = [np.arange(12, dtype=np.int16).reshape(3, 4), np.zeros((0, 4), np.int16),
             np.full((1, 4), -3, np.int16)]

    @dali.pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def pipe():
        x = dali.fn.external_source(source=lambda: batch, layout="AB")
        return dali.fn.copy(x), x

    p = pipe()
    p.build()
    copied, original = p.run()
    assert copied.layout() == "AB"
    for c, x in zip(copied, batch, strict=True):
        np.testing.assert_array_equal(np.array(c), x)
        assert np.array(c).dtype == np.int16
    assert copied.data_ptr() != original.data_ptr()


@pytest.mark.parametrize("dtype", [np.bool_, np.float16, np.uint64])
def test_copy_any_type(dtype):
    x = (np.arange(6) % 3).astype(dtype).reshape(2, 3)
    (out,) = run_op(lambda fn, t: fn.copy(t), [[x, x[:1]]])
    np.testing.assert_array_equal(out[0], x)
    np.testing.assert_array_equal(out[1], x[:1])
