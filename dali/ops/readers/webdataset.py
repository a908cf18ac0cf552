"""fn.readers.webdataset: samples of WebDataset tar shards, one output per extension set.

A sample is a run of consecutive regular files of an archive with the same name up to the
first dot of the last path component (the rest is the component's extension); names starting
with a dot are passed over.  The archives are scanned at build (`_tar.members`), or their
index files (`index_paths`, written by `python -m dali.tools.wds2idx`) are read instead.
Output k holds the sample's component whose extension is one of the `;`-separated alternatives
of `ext[k]` (the first such component; a component may fill several outputs), as `dtypes[k]`
(uint8 by default).  Samples lacking a component are kept with an empty output, skipped or
refused (`missing_component_behavior`), DALI's way: the test counts matching components, not
filled outputs.  The data set is held as arrays (per sample its archive; per sample and
output the data offset, the size and where the file's name is), and each batch is gathered
from them and read in one call without the GIL (`_ext/kernels/webdataset.pyx`: components
stored close together, as a batch in archive order, with one preadv), ahead
(`_common.Reader.next_batch`).  Each output's source info is
`<archive>:<offset>:<file name>` ("" for an empty output).  Order, sharding, shuffling and
padding: `_loader`.

`on_error="skip"` skips the samples that cannot be read: a component past the end of its
archive (an archive truncated after indexing, or one cut inside a file's data, whose scan then
lists that file with the size its header gives, as the last one), and, with
`missing_component_behavior="error"`, the samples lacking a component (kept in the index, so
that they are listed in `reader_meta()["skipped"]`, instead of failing the build).  A scanned
archive cut inside a header, or with a corrupted header (a bad checksum: garbage in a header
block), gives the samples of the members before it; the rest of it is listed in
`reader_meta()["skipped"]` once (`<archive> from byte <offset>`, the reason naming the archive
and the byte), with a warning when the pipeline is built.  An archive read through its index
file is not scanned: its headers are never read, and the components the index gives are read
whatever the headers around them hold (as in DALI).
"""

from __future__ import annotations

import os
import warnings

import numpy as np

from dali import _operator, _registry
from dali._ext import records
from dali._ext.kernels import webdataset as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali._types import dtype_of
from dali.ops.readers import _common, _in_order, _tar

_SUPPORTED = (T.UINT8, T.UINT16, T.UINT32, T.UINT64, T.INT8, T.INT16, T.INT32, T.INT64,
              T.FLOAT16, T.FLOAT, T.FLOAT64)
_SUPPORTED_NAMES = ("uint8, uint16, uint32, uint64, int8, int16, int32, int64, float16, float, "
                    "double")
_BEHAVIOURS = {"": "empty", "empty": "empty", "skip": "skip", "error": "error"}
INDEX_VERSIONS = ("v1.1", "v1.2")


def _index_error(path, line, details):
    return RuntimeError(f'Malformed index file at "{path}" line {line} - {details}')


