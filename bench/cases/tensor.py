"""Tensor manipulation and the Python escape hatches."""

from bench.opcase import OpCase, unary


def _identity(x):
    return x


CASE_LIST = [
    OpCase("cast", "cast", lambda fn, types, x, size: fn.cast(x, dtype=types.FLOAT)),
    OpCase("cast_like", "cast_like", lambda fn, types, x, y, size: fn.cast_like(x, y),
           ("u8", "f32")),
    unary("copy"),
    unary("expand_dims", axes=[0], new_axis_names="F"),
    unary("squeeze", kind="frames", axes=[0]),
    unary("reshape", shape=[-1]),
    OpCase("reinterpret", "reinterpret",
           lambda fn, types, x, size: fn.reinterpret(x, dtype=types.INT8)),
    unary("transpose", perm=[2, 0, 1]),
    unary("per_frame", kind="frames"),
    unary("get_property", key="layout"),
    OpCase("external_source", "external_source", lambda fn, types, x, size: x, ("u8",), "idle"),
    unary("python_function", function=_identity),
]
