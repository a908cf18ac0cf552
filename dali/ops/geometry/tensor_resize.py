"""fn.tensor_resize (and its deprecated alias fn.experimental.tensor_resize): resizes tensors of
any layout along the axes given by `axes` / `axis_names` (all by default).

Per axis d: the source range is [lo, hi) (`roi_start`/`roi_end`, else the whole extent; a zero
extent is widened as fn.resize does), of extent `ext`.  With `sizes`, the requested size of a
listed axis is its value (0: derived by `mode` as in fn.resize) and an unlisted axis requests
its own extent; `max_size` and the modes are fn.resize's (`_resize_size.output_size`), the
output extent is the size rounded half up.  With `scales`, the ideal size is `scale * ext`
(unlisted axes: scale 1), rounded by `size_rounding`.  With `subpixel_scale` the range is
then resized to keep the exact scale about the point `(1 - alignment) * lo + alignment * hi`.
The axes whose output differs from a plain copy must form a block of at most 3 consecutive
dimensions: it is resampled by `_resampling` with the dimensions before it as planes and those
after it as channels.  A batch of 3-D samples changed along their first two axes only goes to
the image batch kernel in one call (as fn.resize's HWC images).
"""

from __future__ import annotations

import math

import numpy as np

from dali import _operator, _registry, _types
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _aliases
from dali.ops.geometry import _resampling, _resize_common, _resize_gpu, _resize_size

_ROUNDING = {"round": lambda v: math.trunc(v + math.copysign(0.5, v)),
             "truncate": math.trunc, "ceil": math.ceil}


