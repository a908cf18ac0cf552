"""fn.element_extract: frames of sequences as separate outputs, one per entry of
`element_map` (the outermost axis dropped, and 'F' from the layout).  The copies are the nogil
`gather` kernel, or copy_samples.cu on the GPU (see `_frames`)."""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.tensor import _frames


@_registry.register
class ElementExtract(_operator.Operator):
    schema = Schema(
        "element_extract", inputs=1, outputs=lambda args: len(args["element_map"] or [0]),
        devices=("cpu", "gpu"),
        doc="Extracts one or more elements (frames) from each input sequence: one output per "
            "entry of `element_map`, without the outermost (frame) axis.",
        args=[Arg("element_map", T._INT32_VEC, REQUIRED,
                  doc="Indices of the elements to extract, one output each.")])

    def setup(self):
        self.elements = list(self.args["element_map"])
        for e in self.elements:
            if e < 0:
                raise self.error(f"Negative indices in `element_map` are not allowed, found: "
                                 f"{e}.", RuntimeError)

    def infer(self, ws):
        storage = ws.input_storage(0)
        if storage.ndim < 2:
            raise self.error("Input must have at least two dimensions - outermost for sequence "
                             "and at least one for data elements.", RuntimeError)
        layout = _frames.check_sequence(
            self, ws.inputs[0],
            "Input layout must describe a sequence - it must start with 'F', got '{layout}' "
            "instead.")
        lengths = storage.shapes[:, 0]
        too_far = [e for e in self.elements if (lengths <= e).any()]
        if too_far:
            e = too_far[0]
            raise self.error(f"Index `{e}` from `element_map` is out of bounds for sample with "
                             f"sequence length equal `{int(lengths[lengths <= e][0])}`.",
                             RuntimeError)
        shapes = storage.shapes[:, 1:]
        desc = _operator.OutputDesc(shapes, storage.dtype, layout[1:], storage.ndim - 1)
        return _operator.Plan([desc] * len(self.elements))

    def run_cpu(self, ws, plan):
        self._extract(ws, ws.input_storage(0).contiguous(), _frames.gather)

    def run_gpu(self, ws, plan):
        self._extract(ws, ws.input_storage(0), _frames.gather_gpu)

    def _extract(self, ws, src, gather):
        n = src.num_samples
        fbytes = _frames.frame_bytes(src)
        start = np.arange(n + 1, dtype=np.int64)
        for k, e in enumerate(self.elements):
            gather(ws, src, ws.outputs[k], start[:-1], fbytes, np.full(n, e, np.int64), start)
