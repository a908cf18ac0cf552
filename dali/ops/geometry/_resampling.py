"""Separable resampling shared by resize, random_resized_crop and the cropping decoders.

Each resized axis gets a 1-D filter: for output position i, a window of input positions
`starts[i] ... starts[i] + support - 1` and normalized weights.  Output i of an axis whose
source region is [lo, hi) (hi < lo flips it) is centred on input coordinate

    c_i = lo + (i + 0.5) * scale - 0.5,        scale = (hi - lo) / n_out

and its weights sample a filter kernel at the distances to that centre.  The kernels are lookup
tables, linearly interpolated, the way DALI builds them (so weights agree with DALI's to ~1e-6):
a triangle (linear, triangular), exp(-4 x^2) on [-1, 1] (Gaussian), Keys' cubic with a = -0.5
(cubic), and sinc(x) sinc(x / 3) (Lanczos3).  On downscaling with antialiasing the kernel is
stretched by the scale (a triangle of radius `scale` for linear: antialiasing, not area
averaging).  The first tap is the first input position at or after `c_i - radius`; taps that
fall outside the input are folded onto the edge pixels.  Nearest neighbour takes input
floor(lo + (i + 0.5) * scale), clamped (a single tap of weight 1).  Geometry is computed in
float32 like DALI's (the first tap is ceil(i * scale + (lo + scale / 2 - 1/2 - radius))).

Axes are resampled one after another in the order that minimizes an estimated cost (the
number of values each pass produces times its taps, horizontal taps costing more); this is the
order DALI chooses, which matters only for float rounding.  Axes whose filter is the identity
are skipped, and nearest neighbour along every resized axis is a single gather.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from dali._ext.kernels import resample as _kernel
from dali._ext.kernels import resample_batch as _batch_kernel
from dali._ext.tensor_storage import BatchStorage
from dali._types import DALIInterpType as Interp

_F32 = np.float32

# Kernel table sizes follow DALI's so that the interpolated values agree with it.
_GAUSS_SIZE, _CUBIC_SIZE, _LANCZOS_A, _LANCZOS_RES = 65, 129, 3, 32


def _gaussian_table():
    i = np.arange(_GAUSS_SIZE, dtype=_F32)
    half = _F32((_GAUSS_SIZE - 1) * 0.5)
    x = _F32(4) * (i - half) / _F32(_GAUSS_SIZE - 1)
    return np.exp(-x * x).astype(_F32)


def _cubic_table():
    x = np.abs(4 * (np.arange(_CUBIC_SIZE) - (_CUBIC_SIZE - 1) * 0.5) / (_CUBIC_SIZE - 1))
    a = -0.5
    inner = (a + 2) * x**3 - (a + 3) * x**2 + 1
    outer = a * x**3 - 5 * a * x**2 + 8 * a * x - 4 * a
    return np.where(x < 1, inner, np.where(x < 2, outer, 0)).astype(_F32)


def _lanczos_table():
    n = 2 * _LANCZOS_A * _LANCZOS_RES + 1
    i = np.arange(n, dtype=_F32)
    x = (_F32(2 * _LANCZOS_A) * (i - _F32((n - 1) * 0.5)) / _F32(n - 1)).astype(np.float64)
    return (np.sinc(x) * np.sinc(x / _LANCZOS_A)).astype(_F32)


def _padded(table):
    t = np.concatenate([table, [0, 0]]).astype(_F32)
    t.flags.writeable = False
    return t


# (kernel samples followed by two zeros, radius in pixels at scale 1)
_TRIANGLE = (_padded(np.array([0, 1, 0], _F32)), 1)
_TABLES = {
    Interp.INTERP_LINEAR: _TRIANGLE,
    Interp.INTERP_TRIANGULAR: _TRIANGLE,
    Interp.INTERP_GAUSSIAN: (_padded(_gaussian_table()), 1),
    Interp.INTERP_CUBIC: (_padded(_cubic_table()), 2),
    Interp.INTERP_LANCZOS3: (_padded(_lanczos_table()), _LANCZOS_A),
}

# The kernel of each DALIInterpType value, for `resample_batch` (None: nearest neighbour).
_TABLE_LIST = [None] + [_TABLES[Interp(k)] for k in range(1, len(Interp))]

class AxisFilter(NamedTuple):
    """The 1-D resampling of one axis: `weights[i]` applies to inputs `starts[i]...`."""

    starts: np.ndarray      # int32, (n_out,)
    weights: np.ndarray     # float32, (n_out, support)
    identity: bool          # output == input along this axis

    @property
    def support(self) -> int:
        return self.weights.shape[1]


@functools.lru_cache(maxsize=1024)
def axis_filter(interp: int, n_in: int, n_out: int, lo: float, hi: float,
                antialias: bool = True) -> AxisFilter:
    """The filter resampling the source region [lo, hi) of an axis of `n_in` pixels to `n_out`.

    Computed by the kernel module in float32, operation by operation: scale = (hi - lo) /
    n_out; r = radius (times the scale when antialiasing a reduction); the table is sampled
    at `step` = (samples - 1) / 2r entries per pixel, so the support is ceil((samples - 1) /
    step) taps; output i's first tap is ceil(i * scale + origin), origin = lo + scale / 2 -
    1/2 - r, and tap k weighs the table linearly interpolated at (tap - i * scale - origin) *
    step; weights are divided by their sum (in tap order); taps outside the input are folded
    onto the edges (the window pushed inside).  The filter is the identity when n_out == n_in
    and each output takes its own input with weight 1.

    Parameters
    ----------
    interp : DALIInterpType
        Kernel (INTERP_NN, LINEAR, TRIANGULAR, CUBIC, LANCZOS3 or GAUSSIAN).
    n_in, n_out : int
        Input and output extents (both > 0).
    lo, hi : float
        Source region in input pixel coordinates; `hi < lo` mirrors the axis.
    antialias : bool
        Widen the kernel by the scale when downscaling.

    Returns
    -------
    AxisFilter (cached: treat its arrays as read-only)
    """
    nearest = interp == Interp.INTERP_NN
    table, radius = _TRIANGLE if nearest else _TABLES[Interp(interp)]
    starts, weights, identity = _kernel.axis_filter(table, radius, nearest, n_in, n_out, lo, hi,
                                                    antialias)
    starts.flags.writeable = False
    weights.flags.writeable = False
    return AxisFilter(starts, weights, identity)


def pass_order(in_sizes, filters) -> list[int]:
    """The order in which to resample the non-identity axes (indices into `filters`): the
    kernel's (resample_filter.h), which the batch engine uses too."""
    return _kernel.pass_order(in_sizes, [len(f.starts) for f in filters],
                              [f.support for f in filters], [f.identity for f in filters])


