"""fn.transpose: permute the dimensions of every sample.

`perm[i]` is the input dimension that becomes output dimension i (default: reversed).  The
layout is permuted the same way unless `transpose_layout=False`; `output_layout` overrides it.
The batch is one call of the `transpose` kernel (`_ext/kernels/transpose.h`): samples of any
shapes, cut into pieces for the thread pool.
"""

from __future__ import annotations

from dali import _operator, _registry
from dali._ext.kernels import transpose as transpose_kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.geometry import _slice_gpu


@_registry.register
class Transpose(_operator.Operator):
    schema = Schema(
        "transpose", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Transposes the samples: output dimension i is input dimension `perm[i]`.",
        args=[Arg("perm", T._INT32_VEC, None,
                  doc="Permutation of the input dimensions; by default they are reversed."),
              Arg("transpose_layout", T.BOOL, True,
                  doc="Permute the layout names as well (otherwise the layout is kept)."),
              Arg("output_layout", T.TENSOR_LAYOUT, None,
                  doc="Explicit output layout; overrides `transpose_layout`.")])

    def setup(self):
        perm = self.args["perm"]
        if perm is not None and sorted(perm) != list(range(len(perm))):
            raise self.error(f"Invalid permutation {list(perm)}: sorted `perm` is not equal to "
                             "[0, ..., n-1].", RuntimeError)

    def infer(self, ws):
        tl = ws.inputs[0]
        ndim = tl.ndim()
        perm = self.args["perm"]
        perm = list(range(ndim))[::-1] if perm is None else list(perm)
        if len(perm) != ndim:
            raise self.error(f"Input has different dimensionality ({ndim}) than the length of "
                             f"the permutation ({len(perm)}).")
        layout = tl.layout()
        if ws.arg_given("output_layout"):
            layout = self.args["output_layout"]
            if len(layout) != ndim:
                raise self.error(f'`output_layout` "{layout}" has {len(layout)} dimensions but '
                                 f"the input has {ndim}.")
        elif layout and self.args["transpose_layout"]:
            layout = "".join(layout[p] for p in perm)
        storage = ws.input_storage(0)
        uniform = storage.uniform_shape
        if uniform is not None:
            shapes = [tuple(uniform[p] for p in perm)] * storage.num_samples
        else:
            shapes = storage.shapes[:, perm]
        return _operator.Plan([_operator.OutputDesc(shapes, ws.input_dtype(0), layout, ndim)],
                              perm=perm)

    def run_cpu(self, ws, plan):
        transpose_kernel.transpose_batch(ws.thread_pool, ws.input_storage(0), ws.outputs[0],
                                         plan.perm)

    def run_gpu(self, ws, plan):
        """One launch of `slice.cu` reading the input through the permutation."""
        launch = _slice_gpu.for_transpose(ws, plan, ws.input_storage(0).offsets,
                                          ws.outputs[0].offsets)
        _slice_gpu.run(ws, launch)
