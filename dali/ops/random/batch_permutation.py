"""fn.batch_permutation: a random permutation of the sample indices of the batch,
one int32 scalar per sample (the `indices` of fn.permute_batch).

One uniform double per sample and round drives it:
- by default the indices are the samples ordered by their draws (stream 0: a uniformly random
  permutation);
- `no_fixed_points` draws such permutations (streams 0, 1, ...) until one leaves no sample in
  its place, which makes it uniform over those permutations (about e rounds on average); after
  `_ROUNDS` failed rounds (probability below 1e-6) it takes a random cycle over the whole
  batch instead (Sattolo's shuffle).  A batch of one gives 0;
- `allow_repetitions` makes each index an independent uniform pick in [0, batch_size), and
  with `no_fixed_points` a pick among the other indices.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T

_ROUNDS = 32


@_registry.register
class BatchPermutation(_operator.Operator):
    schema = Schema(
        "batch_permutation", inputs=0, outputs=1, devices=("cpu",), random=True,
        doc="Produces a batch of random integers that can be used as the `indices` of "
            "`permute_batch`: a random permutation of [0, batch_size), one int32 scalar per "
            "sample.",
        args=[Arg("allow_repetitions", T.BOOL, False,
                  doc="Draw every index independently, so indices may repeat."),
              Arg("no_fixed_points", T.BOOL, False,
                  doc="No index equal to its position (output i is never i), where the batch "
                      "has more than one sample.")])

    def infer(self, ws):
        return _operator.Plan([_operator.OutputDesc([()] * ws.batch_size, np.int32, "", 0)])

    def run_cpu(self, ws, plan):
        n = ws.batch_size
        u = ws.uniform_flat(1)
        repeat, derange = self.args["allow_repetitions"], self.args["no_fixed_points"] and n > 1
        if repeat:
            pick = np.minimum((u * (n - 1 if derange else n)).astype(np.int64),
                              n - (2 if derange else 1))
            if derange:
                pick += pick >= np.arange(n)
            out = pick
        elif derange:
            out = _derangement(ws, u)
        else:
            out = np.argsort(u, kind="stable")
        dense = ws.outputs[0].dense()
        if dense is not None and n:
            dense.reshape(-1)[:] = out


def _derangement(ws, u):
    """A permutation of [0, n) without fixed points, from the draws `u` of stream 0 and, where
    needed, of further streams."""
    n = len(u)
    positions = np.arange(n)
    for r in range(_ROUNDS):
        out = np.argsort(u if r == 0 else ws.uniform_flat(1, stream=r), kind="stable")
        if (out != positions).all():
            return out
    u = ws.uniform_flat(1, stream=_ROUNDS)
    out = positions.copy()
    for i in range(n - 1, 0, -1):           # Sattolo: j < i, a single cycle
        j = min(int(u[i] * i), i - 1)
        out[i], out[j] = out[j], out[i]
    return out
