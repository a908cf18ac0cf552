"""fn.random.normal: normally distributed numbers, `mean + stddev * z` with z standard normal.

One standard normal double per element (stream 0); integer outputs are rounded and clamped.
"""

from __future__ import annotations

from dali import _registry
from dali._schema import Arg
from dali._types import DALIDataType as T
from dali.ops.random import _common


@_registry.register
class Normal(_common.Distribution):
    default_type, supported = T.FLOAT, _common.NUMERIC_TYPES
    schema = _common.schema(
        "random.normal", default_type, supported,
        doc="Generates random numbers following a normal distribution.",
        args=[
            Arg("mean", T.FLOAT, 0.0, tensor=True, doc="Mean of the distribution."),
            Arg("stddev", T.FLOAT, 1.0, tensor=True,
                doc="Standard deviation of the distribution (the draws are scaled by it, so a "
                    "negative value mirrors them, as in DALI)."),
        ], gpu=True)

    def run_cpu(self, ws, plan):
        mean = _common.float_arg(ws, "mean")
        stddev = _common.float_arg(ws, "stddev")
        _common.draw(ws, "normal", mean, stddev)

    run_gpu = run_cpu           # `_common.draw` launches random.cu on the GPU
