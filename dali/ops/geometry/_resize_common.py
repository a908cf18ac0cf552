"""What fn.resize and fn.random_resized_crop share: the filter arguments, the input checks,
the per-sample filters, and resampling a batch (or the regions a consumer reads) given each
sample's source region.

Both operators reduce to the same resampling once each sample's output extents and source
region [lo, hi) are known: resize derives them from its size arguments, random_resized_crop
from a random crop window.  The resampling itself is `_resampling`'s.
"""

from __future__ import annotations

import math

import numpy as np

from dali import _types
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Arg
from dali._types import DALIDataType as T
from dali._types import DALIInterpType as Interp
from dali.ops import _regions
from dali.ops.geometry import _resampling

INPUT_TYPES = (T.UINT8, T.INT16, T.UINT16, T.FLOAT)


def filter_args():
    """The interpolation arguments resize and random_resized_crop share."""
    return [
        Arg("interp_type", T.INTERP_TYPE, Interp.INTERP_LINEAR, tensor=True,
            doc="Interpolation for both downscaling and upscaling (overridden by `min_filter`"
                " / `mag_filter`). INTERP_TRIANGULAR equals INTERP_LINEAR with "
                "`antialias`."),
        Arg("min_filter", T.INTERP_TYPE, Interp.INTERP_LINEAR, tensor=True,
            doc="Filter used when scaling down."),
        Arg("mag_filter", T.INTERP_TYPE, Interp.INTERP_LINEAR, tensor=True,
            doc="Filter used when scaling up."),
        Arg("antialias", T.BOOL, True,
            doc="When scaling down, widen the filter by the scale (an antialiasing filter, "
                "not area averaging). Nearest neighbour ignores it."),
        Arg("dtype", T.DATA_TYPE, None,
            doc="Output type: the input type (default) or FLOAT."),
        Arg("minibatch_size", T.INT32, 32,
            doc="Maximum number of images per kernel call.",
            ignored="the CPU kernel takes the whole batch in one call"),
        Arg("temp_buffer_hint", T.INT32, 0,
            doc="Initial size of the resampling buffer in bytes.",
            ignored="a GPU setting; the CPU kernel sizes its buffers per image"),
    ]


def output_type(op, ws):
    """Check the input type and return the output DALIDataType."""
    in_type = ws.inputs[0].dtype
    if in_type not in INPUT_TYPES:
        raise op.error(f"unsupported input type {_type_name(in_type)}; supported types are: "
                       "uint8, int16, uint16 and float", TypeError)
    dtype = op.args["dtype"]
    if dtype is None or dtype == in_type:
        return in_type
    if dtype != T.FLOAT:
        raise op.error(f"argument `dtype`: the output must have the input type "
                       f"({_type_name(in_type)}) or float, got {_type_name(dtype)}")
    return T.FLOAT


def _type_name(t):
    return np.dtype(_types.to_numpy_type(t)).name if _types.is_numeric(t) else str(t)


def input_layout(op, tl, allowed):
    """The input's layout (or the first allowed one of its rank); raises for others."""
    layout = tl.layout()
    ndim = tl.ndim()
    if layout:
        if layout not in allowed:
            raise op.error(f'the input layout "{layout}" is not supported; supported layouts '
                           f"are: {', '.join(allowed)}")
        return layout
    for cand in allowed:
        if len(cand) == ndim:
            return cand
    raise op.error(f"an input of {ndim} dimensions without a layout is not supported; "
                   f"supported layouts are: {', '.join(allowed)}")


def sample_filters(ws):
    """(min_filter, mag_filter) of every sample: explicit ones override `interp_type`."""
    interp = _interp_arg(ws, "interp_type")
    lo = _interp_arg(ws, "min_filter") if ws.arg_given("min_filter") else interp
    hi = _interp_arg(ws, "mag_filter") if ws.arg_given("mag_filter") else interp
    return list(zip(lo, hi, strict=True))


_FILTER_ARGS = ("interp_type", "min_filter", "mag_filter")


def filter_codes(ws):
    """`sample_filters` as one int32 (n, 2) array, the batch kernel's form; when no filter
    argument is an argument input, filled from the constants without a value per sample."""
    n = ws.batch_size
    if n == 0 or any(name in ws.arg_inputs for name in _FILTER_ARGS):
        return np.array(sample_filters(ws), np.int32).reshape(n, 2)
    interp = ws.arg("interp_type")[0]
    lo = ws.arg("min_filter")[0] if ws.arg_given("min_filter") else interp
    hi = ws.arg("mag_filter")[0] if ws.arg_given("mag_filter") else interp
    codes = np.empty((n, 2), np.int32)
    codes[:, 0], codes[:, 1] = int(lo), int(hi)
    return codes


def _interp_arg(ws, name):
    try:
        return ws.arg(name)
    except ValueError as e:          # a per-sample value that is no DALIInterpType
        raise ws.op.error(f"argument `{name}`: {e}") from None


