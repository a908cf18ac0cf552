"""`_conditional.split`: the samples of a batch where the predicate is true, and the others.

Outputs are zero-copy views of the input's samples, in order; each keeps its sample id and
source info, so random streams and error messages still refer to the original samples.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._ext.tensor_storage import BatchStorage
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops._conditional import _predicate


@_registry.register
class Split(_operator.Operator):
    schema = Schema(
        "_conditional.split", inputs=1, outputs=2, devices=("cpu", "gpu"), internal=True,
        doc="Splits a batch by a per-sample predicate: true samples, then false ones.",
        args=[Arg("predicate", T.BOOL, REQUIRED, tensor=True, doc="Per-sample condition."),
              Arg("_if_stmt", T.BOOL, False, doc="Inserted by an `if` statement.")])

    def infer(self, ws):
        tl = ws.inputs[0]
        d = ws.input_dtype(0)
        return _operator.Plan([_operator.OutputDesc(None, d, tl.layout(), tl.ndim()),
                               _operator.OutputDesc(None, d, tl.layout(), tl.ndim())],
                              mask=_predicate.predicate_mask(ws))

    def run_cpu(self, ws, plan):
        samples = ws.input_samples(0)
        st = ws.input_storage(0)
        for k, mask in enumerate((plan.mask, ~plan.mask)):
            idx = np.flatnonzero(mask)
            picked = [samples[i] for i in idx]
            ws.outputs[k] = (BatchStorage.from_samples(picked) if picked else
                             BatchStorage.allocate(st.dtype, [], ndim=st.ndim))
            ws.set_output_meta(k, ws.sample_ids[idx], [ws.source_info(i) for i in idx])
