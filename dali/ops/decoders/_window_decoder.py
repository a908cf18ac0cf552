"""What the image decoders share: the operator base (read the headers in `infer`, so the output is
leased with its final shapes; choose each sample's window; decode the windows in `run_cpu`), the
decoder-cache arguments and the documentation of the formats."""

from __future__ import annotations

import numpy as np

from dali import _operator, _roles
from dali._types import DALIDataType as T
from dali.ops import _regions
from dali.ops.decoders import _decode
from dali.ops.readers import _common

DOC_FORMATS = (
    "Supported formats: JPEG, JPEG 2000, TIFF, PNG, BMP, PNM (PBM, PGM, PPM), WebP. The output "
    "is in HWC layout. JPEGs decode with libjpeg-turbo (accurate integer IDCT, fancy chroma "
    "upsampling), other formats with OpenCV; the EXIF orientation is applied by default.")


def cache_args():
    """The decoder-cache arguments (the ``mixed`` backend's; the CPU decoder has no cache)."""
    return [
        _decode.mixed_only("cache_size", T.INT32, 0, "Size of the decoder cache, in MB."),
        _decode.mixed_only("cache_threshold", T.INT32, 0,
                           "Decoded images larger than this (in bytes) are cached."),
        _decode.mixed_only("cache_type", T.STRING, "",
                           'Cache policy: "threshold" or "largest".'),
        _decode.mixed_only("cache_batch_copy", T.BOOL, True,
                           "Copy cached images with one batched kernel."),
        _decode.mixed_only("cache_debug", T.BOOL, False, "Print cache debug information."),
    ]


class WindowDecoder(_operator.Operator, _roles.RegionProducer):
    """Decodes a window of every image; subclasses choose the windows (default: the whole
    images)."""

    def setup(self):
        _decode.check_args(self)
        spec, output_type = self.spec, self.args["output_type"]
        adjust = self.args["adjust_orientation"]
        _common.skip_undecodable(self, lambda samples: _decode.undecodable(
            spec, [np.ascontiguousarray(x).reshape(-1) for x in samples], output_type,
            adjust))

    def windows(self, ws, batch):
        """(n, 4) array of (y, x, h, w) windows in the decoded (oriented) images."""
        return _decode.whole_images(batch)

    def infer(self, ws):
        dtype = _decode.output_dtype(self)          # checked when the batch runs, as in DALI
        batch = _decode.inspect(self, ws, self.args["output_type"],
                                self.args["adjust_orientation"])
        windows = self.windows(ws, batch)
        shapes = _decode.output_shapes(batch, windows)
        _decode.check_output_size(self, shapes, dtype)
        return _operator.Plan(
            [_operator.OutputDesc(shapes, dtype, "HWC")],
            batch=batch, windows=windows, dtype=dtype)

    delivers_scaled = _decode.jpeg is not None

    def run_cpu(self, ws, plan):
        out = ws.outputs[0]
        regions = delivery = None
        if out is not None and (self.region_scaling or not _regions.reads_whole(self)):
            samples = out.samples()
            shapes = [s.shape for s in samples]
            delivery = self._delivery(ws, plan, shapes)
            regions = _regions.consumer_regions(self, ws, shapes, "HWC", delivery)
            if regions is None and delivery is not None:
                regions = [None] * len(samples)              # the whole delivered samples
        if regions is None:
            ws.outputs[0] = _decode.decode(ws, plan.batch, plan.windows, out, plan.dtype,
                                           self.args["use_fast_idct"])
            return
        # Each region decoded into its place in the output, or in the delivered (reduced)
        # sample at the output's top-left; the rest is not read.
        views, parts = [], []
        scales = delivery.scales if delivery is not None else np.ones(len(samples), np.int64)
        if delivery is not None:
            samples = delivery.sources(samples)
        for (y, x, _, _), s, sample, region in zip(np.asarray(plan.windows).tolist(),
                                                   scales.tolist(), samples, regions,
                                                   strict=True):
            ry, rx, rh, rw = _regions.window_of(region, sample.shape)
            views.append(_regions.crop(sample, region))
            parts.append((y // s + ry, x // s + rx, rh, rw))
        _decode.decode(ws, plan.batch, parts, _Views(views), plan.dtype,
                       self.args["use_fast_idct"], scales)
        if delivery is not None:
            _regions.deliver(self, ws, delivery)

    def _delivery(self, ws, plan, shapes):
        """The `_regions.Delivery` of this batch (decode scaling: JPEGs the kernel decodes
        upright, into uint8 RGB, BGR or gray), or None."""
        limits = _regions.scale_limits(self, ws, shapes, "HWC")
        if limits is None or plan.dtype != np.uint8 or \
                self.args["output_type"] not in _decode.SCALED_TYPES:
            return None
        batch = plan.batch
        return _regions.delivery_of(plan.windows, limits,
                                    (batch.route == _decode.KERNEL) & (batch.orientation == 1))


def outside_error(ws, i, y0, x0, y1, x1, height, width):
    """DALI's error for a window [y0..y1, x0..x1] that leaves image i (height x width)."""
    return ws.sample_error(
        i, f"The cropping window [{y0}..{y1}, {x0}..{x1}] is not valid for image dimensions "
           f"[{height} x {width}]", RuntimeError)


class _Views:
    """Windows of the output samples, standing for the output in `_decode.decode`."""

    def __init__(self, views):
        self._views = views

    def samples(self):
        return self._views
