"""fn.coord_flip: reflects point coordinates (float32, shape (N, D), D <= 3) about a center.

A coordinate `v` of a flipped axis becomes `2 * center - v` (float32, `2 * center` rounded
first, as DALI computes it).  The column of each axis comes from `layout` (letters "x", "y",
"z"; by default "x", "xy" or "xyz" by the number of columns); a layout longer than the number
of columns is accepted and only its leading letters are used, as in DALI.  Flags and centers
may be given per sample.  The output keeps the input's layout.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T

_F32 = np.float32
_AXES = "xyz"


@_registry.register
class CoordFlip(_operator.Operator):
    schema = Schema(
        "coord_flip", inputs=1, outputs=1, devices=("cpu",),
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
        shapes = [tuple(s) for s in tl.shape()]
        dims = {s[1] for s in shapes if s[0] > 0}
        if len(dims) > 1:
            raise self.error(f"all samples must have the same number of coordinates, got "
                             f"{sorted(dims)}", RuntimeError)
        ndim = dims.pop() if dims else (shapes[0][1] if shapes else 0)
        if ndim > 3:
            raise self.error(f"Unexpected number of dimensions {ndim}", RuntimeError)
        layout = self.args["layout"] or _AXES[:ndim]
        self.columns = {}
        for axis in _AXES[:ndim]:
            if axis not in layout:
                raise self.error(f'Dimension "{axis}" not found in the layout', RuntimeError)
            self.columns[axis] = layout.index(axis)
            if self.columns[axis] >= ndim:
                raise self.error(f'Dimension "{axis}" is at position {self.columns[axis]} of '
                                 f'the layout "{layout}" but the input has {ndim} coordinates',
                                 RuntimeError)
        return _operator.Plan([_operator.OutputDesc(shapes, np.dtype(_F32), tl.layout(), 2)])

    def run_cpu(self, ws, plan):
        for i, (src, dst) in enumerate(zip(ws.input_samples(0), ws.output_samples(0),
                                           strict=True)):
            dst[...] = src
            for axis, col in self.columns.items():
                if ws.arg(f"flip_{axis}")[i]:
                    twice = _F32(2) * _F32(ws.arg(f"center_{axis}")[i])
                    np.subtract(twice, src[:, col], out=dst[:, col])
