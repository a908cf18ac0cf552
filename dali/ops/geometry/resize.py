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

import numpy as np

from dali import _operator, _registry, _roles, _types
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _regions
from dali.ops.geometry import _resize_common, _resize_gpu, _resize_size

LAYOUTS = ("HWC", "FHWC", "CHW", "FCHW", "CFHW", "DHWC", "FDHWC", "CDHW", "FCDHW", "CFDHW")
_CACHE_SIZE = 4096                       # entries of the per-axis and per-sample memos
_BATCH_CACHE_SIZE = 8                    # batches of input shapes remembered (each entry holds
                                         # a whole batch's plan: random crops never repeat)


@_registry.register
class Resize(_resize_size.SizeLogic, _operator.Operator, _roles.RegionProducer,
             _roles.RegionConsumer):
    schema = Schema(
        "resize", inputs=1, devices=("cpu", "gpu"),
        outputs=lambda args: 2 if args.get("save_attrs") else 1,
        doc="Resizes images, sequences of images (each frame alike) and volumes.\n\n"
            "Give the output size with exactly one of: `size`, `resize_x`/`resize_y`/"
            "`resize_z`, `resize_shorter`, `resize_longer`; `mode` and `max_size` refine it. "
            "Filters are separable (nearest neighbour, linear, cubic, Lanczos3, Gaussian); "
            "downscaling is antialiased by default.",
        args=[
            *_resize_size.size_args(),
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
            key = _operator.shapes_key(in_shapes, layout)
            hit = self._batch_cache.get(key)
            if hit is not None:
                return list(hit[0]), list(hit[1]), hit[2]
        shapes, geometry, bounds = _resize_common.batch_geometry(
            in_shapes, layout, lambda i, shape: self._sample_plan(ws, i, layout, shape))
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

    takes_scaled = True

    def _plans(self, ws, shapes, layout):
        return [self._sample_plan(ws, i, layout, shape) for i, shape in enumerate(shapes)]

    def max_input_scales(self, ws, shapes, layout):
        if layout != "HWC":
            return None
        plans = self._plans(ws, shapes, layout)
        extents = [np.subtract(hi, lo) for _, (lo, hi) in plans]
        return _resize_common.max_scales(extents, [out[:2] for out, _ in plans])

    def input_regions(self, ws, shapes, layout, delivery=None):
        if layout != "HWC":
            return None
        plans = self._plans(ws, shapes, layout)
        out_shapes = [out for out, _ in plans]
        geometry = [region for _, region in plans]
        if delivery is not None:
            shapes, geometry = delivery.shapes(shapes), delivery.geometry(geometry)
        filters = _resize_common.sample_filters(ws)
        return _resize_common.sample_regions(self, ws, shapes, out_shapes, layout, geometry,
                                             filters)

    def run_cpu(self, ws, plan):
        layout = plan.layout
        dst = ws.outputs[0]              # batches: the kernel reads and writes them in place
        antialias = self.args["antialias"]
        filters = _resize_common.filter_codes(ws)
        regions = _regions.consumer_regions(self, ws, dst.shapes.tolist(), layout)
        sources, bounds = ws.input_storage(0), plan.bounds
        delivery = _regions.delivered(self, ws)
        if delivery is not None:                 # the input came reduced (HWC only)
            sources, bounds = delivery.sources(ws.input_samples(0)), delivery.bounds(*bounds)
        _resize_common.resample_samples(ws, sources, dst, layout, plan.geometry, filters,
                                        antialias, regions, bounds)
        if self.args["save_attrs"]:
            for attr, row in zip(ws.output_samples(1), self._attrs(ws, layout), strict=True):
                attr[...] = row

    def run_gpu(self, ws, plan):
        """The CPU path's resampling (`_resize_gpu`: the same filters, passes and rounding) as
        kernel launches on the device; no region fusion there."""
        _resize_gpu.run_plan(ws, plan, self.args["antialias"])
        if self.args["save_attrs"]:
            attrs = ws.gpu.upload(self._attrs(ws, plan.layout))
            ws.gpu.keep(attrs)
            ws.gpu.copy(ws.outputs[1].ptr, attrs.ptr, ws.outputs[1].nbytes)

    @staticmethod
    def _attrs(ws, layout):
        """The `save_attrs` output: each input's spatial extents, an (n, k) int32 array."""
        spatial = [k for k, c in enumerate(layout) if c in "DHW"]
        return np.ascontiguousarray(ws.input_storage(0).shapes[:, spatial], np.int32)

    # -- size logic -----------------------------------------------------------------------
    def _sample_plan(self, ws, i, layout, shape):
        """(output shape, (region start, region end)) of sample i, of input `shape` (a
        tuple); remembered per input shape when no argument is an input (then it depends on
        nothing else, and equal input shapes share one output shape tuple).  Callers do not
        modify what is returned."""
        if self.spec.arg_inputs:
            return _resize_size.plan_of(layout, shape, self._sample_geometry(ws, i, layout, shape))
        key = (layout, shape)
        hit = self._sample_cache.get(key)
        if hit is None:
            hit = _resize_size.plan_of(layout, shape, self._cached_geometry(ws, i, layout, shape))
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
