"""fn.resize: resizes images, sequences and volumes with separable filters.

Output size of one sample (spatial dimensions only; frames and channels are kept):

1. The source region of each axis is the whole extent, or [roi_start, roi_end) (absolute, or
   relative with `roi_relative`); a region of zero extent is widened to 0.001 pixel.
2. Requested sizes: `size`, or `resize_x`/`resize_y`/`resize_z` (W, H, D), or
   `resize_shorter`/`resize_longer` (every axis, in mode "not_smaller"/"not_larger").
   0 means "not given"; a negative size mirrors that axis.
3. Scales `|requested| / extent` of the given axes combine by mode: "default" gives the
   missing axes the geometric mean of the given scales, "stretch" leaves them unscaled,
   "not_larger"/"not_smaller" apply the smallest/largest given scale to every axis.
4. `max_size` (per axis, > 0 to apply) clamps each axis in "default"/"stretch" mode and limits
   the common scale in the aspect-keeping modes.
5. The output extent is the size rounded half up (at least 1).  With `subpixel_scale` the
   region is then resized about its centre to keep the exact scale; otherwise the scale
   follows the rounded size.

A region mirrored by roi_start > roi_end stays mirrored only on axes with a requested size
(DALI drops it on derived axes), and a negative requested size mirrors it again.
Samples of zero volume keep their empty extents at 0.  The resampling is `_resampling`'s.
"""

from __future__ import annotations

import math

import numpy as np

from dali import _operator, _registry, _roles, _types
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _regions
from dali.ops.geometry import _resize_common

LAYOUTS = ("HWC", "FHWC", "CHW", "FCHW", "CFHW", "DHWC", "FDHWC", "CDHW", "FCDHW", "CFDHW")
_MODES = ("default", "stretch", "not_larger", "not_smaller")
_ZERO_EXTENT = np.float32(0.0005)        # half the width a zero-extent region is widened to
_CACHE_SIZE = 4096                       # entries of the per-axis and per-sample memos
_BATCH_CACHE_SIZE = 8                    # batches of input shapes remembered (each entry holds
                                         # a whole batch's plan: random crops never repeat)


