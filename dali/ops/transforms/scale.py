"""fn.transforms.scale: the affine transform `x -> scale * (x - center) + center`.

The number of dimensions is the length of `scale` when it has more than one value; a single
value is used on every axis of the input transform's dimensions, else of `ndim`, else of 1-D.
`center` must have one value per dimension.  See `dali.ops.transforms._matrix` for composition
and sequences.
"""

from __future__ import annotations

from dali import _registry
from dali._schema import REQUIRED, Arg
from dali._types import DALIDataType as T
from dali.ops.transforms import _matrix


@_registry.register
class Scale(_matrix.Transform):
    schema = _matrix.schema(
        "transforms.scale",
        doc="Produces a scale affine transform matrix. If another transform matrix is passed as "
            "an input, the scaling is applied to it.",
        args=[
            Arg("scale", T._FLOAT_VEC, REQUIRED, tensor=True,
                doc="The scale factor, per dimension; its length is the number of dimensions "
                    "of the transform unless it is a single value. May be given per frame."),
            Arg("center", T._FLOAT_VEC, None, tensor=True,
                doc="The center of the scaling, one value per dimension (default: the origin). "
                    "May be given per frame."),
            Arg("ndim", T.INT32, None,
                doc="Number of dimensions, for a single `scale` value without an input "
                    "transform (default 1)."),
        ])
    frame_args = ("scale", "center")

    def transform_ndim(self, ws, in_ndim):
        k = self.arg_size(ws, "scale")
        if k > 1 or (k == 1 and in_ndim is None and self.args["ndim"] is None):
            return k
        return in_ndim if in_ndim is not None else self.args["ndim"]

    def matrices(self, ws, plan):
        a = _matrix.diagonal(self.values(ws, "scale", plan, plan.ndim))
        return self.around_center(ws, plan, a)
