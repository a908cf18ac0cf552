"""Type rules and NumPy kernels of the arithmetic operator (`_ArithmeticGenericOp`).

The rules follow DALI 2.4 as measured, not NumPy:

* binary operations promote with `dali._types.promote` (Python scalars are not weak), cast
  both operands to the result type and compute in it, so integers wrap like C++
  (`uint8 200 * 2 == 144`, `uint32 * int32` is an int64 product);
* `/`, `fpow` and `atan2` give float32 when the promoted type is an integer;
* math functions of integers (`sqrt`, `floor`, `fabs`, ...) give float32, `abs` keeps the type;
* comparisons give bool and are exact between integers (`uint64 2**64-1 != int64 -1`); an
  integer compared with a float is converted to the float type first;
* integer `//` truncates toward zero, `%` is C's `fmod` (sign of the dividend), a zero divisor
  is an error; float `//` is plain division;
* integer `**` with a negative exponent is 0;
* shifts compute in C++'s promoted type (int for narrow types) with the count masked to the
  width, as x86 does (`int32 1 << 33 == 2`), then cast to the result type;
* `min(a, b)` is `a < b ? a : b` and `max(a, b)` is `a > b ? a : b` (NaN handling follows),
  `clamp(v, lo, hi)` is `std::min(std::max(v, lo), hi)`;
* booleans: `+ - / // % ** min max` and math functions reject two (or only) booleans; `*`, `&`,
  `|`, `^` keep bool (logical and/or/xor), `~bool` is logical not, unary `-` rejects them;
* float16 is not supported on the CPU.
"""

from __future__ import annotations

import numpy as np

from dali import _types
from dali._types import DALIDataType as T

# How DALI names each operation in its messages.
SYMBOL = {"add": "+", "sub": "-", "mul": "*", "pow": "pow", "fdiv": "/", "div": "//",
          "mod": "%", "bitand": "&", "bitor": "|", "bitxor": "^", "lshift": "<<",
          "rshift": ">>", "eq": "==", "neq": "!=", "lt": "<", "leq": "<=", "gt": ">",
          "geq": ">=", "minus": "-", "plus": "+", "bitnot": "~"}

