"""fn.flip: mirror images, volumes and sequences along W (horizontal), H (vertical) and/or D
(depthwise), with per-sample flags (any non-zero value flips).

The layout names the axes; an input without one is HWC, FHWC or FDHWC by its number of
dimensions, as in DALI.  Flags for axes the layout does not have are ignored.  The copy is the
nogil batch kernel `dali._ext.kernels.flip`, given one row of per-axis flags per sample.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, tensors
from dali._ext.kernels import flip as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _layouts
from dali.ops.geometry import _flip_gpu

LAYOUTS = ("FDHWC", "FHWC", "DHWC", "HWC", "FCDHW", "FCHW", "CDHW", "CHW")
_BY_NDIM = {3: "HWC", 4: "FHWC", 5: "FDHWC"}


@_registry.register
class Flip(_operator.Operator):
    schema = Schema(
        "flip", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Flips the data along the selected axes: `horizontal` (W), `vertical` (H) and "
            "`depthwise` (D), per sample.",
        args=[Arg("horizontal", T.INT32, 1, tensor=True, doc="Flip horizontally (along W)."),
              Arg("vertical", T.INT32, 0, tensor=True, doc="Flip vertically (along H)."),
              Arg("depthwise", T.INT32, 0, tensor=True, doc="Flip depthwise (along D).")])

    def setup(self):
        self._memo = None       # ((layout, batch size), flags) when no flag is an argument input

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = tensors.storage_of(tl)
        dtype = storage.dtype
        if dtype == np.bool_ or dtype == np.float16:
            raise self.error(f"The element type {dtype} is not supported.", TypeError)
        layout = _layouts.input_layout(self, tl, LAYOUTS, _BY_NDIM)
        return _operator.Plan([_operator.OutputDesc(storage.shapes, dtype, layout)], layout=layout)

    def _flags(self, ws, plan):
        """(n, ndim) uint8, read-only: which axes each sample flips (kept for the next batch
        when the flags are constants)."""
        key = (plan.layout, ws.batch_size)
        memo = self._memo
        if memo is not None and memo[0] == key and not ws.arg_inputs:
            return memo[1]
        flags = _flip_gpu.axis_flags(plan.layout, *(ws.arg_array(name, np.int32)
                                                    for name in ("horizontal", "vertical",
                                                                 "depthwise")))
        flags.setflags(write=False)
        if not ws.arg_inputs:
            self._memo = (key, flags)
        return flags

    def run_cpu(self, ws, plan):
        _kernel.flip_batch(ws.thread_pool, ws.input_storage(0), ws.outputs[0],
                           self._flags(ws, plan))

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        flags = self._flags(ws, plan)
        launch = _flip_gpu.launch(src.shapes, flags, src.dtype.itemsize, src.offsets,
                                  out.offsets)
        ws.gpu.launch(_flip_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (src, out, launch.samples))
