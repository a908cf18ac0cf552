"""dali.math: element-wise functions on DataNodes (types and values)."""

import numpy as np
import pytest
from pipeline_utils import run_op

import dali
from dali import math as dmath
from dali._executor.errors import PipelineError

UNARY = {"sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "cbrt": np.cbrt, "exp": np.exp,
         "log": np.log, "log2": np.log2, "log10": np.log10, "fabs": np.abs,
         "floor": np.floor, "ceil": np.ceil, "sin": np.sin, "cos": np.cos, "tan": np.tan,
         "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
         "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
         "atanh": np.arctanh}
ALL = sorted([*UNARY, "abs", "min", "max", "pow", "fpow", "atan2", "clamp"])


def apply(build, *arrays):
    """Output samples of `build(m, *nodes)` with `m` = dali.math, one sample per array."""
    return run_op(lambda fn, *xs: build(dmath, *xs), [[np.asarray(a)] for a in arrays])[0][0]


def test_the_module_has_real_dali_names():
    assert sorted(dmath.__all__) == ALL
    assert dali.math is dmath
    for name in ALL:
        assert getattr(dmath, name).__doc__


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["uint8", "int16", "int64", "float32", "float64"])
def test_unary_functions(name, dtype):
    x = {"acosh": np.array([1, 2, 5]), "atanh": np.array([0, 0.5, -0.25]),
         "asin": np.array([0, 0.5, -1]), "acos": np.array([0, 0.5, -1])}.get(
        name, np.array([1, 2, 7, 0.5, 3.25]))
    if np.dtype(dtype).kind in "iu":
        x = np.trunc(x)
    x = x.astype(dtype)
    out = apply(lambda m, a: getattr(m, name)(a), x)
    want = "float64" if dtype == "float64" else "float32"
    assert out.dtype == want
    with np.errstate(all="ignore"):
        ref = UNARY[name](x.astype(want))
    np.testing.assert_allclose(out, ref, rtol=2e-7 if want == "float32" else 1e-15)


def test_special_values():
    out = apply(lambda m, a: (m.sqrt(a)), np.array([-1.0, 0.0, np.inf], np.float32))
    np.testing.assert_array_equal(out, [np.nan, 0.0, np.inf])
    out = apply(lambda m, a: m.log(a), np.array([0, 1], np.int32))
    assert out.dtype == np.float32 and out.tolist() == [-np.inf, 0.0]
    assert apply(lambda m, a: m.floor(a), np.array([-7], np.int64)).tolist() == [-7.0]


def test_abs_keeps_the_type():
    out = apply(lambda m, a: m.abs(a), np.array([-128, 5, -3], np.int8))
    assert out.dtype == np.int8 and out.tolist() == [-128, 5, 3]
    assert apply(lambda m, a: m.abs(a), np.array([200], np.uint8)).tolist() == [200]
    assert apply(lambda m, a: m.fabs(a), np.array([-3], np.int8)).dtype == np.float32


def test_pow_keeps_the_promoted_type_and_fpow_gives_float():
    a = np.array([2, 3, 2], np.int16)
    out = apply(lambda m, x, y: m.pow(x, y), a, np.array([3, 2, 255], np.uint8))
    assert out.dtype == np.int16 and out.tolist() == [8, 9, 0]    # 2 ** 255 wraps to 0
    b = np.array([3, 2, -1], np.int8)
    assert apply(lambda m, x, y: m.pow(x, y), a, b).tolist() == [8, 9, 0]   # 2 ** -1 -> 0
    out = apply(lambda m, x, y: m.fpow(x, y), a, b)
    assert out.dtype == np.float32 and out.tolist() == [8.0, 9.0, 0.5]
    out = apply(lambda m, x: m.fpow(x, 0.5), np.array([4.0, 2.0]))
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, [2.0, np.float32(2.0) ** np.float32(0.5)], rtol=1e-7)


def test_atan2_argument_order():
    out = apply(lambda m, x, y: m.atan2(x, y), np.array([1, 0, 1], np.int32),
                np.array([0, 1, 1], np.int32))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.arctan2([1, 0, 1], [0, 1, 1]), rtol=1e-7)


def test_min_max_promote():
    a, b = np.array([1, -5, 3], np.int8), np.array([200, 0, 1], np.uint8)
    out = apply(lambda m, x, y: m.min(x, y), a, b)
    assert out.dtype == np.int16 and out.tolist() == [1, -5, 1]
    assert apply(lambda m, x, y: m.max(x, y), a, b).tolist() == [200, 0, 3]
    assert apply(lambda m, x: m.max(x, 2.5), a).dtype == np.float32


@pytest.mark.parametrize("dtype, lo, hi, want", [
    ("uint8", 1, 2, "int32"), ("int64", 1, 2, "int64"), ("uint8", 0.5, 2.5, "float32"),
    ("float64", 1, 2, "float64"), ("bool", 0.5, 2.5, "float32"), ("int16", True, 1, "int32")])
def test_clamp_type(dtype, lo, hi, want):
    x = np.array([0, 1, 3]).astype(dtype)
    out = apply(lambda m, a: m.clamp(a, lo, hi), x)
    assert out.dtype == want
    np.testing.assert_array_equal(out, np.minimum(np.maximum(x.astype(want), lo), hi))


def test_booleans_and_float16_are_rejected():
    with pytest.raises(PipelineError, match="`sqrt` cannot be a boolean"):
        apply(lambda m, a: m.sqrt(a), np.array([True]))
    with pytest.raises(PipelineError, match="`clamp` cannot be booleans"):
        apply(lambda m, a: m.clamp(a, a, a), np.array([True]))
    with pytest.raises(PipelineError, match="float16"):
        apply(lambda m, a: m.exp(a), np.array([1], np.float16))


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64", "float32", "float64"])
def test_functions_match_real_dali(dtype):
    import nvidia.dali.math as real_math

    rng = np.random.default_rng(3)
    if np.dtype(dtype).kind == "f":
        x = [rng.uniform(-3, 3, (5, 4)).astype(dtype), rng.uniform(-3, 3, (2, 4)).astype(dtype)]
        y = [rng.uniform(-3, 3, (4,)).astype(dtype) for _ in range(2)]
    else:
        lo = 0 if dtype == "uint8" else -20
        x = [rng.integers(lo, 50, (5, 4)).astype(dtype), rng.integers(lo, 50, (2, 4))
             .astype(dtype)]
        y = [rng.integers(lo, 5, (4,)).astype(dtype) for _ in range(2)]

    def build(m):
        def graph(fn, a, b):
            return (*[getattr(m, n)(a) for n in [*sorted(UNARY), "abs"]],
                    m.min(a, b), m.max(a, b), m.pow(a, b), m.fpow(a, b), m.atan2(a, b),
                    m.clamp(a, b, 10), m.clamp(a, -1.5, b))
        return graph

    ours = run_op(build(dmath), [x, y])
    real = run_op(build(real_math), [x, y], real=True)
    for k, (o, r) in enumerate(zip(ours, real, strict=True)):
        for a, b in zip(o, r, strict=True):
            assert a.dtype == b.dtype, k
            np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6, equal_nan=True,
                                       err_msg=str(k))