@_registry.register
class TensorResize(_operator.Operator):
    schema = Schema(
        "tensor_resize", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Resizes tensors along the given axes (all by default) to `sizes`, or by "
            "`scales`, with fn.resize's separable filters; the other axes are kept.",
        args=[
            Arg("sizes", T._FLOAT_VEC, None, tensor=True,
                doc="Output sizes of the axes in `axes` (all axes by default); 0 leaves an "
                    "extent to `mode`. Excludes `scales`."),
            Arg("scales", T._FLOAT_VEC, None, tensor=True,
                doc="Scale factors of the axes in `axes`: `out = size_rounding(scale * "
                    "extent)`. Excludes `sizes`."),
            Arg("axes", T._INT32_VEC, None,
                doc="Indices of the axes `sizes`, `scales`, `max_size`, `roi_start`, "
                    "`roi_end` and `alignment` refer to (negative: from the back). Excludes "
                    "`axis_names`."),
            Arg("axis_names", T.TENSOR_LAYOUT, None,
                doc="Names (layout letters) of those axes. Excludes `axes`."),
            Arg("size_rounding", T.STRING, "round",
                doc='Rounding of sizes computed from `scales`: "round" (half away from '
                    'zero), "truncate" or "ceil".'),
            Arg("alignment", T._FLOAT_VEC, [0.5], tensor=True,
                doc="Which point of the region keeps its place when the rounded size changes "
                    "the scale (`subpixel_scale`): `(1 - alignment) * roi_start + alignment * "
                    "roi_end`; 0.5 (default) is the centre. One value, or one per axis."),
            Arg("mode", T.STRING, "default",
                doc="As in fn.resize: how extents given as 0 are derived (\"default\", "
                    "\"stretch\", \"not_larger\", \"not_smaller\")."),
            Arg("max_size", T._FLOAT_VEC, None,
                doc="Limit of the output size, one value or one per axis."),
            Arg("roi_start", T._FLOAT_VEC, None, tensor=True,
                doc="Start of the input region of interest per axis; with `roi_end`. "
                    "roi_start > roi_end flips the axis."),
            Arg("roi_end", T._FLOAT_VEC, None, tensor=True,
                doc="End of the input region of interest; see `roi_start`."),
            Arg("roi_relative", T.BOOL, False,
                doc="ROI coordinates are fractions of the extents (0..1), not elements."),
            Arg("subpixel_scale", T.BOOL, True,
                doc="Keep the exact scale of fractional output sizes by adjusting the "
                    "region; otherwise the scale follows the rounded size."),
            *_resize_common.filter_args(),
        ])

    def setup(self):
        given = self.spec.given
        if ("sizes" in given) == ("scales" in given):
            raise self.error("Need one of ``scales`` or ``sizes``, but not both", RuntimeError)
        if "axes" in given and "axis_names" in given:
            raise self.error("The `axis_names` and `axes` arguments are mutually exclusive",
                             RuntimeError)
        if ("roi_start" in given) != ("roi_end" in given):
            raise self.error("``roi_start`` and ``roi_end`` must be specified together",
                             RuntimeError)
        if self.args["mode"] not in _resize_size.MODES:
            raise self.error(f"Invalid resize mode: \"{self.args['mode']}\"", RuntimeError)
        if "scales" in given and self.args["mode"] in ("not_larger", "not_smaller"):
            raise self.error("Providing ``scales`` is incompatible with not-smaller or "
                             "not-larger modes", RuntimeError)
        if self.args["size_rounding"] not in _ROUNDING:
            raise self.error(f"Invalid size_rounding: \"{self.args['size_rounding']}\"; "
                             "valid values are: round, truncate, ceil", RuntimeError)
        self._memo = _operator.LastPlan()  # the last batch's plan values (no argument inputs)

    def infer(self, ws):
        tl = ws.inputs[0]
        dtype = _types.dtype_of(_resize_common.output_type(self, ws))
        ndim = tl.ndim()
        if ndim < 1:
            raise self.error("Expected at least 1D inputs", RuntimeError)
        in_shapes = np.asarray(ws.input_storage(0).shapes)
        key = _operator.shapes_key(in_shapes, tl.layout())
        kept = self._memo.get(key)
        if kept is not None:
            shapes, geometry, bounds = kept
        else:
            axes = self.axes(tl.layout(), ndim)
            shapes, geometry = [], []
            for i, shape in enumerate(map(tuple, in_shapes.tolist())):
                out, lo, hi = self.sample_geometry(ws, i, axes, shape)
                shapes.append(tuple(out))
                geometry.append((lo, hi))
            bounds = _image_bounds(in_shapes, shapes, geometry)
            if not self.spec.arg_inputs:
                self._memo.keep(key, (shapes, geometry, bounds))
        return _operator.Plan([_operator.OutputDesc(list(shapes), dtype, tl.layout())],
                              geometry=geometry, bounds=bounds)

    def run_cpu(self, ws, plan):
        srcs, dsts = ws.input_samples(0), ws.output_samples(0)
        antialias = self.args["antialias"]
        if plan.bounds is not None:         # 3-D samples resized along their first two axes
            _resize_common.resample_samples(ws, srcs, dsts, "HWC", None,
                                            _resize_common.filter_codes(ws), antialias, None,
                                            plan.bounds)
            return
        filters = _resize_common.sample_filters(ws)

        def one(i):
            _resample(self, srcs[i], dsts[i], *plan.geometry[i], *filters[i], antialias)

        _resize_common.map_samples(ws, one, len(srcs))

    def run_gpu(self, ws, plan):
        """`gpu_program` of the device batches, queued on the workspace's device."""
        src, dst = ws.input_storage(0), ws.outputs[0]
        program = self.gpu_program(plan, src.shapes, _resize_common.filter_codes(ws), src.dtype,
                                   dst.dtype, src.offsets, dst.offsets)
        _resize_gpu.run(ws.gpu, program, src, dst)

    def gpu_program(self, plan, in_shapes, filters, in_dtype, out_dtype, src_offsets=None,
                    dst_offsets=None):
        """The `_resize_gpu.Program` of the batch `plan` describes: the run_cpu's resampling
        (the image batch engine for `plan.bounds`, else each sample's `resampled_block`)."""
        out_shapes = plan.outputs[0].shapes
        antialias = self.args["antialias"]
        if plan.bounds is not None:
            return _resize_gpu.program("HWC", in_shapes, out_shapes, *plan.bounds, filters,
                                       antialias, in_dtype, out_dtype, src_offsets, dst_offsets)
        blocks = []
        for shape, out, (lo, hi) in zip(in_shapes, out_shapes, plan.geometry, strict=True):
            block = None
            if math.prod(shape) and math.prod(out):
                block = resampled_block(self, tuple(shape), tuple(out), lo, hi)
            if block is None:       # copied (or empty)
                block = (1, math.prod(shape), 1), (1, math.prod(out), 1), None, None
            blocks.append(block)
        cin, cout, lo, hi = zip(*blocks, strict=True) if blocks else ((), (), (), ())
        return _resize_gpu.canonical_program(cin, cout, lo, hi, filters, antialias, in_dtype,
                                             out_dtype, False, src_offsets, dst_offsets)

    def axes(self, layout, ndim):
        """The indices of the axes the arguments refer to."""
        if self.args["axis_names"] is not None:
            names = self.args["axis_names"]
            missing = [c for c in names if c not in layout]
            if missing:
                raise self.error(f'Axis "{missing[0]}" is not present in the input layout '
                                 f'"{layout}"', RuntimeError)
            return [layout.index(c) for c in names]
        if self.args["axes"] is None:
            return list(range(ndim))
        out = []
        for a in self.args["axes"]:
            if not -ndim <= a < ndim:
                raise self.error(f"Axis index {a} out of range for a {ndim}D input (accepted "
                                 f"range is [{-ndim}, {ndim - 1}])", RuntimeError)
            out.append(a % ndim)
        return out

    def per_axis(self, ws, i, name, axes, fill):
        """A per-axis argument spread over all dimensions (`fill` where not listed): one value
        for every listed axis, or one per listed axis."""
        value = ws.arg(name)[i] if self.schema.arg_map[name].tensor else self.args[name]
        v = np.asarray(value, np.float64).reshape(-1)
        if len(v) == 1:
            v = np.repeat(v, len(axes))
        if len(v) != len(axes):
            raise ws.sample_error(i, f"Argument `{name}` must have one value or {len(axes)} "
                                     f"(one per axis), got {len(v)}", RuntimeError)
        if not np.isfinite(v).all():
            raise ws.sample_error(i, f"Argument `{name}` must be finite", RuntimeError)
        full = list(fill)
        for a, x in zip(axes, v.tolist(), strict=True):
            full[a] = x
        return full

    def sample_geometry(self, ws, i, axes, shape):
        """(output extents, region start, region end) of sample i, every dimension."""
        n = len(shape)
        ext_in = [float(s) for s in shape]
        if ws.arg_given("roi_start"):
            lo = self.per_axis(ws, i, "roi_start", axes, [0.0] * n)
            hi = self.per_axis(ws, i, "roi_end", axes, ext_in)
            if self.args["roi_relative"]:
                for d in set(axes):
                    lo[d], hi[d] = lo[d] * ext_in[d], hi[d] * ext_in[d]
        else:
            lo, hi = [0.0] * n, list(ext_in)
        for d in range(n):
            if lo[d] == hi[d] and shape[d] > 0:
                c = np.float32(lo[d])
                lo[d], hi[d] = float(c - _resize_size.ZERO_EXTENT), \
                    float(c + _resize_size.ZERO_EXTENT)
        ext = [abs(float(np.float32(b) - np.float32(a))) for a, b in zip(lo, hi, strict=True)]
        empty = [s == 0 for s in shape]
        if ws.arg_given("sizes"):
            requested = self.per_axis(ws, i, "sizes", axes, ext_in)
            max_size = [0.0] * n
            if self.args["max_size"] is not None:
                max_size = self.per_axis(ws, i, "max_size", axes, [0.0] * n)
            out_f = _resize_size.output_size(ext, requested, self.args["mode"], max_size,
                                             empty if any(empty) else None)
            out = [0 if empty[d] else max(1, math.floor(out_f[d] + 0.5)) for d in range(n)]
        else:
            scales = self.per_axis(ws, i, "scales", axes, [1.0] * n)
            out_f = [abs(s) * e for s, e in zip(scales, ext, strict=True)]
            rnd = _ROUNDING[self.args["size_rounding"]]
            out = [0 if empty[d] else max(1, rnd(out_f[d])) for d in range(n)]
            if self.args["max_size"] is not None:
                limit = self.per_axis(ws, i, "max_size", axes, [0.0] * n)
                out = [min(o, int(m)) if m > 0 else o for o, m in zip(out, limit, strict=True)]
        align = self.per_axis(ws, i, "alignment", axes, [0.5] * n)
        src_lo, src_hi = [], []
        for d in range(n):
            a, b = min(lo[d], hi[d]), max(lo[d], hi[d])
            if self.args["subpixel_scale"] and out_f[d] > 0 and out[d] > 0:
                point = (1 - align[d]) * a + align[d] * b
                width = out[d] * ext[d] / out_f[d]
                a = point - align[d] * width
                b = a + width
            flipped = hi[d] < lo[d]
            src_lo.append(b if flipped else a)
            src_hi.append(a if flipped else b)
        return out, src_lo, src_hi


