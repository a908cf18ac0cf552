"""fn.crop_mirror_normalize: crop, horizontal flip, normalization, channel padding, layout change
and type conversion in one pass over the data.

Per output element: `(x - mean[c]) / std[c] * scale + shift`, computed as DALI does - in float32
as `(x - mean') * mul` with `mul = scale / std` and `mean' = mean - shift * std / scale` (the
latter in double) - then converted to `dtype` (integers round half away from zero and saturate;
float16 overflows to inf).  The window is placed like fn.crop's (`dali.ops._crop_window`) and
mirrored afterwards.  Padded areas (`out_of_bounds_policy="pad"`) hold `fill_values` as given,
not normalized; `pad_output` adds channels up to the next power of two, zero inside the window.

One nogil kernel (`dali._ext.kernels.cmn`) reads the input once and writes the output in its
final layout: for contiguous batches without padding it takes the windows, mirror flags and
layout permutation as arrays and works out the strides itself; otherwise the crop, mirror and
layout change are numpy views, one per sample.
"""

from __future__ import annotations

import typing

import numpy as np

from dali import _operator, _registry, _roles, _types, tensors
from dali._ext.kernels import cmn as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _crop_window
from dali.ops.image import _crop_mirror_normalize_gpu as _cmn_gpu

_INPUTS = tuple(np.dtype(t) for t in (np.uint8, np.int16, np.uint16, np.int32, np.float16,
                                       np.float32))
_OUTPUTS = tuple(np.dtype(t) for t in (np.uint8, np.int8, np.float16, np.float32))
_F32 = np.float32
_SIZE_ARGS = {"crop", "crop_h", "crop_w", "crop_d"}      # without them the window is the input
_WINDOW_ARGS = _SIZE_ARGS | {"crop_pos_x", "crop_pos_y", "crop_pos_z"}


