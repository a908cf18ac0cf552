"""fn.random.choice: random picks from the outer dimension of the input (or from range(a)).

An integer scalar input `a` means `[0, 1, ..., a-1]`; any other input is a set of candidates
along its outer dimension, so each picked element has the input's inner shape.  Output sample
shape: `shape` (or the `shape_like` input's shape, or ()) followed by that inner shape; the
output type is the input's.  One uniform double per picked element (stream 0), mapped through
the cumulative probabilities `p` (uniform when not given).
"""

from __future__ import annotations

import math

import numpy as np

from dali import _operator, _registry, _types, tensors
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.random import _common


@_registry.register
class Choice(_operator.Operator):
    schema = Schema(
        "random.choice", inputs=(1, 2), outputs=1, devices=("cpu",), random=True,
        input_names=["a", "shape_like"],
        doc="Generates random samples from the input: an integer scalar `a` stands for "
            "`[0, 1, ..., a-1]`, otherwise the elements are picked along the input's outer "
            "dimension (with the probabilities `p`).\n\n"
            "The output has the type of the input; its samples have the shape `shape` (or "
            "the shape of the `shape_like` input, or none) followed by the input's inner "
            "shape.",
        args=[
            Arg("p", T._FLOAT_VEC, None, tensor=True,
                doc="Probability of each candidate (one per element of the outer dimension; "
                    "they must sum to 1). Uniform when not given."),
            _common.shape_arg(),
        ])

    def infer(self, ws):
        tl = ws.inputs[0]
        scalar = tl.ndim() == 0
        if scalar and not _types.is_integer(tl.dtype):
            raise self.error(f"a scalar input must be of an integer type (it stands for "
                             f"range(a)), got {tl.dtype}", TypeError)
        lead = [tuple(s) for s in np.asarray(_common.sample_shapes(self, ws, like_input=1),
                                             np.int64).tolist()]
        inner = [()] * len(tl) if scalar else [tuple(s[1:]) for s in tl.shape()]
        shapes = [a + b for a, b in zip(lead, inner, strict=True)]
        layout = tl.layout()
        if scalar or not layout or not lead:
            layout = ""
        elif not lead[0]:
            layout = layout[1:]
        elif len(lead[0]) != 1:
            layout = ""
        ndim = _common.shape_ndim(ws, like_input=1) + (0 if scalar else tl.ndim() - 1)
        return _operator.Plan(
            [_operator.OutputDesc(shapes, tensors.storage_of(tl).dtype, layout, ndim=ndim)])

    def run_cpu(self, ws, plan):
        if ws.inputs[0].ndim() == 0 and self._choose_from_ranges(ws):
            return
        src = ws.input_samples(0)
        scalar = ws.inputs[0].ndim() == 0
        outs = ws.output_samples(0)
        inner = 0 if scalar else ws.inputs[0].ndim() - 1
        n = np.array([math.prod(o.shape[:o.ndim - inner]) for o in outs], dtype=np.int64)
        u = ws.uniform(n)
        p_given = ws.arg_given("p")
        probs = ws.arg("p") if p_given else [None] * len(src)
        for i, (a, dst, ui, p) in enumerate(zip(src, outs, u, probs, strict=True)):
            count = int(a) if scalar else a.shape[0]
            if count <= 0:
                raise ws.sample_error(i, f"there must be at least one element to choose from, "
                                         f"got {count}")
            idx = self._indices(ws, i, ui, count, p)
            dst[...] = (idx.astype(a.dtype) if scalar else a[idx]).reshape(dst.shape)

    @staticmethod
    def _choose_from_ranges(ws):
        """The whole batch at once for scalar inputs `a` (picks from range(a)) whose
        probabilities, if any, have one row per sample of the same length; False (nothing
        done) where it does not apply or an argument is wrong, so the per-sample path runs and
        reports it."""
        dense = ws.input_storage(0).dense()
        rows = ws.arg_rows("p") if ws.arg_given("p") else None
        if dense is None or (rows is None and ws.arg_given("p")):
            return False
        count = dense.reshape(-1).astype(np.int64)
        if (count <= 0).any():
            return False
        if rows is None:
            _common.draw(ws, "index", count.astype(np.float64))
            return True
        total = rows.sum(axis=1)
        if ((count != rows.shape[1]).any() or not ((rows >= 0) & (rows <= 1)).all()
                or (np.abs(total - 1.0) >= 1e-4).any()):
            return False
        out = ws.outputs[0]
        n = _common.counts(out)
        u = ws.uniform_flat(n)
        sample = np.repeat(np.arange(len(n)), n)
        cdf = np.cumsum(rows, axis=1) / total[:, None]
        idx = np.minimum((cdf[sample] <= u[:, None]).sum(axis=1), count[sample] - 1)
        _common.fill(ws, idx.astype(np.float64), n, out.dtype)
        return True

    @staticmethod
    def _indices(ws, i, u, count, p):
        if p is None:
            return np.minimum((u * count).astype(np.int64), count - 1)
        p = np.asarray(p, dtype=np.float64)
        if p.size != count:
            raise ws.sample_error(i, f"the argument `p` has {p.size} probabilities but there "
                                     f"are {count} elements to choose from")
        if not np.all((p >= 0) & (p <= 1)):
            raise ws.sample_error(i, f"probabilities `p` must be in [0, 1], got {p.tolist()}")
        total = p.sum()
        if abs(total - 1.0) >= 1e-4:
            raise ws.sample_error(i, f"probabilities `p` must sum to 1, got {total:g}")
        cdf = np.cumsum(p) / total
        return np.minimum(np.searchsorted(cdf, u, side="right"), count - 1)
