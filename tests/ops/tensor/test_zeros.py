"""fn.zeros and fn.ones: shapes (constant and per sample), types, layouts and errors, against
NumPy and real DALI."""

import numpy as np
import pytest
from layout_utils import run_layouts
from pipeline_utils import run_graph

from dali import types
from dali._executor.errors import PipelineError

RNG = np.random.default_rng(41)


@pytest.mark.parametrize("op, value", [("zeros", 0), ("ones", 1)])
@pytest.mark.parametrize("dtype", [types.INT32, types.UINT8, types.FLOAT, types.FLOAT16,
                                   types.BOOL, types.INT64, types.FLOAT64])
def test_constant_shapes(op, value, dtype):
    for shape in ([], [3], [2, 3], [0, 4], [300, 200, 3]):
        (out,) = run_graph(lambda fn, s=shape: getattr(fn, op)(shape=s, dtype=dtype))
        want = np.full(shape, value, types.to_numpy_type(dtype))
        for o in out:
            assert o.dtype == want.dtype
            np.testing.assert_array_equal(o, want)


def test_default_is_an_int32_scalar():
    (out,) = run_graph(lambda fn: fn.ones())
    assert [o.dtype for o in out] == [np.int32] * 2 and [o.tolist() for o in out] == [1, 1]


@pytest.mark.parametrize("op, value", [("zeros", 0), ("ones", 1)])
def test_per_sample_shapes(op, value):
    shapes = [np.array(RNG.integers(0, 5, 3), np.int32) for _ in range(4)]
    out, _ = run_layouts(lambda fn, s: getattr(fn, op)(shape=s, layout="ABC"), [shapes])
    for o, s in zip(out, shapes, strict=True):
        np.testing.assert_array_equal(o, np.full(s, value, np.int32))


def test_layout():
    out, layout = run_layouts(lambda fn, x: fn.zeros(shape=[2, 3], layout="HW"),
                              [[np.zeros(1)]])
    assert layout == "HW"
    with pytest.raises(PipelineError,
                       match="Layout 'X' has 1 dimensions but output shape has 2 dimensions"):
        run_graph(lambda fn: fn.zeros(shape=[2, 3], layout="X"))


def test_negative_shape():
    with pytest.raises(PipelineError, match="Input size less than zero not supported"):
        run_graph(lambda fn: fn.ones(shape=[-1]))


@pytest.mark.oracle
@pytest.mark.parametrize("op", ["zeros", "ones"])
def test_matches_dali(op):
    pytest.importorskip("nvidia.dali")
    shapes = [np.array(RNG.integers(0, 5, 2), np.int32) for _ in range(3)]
    for kwargs in ({"layout": "AB"}, {"dtype": types.FLOAT16}, {"dtype": types.BOOL}):
        ours = run_layouts(lambda fn, s, kw=kwargs: getattr(fn, op)(shape=s, **kw), [shapes])
        theirs = run_layouts(lambda fn, s, kw=kwargs: getattr(fn, op)(shape=s, **kw), [shapes],
                             real=True)
        assert ours[1] == theirs[1]
        for o, t in zip(ours[0], theirs[0], strict=True):
            assert o.dtype == t.dtype
            np.testing.assert_array_equal(o, t)
