"""fn.flip: mirror images, volumes and sequences along W (horizontal), H (vertical) and/or D
(depthwise), with per-sample flags (any non-zero value flips).

The layout names the axes; an input without one is HWC, FHWC or FDHWC by its number of
dimensions, as in DALI.  Flags for axes the layout does not have are ignored.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, tensors
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
        dtype = tensors.storage_of(tl).dtype
        if dtype == np.bool_ or dtype == np.float16:
            raise self.error(f"The element type {dtype} is not supported.", TypeError)
        self.layout = _layouts.input_layout(self, tl, LAYOUTS, _BY_NDIM)
        return _operator.Plan([_operator.OutputDesc(tl.shape(), dtype, self.layout)])

    def run_cpu(self, ws, plan):
        flags = [(ws.arg(name), self.layout.find(axis)) for name, axis in _AXES]
        for i, (src, dst) in enumerate(zip(ws.input_samples(0), ws.output_samples(0),
                                           strict=True)):
            dst[...] = flipped(src, [d for values, d in flags if d >= 0 and values[i]])


def flipped(x, axes):
    """A view of `x` reversed along `axes`."""
    index = [slice(None)] * x.ndim
    for d in axes:
        index[d] = slice(None, None, -1)
    return x[tuple(index)]
