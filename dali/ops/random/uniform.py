"""fn.random.uniform: uniformly distributed numbers, from a range or a discrete set of values.

Floating-point outputs lie in the half-open `[start, end)`.  Integer outputs follow DALI
exactly: the ends are truncated to integers a and b, and a continuous uniform draw on [a, b] is
rounded to the nearest integer - so a..b are all possible, but a and b are half as likely as
the values between them (`range=[0, 3]` gives 0, 1, 2, 3 with probabilities 1/6, 1/3, 1/3,
1/6).  With `values`, each element is one of the values, picked with equal probability.  One
uniform double per element, stream 0; the GPU (`random.cu`) draws the same numbers.
"""

from __future__ import annotations

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
        ], gpu=True)

    def run_cpu(self, ws, plan):
        out = ws.outputs[0]
        if not ws.arg_given("values"):
            self._draw_range(ws, out.dtype)
            return
        n = _common.counts(out)
        u = ws.uniform_flat(n)
        _common.fill(ws, self._pick(ws, u, n), n, out.dtype)

    def run_gpu(self, ws, plan):
        if not ws.arg_given("values"):
            self._draw_range(ws, ws.outputs[0].dtype)
            return
        flat, offsets, sizes = self._values(ws)
        _common.draw(ws, "pick", offsets, sizes, table=flat)

    def _draw_range(self, ws, dtype):
        lo, hi = self._ranges(ws)
        if dtype.kind in "iu":
            lo, hi = self._integer_ends(ws, lo, hi, dtype)
            _common.draw(ws, "rint", lo, hi - lo)
        else:
            _common.draw(ws, "uniform", lo, hi - lo, hi)

    @staticmethod
    def _ranges(ws):
        """(start, end) arrays of the per-sample ranges, checked."""
        rows = ws.arg_rows("range")
        if rows is None or rows.shape[1] != 2:
            for i, r in enumerate(ws.arg("range")):
                if r.size != 2:
                    raise ws.sample_error(
                        i, f"the argument `range` must have 2 values [start, end), got {r.size}")
        lo, hi = rows[:, 0], rows[:, 1]
        bad = ~(np.isfinite(lo) & np.isfinite(hi) & (hi > lo))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ws.sample_error(i, f"invalid `range` [{lo[i]}, {hi[i]}): the end must be "
                                     "greater than the start (both finite)")
        return lo, hi

    @staticmethod
    def _pick(ws, u, n):
        """The values the uniform draws `u` pick (n[i] of them for sample i)."""
        flat, offsets, sizes = Uniform._values(ws)
        sample = np.repeat(np.arange(len(n)), n)
        k = sizes[sample]
        idx = np.minimum((u * k).astype(np.int64), k - 1)
        return flat[offsets[sample] + idx]

    @staticmethod
    def _values(ws):
        """(float64 values of every sample back to back, each sample's offset in them, their
        numbers), checked."""
        rows = ws.arg_rows("values")
        if rows is not None:                   # the same number of values in every sample
            n, k = rows.shape
            if k == 0 and n:
                raise ws.sample_error(0, "the argument `values` must not be empty")
            return (np.ascontiguousarray(rows, np.float64).reshape(-1),
                    np.arange(n, dtype=np.int64) * k, np.full(n, k, np.int64))
        values = ws.arg("values")
        sizes = np.array([v.size for v in values], dtype=np.int64)
        if (sizes == 0).any():
            raise ws.sample_error(int(np.flatnonzero(sizes == 0)[0]),
                                  "the argument `values` must not be empty")
        flat = np.concatenate([np.ravel(v) for v in values]).astype(np.float64)
        return flat, np.cumsum(sizes) - sizes, sizes

    @staticmethod
    def _integer_ends(ws, lo, hi, dtype):
        """The truncated ends, checked against the output type's range."""
        info = np.iinfo(dtype)
        first, last = np.trunc(lo), np.trunc(hi)
        bad = (first < info.min) | (last > info.max)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ws.sample_error(
                i, f"`range` [{lo[i]}, {hi[i]}] does not fit the output type {dtype} "
                   f"([{info.min}, {info.max}])")
        return first, last