def resample(src, dst, filters, window=None):
    """Resample `src` into `dst` along its spatial axes.

    Parameters
    ----------
    src, dst : ndarray
        Shaped (planes, D0, ..., Dk-1, channels) (k = 1..3); uint8, int16, uint16 or float32.
        `src` C-contiguous or (k <= 2) a window of a C-contiguous array; `dst` likewise.
    filters : list of AxisFilter
        One per spatial axis, mapping src's extent to the output's.
    window : list of (start, stop), optional
        Per spatial axis (k <= 2), the output positions to compute: `dst` then holds only
        those.  The values equal those of the whole output.

    Only the input positions the filters read are accessed: a window of the input, or of the
    output, costs in proportion to its size.
    """
    k = len(filters)
    order = pass_order(src.shape[1:-1], filters)    # whole extents: the same order (and
    if window is None:                              # float rounding) for any window
        window = [(0, len(f.starts)) for f in filters]
    elif k > 2:
        raise ValueError("output windows are supported for 1 or 2 spatial axes")
    if not order:
        np.copyto(dst, src[(slice(None), *(slice(lo, hi) for lo, hi in window), slice(None))],
                  casting="unsafe")
        return
    if all(filters[a].support == 1 for a in order):
        _nearest(src, dst, filters, window)
        return
    index, passes = [slice(None)], []
    span = input_span(filters, window) if k <= 2 else \
        [(0, n) for n in src.shape[1:-1]]       # the kernel reads windows of 1-D and 2-D only
    for a, (f, (lo, hi), (first, last)) in enumerate(zip(filters, window, span, strict=True)):
        index.append(slice(first, last))
        if not f.identity:
            passes.append((a, f.starts[lo:hi] - np.int32(first), f.weights[lo:hi]))
    index.append(slice(None))
    passes = [passes[[p[0] for p in passes].index(a)] for a in order]
    view = src[tuple(index)]
    if k > 2:
        view, out = np.ascontiguousarray(view), dst
        if not dst.flags.c_contiguous:
            out = np.empty(dst.shape, dst.dtype)
    else:
        out = dst
    _kernel.resample(view, out, passes, _even_end(dst, filters, window, order))
    if out is not dst:
        dst[...] = out


def resample_batch(pool, srcs, dsts, lo, hi, filters, antialias, windows=None):
    """Resample HWC images: for each sample i, the source region [lo[i], hi[i]) (per axis) of
    `srcs[i]` to the whole output `dsts[i]` (an (H, W, C) array), with `filters[i]` =
    (min_filter, mag_filter); where `windows[i]` ((y0, y1), (x0, x1)) is given, only that part
    of the output is computed.  `srcs` and `dsts` are sequences of arrays or batches
    (BatchStorage; `dsts` contiguous), whose samples the kernel reads in place.  The values
    are `resample`'s (filters from `region_filters`); the work runs on `pool` (None: the
    caller) without the GIL, largest images first."""
    n = len(lo)
    _batch_kernel.resample_batch(pool, _samples(srcs), _samples(dsts),
                                 None if windows is None else list(windows),
                                 _rows(lo, np.float64, n), _rows(hi, np.float64, n),
                                 _rows(filters, np.int32, n), bool(antialias),
                                 _TABLE_LIST)


