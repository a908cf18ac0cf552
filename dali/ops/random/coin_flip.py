"""fn.random.coin_flip: Bernoulli draws, 1 with probability `probability`, else 0.

One uniform double u per element (stream 0); the result is `u < probability`.
"""

from __future__ import annotations

import math

import numpy as np

from dali import _operator, _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.random import _common

_SUPPORTED = (T.BOOL, T.UINT8, T.INT32)


@_registry.register
class CoinFlip(_operator.Operator):
    schema = Schema(
        "random.coin_flip", inputs=(0, 1), outputs=1, devices=("cpu",), random=True,
        input_names=["shape_like"],
        doc="Generates random boolean values following a Bernoulli distribution: 1 with "
            "probability `probability`, 0 otherwise.\n\n"
            "Each output sample is a scalar unless `shape` or the optional `shape_like` input "
            "(whose samples' shapes are used; their data is ignored) says otherwise.",
        args=[
            Arg("probability", T.FLOAT, 0.5, tensor=True,
                doc="Probability of a 1, in [0, 1] (DALI accepts values outside it and gives "
                    "unspecified results; here they are an error)."),
            _common.shape_arg(),
            _common.dtype_arg(T.INT32, _SUPPORTED),
        ])

    def infer(self, ws):
        return [_common.output_desc(self, ws, _common.output_type(self, T.INT32, _SUPPORTED))]

    def run_cpu(self, ws):
        out = ws.outputs[0]
        n = _common.counts(out)
        prob = ws.arg("probability")
        for i, p in enumerate(prob):
            if not (math.isfinite(p) and 0.0 <= p <= 1.0):
                raise ws.sample_error(i, f"the argument `probability` must be in [0, 1], got {p}")
        u = np.concatenate(ws.uniform(n)) if len(n) else np.empty(0)
        flat = (u < _common.per_element(prob, n)).astype(np.float64)
        _common.fill(ws, flat, n, out.dtype)
