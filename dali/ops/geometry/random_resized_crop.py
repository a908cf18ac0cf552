"""fn.random_resized_crop: a random crop (area and aspect ratio drawn per sample), resized.

The crop window is chosen as DALI does (`dali.ops._random_window`, shared with
fn.decoders.image_random_crop) from the workspace's counter-based streams, so a sample's window
depends only on the seed and the sample's index.  The window is then resampled to `size` like
fn.resize with roi_start/roi_end; all frames of a sequence share the window.
"""

from __future__ import annotations

from dali import _operator, _registry, _roles, _types
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _random_window, _regions
from dali.ops.geometry import resize

LAYOUTS = ("HWC", "CHW", "FHWC", "FCHW", "CFHW")


@_registry.register
class RandomResizedCrop(_operator.Operator, _roles.RegionProducer, _roles.RegionConsumer):
    schema = Schema(
        "random_resized_crop", inputs=1, outputs=1, devices=("cpu",), random=True,
        doc="Crops a random window (random area fraction and aspect ratio) and resizes it to "
            "`size`.\n\nAll frames of a sequence share the window. The resampling is "
            "fn.resize's.",
        args=[
            Arg("size", T._INT32_VEC, REQUIRED,
                doc="Output size [height, width] (one value: square)."),
            *_random_window.window_args(),
            *resize.filter_args(),
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

    def infer(self, ws):
        tl = ws.inputs[0]
        layout = resize.input_layout(self, tl, LAYOUTS)
        dtype = resize.output_type(self, ws)
        if any(s < 0 for s in self._size):
            raise self.error(f"argument `size` must not be negative, got {self._size}")
        h_axis, w_axis = layout.index("H"), layout.index("W")
        shapes = []
        for i, shape in enumerate(tl.shape()):
            if shape[h_axis] == 0 or shape[w_axis] == 0:
                raise ws.sample_error(i, f"cannot crop an image of shape {tuple(shape)}: its "
                                         "height and width must be positive")
            shape = list(shape)
            shape[h_axis], shape[w_axis] = self._size
            shapes.append(tuple(shape))
        self._layout = layout
        return _operator.Plan([_operator.OutputDesc(shapes, _types.dtype_of(dtype), layout)])

    def windows(self, ws):
        """(y, x, h, w) of every sample's crop window."""
        layout = self._layout
        h_axis, w_axis = layout.index("H"), layout.index("W")
        shapes = ws.inputs[0].shape()
        return self._policy.windows(ws, [s[h_axis] for s in shapes], [s[w_axis] for s in shapes])

    # -- region fusion (dali.ops._regions) ---------------------------------------------------

    def regions_ahead(self):
        return not self.spec.arg_inputs

    def input_regions(self, ws, shapes, layout):
        if layout != "HWC" or any(0 in s[:2] for s in shapes):
            return None
        windows = self._policy.windows(ws, [s[0] for s in shapes], [s[1] for s in shapes])
        geometry = [([y, x], [y + h, x + w]) for y, x, h, w in windows.tolist()]
        out_shapes = [(*self._size, s[2]) for s in shapes]
        filters = resize.sample_filters(ws)
        return resize.sample_regions(self, ws, shapes, out_shapes, layout, geometry, filters)

    def run_cpu(self, ws, plan):
        srcs, dsts = ws.input_samples(0), ws.output_samples(0)
        windows = self.windows(ws)
        filters = resize.sample_filters(ws)
        antialias = self.args["antialias"]
        regions = _regions.consumer_regions(self, ws, [d.shape for d in dsts], self._layout)
        geometry = [([y, x], [y + h, x + w]) for y, x, h, w in windows.tolist()]
        resize.resample_samples(ws, srcs, dsts, self._layout, geometry, filters, antialias,
                                regions)
