"""fn.transforms.translation: the affine transform `x -> x + offset`.

The number of dimensions is the length of `offset` (1..6).  See `dali.ops.transforms._matrix`
for composition with an input transform and for sequences.
"""

from __future__ import annotations

import numpy as np

from dali import _registry
from dali._schema import REQUIRED, Arg
from dali._types import DALIDataType as T
from dali.ops.transforms import _matrix


@_registry.register
class Translation(_matrix.Transform):
    schema = _matrix.schema(
        "transforms.translation",
        doc="Produces a translation affine transform matrix. If another transform matrix is "
            "passed as an input, the translation is applied to it.",
        args=[Arg("offset", T._FLOAT_VEC, REQUIRED, tensor=True,
                  doc="The translation vector; its length is the number of dimensions of the "
                      "transform. May be given per frame (`fn.per_frame`).")])
    frame_args = ("offset",)

    def transform_ndim(self, ws, in_ndim):
        return self.arg_size(ws, "offset")

    def matrices(self, ws, plan):
        n = plan.ndim
        offset = self.values(ws, "offset", plan, n)
        return _matrix.linear(np.eye(n)[None], offset)
