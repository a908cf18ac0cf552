"""fn.get_property: per-sample metadata as data (`DataNode.source_info()`, `.property(key)`).

Keys: "source_info" (where the sample came from, e.g. its file; empty when unknown) and
"layout" (the batch's layout).  Each sample of the output is the UTF-8 text as a 1-D uint8
tensor.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._graph import data_node
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T

KEYS = ("source_info", "layout")


@data_node.implements("property")
def get_property(node, key, device="cpu"):
    """`node.property(key, device=...)`."""
    return _operator.call(GetProperty, [node], {"key": key, "device": device})


@_registry.register
class GetProperty(_operator.Operator):
    schema = Schema(
        "get_property", inputs=1, outputs=1, devices=("cpu",),
        doc="Returns a property of each input sample as a 1-D uint8 tensor holding UTF-8 "
            'text: "source_info" (the origin of the sample, e.g. the file it was read from) '
            'or "layout" (the data layout).',
        args=[Arg("key", T.STRING, REQUIRED,
                  doc='The property: "source_info" or "layout".')])

    def setup(self):
        if self.args["key"] not in KEYS:
            raise RuntimeError(f"{self.spec.display_name}: Unsupported property key: "
                               f"{self.args['key']} (supported: {', '.join(KEYS)})")

    def infer(self, ws):
        if self.args["key"] == "layout":
            text = [ws.inputs[0].layout()] * ws.batch_size
        else:
            text = [ws.source_info(i) for i in range(ws.batch_size)]
        self.values = [np.frombuffer(t.encode(), dtype=np.uint8) for t in text]
        return _operator.Plan(
            [_operator.OutputDesc([v.shape for v in self.values], np.dtype(np.uint8), "", 1)])

    def run_cpu(self, ws, plan):
        for dst, v in zip(ws.output_samples(0), self.values, strict=True):
            dst[...] = v
