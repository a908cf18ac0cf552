"""fn.gaussian_blur: separable Gaussian blur along the data axes (1 to 3: images, volumes, and
sequences of them frame by frame; channels are not blurred).

The window of an axis comes from its `sigma` and `window_size` as DALI computes it: without a
window size it has 2 * ceil(3 * sigma) + 1 taps, without a sigma it is
(radius - 1) * 0.3 + 0.8 (radius = (window_size - 1) / 2, computed in double, then float32);
the taps are exp(-x**2 / (2 sigma**2)) normalised to sum 1, in float32 (the kernel's
`gaussian_window`).  Borders reflect without repeating the edge (reflect-101).  The passes and
the rounding are those of `dali._ext.kernels.convolution.separable_batch`: the results are
DALI's bit for bit (float16, int64 and float64 inputs: within float32 rounding, see the tests).
"""

from __future__ import annotations

import numpy as np

from dali import _registry
from dali._ext.kernels import convolution as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.filters import _convolution

_KINDS = frozenset(_kernel.kinds())


def windows_for(sigmas, sizes):
    """(windows, index) for per-part rows of sigmas (float32) and window sizes (int): the
    distinct windows back to back, and for every part and axis (offset, length)."""
    n, naxes = sigmas.shape
    sigmas = np.where(sigmas > 0, sigmas,
                      ((sizes - 1) // 2 - 1) * 0.3 + 0.8).astype(np.float32)
    sizes = np.where(sizes > 0, sizes,
                     2 * np.ceil(sigmas * np.float32(3)).astype(np.int64) + 1)
    keys = np.stack([sigmas.view(np.int32).astype(np.int64), sizes], axis=-1).reshape(-1, 2)
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    wins = [_kernel.gaussian_window(float(np.int32(k).view(np.float32)), int(s))
            for k, s in uniq]
    lengths = uniq[:, 1]
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    flat = inverse.reshape(n, naxes)
    index = np.empty((n, 1, 3, 2), np.int64)
    index[..., 0] = lengths.sum()         # unused axes: the [1.0] appended at the end
    index[..., 1] = 1
    index[:, 0, :naxes, 0] = offsets[flat]
    index[:, 0, :naxes, 1] = lengths[flat]
    return np.concatenate(wins + [np.ones(1, np.float32)]), index


@_registry.register
class GaussianBlur(_convolution.SeparableFilter):
    schema = Schema(
        "gaussian_blur", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Applies a Gaussian blur to the input: a separable convolution along every data "
            "axis (not the channels `C` nor the frames `F`) with a Gaussian window given by "
            "`sigma` and/or `window_size`. With only `sigma`, the window has "
            "`2 * ceil(3 * sigma) + 1` taps; with only `window_size`, "
            "`sigma = (radius - 1) * 0.3 + 0.8` with `radius = (window_size - 1) / 2`. Both can "
            "be one value for all data axes or one per axis, outermost first. Borders reflect "
            "without repeating the edge (reflect-101). Supports sequences and volumes; only "
            "channel-first or channel-last layouts.",
        args=[Arg("sigma", T._FLOAT_VEC, [0.0], tensor=True,
                  doc="Sigma of the Gaussian window, one value or one per data axis. Supports "
                      "per-frame inputs."),
              Arg("window_size", T._INT32_VEC, [0], tensor=True,
                  doc="The diameter (odd) of the window, one value or one per data axis. "
                      "Supports per-frame inputs."),
              Arg("dtype", T.DATA_TYPE, None,
                  doc="Output data type: the input's or FLOAT. If not set, the input type is "
                      "used.")])

    kinds = _KINDS
    tensor_args = ("sigma", "window_size")

    def windows(self, ws, geo, axes, shapes):
        n = axes.data
        sigmas = _convolution.per_part(self, ws, "sigma", n, geo, axes, shapes, np.float32)
        sizes = _convolution.per_part(self, ws, "window_size", n, geo, axes, shapes, np.int64)
        self._check(ws, geo, sigmas, sizes)
        windows, index = windows_for(sigmas, sizes)
        return windows, index, _convolution.ones(len(index))

    def _check(self, ws, geo, sigmas, sizes):
        if not sigmas.size:
            return
        checks = (((sigmas == 0) & (sizes == 0), "`sigma` and `window_size` shouldn't be 0 at "
                                                 "the same time"),
                  (sigmas < 0, "`sigma` must have non-negative values"),
                  (sizes < 0, "`window_size` must have non-negative values"),
                  ((sizes > 0) & (sizes % 2 == 0), "Kernel window should have odd length"))
        for bad, msg in checks:
            if bad.any():
                part, axis, i = _convolution.first_bad(geo, bad)
                raise ws.sample_error(i, f"{msg} for sample: {i}, axis: {axis} (sigma "
                                         f"{sigmas[part, axis]:g}, window_size "
                                         f"{sizes[part, axis]}).")
