"""fn.transforms.shear: a shear mapping about `center`, from factors or angles.

2-D: `shear = (s_x, s_y)` gives `[[1, s_x], [s_y, 1]]`; 3-D: `(s_xy, s_xz, s_yx, s_yz, s_zx,
s_zy)` gives `[[1, s_xy, s_xz], [s_yx, 1, s_yz], [s_zx, s_zy, 1]]`.  `angles` (degrees) give
the factors `tan(angle)`.  See `dali.ops.transforms._matrix` for composition and sequences.
"""

from __future__ import annotations

import numpy as np

from dali import _registry
from dali._schema import Arg
from dali._types import DALIDataType as T
from dali.ops.transforms import _matrix

_NDIM = {2: 2, 6: 3}
_OFF_DIAGONAL = {n: np.flatnonzero(~np.eye(n, dtype=bool)) for n in _NDIM.values()}


@_registry.register
class Shear(_matrix.Transform):
    schema = _matrix.schema(
        "transforms.shear",
        doc="Produces a shear affine transform matrix. If another transform matrix is passed "
            "as an input, the shear mapping is applied to it.",
        args=[
            Arg("shear", T._FLOAT_VEC, None, tensor=True,
                doc="The shear factors: `(shear_x, shear_y)` in 2-D, `(shear_xy, shear_xz, "
                    "shear_yx, shear_yz, shear_zx, shear_zy)` in 3-D; a factor is the offset "
                    "added along the first axis per unit along the second. Exclusive with "
                    "`angles`. May be given per frame."),
            Arg("angles", T._FLOAT_VEC, None, tensor=True,
                doc="The shear angles in degrees (in (-90, 90)), in the order of `shear`; the "
                    "factor is `tan(angle)`. Exclusive with `shear`. May be given per frame."),
            Arg("center", T._FLOAT_VEC, None, tensor=True,
                doc="The center of the shear, one value per dimension (default: the origin). "
                    "May be given per frame."),
        ])
    frame_args = ("shear", "angles", "center")

    def setup(self):
        super().setup()
        if ("shear" in self.spec.given) == ("angles" in self.spec.given):
            raise self.error("One and only one of the following arguments is expected: "
                             "``shear`` or ``angles``", RuntimeError)

    @property
    def _source(self):
        return "shear" if "shear" in self.spec.given else "angles"

    def transform_ndim(self, ws, in_ndim):
        k = self.arg_size(ws, self._source)
        if k not in _NDIM:
            raise self.error("Shear matrix must have D*(D-1) elements where D is the number "
                             f"of dimensions (2 or 6 values). Got {k} elements.", RuntimeError)
        return _NDIM[k]

    def matrices(self, ws, plan):
        n = plan.ndim
        factors = self.values(ws, self._source, plan, n * (n - 1), repeat=False)
        if self._source == "angles":
            factors = np.tan(_matrix.radians(factors))
        a = np.repeat(np.eye(n)[None], plan.parts, axis=0)
        a.reshape(plan.parts, n * n)[:, _OFF_DIAGONAL[n]] = factors
        return self.around_center(ws, plan, a)
