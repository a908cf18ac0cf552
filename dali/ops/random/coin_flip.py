"""fn.random.coin_flip: Bernoulli draws, 1 with probability `probability`, else 0.

One uniform double u per element (stream 0); the result is `u < probability`.
"""

from __future__ import annotations

import numpy as np

from dali import _registry
from dali._schema import Arg
from dali._types import DALIDataType as T
from dali.ops.random import _common


@_registry.register
class CoinFlip(_common.Distribution):
    default_type, supported = T.INT32, (T.BOOL, T.UINT8, T.INT32)
    schema = _common.schema(
        "random.coin_flip", default_type, supported,
        doc="Generates random boolean values following a Bernoulli distribution: 1 with "
            "probability `probability`, 0 otherwise.",
        args=[
            Arg("probability", T.FLOAT, 0.5, tensor=True,
                doc="Probability of a 1, in [0, 1] (DALI accepts values outside it and gives "
                    "unspecified results; here they are an error)."),
        ], gpu=True)

    def run_cpu(self, ws, plan):
        prob = ws.arg_array("probability", np.float64)
        bad = ~((prob >= 0.0) & (prob <= 1.0))            # NaN included
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ws.sample_error(i, f"the argument `probability` must be in [0, 1], got "
                                     f"{prob[i]}")
        _common.draw(ws, "coin", prob)

    run_gpu = run_cpu           # `_common.draw` launches random.cu on the GPU
