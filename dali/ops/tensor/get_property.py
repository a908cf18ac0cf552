"""fn.get_property: per-sample metadata as data (`DataNode.source_info()`, `.property(key)`).

Keys: "source_info" (where the sample came from, e.g. its file; empty when unknown) and
"layout" (the batch's layout).  Each sample of the output is the UTF-8 text as a 1-D uint8
tensor.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._gpu import host
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
        "get_property", inputs=1, outputs=1, devices=("cpu", "gpu"),
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
        n = ws.batch_size
        if self.args["key"] == "layout":
            text = ws.inputs[0].layout().encode()
            shapes, data = [(len(text),)] * n, text * n
        else:
            texts = [ws.source_info(i).encode() for i in range(n)]
            shapes, data = [(len(t),) for t in texts], b"".join(texts)
        return _operator.Plan([_operator.OutputDesc(shapes, np.dtype(np.uint8), "", 1)],
                              data=np.frombuffer(data, np.uint8))

    def run_cpu(self, ws, plan):
        flat = ws.outputs[0].flat()
        if flat is not None:
            flat[...] = plan.data       # the samples lie back to back

    def run_gpu(self, ws, plan):
        """The texts worked out on the host and uploaded (uint8 samples on the device)."""
        host.run_on_host(self, ws, plan)
