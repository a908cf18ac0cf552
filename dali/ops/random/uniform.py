"""fn.random.uniform: uniformly distributed numbers, from a range or a discrete set of values.

Floating-point outputs lie in the half-open `[start, end)`.  Integer outputs follow DALI
exactly: the ends are truncated to integers a and b, and a continuous uniform draw on [a, b] is
rounded to the nearest integer - so a..b are all possible, but a and b are half as likely as
the values between them (`range=[0, 3]` gives 0, 1, 2, 3 with probabilities 1/6, 1/3, 1/3,
1/6).  With `values`, each element is one of the values, picked with equal probability.  One
uniform double per element, stream 0.
"""

from __future__ import annotations

import math

import numpy as np

from dali import _registry
from dali._schema import Arg
from dali._types import DALIDataType as T
from dali.ops.random import _common


@_registry.register
class Uniform(_common.Distribution):
    default_type, supported = T.FLOAT, _common.NUMERIC_TYPES
    schema = _common.schema(
        "random.uniform", default_type, supported,
        doc="Generates random numbers following a uniform distribution.",
        args=[
            Arg("range", T._FLOAT_VEC, [-1.0, 1.0], tensor=True,
                doc="`[start, end)` of the distribution. For integer types both ends are "
                    "truncated and included, and (as in DALI) a continuous draw between them is "
                    "rounded, so the two ends are half as likely as the values between them. "
                    "Ignored when `values` is given."),
            Arg("values", T._FLOAT_VEC, None, tensor=True,
                doc="A discrete set of values to pick from with equal probability (converted "
                    "to `dtype`)."),
        ])

    def run_cpu(self, ws, plan):
        out = ws.outputs[0]
        n = _common.counts(out)
        u = _common.draws(ws.uniform, n)
        if ws.arg_given("values"):
            flat = self._pick(ws, u, n)
        elif out.dtype.kind in "iu":
            flat = self._integers(ws, u, n, out.dtype)
        else:
            flat = self._floats(ws, u, n, out.dtype)
        _common.fill(ws, flat, n, out.dtype)

    def _ranges(self, ws):
        ranges = ws.arg("range")
        for i, r in enumerate(ranges):
            if r.size != 2:
                raise ws.sample_error(
                    i, f"the argument `range` must have 2 values [start, end), got {r.size}")
        return [float(r[0]) for r in ranges], [float(r[1]) for r in ranges]

    def _pick(self, ws, u, n):
        values = ws.arg("values")
        parts = []
        start = 0
        for i, (v, k) in enumerate(zip(values, n, strict=True)):
            if v.size == 0:
                raise ws.sample_error(i, "the argument `values` must not be empty")
            idx = np.minimum((u[start:start + k] * v.size).astype(np.int64), v.size - 1)
            parts.append(v.astype(np.float64)[idx])
            start += k
        return np.concatenate(parts) if parts else np.empty(0)

    def _floats(self, ws, u, n, dtype):
        lo, hi = self._ranges(ws)
        for i, (a, b) in enumerate(zip(lo, hi, strict=True)):
            _check_range(ws, i, a, b)
        lo_e, hi_e = _common.per_element(lo, n), _common.per_element(hi, n)
        x = (lo_e + u * (hi_e - lo_e)).astype(dtype)
        # Rounding to the output type can reach `end`; keep the interval half-open.
        end = hi_e.astype(dtype)
        return np.where(x >= end, np.nextafter(end, np.asarray(-np.inf, dtype)), x)

    def _integers(self, ws, u, n, dtype):
        lo, hi = self._ranges(ws)
        info = np.iinfo(dtype)
        first, last = [], []
        for i, (a, b) in enumerate(zip(lo, hi, strict=True)):
            _check_range(ws, i, a, b)
            ta, tb = math.trunc(a), math.trunc(b)
            if ta < info.min or tb > info.max:
                raise ws.sample_error(
                    i, f"`range` [{a}, {b}] does not fit the output type {dtype} "
                       f"([{info.min}, {info.max}])")
            first.append(ta)
            last.append(tb)
        lo_e, hi_e = _common.per_element(first, n), _common.per_element(last, n)
        return np.rint(lo_e + u * (hi_e - lo_e))


def _check_range(ws, i, a, b):
    if not (math.isfinite(a) and math.isfinite(b) and b > a):
        raise ws.sample_error(i, f"invalid `range` [{a}, {b}): the end must be greater than "
                                 "the start (both finite)")
