"""fn.sequence_rearrange: the frames of every sequence reordered, repeated or dropped by
`new_order` (per sample when given as an argument input).  The copies are the nogil `gather`
kernel, or copy_samples.cu on the GPU (see `_frames`)."""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.tensor import _frames


@_registry.register
class SequenceRearrange(_operator.Operator):
    schema = Schema(
        "sequence_rearrange", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Rearranges the frames (outermost axis) of each sequence: output frame j is input "
            "frame `new_order[j]`. Frames may be repeated or left out.",
        args=[Arg("new_order", T._INT32_VEC, REQUIRED, tensor=True,
                  doc="The input frame of each output frame, in [0, number of frames); not "
                      "empty.")])

    def setup(self):
        if "new_order" not in self.spec.arg_inputs and not self.args["new_order"]:
            raise self.error("Empty result sequences are not allowed.", RuntimeError)
        self._memo = None       # (input shapes, dtype, plan values) for a constant new_order

    def infer(self, ws):
        storage = ws.input_storage(0)
        if storage.ndim < 2:
            raise self.error("Sequence elements must have at least 1 dim", RuntimeError)
        layout = _frames.check_sequence(
            self, ws.inputs[0],
            "Expected sequence as the input, where outermost dimension represents frames "
            'dimension `F`, got data with layout = "{layout}".')
        constant = not ws.is_arg_input("new_order")
        memo = self._memo
        if (constant and memo is not None and memo[0] is storage.shapes
                and memo[1] == storage.dtype):
            shapes, frames, start, fbytes = memo[2]
        else:
            shapes, frames, start = self._frames(ws, storage)
            fbytes = _frames.frame_bytes(storage)
            if constant:
                self._memo = (storage.shapes, storage.dtype, (shapes, frames, start, fbytes))
        return _operator.Plan([_operator.OutputDesc(shapes, storage.dtype, layout,
                                                    storage.ndim)],
                              frames=frames, start=start, fbytes=fbytes)

    def _frames(self, ws, storage):
        """The output shapes, the input frame of every output frame and where each sample's
        frames start."""
        rows = ws.arg_rows("new_order", np.int64)
        if rows is not None:
            counts = np.full(ws.batch_size, rows.shape[1], np.int64)
            frames = rows.reshape(-1)
        else:
            orders = ws.arg("new_order")
            counts = np.array([len(o) for o in orders], np.int64)
            frames = np.concatenate(orders).astype(np.int64)
        if (counts == 0).any():
            raise self.error("Empty result sequences are not allowed.", RuntimeError)
        start = np.concatenate([[0], np.cumsum(counts)])
        lengths = np.repeat(storage.shapes[:, 0], counts)
        bad = np.flatnonzero((frames < 0) | (frames >= lengths))
        if bad.size:
            k = int(bad[0])
            i = int(np.searchsorted(start, k, side="right") - 1)
            raise self.error(f"new_order[{k - start[i]}] must be between 0 and "
                             f"input_sequence_length = {int(lengths[k])} for sample {i}, but it "
                             f"is: {int(frames[k])}.", RuntimeError)
        shapes = storage.shapes.copy()
        shapes[:, 0] = counts
        shapes.setflags(write=False)
        return shapes, frames, start

    def run_cpu(self, ws, plan):
        src = ws.input_storage(0).contiguous()
        _frames.gather(ws, src, ws.outputs[0], np.arange(src.num_samples), plan.fbytes,
                       plan.frames, plan.start)

    def run_gpu(self, ws, plan):
        src = ws.input_storage(0)
        _frames.gather_gpu(ws, src, ws.outputs[0], np.arange(src.num_samples), plan.fbytes,
                           plan.frames, plan.start)
