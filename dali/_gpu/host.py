"""`run_gpu` for operators whose GPU outputs are worked out on the host from metadata (shapes,
properties): their CPU code fills host batches, which are then uploaded on the pipeline's
stream, as DALI's GPU backends of these operators copy host-computed values."""

from __future__ import annotations

from dali._ext.tensor_storage import BatchStorage
from dali._gpu.batch import DeviceBatch


def run_on_host(op, ws, plan):
    """`op.run_cpu` into host outputs, then `ws.outputs` become their device copies."""
    ws.outputs = [None if d.shapes is None else BatchStorage.allocate(
        d.dtype, d.shapes, ndim=-1 if d.ndim is None else d.ndim) for d in plan.outputs]
    op.run_cpu(ws, plan)
    ws.outputs = [DeviceBatch.from_host(ws.gpu, BatchStorage.from_samples(out)
                                        if type(out) is list else out)
                  for out in ws.outputs]
