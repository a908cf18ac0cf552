"""fn.transforms.rotation: a rotation by `angle` degrees about `center`.

2-D without `axis` (counter-clockwise in a y-up frame: `[[cos, -sin], [sin, cos]]`), 3-D about
`axis` (normalized here; Rodrigues' formula).  See `dali.ops.transforms._matrix` for composition
and sequences.
"""

from __future__ import annotations

import numpy as np

from dali import _registry
from dali._schema import REQUIRED, Arg
from dali._types import DALIDataType as T
from dali.ops.transforms import _matrix


@_registry.register
class Rotation(_matrix.Transform):
    schema = _matrix.schema(
        "transforms.rotation",
        doc="Produces a rotation affine transform matrix. If another transform matrix is passed "
            "as an input, the rotation is applied to it. The transform is 3-D when `axis` is "
            "given, 2-D otherwise.",
        args=[
            Arg("angle", T.FLOAT, REQUIRED, tensor=True,
                doc="Angle, in degrees. May be given per frame."),
            Arg("axis", T._FLOAT_VEC, None, tensor=True,
                doc="Axis of rotation of a 3-D transform (3 values, any non-zero length; "
                    "reversing it reverses the rotation). May be given per frame."),
            Arg("center", T._FLOAT_VEC, None, tensor=True,
                doc="The center of the rotation, one value per dimension (default: the "
                    "origin). May be given per frame."),
        ])
    frame_args = ("angle", "axis", "center")

    def transform_ndim(self, ws, in_ndim):
        return 3 if ws.arg_given("axis") else 2

    def matrices(self, ws, plan):
        rad = _matrix.radians(self.values(ws, "angle", plan, 1)[:, 0])
        cos, sin = np.cos(rad), np.sin(rad)
        if plan.ndim == 2:
            a = np.empty((plan.parts, 2, 2))
            a[:, 0, 0], a[:, 0, 1], a[:, 1, 0], a[:, 1, 1] = cos, -sin, sin, cos
            return self.around_center(ws, plan, a)
        u = self.values(ws, "axis", plan, 3, repeat=False)
        with np.errstate(invalid="ignore", divide="ignore"):
            u = u / np.linalg.norm(u, axis=1, keepdims=True)     # a zero axis gives NaNs
        cross = np.zeros((plan.parts, 3, 3))
        cross[:, 0, 1], cross[:, 0, 2] = -u[:, 2], u[:, 1]
        cross[:, 1, 0], cross[:, 1, 2] = u[:, 2], -u[:, 0]
        cross[:, 2, 0], cross[:, 2, 1] = -u[:, 1], u[:, 0]
        a = (cos[:, None, None] * np.eye(3) + sin[:, None, None] * cross
             + (1 - cos)[:, None, None] * np.einsum("pi,pj->pij", u, u))
        return self.around_center(ws, plan, a)