@_registry.register
class CropMirrorNormalize(_operator.Operator, _roles.RegionConsumer):
    schema = Schema(
        "crop_mirror_normalize", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Crops, optionally mirrors (horizontally), normalizes and converts the data, and "
            "changes its layout, in one pass.\n\n"
            "Normalization: `out = (in - mean) / std * scale + shift`, per channel. The window "
            "is placed like `crop`'s and flipped when `mirror` is set.",
        args=[
            *_crop_window.crop_args(),
            Arg("mirror", T.INT32, 0, tensor=True,
                doc="Flip the (cropped) sample horizontally when non-zero."),
            Arg("mean", T._FLOAT_VEC, [0.0], tensor=True,
                doc="Mean subtracted: one value or one per channel."),
            Arg("std", T._FLOAT_VEC, [1.0], tensor=True,
                doc="Standard deviation divided by: one value or one per channel."),
            Arg("scale", T.FLOAT, 1.0, doc="Factor applied after the normalization."),
            Arg("shift", T.FLOAT, 0.0, doc="Value added last."),
            Arg("dtype", T.DATA_TYPE, T.FLOAT,
                doc="Output type: float (default), float16, uint8 or int8."),
            Arg("output_dtype", T.DATA_TYPE, None, alias_of="dtype"),
            Arg("output_layout", T.TENSOR_LAYOUT, "CHW",
                doc="Output layout, a permutation of the input layout."),
            Arg("pad_output", T.BOOL, False,
                doc="Pad the channels up to the next power of two (extra channels are 0)."),
        ])

    def setup(self):
        self._last_windows = None        # (layout, shapes) -> windows, see `_windows`
        self._last_geometry = None       # (windows, _Geometry), see `_geometry`
        self._constants = {}             # channels -> (mean, mul) of constant mean and std
        _crop_window.check_args(self)

    def infer(self, ws):
        tl = ws.inputs[0]
        in_dtype = np.dtype(tensors.storage_of(tl).dtype)
        if in_dtype not in _INPUTS:
            raise self.error(f"Not supported input type: {in_dtype}", TypeError)
        dtype = self._out_dtype()
        layout = _crop_window.layout_of(self, tl)
        out_layout = self.args["output_layout"]
        if sorted(out_layout) != sorted(layout):
            raise self.error(f'The requested output layout "{out_layout}" is not a permutation '
                             f'of input layout "{layout}".')
        perm = [layout.index(c) for c in out_layout]
        channel = layout.index("C")
        windows = self._windows(ws, ws.input_storage(0).shapes, layout)
        geometry = self._geometry(windows, perm, channel)
        return _operator.Plan([_operator.OutputDesc(list(geometry.shapes), dtype, out_layout)],
                              dtype=dtype, layout=layout, perm=perm, channel=channel,
                              windows=windows, geometry=geometry)

    def _geometry(self, windows, perm, channel):
        """`_Geometry` of a list of windows; remembered for the last list (`_windows` hands
        out the same list while the batch's shapes repeat; perm and channel follow from the
        layout, which is part of that list's key)."""
        memo = self._last_geometry
        if memo is not None and memo[0] is windows:
            return memo[1]
        out_shape = {}          # window extents -> output shape (windows often repeat)
        shapes = []
        for w in windows:
            shape = out_shape.get(w.shape)
            if shape is None:
                shape = list(w.shape)
                if self.args["pad_output"]:
                    shape[channel] = _next_pow2(shape[channel])
                shape = out_shape[w.shape] = tuple(shape[p] for p in perm)
            shapes.append(shape)
        n = len(windows)
        geometry = _Geometry(
            shapes, {w.shape[channel] for w in windows},
            np.array([w.anchor for w in windows], np.int64).reshape(n, len(perm)),
            np.array([w.shape for w in windows], np.int64).reshape(n, len(perm)))
        self._last_geometry = windows, geometry
        return geometry

    def _out_dtype(self):
        wanted = self.args["dtype"]
        try:
            out = _types.dtype_of(T(wanted))
        except TypeError:
            out = None
        if out not in _OUTPUTS:
            raise self.error(f"Not supported output type: {T(wanted)}; use float, float16, "
                             "uint8 or int8.", TypeError)
        return out

    # -- region fusion (dali.ops._regions): the input region each sample's window reads -----
    def regions_ahead(self):
        return not set(self.spec.arg_inputs) & _WINDOW_ARGS

    def reads_whole_input(self):
        return not self.spec.given & _SIZE_ARGS

    def input_regions(self, ws, shapes, layout):
        if layout != "HWC":
            return None
        regions = []
        for shape, w in zip(shapes, self._windows(ws, shapes, layout), strict=True):
            regions.append(tuple((min(max(a, 0), e), max(min(max(a, 0), e), min(a + n, e)))
                                 for a, n, e in zip(w.anchor[:2], w.shape[:2], shape[:2],
                                                    strict=True)))
        return regions

    def _windows(self, ws, shapes, layout):
        """`_crop_window.windows`, remembered for the last batch of shapes when no argument
        input decides them (the producer of a fused region asks before `infer` does)."""
        if set(self.spec.arg_inputs) & _WINDOW_ARGS:
            return _crop_window.windows(self, ws, shapes, layout)
        rows = np.asarray(shapes, np.int64)
        key = _operator.shapes_key(rows, layout)
        memo = self._last_windows
        if memo is None or memo[0] != key:
            memo = key, _crop_window.windows(self, ws, shapes, layout)
            self._last_windows = memo
        return memo[1]

    def run_cpu(self, ws, plan):
        if not self._run_windows(ws, plan):
            self._run_views(ws, plan)

    def _run_windows(self, ws, plan):
        """The batch in one kernel call that works out every sample's strides itself: for
        contiguous batches whose windows need no padding; False when it does not apply."""
        src, dst = ws.input_storage(0), ws.outputs[0]
        if (self.args["out_of_bounds_policy"] == "pad" or self.args["pad_output"]
                or src.base is None or dst.base is None or src.dtype == np.float16):
            return False
        windows, channel, geometry = plan.windows, plan.channel, plan.geometry
        per_sample = ws.is_arg_input("mean") or ws.is_arg_input("std")
        if len(geometry.channels) > 1 and not per_sample:
            return False
        if not windows:
            return True
        if per_sample:
            means, stds = ws.arg("mean"), ws.arg("std")
            pairs = [self._normalization(ws, i, means[i], stds[i], w.shape[channel],
                                         w.shape[channel]) for i, w in enumerate(windows)]
            mean = np.ascontiguousarray(np.stack([m for m, _ in pairs]))
            mul = np.ascontiguousarray(np.stack([f for _, f in pairs]))
        else:
            mean, mul = self._constant_normalization(ws, windows[0].shape[channel])
        if ws.is_arg_input("mirror"):
            mirror = (np.asarray(ws.arg("mirror")) != 0).astype(np.uint8)
        else:
            mirror = np.full(len(windows), ws.arg("mirror")[0] != 0, np.uint8)
        return _kernel.normalize_windows(ws.thread_pool, src, dst, geometry.anchors,
                                         geometry.extents, mirror, plan.perm, channel,
                                         plan.layout.index("W"), mean, mul)

    def run_gpu(self, ws, plan):
        """One launch of `crop_mirror_normalize.cu` over the batch: the same windows, (mean,
        mul) rows and fill values as the CPU path."""
        src, dst = ws.input_storage(0), ws.outputs[0]
        geometry, channel = plan.geometry, plan.channel
        out_channel = plan.perm.index(channel)
        means, stds = ws.arg("mean"), ws.arg("std")
        per_sample = ws.is_arg_input("mean") or ws.is_arg_input("std")
        pad = self.args["out_of_bounds_policy"] == "pad"
        rows, fills = {}, []
        mean, mul = [], []
        for i, w in enumerate(plan.windows):
            key = (w.shape[channel], geometry.shapes[i][out_channel])
            if per_sample or key not in rows:
                rows[key] = self._normalization(ws, i, means[i], stds[i], *key)
            mean.append(rows[key][0])
            mul.append(rows[key][1])
            if pad:
                fills.append(_crop_window.fill_array(ws, i, self.args["fill_values"], key[1],
                                                     plan.dtype))
        mirror = np.asarray(ws.arg("mirror")) != 0
        launch = _cmn_gpu.launch(src.shapes, geometry.shapes, plan.layout, plan.perm,
                                 geometry.anchors, geometry.extents, mirror, mean, mul,
                                 fills if pad else None, src.dtype, plan.dtype, src.offsets,
                                 dst.offsets)
        ws.gpu.launch(_cmn_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (src, dst, launch.samples, launch.mean, launch.mul, launch.fill,
                       np.int32(launch.row)))

    def _constant_normalization(self, ws, channels):
        """(mean, mul) as (1, channels) float32 rows for constant mean and std, remembered
        per channel count (they depend on nothing else)."""
        hit = self._constants.get(channels)
        if hit is None:
            mean, mul = self._normalization(ws, 0, ws.arg("mean")[0], ws.arg("std")[0],
                                            channels, channels)
            hit = self._constants[channels] = (np.ascontiguousarray(mean[None]),
                                               np.ascontiguousarray(mul[None]))
        return hit

    def _run_views(self, ws, plan):
        """Sample by sample through numpy views (padding, float16 input, per-sample storage)."""
        perm, channel, dtype = plan.perm, plan.channel, plan.dtype
        inverse = np.argsort(perm)
        w_axis = plan.layout.index("W")
        mirror, means, stds = ws.arg("mirror"), ws.arg("mean"), ws.arg("std")
        constants = {}          # (mean, mul) per channel count, for constant mean/std
        per_sample = ws.is_arg_input("mean") or ws.is_arg_input("std")
        jobs = []               # (region, target, mean, mul), normalized on the pool at once
        for i, (src, dst, win) in enumerate(zip(ws.input_samples(0), ws.output_samples(0),
                                                plan.windows, strict=True)):
            channels = win.shape[channel]
            padded = dst.shape[perm.index(channel)]
            key = (channels, padded)
            if per_sample or key not in constants:
                constants[key] = self._normalization(ws, i, means[i], stds[i], channels,
                                                     padded)
            mean, mul = constants[key]
            fill = None
            if self.args["out_of_bounds_policy"] == "pad":
                fill = _crop_window.fill_array(ws, i, self.args["fill_values"], padded, dtype)
            jobs.append(normalize_sample(src, dst.transpose(inverse), win, channel, channels,
                                         mean, mul, fill, w_axis if mirror[i] else None))
        _kernel.normalize_batch(ws.thread_pool, jobs, channel)

    def _normalization(self, ws, i, mean, std, channels, padded):
        """Per-channel float32 (mean', mul) for the kernel (see the module docstring)."""
        mean = _per_channel(ws, i, "mean", mean, channels, padded)
        std = _per_channel(ws, i, "std", std, channels, padded)
        scale, shift = _F32(self.args["scale"]), _F32(self.args["shift"])
        with np.errstate(divide="ignore", invalid="ignore"):
            mul = scale / std
            adjusted = (mean.astype(np.float64)
                        - np.float64(shift) * std.astype(np.float64) / np.float64(scale))
        return adjusted.astype(_F32), mul


