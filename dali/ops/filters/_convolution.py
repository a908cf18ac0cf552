"""What the convolution operators (gaussian_blur, laplacian, filter) share: the data axes of a
layout, the parts a sample is cut into for the kernels, and per-axis arguments resolved per
part (per sample, or per frame when the argument input is given per frame).

DALI's rule for the axes: a leading "F" is a sequence of frames, a "C" first (after the "F")
or last holds channels, every other axis is a data (spatial) axis; a "C" anywhere else is an
error.  An input without a layout has only data axes (at most 3).  A part is a contiguous block
of the data axes: a frame of a channel-last sample, a channel plane of a channel-first one.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from dali import _operator, _types, tensors
from dali._ext.kernels import convolution as _kernel
from dali.ops import _gpu_program
from dali.ops.filters import _convolution_gpu

MAX_AXES = 3


class Axes(NamedTuple):
    frames: bool          # a leading F axis
    channels_first: bool
    channels_last: bool
    data: int             # number of data (spatial) axes


def data_axes(op, tl, max_axes=MAX_AXES) -> Axes:
    """The axes of input `tl` (DALI's rules and messages)."""
    layout = tl.layout()
    ndim = tl.ndim()
    if not layout:
        if ndim > max_axes:
            raise op.error(f"Input data with empty layout cannot have more than {max_axes} "
                           f"dimensions, got input with {ndim} dimensions.")
        return Axes(False, False, False, ndim)
    start = 1 if layout[0] == "F" else 0
    first = len(layout) > start and layout[start] == "C"
    last = len(layout) > start + first and layout[-1] == "C"
    inner = layout[start + first:len(layout) - last]
    if "C" in inner or "F" in inner:
        raise op.error(f"Only channel-first or channel-last layouts are supported, got: "
                       f"{layout}.")
    if not 1 <= len(inner) <= max_axes:
        raise op.error(f"Too many dimensions, found: {len(inner)} data axes, maximum "
                       f"supported is: {max_axes}.")
    return Axes(start == 1, first, last, len(inner))


def geometry(shapes, axes: Axes) -> np.ndarray:
    """int64 (samples, 6) for the kernels: parts, data axes, three extents, channels."""
    shapes = np.asarray(shapes, np.int64)
    if shapes.ndim != 2:  # an empty (0, ndim) batch keeps its shape
        shapes = shapes.reshape(len(shapes), -1)
    n = shapes.shape[0]
    geo = np.ones((n, 6), np.int64)
    d0 = int(axes.frames) + int(axes.channels_first)
    if axes.frames:
        geo[:, 0] = shapes[:, 0]
    if axes.channels_first:
        geo[:, 0] *= shapes[:, d0 - 1]
    geo[:, 1] = axes.data
    geo[:, 2:2 + axes.data] = shapes[:, d0:d0 + axes.data]
    if axes.channels_last:
        geo[:, 5] = shapes[:, -1]
    return geo


def frame_of_part(geo, axes: Axes, shapes) -> np.ndarray:
    """For every part of the batch, the index of its frame among the batch's frames (or of its
    sample when there are no frames)."""
    shapes = np.asarray(shapes, np.int64).reshape(len(shapes), -1)
    frames = shapes[:, 0] if axes.frames else np.ones(len(shapes), np.int64)
    per_frame = geo[:, 0] // np.maximum(frames, 1)
    return np.repeat(np.arange(int(frames.sum())), np.repeat(per_frame, frames))


def _expand(op, name, v, naxes, size_name=None) -> np.ndarray:
    v = np.asarray(v).reshape(-1)
    if v.size == 1:
        return np.repeat(v, naxes)
    if v.size != naxes:
        raise op.error(f'Argument "{size_name or name}" expects either a single value or a '
                       f"list of {naxes} elements. {v.size} given.")
    return v


def per_part(op, ws, name, naxes, geo, axes: Axes, shapes, dtype) -> np.ndarray:
    """The values of the per-axis argument `name`, one row of `naxes` per part of the batch.

    An argument input whose layout starts with "F", on a sequence, gives one value (or row)
    per frame; otherwise the value is the sample's."""
    tl = ws.arg_inputs.get(name) if ws.is_arg_input(name) else None
    counts = geo[:, 0]
    if tl is not None and axes.frames and tl.layout().startswith("F"):
        shapes = np.asarray(shapes, np.int64).reshape(len(shapes), -1)
        rows = []
        for i, s in enumerate(tensors.storage_of(tl).samples()):
            s = np.asarray(s)
            f = int(shapes[i, 0])
            if s.shape[0] != f and s.shape[0] != 1:
                raise ws.sample_error(i, f'Argument "{name}" is given per frame: it needs one '
                                         f"value per frame ({f}), got {s.shape[0]}")
            frame_rows = [_expand(op, name, s[min(k, s.shape[0] - 1)], naxes)
                          for k in range(f)]
            rows.extend(frame_rows)
        table = np.array(rows, dtype).reshape(-1, naxes)
        return table[frame_of_part(geo, axes, shapes)]
    const = tl is None
    if const:
        row = _expand(op, name, ws.spec.args[name], naxes).astype(dtype)
        return np.broadcast_to(row, (int(counts.sum()), naxes))
    table = np.array([_expand(op, name, v, naxes) for v in ws.arg(name)], dtype)
    return np.repeat(table.reshape(-1, naxes), counts, axis=0)


def ones(parts) -> np.ndarray:
    """float32 (parts, 1) of ones: the scale of a single-term separable convolution."""
    return np.ones((parts, 1), np.float32)


def check_dtype(op, in_dtype, dtype, kinds):
    """The output numpy type: the input's when `dtype` is None, else it must be the input's or
    float32 (DALI's rule); the input type must be one the kernels take."""
    if in_dtype not in kinds:
        name = {"float64": "double", "float32": "float"}.get(str(in_dtype), str(in_dtype))
        raise op.error(f"Unsupported data type: {name}.", TypeError)
    if dtype is None:
        return in_dtype
    out = np.dtype(dtype)
    if out != in_dtype and out != np.float32:
        raise op.error("Output data type must be same as input, FLOAT or skipped (defaults to "
                       "input type)", TypeError)
    return out


ONE_PART = np.ones((1, 6), np.int64)       # the geometry of one part


def first_bad(geo, bad):
    """(part, axis, sample) of the first True of the (parts, axes) mask `bad`."""
    part, axis = np.argwhere(bad)[0]
    sample = np.repeat(np.arange(len(geo)), geo[:, 0])
    return int(part), int(axis), int(sample[part])


class SeparableFilter(_operator.Operator):
    """What gaussian_blur and laplacian share: the data axes, the output type, the parts of the
    batch, and one run of the separable-convolution kernel (on the GPU: the passes of
    `convolution.cu`).  A subclass sets `kinds` (the input
    types it takes) and `tensor_args` (its per-sample arguments) and implements
    `windows(ws, geo, axes, shapes) -> (windows, index, scales)`, one index and scale row per
    part; with constant arguments it is called once per number of data axes, for one part."""

    kinds: frozenset
    tensor_args: tuple

    def setup(self):
        self._memo = {}       # constant arguments: number of data axes -> (windows, index, scales)

    def windows(self, ws, geo, axes, shapes):
        raise NotImplementedError

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = ws.input_storage(0)
        axes = data_axes(self, tl)
        dtype = self.args["dtype"]
        out = check_dtype(self, storage.dtype, None if dtype is None else
                          _types.dtype_of(dtype), self.kinds)
        geo = geometry(storage.shapes, axes)
        parts = int(geo[:, 0].sum())
        if any(ws.is_arg_input(n) for n in self.tensor_args):
            windows, index, scales = self.windows(ws, geo, axes, storage.shapes)
        else:
            memo = self._memo.get(axes.data)
            if memo is None:
                memo = self._memo[axes.data] = self.windows(
                    ws, ONE_PART, axes._replace(frames=False), None)
            windows, index, scales = memo
            index = np.broadcast_to(index, (parts,) + index.shape[1:])
            scales = np.broadcast_to(scales, (parts, scales.shape[1]))
        return _operator.Plan([_operator.OutputDesc(storage.shapes, out, tl.layout())],
                              geometry=geo, windows=windows, index=index, scales=scales)

    def run_cpu(self, ws, plan):
        _kernel.separable_batch(ws.thread_pool, ws.input_storage(0), ws.outputs[0],
                                plan.geometry, plan.windows, plan.index, plan.scales)

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        program = _convolution_gpu.separable(plan.geometry, plan.windows, plan.index,
                                             plan.scales, src.dtype, out.dtype, src.offsets,
                                             out.offsets)
        _gpu_program.run(ws.gpu, program, src, out)
