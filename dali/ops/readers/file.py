"""fn.readers.file: file contents and integer labels, from a directory tree or a list.

Three ways to say which files (exactly one): `file_root` alone (every immediate subdirectory is
a class, labelled by its position in byte-wise sorted order; files matching `file_filters`,
sorted; files directly in `file_root` are ignored), `file_list` (lines "path label"), or `files`
(+ optional `labels`, else each file's index).  Output 0 is the raw bytes (uint8, 1-D), output 1
the label (int32, shape (1,)); each sample's source info is its path as listed (relative to
`file_root` for a scanned tree).  Order, sharding, shuffling and padding: `_loader`.

As in DALI, files are read ahead: while the pipeline works on one batch, the reader's own
thread reads the files of the next `prefetch_queue_depth` batches (file reads release the GIL),
so reading is off the pipeline's critical path (batches read in under
`_common.INLINE_READ_S`, a few small files, are read when submitted on the pipeline's thread).
A file read before is read assuming the size it had then (one open and one read call, no
fstat); when a file of the batch is not of that size any more, the batch is read again the
general way (sizes first, then contents).
Which files, and in which order, is decided on the pipeline's thread; a file that cannot be read
fails the iteration that returns it.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys

import numpy as np

from dali import _operator, _registry
from dali._ext import file_list, files
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.readers import _common

_OPEN_AT_ONCE = 256       # batches up to this size are read with one path lookup per file
_SIZES_KEPT = 1 << 16     # sizes of the files read last kept (a data set up to this size: all)
# Batches of at least this many bytes are read by the reader's threads together (`read_pool`):
# copying from the page cache is what large files cost (16 camera photos of 1.6 MB: 6.0 -> 3.2
# ms a batch on 2 cores), while batches of small files, whose opens cost more than their
# bytes, read 0.03-0.1 ms slower spread over threads than on one.
_SPREAD_BYTES = 4 << 20
DEFAULT_FILTERS = ["*.jpg", "*.jpeg", "*.png", "*.bmp", "*.tif", "*.tiff", "*.pnm", "*.ppm",
                   "*.pgm", "*.pbm", "*.jp2", "*.webp", "*.flac", "*.ogg", "*.wav"]


@_registry.register
class File(_common.Reader):
    schema = Schema(
        "readers.file", inputs=0, outputs=2, devices=("cpu",), random=True,
        doc="Reads file contents and returns file-label pairs.\n\n"
            "Give exactly one of: `file_root` alone (each immediate subdirectory is a class, "
            "labelled 0, 1, ... in sorted order; the files directly in it matching "
            "`file_filters`), `file_list` (a text file of `path label` lines; paths relative "
            "to `file_root` if given, else to the list's directory) or `files` (with "
            "`labels`, or labelled by their index). Outputs: the file's bytes (uint8, 1-D) "
            "and its label (int32, shape (1,)). The sample order, sharding, shuffling buffer "
            "and padding are real DALI's, sample for sample.",
        args=[
            Arg("file_root", T.STRING, None,
                doc="Directory of the data: scanned for class subdirectories unless `file_list` "
                    "or `files` is given, else the base of their relative paths."),
            Arg("file_list", T.STRING, None,
                doc="A text file with one `filename label` pair per line (names may contain "
                    "spaces, not trailing ones). Exclusive with `files`."),
            Arg("files", T._STRING_VEC, None,
                doc="File paths to read (relative to `file_root` when it is given). Exclusive "
                    "with `file_list`."),
            Arg("labels", T._INT32_VEC, None,
                doc="Labels of `files` (one per file); without it, each file's index."),
            Arg("file_filters", T._STRING_VEC, list(DEFAULT_FILTERS),
                doc="Glob patterns; a scanned file is listed when it matches one of them."),
            Arg("case_sensitive_filter", T.BOOL, False,
                doc="Match `file_filters` and `dir_filters` case-sensitively."),
            Arg("dir_filters", T._STRING_VEC, None,
                doc="Glob patterns selecting the subdirectories of `file_root` to scan."),
            *_common.shuffle_after_epoch_args(),
            *_common.loader_args(),
            _common.on_error_arg(),
        ])

    def setup(self):
        a = self.args
        _common.check_file_sources(a)
        if a["labels"] is not None and a["files"] is None:
            raise RuntimeError("The argument ``labels`` is valid only when file paths are "
                               "provided as ``files`` argument.")
        if a["files"] is not None and a["labels"] is not None and \
                len(a["labels"]) != len(a["files"]):
            raise RuntimeError(f"Provided {len(a['labels'])} labels for {len(a['files'])} files.")
        _common.check_shuffle_after_epoch(a)
        self._cache = {} if a["read_ahead"] else None
        self._sizes = {}        # path -> size when last read (`_read_known`), _SIZES_KEPT at most
        super().setup()

    def loader_options(self):
        return _common.shuffle_after_epoch_options(self.args)

    # -- listing -----------------------------------------------------------------------------
    def list_entries(self):
        a = self.args
        if a["files"] is not None:
            labels = a["labels"] if a["labels"] is not None else range(len(a["files"]))
            entries = _Listed.of(a["file_root"] or "", [os.fsencode(f) for f in a["files"]],
                                 labels)
        elif a["file_list"] is not None:
            entries = self._from_list(a["file_list"])
        else:
            entries = self._scan(a["file_root"])
        if not entries:
            raise RuntimeError("No files found." + (
                f" (in the class subdirectories of {a['file_root']!r} matching "
                f"{a['file_filters']})" if a["file_root"] and a["files"] is None
                and a["file_list"] is None else ""))
        return entries

    def _matcher(self, patterns):
        """name -> whether it matches one of the glob `patterns` (one regular expression)."""
        sensitive = self.args["case_sensitive_filter"]
        match = re.compile("|".join(fnmatch.translate(p if sensitive else p.lower())
                                    for p in patterns) or "(?!)").match
        if sensitive:
            return lambda name: match(name) is not None
        return lambda name: match(name.lower()) is not None

    def _scan(self, root):
        try:
            dirs = sorted(e.name for e in os.scandir(root) if e.is_dir())
        except OSError as e:
            raise RuntimeError(f"Failed to open {root}: {e.strerror}") from None
        if self.args["dir_filters"] is not None:
            keep = self._matcher(self.args["dir_filters"])
            dirs = [d for d in dirs if keep(d)]
        keep = self._matcher(self.args["file_filters"])
        names, labels = [], []
        for label, d in enumerate(dirs):
            with os.scandir(os.path.join(root, d)) as it:
                found = sorted(e.name for e in it if not e.is_dir() and keep(e.name))
            names += [os.fsencode(f"{d}/{n}") for n in found]
            labels += [label] * len(found)
        return _Listed.of(root, names, labels)

    def _from_list(self, list_path):
        try:
            with open(list_path, "rb") as f:
                data = f.read()
        except OSError:
            raise RuntimeError(f"Cannot open: {list_path}") from None
        status, n, starts, lengths, labels = file_list.parse(data)
        if status == file_list.UNUSUAL:
            return self._from_lines(list_path)
        if status == file_list.BAD_LINE:
            line = data.split(b"\n")[n - 1].decode().removesuffix("\r")
            raise RuntimeError(
                f'Incorrect format of the list file "{list_path}":{n} expected file name '
                f"followed by a label; got: {line}")
        try:
            data.decode()
        except UnicodeDecodeError as e:
            raise RuntimeError(f"{list_path} is not UTF-8 text: {e}") from None
        base = self.args["file_root"] or os.path.dirname(list_path)
        return _Listed(base, data, starts, lengths, labels)

    def _from_lines(self, list_path):
        """The entries of the file list `list_path` by Python's rules (see `file_list`)."""
        lines, base = _common.read_file_list(list_path, self.args["file_root"])
        entries = []
        for n, line in enumerate(lines, 1):
            text = line.rstrip()
            if not text:
                continue
            name, _, label = text.rpartition(" ") if " " in text else ("", "", text)
            name = name.rstrip()
            parts = text.split()
            if not name or not label.isdigit() or len(parts) < 2:
                raise RuntimeError(
                    f'Incorrect format of the list file "{list_path}":{n} expected file name '
                    f"followed by a label; got: {line}")
            entries.append((os.path.join(base, name), name, int(label)))
        return entries

    # -- one iteration -----------------------------------------------------------------------
    def infer(self, ws):
        n = ws.batch_size
        entries, storage = self.next_batch(ws)
        return _operator.Plan([_operator.OutputDesc(None, np.uint8, "", ndim=1),
                               _operator.OutputDesc([(1,)] * n, np.int32, "")],
                              entries=entries, contents=storage)

    def run_cpu(self, ws, plan):
        ws.outputs[0] = plan.contents
        ws.outputs[1].dense()[:, 0] = [label for _, _, label in plan.entries]
        ws.out_source_info = [name for _, name, _ in plan.entries]

    def read(self, entries):
        """(storage, None) of `entries`, or (None, (sample, error message)) for the first
        that cannot be read (on the reader's thread; the files are examined and read in C,
        without the GIL)."""
        paths = [path for path, _, _ in entries]
        if self._cache is None:
            storage = self._read_known(paths)
            if storage is not None:
                return storage, None
        cache = self._cache
        cached = [cache.get(p) for p in paths] if cache is not None else [None] * len(paths)
        # encoded once for both calls below
        to_read = [None if c is not None else os.fsencode(p)
                   for p, c in zip(paths, cached, strict=True)]
        opened = files.open_files(to_read) if len(to_read) <= _OPEN_AT_ONCE else None
        found, failure = ((opened.sizes, opened.failure) if opened is not None
                          else files.sizes(to_read))
        if failure is not None:
            i, err = failure
            return None, (i, f"cannot read {paths[i]}: {os.strerror(err)}")
        if cache is None:
            sizes = found.reshape(-1, 1)
        else:
            sizes = [(c.size if c is not None else int(k),)
                     for c, k in zip(cached, found.tolist(), strict=True)]
        storage = BatchStorage.allocate(np.uint8, sizes, ndim=1)
        outs = storage.samples()
        if cache is not None:
            for c, out in zip(cached, outs, strict=True):
                if c is not None:
                    out[...] = c
        pool = self._pool_for(storage.nbytes)
        failure = (opened.read_into(outs, pool) if opened is not None
                   else files.read_into(to_read, outs, pool))
        if failure is not None:
            i, err, got = failure
            if err:
                return None, (i, f"cannot read {paths[i]}: {os.strerror(err)}")
            got = got if got >= 0 else "more"
            return None, (i, f"{paths[i]} changed while it was read ({got} bytes instead of "
                             f"{outs[i].size})")
        if cache is not None:
            for p, c, out in zip(paths, cached, outs, strict=True):
                if c is None:
                    cache[p] = out.copy()
        else:
            if len(self._sizes) > _SIZES_KEPT:
                self._sizes.clear()
            self._sizes.update(zip(paths, found.tolist(), strict=True))
        return storage, None

    def _pool_for(self, nbytes):
        """The threads that read a batch of `nbytes` bytes: the reader's (`_SPREAD_BYTES`), or
        None (the calling thread)."""
        return self.read_pool() if nbytes >= _SPREAD_BYTES else None

    def _read_known(self, paths):
        """The files `paths` read assuming the sizes they had when last read (one open and one
        read call each, no fstat; `files.read_into` finds a size that changed), or None when
        a size is not known or changed (the batch is then read the general way)."""
        sizes = self._sizes
        known = [sizes.get(p) for p in paths]
        if None in known:
            return None
        storage = BatchStorage.allocate(np.uint8, np.array(known, np.int64).reshape(-1, 1),
                                        ndim=1)
        if files.read_into([os.fsencode(p) for p in paths], storage.samples(),
                           self._pool_for(storage.nbytes)) is not None:
            return None
        return storage


