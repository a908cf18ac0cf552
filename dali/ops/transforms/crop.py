"""fn.transforms.crop: the affine transform mapping the box `[from_start, from_end]` onto
`[to_start, to_end]`, axis by axis.

Per axis `x -> to_start + (x - from_start) * (to_end - to_start) / (from_end - from_start)`
(an empty source range gives infinities, as in DALI).  The number of dimensions is the longest
of the four vectors; each has that many values or one (repeated).  With `absolute`, the start
and end of each range are swapped where the start is greater.  See
`dali.ops.transforms._matrix` for composition and sequences.
"""

from __future__ import annotations

import numpy as np

from dali import _registry
from dali._schema import Arg
from dali._types import DALIDataType as T
from dali.ops.transforms import _matrix

_BOUNDS = ("from_start", "from_end", "to_start", "to_end")


@_registry.register
class Crop(_matrix.Transform):
    schema = _matrix.schema(
        "transforms.crop",
        doc="Produces an affine transform matrix that maps a reference coordinate space to "
            "another one: `from_start` is mapped to `to_start` and `from_end` to `to_end`. Use "
            "it to adjust coordinates after a crop. If another transform matrix is passed as "
            "an input, the transform is applied to it.",
        args=[
            Arg("from_start", T._FLOAT_VEC, [0.0], tensor=True,
                doc="The lower bound of the original coordinate space (a single value is "
                    "repeated for every dimension). May be given per frame."),
            Arg("from_end", T._FLOAT_VEC, [1.0], tensor=True,
                doc="The upper bound of the original coordinate space (a single value is "
                    "repeated). May be given per frame."),
            Arg("to_start", T._FLOAT_VEC, [0.0], tensor=True,
                doc="The lower bound of the destination coordinate space (a single value is "
                    "repeated). May be given per frame."),
            Arg("to_end", T._FLOAT_VEC, [1.0], tensor=True,
                doc="The upper bound of the destination coordinate space (a single value is "
                    "repeated). May be given per frame."),
            Arg("absolute", T.BOOL, False,
                doc="Swap the start and end of a range where start > end."),
        ])
    frame_args = _BOUNDS

    def transform_ndim(self, ws, in_ndim):
        sizes = [self.arg_size(ws, name) for name in _BOUNDS]
        ndim = max(sizes)
        if any(k not in (1, ndim) for k in sizes):
            given = dict(zip(_BOUNDS, sizes, strict=True))
            raise self.error("Arguments ``from_start``, ``from_end``, ``to_start`` and "
                             "``to_end`` should have the same number of dimensions or be a "
                             f"single element, got {given}", RuntimeError)
        return ndim

    def matrices(self, ws, plan):
        n = plan.ndim
        fs, fe, ts, te = (self.values(ws, name, plan, n) for name in _BOUNDS)
        if self.args["absolute"]:
            fs, fe = np.minimum(fs, fe), np.maximum(fs, fe)
            ts, te = np.minimum(ts, te), np.maximum(ts, te)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = (te - ts) / (fe - fs)
        return _matrix.linear(_matrix.diagonal(scale), ts - fs * scale)