def resample_sample(src, dst, layout, lo, hi, min_filter, mag_filter, antialias, region=None):
    """Resample the region [lo, hi) of `src` into `dst` (numpy arrays of one sample); with
    `region` (HWC only, see `dali.ops._regions`) only that part of `dst` is computed."""
    in_shape = _resampling.canonical_shape(src.shape, layout)
    out_shape = _resampling.canonical_shape(dst.shape, layout)
    if math.prod(in_shape) == 0 or math.prod(out_shape) == 0:
        return
    filters = _resampling.region_filters(in_shape[1:-1], out_shape[1:-1], lo, hi,
                                         min_filter, mag_filter, antialias)
    src = np.ascontiguousarray(src).reshape(in_shape)
    if region is not None:
        _resampling.resample(src, _regions.crop(dst, region)[None], filters, list(region))
        return
    out = dst if dst.flags.c_contiguous else np.empty(dst.shape, dst.dtype)
    _resampling.resample(src, out.reshape(out_shape), filters)
    if out is not dst:
        dst[...] = out


def batch_geometry(in_shapes, layout, sample_plan):
    """(output shapes, per-sample (lo, hi), bounds) of a batch of `in_shapes` (an (n, ndim)
    array), `sample_plan(i, shape)` giving sample i's (output shape, (lo, hi)); bounds are lo
    and hi as float64 (n, k) arrays for the batch kernel (HWC only, else None)."""
    shapes, geometry = [], []
    for i, shape in enumerate(map(tuple, in_shapes.tolist())):
        out_shape, region = sample_plan(i, shape)
        shapes.append(out_shape)
        geometry.append(region)
    bounds = None
    if geometry and layout == "HWC":
        bounds = tuple(np.array([g[k] for g in geometry], np.float64).reshape(-1, 2)
                       for k in (0, 1))
    return shapes, geometry, bounds


# Decode scaling leaves the resampling at least this reduction: a reduced image just the output's
# size gives 33.9 dB against the exact path on the large-photo corpus at worst, 1.25x gives
# 41.8 dB for about 5% more CPU time (bench/large_images.py).
SCALE_MARGIN = 1.25


def max_scales(extents, out_sizes):
    """Per sample, the largest of `_regions.SCALES` by which a source region of `extents`
    ((n, 2): height, width) can be reduced and still span at least `SCALE_MARGIN` times
    `out_sizes` ((n, 2)) positions along both axes; 1 where none can."""
    extents = np.abs(np.asarray(extents, np.float64)).reshape(-1, 2)
    out = np.asarray(out_sizes, np.float64).reshape(-1, 2) * SCALE_MARGIN
    scales = np.ones(len(extents), np.int64)
    for s in sorted(_regions.SCALES):
        scales = np.where((extents >= s * out).all(axis=1) & (out > 0).all(axis=1), s, scales)
    return scales


def sample_regions(op, ws, shapes, out_shapes, layout, geometry, filters):
    """`input_regions` of resize and random_resized_crop: for each sample, a region that holds
    the input positions its filters read for the output region the operator's own consumer
    reads (HWC; see `_resampling.read_span`).

    `geometry` is (lo, hi) per sample, `filters` (min_filter, mag_filter) per sample."""
    if layout != "HWC":
        return None
    wanted = _regions.consumer_regions(op, ws, out_shapes, layout)
    antialias = op.args["antialias"]
    regions = []
    for i, (shape, out_shape) in enumerate(zip(shapes, out_shapes, strict=True)):
        lo, hi = geometry[i]
        window = wanted[i] if wanted is not None and wanted[i] is not None else (None, None)
        regions.append(tuple(
            _resampling.read_span(shape[d], out_shape[d], lo[d], hi[d], *filters[i], antialias,
                                  window[d])
            for d in range(2)))
    return regions


def resample_samples(ws, srcs, dsts, layout, geometry, filters, antialias, regions=None,
                     bounds=None):
    """`resample_sample` for every sample (geometry[i] = (lo, hi), filters[i] = (min_filter,
    mag_filter), or `filter_codes`) of `srcs` into `dsts` (lists of arrays or batches): HWC
    images as one batch without the GIL, other layouts sample by sample.  `bounds`, when
    given, is the geometry as two float64 (n, 2) arrays (lo, hi), which HWC batches then use
    instead of building them."""
    if layout == "HWC":
        if bounds is None:
            bounds = ([g[0] for g in geometry], [g[1] for g in geometry])
        _resampling.resample_batch(ws.thread_pool, srcs, dsts, *bounds, filters, antialias,
                                   regions)
        return
    if isinstance(filters, np.ndarray):
        filters = filters.tolist()
    srcs, dsts = (b.samples() if isinstance(b, BatchStorage) else b for b in (srcs, dsts))
    n = len(srcs)
    regions = regions or [None] * n

    def one(i):
        resample_sample(srcs[i], dsts[i], layout, *geometry[i], *filters[i], antialias,
                        regions[i])

    map_samples(ws, one, n)


def map_samples(ws, fn, n):
    """fn(i) for every sample, on the workspace's thread pool when there is one."""
    pool = ws.thread_pool
    if pool is None or n < 2:
        for i in range(n):
            fn(i)
    else:
        pool.map(fn, n)
