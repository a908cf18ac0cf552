"""Host side of `rank_filter.cu` (fn.experimental.median_blur, dilate and erode on the GPU): the
per-part descriptors and the launches, built from the batch's geometry (`_convolution.geometry`:
parts, data axes, height, width, channels per sample), the per-part windows and anchors and the
batches' byte offsets.  Pure numpy.

The functions return a `dali.ops._gpu_program.Program` run by `_gpu_program.run` ("src", "dst"
and, for several morphology iterations, the scratch buffer "tmp" laid out as "dst").
"""

from __future__ import annotations

import os

import numpy as np

from dali.ops._gpu_program import Launch, Program

FIELDS = 10                     # int64 fields of a RankPart
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per part
MAX_PARTS = 65535               # gridDim.y
BORDERS = {"constant": 0, "replicate": 1, "reflect": 2, "reflect_101": 3, "wrap": 4}
CODES = {np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16", np.dtype(np.float32): "f32"}
CU = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rank_filter.cu")


def identity(dtype, dilate):
    """The start of the running maximum (dilate) or minimum (erode), also the constant border's
    value: CV-CUDA's std::numeric_limits<T>::min() / max() (the smallest positive normal float
    for a float dilation)."""
    if np.dtype(dtype).kind == "f":
        info = np.finfo(dtype)
        return np.dtype(dtype).type(info.tiny if dilate else info.max)
    info = np.iinfo(dtype)
    return np.dtype(dtype).type(info.min if dilate else info.max)


def parts(geometry, windows, anchors, dtype, src_offsets=None, dst_offsets=None):
    """(parts, FIELDS) int64 RankPart rows: `geometry` (samples, 6) as `_convolution.geometry`
    gives it (2 data axes), `windows` and `anchors` (parts, 2) as (width, height) and (x, y),
    anchors already resolved; offsets are the samples' byte offsets (None: packed)."""
    geo = np.asarray(geometry, np.int64).reshape(-1, 6)
    if (geo[:, 1] != 2).any() or (geo < 0).any():
        raise ValueError("rank filters take parts of 2 data axes")
    counts = geo[:, 0]
    total = int(counts.sum())
    windows = np.asarray(windows, np.int64).reshape(-1, 2)
    anchors = np.asarray(anchors, np.int64).reshape(-1, 2)
    if len(windows) != total or len(anchors) != total:
        raise ValueError(f"expected {total} windows and anchors, got {len(windows)} and "
                         f"{len(anchors)}")
    if (windows < 1).any() or (anchors < 0).any() or (anchors >= windows).any():
        raise ValueError("windows must be positive and anchors inside them")
    itemsize = np.dtype(dtype).itemsize
    part_volume = geo[:, 2] * geo[:, 3] * geo[:, 5]
    volumes = part_volume * counts

    def starts(given):
        if given is None:
            return np.cumsum(volumes) - volumes
        given = np.asarray(given, np.int64).reshape(-1)
        if len(given) != len(geo) or (given % itemsize).any():
            raise ValueError("one offset per sample, multiple of the element size")
        return given // itemsize

    sample = np.repeat(np.arange(len(geo)), counts)
    first = np.cumsum(counts) - counts
    within = (np.arange(total) - first[sample]) * part_volume[sample]
    rows = np.zeros((total, FIELDS), np.int64)
    rows[:, 0] = starts(src_offsets)[sample] + within
    rows[:, 1] = starts(dst_offsets)[sample] + within
    rows[:, 2] = geo[sample, 2]
    rows[:, 3] = geo[sample, 3]
    rows[:, 4] = geo[sample, 5]
    rows[:, 5:7] = windows
    rows[:, 7:9] = anchors
    return rows


def _grid(rows):
    if len(rows) > MAX_PARTS:
        raise ValueError(f"a rank filter launch takes at most {MAX_PARTS} parts, not "
                         f"{len(rows)}")
    largest = int((rows[:, 2] * rows[:, 3] * rows[:, 4]).max(initial=0))
    return (int(min(max(-(-largest // BLOCK), 1), MAX_BLOCKS_X)), len(rows), 1), (BLOCK, 1, 1)


def _code(dtype):
    code = CODES.get(np.dtype(dtype))
    if code is None:
        raise ValueError(f"rank_filter.cu has no kernel for {np.dtype(dtype)}")
    return code


def median(geometry, windows, dtype, src_offsets=None, dst_offsets=None):
    """The Program of a median blur: `windows` (parts, 2) odd (width, height)."""
    windows = np.asarray(windows, np.int64).reshape(-1, 2)
    if (windows % 2 == 0).any():
        raise ValueError("median windows must have odd extents")
    rows = parts(geometry, windows, windows // 2, dtype, src_offsets, dst_offsets)
    if not len(rows):
        return Program([], {})
    grid, block = _grid(rows)
    return Program([Launch(CU, f"median_{_code(dtype)}", grid, block, ("src", "dst", rows))], {})


def morphology(dilate, geometry, windows, anchors, iterations, border, dtype, src_offsets=None,
               dst_offsets=None, dst_nbytes=0):
    """The Program of `iterations` dilations (or erosions): the first reads "src", each writes
    "dst" or "tmp" (`dst_nbytes` bytes, laid out as "dst") so that the last writes "dst"; no
    iteration is a copy (CV-CUDA's)."""
    if border not in BORDERS:
        raise ValueError(f"unknown border mode {border!r}")
    if iterations < 0:
        raise ValueError("iterations must be non-negative")
    code = _code(dtype)
    first = parts(geometry, windows, anchors, dtype, src_offsets, dst_offsets)
    if not len(first):
        return Program([], {})
    grid, block = _grid(first)
    if iterations == 0:             # the median of a 1 x 1 window: the copy
        ones = first.copy()
        ones[:, 5:7], ones[:, 7:9] = 1, 0
        return Program([Launch(CU, f"median_{code}", grid, block, ("src", "dst", ones))], {})
    later = first.copy()
    later[:, 0] = later[:, 1]       # the next iterations read the previous one's output
    kernel = f"{'dilate' if dilate else 'erode'}_{code}"
    launches = []
    source = "src"
    for k in range(iterations):
        target = "dst" if (iterations - 1 - k) % 2 == 0 else "tmp"
        launches.append(Launch(CU, kernel, grid, block,
                               (source, target, first if k == 0 else later,
                                np.int32(BORDERS[border]), identity(dtype, dilate))))
        source = target
    return Program(launches, {"tmp": dst_nbytes} if iterations > 1 else {})