_FLOAT_MATH = {"sqrt": np.sqrt, "rsqrt": lambda x: np.reciprocal(np.sqrt(x)), "cbrt": np.cbrt,
               "exp": np.exp, "log": np.log, "log2": np.log2, "log10": np.log10,
               "fabs": np.abs, "floor": np.floor, "ceil": np.ceil, "sin": np.sin,
               "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
               "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
               "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh}
_COMPARE = {"eq": np.equal, "neq": np.not_equal, "lt": np.less, "leq": np.less_equal,
            "gt": np.greater, "geq": np.greater_equal}
_BITWISE = {"bitand": np.bitwise_and, "bitor": np.bitwise_or, "bitxor": np.bitwise_xor}
_SHIFT = {"lshift": np.left_shift, "rshift": np.right_shift}
_PROMOTING = {"add", "sub", "mul", "div", "mod", "pow", "min", "max", "clamp"}
_TO_FLOAT = {"fdiv", "fpow", "atan2"}
_UNARY_SAME = {"minus", "plus", "abs", "bitnot"}

ARITY = {**{k: 1 for k in _FLOAT_MATH}, **{k: 1 for k in _UNARY_SAME},
         **{k: 2 for k in (*_COMPARE, *_BITWISE, *_SHIFT, *_PROMOTING, *_TO_FLOAT)},
         "clamp": 3}

_SUPPORTED = {T.BOOL, T.UINT8, T.UINT16, T.UINT32, T.UINT64, T.INT8, T.INT16, T.INT32,
              T.INT64, T.FLOAT, T.FLOAT64}


class IntegerDivisionByZero(ValueError):
    """An integer `//` or `%` met a zero divisor; `mask` marks the zero divisors."""

    def __init__(self, mask):
        super().__init__("Integer division by zero.")
        self.mask = mask


def _operand(k, n):
    if n == 1:
        return "Input"
    if n == 2:
        return ("Left", "Right")[k] + " operand"
    return f"Operand {k}"


def result_type(op: str, types: list) -> T:
    """Type of `op` applied to operands of `types`; raises for what DALI rejects."""
    sym = SYMBOL.get(op, op)
    n = len(types)
    for k, t in enumerate(types):
        if t not in _SUPPORTED:
            raise TypeError(
                f"{_operand(k, n)} data type not supported, {t}: arithmetic operator `{sym}` "
                "does not support it on the CPU (float16 arithmetic is not supported).")
    all_bool = all(t == T.BOOL for t in types)
    if op in _COMPARE:
        return T.BOOL
    if op in _BITWISE or op in _SHIFT or op == "bitnot":
        if any(_types.is_float(t) for t in types):
            raise TypeError(f"Inputs to bitwise operator `{sym}` must be of integral type.")
        return _promote_all(types)
    if all_bool and op != "mul":
        if n == 1:
            raise TypeError(
                f"Input to arithmetic operator `{sym}` cannot be a boolean. Consider using "
                "bitwise operator `~` or a numeric type.")
        raise TypeError(
            f"Inputs to arithmetic operator `{sym}` cannot be booleans. Consider using bitwise "
            "operators `|`, `&`, `^` or a numeric type as one of the inputs to force type "
            "promotions of the booleans. Note: using `*` (multiplication) is still allowed "
            "for boolean inputs.")
    if op in _UNARY_SAME or op in _PROMOTING:
        return _promote_all(types)
    if op in _FLOAT_MATH or op in _TO_FLOAT:
        t = _promote_all(types)
        return t if _types.is_float(t) else T.FLOAT
    raise ValueError(f"unknown arithmetic operation `{op}`")


def _promote_all(types):
    t = types[0]
    for u in types[1:]:
        t = _types.promote(t, u)
    return t


def _cast(x, t):
    return np.asarray(x).astype(_types.dtype_of(t), copy=False)


def evaluate(op: str, args: list, types: list, out_type: T):
    """Compute `op` on arrays `args` (of DALI `types`) as an array of `out_type`.

    Call under `np.errstate(all="ignore")`: integer wrap-around, NaNs and infinities are
    results here, not errors.
    """
    if op in _COMPARE:
        return _compare(_COMPARE[op], *args, *types)
    if op in _SHIFT:
        return _shift(_SHIFT[op], args[0], args[1], out_type)
    xs = [_cast(a, out_type) for a in args]
    is_int = not _types.is_float(out_type)
    if op in _FLOAT_MATH:
        return _FLOAT_MATH[op](xs[0])
    if op == "add":
        return np.add(*xs)
    if op == "sub":
        return np.subtract(*xs)
    if op == "mul":
        return np.multiply(*xs)
    if op in ("fdiv", "fpow", "atan2"):
        return {"fdiv": np.divide, "fpow": np.power, "atan2": np.arctan2}[op](*xs)
    if op in ("div", "mod"):
        if is_int:
            zero = xs[1] == 0
            if np.any(zero):
                raise IntegerDivisionByZero(zero)
            return _trunc_div_mod(*xs)[0 if op == "div" else 1]
        return np.divide(*xs) if op == "div" else np.fmod(*xs)
    if op == "pow":
        return _int_pow(*xs) if is_int else np.power(*xs)
    if op in _BITWISE:
        return _BITWISE[op](*xs)
    if op == "min":
        return np.minimum(*xs) if is_int else np.where(xs[0] < xs[1], xs[0], xs[1])
    if op == "max":
        return np.maximum(*xs) if is_int else np.where(xs[0] > xs[1], xs[0], xs[1])
    if op == "clamp":
        v, lo, hi = xs
        if is_int:
            return np.minimum(np.maximum(v, lo), hi)
        low = np.where(v < lo, lo, v)
        return np.where(hi < low, hi, low)
    if op == "minus":
        return np.negative(xs[0])
    if op == "plus":
        return xs[0]
    if op == "abs":
        return np.abs(xs[0])
    if op == "bitnot":
        return np.invert(xs[0])
    raise ValueError(f"unknown arithmetic operation `{op}`")


_ELEMENTWISE = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "fdiv": np.divide,
                "bitand": np.bitwise_and, "bitor": np.bitwise_or, "bitxor": np.bitwise_xor,
                "minus": np.negative, "bitnot": np.invert, "abs": np.absolute}
