"""DataNodeDebug: a DataNode that holds this iteration's batch."""

from __future__ import annotations

from dali._graph import data_node


class DataNodeDebug(data_node.DataNode):
    """A DataNode with data: `.get()` returns this iteration's TensorList.

    Arithmetic, indexing, `.shape()` and `.gpu()` work as on a DataNode: they call the same
    operators, which the debug context runs at once.
    """

    __slots__ = ("_data", "_ids")

    def __init__(self, data, name, device, source, ids):
        super().__init__(name, device, source)
        self._data = data
        self._ids = ids

    def get(self):
        """The batch this node holds (a TensorListCPU)."""
        return self._data

    def __str__(self):
        body = str(self._data).replace("\n", "\n     ")
        return f'DataNodeDebug(\n    name="{self.name}",\n    data={body})'

    __repr__ = __str__
