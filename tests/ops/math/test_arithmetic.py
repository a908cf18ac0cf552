"""DataNode arithmetic (`_ArithmeticGenericOp`): type rules, values, broadcasting, errors."""

import json
import pathlib
import re

import numpy as np
import pytest
from pipeline_utils import run_op

import dali
from dali import fn, pipeline_def, types
from dali import math as dmath
from dali._executor.errors import PipelineError
from dali._types import DALIDataType as T
from dali.ops.math import _arithmetic_kernels as kernels
from dali.ops.math import arithmetic
from dali.pipeline import experimental

GOLDENS = pathlib.Path(__file__).parents[2] / "goldens"
NAMES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
         "float32", "float64"]


def _returning(batch):
    return lambda: batch


def run(build, *batches, layouts=None):
    """TensorLists of `build(*nodes)` on external sources fed `batches` (lists of samples)."""
    layouts = layouts or [None] * len(batches)

    @pipeline_def(batch_size=max([len(b) for b in batches] or [1]), num_threads=1,
                  device_id=None)
    def pipe():
        nodes = [fn.external_source(source=_returning(b), layout=lay)
                 for b, lay in zip(batches, layouts, strict=True)]
        out = build(*nodes)
        return out if isinstance(out, tuple) else (out,)

    p = pipe()
    p.build()
    return p.run()


def values(build, *batches, layouts=None):
    """Sample arrays of the single output of `build`."""
    (tl,) = run(build, *batches, layouts=layouts)
    return [np.array(t) for t in tl]


def one(build, *arrays):
    """The single output sample of `build` on one-sample batches."""
    return values(build, *[[np.asarray(a)] for a in arrays])[0]


# -- result types ------------------------------------------------------------------------------

def test_promotion_of_add_matches_real_dali_golden():
    golden = json.loads((GOLDENS / "promotion_add.json").read_text())
    pairs = [(a, b) for a in NAMES for b in NAMES if not (a == "bool" and b == "bool")]
    scalars = {"int": 1, "float": 1.5, "pybool": True}

    def build(*nodes):
        src = dict(zip(NAMES, nodes, strict=True))
        outs = [src[a] + src[b] for a, b in pairs]
        outs += [src[n] + v if k != "pybool" else src[n] * v
                 for n in NAMES for k, v in scalars.items()]
        return tuple(outs)

    outs = run(build, *[[np.ones(1, dtype=n)] for n in NAMES])
    keys = [f"{a},{b}" for a, b in pairs] + [f"{n},{k}" for n in NAMES for k in scalars]
    got = {k: np.dtype(types.to_numpy_type(o.dtype)).name for k, o in zip(keys, outs,
                                                                              strict=True)}
    assert got == golden


def test_result_types_of_every_operation_match_real_dali_golden():
    table = json.loads((GOLDENS / "arithmetic_types.json").read_text())
    names = table["types"]
    checked = 0

    def ours(op, *ts):
        try:
            return np.dtype(types.to_numpy_type(kernels.result_type(
                op, [types.to_dali_type(t) for t in ts]))).name
        except TypeError:
            return "error"

    for op, row in table["unary"].items():
        for a, want in zip(names, row, strict=True):
            assert ours(op, a) == want, (op, a)
            checked += 1
    for op, rows in table["binary"].items():
        for a, row in zip(names, rows, strict=True):
            for b, want in zip(names, row, strict=True):
                args = (a, b, b) if op == "clamp" else (a, b)
                assert ours(op, *args) == want, (op, a, b)
                checked += 1
    assert checked > 3000


@pytest.mark.parametrize("op", ["sub", "mul", "fdiv", "div", "mod", "pow", "lt", "bitxor",
                                "rshift", "max", "fpow", "atan2"])
def test_pipelines_produce_the_golden_result_types(op):
    table = json.loads((GOLDENS / "arithmetic_types.json").read_text())
    names = table["types"]
    pairs = [(a, b, want) for a, row in zip(names, table["binary"][op], strict=True)
             for b, want in zip(names, row, strict=True) if want != "error"]
    f = {"sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "fdiv": lambda a, b: a / b,
         "div": lambda a, b: a // b, "mod": lambda a, b: a % b, "pow": lambda a, b: a ** b,
         "lt": lambda a, b: a < b, "bitxor": lambda a, b: a ^ b, "rshift": lambda a, b: a >> b,
         "max": dmath.max, "fpow": dmath.fpow, "atan2": dmath.atan2}[op]

    def build(*nodes):
        src = dict(zip(names, nodes, strict=True))
        return tuple(f(src[a], src[b]) for a, b, _ in pairs)

    outs = run(build, *[[np.full(2, 2, dtype=n)] for n in names])
    for (a, b, want), o in zip(pairs, outs, strict=True):
        assert np.array(o[0]).dtype.name == want, (a, b)


