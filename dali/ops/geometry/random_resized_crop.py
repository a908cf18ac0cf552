"""fn.random_resized_crop: a random crop (area and aspect ratio drawn per sample), resized.

The crop window is chosen as DALI does (`dali.ops._random_window`, shared with
fn.decoders.image_random_crop) from the workspace's counter-based streams, so a sample's window
depends only on the seed and the sample's index.  The window is then resampled to `size` like
fn.resize with roi_start/roi_end (`_resize_common`); all frames of a sequence share the window.

When a producer is fused with this operator (`dali.ops._regions`), it asks for the input
regions before this operator runs, and both need the batch's windows: they are drawn once and
remembered by what decides them (epoch, sample ids, image extents).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _roles, _types
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _random_window, _regions
from dali.ops.geometry import _resize_common, _resize_gpu

LAYOUTS = ("HWC", "CHW", "FHWC", "FCHW", "CFHW")
_MEMO_SIZE = 4                   # batches whose windows are remembered (see `_windows`)


@_registry.register
class RandomResizedCrop(_operator.Operator, _roles.RegionProducer, _roles.RegionConsumer):
    schema = Schema(
        "random_resized_crop", inputs=1, outputs=1, devices=("cpu", "gpu"), random=True,
        doc="Crops a random window (random area fraction and aspect ratio) and resizes it to "
            "`size`.\n\nAll frames of a sequence share the window. The resampling is "
            "fn.resize's.",
        args=[
            Arg("size", T._INT32_VEC, REQUIRED,
                doc="Output size [height, width] (one value: square)."),
            *_random_window.window_args(),
            *_resize_common.filter_args(),
        ])

    def setup(self):
        # Checked when the pipeline is built, with DALI's exception types (the executor names
        # the operator).
        size = [int(v) for v in self.args["size"]]
        if len(size) == 1:
            size = size * 2
        if len(size) != 2:
            raise RuntimeError(f"argument `size` expects one value or [height, width], got "
                               f"{len(size)} values")
        self._size = size
        self._policy = _random_window.WindowPolicy(self.args)
        self._window_memo = {}   # a cache of `_windows` (a pure function of its key)
        self._last_shapes = None  # (input shapes, output shapes), see `_out_shapes`

    def infer(self, ws):
        tl = ws.inputs[0]
        layout = _resize_common.input_layout(self, tl, LAYOUTS)
        dtype = _resize_common.output_type(self, ws)
        if any(s < 0 for s in self._size):
            raise self.error(f"argument `size` must not be negative, got {self._size}")
        h_axis, w_axis = layout.index("H"), layout.index("W")
        in_shapes = ws.input_storage(0).shapes
        heights, widths = in_shapes[:, h_axis], in_shapes[:, w_axis]
        empty = np.flatnonzero((heights == 0) | (widths == 0))
        if len(empty):
            i = int(empty[0])
            raise ws.sample_error(i, f"cannot crop an image of shape "
                                     f"{tuple(in_shapes[i].tolist())}: its height and "
                                     "width must be positive")
        shapes = self._out_shapes(in_shapes, h_axis, w_axis)
        windows = self._windows(ws, heights, widths)
        corners = windows[:, :2].astype(np.float64)
        bounds = (corners, corners + windows[:, 2:])
        # HWC batches resample from `bounds`; the per-sample lists serve the other layouts.
        geometry = None if layout == "HWC" else _geometry(windows)
        return _operator.Plan([_operator.OutputDesc(shapes, _types.dtype_of(dtype), layout)],
                              layout=layout, geometry=geometry, bounds=bounds)

    def _out_shapes(self, in_shapes, h_axis, w_axis):
        """The output shapes of a batch of `in_shapes` ((n, ndim) array), remembered for the
        last batch of input shapes (a fresh list each time)."""
        key = _operator.shapes_key(in_shapes, h_axis, w_axis)
        if self._last_shapes is None or self._last_shapes[0] != key:
            out_shapes = in_shapes.copy()
            out_shapes[:, h_axis], out_shapes[:, w_axis] = self._size
            self._last_shapes = key, _shared_tuples(out_shapes)
        return list(self._last_shapes[1])

    def _windows(self, ws, heights, widths):
        """(y, x, h, w) of every sample's crop window, drawn once per batch: the fused
        producer's `input_regions` and this operator's `infer` both ask for them, with
        workspaces of the same epoch and sample ids."""
        key = (ws.epoch, ws.sample_ids.tobytes(), np.asarray(heights, np.int64).tobytes(),
               np.asarray(widths, np.int64).tobytes())
        windows = self._window_memo.get(key)
        if windows is None:
            windows = self._policy.windows(ws, heights, widths)
            if len(self._window_memo) >= _MEMO_SIZE:
                self._window_memo.clear()
            self._window_memo[key] = windows
        return windows

    # -- region fusion (dali.ops._regions) ---------------------------------------------------

    def regions_ahead(self):
        return not self.spec.arg_inputs

    takes_scaled = True

    def max_input_scales(self, ws, shapes, layout):
        if layout != "HWC" or any(0 in s[:2] for s in shapes):
            return None
        windows = self._windows(ws, [s[0] for s in shapes], [s[1] for s in shapes])
        return _resize_common.max_scales(windows[:, 2:], [self._size] * len(shapes))

    def input_regions(self, ws, shapes, layout, delivery=None):
        if layout != "HWC" or any(0 in s[:2] for s in shapes):
            return None
        geometry = _geometry(self._windows(ws, [s[0] for s in shapes], [s[1] for s in shapes]))
        out_shapes = [(*self._size, s[2]) for s in shapes]
        if delivery is not None:
            shapes, geometry = delivery.shapes(shapes), delivery.geometry(geometry)
        filters = _resize_common.sample_filters(ws)
        return _resize_common.sample_regions(self, ws, shapes, out_shapes, layout, geometry,
                                             filters)

    def run_cpu(self, ws, plan):
        srcs, dst = ws.input_storage(0), ws.outputs[0]   # read and written in place
        filters = _resize_common.filter_codes(ws)
        antialias = self.args["antialias"]
        regions = _regions.consumer_regions(self, ws, dst.shapes.tolist(), plan.layout)
        bounds = plan.bounds
        delivery = _regions.delivered(self, ws)
        if delivery is not None:                 # the input came reduced (HWC only)
            srcs, bounds = delivery.sources(ws.input_samples(0)), delivery.bounds(*bounds)
        _resize_common.resample_samples(ws, srcs, dst, plan.layout, plan.geometry, filters,
                                        antialias, regions, bounds)

    def run_gpu(self, ws, plan):
        """The resampling of the CPU path on the device (no region fusion there)."""
        _resize_gpu.run_plan(ws, plan, self.args["antialias"])


def _shared_tuples(shapes):
    """The rows of `shapes` as tuples, equal rows as one tuple object (the buffer pool's
    repeated-shape path)."""
    seen = {}
    return [seen.setdefault(t, t) for t in map(tuple, shapes.tolist())]


def _geometry(windows):
    """The source regions ([y, x], [y + h, x + w]) of the (y, x, h, w) windows."""
    return [([y, x], [y + h, x + w]) for y, x, h, w in windows.tolist()]