_INTEGER_ONLY = {"min": np.minimum, "max": np.maximum}


def ufunc_for(op: str, out_type: T):
    """The ufunc that computes `op` like `evaluate` in one call, or None.

    For these operations `evaluate` casts every operand to `out_type` and applies one ufunc, so
    `ufunc(*operands, out=..., dtype=out_type, casting="unsafe")` gives the same values without
    temporaries.  Float `min`/`max` are excluded (they follow C's comparison, not NumPy's NaN
    rule), as is everything that checks or converts operands first.
    """
    if op in _ELEMENTWISE:
        return _ELEMENTWISE[op]
    if op in _INTEGER_ONLY and not _types.is_float(out_type):
        return _INTEGER_ONLY[op]
    return None


def _trunc_div_mod(x, y):
    """C's integer `x / y` and `x % y` (truncating), from NumPy's fast floor division: they
    differ from floor's where the remainder is not 0 and the signs of x and y differ."""
    q = np.floor_divide(x, y)
    r = np.subtract(x, np.multiply(q, y))
    if x.dtype.kind == "u":
        return q, r
    fix = ((r != 0) & (np.bitwise_xor(x, y) < 0)).astype(q.dtype)
    return np.add(q, fix), np.subtract(r, np.multiply(fix, y))


def _int_pow(x, e):
    if e.dtype.kind == "u":
        return np.power(x, e)
    negative = e < 0
    r = np.power(x, np.where(negative, 0, e).astype(e.dtype, copy=False))
    return np.where(negative, 0, r).astype(r.dtype, copy=False)


def compare_ufunc(op: str):
    """The ufunc of comparison `op` (on operands cast to `compare_type`), or None."""
    return _COMPARE.get(op)


def compare_type(ta, tb):
    """The type both operands of a comparison are cast to, or None where the comparison is
    not one ufunc on cast operands (uint64 against a signed integer: exact)."""
    if T.UINT64 in (ta, tb) and (_types.is_signed(ta) or _types.is_signed(tb)) and \
            not (_types.is_float(ta) or _types.is_float(tb)):
        return None
    return _types.promote(ta, tb)


def _compare(ufunc, a, b, ta, tb):
    t = compare_type(ta, tb)
    if t is None:
        return _compare_u64_signed(ufunc, a, b, ta == T.UINT64)
    return ufunc(_cast(a, t), _cast(b, t))


def _compare_u64_signed(ufunc, a, b, unsigned_left):
    """Exact comparison of uint64 with a signed integer: a negative one is the smaller."""
    u, s = (a, b) if unsigned_left else (b, a)
    s = _cast(s, T.INT64)
    uu = _cast(u, T.UINT64)
    ss = s.astype(np.uint64)
    res = ufunc(uu, ss) if unsigned_left else ufunc(ss, uu)
    fill = ufunc(1, 0) if unsigned_left else ufunc(0, 1)
    return np.where(s < 0, fill, res)


_SHIFT_WORK = {T.INT64: (np.int64, 64), T.UINT64: (np.uint64, 64), T.UINT32: (np.uint32, 32)}


def shift_work(out_type):
    """(NumPy type, bits) a shift of result type `out_type` computes in: C++'s promoted type
    (int for the narrow types)."""
    return _SHIFT_WORK.get(out_type, (np.int32, 32))


def _shift(ufunc, a, b, out_type):
    work, bits = shift_work(out_type)
    x = _cast(a, out_type).astype(work, copy=False)
    n = _cast(b, out_type).astype(work, copy=False) & work(bits - 1)
    r = ufunc(x, n)
    if out_type == T.BOOL:
        return r != 0
    return np.asarray(r).astype(_types.dtype_of(out_type), copy=False)