@pytest.mark.parametrize("value, dtype", [
    (1, "int32"), (1.5, "float32"), (True, "uint8"), (np.uint8(5), "uint8"),
    (np.int64(5), "int64"), (np.float32(1.5), "float32"), (np.bool_(True), "uint8"),
    (np.array(2 ** 40), "int64"), (np.array(1.5), "float64"), (np.array(1, np.uint16), "uint16"),
    (types.Constant(5, dtype=types.UINT8), "uint8"), (types.Constant(0.5), "float32"),
    ([1, 2], "int32"), (np.array([1.0, 2.0]), "float32"), ((1, 2), "int32")])
def test_constant_operand_types(value, dtype):
    out = one(lambda a: a + value, np.array([1, 2], np.uint8))
    assert out.dtype.name == dtype
    plain = value.value if isinstance(value, types.ScalarConstant) else value
    np.testing.assert_array_equal(out, np.array([1, 2]) + np.asarray(plain))


def test_python_scalars_are_not_weak():
    assert one(lambda a: a * 2, np.array([200], np.uint8)).tolist() == [400]
    assert one(lambda a: a + 1, np.array([1], np.int8)).dtype == np.int32
    assert one(lambda a: a + 0.5, np.array([1], np.int64)).dtype == np.float32
    assert one(lambda a: a * True, np.array([3], np.int8)).dtype == np.int8


def test_real_constants_are_float32_even_for_float64_data():
    out = one(lambda a: a + 0.1, np.array([0.0]))
    assert out.dtype == np.float64 and out[0] == np.float64(np.float32(0.1))
    out = one(lambda a: a + types.Constant(0.1, dtype=types.FLOAT64), np.array([0.0]))
    assert out[0] == np.float64(np.float32(0.1))


def test_large_unsigned_constants_keep_their_value():
    out = one(lambda a: a + types.Constant(2 ** 32 - 1, dtype=types.UINT32),
              np.array([1, 2], np.uint8))
    assert out.dtype == np.uint32 and out.tolist() == [0, 1]
    out = one(lambda a: a | np.uint64(2 ** 64 - 1), np.array([1], np.uint64))
    assert out.tolist() == [2 ** 64 - 1]


# -- definition-time errors ---------------------------------------------------------------------

@pytest.mark.parametrize("bad, match", [
    (np.float64(1.0), "not supported"), ("x", "Expected scalar value"),
    (None, "Expected scalar value"), ({"a": 1}, "Expected scalar value"),
    ([[1, 2], [3]], "Unexpected type"), (["a"], "numeric")])
def test_bad_constants_fail_at_definition(bad, match):
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(source=lambda: [np.ones(1)]) + bad

    with pytest.raises(TypeError, match=match):
        pipe()


def test_nested_data_node_in_a_list_fails_at_definition():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: [np.ones(1)])
        return x + [x]

    with pytest.raises(TypeError, match="nested `DataNode`"):
        pipe()


def test_math_on_constants_only_fails_at_definition():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return dmath.min(1, 2)

    with pytest.raises(ValueError, match="dali.math.min expects from 1 to 64 inputs"):
        pipe()


def test_gpu_operand_makes_a_gpu_operator():
    """A GPU operand puts the expression on the GPU (tests/gpu runs it), which a CPU-only
    pipeline cannot build."""
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(source=lambda: [np.ones(1)]).gpu() + 1

    p = pipe()
    with pytest.raises(RuntimeError, match=r"_arithmetic_generic_op .* runs on \"gpu\".*"
                                           r"device_id=None pipelines are CPU-only"):
        p.build()


# -- run-time errors ----------------------------------------------------------------------------

def _fails(build, *arrays, match):
    with pytest.raises(PipelineError, match=match) as info:
        one(build, *arrays)
    return info.value


