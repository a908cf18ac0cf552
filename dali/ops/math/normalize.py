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

The passes (sums, squared deviations, normalization) are `dali._ext.kernels.normalize`'s: one
nogil call over the batch on the thread pool, each sample's passes back to back while it is in
cache; with `batch=True` one call per pass, the statistics combined in between.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types, tensors
from dali._ext.kernels import normalize as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.math import _normalize_gpu

TYPES = (T.INT8, T.UINT8, T.INT16, T.UINT16, T.INT32, T.UINT32, T.FLOAT)
_F32 = np.float32


@_registry.register
class Normalize(_operator.Operator):
    schema = Schema(
        "normalize", inputs=1, outputs=1, devices=("cpu", "gpu"),
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
        st = ws.input_storage(0)
        uniform = st.uniform_shape
        shapes = [uniform] * st.num_samples if uniform is not None else st.shapes
        params = {n: self._tensor_param(ws, n) for n in ("mean", "stddev")}
        reduced = self._reduced_axes(ws, tl, params)
        self._check_param_shapes(shapes, params, reduced)
        return _operator.Plan([_operator.OutputDesc(shapes, _types.dtype_of(out_type), tl.layout(),
                                                    tl.ndim())],
                              params=params, reduced=reduced)

    def _tensor_param(self, ws, name):
        """Per-sample float32 tensors of an argument input, or None."""
        if not ws.is_arg_input(name):
            return None
        tl = ws.arg_inputs[name]
        if len(tl) != ws.batch_size:
            raise self.error(f"argument input `{name}` has {len(tl)} samples but the batch "
                             f"has {ws.batch_size}")
        return [np.asarray(s, dtype=_F32) for s in tensors.storage_of(tl).samples()]

    def _reduced_axes(self, ws, tl, params):
        """A bool per dimension: reduced or kept."""
        ndim = tl.ndim()
        given = ws.arg_given
        tensors = [p for p in params.values() if p is not None]
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

    def _check_param_shapes(self, shapes, params, reduced):
        if self.args["batch"]:
            if not len(shapes):
                raise self.error("Got an empty batch!", RuntimeError)
            kept = [d for d, r in enumerate(reduced) if not r]
            if isinstance(shapes, list):
                shapes = shapes[:1]       # uniform: nothing to compare
            shapes = [tuple(int(e) for e in s) for s in shapes]
            for i, s in enumerate(shapes[1:], 1):
                for d in kept:
                    if s[d] != shapes[0][d]:
                        raise self.error(
                            "Batch normalization requires that non-reduced dimensions have "
                            f"equal extent in all samples in the batch. Got sample #{i} with "
                            f"shape {s} which has a different extent ({s[d]}) in axis {d} "
                            f"than sample #0, which was of shape {shapes[0]} "
                            f"({shapes[0][d]} in axis {d})", RuntimeError)
        for p in params.values():
            if p is None:
                continue
            for i, (s, t) in enumerate(zip(shapes, p, strict=True)):
                want = tuple(1 if r else int(e) for e, r in zip(s, reduced, strict=True))
                if t.shape != want:
                    raise self.error(
                        f"At sample {i}: parameter shape: {t.shape} does not match the "
                        f"reduced input sample shape which is : {want}", RuntimeError)

    # -- run --------------------------------------------------------------------------------
    def run_cpu(self, ws, plan):
        src, dst = ws.input_storage(0), ws.outputs[0]
        reduced = plan.reduced
        poff = _kernel.param_offsets(src, reduced)
        total = int(poff[-1])
        mean = self._given_means(ws, plan.params["mean"], total)
        inv = self._given_factors(ws, plan.params["stddev"], total)
        sums = np.empty(total) if mean is None or inv is None else None
        scale, eps = _F32(self.args["scale"]), _F32(self.args["epsilon"])
        common = dict(scale=scale, shift=_F32(self.args["shift"]), eps=eps,
                      ddof=self.args["ddof"])
        if self.args["batch"]:
            def batch_sums(flags, mean):
                _kernel.normalize_batch(ws.thread_pool, src, dst, reduced, poff, flags, mean,
                                        sums=sums)
                return sums

            mean, inv = self._batch_statistics(src, poff, mean, inv, batch_sums)
            _kernel.normalize_batch(ws.thread_pool, src, dst, reduced, poff, _kernel.OUT,
                                    mean, inv, **common)
            return
        flags = _kernel.OUT
        if mean is None:
            mean, flags = np.empty(total, _F32), flags | _kernel.MEAN
        if inv is None:
            inv, flags = np.empty(total, _F32), flags | _kernel.INV
        _kernel.normalize_batch(ws.thread_pool, src, dst, reduced, poff, flags, mean, inv,
                                sums, **common)

    def run_gpu(self, ws, plan):
        """normalize.cu's passes, as run_cpu runs them: a statistics launch (computed mean
        and/or factors, or one launch per pass and the host's combination with `batch`),
        then the normalization."""
        src, dst, gpu = ws.input_storage(0), ws.outputs[0], ws.gpu
        stats, out = _normalize_gpu.launches(src.shapes, plan.reduced, src.dtype, dst.dtype,
                                             src.offsets, dst.offsets)
        total = int(stats.poff[-1])
        mean = self._given_means(ws, plan.params["mean"], total)
        inv = self._given_factors(ws, plan.params["stddev"], total)
        null = np.uint64(0)       # an array the pass does not read
        sums = gpu.alloc(8 * max(total, 1))
        gpu.keep(sums)

        def launch_stats(flags, mean, inv):
            gpu.launch(_normalize_gpu.__file__, stats.kernel, stats.grid, stats.block,
                       (src, stats.samples, sums, mean, inv, np.int32(flags),
                        _F32(self.args["scale"]), _F32(self.args["epsilon"]),
                        np.int32(self.args["ddof"])))

        if self.args["batch"]:
            def batch_sums(flags, mean):
                launch_stats(flags, null if mean is None else mean, null)
                return gpu.download(sums.ptr, 8 * total).view(np.float64)

            mean, inv = self._batch_statistics(src, stats.poff, mean, inv, batch_sums)
        else:
            flags = 0
            if mean is None:
                mean, flags = gpu.alloc(4 * max(total, 1)), flags | _normalize_gpu.MEAN
                gpu.keep(mean)
            if inv is None:
                inv, flags = gpu.alloc(4 * max(total, 1)), flags | _normalize_gpu.INV
                gpu.keep(inv)
            if flags:
                launch_stats(flags, mean, inv)
        gpu.launch(_normalize_gpu.__file__, out.kernel, out.grid, out.block,
                   (src, dst, out.samples, mean, inv, _F32(self.args["shift"])))

    def _batch_statistics(self, src, poff, mean, inv, batch_sums):
        """(mean, inv) for every sample's parameters, computed over the whole batch where not
        given (every sample has the same number of parameters); `batch_sums(flags, mean)`
        runs the SUM or SQ pass over the batch and returns the per-sample sums."""
        n = src.num_samples
        per = int(poff[1]) if n else 0
        count = int(np.prod(src.shapes, axis=1, dtype=np.int64).sum()) // per if per else 0
        if mean is None:
            total = batch_sums(_kernel.SUM, None).reshape(n, per).sum(axis=0)
            mean = np.tile((total / count).astype(_F32) if count else total.astype(_F32), n)
        if inv is None:
            total = batch_sums(_kernel.SQ, mean).reshape(n, per).sum(axis=0)
            inv = np.tile(_inv_stddev(total, count, self.args["ddof"],
                                      _F32(self.args["epsilon"]), _F32(self.args["scale"])), n)
        return mean, inv

    def _given_means(self, ws, tensors, total):
        """float32 mean of every parameter of the batch, or None when computed."""
        if tensors is not None:
            return _concatenated(tensors, total)
        if ws.arg_given("mean"):
            return np.full(total, _F32(self.args["mean"]), _F32)
        return None

    def _given_factors(self, ws, tensors, total):
        """float32 `scale / stddev` of every parameter of the batch (see the module docstring),
        or None when computed."""
        scale, eps = _F32(self.args["scale"]), _F32(self.args["epsilon"])
        if tensors is not None:
            std = _concatenated(tensors, total)
            with np.errstate(divide="ignore", invalid="ignore"):
                if eps:
                    return (scale / np.sqrt(std * std + eps)).astype(_F32)
                return np.where(std != 0, scale / std, _F32(0)).astype(_F32)
        if ws.arg_given("stddev"):
            std = _F32(self.args["stddev"])
            with np.errstate(divide="ignore"):
                inv = scale / std if not eps else scale / np.sqrt(std * std + eps)
            return np.full(total, inv, _F32)
        return None


def _concatenated(tensors, total):
    """The per-sample parameter tensors as one float32 array of `total` values."""
    if not tensors:
        return np.zeros(total, _F32)
    return np.concatenate([t.reshape(-1) for t in tensors]).astype(_F32, copy=False)


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
