"""What the record readers (readers.tfrecord, readers.mxnet) share: the index of a data set of
records in files, kept as arrays (file, offset, size of each record; millions of records take
a few bytes each), reading a batch of records as byte ranges (`files.read_ranges`, without the
GIL, one open per run of records of the same file), and outputs of several tensors passed
through the read-ahead machinery of `_common.Reader`.

Record readers keep the records in their stored order under `random_shuffle` (the shuffle
buffer draws from them; no up-front permutation, as DALI's indexed loaders), shuffle the order
of the files under `shuffle_after_epoch` (the records of each in stored order), and name a
record "<path> at index <offset>" (its source info).
"""

from __future__ import annotations

import os

import numpy as np

from dali._ext import files, records
from dali._ext.tensor_storage import BatchStorage
from dali.ops.readers import _common


class RecordReader(_common.Reader):
    """A reader of records listed by `index() -> (file ids, offsets, sizes)` (arrays) over
    `self.args["path"]`; `read` returns a list of BatchStorage, one per output."""

    def index(self):
        raise NotImplementedError

    def setup(self):
        _common.check_shuffle_after_epoch(self.args, with_random_shuffle=True)
        super().setup()

    def loader_options(self):
        bounds = np.searchsorted(self._file_ids, np.arange(len(self._paths) + 1))
        return {"preshuffle": False, **_common.shuffle_after_epoch_options(self.args, bounds)}

    def list_entries(self):
        file_ids, offsets, sizes = self.index()
        self._file_ids = np.asarray(file_ids, np.int32)
        self._offsets = np.asarray(offsets, np.int64)
        self._sizes = np.asarray(sizes, np.int64)
        self._paths = [os.fsencode(p) for p in self.args["path"]]
        self._info_prefixes = [f"{p} at index " for p in self.args["path"]]
        if not len(self._offsets):
            raise RuntimeError(f"{self.spec.display_name}: the index lists no records")
        # records k and k + 1 are one byte range when they have the same `_run`
        follows = (np.diff(self._file_ids) == 0) & \
            (self._offsets[1:] == self._offsets[:-1] + self._sizes[:-1])
        self._run = np.concatenate([[0], np.cumsum(~follows)])
        return range(len(self._offsets))

    def entry_name(self, entry):
        return f"{self.args['path'][self._file_ids[entry]]} at index {self._offsets[entry]}"

    def read_records(self, entries):
        """(a contiguous BatchStorage of the records, 1-D uint8 samples, None), or (None,
        (index, message)).  Records that follow each other in one file (a batch in stored
        order) are read as one range."""
        idx = np.asarray(entries, np.int64)
        sizes = self._sizes[idx]
        storage = BatchStorage.allocate(np.uint8, sizes.reshape(-1, 1), ndim=1)
        first = entries[0]
        if self._run[first] == self._run[entries[-1]] and \
                entries == list(range(first, first + len(entries))):
            failure = files.read_ranges([self._paths[self._file_ids[first]]],
                                        self._offsets[idx[:1]], [storage.flat()])
            if failure is not None:          # in the record where the range stops
                _, err, got = failure
                ends = np.cumsum(sizes)
                i = min(int(np.searchsorted(ends, got, side="right")), len(idx) - 1)
                failure = i, err, got - int(ends[i] - sizes[i])
        else:
            paths = [self._paths[k] for k in self._file_ids[idx].tolist()]
            failure = files.read_ranges(paths, self._offsets[idx], storage.samples())
        if failure is None:
            return storage, None
        i, err, got = failure
        why = os.strerror(err) if err else f"the file ends {got} bytes into the record"
        return None, (i, f"cannot read the record {self.entry_name(entries[i])}: {why}")

    # several outputs through the read-ahead machinery
    def first_output(self, data):
        return data[0].samples()

    def subset(self, data, idx):
        return [_common.Reader.subset(self, storage, idx) for storage in data]

    def combine(self, parts):
        return [_common.Reader.combine(self, list(column))
                for column in zip(*parts, strict=True)]

    def run_cpu(self, ws, plan):
        for k, storage in enumerate(plan.contents):
            ws.outputs[k] = storage
        idx = np.asarray(plan.entries, np.int64)        # entry_name's, in one call
        none = np.zeros(len(idx), np.int64)
        ws.out_source_info = records.source_infos(
            self._info_prefixes, self._file_ids[idx], b"", none, none,
            numbers=self._offsets[idx], colon=False)


def file_sizes(paths, op_name):
    """Sizes of the files `paths`, or a RuntimeError naming the one that cannot be examined."""
    try:
        return [os.stat(p).st_size for p in paths]
    except OSError as e:
        raise RuntimeError(f"{op_name}: cannot read {e.filename}: {e.strerror}") from None


def index_pairs(index, op_name, lines):
    """The (n, 2) int64 table of the whitespace-separated number pairs of index file `index`
    (`lines`: its line format, for the error), or a RuntimeError; text that is not numbers
    counts as one number (an odd count)."""
    try:
        with open(index) as f:
            table = np.array(f.read().split(), np.int64)
    except OSError as e:
        raise RuntimeError(f"{op_name}: cannot read {e.filename}: {e.strerror}") from None
    except ValueError:
        table = np.zeros(1, np.int64)
    if table.size % 2:
        raise RuntimeError(f"{op_name}: {index} is not an index file (lines `{lines}`)")
    return table.reshape(-1, 2)
