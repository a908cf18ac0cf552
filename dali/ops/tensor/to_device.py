"""`DataNode.gpu()` / `.cpu()`: the same output, marked for another device.

As in DALI, the result keeps the name and the producing operator; the pipeline build inserts
the transfer (and refuses GPU nodes where no GPU backend is available).
"""

from __future__ import annotations

import copy

from dali._graph import data_node

DEVICES = ("cpu", "gpu")


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
