"""fn.laplacian: the sum over the data axes of second-order partial derivatives, each a
separable convolution: a derivative window along its axis, smoothing windows along the others.

The windows are DALI's (OpenCV's): smoothing of size m is the binomial row
C(m-1, 0..m-1); the derivative of size n is [1, -2, 1] convolved with the binomial of size
n - 2.  The smoothing windows of partial i have size `smoothing_size[j]` along axis j when
given, else `window_size[i]`.  Partial i is scaled by `scale[i]`, or with `normalized_kernel`
by 2**(-s + n + 2) (s: the sum of its window sizes, n: the number of data axes).  The sum
s_0 * P_0 + s_1 * P_1 + ... is computed in float32 in that order, every pass innermost axis
first (`dali._ext.kernels.convolution.separable_batch`): DALI's results bit for bit.
"""

from __future__ import annotations

from math import comb

import numpy as np

from dali import _registry
from dali._ext.kernels import convolution as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.filters import _convolution

_KINDS = frozenset(_kernel.kinds()) - {np.dtype(np.float64)}      # as DALI's laplacian
MAX_WINDOW = 31


def smoothing_window(m):
    return np.array([comb(m - 1, k) for k in range(m)], np.float32)


def derivative_window(n):
    return np.convolve(smoothing_window(n - 2), [1, -2, 1]).astype(np.float32)


def _windows(sizes, smooth, scales):
    """(windows, index, scales) for per-part rows of window sizes, smoothing sizes (0: not
    given) and scales (NaN: normalized)."""
    n, naxes = sizes.shape
    keys = {}
    chunks = []

    def offset(kind, m):
        if (kind, m) not in keys:
            keys[kind, m] = sum(len(c) for c in chunks)
            chunks.append(derivative_window(m) if kind else smoothing_window(m))
        return keys[kind, m]

    offset(0, 1)                                   # [1.0]: unused axes
    index = np.zeros((n, naxes, 3, 2), np.int64)
    out_scales = np.empty((n, naxes), np.float32)
    rows = {}
    for p in range(n):
        key = (tuple(sizes[p]), tuple(smooth[p]), tuple(scales[p].view(np.int32)))
        if key not in rows:
            row = np.zeros((naxes, 3, 2), np.int64)
            row[..., 1] = 1                        # axes beyond the data axes: [1.0]
            sc = np.empty(naxes, np.float32)
            for i in range(naxes):
                total = 0
                for j in range(naxes):
                    m = int(sizes[p, i]) if i == j else int(smooth[p, j] or sizes[p, i])
                    row[i, j] = (offset(int(i == j), m), m)
                    total += m
                sc[i] = 2.0 ** (-total + naxes + 2) if np.isnan(scales[p, i]) else scales[p, i]
            rows[key] = row, sc
        index[p], out_scales[p] = rows[key]
    return np.concatenate(chunks), index, out_scales


@_registry.register
class Laplacian(_convolution.SeparableFilter):
    schema = Schema(
        "laplacian", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Computes the Laplacian of the input: the sum over the data axes (not the channels "
            "`C` nor the frames `F`) of second-order partial derivatives, each approximated by "
            "a separable convolution with a derivative window along its axis and smoothing "
            "windows along the others. Window and smoothing sizes are odd; `smoothing_size = "
            "1` means no smoothing. `normalized_kernel` scales each partial derivative by "
            "`2^(-s + n + 2)` (`s`: the sum of its window sizes, `n`: the number of data "
            "axes); `scale` gives the factors instead. Intermediate values are float32. "
            "Borders reflect without repeating the edge (reflect-101). Supports sequences and "
            "volumes.",
        args=[Arg("window_size", T._INT32_VEC, [3], tensor=True,
                  doc="Size of the derivative windows, odd, 3 to 31: one value or one per data "
                      "axis. Supports per-frame inputs."),
              Arg("smoothing_size", T._INT32_VEC, None, tensor=True,
                  doc="Size of the smoothing windows, odd, 1 to 31: one value or one per data "
                      "axis (the smoothing along axis j). If not set, the smoothing windows of "
                      "a partial derivative have the size of its derivative window. Supports "
                      "per-frame inputs."),
              Arg("scale", T._FLOAT_VEC, [1.0], tensor=True,
                  doc="Factors of the partial derivatives: one value or one per data axis. "
                      "Supports per-frame inputs."),
              Arg("normalized_kernel", T.BOOL, False,
                  doc="Scale the partial derivatives automatically (see above). Must be False "
                      "if `scale` is given."),
              Arg("dtype", T.DATA_TYPE, None,
                  doc="Output data type: the input's or FLOAT. If not set, the input type is "
                      "used.")])

    def setup(self):
        if self.args["normalized_kernel"] and "scale" in self.spec.given:
            raise self.error("Parameter ``scale`` cannot be specified when "
                             "``normalized_kernel`` is set to True")
        super().setup()

    kinds = _KINDS
    tensor_args = ("window_size", "smoothing_size", "scale")

    def windows(self, ws, geo, axes, shapes):
        n = axes.data
        sizes = _convolution.per_part(self, ws, "window_size", n, geo, axes, shapes, np.int64)
        if self.args["smoothing_size"] is None and not ws.is_arg_input("smoothing_size"):
            smooth = np.zeros_like(sizes)
        else:
            smooth = _convolution.per_part(self, ws, "smoothing_size", n, geo, axes, shapes,
                                           np.int64)
        if self.args["normalized_kernel"]:
            scales = np.full(sizes.shape, np.nan, np.float32)
        else:
            scales = _convolution.per_part(self, ws, "scale", n, geo, axes, shapes, np.float32)
        for values, lo, what in ((sizes, 3, "Window size"), (smooth, 1, "Smoothing window size")):
            bad = ((values < lo) | (values > MAX_WINDOW) | (values % 2 == 0))
            if what != "Window size":
                bad &= values != 0
            if bad.any():
                part, axis, i = _convolution.first_bad(geo, bad)
                raise ws.sample_error(i, f"{what} must be an odd integer between {lo} and "
                                         f"{MAX_WINDOW}, got {values[part, axis]} for sample: "
                                         f"{i}.")
        return _windows(np.ascontiguousarray(sizes), np.ascontiguousarray(smooth),
                        np.ascontiguousarray(scales))
