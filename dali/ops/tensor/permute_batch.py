"""fn.permute_batch: output sample i is input sample `indices[i]` (a list of batch-size
entries, or one scalar per sample as an argument input, e.g. from fn.batch_permutation);
samples may repeat or be left out.  The source info follows the samples; the sample ids (which
random operators downstream draw by) stay those of the positions, so two copies of a sample
are still augmented independently.  The copies are the nogil `gather` kernel (see
`_frames`)."""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops._conditional import _copy_samples_gpu
from dali.ops.tensor import _frames


@_registry.register
class PermuteBatch(_operator.Operator):
    schema = Schema(
        "permute_batch", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Returns a batch of the input's samples in the order given by `indices`: output "
            "sample i is input sample `indices[i]`.",
        args=[Arg("indices", T._INT32_VEC, REQUIRED, tensor=True,
                  doc="The input sample of each output sample: a list with one entry per "
                      "sample, or one scalar per sample as an argument input.")])

    def infer(self, ws):
        storage = ws.input_storage(0)
        n = ws.batch_size
        indices = ws.arg_rows("indices", np.int64) if ws.is_arg_input("indices") else \
            np.asarray(self.args["indices"], np.int64)
        if indices is None:         # samples of different lengths
            indices = np.concatenate(ws.arg("indices")).astype(np.int64)
        indices = indices.reshape(-1)
        if len(indices) != n:
            raise self.error(f"The number of sample indices {len(indices)} does not match the "
                             f"current batch size, which is {n}", RuntimeError)
        if n and (indices.min() < 0 or indices.max() >= storage.num_samples):
            i = int(np.flatnonzero((indices < 0) | (indices >= storage.num_samples))[0])
            raise self.error(f"Sample index out of range. indices[{i}] = {int(indices[i])} is "
                             f"not a valid index for an input batch of {storage.num_samples} "
                             "tensors.", RuntimeError)
        shapes = storage.shapes[indices]
        sample_bytes = np.prod(storage.shapes, axis=1, dtype=np.int64) * storage.dtype.itemsize
        return _operator.Plan([_operator.OutputDesc(shapes, storage.dtype,
                                                    ws.inputs[0].layout() or "", storage.ndim)],
                              indices=indices, sample_bytes=sample_bytes)

    def run_cpu(self, ws, plan):
        # each non-empty output sample is one frame (frame 0) of its input sample
        counts = plan.sample_bytes[plan.indices] > 0
        n = len(counts)
        start = np.arange(n + 1, dtype=np.int64) if counts.all() else \
            np.concatenate([[0], np.cumsum(counts)])
        _frames.gather(ws, ws.input_storage(0).contiguous(), ws.outputs[0], plan.indices,
                       plan.sample_bytes, np.zeros(start[-1], np.int64), start)
        ws.set_output_meta(0, ws.sample_ids, _picked_info(ws, plan.indices))

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        launch = _copy_samples_gpu.gather(plan.sample_bytes, src.offsets, plan.indices, out.offsets,
                                          _copy_samples_gpu.alignment(src.ptr, out.ptr))
        if launch is not None:
            ws.gpu.launch(_copy_samples_gpu.__file__, launch.kernel, launch.grid, launch.block,
                          (src, src, out, out, launch.ranges))
        ws.set_output_meta(0, ws.sample_ids, _picked_info(ws, plan.indices))


def _picked_info(ws, indices):
    """The source info of the input samples `indices` (None when the input has none)."""
    info = ws.inputs[0]._source_info
    return None if info is None else [info[i] for i in indices.tolist()]
