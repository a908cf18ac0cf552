"""fn.crop_mirror_normalize: crop, horizontal flip, normalization, channel padding, layout change
and type conversion in one pass over the data.

Per output element: `(x - mean[c]) / std[c] * scale + shift`, computed as DALI does - in float32
as `(x - mean') * mul` with `mul = scale / std` and `mean' = mean - shift * std / scale` (the
latter in double) - then converted to `dtype` (integers round half away from zero and saturate;
float16 overflows to inf).  The window is placed like fn.crop's (`dali.ops._crop_window`) and
mirrored afterwards.  Padded areas (`out_of_bounds_policy="pad"`) hold `fill_values` as given,
not normalized; `pad_output` adds channels up to the next power of two, zero inside the window.

The crop, mirror and layout change are numpy views; one nogil kernel
(`dali._ext.kernels.cmn`) reads the input once and writes the output in its final layout.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _roles, _types, tensors
from dali._ext.kernels import cmn as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _crop_window

_INPUTS = tuple(np.dtype(t) for t in (np.uint8, np.int16, np.uint16, np.int32, np.float16,
                                       np.float32))
_OUTPUTS = tuple(np.dtype(t) for t in (np.uint8, np.int8, np.float16, np.float32))
_F32 = np.float32
_SIZE_ARGS = {"crop", "crop_h", "crop_w", "crop_d"}      # without them the window is the input
_WINDOW_ARGS = _SIZE_ARGS | {"crop_pos_x", "crop_pos_y", "crop_pos_z"}


@_registry.register
class CropMirrorNormalize(_operator.Operator, _roles.RegionConsumer):
    schema = Schema(
        "crop_mirror_normalize", inputs=1, outputs=1, devices=("cpu",),
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
        _crop_window.check_args(self)

    def infer(self, ws):
        tl = ws.inputs[0]
        in_dtype = np.dtype(tensors.storage_of(tl).dtype)
        if in_dtype not in _INPUTS:
            raise self.error(f"Not supported input type: {in_dtype}", TypeError)
        self.dtype = self._out_dtype()
        self.layout = _crop_window.layout_of(self, tl)
        out_layout = self.args["output_layout"]
        if sorted(out_layout) != sorted(self.layout):
            raise self.error(f'The requested output layout "{out_layout}" is not a permutation '
                             f'of input layout "{self.layout}".')
        self.perm = [self.layout.index(c) for c in out_layout]
        self.channel = self.layout.index("C")
        self.windows = self._windows(ws, [tuple(s) for s in tl.shape()], self.layout)
        shapes = []
        for w in self.windows:
            shape = list(w.shape)
            if self.args["pad_output"]:
                shape[self.channel] = _next_pow2(shape[self.channel])
            shapes.append(tuple(shape[p] for p in self.perm))
        return _operator.Plan([_operator.OutputDesc(shapes, self.dtype, out_layout)])

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
        key = (layout, tuple(shapes))
        memo = self._last_windows
        if memo is None or memo[0] != key:
            memo = key, _crop_window.windows(self, ws, shapes, layout)
            self._last_windows = memo
        return memo[1]

    def run_cpu(self, ws, plan):
        inverse = np.argsort(self.perm)
        w_axis = self.layout.index("W")
        mirror, means, stds = ws.arg("mirror"), ws.arg("mean"), ws.arg("std")
        constants = {}          # (mean, mul) per channel count, for constant mean/std
        per_sample = ws.is_arg_input("mean") or ws.is_arg_input("std")
        jobs = []               # (region, target, mean, mul), normalized on the pool at once
        for i, (src, dst, win) in enumerate(zip(ws.input_samples(0), ws.output_samples(0),
                                                self.windows, strict=True)):
            channels = win.shape[self.channel]
            padded = dst.shape[self.perm.index(self.channel)]
            key = (channels, padded)
            if per_sample or key not in constants:
                constants[key] = self._normalization(ws, i, means[i], stds[i], channels,
                                                     padded)
            mean, mul = constants[key]
            fill = None
            if self.args["out_of_bounds_policy"] == "pad":
                fill = _crop_window.fill_array(ws, i, self.args["fill_values"], padded,
                                               self.dtype)
            jobs.append(normalize_sample(src, dst.transpose(inverse), win, self.channel,
                                         channels, mean, mul, fill,
                                         w_axis if mirror[i] else None))
        _kernel.normalize_batch(ws.thread_pool, jobs, self.channel)

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
