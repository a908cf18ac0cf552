"""`_conditional.split`: the samples of a batch where the predicate is true, and the others.

Outputs hold the input's samples in order (a side taking every sample is the input itself; small
batches are gathered into one block, large samples stay views: `_ext/kernels/conditional.pyx`);
each keeps its sample id and source info, so random streams and error messages still refer to
the original samples.  On the GPU both sides are device copies (`copy_samples.cu`), unless one
takes every sample.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import conditional
from dali._gpu.batch import DeviceBatch
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops._conditional import _copy_samples_gpu, _predicate


@_registry.register
class Split(_operator.Operator):
    schema = Schema(
        "_conditional.split", inputs=1, outputs=2, devices=("cpu", "gpu"), internal=True,
        doc="Splits a batch by a per-sample predicate: true samples, then false ones.",
        args=[Arg("predicate", T.BOOL, REQUIRED, tensor=True, doc="Per-sample condition."),
              Arg("_if_stmt", T.BOOL, False, doc="Inserted by an `if` statement.")])

    def setup(self):
        self._descs = {}        # (dtype, layout, ndim) -> the two outputs' descriptions

    def infer(self, ws):
        tl = ws.inputs[0]
        key = (ws.input_dtype(0), tl.layout(), tl.ndim())
        descs = self._descs.get(key)
        if descs is None:
            descs = self._descs[key] = [_operator.OutputDesc(None, *key),
                                        _operator.OutputDesc(None, *key)]
        return _operator.Plan(descs, mask=_predicate.predicate_mask(ws))

    def run_cpu(self, ws, plan):
        sides = conditional.split(ws.input_storage(0), plan.mask, ws.sample_ids,
                                  ws.inputs[0]._source_info)
        for k, (storage, ids, info) in enumerate(sides):
            ws.outputs[k] = storage
            ws.set_output_meta(k, ids, info)

    def run_gpu(self, ws, plan):
        src = ws.input_storage(0)
        ids = np.asarray(ws.sample_ids, np.int64)
        info = ws.inputs[0]._source_info
        picks = (np.flatnonzero(plan.mask), np.flatnonzero(~plan.mask))
        for k, idx in enumerate(picks):
            full = len(idx) == src.num_samples
            ws.outputs[k] = src if full else DeviceBatch.empty(ws.gpu, src.dtype,
                                                               src.shapes[idx], src.ndim)
            ws.set_output_meta(k, ids[idx], _predicate.picked_info(info, idx))
        if all(len(idx) < src.num_samples for idx in picks):
            sizes = np.prod(src.shapes, axis=1, dtype=np.int64) * src.dtype.itemsize
            launch = _copy_samples_gpu.split(
                sizes, src.offsets, plan.mask, ws.outputs[0].offsets, ws.outputs[1].offsets,
                _copy_samples_gpu.alignment(src.ptr, *(o.ptr for o in ws.outputs)))
            if launch is not None:
                ws.gpu.launch(_copy_samples_gpu.__file__, launch.kernel, launch.grid,
                              launch.block, (src, src, *ws.outputs, launch.ranges))
