"""fn.shapes (deprecated): the sample shapes in every allowed type, the deprecated `type`
alias, the build-time type check, and real DALI."""

import numpy as np
import pytest
from layout_utils import run_layouts

from dali import types

RNG = np.random.default_rng(54)


def _run(**kwargs):
    batch = [np.zeros(tuple(RNG.integers(0, 5, 3)), np.uint8) for _ in range(3)]
    with pytest.warns(DeprecationWarning, match="`dali.fn.shapes` is now deprecated"):
        out, layout = run_layouts(lambda fn, x: fn.shapes(x, **kwargs), [batch])
    return batch, out, layout


@pytest.mark.parametrize("dtype", [None, types.INT32, types.UINT32, types.INT64, types.UINT64,
                                   types.FLOAT, types.FLOAT64])
def test_shapes_in_every_allowed_type(dtype):
    batch, out, layout = _run(**({} if dtype is None else {"dtype": dtype}))
    want = np.int64 if dtype is None else types.to_numpy_type(dtype)
    assert layout == ""
    for o, x in zip(out, batch, strict=True):
        assert o.dtype == want
        np.testing.assert_array_equal(o, x.shape)


def test_type_is_a_deprecated_alias_of_dtype():
    with pytest.warns(DeprecationWarning, match="`type` is a deprecated alias for `dtype`"):
        _, out, _ = _run(type=types.FLOAT)
    assert out[0].dtype == np.float32


def test_scalars_give_empty_shapes():
    with pytest.warns(DeprecationWarning):
        out, _ = run_layouts(lambda fn, x: fn.shapes(x), [[np.float32(1), np.float32(2)]])
    assert [o.shape for o in out] == [(0,), (0,)]


@pytest.mark.parametrize("dtype, name", [(types.UINT8, "uint8"), (types.FLOAT16, "float16")])
def test_other_types_fail_at_build(dtype, name):
    with pytest.raises(RuntimeError, match=f"int32, uint32, int64, uint64, float or double;\n"
                                           f"requested: {name}"):
        _run(dtype=dtype)


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_matches_dali():
    pytest.importorskip("nvidia.dali")
    batch = [np.zeros(tuple(RNG.integers(0, 5, 3)), np.uint8) for _ in range(3)]
    for kwargs in ({}, {"dtype": types.FLOAT}):
        ours = run_layouts(lambda fn, x, kw=kwargs: fn.shapes(x, **kw), [batch])
        theirs = run_layouts(lambda fn, x, kw=kwargs: fn.shapes(x, **kw), [batch], real=True)
        assert ours[1] == theirs[1]
        for o, t in zip(ours[0], theirs[0], strict=True):
            assert o.dtype == t.dtype
            np.testing.assert_array_equal(o, t)
