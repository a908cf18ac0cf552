"""fn.warp_affine: an affine transform of images given by a 2x3 matrix.

The matrix comes from the second positional input (a 2x3 float tensor per sample, which wins
over the argument as in DALI), or from `matrix` (6 constants, or a per-sample argument input of
2x3 or 6 values).  With `inverse_map` (default) it maps output to input positions; otherwise it
maps input to output and is inverted per sample.  The pixel-centre convention, border and
rounding rules are described in `dali.ops.geometry._warp`.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.geometry import _warp


@_registry.register
class WarpAffine(_warp.Warp):
    schema = Schema(
        "warp_affine", inputs=(1, 2), outputs=1, devices=("cpu",), input_names=["data", "mtx"],
        doc="Applies an affine transformation to images.\n\n"
            "Output pixel `(x, y)` takes its value from the input at "
            "`M @ (x + 0.5, y + 0.5, 1) - 0.5` (pixel-centre convention), where `M` is the 2x3 "
            "`matrix` (or the optional second input), mapping output to input positions unless "
            "`inverse_map=False`. Positions outside the input take `fill_value`, or the nearest "
            "edge pixel when it is not given.",
        args=[
            Arg("matrix", T._FLOAT_VEC, [], tensor=True,
                doc="The transform `(M11, M12, M13, M21, M22, M23)`, or a 2x3 tensor per sample. "
                    "Ignored when the matrix is given as the second input."),
            Arg("inverse_map", T.BOOL, True,
                doc="True: the matrix maps output to input positions; False: input to output "
                    "(it is inverted before use)."),
            *_warp.common_args(),
        ])

    def infer(self, ws):
        tl = ws.inputs[0]
        dtype, sized = self.check_input(ws)
        shapes = []
        for i, shape in enumerate(tl.shape()):
            if sized:
                spatial = _warp.size_of(ws, i, ws.arg("size")[i])
            else:
                h = self.layout.index("H")
                spatial = tuple(shape[h:h + 2])
            shapes.append(_warp.out_shape(shape, self.layout, spatial))
        return _operator.Plan([_operator.OutputDesc(shapes, dtype, self.layout)])

    def matrices(self, ws):
        if len(ws.inputs) > 1:
            mats = ws.input_samples(1)
            name = "the matrix input"
        elif ws.arg_given("matrix"):
            mats = ws.arg("matrix")
            name = "`matrix`"
        else:
            raise self.error("`matrix` argument must be provided when transforms are not "
                             "passed as a regular input.", RuntimeError)
        out = []
        for i, m in enumerate(mats):
            m = np.asarray(m)
            if m.size != 6 or m.ndim > 2 or (m.ndim == 2 and m.shape != (2, 3)):
                raise ws.sample_error(
                    i, f"{name} must have 6 elements (a 2x3 matrix), got shape {m.shape}.")
            if m.dtype.kind not in "fiu":
                raise ws.sample_error(i, f"{name} must be numeric, got {m.dtype}.", TypeError)
            m = m.astype(np.float32).reshape(2, 3)
            if not self.args["inverse_map"]:
                m = _invert(ws, i, m)
            out.append(m)
        return out


def _invert(ws, i, m):
    full = np.vstack([m.astype(np.float64), [0.0, 0.0, 1.0]])
    if abs(np.linalg.det(full)) < 1e-12:
        raise ws.sample_error(i, "Cannot calculate the inverse of a singular matrix.")
    return np.linalg.inv(full)[:2].astype(np.float32)
