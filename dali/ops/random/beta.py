"""fn.random.beta: draws from the beta distribution Beta(alpha, beta).

Beta = X / (X + Y) with X ~ Gamma(alpha), Y ~ Gamma(beta), computed from log X and log Y so
that small shape parameters (whose gamma draws underflow) stay exact.  Gamma draws use
Marsaglia and Tsang's rejection method; shapes below 1 are boosted (Gamma(k) =
Gamma(k + 1) * U^(1/k)).  Rejection needs a variable number of draws, so it proceeds in rounds:
round r gives every still-pending element a fresh (normal, uniform) pair from its own streams,
keyed by the element's index, so the result stays independent of batching and threads.
"""

from __future__ import annotations

import numpy as np

from dali import _registry
from dali._schema import Arg
from dali._types import DALIDataType as T
from dali.ops.random import _common

_MAX_ROUNDS = 64        # each round accepts > 95% of the pending draws


@_registry.register
class Beta(_common.Distribution):
    default_type, supported = T.FLOAT, (T.FLOAT, T.FLOAT64)
    schema = _common.schema(
        "random.beta", default_type, supported,
        doc="Generates random numbers following a beta distribution, on [0, 1].",
        args=[
            Arg("alpha", T.FLOAT, 1.0, tensor=True,
                doc="The alpha parameter, a positive float."),
            Arg("beta", T.FLOAT, 1.0, tensor=True, doc="The beta parameter, a positive float."),
        ])

    def run_cpu(self, ws, plan):
        out = ws.outputs[0]
        n = _common.counts(out)
        alpha = _common.float_arg(ws, "alpha", positive=True)
        beta = _common.float_arg(ws, "beta", positive=True)
        log_x = self._log_gamma(ws, np.repeat(alpha, n), n, 0)
        log_y = self._log_gamma(ws, np.repeat(beta, n), n, 1)
        with np.errstate(over="ignore"):      # exp -> inf gives the exact limit 0
            x = 1.0 / (1.0 + np.exp(log_y - log_x))
        _common.fill(ws, x, n, out.dtype)

    def _log_gamma(self, ws, k, n, var):
        """log of one Gamma(k[j], 1) draw per element; `var` tells apart the two variables'
        streams (boost uniforms: stream var; round r: normals 2 + 4r + 2var, uniforms 3 + 4r +
        2var)."""
        boost = k < 1.0
        d = np.where(boost, k + 1.0, k) - 1.0 / 3.0
        c = 1.0 / np.sqrt(9.0 * d)
        total = int(n.sum())
        sample_of = np.repeat(np.arange(len(n)), n)
        index = np.arange(total) - np.repeat(np.cumsum(n) - n, n)
        result = np.empty(total)
        pending = np.arange(total)
        for r in range(_MAX_ROUNDS):
            if not len(pending):
                break
            # Draw, per sample, as far as its last pending element.
            reach = np.zeros(len(n), dtype=np.int64)
            np.maximum.at(reach, sample_of[pending], index[pending] + 1)
            pos = (np.cumsum(reach) - reach)[sample_of[pending]] + index[pending]
            z = ws.normal_flat(reach, 2 + 4 * r + 2 * var)[pos]
            u = ws.uniform_flat(reach, 3 + 4 * r + 2 * var)[pos]
            dp, cp = d[pending], c[pending]
            v = (1.0 + cp * z) ** 3
            with np.errstate(invalid="ignore", divide="ignore"):
                log_v = np.log(v)
                ok = (v > 0) & (np.log1p(-u) < 0.5 * z * z + dp - dp * v + dp * log_v)
            result[pending[ok]] = np.log(dp[ok]) + log_v[ok]
            pending = pending[~ok]
        else:
            if len(pending):
                raise self.error("gamma sampling did not converge", RuntimeError)
        if boost.any():
            u = ws.uniform_flat(n, var)
            result[boost] += np.log1p(-u[boost]) / k[boost]
        return result