@pytest.mark.parametrize("build, sym", [
    (lambda a: a + a, r"\+"), (lambda a: a - a, "-"), (lambda a: a / a, "/"),
    (lambda a: a // a, "//"), (lambda a: a % a, "%"), (lambda a: a ** a, "pow"),
    (lambda a: dmath.min(a, a), "min"), (lambda a: a + True, r"\+")])
def test_two_booleans_are_rejected(build, sym):
    err = _fails(build, np.array([True]), match=f"Inputs to arithmetic operator `{sym}` cannot "
                                                "be booleans")
    assert "___ArithmeticGenericOp_" in str(err)


@pytest.mark.parametrize("build", [lambda a: -a, dmath.abs, dmath.sqrt, dmath.floor])
def test_a_boolean_is_rejected_by_unary_arithmetic(build):
    err = _fails(build, np.array([True]), match="cannot be a boolean")
    assert "___ArithmeticGenericOp_" in str(err)


def test_boolean_logic():
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    for build, ref in [(lambda x, y: x * y, a & b), (lambda x, y: x & y, a & b),
                       (lambda x, y: x | y, a | b), (lambda x, y: x ^ y, a ^ b),
                       (lambda x, y: ~x, ~a), (lambda x, y: x == y, a == b),
                       (lambda x, y: x << y, (a.astype(int) << b) != 0),
                       (lambda x, y: x >> y, (a.astype(int) >> b) != 0)]:
        out = one(build, a, b)
        assert out.dtype == np.bool_
        np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("build", [lambda a: a + 1, lambda a: -a, dmath.sqrt,
                                   lambda a: a < 1, lambda a: a & 1])
def test_float16_is_not_supported(build):
    err = _fails(build, np.array([1], np.float16), match="float16")
    assert "___ArithmeticGenericOp_" in str(err)


@pytest.mark.parametrize("op", ["&", "|", "^", "<<", ">>"])
def test_bitwise_operators_need_integers(op):
    build = {"&": lambda a: a & 1, "|": lambda a: a | 1, "^": lambda a: a ^ 1,
             "<<": lambda a: a << 1, ">>": lambda a: a >> 1}[op]
    errors = [_fails(build, np.array([1.5], np.float32),
                     match=re.escape(f"bitwise operator `{op}` must be of integral type")),
              _fails(lambda a: ~a, np.array([1.5]), match="integral type")]
    assert all("___ArithmeticGenericOp_" in str(e) for e in errors)


@pytest.mark.parametrize("value", [2 ** 31, -2 ** 31 - 1, 2 ** 40])
def test_int_literals_outside_int32_fail_when_run(value):
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(source=lambda: [np.ones(1, np.int64)]) + value

    p = pipe()
    p.build()
    with pytest.raises(PipelineError, match=f"Integer constant {value} out of range for int32") \
            as info:
        p.run()
    assert isinstance(info.value, OverflowError)  # DALI's class
    assert one(lambda a: a + (-2 ** 31), np.array([1], np.int64)).tolist() == [1 - 2 ** 31]


@pytest.mark.parametrize("build", [lambda a, b: a // b, lambda a, b: a % b])
def test_integer_division_by_zero_names_the_sample(build):
    good = np.array([5, 7], np.int32)
    for batches in ([[good, good], [np.array([1, 2], np.int32), np.array([3, 0], np.int32)]],
                    [[good, good[:1]], [np.array([1, 2], np.int32), np.array([0], np.int32)]]):
        with pytest.raises(PipelineError, match=r"Integer division by zero.*\n.*sample 1") \
                as info:
            values(build, *batches)
        assert isinstance(info.value, ValueError)  # DALI's class
    _fails(lambda a: a // 0, good, match="Integer division by zero")
    assert one(lambda a: a / 0, good).tolist() == [np.inf, np.inf]


# -- values -------------------------------------------------------------------------------------

def test_integer_division_truncates_and_modulo_follows_fmod():
    a = np.array([-7, 7, -7, 7, 0, 1, -1, 5, -2 ** 31], np.int32)
    b = np.array([2, 2, -2, -2, 3, -3, 3, 7, -1], np.int32)
    assert one(lambda x, y: x // y, a, b).tolist() == [-3, 3, 3, -3, 0, 0, 0, 0, -2 ** 31]
    assert one(lambda x, y: x % y, a, b).tolist() == [-1, 1, -1, 1, 0, 1, -1, 5, 0]
    u = np.array([7, 200], np.uint8)
    assert one(lambda x: x // 3, u).tolist() == [2, 66]


def test_float_floor_division_is_plain_division():
    f = np.array([-7.5, 7.5, 1.0], np.float32)
    out = one(lambda x: x // 2, f)
    assert out.dtype == np.float32 and out.tolist() == [-3.75, 3.75, 0.5]
    np.testing.assert_array_equal(one(lambda x: x % -2, f), np.fmod(f, np.float32(-2)))


def test_true_division_gives_float32_for_integers():
    a = np.array([1373955579, 7], np.int64)
    out = one(lambda x: x / 3, a)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, a.astype(np.float32) / np.float32(3))
    assert one(lambda x: x / 2, np.array([3.0])).dtype == np.float64


def test_operands_are_cast_to_the_result_type_first():
    a, b = np.array([2 ** 31, 7], np.uint32), np.array([2, -2], np.int32)
    assert one(lambda x, y: x * y, a, b).tolist() == [2 ** 32, -14]
    assert one(lambda x, y: x // y, a, b).tolist() == [2 ** 30, -3]
    assert one(lambda x, y: x + y, np.array([2 ** 64 - 1], np.uint64),
               np.array([2], np.int64)).tolist() == [1]
    assert one(lambda x: x * 2, np.array([200], np.uint8)).dtype == np.int32
    assert one(lambda x, y: x * y, np.array([200], np.uint8),
               np.array([2], np.uint8)).tolist() == [144]


def test_unary_minus_and_abs_wrap():
    assert one(lambda x: -x, np.array([1, 200], np.uint8)).tolist() == [255, 56]
    assert one(lambda x: -x, np.array([-128, 5], np.int8)).tolist() == [-128, -5]
    assert one(abs, np.array([-128, 5, -3], np.int8)).tolist() == [-128, 5, 3]
    assert one(lambda x: +x, np.array([True])).tolist() == [True]


def test_integer_power():
    a = np.array([1, 2, -1, -1, 0, 0, 3, -2, 2], np.int32)
    b = np.array([-3, -1, -1, -2, 0, -1, 40, 3, 31], np.int32)
    assert one(lambda x, y: x ** y, a, b).tolist() == [0, 0, 0, 0, 1, 0, 689956897, -8, -2 ** 31]
    assert one(lambda x, y: x ** y, np.array([2, 3, 16], np.uint8),
               np.array([7, 5, 2], np.uint8)).tolist() == [128, 243, 0]
    out = one(lambda x: x ** -1, np.array([2.0, 0.0], np.float32))
    assert out.tolist() == [0.5, np.inf]


def test_comparisons_are_exact_between_integers_and_in_float_with_floats():
    u = np.array([2 ** 64 - 1, 7, 2 ** 63 + 1], np.uint64)
    s = np.array([-1, 7, 2 ** 63 - 1], np.int64)
    assert one(lambda x, y: x == y, u, s).tolist() == [False, True, False]
    assert one(lambda x, y: x > y, u, s).tolist() == [True, False, True]
    assert one(lambda x, y: y >= x, u, s).tolist() == [False, True, False]
    assert one(lambda x, y: x < y, np.array([2 ** 32 - 1], np.uint32),
               np.array([-1], np.int32)).tolist() == [False]
    # an int64 meets float32 as float32: 16777217 rounds to 16777216
    assert one(lambda x, y: x == y, np.array([16777217], np.int64),
               np.array([16777216], np.float32)).tolist() == [True]


def test_float_vs_negative_integer_comparison():
    # DALI 2.4 takes every negative integer as greater than every float here (-22.5 < -5 and
    # -2.0 == -2 are False there); this compares in the float type instead.
    f = np.array([-22.5, -2.0, 3.0, -1e10], np.float32)
    i = np.array([-5, -2, -5, -5], np.int32)
    assert one(lambda x, y: x < y, f, i).tolist() == [True, False, False, True]
    assert one(lambda x, y: x == y, f, i).tolist() == [False, True, False, False]
    assert one(lambda x: x >= -5, f).tolist() == [False, True, True, False]


def test_shifts_mask_the_count_like_x86():
    ones = np.ones(5, np.int32)
    assert one(lambda x, y: x << y, ones, np.array([31, 32, 33, -1, 0], np.int32)).tolist() == \
        [-2 ** 31, 1, 2, -2 ** 31, 1]
    assert one(lambda x, y: x << y, np.array([1, 1, 200], np.uint8),
               np.array([7, 9, 1], np.uint8)).tolist() == [128, 0, 144]
    assert one(lambda x, y: x >> y, np.array([-16, -16, -1], np.int32),
               np.array([2, 33, 40], np.int32)).tolist() == [-4, -8, -1]
    assert one(lambda x, y: x << y, np.array([1], np.int32),
               np.array([32], np.int64)).tolist() == [2 ** 32]


def test_min_max_clamp_nan_handling():
    a = np.array([np.nan, 1, 2], np.float32)
    b = np.array([1, np.nan, 3], np.float32)
    np.testing.assert_array_equal(one(dmath.min, a, b), [1, np.nan, 2])
    np.testing.assert_array_equal(one(dmath.max, a, b), [1, np.nan, 3])
    v = np.array([np.nan, 2, -1, 0.5], np.float32)
    np.testing.assert_array_equal(one(lambda x: dmath.clamp(x, 0.0, 1.0), v), [np.nan, 1, 0, .5])
    assert one(lambda x: dmath.clamp(x, 5, 2), np.array([0, 3, 9], np.int32)).tolist() == [2] * 3
    out = one(lambda x, lo: dmath.clamp(x, lo, 10), np.array([0, 50], np.uint8),
              np.array([-5, -5], np.int8))
    assert out.dtype == np.int32 and out.tolist() == [0, 10]


# -- broadcasting and layouts ------------------------------------------------------------------

@pytest.mark.parametrize("other", [(3,), (1, 3), (5, 1), (4, 1, 1), (), (1,), (1, 1, 1)])
def test_per_sample_broadcasting(other):
    rng = np.random.default_rng(0)
    x = [rng.random((4, 5, 3), np.float32), rng.random((4, 5, 3), np.float32)]
    y = [rng.random(other, np.float32) for _ in range(2)]
    for xs in (x, [x[0], x[1][:2, :1]]) if other in [(3,), (), (1,)] else (x,):
        out = values(lambda a, b: a - b, xs, y)
        for o, a, b in zip(out, xs, y, strict=True):
            np.testing.assert_array_equal(o, a - b)


def test_broadcasting_in_both_directions_and_nonuniform_batches():
    a = [np.arange(2, dtype=np.int16).reshape(2, 1), np.arange(3, dtype=np.int16).reshape(3, 1)]
    b = [np.arange(3, dtype=np.int16).reshape(1, 3), np.arange(4, dtype=np.int16).reshape(1, 4)]
    for o, x, y in zip(values(lambda p, q: p * q, a, b), a, b, strict=True):
        np.testing.assert_array_equal(o, x * y)


def test_incompatible_shapes_fail_when_run():
    with pytest.raises(PipelineError, match="Can't broadcast shapes"):
        values(lambda a, b: a + b, [np.ones((4, 5, 3))], [np.ones((3, 4))])


@pytest.mark.parametrize("la, lb, sa, sb, want", [
    ("HWC", None, (4, 5, 3), (3,), "HWC"), (None, "HWC", (3,), (4, 5, 3), "HWC"),
    ("C", "HWC", (3,), (4, 5, 3), "HWC"), ("HWC", "WC", (4, 5, 3), (5, 3), "HWC"),
    ("WC", None, (5, 3), (4, 5, 3), ""), (None, "CHW", (3, 4, 5), (3, 4, 5), "CHW"),
    ("HWC", "HWC", (4, 5, 3), (4, 5, 3), "HWC")])
def test_layout_of_the_result(la, lb, sa, sb, want):
    (tl,) = run(lambda a, b: a + b, [np.ones(sa, np.float32)], [np.ones(sb, np.float32)],
                layouts=[la, lb])
    assert tl.layout() == want


@pytest.mark.parametrize("la, lb", [("HWC", "CHW"), ("HWC", "HW"), ("C", "HW")])
def test_mismatched_layouts_fail_when_run(la, lb):
    sa, sb = (2,) * len(la), (2,) * len(lb)
    with pytest.raises(PipelineError, match=f"Layouts of subexpressions 0 and 1 for arithmetic "
                                            f"operation add do not match.*Got {la} and {lb}"):
        run(lambda a, b: a + b, [np.ones(sa)], [np.ones(sb)], layouts=[la, lb])


def test_empty_samples_and_zero_dim_samples():
    out = values(lambda a, b: a + b, [np.ones((0, 3), np.float32)], [np.ones(3, np.float32)])
    assert out[0].shape == (0, 3)
    out = values(lambda a: a * 2, [np.array(3, np.int32), np.array(4, np.int32)])
    assert [o.tolist() for o in out] == [6, 8]


# -- whole-batch computation ---------------------------------------------------------------------

_ELEMENTWISE = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
                "fdiv": lambda x, y: x / y, "bitand": lambda x, y: x & y,
                "bitor": lambda x, y: x | y, "bitxor": lambda x, y: x ^ y,
                "min": dmath.min, "max": dmath.max}


@pytest.mark.parametrize("shapes", [[(2, 3)] * 3, [(2, 3), (4, 3), (0, 3)]],
                         ids=["uniform", "ragged"])
@pytest.mark.parametrize("ta, tb", [("int16", "uint8"), ("float32", "int32"),
                                    ("uint32", "int32")])
@pytest.mark.parametrize("op", sorted(_ELEMENTWISE))
def test_one_call_per_batch_equals_per_sample_evaluation(op, ta, tb, shapes):
    """Elementwise operations compute a dense or same-shaped ragged batch in one ufunc call;
    the values must be those of the per-sample rule (cast to the result type, then apply)."""
    rng = np.random.default_rng(5)
    a = [rng.integers(-300, 300, s).astype(ta) for s in shapes]
    b = [rng.integers(-3, 300, s).astype(tb) for s in shapes]
    if np.dtype(ta).kind == "f":
        a[0][0, 0], b[0][0, :2] = np.inf, 0      # inf - inf, x / 0: no warnings, NaN and inf
    ta_, tb_ = types.to_dali_type(ta), types.to_dali_type(tb)
    try:
        t = kernels.result_type(op, [ta_, tb_])
    except TypeError:
        pytest.skip("not a valid combination")
    f = _ELEMENTWISE[op]
    outs = run(lambda x, y: (f(x, y), f(x, 7), -x), a, b)
    for k, (x, y) in enumerate(zip(a, b, strict=True)):
        with np.errstate(all="ignore"):
            want = [kernels.evaluate(op, [x, y], [ta_, tb_], t),
                    kernels.evaluate(op, [x, np.int32(7)], [ta_, T.INT32],
                                     kernels.result_type(op, [ta_, T.INT32])),
                    np.negative(x)]
        for tl, w in zip(outs, want, strict=True):
            np.testing.assert_array_equal(np.array(tl[k]), w)
            assert np.array(tl[k]).dtype == w.dtype


# -- the operator node --------------------------------------------------------------------------

def test_expression_description_and_names():
    captured = {}

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: [np.array([2.0], np.float32)])
        captured["nodes"] = [x + 1, 2.5 * x, 1 - x, dmath.clamp(x, True, np.uint8(3)), abs(x),
                             x + np.array([1, 2])]
        return tuple(captured["nodes"])

    p = pipe()
    nodes = captured["nodes"]
    args = [n.source.args for n in nodes]
    assert [a["expression_desc"] for a in args] == [
        "add(&0 $0:int32)", "mul($0:float32 &0)", "sub($0:int32 &0)",
        "clamp(&0 $0:bool $1:uint8)", "abs(&0)", "add(&0 &1)"]
    assert args[0]["integer_constants"] == [1] and "real_constants" not in args[0]
    assert args[1]["real_constants"] == [2.5]
    assert args[3]["integer_constants"] == [1, 3]
    assert nodes[0].name.startswith("___ArithmeticGenericOp_")
    assert nodes[0].source.schema.class_name == "_ArithmeticGenericOp"
    outs = p.run()
    assert [np.array(o[0]).tolist() for o in outs] == [[3.0], [5.0], [-1.0], [2.0], [2.0],
                                                         [3.0, 4.0]]


def test_nested_expressions_in_one_operator():
    out = one(lambda a, b: fn._arithmetic_generic_op(
        a, b, expression_desc="add(&0 mul(&1 $0:int32))", integer_constants=[3]),
        np.array([1, 2], np.int32), np.array([10, 20], np.int8))
    assert out.dtype == np.int32 and out.tolist() == [31, 62]
    out = one(lambda a: fn._arithmetic_generic_op(
        a, expression_desc="sqrt(fdiv(&0 $0:float32))", real_constants=[4.0]),
        np.array([16.0], np.float32))
    assert out.tolist() == [2.0]


@pytest.mark.parametrize("desc, match", [
    ("add(&0", "unexpected text"), ("nope(&0)", "unknown operation"),
    ("add(&0 $0:int33)", "unknown constant type"), ("add(&0)", "takes 2 operands"),
    ("add(&0 $1:int32)", "integer constant 1"), ("add(&0 &0) x", "trailing text")])
def test_bad_expression_descriptions_fail_at_build(desc, match):
    with pytest.raises(ValueError, match=match):
        one(lambda a: fn._arithmetic_generic_op(a, expression_desc=desc, integer_constants=[1]),
            np.ones(1))


def test_arithmetic_in_debug_mode():
    @experimental.pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        x = fn.external_source(source=lambda: [np.array([1, 2], np.uint8)] * 2)
        return x * 3 + 1, dmath.sqrt(x)

    p = pipe()
    p.build()
    a, b = p.run()
    assert np.array(a[0]).tolist() == [4, 7] and np.array(a[0]).dtype == np.int32
    np.testing.assert_allclose(np.array(b[1]), np.sqrt([1, 2]))


def test_comparisons_drive_conditionals():
    @pipeline_def(batch_size=4, num_threads=1, device_id=None, enable_conditionals=True)
    def pipe():
        x = fn.external_source(source=lambda: [np.array(v, np.int32) for v in [-2, 3, 0, 5]])
        if x > 0:
            y = x * 10
        else:
            y = -x
        return y

    p = pipe()
    p.build()
    (out,) = p.run()
    assert [np.array(t).tolist() for t in out] == [2, 30, 0, 50]


def test_module_exports():
    assert dali.math is dmath
    assert arithmetic.arithm_op is not None
    assert T.INT32 == types.INT32


# -- oracle -------------------------------------------------------------------------------------

EXPRESSIONS = {
    "add": lambda m, a, b: a + b, "sub": lambda m, a, b: a - b, "mul": lambda m, a, b: a * b,
    "fdiv": lambda m, a, b: a / b, "div": lambda m, a, b: a // b, "mod": lambda m, a, b: a % b,
    "pow": lambda m, a, b: a ** b, "eq": lambda m, a, b: a == b, "neq": lambda m, a, b: a != b,
    "lt": lambda m, a, b: a < b, "leq": lambda m, a, b: a <= b, "gt": lambda m, a, b: a > b,
    "geq": lambda m, a, b: a >= b, "bitand": lambda m, a, b: a & b,
    "bitor": lambda m, a, b: a | b, "bitxor": lambda m, a, b: a ^ b,
    "lshift": lambda m, a, b: a << b, "rshift": lambda m, a, b: a >> b,
    "minus": lambda m, a, b: -a, "bitnot": lambda m, a, b: ~a, "abs": lambda m, a, b: abs(a),
    "min": lambda m, a, b: m.min(a, b), "max": lambda m, a, b: m.max(a, b),
    "fpow": lambda m, a, b: m.fpow(a, b), "atan2": lambda m, a, b: m.atan2(a, b),
    "clamp": lambda m, a, b: m.clamp(a, b, 5),
}
CONSTANT_EXPRESSIONS = [
    lambda m, a, b: a + 1, lambda m, a, b: 3 - a, lambda m, a, b: a * 2.5,
    lambda m, a, b: a / 4, lambda m, a, b: 7 // b, lambda m, a, b: a % 3,
    lambda m, a, b: a ** 2, lambda m, a, b: a < 0.5, lambda m, a, b: a * True,
    lambda m, a, b: m.max(a, np.uint8(3)), lambda m, a, b: a + np.array([1, 2, 3]),
    lambda m, a, b: b + [0.5, 1.5, 2.5],
]
PAIRS = [("uint8", "uint8"), ("uint8", "int8"), ("int16", "uint16"), ("int32", "int32"),
         ("uint32", "int32"), ("int64", "uint64"), ("uint64", "uint64"), ("float32", "int32"),
         ("float64", "float32"), ("bool", "int32"), ("int8", "bool"), ("float32", "float32"),
         ("bool", "bool"), ("int64", "float64")]


def _random(rng, dtype, shape, divisor):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool) if not divisor else np.ones(shape, bool)
    if dt.kind == "f":
        v = rng.normal(0, 3, shape)
        return (np.where(np.abs(v) < 0.1, 1.0, v) if divisor else v * 10).astype(dt)
    lo = 0 if dt.kind == "u" else -9
    if divisor:
        v = rng.integers(lo, 10, shape)
        return np.where(v == 0, 1, v).astype(dt)
    info = np.iinfo(dt)
    big = rng.integers(max(info.min, -2 ** 62), min(info.max, 2 ** 62), shape, dtype=np.int64)
    return np.where(rng.random(shape) < 0.7, rng.integers(lo * 100, 1000, shape), big).astype(dt)


def _compare_with_real_dali(exprs, batches, layouts=None):
    import nvidia.dali.math as real_math

    def build(m):
        return lambda fn, a, b: tuple(f(m, a, b) for f in exprs)

    ours = run_op(build(dmath), batches, layouts=layouts)
    real = run_op(build(real_math), batches, layouts=layouts, real=True)
    for k, (o, r) in enumerate(zip(ours, real, strict=True)):
        for x, y in zip(o, r, strict=True):
            assert x.dtype == y.dtype and x.shape == y.shape, k
            if x.dtype.kind == "f":
                np.testing.assert_allclose(x, y, rtol=2e-6, atol=1e-30, equal_nan=True,
                                           err_msg=str(k))
            else:
                np.testing.assert_array_equal(x, y, err_msg=str(k))


@pytest.mark.oracle
@pytest.mark.parametrize("ta, tb", PAIRS)
def test_expressions_match_real_dali(ta, tb):
    rng = np.random.default_rng(PAIRS.index((ta, tb)))
    float_vs_signed = {np.dtype(ta).kind, np.dtype(tb).kind} == {"f", "i"}
    valid = []
    for op, f in EXPRESSIONS.items():
        if float_vs_signed and op in ("eq", "neq", "lt", "leq", "gt", "geq"):
            continue    # DALI 2.4 is wrong there (see test_float_vs_negative_integer_comparison)
        args = [ta, tb, "int32"] if op == "clamp" else [ta] if op in (
            "minus", "bitnot", "abs") else [ta, tb]
        try:
            kernels.result_type(op, [types.to_dali_type(t) for t in args])
        except TypeError:
            continue
        valid.append(f)
    uniform = [[_random(rng, ta, (4, 5, 3), False) for _ in range(3)],
               [_random(rng, tb, (3,), True) for _ in range(3)]]
    ragged = [[_random(rng, ta, s, False) for s in [(2, 1, 3), (4, 1, 5), (1, 1, 1)]],
              [_random(rng, tb, s, True) for s in [(3,), (5,), (1,)]]]
    for batches in (uniform, ragged):
        _compare_with_real_dali(valid, batches)


@pytest.mark.oracle
@pytest.mark.parametrize("ta, tb", [("uint8", "int16"), ("float32", "int64"), ("int32", "bool")])
def test_expressions_with_constants_match_real_dali(ta, tb):
    rng = np.random.default_rng(7)
    batches = [[_random(rng, ta, (2, 3), False) for _ in range(2)],
               [_random(rng, tb, (3,), True) for _ in range(2)]]
    exprs = [f for f in CONSTANT_EXPRESSIONS if not (ta == "bool" and f is CONSTANT_EXPRESSIONS[3])]
    _compare_with_real_dali(exprs, batches, layouts=["HC", "C"])


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_flat_batches_on_the_pool_equal_numpy(dtype):
    """Image-sized batches of one operation on operands of the output's type go through
    NumPy's loops in chunks on the pool (dali._ext.kernels.arith): the ufunc's values."""
    rng = np.random.default_rng(8)
    xs = [(rng.random((224, 224, 3)) * 200).astype(dtype) for _ in range(3)]
    ys = [(rng.random((224, 224, 3)) * 50).astype(dtype) for _ in range(3)]
    one = dtype(1)
    outs = run_op(lambda fn, x, y: (x + y, x * y, x - one if dtype == np.float32 else x + 1),
                  [xs, ys], num_threads=2)
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        np.testing.assert_array_equal(outs[0][i], x + y)
        np.testing.assert_array_equal(outs[1][i], x * y)
        want = x - one if dtype == np.float32 else (x.astype(np.int32) + 1)
        np.testing.assert_array_equal(outs[2][i], want)


@pytest.mark.parametrize("case", ["mul_add", "normalize", "bitwise", "shared", "mixed"])
def test_expressions_of_several_operations_run_as_one_program(monkeypatch, case):
    """An expression tree (`expression_desc` of several operations) whose every operation and
    input has the output's type runs chunk by chunk (`run_program`), with the values of the
    operations applied one after another, for samples of different shapes (a flat batch)
    too; one with another type (uint8 * float) takes the NumPy path, with the same values."""
    calls = []
    run_program = arithmetic._loops.run_program
    monkeypatch.setattr(arithmetic._loops, "run_program",
                        lambda *a: calls.append([s[0].__name__ for s in a[1]])
                        or run_program(*a))
    rng = np.random.default_rng(11)
    shapes = [(70, 300, 3), (5, 4, 3), (1000, 37, 2)]
    f32 = [(rng.standard_normal(s) * 50).astype(np.float32) for s in shapes]
    f32b = [(rng.standard_normal(s) * 5).astype(np.float32) for s in shapes]
    u8 = [rng.integers(0, 256, s, dtype=np.uint8) for s in shapes]
    u8b = [rng.integers(0, 256, s, dtype=np.uint8) for s in shapes]
    desc, ints, reals, batches, want, steps = {
        "mul_add": ("add(mul(&0 $0:float32) $0:int32)", [1], [0.5], [f32],
                    lambda x: x * np.float32(0.5) + np.float32(1), ["multiply", "add"]),
        "normalize": ("sub(mul(sub(&0 &1) add(&0 $0:float32)) &1)", None, [2.5], [f32, f32b],
                      lambda x, y: (x - y) * (x + np.float32(2.5)) - y,
                      ["subtract", "add", "multiply", "subtract"]),
        "bitwise": ("bitor(bitand(&0 &1) bitxor(&0 &1))", None, None, [u8, u8b],
                    lambda x, y: (x & y) | (x ^ y),
                    ["bitwise_and", "bitwise_xor", "bitwise_or"]),
        "shared": ("add(mul(&0 &1) mul(&1 &0))", None, None, [f32, f32b],
                   lambda x, y: x * y + y * x, ["multiply", "multiply", "add"]),
        "mixed": ("add(mul(&0 $0:float32) $0:int32)", [1], [0.5], [u8],
                  lambda x: x.astype(np.float32) * np.float32(0.5) + np.float32(1), None),
    }[case]

    def build(*nodes):
        return dali._operator.call(arithmetic.ArithmeticGenericOp, list(nodes),
                                   {"expression_desc": desc, "integer_constants": ints,
                                    "real_constants": reals})

    (out,) = run(build, *batches)
    if steps is not None:            # (a pipeline of an earlier test may still be running)
        assert steps in calls
    for i in range(len(shapes)):
        got = np.asarray(out[i])
        ref = want(*[b[i] for b in batches])
        assert got.dtype == ref.dtype
        np.testing.assert_array_equal(got, ref)
