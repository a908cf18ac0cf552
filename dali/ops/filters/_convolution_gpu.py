"""Host side of the convolution kernels (`convolution.cu`) of fn.gaussian_blur, fn.laplacian and
fn.filter: the per-part descriptors and the launches, built from the CPU path's plan (its
`geometry`, windows and filters, see `_convolution` and the operators) and the batch's byte
offsets.  Pure numpy.

The functions return a `dali.ops._gpu_program.Program`: the launches of one batch and their
float32 scratch buffers ("tmp0", "tmp1", "acc"), run by `_gpu_program.run`.
"""

from __future__ import annotations

import os

import numpy as np

from dali.ops._gpu_program import Launch, Program

SEP_FIELDS = 8                  # int64 fields of a SepPart
FILTER_FIELDS = 16              # of a FilterPart
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per part
MAX_PARTS = 65535               # gridDim.y
PASS_PLAIN, PASS_FIRST, PASS_ADD = 0, 1, 2
_CODES = {np.dtype(t): c for t, c in (
    (np.uint8, "u8"), (np.int8, "i8"), (np.uint16, "u16"), (np.int16, "i16"),
    (np.uint32, "u32"), (np.int32, "i32"), (np.float32, "f32"), (np.float16, "f16"),
    (np.int64, "i64"), (np.float64, "f64"))}
CU = os.path.join(os.path.dirname(os.path.abspath(__file__)), "convolution.cu")
_FILTER_KERNELS = {"u8_u8", "u8_f32", "i8_i8", "i8_f32", "i16_i16", "i16_f32", "u16_u16",
                   "u16_f32", "f16_f16", "f16_f32", "f32_f32"}


def _code(dtype):
    code = _CODES.get(np.dtype(dtype))
    if code is None:
        raise ValueError(f"convolution.cu has no kernel for {np.dtype(dtype)}")
    return code


def _parts(geometry, out_geometry, in_dtype, out_dtype, src_offsets, dst_offsets):
    """Per part: the sample's geometry row, the input and output offsets (elements) and the
    input and output volumes."""
    geo = np.asarray(geometry, np.int64).reshape(-1, 6)
    out_geo = np.asarray(out_geometry, np.int64).reshape(-1, 6)
    if geo.shape != out_geo.shape or (geo < 0).any() or (out_geo < 0).any():
        raise ValueError("the geometries must be (samples, 6) of non-negative values")
    if ((geo[:, 1] < 1) | (geo[:, 1] > 3)).any():
        raise ValueError("a part has 1 to 3 data axes")
    isz, osz = np.dtype(in_dtype).itemsize, np.dtype(out_dtype).itemsize
    counts = geo[:, 0]
    vol_in, vol_out = geo[:, 5].copy(), out_geo[:, 5].copy()
    for d in range(3):
        used = geo[:, 1] > d
        vol_in *= np.where(used, geo[:, 2 + d], 1)
        vol_out *= np.where(used, out_geo[:, 2 + d], 1)

    def offsets(given, volumes, itemsize):
        packed = np.cumsum(volumes * counts) - volumes * counts
        if given is None:
            return packed
        given = np.asarray(given, np.int64).reshape(-1)
        if given.shape != packed.shape or (given % itemsize).any():
            raise ValueError("sample offsets must be one per sample, multiples of the element "
                             "size")
        return given // itemsize

    first = np.repeat(offsets(src_offsets, vol_in, isz), counts)
    first_out = np.repeat(offsets(dst_offsets, vol_out, osz), counts)
    k = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    vin, vout = np.repeat(vol_in, counts), np.repeat(vol_out, counts)
    if len(k) > MAX_PARTS:
        raise ValueError(f"a convolution launch takes at most {MAX_PARTS} parts, not {len(k)}")
    return np.repeat(geo, counts, axis=0), first + k * vin, first_out + k * vout, vin, vout


