"""Reductions (fn.reductions.*): the whole of every image; std_dev and variance about a
constant mean."""

from bench.opcase import OpCase, unary

CASE_LIST = [unary(f"reductions.{op}") for op in ("min", "max", "sum", "mean", "mean_square",
                                                 "rms")] + [
    OpCase(f"reductions.{op}", f"reductions.{op}",
           lambda fn, types, x, size, op=op: getattr(fn.reductions, op)(x, 100.0))
    for op in ("std_dev", "variance")
]
