"""Readers of record containers (tar shards, LMDB): the shuffle buffer is filled in stored
order, without the fixed pre-permutation `random_shuffle` gives readers.file (DALI's
webdataset and LMDB loaders do not permute their records)."""

from __future__ import annotations

from dali.ops.readers import _common


class InOrderReader(_common.Reader):
    """A `_common.Reader` whose loader shuffles in its buffer only."""

    def _prepare(self):
        args = self.args
        if self.loader is not None or not args["random_shuffle"]:
            super()._prepare()
            return
        self.args = {**args, "random_shuffle": False}
        try:
            super()._prepare()
        finally:
            self.args = args
        self.loader.shuffle = True
        self.loader.fill = args["initial_fill"]
