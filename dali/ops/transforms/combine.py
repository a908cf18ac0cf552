"""fn.transforms.combine: the composition of two or more affine transforms.

Combining `[T1, T2, T3]` gives `T3 @ T2 @ T1` (T1 applied first), or `T1 @ T2 @ T3` with
`reverse_order`.  All inputs must describe transforms of the same number of dimensions;
sequences of transforms combine frame by frame (see `dali.ops.transforms._matrix`).
"""

from __future__ import annotations

from dali import _registry
from dali.ops.transforms import _matrix


@_registry.register
class Combine(_matrix.Transform):
    schema = _matrix.schema(
        "transforms.combine", inputs=(2, 99), input_names=("input_0", "input_1"),
        doc="Combines two or more affine transforms: applying the result to a point is "
            "applying the input transforms in the order listed (`T3(T2(T1(x)))` for `[T1, T2, "
            "T3]`), or in the reverse order with `reverse_order`.",
        args=[])

    def transform_ndim(self, ws, in_ndim):
        return in_ndim

    def run_cpu(self, ws, plan):
        n = plan.ndim
        mats = [_matrix.homogeneous(_matrix.input_parts(ws, k, plan), n)
                for k in range(len(ws.inputs))]
        m = mats[0]
        for t in mats[1:]:
            m = m @ t if self.args["reverse_order"] else t @ m
        _matrix.store(ws, plan, m)
