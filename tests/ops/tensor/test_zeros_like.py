"""fn.zeros_like and fn.ones_like: shapes, layouts and types of the input, `dtype`."""

import numpy as np
import pytest
from layout_utils import run_layouts

from dali import types

RNG = np.random.default_rng(42)


@pytest.mark.parametrize("op, value", [("zeros_like", 0), ("ones_like", 1)])
@pytest.mark.parametrize("in_type", [np.uint8, np.float32, np.int64, np.bool_])
@pytest.mark.parametrize("dtype", [None, types.FLOAT, types.INT16])
def test_like_the_input(op, value, in_type, dtype):
    batch = [RNG.integers(0, 9, tuple(RNG.integers(0, 5, 3))).astype(in_type)
             for _ in range(3)]
    kwargs = {} if dtype is None else {"dtype": dtype}
    out, layout = run_layouts(lambda fn, x: getattr(fn, op)(x, **kwargs), [batch], ["HWC"])
    assert layout == "HWC"
    want_type = in_type if dtype is None else types.to_numpy_type(dtype)
    for o, x in zip(out, batch, strict=True):
        assert o.dtype == want_type
        np.testing.assert_array_equal(o, np.full(x.shape, value, want_type))


@pytest.mark.oracle
@pytest.mark.parametrize("op", ["zeros_like", "ones_like"])
def test_matches_dali(op):
    pytest.importorskip("nvidia.dali")
    batch = [RNG.integers(0, 9, (2, 3)).astype(np.int16), np.zeros((0, 5), np.int16)]
    for kwargs in ({}, {"dtype": types.FLOAT64}):
        ours = run_layouts(lambda fn, x, kw=kwargs: getattr(fn, op)(x, **kw), [batch], ["AB"])
        theirs = run_layouts(lambda fn, x, kw=kwargs: getattr(fn, op)(x, **kw), [batch], ["AB"],
                             real=True)
        assert ours[1] == theirs[1]
        for o, t in zip(ours[0], theirs[0], strict=True):
            assert o.dtype == t.dtype
            np.testing.assert_array_equal(o, t)
