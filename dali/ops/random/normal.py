"""fn.random.normal: normally distributed numbers, `mean + stddev * z` with z standard normal.

One standard normal double per element (stream 0); integer outputs are rounded and clamped.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.random import _common

_SUPPORTED = _common.NUMERIC_TYPES


@_registry.register
class Normal(_operator.Operator):
    schema = Schema(
        "random.normal", inputs=(0, 1), outputs=1, devices=("cpu",), random=True,
        input_names=["shape_like"],
        doc="Generates random numbers following a normal distribution.\n\n"
            "Each output sample is a scalar unless `shape` or the optional `shape_like` input "
            "(whose samples' shapes are used; their data is ignored) says otherwise.",
        args=[
            Arg("mean", T.FLOAT, 0.0, tensor=True, doc="Mean of the distribution."),
            Arg("stddev", T.FLOAT, 1.0, tensor=True,
                doc="Standard deviation of the distribution (the draws are scaled by it, so a "
                    "negative value mirrors them, as in DALI)."),
            _common.shape_arg(),
            _common.dtype_arg(T.FLOAT, _SUPPORTED),
        ])

    def infer(self, ws):
        return [_common.output_desc(self, ws, _common.output_type(self, T.FLOAT, _SUPPORTED))]

    def run_cpu(self, ws):
        out = ws.outputs[0]
        n = _common.counts(out)
        mean, stddev = ws.arg("mean"), ws.arg("stddev")
        _common.check_finite(ws, "mean", mean)
        _common.check_finite(ws, "stddev", stddev)
        z = np.concatenate(ws.normal(n)) if len(n) else np.empty(0)
        flat = _common.per_element(mean, n) + _common.per_element(stddev, n) * z
        _common.fill(ws, flat, n, out.dtype)
