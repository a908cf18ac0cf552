"""Element-wise math functions on DataNodes (`nvidia.dali.math` equivalent).

Each call records one arithmetic operator (`dali.ops.math.arithmetic`), exactly like the Python
operators on DataNodes; operands may be DataNodes, scalars (Python ints are int32, floats
float32) or constant arrays.  Functions that produce a floating-point result give float32 for
integer inputs and keep float32/float64 inputs' type.  Boolean operands are rejected unless
another operand is a number, and float16 is not supported on the CPU.

`abs`, `min`, `max` and `pow` shadow the builtins inside this module, as in DALI.
"""

from dali.ops.math import arithmetic as _arithmetic

__all__ = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil",
           "clamp", "cos", "cosh", "exp", "floor", "fabs", "fpow", "log", "log10", "log2", "max",
           "min", "pow", "rsqrt", "sin", "sinh", "sqrt", "tan", "tanh"]


def _op(name, *operands):
    return _arithmetic.arithm_op(name, *operands)


def sqrt(input):
    """Square root of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("sqrt", input)


def rsqrt(input):
    """Reciprocal of the square root of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("rsqrt", input)


def cbrt(input):
    """Cube root of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("cbrt", input)


def exp(input):
    """Exponential (e to the power of the input) of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("exp", input)


def log(input):
    """Natural (base-e) logarithm of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("log", input)


def log2(input):
    """Base-2 logarithm of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("log2", input)


def log10(input):
    """Base-10 logarithm of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("log10", input)


def fabs(input):
    """Absolute value as a floating-point number of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("fabs", input)


def floor(input):
    """Floor (rounded down) of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("floor", input)


def ceil(input):
    """Ceiling (rounded up) of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("ceil", input)


def sin(input):
    """Sine (radians) of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("sin", input)


def cos(input):
    """Cosine (radians) of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("cos", input)


def tan(input):
    """Tangent (radians) of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("tan", input)


def asin(input):
    """Arcsine, in radians of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("asin", input)


def acos(input):
    """Arccosine, in radians of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("acos", input)


def atan(input):
    """Arctangent, in radians of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("atan", input)


def sinh(input):
    """Hyperbolic sine of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("sinh", input)


def cosh(input):
    """Hyperbolic cosine of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("cosh", input)


def tanh(input):
    """Hyperbolic tangent of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("tanh", input)


def asinh(input):
    """Inverse hyperbolic sine of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("asinh", input)


def acosh(input):
    """Inverse hyperbolic cosine of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("acosh", input)


def atanh(input):
    """Inverse hyperbolic tangent of `input`, element-wise.

    Returns a DataNode: float32 for integer inputs, else the input's type.
    """
    return _op("atanh", input)


def abs(input):
    """Absolute value of `input`, element-wise; keeps the type (integers wrap: abs(-128) of
    int8 is -128)."""
    return _op("abs", input)


def min(left, right):
    """Element-wise minimum, `left < right ? left : right`, in the promoted type."""
    return _op("min", left, right)


def max(left, right):
    """Element-wise maximum, `left > right ? left : right`, in the promoted type."""
    return _op("max", left, right)


def pow(base, exponent):
    """`base ** exponent` in the promoted type (an integer power with a negative exponent is
    0)."""
    return _op("pow", base, exponent)


def fpow(base, exponent):
    """`base ** exponent` computed in floating point: float32 when both are integers."""
    return _op("fpow", base, exponent)


def atan2(x, y):
    """Arctangent of `x / y` using the signs of both to pick the quadrant (like
    `numpy.arctan2(x, y)`); float32 when both are integers."""
    return _op("atan2", x, y)


def clamp(value, lo, hi):
    """`value` limited to [`lo`, `hi`] (`min(max(value, lo), hi)`), in the type promoted from
    all three."""
    return _op("clamp", value, lo, hi)