def _grid(volumes):
    blocks = int(min(max(-(-int(volumes.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    return (blocks, len(volumes), 1), (BLOCK, 1, 1)


def separable(geometry, windows, index, scales, in_dtype, out_dtype, src_offsets=None,
              dst_offsets=None):
    """The `Program` of `separable_batch` (gaussian_blur, laplacian) on a batch.

    geometry : int64 (samples, 6), the plan's `geometry`
    windows, index, scales : the plan's `windows` (float32 1-D), `index` (parts, terms, 3, 2:
        offset and length of the window of each term and axis) and `scales` (parts, terms)
    src_offsets, dst_offsets : the samples' byte offsets in the input and output batches (None:
        packed)
    """
    geo, src_off, dst_off, volumes, _ = _parts(geometry, geometry, in_dtype, out_dtype,
                                               src_offsets, dst_offsets)
    windows = np.ascontiguousarray(windows, np.float32).reshape(-1)
    index = np.asarray(index, np.int64)
    scales = np.asarray(scales, np.float32)
    parts = len(geo)
    if (index.ndim != 4 or index.shape[0] != parts or index.shape[2:] != (3, 2)
            or not 1 <= index.shape[1] <= 3 or scales.shape != index.shape[:2]):
        raise ValueError("index must be (parts, terms, 3, 2) and scales (parts, terms)")
    if parts == 0:
        return Program([], {})
    nd = int(geo[0, 1])
    if (geo[:, 1] != nd).any():
        raise ValueError("the parts of a batch have the same number of data axes")
    used = index[:, :, :nd]
    if ((used[..., 1] % 2 != 1) | (used[..., 0] < 0)
            | (used[..., 0] + used[..., 1] > windows.size)).any():
        raise ValueError("every window must be an odd-sized range of `windows`")
    in_code, out_code = _code(in_dtype), _code(out_dtype)
    if out_code not in (in_code, "f32"):
        raise ValueError("the output type is the input's or float32")
    nterms = index.shape[1]
    packed = np.cumsum(volumes) - volumes
    grid, block = _grid(volumes)
    extents = geo[:, 2:5]
    launches = []
    for t in range(nterms):
        term_scales = np.ascontiguousarray(scales[:, t])
        for j, a in enumerate(range(nd - 1, -1, -1)):
            last = a == 0
            src, src_at = ("src", src_off) if j == 0 else (f"tmp{(j - 1) % 2}", packed)
            if not last:
                dst, dst_at, mode, dst_code = f"tmp{j % 2}", packed, PASS_PLAIN, "f32"
            else:
                final = t == nterms - 1
                dst, dst_at = ("dst", dst_off) if final else ("acc", packed)
                dst_code = out_code if final else "f32"
                mode = PASS_FIRST if t == 0 else PASS_ADD
            desc = np.empty((parts, SEP_FIELDS), np.int64)
            desc[:, 0], desc[:, 1], desc[:, 2] = src_at, dst_at, packed
            desc[:, 3] = np.prod(extents[:, :a], axis=1)
            desc[:, 4] = extents[:, a]
            desc[:, 5] = geo[:, 5] * np.prod(extents[:, a + 1:nd], axis=1)
            desc[:, 6:8] = index[:, t, a]
            kernel = f"sep_{in_code if j == 0 else 'f32'}_{dst_code}"
            acc = "acc" if mode == PASS_ADD else dst        # read by PASS_ADD only
            launches.append(Launch(CU, kernel, grid, block, (src, dst, acc, windows, desc,
                                                             term_scales, np.int32(mode))))
    temps = {f"tmp{k}": 4 * int(volumes.sum()) for k in range(min(nd - 1, 2))}
    if nterms > 1:
        temps["acc"] = 4 * int(volumes.sum())
    return Program(launches, temps)


def filter_(geometry, out_geometry, filters, index, anchors, fills, border, in_dtype,
            out_dtype, src_offsets=None, dst_offsets=None):
    """The `Program` of `filter_batch` (fn.filter) on a batch: the plan's `geometry`,
    `out_geometry`, `filters`, `index` (parts, 1 + nd: offset, then the filter's extents),
    `anchors` (parts, nd), `fills` (parts,), and the border mode (`convolution.BORDER_*`);
    nd, the data axes, is 2 (images) or 3 (volumes)."""
    geo, src_off, dst_off, _, out_volumes = _parts(geometry, out_geometry, in_dtype, out_dtype,
                                                   src_offsets, dst_offsets)
    out_geo = np.repeat(np.asarray(out_geometry, np.int64).reshape(-1, 6),
                        np.asarray(geometry, np.int64).reshape(-1, 6)[:, 0], axis=0)
    filters = np.ascontiguousarray(filters, np.float32).reshape(-1)
    index = np.asarray(index, np.int64)
    nd = index.shape[1] - 1 if index.ndim == 2 else 0
    anchors = np.asarray(anchors, np.int64).reshape(-1, max(nd, 1))
    fills = np.ascontiguousarray(fills, np.float32).reshape(-1)
    parts = len(geo)
    if (nd not in (2, 3) or index.shape[0] != parts or anchors.shape != (parts, nd)
            or fills.shape != (parts,)):
        raise ValueError("index must be (parts, 3 or 4), anchors (parts, 2 or 3), fills "
                         "(parts,)")
    if not 0 <= int(border) <= 4:
        raise ValueError(f"unknown border mode {border}")
    kernel = f"filter_{_code(in_dtype)}_{_code(out_dtype)}"
    if kernel[7:] not in _FILTER_KERNELS:
        raise ValueError(f"convolution.cu has no filter from {np.dtype(in_dtype)} to "
                         f"{np.dtype(out_dtype)}")
    if parts == 0:
        return Program([], {})
    extents = index[:, 1:]
    if ((geo[:, 1] != nd) | (extents < 1).any(axis=1) | (index[:, 0] < 0)
            | (index[:, 0] + np.prod(extents, axis=1) > filters.size)
            | ((anchors < 0) | (anchors >= extents)).any(axis=1)).any():
        raise ValueError(f"every part needs {nd} data axes and a filter range with its anchor "
                         f"inside")
    ins, outs = geo[:, 2:2 + nd], out_geo[:, 2:2 + nd]
    if not ((outs == ins).all(axis=1) | (outs == ins - extents + 1).all(axis=1)).all():
        raise ValueError("the output parts must be as large as the input's or smaller by the "
                         "filter's extents - 1")
    pad = 3 - nd               # images: depth 1, a filter of depth 1 anchored at 0
    desc = np.empty((parts, FILTER_FIELDS), np.int64)
    desc[:, 0], desc[:, 1] = src_off, dst_off
    desc[:, 2:2 + pad], desc[:, 2 + pad:5], desc[:, 5] = 1, ins, geo[:, 5]
    desc[:, 6:6 + pad], desc[:, 6 + pad:9] = 1, outs
    desc[:, 9] = index[:, 0]
    desc[:, 10:10 + pad], desc[:, 10 + pad:13] = 1, extents
    desc[:, 13:13 + pad], desc[:, 13 + pad:16] = 0, anchors
    grid, block = _grid(out_volumes)
    return Program([Launch(CU, kernel, grid, block, ("src", "dst", filters, desc, fills,
                                                     np.int32(border)))], {})
