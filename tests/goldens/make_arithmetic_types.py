"""Regenerate arithmetic_types.json with real NVIDIA DALI: the result type (or "error") of every
arithmetic operation and `nvidia.dali.math` function for every combination of input types.

Each combination runs in its own pipeline (a rejected one fails the whole pipeline run).
Run: python tests/goldens/make_arithmetic_types.py  (about 10 s).
"""
import json
import pathlib

import numpy as np
from nvidia.dali import fn, pipeline_def
from nvidia.dali import math as dmath

TYPES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
         "float16", "float32", "float64"]
BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "fdiv": lambda a, b: a / b, "div": lambda a, b: a // b, "mod": lambda a, b: a % b,
    "pow": lambda a, b: a ** b, "eq": lambda a, b: a == b, "neq": lambda a, b: a != b,
    "lt": lambda a, b: a < b, "leq": lambda a, b: a <= b, "gt": lambda a, b: a > b,
    "geq": lambda a, b: a >= b, "bitand": lambda a, b: a & b, "bitor": lambda a, b: a | b,
    "bitxor": lambda a, b: a ^ b, "lshift": lambda a, b: a << b, "rshift": lambda a, b: a >> b,
    "min": dmath.min, "max": dmath.max, "fpow": dmath.fpow, "atan2": dmath.atan2,
    "clamp": lambda a, b: dmath.clamp(a, b, b),
}
UNARY = {
    "minus": lambda a: -a, "bitnot": lambda a: ~a, "abs": dmath.abs,
    **{name: getattr(dmath, name) for name in [
        "fabs", "sqrt", "rsqrt", "cbrt", "exp", "log", "log2", "log10", "floor", "ceil", "sin",
        "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
        "atanh"]},
}


def _ones(dtype):
    return lambda: [np.ones(2, dtype=dtype)]


def result(build, *types):
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        nodes = [fn.external_source(source=_ones(t)) for t in types]
        return build(*nodes)

    try:
        p = pipe()
        p.build()
        (out,) = p.run()
    except Exception:
        return "error"
    return np.dtype(out.as_array().dtype).name


def main():
    table = {
        "types": TYPES,
        "unary": {op: [result(f, a) for a in TYPES] for op, f in UNARY.items()},
        "binary": {op: [[result(f, a, b) for b in TYPES] for a in TYPES]
                   for op, f in BINARY.items()},
    }
    out = pathlib.Path(__file__).with_name("arithmetic_types.json")
    out.write_text(json.dumps(table, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