def _samples(batch):
    """A batch as the batch kernel takes it: a BatchStorage as it is, samples as a list."""
    return batch if isinstance(batch, BatchStorage) else list(batch)


def _rows(values, dtype, n):
    """`values` as a C-contiguous (n, 2) array of `dtype` (no copy when it is one)."""
    return np.ascontiguousarray(values, dtype).reshape(n, 2)


def input_span(filters, window=None):
    """Per spatial axis, the input positions [first, last) that the output positions
    `window` ((start, stop) per axis; all by default) read through `filters` (the kernel's
    `input_span`, which the batch engine uses too)."""
    span = []
    for k, f in enumerate(filters):
        lo, hi = window[k] if window is not None else (0, len(f.starts))
        span.append(_kernel.input_span(f.starts, f.support, f.identity, lo, hi))
    return span


def read_span(n_in, n_out, lo, hi, min_filter, mag_filter, antialias, window=None):
    """A superset [first, last) of the input positions that `region_filters` for one axis
    (source region [lo, hi) of `n_in` positions to `n_out`) reads for the output positions
    `window` = (start, stop) (all by default), found without building the filter.

    Output i is centred on lo + (i + 0.5) * scale - 0.5 and reads at most `support` <= 2r + 1
    positions from its centre - r (r: the kernel radius, times the scale when antialiasing a
    reduction); a window reaching past an edge is pushed inside, ending at that edge.  With
    the window's ends clamped to the input, a margin of one support on each side covers
    both."""
    start, stop = window if window is not None else (0, n_out)
    if stop <= start or n_in <= 0:
        return 0, 0
    scale = (hi - lo) / n_out
    interp = min_filter if abs(hi - lo) > n_out else mag_filter
    radius = 0.5 if interp == Interp.INTERP_NN else _TABLES[Interp(interp)][1]
    r = radius * (abs(scale) if antialias and abs(scale) > 1 else 1.0)
    support = math.ceil(2 * r) + 1
    a = min(max(lo + start * scale, 0.0), float(n_in))
    b = min(max(lo + stop * scale, 0.0), float(n_in))
    first = math.floor(min(a, b) - r) - support
    last = math.ceil(max(a, b) + r) + support
    return max(0, min(first, n_in)), max(0, min(last, n_in))


def _even_end(dst, filters, window, order):
    """The rounding boundary of the last pass (see the kernel's `resample`) for an output
    window: DALI's whole vectors of the full output row, seen from the window's row."""
    if order[-1] != 0 or len(filters) != 2:
        return -1
    return _kernel.even_end(len(filters[1].starts), dst.shape[-1], *window[1])


def _nearest(src, dst, filters, window):
    """Nearest neighbour (weights 1) along every resized axis: a single gather (or a copy)."""
    indices = []
    for f, (lo, hi) in zip(filters, window, strict=True):
        if f.identity:
            indices.append(np.arange(lo, hi, dtype=np.int32))
        else:
            indices.append(np.ascontiguousarray(f.starts[lo:hi]))
    out = dst if dst.flags.c_contiguous else np.empty(dst.shape, dst.dtype)
    _kernel.nearest(np.ascontiguousarray(src), out, indices)
    if out is not dst:
        dst[...] = out


def canonical_shape(shape, layout) -> tuple:
    """`shape` seen as (planes, D0, ..., Dk-1, channels): the spatial dimensions ('D', 'H',
    'W', contiguous in `layout`) with everything before them folded into planes and everything
    after them into channels."""
    spatial = [i for i, c in enumerate(layout) if c in "DHW"]
    first, last = spatial[0], spatial[-1]
    planes = math.prod(shape[:first])
    channels = math.prod(shape[last + 1:])
    return (planes, *shape[first:last + 1], channels)


def region_filters(in_sizes, out_sizes, lo, hi, min_filter, mag_filter, antialias):
    """Filters resampling the region [lo, hi) of each spatial axis to `out_sizes`; an axis
    being downscaled uses `min_filter`, one upscaled (or kept) `mag_filter`."""
    filters = []
    for n_in, n_out, a, b in zip(in_sizes, out_sizes, lo, hi, strict=True):
        interp = min_filter if abs(b - a) > n_out else mag_filter
        filters.append(axis_filter(int(interp), int(n_in), int(n_out), float(a), float(b),
                                   bool(antialias)))
    return filters
