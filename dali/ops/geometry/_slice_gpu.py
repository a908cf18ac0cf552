"""Host side of the window-copy CUDA kernels (`slice.cu`) that fn.crop, fn.slice, fn.pad and
fn.transpose share: the per-sample descriptors and the launch configuration, built from what
each CPU path's plan holds and the batch's shapes and byte offsets.

A launch is `kernel(grid, block, (src, dst, samples, fill))` with the kernel `Launch.kernel` of
`slice.cu`, `src`/`dst` the batches' buffers, and `samples` (the SliceSample array) and `fill`
(the fill values, of the output type; a copy kernel's as unsigned integers of its size) on the
device.
"""

from __future__ import annotations

import typing

import numpy as np

from dali.ops import _crop_window

DIMS = 8                        # DALI_SLICE_DIMS of slice.cu
FIELDS = 8 + 4 * DIMS           # int64 fields of a SliceSample
BLOCK = 256
MAX_BLOCKS_X = 1024             # grid-stride beyond this many blocks per sample
MAX_SAMPLES = 65535             # gridDim.y
CONSTANT, EDGE, REFLECT_1001, REFLECT_101, WRAP = range(5)    # as _ext/kernels/slice.pyx
_NAMES = {np.dtype(t): name for t, name in (
    (np.uint8, "u8"), (np.int8, "i8"), (np.uint16, "u16"), (np.int16, "i16"),
    (np.uint32, "u32"), (np.int32, "i32"), (np.uint64, "u64"), (np.int64, "i64"),
    (np.float16, "f16"), (np.float32, "f32"), (np.float64, "f64"))}
_CONVERTED = (np.dtype(np.uint8), np.dtype(np.float16), np.dtype(np.float32))


class Launch(typing.NamedTuple):
    kernel: str                 # the kernel's name in slice.cu
    grid: tuple
    block: tuple
    samples: np.ndarray         # (max(n, 1), FIELDS) int64: the SliceSample array
    fill: np.ndarray            # flat fill values, the kernel's output element type


def kernel_name(in_dtype, out_dtype):
    """The kernel copying `in_dtype` elements into `out_dtype` ones."""
    in_dtype, out_dtype = np.dtype(in_dtype), np.dtype(out_dtype)
    if in_dtype == out_dtype:
        if in_dtype.itemsize not in (1, 2, 4, 8):
            raise ValueError(f"slice.cu has no kernel for {in_dtype.itemsize}-byte elements")
        return f"slice_copy_{in_dtype.itemsize}"
    if in_dtype not in _NAMES or out_dtype not in _CONVERTED:
        raise ValueError(f"slice.cu does not convert {in_dtype} to {out_dtype}")
    return f"slice_{_NAMES[in_dtype]}_{_NAMES[out_dtype]}"


