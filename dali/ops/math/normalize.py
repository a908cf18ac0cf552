"""fn.normalize: `out = scale * (in - mean) / stddev + shift`, with mean and standard deviation
given or computed over the reduced axes.

Reduced axes: `axes` or `axis_names`; otherwise, with mean/stddev given as tensors (argument
inputs), the axes where every parameter tensor has extent 1; otherwise all axes.  Parameters
have the input's rank with extent 1 on reduced axes (one value per combination of kept
indices); scalars broadcast.  With `batch=True` they are computed over the whole batch (the
kept extents must agree between samples).

As in DALI: the variance is taken around the mean actually used (given or computed) and
divided by `N - ddof`; `epsilon` is added to it; a computed variance of 0 (without epsilon)
gives a factor of 0 so that the output is `shift`, as does `N <= ddof`; a given scalar
stddev of 0 gives infinities; a given tensor stddev of 0 gives a factor of 0.  The output is
`(in - mean) * factor + shift` in float32 with `factor = scale / stddev`, converted to `dtype`
(integers round half away from zero and saturate).

Each sample is collapsed to alternating groups of reduced and kept dimensions (extents of 1
dropped) so that the nogil passes of `dali._ext.kernels.normalize` (sums, squared deviations,
normalization) walk it contiguously; large samples are split into slabs of the outermost
group, run on the thread pool like the samples.
"""

from __future__ import annotations

import math

import numpy as np

from dali import _operator, _registry, _types, tensors
from dali._ext.kernels import normalize as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T

TYPES = (T.INT8, T.UINT8, T.INT16, T.UINT16, T.INT32, T.UINT32, T.FLOAT)
TILE = 1 << 18                   # elements per work item
_F32 = np.float32


