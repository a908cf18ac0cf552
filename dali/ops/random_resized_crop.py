"""fn.random_resized_crop: a random crop (area and aspect ratio drawn per sample), resized.

The crop window of an H x W image is chosen as DALI does:

* if even the widest allowed window (full height, width H * max_aspect) or the tallest (full
  width, height W / min_aspect) cannot reach the minimum area, that window is taken;
* otherwise up to `num_attempts` times: an area fraction is drawn uniformly from
  `random_area`, an aspect ratio (width / height) log-uniformly from `random_aspect_ratio`,
  and w = round(sqrt(area * ratio)), h = round(sqrt(area / ratio)); the first window that fits
  the image and whose rounded aspect ratio is in range is taken;
* if none is, the whole image is taken, narrowed to the nearest allowed aspect ratio and
  shrunk (keeping its aspect ratio) to at most the largest allowed area;
* the window's position is uniform over the positions that keep it inside the image.

Draws come from the workspace's counter-based streams (a fixed number per sample), so a
sample's window depends only on the seed and the sample's index.  The window is then resampled
to `size` like fn.resize with roi_start/roi_end; all frames of a sequence share the window.
"""

from __future__ import annotations

import math

import numpy as np

from dali import _operator, _registry, _types
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import resize

LAYOUTS = ("HWC", "CHW", "FHWC", "FCHW", "CFHW")
_F32 = np.float32


def _round(x):
    """roundf: half away from zero (x >= 0 here)."""
    return int(math.floor(float(x) + 0.5))


def crop_window(height, width, draws, area, aspect, num_attempts):
    """(y, x, h, w) of the crop window of a `height` x `width` image.

    Parameters
    ----------
    draws : sequence of float
        Uniform [0, 1) numbers: two per attempt (area, aspect ratio), then two for the position.
    area, aspect : (float, float)
        Ranges of the area fraction and of the aspect ratio (width / height).
    """
    h_img, w_img = _F32(height), _F32(width)
    area_lo, area_hi = _F32(area[0]), _F32(area[1])
    ar_lo, ar_hi = _F32(aspect[0]), _F32(aspect[1])
    min_area = w_img * h_img * area_lo
    max_w = max(1, int(h_img * ar_hi))
    max_h = max(1, int(w_img * (_F32(1) / ar_lo)))
    if height * max_w < min_area:                   # even the widest window is too small
        h, w = height, max_w
    elif width * max_h < min_area:                  # even the tallest one is
        h, w = max_h, width
    else:
        log_lo, log_hi = np.log(ar_lo), np.log(ar_hi)
        for k in range(num_attempts):
            target = (area_lo + _F32(draws[2 * k]) * (area_hi - area_lo)) * _F32(height * width)
            ratio = np.exp(log_lo + _F32(draws[2 * k + 1]) * (log_hi - log_lo))
            w = max(1, _round(np.sqrt(_F32(target * ratio))))
            h = max(1, _round(np.sqrt(_F32(target / ratio))))
            if w <= width and h <= height and ar_lo <= _F32(w) / _F32(h) <= ar_hi:
                break
        else:
            h, w = _fallback(height, width, area_hi, ar_lo, ar_hi, max_w, max_h)
    h, w = min(h, height), min(w, width)
    y = min(int(draws[-2] * (height - h + 1)), height - h)
    x = min(int(draws[-1] * (width - w + 1)), width - w)
    return y, x, h, w


def _fallback(height, width, area_hi, ar_lo, ar_hi, max_w, max_h):
    """The whole image, narrowed to the aspect ratio range, within the largest area."""
    ratio = _F32(width) / _F32(height)
    if ratio > ar_hi:
        h, w = height, max_w
    elif ratio < ar_lo:
        h, w = max_h, width
    else:
        h, w = height, width
    scale = np.sqrt(min(_F32(1), area_hi * _F32(width) * _F32(height) / _F32(h * w)))
    return max(1, int(_F32(h) * scale)), max(1, int(_F32(w) * scale))


def _range(name, value):
    v = [float(x) for x in value]
    if len(v) == 1:
        v = v * 2
    if len(v) != 2:
        raise RuntimeError(f"argument `{name}` expects one value or a [min, max] pair, got "
                           f"{len(v)} values")
    if v[0] > v[1]:
        raise RuntimeError(f"argument `{name}`: empty range [{v[0]}, {v[1]}] (min > max)")
    return v


@_registry.register
class RandomResizedCrop(_operator.Operator):
    schema = Schema(
        "random_resized_crop", inputs=1, outputs=1, devices=("cpu",), random=True,
        doc="Crops a random window (random area fraction and aspect ratio) and resizes it to "
            "`size`.\n\nAll frames of a sequence share the window. The resampling is "
            "fn.resize's.",
        args=[
            Arg("size", T._INT32_VEC, REQUIRED,
                doc="Output size [height, width] (one value: square)."),
            Arg("random_area", T._FLOAT_VEC, [0.08, 1.0],
                doc="Range of the crop's area as a fraction of the image's, drawn uniformly."),
            Arg("random_aspect_ratio", T._FLOAT_VEC, [3 / 4, 4 / 3],
                doc="Range of the crop's aspect ratio (width / height), drawn log-uniformly."),
            Arg("num_attempts", T.INT32, 10,
                doc="Draws of area and aspect ratio before falling back to the whole image "
                    "(narrowed to the aspect ratio range)."),
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
        self._area = _range("random_area", self.args["random_area"])
        self._aspect = _range("random_aspect_ratio", self.args["random_aspect_ratio"])
        if self._area[0] < 0:
            raise ValueError(f"argument `random_area` must not be negative, got {self._area}")
        if self._aspect[0] <= 0:
            raise ValueError(f"argument `random_aspect_ratio` must be positive, got "
                             f"{self._aspect}")
        self._attempts = max(0, int(self.args["num_attempts"]))

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
        return [_operator.OutputDesc(shapes, _types.dtype_of(dtype), layout)]

    def windows(self, ws):
        """(y, x, h, w) of every sample's crop window."""
        layout = self._layout
        h_axis, w_axis = layout.index("H"), layout.index("W")
        draws = ws.uniform(2 * self._attempts + 2)
        return [crop_window(shape[h_axis], shape[w_axis], u, self._area, self._aspect,
                            self._attempts)
                for shape, u in zip(ws.inputs[0].shape(), draws, strict=True)]

    def run_cpu(self, ws):
        srcs, dsts = ws.input_samples(0), ws.output_samples(0)
        windows = self.windows(ws)
        filters = [resize.filters_of(ws, i) for i in range(len(srcs))]
        antialias = self.args["antialias"]

        def one(i):
            y, x, h, w = windows[i]
            resize.resample_sample(srcs[i], dsts[i], self._layout, [y, x], [y + h, x + w],
                                   *filters[i], antialias)

        resize.map_samples(ws, one, len(srcs))
