"""DataNodeDebug: a DataNode that holds this iteration's batch."""

from __future__ import annotations

from dali._debug import gpu_stage
from dali._gpu import runtime
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

    def shape(self):
        """The concrete shape of every sample (a list of tuples), as DALI's debug mode gives
        it; in graph mode `shape()` is an operator producing the shapes."""
        return self._data.shape()

    def gpu(self):
        """This batch on the GPU, moved at once (without a GPU backend this fails here; graph
        mode fails at `build()`)."""
        device_id = getattr(getattr(self.source, "ctx", None), "device_id", None)
        if device_id is None or not runtime.available(device_id):
            raise RuntimeError(
                f'Cannot move "{self.name}" to the GPU: debug mode moves data at once, and no '
                "GPU backend is available (install CuPy with `pip install dali[gpu]` on a "
                "machine with a CUDA device); device_id=None pipelines are CPU-only.")
        if self.device == "gpu":
            return self
        return DataNodeDebug(gpu_stage.moved(self._data, "gpu", device_id), self.name, "gpu",
                             self.source, self._ids)

    def cpu(self):
        """This batch on the host (a copy of a GPU batch)."""
        if self.device == "cpu":
            return self
        return DataNodeDebug(self._data.as_cpu(), self.name, "cpu", self.source, self._ids)

    def __str__(self):
        body = str(self._data).replace("\n", "\n     ")
        return f'DataNodeDebug(\n    name="{self.name}",\n    data={body})'

    __repr__ = __str__