def _image_bounds(in_shapes, out_shapes, geometry):
    """When every sample is 3-D and only its first two axes change (an HWC image), the
    regions as the image batch kernel's (lo, hi) float64 (n, 2) arrays; else None."""
    if in_shapes.shape[1] != 3 or not len(geometry):
        return None
    for shape, out, (lo, hi) in zip(in_shapes.tolist(), out_shapes, geometry, strict=True):
        if out[2] != shape[2] or lo[2] != 0 or hi[2] != shape[2]:
            return None
    return tuple(np.array([g[k][:2] for g in geometry], np.float64) for k in (0, 1))


def resampled_block(op, in_shape, out_shape, lo, hi):
    """How a sample is resampled: the block of axes that change, with the dimensions before it
    folded into planes and those after it into channels, as (input shape, output shape, lo,
    hi) of the block (`_resampling`'s canonical form); None when no axis changes.  Raises when
    the block spans more than 3 dimensions."""
    changed = [d for d in range(len(in_shape)) if in_shape[d] != out_shape[d] or lo[d] != 0
               or hi[d] != in_shape[d]]
    if not changed:
        return None
    first, last = changed[0], changed[-1]
    if last - first + 1 > 3:
        raise op.error(f"The resize can only consider a block of at most 3 consecutive "
                       f"dimensions; got {last - first + 1} dimensions starting at dim "
                       f"{first}", RuntimeError)
    planes, channels = math.prod(in_shape[:first]), math.prod(in_shape[last + 1:])
    block = slice(first, last + 1)
    return ((planes, *in_shape[block], channels), (planes, *out_shape[block], channels),
            list(lo[block]), list(hi[block]))


def _resample(op, src, dst, lo, hi, min_filter, mag_filter, antialias):
    """Resample one sample: the block of axes that change, the others folded around it."""
    if src.size == 0 or dst.size == 0:
        return
    block = resampled_block(op, src.shape, dst.shape, lo, hi)
    if block is None:
        dst[...] = src
        return
    in_shape, out_shape, lo, hi = block
    filters = _resampling.region_filters(in_shape[1:-1], out_shape[1:-1], lo, hi, min_filter,
                                         mag_filter, antialias)
    out = dst if dst.flags.c_contiguous else np.empty(dst.shape, dst.dtype)
    _resampling.resample(np.ascontiguousarray(src).reshape(in_shape), out.reshape(out_shape),
                         filters)
    if out is not dst:
        dst[...] = out


ExperimentalTensorResize = _aliases.deprecated_alias(
    "experimental.tensor_resize", TensorResize, "the operator moved out of `experimental`",
    __name__)
