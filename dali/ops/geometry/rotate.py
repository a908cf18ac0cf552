"""fn.rotate: rotate images by an angle in degrees (positive = counter-clockwise, like np.rot90).

The rotation is about the image centre, which maps to the output centre.  Without `size` or
`keep_size` the output is the bounding box of the rotated image as DALI computes it: each
extent is `ceil(extent - 0.01)` of the exact box (so 90 degrees gives exactly the swapped size
despite rounding), then grown by one where needed to have the parity of the input extent it
mostly comes from - the same one for angles nearer to 0/180 degrees, the other one nearer to
+-90 (45 degrees counts as 90, 135 as 180) - so that the centres of both grids coincide.

The 2x3 output->input matrix is computed in float32 (angle in radians as float32, then its
cosine and sine) like DALI, which makes positions on pixel boundaries at multiples of 45
degrees resolve to the same pixels.  Warping itself is `dali.ops.geometry._warp`.
"""

from __future__ import annotations

import math

import numpy as np

from dali import _operator, _registry
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
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
        tl = ws.inputs[0]
        dtype, sized = self.check_input(ws)
        h = self.layout.index("H")
        self.angles = ws.arg("angle")
        shapes = []
        for i, (shape, angle) in enumerate(zip(tl.shape(), self.angles, strict=True)):
            if not math.isfinite(angle):
                raise ws.sample_error(i, f"`angle` must be finite, got {angle}.")
            in_hw = tuple(shape[h:h + 2])
            if sized:
                spatial = _warp.size_of(ws, i, ws.arg("size")[i])
            elif self.args["keep_size"]:
                spatial = in_hw
            else:
                spatial = rotated_size(in_hw, angle)
            shapes.append(_warp.out_shape(shape, self.layout, spatial))
        self.shapes = shapes
        return _operator.Plan([_operator.OutputDesc(shapes, dtype, self.layout)])

    def matrices(self, ws):
        h = self.layout.index("H")
        samples = zip(ws.input_samples(0), ws.output_samples(0), self.angles, strict=True)
        return [rotation_matrix(angle, src.shape[h:h + 2], dst.shape[h:h + 2])
                for src, dst, angle in samples]


def rotated_size(in_hw, angle):
    """DALI's output (H, W) for an (h, w) image rotated by `angle` degrees."""
    h, w = in_hw
    rad = math.radians(angle)
    c, s = abs(math.cos(rad)), abs(math.sin(rad))
    out_h = math.ceil(w * s + h * c - 0.01)
    out_w = math.ceil(w * c + h * s - 0.01)
    quarter_turns = math.floor(abs(math.remainder(angle, 360.0)) / 90.0 + 0.5)
    ph, pw = (w, h) if quarter_turns % 2 else (h, w)
    return out_h + (out_h - ph) % 2, out_w + (out_w - pw) % 2


def rotation_matrix(angle, in_hw, out_hw):
    """2x3 float32 output->input matrix rotating by `angle` degrees about the centres."""
    t = _F(_F(angle) * _F(math.pi / 180))
    c, s = np.cos(t), np.sin(t)
    icx, icy = _F(in_hw[1] / 2), _F(in_hw[0] / 2)
    ocx, ocy = _F(out_hw[1] / 2), _F(out_hw[0] / 2)
    return np.array([[c, -s, icx - (c * ocx + -s * ocy)],
                     [s, c, icy - (s * ocx + c * ocy)]], dtype=_F)
