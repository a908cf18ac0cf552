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

LAYOUTS = ("FDHWC", "FHWC", "DHWC", "HWC", "FCDHW", "FCHW", "CDHW", "CHW")
_BY_NDIM = {3: "HWC", 4: "FHWC", 5: "FDHWC"}
_AXES = (("horizontal", "W"), ("vertical", "H"), ("depthwise", "D"))


@_registry.register
class Flip(_operator.Operator):
    schema = Schema(
        "flip", inputs=1, outputs=1, devices=("cpu",),
        doc="Flips the data along the selected axes: `horizontal` (W), `vertical` (H) and "
            "`depthwise` (D), per sample.",
        args=[Arg("horizontal", T.INT32, 1, tensor=True, doc="Flip horizontally (along W)."),
              Arg("vertical", T.INT32, 0, tensor=True, doc="Flip vertically (along H)."),
              Arg("depthwise", T.INT32, 0, tensor=True, doc="Flip depthwise (along D).")])

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = tensors.storage_of(tl)
        dtype = storage.dtype
        if dtype == np.bool_ or dtype == np.float16:
            raise self.error(f"The element type {dtype} is not supported.", TypeError)
        layout = _layouts.input_layout(self, tl, LAYOUTS, _BY_NDIM)
        return _operator.Plan([_operator.OutputDesc(storage.shapes, dtype, layout)], layout=layout)

    def run_cpu(self, ws, plan):
        flags = np.zeros((ws.batch_size, len(plan.layout)), dtype=np.uint8)
        for name, axis in _AXES:
            d = plan.layout.find(axis)
            if d >= 0:
                flags[:, d] = ws.arg_array(name, np.int32) != 0
        _kernel.flip_batch(ws.thread_pool, ws.input_storage(0).contiguous(), ws.outputs[0],
                           flags)
