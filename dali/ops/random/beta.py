"""fn.random.beta: draws from the beta distribution Beta(alpha, beta).

Beta = X / (X + Y) with X ~ Gamma(alpha), Y ~ Gamma(beta).  Gamma draws use Marsaglia and
Tsang's rejection method (with its squeeze test); shapes below 1 are boosted (Gamma(k) =
Gamma(k + 1) * U^(1/k)).  When alpha and beta are both at least 1 the ratio is taken of the
gamma draws themselves; otherwise it is computed from log X and log Y, so that small shape
parameters (whose gamma draws underflow) stay exact.  Rejection needs a variable number of
draws, so it proceeds in rounds: round r gives every still-pending element a fresh (normal,
uniform) pair from its own streams, keyed by the element's index, so the result stays
independent of batching and threads.  The nogil kernel (`beta_batch` of
_ext/kernels/random.pyx, random_draws.h) states the streams.  Its normals are Box-Muller ones
whose sine and cosine come from fdlibm's polynomials (within 2 ulps, several times cheaper than
the C library's sincos), so they differ from fn.random.normal's in the last bits; its
log/exp/log1p are the C library's.  Both changes (and the ratio without logs) changed the
values a seed gives from those of earlier versions, not their distribution.
"""

from __future__ import annotations

from dali import _registry
from dali._ext.kernels import random as _kernel
from dali._schema import Arg
from dali._types import DALIDataType as T
from dali.ops.random import _common


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
        alpha = _common.float_arg(ws, "alpha", positive=True)
        beta = _common.float_arg(ws, "beta", positive=True)
        bad = _kernel.beta_batch(ws.thread_pool, ws.outputs[0], ws.random_key(), ws.sample_ids,
                                 alpha, beta)
        if bad >= 0:
            raise ws.sample_error(bad, "gamma sampling did not converge")
