"""`_conditional.merge`: reassemble a batch from the outputs of the two branches of an `if`.

Sample i comes from the true input when the predicate of sample i is true, else from the false
input (each consumed in order).  Both branches must agree in type, number of dimensions and
layout; shapes may differ per sample.  On the GPU the samples are device copies
(`copy_samples.cu`), unless one branch has every sample.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, tensors
from dali._ext.kernels import conditional
from dali._gpu.batch import DeviceBatch
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops._conditional import _copy_samples_gpu, _predicate

_DIVERGENT = ("Divergent data found in different branches of conditional operation. All paths "
              "in conditional operation are merged into one batch which must have consistent "
              "type, number of dimensions, layout and other metadata. Found distinct {}: {} and "
              "{}.")


@_registry.register
class Merge(_operator.Operator):
    schema = Schema(
        "_conditional.merge", inputs=2, outputs=1, devices=("cpu", "gpu"), internal=True,
        input_names=("true_input", "false_input"), same_batch_inputs=False,
        doc="Merges the true-branch and false-branch batches of an `if` by the predicate.",
        args=[Arg("predicate", T.BOOL, REQUIRED, tensor=True, doc="Per-sample condition.")])

    def infer(self, ws):
        t, f = ws.inputs
        for what, a, b in (("types", t.dtype, f.dtype),
                           ("sample dimensions", t.ndim(), f.ndim()),
                           ("layouts", t.layout(), f.layout())):
            if a != b and len(t) and len(f):
                raise RuntimeError(_DIVERGENT.format(what, _show(a), _show(b)))
        base = t if len(t) else f
        mask = _predicate.predicate_mask(ws, len(t) + len(f))
        if int(mask.sum()) != len(t) or int((~mask).sum()) != len(f):
            raise self.error(f"the branches produced {len(t)} and {len(f)} samples but the "
                             f"predicate selects {int(mask.sum())} and {int((~mask).sum())}",
                             RuntimeError)
        return _operator.Plan(
            [_operator.OutputDesc(None, tensors.storage_of(base).dtype, base.layout(),
                                  base.ndim())], mask=mask)

    def run_cpu(self, ws, plan):
        t, f = ws.inputs
        storage, ids, info = conditional.merge(
            tensors.storage_of(t), tensors.storage_of(f), plan.mask, _ids(ws, 0, t),
            _ids(ws, 1, f), t._source_info, f._source_info)
        ws.outputs[0] = storage
        ws.set_output_meta(0, ids, info)

    def run_gpu(self, ws, plan):
        t, f = ws.inputs
        ts, fs = tensors.storage_of(t), tensors.storage_of(f)
        mask = plan.mask
        ids, info = _predicate.merged_meta(mask, _ids(ws, 0, t), _ids(ws, 1, f), t._source_info,
                                           f._source_info)
        if ts.num_samples == 0 or fs.num_samples == 0:      # one branch has every sample
            ws.outputs[0] = fs if ts.num_samples == 0 else ts
        else:
            shapes = np.empty((len(mask), ts.ndim), np.int64)
            shapes[mask], shapes[~mask] = ts.shapes, fs.shapes
            out = ws.outputs[0] = DeviceBatch.empty(ws.gpu, ts.dtype, shapes, ts.ndim)
            itemsize = ts.dtype.itemsize
            launch = _copy_samples_gpu.merge(
                np.prod(ts.shapes, axis=1, dtype=np.int64) * itemsize, ts.offsets,
                np.prod(fs.shapes, axis=1, dtype=np.int64) * itemsize, fs.offsets, mask,
                out.offsets, _copy_samples_gpu.alignment(ts.ptr, fs.ptr, out.ptr))
            if launch is not None:
                ws.gpu.launch(_copy_samples_gpu.__file__, launch.kernel, launch.grid,
                              launch.block, (ts, fs, out, out, launch.ranges))
        ws.set_output_meta(0, ids, info)


def _ids(ws, k, tl):
    ids = ws.input_ids[k] if ws.input_ids is not None else None
    return ids if ids is not None and len(ids) == len(tl) else np.arange(len(tl))


def _show(v):
    return v.name.lower() if hasattr(v, "name") else (v if v != "" else '""')