class _Geometry:
    """One sample collapsed for the kernels: extents, parameter strides, parameter count."""

    def __init__(self, shape, reduced):
        dims = []
        for e, r in zip(shape, reduced, strict=True):
            if e == 1:
                continue
            if dims and dims[-1][1] == r:
                dims[-1][0] *= e
            else:
                dims.append([e, r])
        if not dims:
            dims = [[1, True]]
        self.shape = tuple(e for e, _ in dims)
        self.pstrides = [0] * len(dims)
        stride = 1
        for k in reversed(range(len(dims))):
            if not dims[k][1]:
                self.pstrides[k] = stride
                stride *= dims[k][0]
        self.nparams = stride
        self.size = math.prod(self.shape)
        self.count = math.prod(e for e, r in dims if r)    # elements per parameter

    def slabs(self):
        """[start, stop) ranges of the outermost extent, about TILE elements each."""
        outer = self.shape[0]
        if self.size == 0:
            return []
        step = max(1, TILE // max(1, self.size // outer))
        return [(a, min(outer, a + step)) for a in range(0, outer, step)]


@_registry.register
class Normalize(_operator.Operator):
    schema = Schema(
        "normalize", inputs=1, outputs=1, devices=("cpu",),
        doc="Normalizes the input by removing the mean and dividing by the standard "
            "deviation:\n\n    out = scale * (in - mean) / stddev + shift\n\n"
            "The mean and standard deviation are computed over the reduced axes (`axes` or "
            "`axis_names`, by default all of them) unless given as `mean` / `stddev`: scalars, "
            "or per-sample tensors with the input's rank and extent 1 on the reduced axes "
            "(numpy broadcasting). Without `axes`/`axis_names`, tensor parameters define the "
            "reduced axes: those where they have extent 1 in every sample. With `batch=True` "
            "the statistics are computed over the whole batch.",
        args=[
            Arg("axes", T._INT32_VEC, None,
                doc="Indices of the dimensions along which the input is normalized; by "
                    "default all. Excludes `axis_names`."),
            Arg("axis_names", T.TENSOR_LAYOUT, None,
                doc="Names (layout letters) of the dimensions along which the input is "
                    "normalized. Excludes `axes`."),
            Arg("batch", T.BOOL, False,
                doc="Compute the mean and standard deviation across all samples of the batch "
                    "(the non-reduced extents must match). Not with tensor `mean`/`stddev`."),
            Arg("mean", T.FLOAT, None, tensor=True,
                doc="Mean subtracted: a scalar or per-sample tensors (see above). Computed "
                    "from the input when not given."),
            Arg("stddev", T.FLOAT, None, tensor=True,
                doc="Standard deviation divided by: a scalar or per-sample tensors shaped like "
                    "`mean`. Computed from the input when not given."),
            Arg("scale", T.FLOAT, 1.0, doc="Factor applied to the normalized values."),
            Arg("shift", T.FLOAT, 0.0, doc="Value the mean maps to in the output."),
            Arg("epsilon", T.FLOAT, 0.0, doc="Added to the variance (computed or given)."),
            Arg("ddof", T.INT32, 0,
                doc="Delta degrees of freedom: the variance is sum((x - mean)**2) / (N - ddof). "
                    "Ignored when `stddev` is given."),
            Arg("dtype", T.DATA_TYPE, T.FLOAT,
                doc="Output type: float (default) or an integer type (int8, uint8, int16, "
                    "uint16, int32, uint32); out of range values are clamped, fractions "
                    "rounded to nearest."),
        ])

    def setup(self):
        given, tensors = self.spec.given, set(self.spec.arg_inputs)
        if {"axes", "axis_names"} <= given:
            raise self.error("Arguments `axes` and `axis_names` are mutually exclusive",
                             RuntimeError)
        scalar = {n for n in ("mean", "stddev") if n in given and n not in tensors}
        if scalar == {"mean", "stddev"} and given & {"axes", "axis_names"}:
            raise self.error("Axes must not be specified when both mean and standard "
                             "deviation are scalars", RuntimeError)
        if self.args["batch"] and tensors & {"mean", "stddev"}:
            raise self.error("Batch normalization cannot be used with parameters specified "
                             "as TensorList inputs", RuntimeError)

    # -- output spec ------------------------------------------------------------------------
    def infer(self, ws):
        tl = ws.inputs[0]
        in_type = tl.dtype
        if in_type not in TYPES:
            raise self.error(f"unsupported input type: {_types.type_name(in_type)}",
                             RuntimeError)
        out_type = T(self.args["dtype"])
        if out_type not in TYPES:
            raise self.error(f"unsupported output type: {_types.type_name(out_type)}",
                             RuntimeError)
        shapes = [tuple(s) for s in tl.shape()]
        self._params = {n: self._tensor_param(ws, n) for n in ("mean", "stddev")}
        self.reduced = self._reduced_axes(ws, tl, shapes)
        self._check_param_shapes(shapes)
        return _operator.Plan([_operator.OutputDesc(shapes, _types.dtype_of(out_type), tl.layout(),
                                     tl.ndim())])

    def _tensor_param(self, ws, name):
        """Per-sample float32 tensors of an argument input, or None."""
        if not ws.is_arg_input(name):
            return None
        tl = ws.arg_inputs[name]
        if len(tl) != ws.batch_size:
            raise self.error(f"argument input `{name}` has {len(tl)} samples but the batch "
                             f"has {ws.batch_size}")
        return [np.asarray(s, dtype=_F32) for s in tensors.storage_of(tl).samples()]

    def _reduced_axes(self, ws, tl, shapes):
        """A bool per dimension: reduced or kept."""
        ndim = tl.ndim()
        given = ws.arg_given
        tensors = [p for p in self._params.values() if p is not None]
        if given("axes"):
            axes = [int(a) for a in self.args["axes"]]
            if not axes:
                raise self.error("`axes` argument must specify at least one reduction axis.",
                                 RuntimeError)
            for a in axes:
                if not 0 <= a < ndim:
                    raise self.error(f"axis index {a} is out of valid range 0..{ndim - 1}",
                                     RuntimeError)
            return [d in axes for d in range(ndim)]
        if given("axis_names"):
            layout = tl.layout()
            axes = []
            for name in self.args["axis_names"]:
                if name not in layout:
                    raise self.error(f"Axis '{name}' is not present in the input layout "
                                     f'"{layout}"', RuntimeError)
                axes.append(layout.index(name))
            return [d in axes for d in range(ndim)]
        if tensors:
            if len(tensors) == 2:
                for i, (m, s) in enumerate(zip(*tensors, strict=True)):
                    if m.shape != s.shape:
                        raise self.error(
                            "When providing both `mean` and `stddev`, their shapes must "
                            f"match. Sample #{i} shape mismatch: {m.shape} vs {s.shape}",
                            RuntimeError)
            for i, p in enumerate(tensors[0]):
                if p.ndim != ndim:
                    raise self.error(
                        f"At sample {i}: a tensor `mean`/`stddev` must have the input's "
                        f"number of dimensions ({ndim}), got shape {p.shape}", RuntimeError)
            return [all(p.shape[d] == 1 for p in tensors[0]) for d in range(ndim)]
        return [True] * ndim

    def _check_param_shapes(self, shapes):
        if self.args["batch"]:
            if not shapes:
                raise self.error("Got an empty batch!", RuntimeError)
            kept = [d for d, r in enumerate(self.reduced) if not r]
            for i, s in enumerate(shapes[1:], 1):
                for d in kept:
                    if s[d] != shapes[0][d]:
                        raise self.error(
                            "Batch normalization requires that non-reduced dimensions have "
                            f"equal extent in all samples in the batch. Got sample #{i} with "
                            f"shape {s} which has a different extent ({s[d]}) in axis {d} "
                            f"than sample #0, which was of shape {shapes[0]} "
                            f"({shapes[0][d]} in axis {d})", RuntimeError)
        for p in self._params.values():
            if p is None:
                continue
            for i, (s, t) in enumerate(zip(shapes, p, strict=True)):
                want = tuple(1 if r else e for e, r in zip(s, self.reduced, strict=True))
                if t.shape != want:
                    raise self.error(
                        f"At sample {i}: parameter shape: {t.shape} does not match the "
                        f"reduced input sample shape which is : {want}", RuntimeError)

    # -- run --------------------------------------------------------------------------------
    def run_cpu(self, ws, plan):
        srcs = [np.ascontiguousarray(s) for s in ws.input_samples(0)]
        dsts = ws.output_samples(0)
        geos = [_Geometry(s.shape, self.reduced) for s in srcs]
        views = [s.reshape(g.shape) for s, g in zip(srcs, geos, strict=True)]
        n = len(srcs)
        batch = self.args["batch"]
        means = self._means(ws, views, geos, batch)
        invs = self._factors(ws, views, geos, means, batch)
        shift = float(_F32(self.args["shift"]))
        jobs = []
        for i in range(n):
            g = geos[i]
            out = dsts[i].reshape(g.shape)
            for a, b in g.slabs():
                off = a * g.pstrides[0]
                jobs.append((views[i][a:b], out[a:b], g.pstrides, means[i][off:],
                             invs[i][off:], shift))
        _kernel.normalize_batch(ws.thread_pool, jobs)

    def _means(self, ws, views, geos, batch):
        """float32 mean parameters per sample."""
        if self._params["mean"] is not None:
            return [p.reshape(-1) for p in self._params["mean"]]
        if ws.arg_given("mean"):
            return [np.full(g.nparams, _F32(self.args["mean"]), _F32) for g in geos]
        sums = _sums(ws, views, geos)
        if batch:
            total = np.sum(sums, axis=0) if sums else None
            count = sum(g.count for g in geos)
            mean = (total / count).astype(_F32) if count else np.zeros_like(total, _F32)
            return [mean] * len(geos)
        return [(s / g.count).astype(_F32) if g.count else s.astype(_F32)
                for s, g in zip(sums, geos, strict=True)]

    def _factors(self, ws, views, geos, means, batch):
        """float32 `scale / stddev` per sample (see the module docstring)."""
        scale, eps = _F32(self.args["scale"]), _F32(self.args["epsilon"])
        if self._params["stddev"] is not None:
            out = []
            for p in self._params["stddev"]:
                std = p.reshape(-1)
                with np.errstate(divide="ignore", invalid="ignore"):
                    if eps:
                        out.append((scale / np.sqrt(std * std + eps)).astype(_F32))
                    else:
                        out.append(np.where(std != 0, scale / std, _F32(0)).astype(_F32))
            return out
        if ws.arg_given("stddev"):
            std = _F32(self.args["stddev"])
            with np.errstate(divide="ignore"):
                inv = scale / std if not eps else scale / np.sqrt(std * std + eps)
            return [np.full(g.nparams, inv, _F32) for g in geos]
        squares = _sums(ws, views, geos, means)
        if batch:
            total = np.sum(squares, axis=0)
            inv = _inv_stddev(total, sum(g.count for g in geos), self.args["ddof"], eps, scale)
            return [inv] * len(geos)
        return [_inv_stddev(q, g.count, self.args["ddof"], eps, scale)
                for q, g in zip(squares, geos, strict=True)]


def _inv_stddev(sum_squares, count, ddof, eps, scale):
    """scale / sqrt(sum_squares / (count - ddof) + eps), 0 where that variance is 0 without
    epsilon, or when count <= ddof without epsilon."""
    if count == 0:
        return np.zeros(sum_squares.shape, _F32)
    if count > ddof:
        var = sum_squares / (count - ddof)
    elif eps:
        var = np.zeros(sum_squares.shape)
    else:
        return np.zeros(sum_squares.shape, _F32)
    var = var + float(eps)
    with np.errstate(divide="ignore"):
        inv = np.where(var > 0, float(scale) / np.sqrt(np.where(var > 0, var, 1.0)), 0.0)
    return inv.astype(_F32)


def _sums(ws, views, geos, means=None):
    """Per-sample float64 sums (or sums of squared deviations from `means`) per parameter."""
    sums = [np.zeros(g.nparams) for g in geos]
    jobs, partial = [], []
    for i, g in enumerate(geos):
        for a, b in g.slabs():
            if g.pstrides[0]:             # slabs own their parameters
                off = a * g.pstrides[0]
                acc = sums[i][off:]
            else:                         # a sum per slab, added up below
                off, acc = 0, np.zeros(g.nparams)
                partial.append((i, acc))
            mean = None if means is None else means[i][off:]
            jobs.append((views[i][a:b], acc, g.pstrides, mean))
    _kernel.accumulate_batch(ws.thread_pool, jobs)
    for i, acc in partial:
        sums[i] += acc
    return sums