def read_index(path):
    """The samples of a webdataset index file: (components, starts, lines) where components is
    a list of (ext, offset, size, filename) and sample j has components[starts[j]:starts[j+1]]
    (line lines[j] of the file)."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read().split("\n")
    except OSError as e:
        raise RuntimeError(f"cannot open the index file {path}: {e.strerror}") from None
    head = text[0].split()
    if not head:
        raise _index_error(path, 0, "no version signature found")
    if head[0] not in INDEX_VERSIONS:
        raise _index_error(path, 0, f"Unsupported version of the index file ({head[0]}).")
    with_names = head[0] == "v1.2"
    try:
        count = int(head[1])
    except (IndexError, ValueError):
        raise _index_error(path, 0, "no sample count found") from None
    if count <= 0:
        raise _index_error(path, 0, "sample count must be positive")
    width = 4 if with_names else 3
    components, starts = [], [0]
    for line in range(1, count + 1):
        words = text[line].split() if line < len(text) else []
        if not words:
            raise _index_error(path, line, "no extensions provided for the sample")
        for at in range(0, len(words), width):
            record = words[at:at + width]
            try:
                if len(record) < width:
                    raise ValueError
                offset, size = int(record[1]), int(record[2])
            except ValueError:
                raise _index_error(path, line, (
                    "Could not find all necessary component parameters (offset, size or "
                    "filename). Every record in the index file should look like: `<ext> "
                    "<offset> <size> <filename>`." if with_names else
                    "Could not find all necessary component parameters (offset or size). "
                    "Every record in the index file should look like: `<ext> <offset> "
                    "<size>`.")) from None
            if offset % _tar.BLOCK:
                raise _index_error(path, line, "tar offset is not a multiple of tar block size "
                                               "(512), perhaps the size value is exported "
                                               "before offset?")
            components.append((record[0], offset, size, record[3] if with_names else ""))
        starts.append(len(components))
    return components, starts, list(range(1, count + 1))


def scan_archive(path, keep_cut=False):
    """`read_index`'s result for an archive without an index, grouped as DALI groups it: a new
    sample starts where the base name changes (a first member with a hidden name, or an archive
    without files, gives an empty sample, as in DALI), and the archive's cut (`keep_cut`: the
    samples before a truncation or a corrupted header, `_tar.members_to_cut`; else they raise,
    and the cut is None)."""
    if keep_cut:
        names, offsets, sizes, cut = _tar.members_to_cut(path)
    else:
        (names, offsets, sizes), cut = _tar.members(path), None
    if cut is not None and not names:
        return [], [0], [], cut
    components, starts = [], [0]
    last = _tar.split_name(names[0])[0] if names else None
    for name, offset, size in zip(names, offsets.tolist(), sizes.tolist(), strict=True):
        base, ext = _tar.split_name(name)
        if not base:
            continue
        if base != last:
            starts.append(len(components))
            last = base
        components.append((ext, offset, size, name))
    starts.append(len(components))
    return components, starts, [0] * (len(starts) - 1), cut


@_registry.register
class Webdataset(_in_order.InOrderReader):
    schema = Schema(
        "readers.webdataset", inputs=0, outputs=lambda args: len(args["ext"]),
        devices=("cpu",), random=True,
        doc="Reads samples of WebDataset tar archives: one output per extension set of `ext` "
            "(the component files of a sample share their name up to the first dot). "
            "Archives without an index file are scanned when the pipeline is built. The sample "
            "order, sharding, shuffling buffer and padding are real DALI's.",
        args=[
            Arg("paths", T._STRING_VEC, None,
                doc="The webdataset archives (tar files), read in this order."),
            Arg("ext", T._STRING_VEC, None,
                doc="Extension set of each output: alternatives separated by `;` (they may "
                    "contain dots), e.g. `\"jpg;png\"`."),
            Arg("index_paths", T._STRING_VEC, None,
                doc="Index file of each archive (same length as `paths`), as written by "
                    "`python -m dali.tools.wds2idx`; without them the archives are scanned."),
            Arg("dtypes", T._DATA_TYPE_VEC, None,
                doc="Data type of each output (default uint8); a component's size must be a "
                    "multiple of its output type's size."),
            Arg("missing_component_behavior", T.STRING, "",
                doc="What to do with a sample lacking a component of some output: `empty` "
                    "(the default, also for ``\"\"``) gives an empty tensor, `skip` drops the "
                    "sample, `error` raises."),
            Arg("case_sensitive_extensions", T.BOOL, True,
                doc="Match the extensions of `ext` case-sensitively."),
            *_common.shuffle_after_epoch_args("archives"),
            *[a if a.name != "read_ahead" else
              Arg("read_ahead", T.BOOL, False, doc="Read the archives ahead.",
                  ignored="byte ranges are read on demand, with plain reads")
              for a in _common.loader_args()],
            _common.on_error_arg(),
        ])

    def setup(self):
        a = self.args
        if a["paths"] is None:
            raise RuntimeError("Argument 'paths' is required.")
        if a["ext"] is None:
            raise RuntimeError("Argument 'ext' is required.")
        if a["index_paths"] and len(a["index_paths"]) != len(a["paths"]):
            raise RuntimeError("The number of index files, if any, must match the number of "
                               "archives in the dataset")
        if not a["paths"]:
            raise RuntimeError("No webdataset archives provided")
        behaviour = _BEHAVIOURS.get(a["missing_component_behavior"].lower())
        if behaviour is None:
            raise RuntimeError(f"Invalid value for missing_component_behavior "
                               f"'{a['missing_component_behavior']}' possible values are: "
                               f"skip, error, empty")
        fold = (lambda s: s) if a["case_sensitive_extensions"] else str.lower
        self._fold = fold
        self._behaviour = behaviour
        self._exts = [{fold(e) for e in spec.split(";")} for spec in a["ext"]]
        dtypes = a["dtypes"] if a["dtypes"] is not None else [T.UINT8] * len(self._exts)
        for t in dtypes:
            if t not in _SUPPORTED:
                raise RuntimeError(f"Unsupported output dtype {t.name.lower()}. Supported "
                                   f"types are: {_SUPPORTED_NAMES}")
        if len(dtypes) != len(self._exts):
            raise RuntimeError("Number of extensions does not match the number of provided "
                               "types")
        self._dtypes = [dtype_of(t) for t in dtypes]
        self._paths = [os.fsencode(p) for p in a["paths"]]
        _common.check_shuffle_after_epoch(a, with_random_shuffle=True)
        super().setup()

    def loader_options(self):
        bounds = np.searchsorted(self._shard, np.arange(len(self._paths) + 1))
        return {**super().loader_options(),
                **_common.shuffle_after_epoch_options(self.args, bounds)}

    # -- the index -----------------------------------------------------------------------------
    def list_entries(self):
        a = self.args
        n_out = len(self._exts)
        by_ext = {}
        for k, exts in enumerate(self._exts):
            for e in exts:
                by_ext.setdefault(e, []).append(k)
        shard_of, line_of, offsets, sizes, name_at, name_len = [], [], [], [], [], []
        names = []
        name_bytes = 0
        warned = False
        self._archive_sizes = []
        self._unreadable = {}          # sample -> its error, found when listing (and `_bad`)
        for s, path in enumerate(a["paths"]):
            try:
                self._archive_sizes.append(os.path.getsize(path))
            except OSError as e:
                raise RuntimeError(f"cannot open {path}: {e.strerror}") from None
            if a["index_paths"]:
                components, starts, lines = read_index(a["index_paths"][s])
                where = f'index file at "{a["index_paths"][s]}" line '
            else:
                try:
                    components, starts, lines, cut = scan_archive(path, self._skip)
                except _tar.TarError as e:
                    raise RuntimeError(str(e)) from None
                if cut is not None:
                    self.skip_unlisted(f"{path} from byte {cut[0]}", cut[1])
                where = f'tar file at "{path}"'
            for j, line in enumerate(lines):
                source = where + str(line) if a["index_paths"] else where
                off, size = [-1] * n_out, [-1] * n_out
                at, length_of = [0] * n_out, [0] * n_out
                matched = 0
                for ext, offset, length, filename in components[starts[j]:starts[j + 1]]:
                    outs = by_ext.get(self._fold(ext), ())
                    encoded = filename.encode("utf-8", "surrogateescape")
                    hit = False
                    for k in outs:
                        if size[k] >= 0:
                            if not warned:
                                warnings.warn(f"Multiple components matching output {k} at "
                                              f"{source}.", stacklevel=2)
                                warned = True
                            continue
                        if length % self._dtypes[k].itemsize:
                            raise RuntimeError(f"Error in index file at {source} - component "
                                               f"size and dtype incompatible")
                        off[k], size[k] = offset, length
                        at[k], length_of[k] = name_bytes, len(encoded)
                        hit = True
                    if hit:
                        matched += 1
                        names.append(encoded)
                        name_bytes += len(encoded)
                if matched < n_out:
                    if self._behaviour == "skip":
                        continue
                    if self._behaviour == "error" and not self._skip:
                        raise RuntimeError(f"Underful sample detected at {source}")
                    if self._behaviour == "error":
                        self._unreadable[len(shard_of)] = f"Underful sample detected at {source}"
                shard_of.append(s)
                line_of.append(line)
                offsets.append(off)
                sizes.append(size)
                name_at.append(at)
                name_len.append(length_of)
        self._shard = np.array(shard_of, np.int32)
        self._line = np.array(line_of, np.int32)
        self._offset = np.array(offsets, np.int64).reshape(-1, n_out)
        self._size = np.array(sizes, np.int64).reshape(-1, n_out)
        self._name_at = np.array(name_at, np.int64).reshape(-1, n_out)
        self._name_len = np.array(name_len, np.int64).reshape(-1, n_out)
        self._names = b"".join(names)
        if a["index_paths"]:
            limits = np.array(self._archive_sizes, np.int64)[self._shard]
            outside = ((self._size >= 0) & (self._offset >= limits[:, None])).any(axis=1)
            for s in np.flatnonzero(outside).tolist():
                self._unreadable.setdefault(s, str(_index_error(
                    a["index_paths"][self._shard[s]], int(self._line[s]),
                    "offset is outside of the archive file")))
        self._bad = np.zeros(len(shard_of), bool)
        self._bad[list(self._unreadable)] = True
        return range(len(shard_of))

    # -- one iteration -----------------------------------------------------------------------
    def infer(self, ws):
        entries, data = self.next_batch(ws)           # read ahead on the reader's thread
        return _operator.Plan([_operator.OutputDesc(None, dt, "", ndim=1)
                               for dt in self._dtypes], data=data)

    def entry_name(self, entry):
        """The source info of the sample's first component (`<archive>:<offset>:<file name>`),
        or its index in the data set when it has none."""
        path = self.args["paths"][self._shard[entry]]
        present = np.flatnonzero(self._size[entry] >= 0)
        if not present.size:
            return f"sample {entry} of the data set ({path})"
        k = present[0]
        at = self._name_at[entry, k]
        name = self._names[at:at + self._name_len[entry, k]]
        return f"{path}:{self._offset[entry, k]}:{name.decode('utf-8', 'surrogateescape')}"

    def read(self, entries):
        """((a storage per output, the source infos per output), None), or (None, (index,
        message)) for the first sample that cannot be read (on the reader's thread: the
        components are read in one call without the GIL, `_kernel.read_samples`)."""
        ids = np.asarray(entries, np.int64)
        if self._unreadable:
            bad = np.flatnonzero(self._bad[ids])
            if bad.size:
                return None, (int(bad[0]), self._unreadable[int(ids[bad[0]])])
        storages, failure = _kernel.read_samples(self._paths, ids, self._shard,
                                                 self._offset, self._size)
        if failure is not None:
            i, k, err, got = failure
            path = self.args["paths"][self._shard[ids[i]]]
            detail = os.strerror(err) if err else \
                f"the archive ends {got} bytes into a {self._size[ids[i], k]}-byte component"
            return None, (i, f"Error reading from a file {path}: {detail}")
        sizes, offsets, shards = self._size[ids], self._offset[ids], self._shard[ids]
        present = sizes >= 0
        for k, dtype in enumerate(self._dtypes):
            if dtype != np.uint8:
                storages[k] = storages[k].viewed_as(
                    dtype, np.maximum(sizes[:, k:k + 1], 0) // dtype.itemsize)
        infos = [self._source_infos(ids, shards, offsets, present, k)
                 for k in range(len(storages))]
        return (storages, infos), None

    def _source_infos(self, ids, shards, offsets, present, k):
        """Output k's source info of each sample: `<archive>:<offset>:<file name>`, or ""."""
        starts = self._name_at[ids, k]
        return records.source_infos([f"{p}:" for p in self.args["paths"]], shards,
                                    self._names, starts, starts + self._name_len[ids, k],
                                    numbers=offsets[:, k], present=present[:, k],
                                    errors="surrogateescape")