@_registry.register
class Resize(_operator.Operator, _roles.RegionProducer, _roles.RegionConsumer):
    schema = Schema(
        "resize", inputs=1, devices=("cpu",),
        outputs=lambda args: 2 if args.get("save_attrs") else 1,
        doc="Resizes images, sequences of images (each frame alike) and volumes.\n\n"
            "Give the output size with exactly one of: `size`, `resize_x`/`resize_y`/"
            "`resize_z`, `resize_shorter`, `resize_longer`; `mode` and `max_size` refine it. "
            "Filters are separable (nearest neighbour, linear, cubic, Lanczos3, Gaussian); "
            "downscaling is antialiased by default.",
        args=[
            Arg("resize_x", T.FLOAT, 0.0, tensor=True,
                doc="Output width. Alone (with `resize_y` unset or 0), the aspect ratio is "
                    "kept. A negative value mirrors the image horizontally."),
            Arg("resize_y", T.FLOAT, 0.0, tensor=True,
                doc="Output height; see `resize_x`."),
            Arg("resize_z", T.FLOAT, 0.0, tensor=True,
                doc="Output depth of volumes; see `resize_x`."),
            Arg("resize_shorter", T.FLOAT, 0.0, tensor=True,
                doc="Length of the shorter dimension; the aspect ratio is kept (the same size "
                    "for every axis in mode \"not_smaller\"). `max_size` bounds the longer "
                    "one."),
            Arg("resize_longer", T.FLOAT, 0.0, tensor=True,
                doc="Length of the longer dimension; the aspect ratio is kept (the same size "
                    "for every axis in mode \"not_larger\")."),
            Arg("size", T._FLOAT_VEC, None, tensor=True,
                doc="Output size: one value per spatial dimension (layout order, no frames or "
                    "channels) or one value for all. 0 leaves an extent to `mode`; a negative "
                    "value mirrors that axis."),
            Arg("mode", T.STRING, "default",
                doc='"default": missing extents scale by the geometric mean of the given '
                    'scales; "stretch": missing extents are kept; "not_larger": keep the '
                    'aspect ratio, no extent above the size; "not_smaller": keep the aspect '
                    "ratio, no extent below the size. Excludes `resize_shorter` and "
                    "`resize_longer`."),
            Arg("max_size", T._FLOAT_VEC, None,
                doc="Limit of the output size, per axis or one for all (values <= 0: no "
                    "limit). In the aspect-keeping modes the aspect ratio is kept."),
            Arg("roi_start", T._FLOAT_VEC, None, tensor=True,
                doc="Start of the input region of interest, per spatial axis (layout order); "
                    "given together with `roi_end`. roi_start > roi_end mirrors the axis."),
            Arg("roi_end", T._FLOAT_VEC, None, tensor=True,
                doc="End of the input region of interest; see `roi_start`."),
            Arg("roi_relative", T.BOOL, False,
                doc="ROI coordinates are fractions of the input extent (0..1), not pixels."),
            Arg("subpixel_scale", T.BOOL, True,
                doc="Keep the exact scale of fractional output sizes by adjusting the input "
                    "region; otherwise the scale follows the rounded size."),
            Arg("save_attrs", T.BOOL, False,
                doc="Add a second output: the input's spatial shape (int32) per sample."),
            Arg("image_type", T.IMAGE_TYPE, None,
                deprecated="The argument `image_type` is no longer used and will be removed "
                           "in a future release.",
                ignored="deprecated in DALI, where it has no effect either"),
            *_resize_common.filter_args(),
        ])

    def setup(self):
        # Memos of pure functions of (layout, input shape) while no argument is an input: they
        # only spare recomputing the same geometry batch after batch, so they live on the
        # instance; what one batch's run needs travels in its Plan.
        self._geometry_cache = {}        # (layout, axis, extent) -> that axis's geometry
        self._sample_cache = {}          # (layout, input shape) -> `_sample_plan`
        self._independent = {}           # layout -> whether each axis's geometry is its own
        self._batch_cache = {}           # (layout, input shapes) -> `_batch_plan`

    def infer(self, ws):
        tl = ws.inputs[0]
        layout = _resize_common.input_layout(self, tl, LAYOUTS)
        dtype = _resize_common.output_type(self, ws)
        shapes, geometry, bounds = self._batch_plan(ws, layout, ws.input_storage(0).shapes)
        descs = [_operator.OutputDesc(shapes, _types.dtype_of(dtype), layout)]
        if self.args["save_attrs"]:
            n_spatial = sum(c in "DHW" for c in layout)
            descs.append(_operator.OutputDesc([(n_spatial,)] * len(shapes),
                                              np.dtype(np.int32), "", ndim=1))
        return _operator.Plan(descs, layout=layout, geometry=geometry, bounds=bounds)

    def _batch_plan(self, ws, layout, in_shapes):
        """(output shapes, per-sample (lo, hi), bounds) of a batch of `in_shapes` (an (n, ndim)
        array); bounds are lo and hi as float64 (n, k) arrays for the batch kernel (None
        when the samples' axes differ in number).  Remembered per batch of input shapes when
        no argument is an input (a batch of equal shapes repeats from batch to batch); the
        lists handed out are fresh copies."""
        key = None
        if not self.spec.arg_inputs:
            key = (layout, in_shapes.shape, in_shapes.tobytes())
            hit = self._batch_cache.get(key)
            if hit is not None:
                return list(hit[0]), list(hit[1]), hit[2]
        shapes, geometry = [], []
        for i, shape in enumerate(map(tuple, in_shapes.tolist())):
            out_shape, region = self._sample_plan(ws, i, layout, shape)
            shapes.append(out_shape)
            geometry.append(region)
        bounds = None
        if geometry and layout == "HWC":
            bounds = tuple(np.array([g[k] for g in geometry], np.float64).reshape(-1, 2)
                           for k in (0, 1))
        if key is not None:
            if len(self._batch_cache) >= _BATCH_CACHE_SIZE:
                self._batch_cache.clear()
            self._batch_cache[key] = shapes, geometry, bounds
            return list(shapes), list(geometry), bounds
        return shapes, geometry, bounds

    # -- region fusion (dali.ops._regions) ---------------------------------------------------

    def regions_ahead(self):
        return not self.spec.arg_inputs

    def reads_whole_input(self):
        # Without a region of interest the filters read every input position of an output
        # that is read whole.
        return "roi_start" not in self.spec.given and _regions.reads_whole(self)

    def input_regions(self, ws, shapes, layout):
        if layout != "HWC":
            return None
        geometry, out_shapes = [], []
        for i, shape in enumerate(shapes):
            out_shape, region = self._sample_plan(ws, i, layout, shape)
            geometry.append(region)
            out_shapes.append(out_shape)
        filters = _resize_common.sample_filters(ws)
        return _resize_common.sample_regions(self, ws, shapes, out_shapes, layout, geometry,
                                             filters)

    def run_cpu(self, ws, plan):
        layout = plan.layout
        srcs, dsts = ws.input_samples(0), ws.output_samples(0)
        antialias = self.args["antialias"]
        filters = _resize_common.filter_codes(ws)
        regions = _regions.consumer_regions(self, ws, [d.shape for d in dsts], layout)
        _resize_common.resample_samples(ws, srcs, dsts, layout, plan.geometry, filters,
                                        antialias, regions, plan.bounds)
        if self.args["save_attrs"]:
            spatial = [k for k, c in enumerate(layout) if c in "DHW"]
            for src, attr in zip(srcs, ws.output_samples(1), strict=True):
                attr[...] = [src.shape[k] for k in spatial]

    # -- size logic -----------------------------------------------------------------------
    def _sample_plan(self, ws, i, layout, shape):
        """(output shape, (region start, region end)) of sample i, of input `shape` (a
        tuple); remembered per input shape when no argument is an input (then it depends on
        nothing else, and equal input shapes share one output shape tuple).  Callers do not
        modify what is returned."""
        if self.spec.arg_inputs:
            return _plan_of(layout, shape, self._sample_geometry(ws, i, layout, shape))
        key = (layout, shape)
        hit = self._sample_cache.get(key)
        if hit is None:
            hit = _plan_of(layout, shape, self._cached_geometry(ws, i, layout, shape))
            self._remember(self._sample_cache, [(key, hit)])
        return hit

    def _cached_geometry(self, ws, i, layout, shape):
        """`_sample_geometry` without argument inputs: remembered per axis extent when each
        axis's geometry is its own (random crops hit then too)."""
        if not self._axes_independent(ws, layout):
            return self._sample_geometry(ws, i, layout, shape)
        cache = self._geometry_cache
        spatial = [k for k, c in enumerate(layout) if c in "DHW"]
        keys = [(layout, d, shape[k]) for d, k in enumerate(spatial)]
        parts = [cache.get(key) for key in keys]
        if None in parts:
            parts = list(zip(*self._sample_geometry(ws, i, layout, shape), strict=True))
            self._remember(cache, zip(keys, parts, strict=True))
        return tuple(zip(*parts, strict=True))

    @staticmethod
    def _remember(cache, items):
        if len(cache) >= _CACHE_SIZE:
            cache.clear()
        cache.update(items)

    def _axes_independent(self, ws, layout):
        """Whether each spatial axis's output extent and region depend only on that axis's
        input extent: every axis has a requested size, in mode "default" or "stretch", and
        no region of interest (no argument inputs either: the caller checks).  Remembered per
        layout."""
        independent = self._independent.get(layout)
        if independent is None:
            requested, mode = self._requested(ws, 0, [c for c in layout if c in "DHW"])
            independent = self._independent[layout] = (
                not (ws.arg_given("roi_start") or ws.arg_given("roi_end"))
                and mode in ("default", "stretch") and 0 not in requested)
        return independent

    def _sample_geometry(self, ws, i, layout, shape):
        """(output extents, region start, region end) of sample i's spatial axes."""
        spatial = [c for c in layout if c in "DHW"]
        n = len(spatial)
        in_sizes = [shape[k] for k, c in enumerate(layout) if c in "DHW"]
        lo, hi = self._region(ws, i, in_sizes)
        requested, mode = self._requested(ws, i, spatial)
        max_size = self._per_axis(ws, i, "max_size", self.args["max_size"], n)
        empty = 0 in in_sizes
        ext = [abs(float(np.float32(b) - np.float32(a))) for a, b in zip(lo, hi, strict=True)]
        out_f = _output_size(ext, requested, mode, max_size,
                             [s == 0 for s in in_sizes] if empty else None)
        out = [0 if in_sizes[d] == 0 else max(1, math.floor(out_f[d] + 0.5)) for d in range(n)]
        subpixel = self.args["subpixel_scale"]
        src_lo, src_hi = [], []
        for d in range(n):
            a, b = min(lo[d], hi[d]), max(lo[d], hi[d])
            if subpixel and out_f[d] > 0 and out[d] > 0:
                centre, half = (a + b) / 2, out[d] * ext[d] / out_f[d] / 2
                a, b = centre - half, centre + half
            mirrored = requested[d] != 0 and ((requested[d] < 0) != (hi[d] < lo[d]))
            src_lo.append(b if mirrored else a)
            src_hi.append(a if mirrored else b)
        return out, src_lo, src_hi

    def _region(self, ws, i, in_sizes):
        n = len(in_sizes)
        has_start, has_end = ws.arg_given("roi_start"), ws.arg_given("roi_end")
        if has_start != has_end:
            raise self.error("arguments `roi_start` and `roi_end` must be given together")
        if not has_start:
            lo, hi = [0.0] * n, [float(s) for s in in_sizes]
        else:
            lo = self._per_axis(ws, i, "roi_start", ws.arg("roi_start")[i], n)
            hi = self._per_axis(ws, i, "roi_end", ws.arg("roi_end")[i], n)
            if self.args["roi_relative"]:
                lo = [v * s for v, s in zip(lo, in_sizes, strict=True)]
                hi = [v * s for v, s in zip(hi, in_sizes, strict=True)]
        for d in range(n):
            if lo[d] == hi[d] and in_sizes[d] > 0:
                c = np.float32(lo[d])
                lo[d], hi[d] = float(c - _ZERO_EXTENT), float(c + _ZERO_EXTENT)
        return lo, hi

    def _requested(self, ws, i, spatial):
        """Signed requested size per spatial axis (0: not given) and the effective mode."""
        n = len(spatial)
        given = ws.arg_given
        separate = any(given(a) for a in ("resize_x", "resize_y", "resize_z"))
        methods = separate + given("size") + given("resize_shorter") + given("resize_longer")
        if methods != 1:
            raise self.error(
                "give the output size in exactly one way: `size`, `resize_x`/`resize_y`/"
                "`resize_z`, `resize_shorter` or `resize_longer`"
                + (" (none was given)" if methods == 0 else ""))
        if given("resize_shorter") + given("resize_longer") + given("mode") > 1:
            raise self.error("arguments `resize_shorter`, `resize_longer` and `mode` are "
                             "mutually exclusive")
        mode = self.args["mode"]
        if mode not in _MODES:
            raise self.error(f"argument `mode`: invalid resize mode \"{mode}\"; valid modes "
                             f"are: {', '.join(_MODES)}")
        if separate:
            axis_arg = {"W": "resize_x", "H": "resize_y", "D": "resize_z"}
            req = [float(ws.arg(axis_arg[c])[i]) for c in spatial]
        elif given("size"):
            req = self._per_axis(ws, i, "size", ws.arg("size")[i], n)
        else:
            name = "resize_shorter" if given("resize_shorter") else "resize_longer"
            req = [float(ws.arg(name)[i])] * n
            mode = "not_smaller" if name == "resize_shorter" else "not_larger"
        for v in req:
            if not math.isfinite(v):
                raise ws.sample_error(i, f"the requested output size must be finite, got {v}")
        return req, mode

    def _per_axis(self, ws, i, name, value, n):
        """A per-axis vector argument: one value for every axis, or exactly `n` values."""
        if value is None:
            return [0.0] * n
        v = [float(x) for x in np.asarray(value, dtype=np.float64).reshape(-1)]
        if len(v) == 1:
            v = v * n
        if len(v) != n:
            raise ws.sample_error(i, f"argument `{name}` expects one value or {n} values "
                                     f"(one per spatial dimension), got {len(v)}")
        for x in v:
            if not math.isfinite(x):
                raise ws.sample_error(i, f"argument `{name}` must be finite, got {x}")
        return v


