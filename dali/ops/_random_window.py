"""Random crop windows (area fraction and aspect ratio drawn per sample), as DALI chooses them;
shared by fn.random_resized_crop, fn.random_crop_generator and fn.decoders.image_random_crop.

The crop window of an H x W image:

* if even the widest allowed window (full height, width H * max_aspect) or the tallest (full
  width, height W / min_aspect) cannot reach the minimum area, that window is taken;
* otherwise up to `num_attempts` times: an area fraction is drawn uniformly from
  `random_area`, an aspect ratio (width / height) log-uniformly from `random_aspect_ratio`,
  and w = round(sqrt(area * ratio)), h = round(sqrt(area / ratio)); the first window that fits
  the image and whose rounded aspect ratio is in range is taken;
* if none is, the whole image is taken, narrowed to the nearest allowed aspect ratio and
  shrunk (keeping its aspect ratio) to at most the largest allowed area;
* the window's position is uniform over the positions that keep it inside the image.

Arithmetic is in float32 like DALI's.  Draws come from the workspace's counter-based streams, a
fixed number per sample (two per attempt, then two for the position), so a sample's window
depends only on the operator seed and the sample's index: not on threads or batch splits.  A
batch is one call of the `random_window` kernel: it draws the numbers (those of
`Workspace.uniform`, the Philox blocks computed in runs) and the exponents of the aspect
ratios, has NumPy take their exp (C's expf need not give its bits), and makes the attempts and
positions (the same float32 arithmetic as NumPy, in C), written straight into the caller's
arrays.  What the windows take from the image sizes alone (limits, fallback windows: one more
kernel call, the same float32 arithmetic) is kept while the sizes repeat.
"""

from __future__ import annotations

import numpy as np

from dali._ext.kernels import random_window as _kernel
from dali._schema import Arg
from dali._types import DALIDataType as T

_F32 = np.float32


def window_args():
    """The arguments that choose the window."""
    return [
        Arg("random_area", T._FLOAT_VEC, [0.08, 1.0],
            doc="Range of the crop's area as a fraction of the image's, drawn uniformly."),
        Arg("random_aspect_ratio", T._FLOAT_VEC, [3 / 4, 4 / 3],
            doc="Range of the crop's aspect ratio (width / height), drawn log-uniformly."),
        Arg("num_attempts", T.INT32, 10,
            doc="Draws of area and aspect ratio before falling back to the whole image "
                "(narrowed to the aspect ratio range)."),
    ]


class WindowPolicy:
    """The checked window arguments of one operator (raises at build time like DALI)."""

    def __init__(self, args):
        self.area = _range("random_area", args["random_area"])
        self.aspect = _range("random_aspect_ratio", args["random_aspect_ratio"])
        if self.area[0] < 0:
            raise ValueError(f"argument `random_area` must not be negative, got {self.area}")
        if self.aspect[0] <= 0:
            raise ValueError(f"argument `random_aspect_ratio` must be positive, got "
                             f"{self.aspect}")
        self.attempts = max(0, int(args["num_attempts"]))
        self._limits = (_F32(self.area[0]), _F32(self.area[1]), _F32(self.aspect[0]),
                        _F32(self.aspect[1]))
        self._log_lo = np.log(_F32(self.aspect[0]))
        self._log_span = np.log(_F32(self.aspect[1])) - self._log_lo
        self._fixed = None   # (sizes key, `_shape_terms`) of the last batch's image sizes

    def windows(self, ws, heights, widths):
        """(n, 4) int64 array of (y, x, h, w), one window per sample of the workspace."""
        out = np.empty((len(heights), 4), np.int64)
        self.write_windows(ws, heights, widths, out[:, :2], out[:, 2:])
        return out

    def write_windows(self, ws, heights, widths, anchor, shape):
        """Write the windows of `windows` into (n, 2) int32 or int64 arrays: (y, x) into
        `anchor`, (h, w) into `shape`."""
        height = np.asarray(heights, dtype=np.int64)
        width = np.asarray(widths, dtype=np.int64)
        key = (height.tobytes(), width.tobytes())
        if self._fixed is None or self._fixed[0] != key:
            self._fixed = key, _shape_terms(height, width, self.area, self.aspect)
        _kernel.random_windows(self._fixed[1], ws.random_key(),
                               np.ascontiguousarray(ws.sample_ids, np.int64), self.attempts,
                               *self._limits, self._log_lo, self._log_span, anchor, shape)


def crop_window(height, width, draws, area, aspect, num_attempts):
    """(y, x, h, w) of the crop window of one `height` x `width` image (see `crop_windows`)."""
    out = crop_windows([height], [width], np.asarray(draws, np.float64)[None], area, aspect,
                       num_attempts)
    return tuple(int(v) for v in out[0])


def crop_windows(heights, widths, draws, area, aspect, num_attempts):
    """Crop windows of a batch of images.

    Parameters
    ----------
    heights, widths : sequences of int
    draws : (n, 2 * num_attempts + 2) array of float64
        Uniform [0, 1) numbers: two per attempt (area, aspect ratio), then two for the position.
    area, aspect : (float, float)
        Ranges of the area fraction and of the aspect ratio (width / height).

    Returns
    -------
    (n, 4) int64 array of (y, x, h, w).
    """
    fixed = _shape_terms(np.asarray(heights, dtype=np.int64), np.asarray(widths, dtype=np.int64),
                         area, aspect)
    draws = np.ascontiguousarray(draws, dtype=np.float64)
    log_lo, log_hi = np.log(_F32(aspect[0])), np.log(_F32(aspect[1]))
    r = draws[:, 1:2 * num_attempts:2].astype(_F32)
    out = np.empty((len(draws), 4), np.int64)
    _kernel.draw_windows(fixed, draws, np.exp(log_lo + r * (log_hi - log_lo)), _F32(area[0]),
                         _F32(area[1]), _F32(aspect[0]), _F32(aspect[1]), out[:, :2],
                         out[:, 2:])
    return out


def _shape_terms(height, width, area, aspect):
    """What a batch's windows take from its image sizes alone (no draws), a `SizeTerms` of the
    kernel: remembered by the caller while the sizes repeat."""
    return _kernel.size_terms(height, width, _F32(area[0]), _F32(area[1]), _F32(aspect[0]),
                              _F32(aspect[1]))


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
