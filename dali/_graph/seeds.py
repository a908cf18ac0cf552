"""Operator seeds derived from the pipeline seed: one rule for graph and debug mode.

An operator with an explicit `seed` argument keeps it.  Operators made from one call with
multiple input sets share a relation id and the seed of the first of them.  Every other
operator takes the next word of DALI's `std::seed_seq{pipeline_seed}` (`rng.derive_seeds`),
in the order operators are handed to `OperatorSeeds.seed`: graph mode goes through the built
graph in topological order, debug mode through operators as they are first called, so both
give the same seeds when the random operators come in the same order.
"""

from __future__ import annotations

from dali._ext import rng


class OperatorSeeds:
    """Hands out operator seeds (see the module docstring).

    Parameters
    ----------
    pipeline_seed : int
    """

    def __init__(self, pipeline_seed):
        self._words = rng.derive_seeds(pipeline_seed, rng.MAX_SEEDS).tolist()
        self._used = 0
        self._by_relation = {}

    def seed(self, explicit, relation_id):
        """The seed of the next operator.

        Parameters
        ----------
        explicit : int or None
            The operator's `seed` argument (None or negative: not given).
        relation_id : hashable
            Operators with the same relation id (multiple input sets) share a seed.
        """
        if explicit is not None and explicit >= 0:
            seed = int(explicit)
        elif relation_id in self._by_relation:
            seed = self._by_relation[relation_id]
        else:
            seed = self._words[self._used % len(self._words)]
            self._used += 1
        self._by_relation.setdefault(relation_id, seed)
        return seed
