"""fn.slice: extract an N-D window (a slice) of each sample.

The window comes from positional anchor and shape inputs or from the named arguments
(`dali.ops._slice_window`: coordinates in the order of `axis_names` or `axes`, rounded half
away from zero; an input without a layout is named as HW, HWC or DHWC by its dimensions).
What lies outside the input is an error, is cut off (`"trim_to_shape"`), filled with
`fill_values` (`"pad"` / `"constant"`, one value or one per channel) or taken from the input by
a border rule (`"edge"`, `"reflect"`, `"reflect_101"`, `"wrap"`).  The output keeps the input
type or converts to uint8, float16 or float (saturating, truncating toward zero; as in DALI,
a sample padded with per-channel fill values converts by plain casts instead).  All samples
are copied by one nogil call of the slice kernel.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types, tensors
from dali._ext.kernels import slice as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _crop_window, _slice_window
from dali.ops.geometry import _slice_gpu

_POLICIES = {"error": None, "pad": _kernel.CONSTANT, "constant": _kernel.CONSTANT,
             "trim_to_shape": None, "edge": _kernel.EDGE, "clamp": _kernel.EDGE,
             "reflect": _kernel.REFLECT_1001, "reflect_1001": _kernel.REFLECT_1001,
             "reflect_101": _kernel.REFLECT_101, "wrap": _kernel.WRAP}
_NAMING_LAYOUTS = {2: "HW", 3: "HWC", 4: "DHWC"}
_CONVERTIBLE_TO = (np.dtype(np.uint8), np.dtype(np.float16), np.dtype(np.float32))


@_registry.register
class Slice(_operator.Operator):
    schema = Schema(
        "slice", inputs=(1, 3), outputs=1, devices=("cpu", "gpu"), gpu_host_inputs=(1, 2),
        input_names=("data", "__anchor", "__shape"),
        doc="Extracts a subtensor, or slice.\n\n"
            "The slice is given by two extra positional inputs, `anchor` and `shape` (floats "
            "are normalized unless `normalized_anchor` / `normalized_shape` are False; "
            "integers are absolute), or by the arguments `start` / `rel_start` and one of "
            "`end`, `rel_end`, `shape`, `rel_shape`. Coordinates are listed in the order of "
            "`axis_names` (default \"WH\") or `axes`; dimensions not listed are kept whole. "
            "Fractional coordinates are rounded half away from zero (the start, and the end "
            "as start + shape).",
        args=[
            *_slice_window.slice_args(),
            Arg("out_of_bounds_policy", T.STRING, "error",
                doc='What to do with a window that exceeds the input: "error", "pad" or '
                    '"constant" (fill with `fill_values`), "edge" or "clamp" (repeat the edge '
                    'value), "reflect" or "reflect_1001" (mirror, repeating the edge), '
                    '"reflect_101" (mirror without repeating it), "wrap" (repeat the input) '
                    'or "trim_to_shape" (cut the window to the input).'),
            Arg("fill_values", T._FLOAT_VEC, [0.0],
                doc="Values of the padded area: one value, or one per channel (the extent of "
                    "the layout's C in the output)."),
            Arg("dtype", T.DATA_TYPE, None,
                doc="Output type: the input type (default), uint8, float16 or float."),
            Arg("output_dtype", T.DATA_TYPE, None, alias_of="dtype"),
            Arg("image_type", T.IMAGE_TYPE, None,
                deprecated="The argument `image_type` is no longer used and will be removed "
                           "in a future release.",
                ignored="deprecated in DALI, where it has no effect either"),
        ])

    def setup(self):
        self._memo = _operator.LastPlan()  # the last batch's, when arguments are constant
        _slice_window.check_args(self)
        policy = self.args["out_of_bounds_policy"]
        if policy not in _POLICIES:
            raise self.error(f"Not supported out_of_bounds_policy: {policy}", RuntimeError)

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = tensors.storage_of(tl)
        in_dtype = np.dtype(storage.dtype)
        if in_dtype == np.bool_:
            raise self.error("Not supported input type: bool", RuntimeError)
        layout = tl.layout() or ""
        key = None
        if len(ws.inputs) == 1 and not self.spec.arg_inputs:
            # constant arguments: the windows depend only on the input shapes and type
            key = _operator.shapes_key(storage.shapes, layout, in_dtype)
            if (kept := self._memo.get(key)) is not None:
                return kept
        plan = self._plan(ws, storage, in_dtype, layout)
        return self._memo.keep(key, plan)

    def _plan(self, ws, storage, in_dtype, layout):
        dtype = self._out_dtype(in_dtype)
        naming = layout or _NAMING_LAYOUTS.get(storage.ndim, "")
        in_shape = np.asarray(storage.shapes, np.int64).reshape(-1, storage.ndim)
        start, end = _slice_window.window_arrays(self, ws, in_shape, naming)
        policy = self.args["out_of_bounds_policy"]
        anchors, shapes = start, end - start
        if _POLICIES[policy] is None:
            anchors, shapes, _ = _crop_window.place(ws, in_shape, anchors, shapes, policy)
        elif _POLICIES[policy] != _kernel.CONSTANT:
            self._check_border(ws, in_shape, shapes, policy)
        fill = self._fill(ws, shapes, layout.find("C"), dtype)
        cast = None
        if fill.shape[1] > 1 and dtype != in_dtype and _POLICIES[policy] == _kernel.CONSTANT:
            # DALI pads with per-channel values in a kernel that converts by plain casts
            cast = ((anchors < 0) | (anchors + shapes > in_shape)).any(axis=1)
        for a in (anchors, shapes, cast):
            if a is not None:
                a.flags.writeable = False
        return _operator.Plan([_operator.OutputDesc(shapes, dtype, layout)], anchors=anchors,
                              fill=fill, channel=layout.find("C"), cast=cast)

    def _out_dtype(self, in_dtype):
        wanted = self.args["dtype"]
        if wanted is None:
            return in_dtype
        out = _types.dtype_of(T(wanted))
        if out != in_dtype and out not in _CONVERTIBLE_TO:
            raise self.error(f"Not supported output type: {T(wanted).name.lower()}",
                             RuntimeError)
        return out

    @staticmethod
    def _check_border(ws, in_shape, shapes, policy):
        """A border rule needs input to take values from."""
        empty = (in_shape == 0).any(axis=1) & (shapes > 0).all(axis=1)
        if empty.any():
            i = int(np.flatnonzero(empty)[0])
            raise ws.sample_error(i, f'out_of_bounds_policy "{policy}" needs a non-empty '
                                     f"input, got shape {tuple(in_shape[i].tolist())}",
                                  RuntimeError)

    def _fill(self, ws, shapes, channel, dtype):
        """`fill_values` as an (n, k) array of the output type, checked against the output
        channels."""
        values = self.args["fill_values"]
        n = len(shapes)
        if len(values) == 1:
            return np.broadcast_to(_crop_window.fill_array(ws, 0, values, 1, dtype), (n, 1))
        if channel < 0:
            raise self.error("Multi-channel fill_values was provided but channel dimension "
                             "could not be found in layout", RuntimeError)
        bad = np.flatnonzero(shapes[:, channel] != len(values))
        if len(bad):
            i = int(bad[0])
            raise ws.sample_error(i, "Multi-channel fill value does not match the number of "
                                     f"channels in the output: {len(values)} values for "
                                     f"{shapes[i, channel]} channels.", RuntimeError)
        row = _crop_window.fill_array(ws, 0, values, len(values), dtype)
        return np.broadcast_to(row, (n, len(values)))

    def run_cpu(self, ws, plan):
        policy = _POLICIES[self.args["out_of_bounds_policy"]]
        _kernel.slice_batch(ws.thread_pool, ws.input_storage(0), ws.outputs[0],
                            plan.anchors, _kernel.CONSTANT if policy is None else policy,
                            plan.fill, plan.channel, plan.cast)

    def run_gpu(self, ws, plan):
        """One launch of `slice.cu`: the plan's windows, border policy, fill values and
        conversion (the anchor and shape inputs stay on the host, as in DALI)."""
        policy = _POLICIES[self.args["out_of_bounds_policy"]]
        launch = _slice_gpu.for_slice(ws, plan, _kernel.CONSTANT if policy is None else policy,
                                      ws.input_storage(0).offsets, ws.outputs[0].offsets)
        _slice_gpu.run(ws, launch)
