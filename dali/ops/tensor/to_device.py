"""`DataNode.gpu()` / `.cpu()`: the same output, marked for another device.

As in DALI, the result keeps the name and the producing operator; the pipeline build inserts
the transfer (and refuses GPU nodes where no GPU backend is available).
"""

from __future__ import annotations

import copy
import itertools

from dali import _operator, _registry
from dali._graph import data_node, node
from dali._schema import Schema

DEVICES = ("cpu", "gpu")
_copy_ids = itertools.count(1)      # ids of inserted copies: negative, apart from the user's


@data_node.implements("to_device")
def to_device(node, device):
    """`node` on `device` ("cpu" or "gpu"); `node` itself when it is already there."""
    if device not in DEVICES:
        raise ValueError(f"Invalid device \"{device}\": expected one of {', '.join(DEVICES)}.")
    if node.device == device:
        return node
    outputs = getattr(node.source, "outputs", None)
    if outputs is not None and outputs[node.index].device == device:
        # Back to the device the operator produced it on: that very output.
        return outputs[node.index]
    moved = copy.copy(node)
    moved.device = device
    return moved


@_registry.register
class DeviceCopy(_operator.Operator):
    """The copy the pipeline build inserts where an edge is needed on the other device
    (`dali._graph.graph.Graph.insert_copies`): device "mixed" for host to GPU (the executor
    uploads what `run_cpu` hands on, through pinned staging on the pipeline's stream), "cpu"
    for GPU to host."""

    schema = Schema(
        "_device_copy", inputs=1, outputs=1, devices=("cpu", "mixed"), internal=True,
        class_name="_DeviceCopy",
        doc="Copies its input to the other device (inserted by the pipeline build).")

    def infer(self, ws):
        st = ws.input_storage(0)
        return _operator.Plan([_operator.OutputDesc(None, st.dtype, ws.inputs[0].layout(),
                                                    st.ndim)])

    def run_cpu(self, ws, plan):
        st = ws.input_storage(0)
        ws.outputs[0] = st.to_host() if hasattr(st, "to_host") else st


def make_copy(edge, device):
    """The OpNode copying the produced `edge` to `device`, named as DALI names it."""
    src = edge.source
    pipe = src.pipeline if src is not None else None
    kind = "CpuToGpu" if device == "gpu" else "GpuToCpu"
    name = f"__Copy_{kind}_{edge.name}"
    return node.OpNode(DeviceCopy, -next(_copy_ids), name,
                       "mixed" if device == "gpu" else "cpu", {}, [edge], {},
                       src.origin if src is not None else [], pipe)