class _Listed:
    """Listed files as arrays (a file list's, or a scanned tree's): the names' bytes (the
    list's, or the names back to back), where each name starts in them, its length, its
    label; entry `i` is (path, name, label) made when it is read."""

    def __init__(self, base, data, starts, lengths, labels):
        self._base, self._data = base, data
        self._starts, self._lengths, self._labels = starts, lengths, labels

    @classmethod
    def of(cls, base, names, labels):
        """The entries of the file names `names` (bytes) relative to `base`, and `labels`."""
        lengths = np.fromiter(map(len, names), np.int32, len(names))
        return cls(base, b"".join(names), np.cumsum(lengths, dtype=np.int64) - lengths,
                   lengths, np.array(labels, np.int32))

    def __len__(self):
        return len(self._starts)

    def __getitem__(self, i):
        start = int(self._starts[i])
        name = os.fsdecode(self._data[start:start + int(self._lengths[i])])
        return os.path.join(self._base, name), name, int(self._labels[i])

    def take(self, idx):
        """The entries `idx` (an int64 array), each as `self[i]` (the loader's batches)."""
        data, base, join = self._data, self._base, os.path.join
        encoding = sys.getfilesystemencoding()
        head = base if not base or base.endswith("/") else base + "/"     # os.path.join's
        names = [data[a:a + n].decode(encoding, "surrogateescape")
                 for a, n in zip(self._starts[idx].tolist(), self._lengths[idx].tolist(),
                                 strict=True)]
        return [(head + name if name[:1] != "/" else join(base, name), name, label)
                for name, label in zip(names, self._labels[idx].tolist(), strict=True)]
