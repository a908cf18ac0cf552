"""`_conditional.split`: the samples of a batch where the predicate is true, and the others.

Outputs are zero-copy views of the input's samples, in order; each keeps its sample id and
source info, so random streams and error messages still refer to the original samples.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, tensors
from dali._ext.tensor_storage import BatchStorage
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T

_SCALAR_ONLY = (
    "This input restriction allows the logical expressions to always return scalar boolean "
    "outputs and to be used in unambiguous way in DALI conditionals (`if` statements). You can "
    "set the `dtype` parameter of some operators to `dali.types.BOOL` or use comparison "
    "operators which always return booleans.\n"
    "If you need to process inputs of higher dimensionality, different type, or device "
    "placement, you may use bitwise arithmetic operators `&`, `|` or comparison operator "
    "(`== 0`) to emulate logical `and`, `or` and `not` expressions.  Those operations performed "
    "on boolean inputs are equivalent to logical expressions. Keep in mind that, in contrast to "
    "using logical operators, all subexpressions of elementwise arithmetic operators are always "
    "evaluated.")


def predicate_mask(ws, expected=None, name="predicate"):
    """The per-sample truth values of a condition (0-d samples of bool or any number);
    `expected` is the number of samples it must have (default: the batch size)."""
    tl = ws.arg_inputs.get(name)
    if tl is None:
        raise ws.op.error("the predicate must be a per-sample (DataNode) argument")
    if tl.ndim() != 0:
        raise RuntimeError(
            "Conditions inside `if` statements are restricted to scalar (0-d tensors) inputs, "
            f"that are placed on CPU. Got a {tl.ndim()}-d input as a condition of the `if` "
            "statement.\n" + _SCALAR_ONLY)
    expected = ws.batch_size if expected is None else expected
    if len(tl) != expected:
        raise ws.op.error(f"the predicate has {len(tl)} samples but {expected} were expected")
    return np.array([bool(s) for s in tensors.storage_of(tl).samples()], dtype=bool)


@_registry.register
class Split(_operator.Operator):
    schema = Schema(
        "_conditional.split", inputs=1, outputs=2, devices=("cpu", "gpu"), internal=True,
        doc="Splits a batch by a per-sample predicate: true samples, then false ones.",
        args=[Arg("predicate", T.BOOL, REQUIRED, tensor=True, doc="Per-sample condition."),
              Arg("_if_stmt", T.BOOL, False, doc="Inserted by an `if` statement.")])

    def infer(self, ws):
        tl = ws.inputs[0]
        self._mask = predicate_mask(ws)
        d = tensors.storage_of(tl).dtype
        return _operator.Plan([_operator.OutputDesc(None, d, tl.layout(), tl.ndim()),
                _operator.OutputDesc(None, d, tl.layout(), tl.ndim())])

    def run_cpu(self, ws, plan):
        samples = ws.input_samples(0)
        st = ws.input_storage(0)
        for k, mask in enumerate((self._mask, ~self._mask)):
            idx = np.flatnonzero(mask)
            picked = [samples[i] for i in idx]
            ws.outputs[k] = (BatchStorage.from_samples(picked) if picked else
                             BatchStorage.allocate(st.dtype, [], ndim=st.ndim))
            info = ws.inputs[0]._source_info
            ws.set_output_meta(k, ws.sample_ids[idx],
                               None if info is None else [info[i] for i in idx])
