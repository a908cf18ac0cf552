"""Readers of record containers (tar shards, LMDB).

The shuffle buffer is filled in stored order, without the fixed pre-permutation
`random_shuffle` gives readers.file (DALI's webdataset and LMDB loaders do not permute their
records).  A batch is read ahead (`_common.Reader.next_batch`): `read` returns
`(storages, infos)`, a BatchStorage per output and each output's per-sample source infos,
which `run_cpu` hands over as they are.
"""

from __future__ import annotations

from dali.ops.readers import _common


class InOrderReader(_common.Reader):
    """A `_common.Reader` whose loader shuffles in its buffer only, reading several outputs
    ahead (see the module docstring)."""

    def loader_options(self):
        return {"preshuffle": False}

    def run_cpu(self, ws, plan):
        storages, infos = plan.data
        for k, (storage, info) in enumerate(zip(storages, infos, strict=True)):
            ws.outputs[k] = storage
            ws.set_output_meta(k, ws.sample_ids, info)
        ws.out_source_info = infos[0]

    # several outputs through the read-ahead machinery of _common.Reader
    def first_output(self, data):
        return data[0][0].samples()

    def subset(self, data, idx):
        storages, infos = data
        return ([_common.Reader.subset(self, st, idx) for st in storages],
                [[info[i] for i in idx] for info in infos])

    def combine(self, parts):
        storages = [_common.Reader.combine(self, [p[0][k] for p in parts])
                    for k in range(len(parts[0][0]))]
        infos = [[x for p in parts for x in p[1][k]] for k in range(len(parts[0][1]))]
        return storages, infos
