"""fn.transforms.combine: the composition of two or more affine transforms.

Combining `[T1, T2, T3]` gives `T3 @ T2 @ T1` (T1 applied first), or `T1 @ T2 @ T3` with
`reverse_order`.  All inputs must describe transforms of the same number of dimensions;
sequences of transforms combine frame by frame (see `dali.ops.transforms._matrix`).
"""

from __future__ import annotations

from dali import _registry
from dali._ext.kernels import transforms as _kernel
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

    def constant_matrices(self, ws, plan):
        return None             # no matrix of its own: the product of the inputs only

    def run_cpu(self, ws, plan):
        factors = [_matrix.input_factor(ws, k, plan) for k in range(len(ws.inputs))]
        _kernel.compose_batch(ws.outputs[0], factors, plan.ndim, self.args["reverse_order"])
