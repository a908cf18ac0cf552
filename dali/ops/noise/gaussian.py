"""fn.noise.gaussian: out = in + (mean + stddev * z) per element, z standard normal, in
float32, converted back to the input type (integers round half away from zero and saturate)."""

from __future__ import annotations

import numpy as np

from dali import _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.noise import _noise


@_registry.register
class Gaussian(_noise.Noise):
    mode = "gaussian"
    schema = Schema(
        "noise.gaussian", inputs=1, outputs=1, devices=("cpu", "gpu"), random=True,
        doc="Adds Gaussian noise to the input: `out = in + n`, n drawn from N(`mean`, "
            "`stddev`) for every element (in float32; integer outputs are rounded and "
            "saturated). The shape and data type of the output match the input.",
        args=[Arg("mean", T.FLOAT, 0.0, tensor=True, doc="Mean of the distribution."),
              Arg("stddev", T.FLOAT, 1.0, tensor=True,
                  doc="Standard deviation of the distribution.")])

    def params(self, ws, dtype):
        out = np.zeros((ws.batch_size, 4))
        out[:, 0] = _noise.finite(ws, "mean")
        out[:, 1] = _noise.finite(ws, "stddev")
        return out
