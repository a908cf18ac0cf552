"""`_conditional.not_` and `_conditional.validate_logical`: the per-sample `not`, and the
operand check of `and` / `or` (scalar bool samples on the CPU).  As in DALI, their GPU backends
only fail, when the pipeline is built, with the message saying that the inputs must be on the
CPU (DALI registers them "to fail fast and provide better error message")."""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, tensors
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops._conditional import _predicate

_RESTRICTED = ("Logical expression `{}` is restricted to scalar (0-d tensors) inputs of `bool` "
               "type, that are placed on CPU. Got {} as the {} argument in logical "
               "expression.\n" + _predicate.SCALAR_ONLY)
_NOT_RESTRICTED = ("Logical expression `not` is restricted to scalar (0-d tensors) inputs, that "
                   "are placed on CPU. Got {} in logical expression.\n"
                   + _predicate.SCALAR_ONLY)


@_registry.register
class Not(_operator.Operator):
    schema = Schema(
        "_conditional.not_", inputs=1, outputs=1, devices=("cpu", "gpu"), internal=True,
        class_name="Not_", doc="Per-sample logical not of scalar inputs of any numeric type.")

    def setup(self):
        if self.spec.device == "gpu":
            raise self._gpu_failure()

    def _gpu_failure(self):
        return RuntimeError(_NOT_RESTRICTED.format("a GPU input"))

    def run_gpu(self, ws, plan):
        """Not reached: `setup` fails on the GPU, as DALI's GPU backend does."""
        raise self._gpu_failure()

    def infer(self, ws):
        tl = ws.inputs[0]
        if tl.ndim() != 0:
            raise RuntimeError(_NOT_RESTRICTED.format(f"a {tl.ndim()}-d input"))
        return _operator.Plan([_operator.OutputDesc([()] * len(tl), np.bool_, "")])

    def run_cpu(self, ws, plan):
        dense = ws.input_storage(0).dense()
        if dense is not None:
            ws.outputs[0].flat()[...] = dense == 0
            return
        for src, dst in zip(ws.input_samples(0), ws.output_samples(0), strict=True):
            dst[...] = not bool(src)


@_registry.register
class ValidateLogical(_operator.Operator):
    schema = Schema(
        "_conditional.validate_logical", inputs=1, outputs=1, devices=("cpu", "gpu"),
        internal=True, doc="Checks an operand of `and`/`or`; passes it through.",
        args=[Arg("expression_name", T.STRING, REQUIRED, doc="`and` or `or`."),
              Arg("expression_side", T.STRING, REQUIRED, doc="`left` or `right`.")])

    def setup(self):
        if self.spec.device == "gpu":
            raise self._gpu_failure()

    def _gpu_failure(self):
        return RuntimeError(_RESTRICTED.format(self.args["expression_name"], "a GPU input",
                                               self.args["expression_side"]))

    def run_gpu(self, ws, plan):
        """Not reached: `setup` fails on the GPU, as DALI's GPU backend does."""
        raise self._gpu_failure()

    def infer(self, ws):
        tl = ws.inputs[0]
        name, side = self.args["expression_name"], self.args["expression_side"]
        if tl.ndim() != 0:
            raise RuntimeError(_RESTRICTED.format(name, f"a {tl.ndim()}-d input", side))
        if tensors.storage_of(tl).dtype != np.bool_:
            raise RuntimeError(_RESTRICTED.format(
                name, f"an input of type `{tensors.storage_of(tl).dtype}`", side))
        return _operator.Plan([_operator.OutputDesc(None, np.bool_, "", 0)])

    def run_cpu(self, ws, plan):
        ws.outputs[0] = ws.input_storage(0)
