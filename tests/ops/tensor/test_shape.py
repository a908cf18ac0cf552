"""`DataNode.shape()` (`fn._shape`)."""

import numpy as np
import pytest
from pipeline_utils import run_op

from dali import fn, pipeline_def, types

X = [np.zeros((3, 4, 5), np.int16), np.zeros((2, 3, 1), np.int16)]


@pytest.mark.parametrize("dtype, want", [
    (None, np.int64), (types.INT32, np.int32), (types.UINT32, np.uint32),
    (types.UINT64, np.uint64), (types.FLOAT, np.float32), (types.FLOAT64, np.float64)])
def test_shape_values_and_types(dtype, want):
    for batch in (X, [X[0], X[0]]):
        (out,) = run_op(lambda fn, x: x.shape(dtype=dtype), [batch])
        for o, x in zip(out, batch, strict=True):
            assert o.dtype == want and o.tolist() == list(x.shape)


def test_shape_of_scalars_and_empty_samples():
    (out,) = run_op(lambda fn, x: x.shape(), [[np.array(1.0), np.array(2.0)]])
    assert [o.shape for o in out] == [(0,), (0,)]
    (out,) = run_op(lambda fn, x: x.shape(), [[np.zeros((0, 3))]])
    assert out[0].tolist() == [0, 3]


def test_shape_is_the_internal_shape_operator():
    seen = {}

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: X, layout="HWC")
        seen["s"] = x.shape()
        return seen["s"], fn._shape(x, dtype=types.INT32)

    p = pipe()
    assert seen["s"].source.schema.class_name == "_Shape"
    assert seen["s"].name.startswith("___Shape_")
    a, b = p.run()
    assert a.layout() == "" and np.array(a[0]).tolist() == [3, 4, 5]
    assert np.array(b[1]).tolist() == [2, 3, 1]


@pytest.mark.parametrize("dtype", [types.UINT8, types.BOOL, types.FLOAT16, types.INT16])
def test_unsupported_shape_types_fail_at_build(dtype):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(source=lambda: X).shape(dtype=dtype)

    p = pipe()
    with pytest.raises(RuntimeError, match="int32, uint32, int64, uint64, float or double"):
        p.build()


def test_gpu_shape_needs_a_gpu():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(source=lambda: X).shape(device="gpu")

    with pytest.raises(RuntimeError, match='fn._shape .* runs on "gpu", but no GPU backend'):
        pipe().build()


@pytest.mark.oracle
def test_shape_matches_real_dali():
    def build(fn, x):
        return x.shape(), x.shape(dtype=types.FLOAT), x[0].shape(), x[0, 0, 0].shape()

    from nvidia.dali import types as real_types

    ours = run_op(build, [X])
    real = run_op(lambda fn, x: (x.shape(), x.shape(dtype=real_types.FLOAT), x[0].shape(),
                                 x[0, 0, 0].shape()), [X], real=True)
    for o, r in zip(ours, real, strict=True):
        for a, b in zip(o, r, strict=True):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