class _Geometry(typing.NamedTuple):
    """What a batch's windows decide, derived once per list of windows: the output shape of
    each sample (in the output layout), the set of channel counts, and the windows' anchors
    and extents as int64 (n, ndim) arrays for `normalize_windows`."""
    shapes: list
    channels: set
    anchors: np.ndarray
    extents: np.ndarray


def _per_channel(ws, i, name, values, channels, padded):
    values = np.asarray(values, dtype=_F32).reshape(-1)
    if values.size == 1:
        return np.full(channels, values[0], _F32)
    if values.size not in (channels, padded):
        raise ws.sample_error(
            i, f"The number of per-channel arguments should match the number of channels in "
               f"the output slice: `{name}` has {values.size} values for {channels} channels.")
    return values[:channels]


def _next_pow2(n):
    return 1 << (n - 1).bit_length() if n > 1 else n


def normalize_sample(src, view, window, channel, channels, mean, mul, fill, mirror_axis=None):
    """Prepare `view` (the output in the input's axis order) to be filled from `src`'s window:
    returns the kernel's job (source region, target view, mean, mul).

    `fill` (per channel, with the "pad" policy, else None) fills the area outside the input
    and - as in DALI - the padded channels; without it those channels are 0.  With
    `mirror_axis` the window is flipped along it: the source is read backwards so that the
    output is still written forwards.
    """
    padded = view.shape[channel]
    per_channel = [1] * view.ndim
    per_channel[channel] = -1
    if fill is not None:
        fill = np.broadcast_to(fill, (padded,)).reshape(per_channel)
        if window.padded:
            view[...] = fill
    region, where = _crop_window.source_region(src, window)
    where = list(where)
    where[channel] = slice(None)
    if mirror_axis is not None:
        extent, part = window.shape[mirror_axis], where[mirror_axis]
        where[mirror_axis] = slice(extent - part.stop, extent - part.start)
        flip = [slice(None)] * region.ndim
        flip[mirror_axis] = slice(None, None, -1)
        region = region[tuple(flip)]
    target = view[tuple(where)]
    if padded > channels:
        extra = [slice(None)] * view.ndim
        extra[channel] = slice(channels, None)
        target[tuple(extra)] = 0 if fill is None else fill[tuple(extra)]
        extra[channel] = slice(0, channels)
        target = target[tuple(extra)]
    if region.dtype == np.float16:
        region = region.astype(_F32)
    return region, target, mean, mul
