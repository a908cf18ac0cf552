"""fn.rotate: rotate images by an angle in degrees (positive = counter-clockwise, like np.rot90).

The rotation is about the image centre, which maps to the output centre.  Without `size` or
`keep_size` the output is the bounding box of the rotated image as DALI computes it: each
extent is `ceil(extent - 0.01)` of the exact box (so 90 degrees gives exactly the swapped size
despite rounding), then grown by one where needed to have the parity of the input extent it
mostly comes from - the same one for angles nearer to 0/180 degrees, the other one nearer to
+-90 (45 degrees counts as 90, 135 as 180) - so that the centres of both grids coincide.

The 2x3 output->input matrix is computed in float32 (angle in radians as float32, then its
cosine and sine) like DALI, which makes positions on pixel boundaries at multiples of 45
degrees resolve to the same pixels.  The cosine and sine are taken in float64 and rounded to
float32, i.e. correctly rounded like DALI's cosf/sinf: numpy's own float32 versions are SIMD
approximations that differ in the last bit for ~15% of angles, and by CPU.  Warping itself
is `dali.ops.geometry._warp`.
"""

from __future__ import annotations

import math

import numpy as np

from dali import _registry
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops._rotation import rotated_size, rotated_sizes  # noqa: F401  (rotated_size: tests)
from dali.ops.geometry import _warp

_F = np.float32


@_registry.register
class Rotate(_warp.Warp):
    schema = Schema(
        "rotate", inputs=1, outputs=1, devices=("cpu",),
        doc="Rotates images by `angle` degrees, counter-clockwise, about their centre.\n\n"
            "The output is just large enough to hold the whole rotated image unless `size` or "
            "`keep_size` says otherwise; uncovered pixels take `fill_value` (or repeat the "
            "input's edge when it is not given).",
        args=[
            Arg("angle", T.FLOAT, REQUIRED, tensor=True,
                doc="Rotation angle in degrees; positive is counter-clockwise."),
            Arg("axis", T._FLOAT_VEC, None, tensor=True,
                doc="Rotation axis of volumetric (DHWC) data (not supported yet); ignored for "
                    "2-D images."),
            Arg("keep_size", T.BOOL, False,
                doc="Keep the input's size (corners are cut off). Ignored when `size` is given."),
            *_warp.common_args(),
        ])

    def infer(self, ws):
        layout, dtype, out_hw = self.check_input(ws)
        if out_hw is None and not ws.is_arg_input("angle"):
            # a constant angle: sizes and matrices remembered for the last batch's shapes
            return self.memo_plan(ws, layout, dtype, lambda: self._geometry(ws, layout, None))
        out_hw, matrices = self._geometry(ws, layout, out_hw)
        return self.plan(ws, layout, dtype, out_hw, matrices)

    def _geometry(self, ws, layout, out_hw):
        """The (n, 2) output extents (`out_hw` unless None) and (n, 6) matrices."""
        angles = ws.arg_array("angle", np.float64)
        bad = np.flatnonzero(~np.isfinite(angles))
        if len(bad):
            raise ws.sample_error(int(bad[0]), f"`angle` must be finite, got {angles[bad[0]]}.")
        h = layout.index("H")
        in_hw = np.asarray(ws.input_storage(0).shapes)[:, h:h + 2]
        if out_hw is None:
            out_hw = in_hw if self.args["keep_size"] else rotated_sizes(in_hw, angles)
        return out_hw, rotation_matrices(angles, in_hw, out_hw)


def rotation_matrices(angles, in_hw, out_hw):
    """(n, 6) float32 output->input matrices rotating by `angles` degrees about the centres
    of (n, 2) input and output sizes; float32 arithmetic step by step, as DALI does (the
    cosine and sine rounded from float64, see the module docstring)."""
    t = (angles.astype(_F) * _F(math.pi / 180)).astype(np.float64)
    c, s = np.cos(t).astype(_F), np.sin(t).astype(_F)
    icx, icy = (in_hw[:, 1] / 2).astype(_F), (in_hw[:, 0] / 2).astype(_F)
    ocx, ocy = (out_hw[:, 1] / 2).astype(_F), (out_hw[:, 0] / 2).astype(_F)
    return np.column_stack([c, -s, icx - (c * ocx + -s * ocy),
                            s, c, icy - (s * ocx + c * ocy)]).astype(_F)