def launch(in_shapes, out_shapes, in_dtype, out_dtype, anchors=None, perm=None,
           policy=CONSTANT, fill=None, channel_axis=-1, cast=None, src_offsets=None,
           dst_offsets=None):
    """The `Launch` writing every output sample of `out_shapes` in full.

    Output axis d of sample i reads input axis perm[d] (None: the same axis) from source
    coordinate anchors[i, d] (None: 0) on; what lies outside the input follows `policy`
    (CONSTANT: `fill`, an (n, k) array of `out_dtype` values, k = 1 or one per index of the
    output axis `channel_axis`; None: zeros).  `cast` (n,) picks DALI's plain casts per sample
    (slice.h).  Offsets are the samples' byte offsets (None: packed one after another)."""
    in_dtype, out_dtype = np.dtype(in_dtype), np.dtype(out_dtype)
    kernel = kernel_name(in_dtype, out_dtype)
    n = len(out_shapes)
    if len(in_shapes) != n:
        raise ValueError(f"{len(in_shapes)} input shapes for {n} output samples")
    if n > MAX_SAMPLES:
        raise ValueError(f"a slice launch takes at most {MAX_SAMPLES} samples, not {n}")
    if not CONSTANT <= policy <= WRAP:
        raise ValueError(f"unknown policy {policy}")
    ndim = len(out_shapes[0]) if n else 0
    in_shape = np.asarray(in_shapes, np.int64).reshape(n, ndim)
    out_shape = np.asarray(out_shapes, np.int64).reshape(n, ndim)
    perm = np.arange(ndim) if perm is None else np.asarray(perm, np.int64)
    if sorted(perm.tolist()) != list(range(ndim)):
        raise ValueError(f"{perm.tolist()} is not a permutation of {ndim} axes")
    anchors = np.zeros((n, ndim), np.int64) if anchors is None else \
        np.asarray(anchors, np.int64).reshape(n, ndim)
    fill = np.zeros((n, 1), out_dtype) if fill is None else \
        np.asarray(fill, out_dtype).reshape(n, -1)
    nfill = fill.shape[1] if n else 1
    if nfill > 1 and n and (not 0 <= channel_axis < ndim or
                            (out_shape[:, channel_axis] != nfill).any()):
        raise ValueError("per-channel fill values need a channel axis with as many channels "
                         "in every output sample")
    cast = np.zeros(n, bool) if cast is None else np.asarray(cast, bool).reshape(n)
    in_size, out_size = in_dtype.itemsize, out_dtype.itemsize
    src_offsets = _offsets(src_offsets, in_shape, in_size)
    dst_offsets = _offsets(dst_offsets, out_shape, out_size)
    samples = np.zeros((max(n, 1), FIELDS), np.int64)
    for i in range(n):
        samples[i] = _describe(in_shape[i], out_shape[i], anchors[i], perm,
                               channel_axis if nfill > 1 else -1)
        samples[i, :2] = src_offsets[i] // in_size, dst_offsets[i] // out_size
        samples[i, 4:8] = policy, samples[i, 5], i * nfill, cast[i]
    volumes = samples[:, 2]
    blocks = int(min(max(-(-int(volumes.max(initial=0)) // BLOCK), 1), MAX_BLOCKS_X))
    flat = np.ascontiguousarray(fill).reshape(-1)
    if in_dtype == out_dtype:
        flat = flat.view(f"u{out_size}")
    return Launch(kernel, (blocks, max(n, 1), 1), (BLOCK, 1, 1), samples, flat)


def _offsets(offsets, shapes, itemsize):
    volumes = np.prod(shapes, axis=1, dtype=np.int64)
    if offsets is None:
        return np.concatenate([[0], np.cumsum(volumes)[:-1]]).astype(np.int64) * itemsize
    offsets = np.asarray(offsets, np.int64)
    if np.any(offsets % itemsize):
        raise ValueError("sample offsets must be multiples of the element size")
    return offsets


def _describe(in_shape, out_shape, anchor, perm, channel_axis):
    """One SliceSample row but the offsets and fields 4..7 (channel axis in field 5): output
    axes of extent 1 that read index 0 of an extent-1 input axis dropped, neighbours that copy
    whole input axes contiguous in the input merged (not the channel axis)."""
    ndim = len(out_shape)
    stride = np.ones(ndim, np.int64)
    for d in range(ndim - 2, -1, -1):
        stride[d] = stride[d + 1] * in_shape[d + 1]
    axes = []                   # [extent, anchor, in_extent, in_stride, is_channel]
    for d in range(ndim):
        e, a, ie, st = int(out_shape[d]), int(anchor[d]), int(in_shape[perm[d]]), \
            int(stride[perm[d]])
        whole = a == 0 and e == ie
        if whole and e == 1:
            continue
        if axes and whole and d != channel_axis and not axes[-1][4] and \
                axes[-1][1] == 0 and axes[-1][0] == axes[-1][2] and axes[-1][3] == st * e:
            axes[-1] = [axes[-1][0] * e, 0, axes[-1][2] * e, st, False]
        else:
            axes.append([e, a, ie, st, d == channel_axis])
    if len(axes) > DIMS:
        raise ValueError(f"a slice sample collapses to {len(axes)} axes, slice.cu takes {DIMS}")
    row = np.zeros(FIELDS, np.int64)
    row[2] = int(np.prod(out_shape, dtype=np.int64))
    row[3] = len(axes)
    row[5] = next((k for k, ax in enumerate(axes) if ax[4]), -1)
    for k, (e, a, ie, st, _) in enumerate(axes):
        row[8 + k], row[8 + DIMS + k], row[8 + 2 * DIMS + k], row[8 + 3 * DIMS + k] = \
            e, a, ie, st
    return row


# ---- the operators' launches, from their plans ------------------------------------------
def run(ws, launch):
    """Queue `launch` on the pipeline's device: input 0 into output 0 (`run_gpu`)."""
    ws.gpu.launch(__file__, launch.kernel, launch.grid, launch.block,
                  (ws.input_storage(0), ws.outputs[0], launch.samples, launch.fill))


def for_crop(ws, plan, fill_values, src_offsets=None, dst_offsets=None):
    """fn.crop's launch: `plan` of `Crop.infer`, fill values per padded sample as
    `Crop.run_cpu` gives them (`_crop_window.fill_array`, with its channel-count error)."""
    src = ws.input_storage(0)
    shapes = plan.outputs[0].shapes
    n = len(shapes)
    width = len(fill_values) if len(fill_values) > 1 else 1
    fill = np.zeros((n, width), plan.dtype)
    for i in np.flatnonzero(plan.padded).tolist():
        fill[i] = _crop_window.fill_array(ws, i, fill_values, shapes[i][plan.channel],
                                          plan.dtype)
    return launch(src.shapes, shapes, src.dtype, plan.dtype, anchors=plan.anchors, fill=fill,
                  channel_axis=plan.channel, src_offsets=src_offsets, dst_offsets=dst_offsets)


def for_slice(ws, plan, policy, src_offsets=None, dst_offsets=None):
    """fn.slice's launch: `plan` of `Slice.infer`, `policy` its border policy's code."""
    src = ws.input_storage(0)
    out = plan.outputs[0]
    return launch(src.shapes, out.shapes, src.dtype, out.dtype, anchors=plan.anchors,
                  policy=policy, fill=plan.fill, channel_axis=plan.channel, cast=plan.cast,
                  src_offsets=src_offsets, dst_offsets=dst_offsets)


def for_pad(ws, plan, src_offsets=None, dst_offsets=None):
    """fn.pad's launch: `plan` of `Pad.infer` (the window at the origin, constant border)."""
    src = ws.input_storage(0)
    out = plan.outputs[0]
    return launch(src.shapes, out.shapes, src.dtype, out.dtype, fill=plan.fill,
                  src_offsets=src_offsets, dst_offsets=dst_offsets)


def for_transpose(ws, plan, src_offsets=None, dst_offsets=None):
    """fn.transpose's launch: `plan` of `Transpose.infer` (output axis d is input axis
    plan.perm[d])."""
    src = ws.input_storage(0)
    out = plan.outputs[0]
    return launch(src.shapes, out.shapes, src.dtype, out.dtype, perm=plan.perm,
                  src_offsets=src_offsets, dst_offsets=dst_offsets)
