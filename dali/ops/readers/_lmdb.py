"""LMDB databases for readers.caffe and readers.caffe2 (DALI's LMDB loader): the records of
every database of `path`, concatenated in path order, each database in key order, and
`LmdbReader`, what the two readers share (the `path` check, listing, reading ahead).

The keys are listed once (one blob of bytes and their offsets, not a Python object per
record); a batch is read with one read transaction per database it touches, and parsed while
they are open, straight from the databases' maps (the values are not copied into bytes
objects first).  A database is
opened once a process (read-only, kept open: `lmdb` refuses a second open of a path).  The `lmdb`
package is imported when a reader is built (`pip install lmdb`).
"""

from __future__ import annotations

import contextlib
import os

import numpy as np

from dali import _operator
from dali._ext import records
from dali.ops.readers import _in_order

_ENVS = {}       # realpath -> open read-only environment (lmdb opens a path once a process)


def _lmdb():
    try:
        import lmdb
    except ImportError:
        raise ImportError("reading LMDB databases needs the `lmdb` package: "
                          "pip install lmdb") from None
    return lmdb


class Databases:
    """The records of the LMDB databases at `paths` (a list of directories)."""

    def __init__(self, paths):
        lmdb = _lmdb()
        self.paths = list(paths)
        self._envs = []
        keys, ends, self.first = [], [0], [0]
        for path in self.paths:
            real = os.path.realpath(path)
            env = _ENVS.get(real)
            if env is None:
                try:
                    env = lmdb.open(path, readonly=True, lock=False, readahead=False,
                                    max_readers=126, subdir=True)
                except lmdb.Error as e:
                    raise RuntimeError(f"LMDB error opening {path}: {e}") from None
                _ENVS[real] = env
            self._envs.append(env)
            with env.begin(buffers=True) as txn:
                for key in txn.cursor().iternext(keys=True, values=False):
                    keys.append(bytes(key))
                    ends.append(ends[-1] + len(keys[-1]))
            self.first.append(len(keys))
        self._keys = b"".join(keys)
        self._info_prefixes = [f"{p} at key " for p in self.paths]
        self._key_ends = np.array(ends, np.int64)
        self.first = np.array(self.first, np.int64)

    def __len__(self):
        return int(self.first[-1])

    def name(self, index):
        """Record `index` as its source info names it: `<path> at key <key>`."""
        db = int(np.searchsorted(self.first, index, side="right")) - 1
        return records.source_infos(self._info_prefixes, np.array([db], np.int64), self._keys,
                                    self._key_ends[index:index + 1],
                                    self._key_ends[index + 1:index + 2], errors="replace",
                                    cut_at_nul=True)[0]

    def read(self, indices, parse):
        """`parse(values, infos)` of the records `indices`, called while their read
        transactions are open: each value a buffer into its database's map (valid during the
        call only: `parse` copies what it keeps), and DALI's source info `<path> at key
        <key>` (the key up to a NUL)."""
        rec = np.asarray(indices, np.int64)
        starts, ends = self._key_ends[rec], self._key_ends[rec + 1]
        blob = self._keys
        keys = [blob[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
        if len(self._envs) == 1:
            with self._envs[0].begin(buffers=True) as txn:
                return self._parse(parse, list(map(txn.get, keys)), keys,
                                   np.zeros(len(rec), np.int64), starts, ends)
        dbs = np.searchsorted(self.first, rec, side="right") - 1
        with contextlib.ExitStack() as stack:
            gets = {db: stack.enter_context(self._envs[db].begin(buffers=True)).get
                    for db in np.unique(dbs).tolist()}
            values = [gets[db](key) for db, key in zip(dbs.tolist(), keys, strict=True)]
            return self._parse(parse, values, keys, dbs, starts, ends)

    def _parse(self, parse, values, keys, dbs, starts, ends):
        """`read`'s call of `parse`, in the transactions of `values` (of the databases
        `dbs`, at the keys `keys`, spans `starts`..`ends` of the blob of keys)."""
        if None in values:
            j = values.index(None)
            raise RuntimeError(f"{self.paths[dbs[j]]}: the record at key {keys[j]!r} "
                               f"disappeared")
        infos = records.source_infos(self._info_prefixes, dbs, self._keys, starts, ends,
                                     errors="replace", cut_at_nul=True)
        return parse(values, infos)


class LmdbReader(_in_order.InOrderReader):
    """A reader of the records of the LMDB databases of its `path` argument, read ahead on the
    reader's thread; subclasses parse the records (`read`: a record that does not parse is
    the batch's error, or skipped with `on_error="skip"`)."""

    def setup(self):
        if not self.args["path"]:
            raise RuntimeError("Argument 'path' is required.")
        super().setup()

    def list_entries(self):
        self._db = Databases(self.args["path"])
        if not len(self._db):
            raise RuntimeError(f"No records found in {self.args['path']}.")
        return range(len(self._db))

    def infer(self, ws):
        _, data = self.next_batch(ws)                 # read ahead on the reader's thread
        return _operator.Plan([_operator.OutputDesc(None, st.dtype, "", ndim=st.ndim)
                               for st in data[0]], data=data)

    def entry_name(self, entry):
        return self._db.name(entry)