def _plan_of(layout, shape, geometry):
    """(output shape, (lo, hi)) of an input of `shape` from its (extents, lo, hi)."""
    out, lo, hi = geometry
    out_shape = list(shape)
    for k, n in zip([k for k, c in enumerate(layout) if c in "DHW"], out, strict=True):
        out_shape[k] = n
    return tuple(out_shape), (lo, hi)


def _output_size(ext, requested, mode, max_size, skip=None):
    """Fractional output extents (see the module docstring); `skip` marks empty axes."""
    n = len(ext)
    skip = skip or [False] * n
    scales = {d: abs(requested[d]) / ext[d] for d in range(n)
              if requested[d] != 0 and not skip[d]}
    if mode in ("default", "stretch"):
        if mode == "stretch" or not scales:
            other = 1.0
        else:
            other = math.exp(sum(math.log(s) for s in scales.values()) / len(scales))
        out = [abs(requested[d]) if d in scales else ext[d] * other for d in range(n)]
        return [min(o, m) if m > 0 else o for o, m in zip(out, max_size, strict=True)]
    if not scales:
        scale = 1.0
    else:
        scale = (min if mode == "not_larger" else max)(scales.values())
    for d in range(n):
        if max_size[d] > 0 and not skip[d]:
            scale = min(scale, max_size[d] / ext[d])
    return [e * scale for e in ext]
