"""fn.erase: set regions of each sample to `fill_value`.

Regions are given along the axes of `axis_names` or `axes` (neither given: every dimension
but the layout's C, in layout order, e.g. F, H, W for sequences): `anchor` and
`shape` hold one value per axis and region, region after region (without `anchor`, regions
start at 0).
Coordinates are pixels, or fractions of the extent with `normalized` (or
`normalized_anchor` / `normalized_shape`); with `centered_anchor` the anchor is the region's
centre.  In float32, a region covers [floor(start), floor(start + shape)), clipped to the
sample; other axes are covered whole.  The fill value (one, or one per channel of the layout's
C) is converted by a plain C cast (`dali.ops._c_cast`).  The copy and the fills are one nogil
call of the erase kernel.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, tensors
from dali._ext.kernels import erase as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _c_cast, _slice_window
from dali.ops.image import _erase_gpu


@_registry.register
class Erase(_operator.Operator):
    schema = Schema(
        "erase", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Erases one or more regions from the input tensors.\n\n"
            "A region is given by an `anchor` (starting point) and a `shape`, along the "
            "dimensions of `axis_names` or `axes` (default: all but C); dimensions not listed "
            "are erased whole. "
            "Several regions are listed one after another, e.g. `anchor` = (y0, x0, y1, x1) "
            "and `shape` = (h0, w0, h1, w1) for axis_names=\"HW\".",
        args=[
            Arg("anchor", T._FLOAT_VEC, [], tensor=True,
                doc="Starting points of the regions, one value per axis and region."),
            Arg("shape", T._FLOAT_VEC, [], tensor=True,
                doc="Extents of the regions, one value per axis and region."),
            Arg("axes", T._INT32_VEC, [1, 0],
                doc="Dimensions the coordinates refer to, as indices; `axis_names` has "
                    "priority."),
            Arg("axis_names", T.TENSOR_LAYOUT, "HW",
                doc="Dimensions the coordinates refer to, by layout name. Neither this nor "
                    "`axes` given: every dimension but C (H, W for HWC)."),
            Arg("fill_value", T._FLOAT_VEC, [0.0], tensor=True,
                doc="Value of the erased regions: one, or one per channel (C in the layout)."),
            Arg("normalized", T.BOOL, False,
                doc="Anchor and shape are fractions (0..1) of the extent; excludes "
                    "`normalized_anchor` and `normalized_shape`."),
            Arg("normalized_anchor", T.BOOL, False, doc="The anchor is a fraction of the extent."),
            Arg("normalized_shape", T.BOOL, False, doc="The shape is a fraction of the extent."),
            Arg("centered_anchor", T.BOOL, False,
                doc="The anchor is the centre of the region instead of its first corner."),
        ])

    def setup(self):
        self._memo = _operator.LastPlan()  # the last batch's, when arguments are constant
        given = self.spec.given
        if "normalized" in given and given & {"normalized_anchor", "normalized_shape"}:
            raise self.error("`normalized` argument is incompatible with providing a separate "
                             "value for `normalized_anchor` and `normalized_shape`",
                             RuntimeError)
        if "normalized" in given:
            self._normalized = (self.args["normalized"],) * 2
        else:
            self._normalized = (self.args["normalized_anchor"], self.args["normalized_shape"])

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = tensors.storage_of(tl)
        dtype, ndim, layout = np.dtype(storage.dtype), storage.ndim, tl.layout() or ""
        if dtype == np.bool_:
            raise self.error("Unsupported data type: bool", RuntimeError)
        if ndim == 0:
            raise self.error("Unsupported number of dimensions 0", RuntimeError)
        key = None
        if not self.spec.arg_inputs:
            # constant arguments: the plan depends only on the input shapes and type
            key = _operator.shapes_key(storage.shapes, layout, dtype)
            if (kept := self._memo.get(key)) is not None:
                return kept
        plan = self._plan(ws, storage, dtype, ndim, layout)
        return self._memo.keep(key, plan)

    def _plan(self, ws, storage, dtype, ndim, layout):
        in_shape = np.asarray(storage.shapes, np.int64).reshape(-1, ndim)
        n = len(in_shape)
        if ws.arg_given("axis_names"):
            axes = _slice_window.named_axes(ws, 0, self.args["axis_names"], layout)
        elif ws.arg_given("axes"):
            axes = _slice_window.axis_indices(ws, 0, self.args["axes"], ndim)
        else:       # DALI's default: every dimension but the channels, in layout order
            axes = np.array([d for d in range(ndim) if layout[d:d + 1] != "C"], np.int64)
        boxes, starts = self._boxes(ws, in_shape, axes)
        channel = layout.find("C")
        fills = [np.asarray(v, np.float32).reshape(-1) for v in ws.arg("fill_value")]
        k = max(f.size for f in fills) if fills else 1
        if k > 1 and channel < 0:
            raise self.error("Multi-channel fill_values was provided but channel dimension "
                             "could not be found in layout", RuntimeError)
        fill = np.empty((n, k), dtype)
        for i, f in enumerate(fills):
            if f.size != 1 and f.size != in_shape[i, channel]:
                raise ws.sample_error(i, "Multi-channel fill value does not match the number "
                                         f"of channels in the input: {f.size} values for "
                                         f"{in_shape[i, channel]} channels.", RuntimeError)
            fill[i] = _c_cast.c_cast(f, dtype)
        for a in (in_shape, boxes, fill):
            a.flags.writeable = False
        return _operator.Plan([_operator.OutputDesc(in_shape, dtype, layout)], boxes=boxes,
                              starts=starts, fill=fill, channel=channel if k > 1 else -1)

    def _boxes(self, ws, in_shape, axes):
        """(m, 2, ndim) boxes and their per-sample starts (n + 1,)."""
        naxes = len(axes)
        anchors = [np.asarray(v, np.float32).reshape(-1) for v in ws.arg("anchor")]
        sizes = [np.asarray(v, np.float32).reshape(-1) for v in ws.arg("shape")]
        counts = np.empty(len(in_shape), np.int64)
        for i, (a, s) in enumerate(zip(anchors, sizes, strict=True)):
            if a.size and a.size != s.size:
                raise ws.sample_error(i, "`anchor` and `shape` must have the same number of "
                                         f"values, got {a.size} and {s.size}", RuntimeError)
            total = s.size
            if total % naxes:
                raise ws.sample_error(i, f"`anchor` and `shape` must hold {naxes} values (one "
                                         f"per erased axis) per region, got {total}",
                                      RuntimeError)
            counts[i] = total // naxes
        owner = np.repeat(np.arange(len(in_shape)), counts)
        extent = in_shape[owner][:, axes].astype(np.float32)
        anchor = self._values(anchors, counts, naxes, extent, self._normalized[0])
        size = self._values(sizes, counts, naxes, extent, self._normalized[1])
        if self.args["centered_anchor"]:
            anchor = anchor - size * np.float32(0.5)
        boxes = np.zeros((len(owner), 2, in_shape.shape[1]), np.int64)
        boxes[:, 1] = in_shape[owner]
        boxes[:, 0, axes] = np.floor(anchor)
        boxes[:, 1, axes] = np.floor(anchor + size)
        return boxes, np.concatenate([[0], np.cumsum(counts)])

    @staticmethod
    def _values(values, counts, naxes, extent, normalized):
        """The per-sample `values` as (m, naxes) float32 rows (times `extent` if
        `normalized`); zeros for a sample without any."""
        rows = [v.reshape(-1, naxes) if v.size else np.zeros((c, naxes), np.float32)
                for v, c in zip(values, counts, strict=True)]
        v = np.concatenate(rows) if rows else np.zeros((0, naxes), np.float32)
        return v * extent if normalized else v

    def run_cpu(self, ws, plan):
        _kernel.erase_batch(ws.thread_pool, ws.input_storage(0).contiguous(), ws.outputs[0],
                            plan.boxes, plan.starts, plan.fill, plan.channel)

    def run_gpu(self, ws, plan):
        """One launch of `erase.cu`: the plan's boxes and fill values."""
        src, out = ws.input_storage(0), ws.outputs[0]
        launch = _erase_gpu.for_erase(ws, plan, src.offsets, out.offsets)
        ws.gpu.launch(_erase_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (src, out, launch.samples, launch.boxes, launch.fill))
