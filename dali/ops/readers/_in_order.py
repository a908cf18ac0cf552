"""Readers of record containers (tar shards, LMDB): the shuffle buffer is filled in stored
order, without the fixed pre-permutation `random_shuffle` gives readers.file (DALI's
webdataset and LMDB loaders do not permute their records)."""

from __future__ import annotations

from dali.ops.readers import _common


class InOrderReader(_common.Reader):
    """A `_common.Reader` whose loader shuffles in its buffer only."""

    def loader_options(self):
        return {"preshuffle": False}
