"""fn.coord_flip: reflects point coordinates (float32, shape (N, D), D <= 3) about a center.

A coordinate `v` of a flipped axis becomes `2 * center - v` (float32, `2 * center` rounded
first, as DALI computes it).  The column of each axis comes from `layout` (letters "x", "y",
"z"; by default "x", "xy" or "xyz" by the number of columns); a layout longer than the number
of columns is accepted and only its leading letters are used, as in DALI.  Flags and centers
may be given per sample.  The output keeps the input's layout.

The points of all samples lie back to back in the batch's storage, so the whole batch is one
(points, D) array: constant flags and centres flip whole columns, per-sample ones are
expanded to one value per point (`np.repeat` by the samples' point counts).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.geometry import _coords_gpu

_F32 = np.float32
_AXES = "xyz"


@_registry.register
class CoordFlip(_operator.Operator):
    schema = Schema(
        "coord_flip", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Transforms vectors or points by flipping (reflecting) their coordinates with "
            "respect to a given center: `v -> 2 * center - v` on the flipped axes. The input "
            "is a float32 tensor of shape (N, D), D <= 3, with coordinates in the order given "
            "by `layout`.",
        args=[
            Arg("flip_x", T.INT32, 1, tensor=True, doc="Flip the horizontal (x) coordinate."),
            Arg("flip_y", T.INT32, 0, tensor=True, doc="Flip the vertical (y) coordinate."),
            Arg("flip_z", T.INT32, 0, tensor=True, doc="Flip the depthwise (z) coordinate."),
            Arg("center_x", T.FLOAT, 0.5, tensor=True, doc="Flip center on the x axis."),
            Arg("center_y", T.FLOAT, 0.5, tensor=True, doc="Flip center on the y axis."),
            Arg("center_z", T.FLOAT, 0.5, tensor=True, doc="Flip center on the z axis."),
            Arg("layout", T.TENSOR_LAYOUT, "",
                doc='Order of the coordinates: letters "x", "y", "z". Empty: "x", "xy" or '
                    '"xyz" by the number of columns.'),
        ])

    def infer(self, ws):
        tl = ws.inputs[0]
        if tl.dtype != T.FLOAT:
            raise self.error("Input is expected to be float", RuntimeError)
        if tl.ndim() != 2:
            raise self.error(f"the input must be 2-dimensional (points x coordinates), got "
                             f"{tl.ndim()} dimensions", RuntimeError)
        shapes = ws.input_storage(0).shapes
        dims = np.unique(shapes[shapes[:, 0] > 0, 1])
        if len(dims) > 1:
            raise self.error(f"all samples must have the same number of coordinates, got "
                             f"{dims.tolist()}", RuntimeError)
        ndim = int(dims[0]) if len(dims) else (int(shapes[0, 1]) if len(shapes) else 0)
        if ndim > 3:
            raise self.error(f"Unexpected number of dimensions {ndim}", RuntimeError)
        layout = self.args["layout"] or _AXES[:ndim]
        columns = {}
        for axis in _AXES[:ndim]:
            if axis not in layout:
                raise self.error(f'Dimension "{axis}" not found in the layout', RuntimeError)
            columns[axis] = layout.index(axis)
            if columns[axis] >= ndim:
                raise self.error(f'Dimension "{axis}" is at position {columns[axis]} of '
                                 f'the layout "{layout}" but the input has {ndim} coordinates',
                                 RuntimeError)
        return _operator.Plan([_operator.OutputDesc(shapes, np.dtype(_F32), tl.layout(), 2)],
                              columns=columns, ndim=ndim)

    def run_cpu(self, ws, plan):
        storage = ws.input_storage(0).contiguous()
        counts = storage.shapes[:, 0]
        if plan.ndim == 0 or not counts.any():
            return
        src = storage.flat().reshape(-1, plan.ndim)
        dst = ws.outputs[0].flat().reshape(-1, plan.ndim)
        dst[...] = src
        for axis, col in plan.columns.items():
            flip = ws.arg_array(f"flip_{axis}", np.int32) != 0
            twice = _F32(2) * ws.arg_array(f"center_{axis}", _F32)
            if not flip.any():
                continue
            if flip.all() and (twice == twice[0]).all():
                np.subtract(twice[0], src[:, col], out=dst[:, col])
                continue
            np.subtract(np.repeat(twice, counts), src[:, col], out=dst[:, col],
                        where=np.repeat(flip, counts))

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        axes = plan.columns
        launch = _coords_gpu.coord_flip(
            src.shapes[:, 0], plan.ndim, axes,
            {a: ws.arg_array(f"flip_{a}", np.int32) for a in axes},
            {a: ws.arg_array(f"center_{a}", _F32) for a in axes}, src.offsets, out.offsets)
        if launch is not None:
            ws.gpu.launch(_coords_gpu.__file__, launch.kernel, launch.grid, launch.block,
                          (src, out, launch.parts, launch.table, launch.cols))
