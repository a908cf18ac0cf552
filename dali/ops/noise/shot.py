"""fn.noise.shot: out = poisson(max(0, in / factor)) * factor per element, in float32,
converted back to the input type; a factor of 0 gives 0 (as DALI)."""

from __future__ import annotations

import numpy as np

from dali import _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.noise import _noise


@_registry.register
class Shot(_noise.Noise):
    mode = "shot"
    schema = Schema(
        "noise.shot", inputs=1, outputs=1, devices=("cpu", "gpu"), random=True,
        doc="Applies shot noise to the input: `out = poisson(max(0, in / factor)) * factor`, "
            "a Poisson draw per element (in float32; integer outputs are rounded and "
            "saturated). The shape and data type of the output match the input.",
        args=[Arg("factor", T.FLOAT, 20.0, tensor=True, doc="Factor parameter.")])

    def params(self, ws, dtype):
        out = np.zeros((ws.batch_size, 4))
        out[:, 0] = _noise.finite(ws, "factor")
        return out
