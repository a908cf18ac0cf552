"""fn.experimental.readers.fits: image HDUs of FITS files, one output per HDU index.

The files are listed as readers.numpy lists them (`_listing`), in DALI's order, sharding,
shuffling and padding (`_loader`).  Each batch is read ahead on the reader's thread: the first
three blocks of every file (`files.read_heads`, without the GIL), whose headers are parsed in
Python (`_fits`: 80-character cards; the HDUs are walked from the primary one, a header beyond
the bytes read costs one more read of that file), then the data of the selected HDUs of all
files with one `files.read_ranges` call (one open per file), straight into the outputs where
the stored element has the output's size, and converted in place to native values (byte order,
BZERO, BSCALE: `dali._ext.kernels.fits`, one nogil call over a pool of the pipeline's thread
count).  `hdu_indices` count from 1 (the primary HDU) as CFITSIO's; the default [2] is the
first extension.  Output k has the shape NAXISn x .. x NAXIS1 of the files' HDU
`hdu_indices[k]` and the type of its values (`_fits.output_dtype`, DALI's through CFITSIO);
all samples of a batch must have the same type and number of dimensions per output (DALI's
rule).  `dtypes` is checked as DALI checks it (one supported type per HDU index) and, as in
DALI, does not change the outputs' types.  Rice-compressed integer images are decompressed
(`rice_batch`, one nogil work item per image) into stored values, converted as the others;
other tile-compressed images raise NotImplementedError naming their compression.
"""

from __future__ import annotations

import os

import numpy as np

from dali import _operator, _registry
from dali._ext import files
from dali._ext.kernels.fits import convert_batch, rice_batch
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.readers import _common, _fits, _listing

_HEAD = 3 * _fits.BLOCK     # a primary header, an extension's header and the first block of data
_SUPPORTED = (T.UINT8, T.UINT16, T.UINT32, T.UINT64, T.INT8, T.INT16, T.INT32, T.INT64,
              T.FLOAT16, T.FLOAT, T.FLOAT64)
_TYPE_NAMES = {T.FLOAT: "float", T.FLOAT64: "double"}


def _count(indices):
    """The number of outputs of `hdu_indices` as given (an int, a list, or None: the default)."""
    return 1 if indices is None or isinstance(indices, int) else len(indices)


def _type_name(t):
    return _TYPE_NAMES.get(t, T(t).name.lower())


@_registry.register
class Fits(_listing.FilesReader):
    schema = Schema(
        "experimental.readers.fits", inputs=0, outputs=lambda args: _count(args.get("hdu_indices")),
        devices=("cpu", "gpu"), random=True,
        doc="Reads image HDUs of FITS files, one output per entry of `hdu_indices`.\n\n"
            "Give exactly one of: `file_root` alone (the files matching `file_filter` in it "
            "and in its immediate subdirectories, sorted by relative path), `file_list` (a "
            "text file of paths, one a line) or `files`. Output k holds the image of HDU "
            "`hdu_indices[k]` of each file (counted from 1, the primary HDU), shaped "
            "NAXISn x .. x NAXIS1, with no layout, in native byte order and of the type of its "
            "physical values (BZERO + BSCALE * stored, as CFITSIO gives them: uint16 for "
            "BITPIX 16 with BZERO 32768, float32 for scaled 16-bit data, ...). All samples of "
            "a batch must have the same type and number of dimensions per output. Of the "
            "tile-compressed images, Rice-compressed integer ones are read. The sample "
            "order, sharding, shuffling buffer and padding are real DALI's. With "
            "device=\"gpu\" the files are read on the host as on the CPU, then uploaded.",
        args=[
            *_listing.file_args("*.fits"),
            Arg("hdu_indices", T._INT32_VEC, [2],
                doc="The HDUs to read (from 1: the primary HDU), one output each; the default "
                    "is the first extension."),
            Arg("dtypes", T._DATA_TYPE_VEC, None,
                doc="Data types of the outputs, one per HDU index (default uint8 each): "
                    "checked to be supported types, as DALI does; as in DALI the outputs have "
                    "the types of the files' values whatever they say."),
            *_listing.reader_args("the HDUs are read from the files for every batch"),
        ])

    def setup(self):
        a = self.args
        _common.check_file_sources(a)
        _common.check_shuffle_after_epoch(a)
        indices = a["hdu_indices"]
        if not indices:
            raise RuntimeError("hdu_indices must name at least one HDU")
        for index in indices:
            if index < 1:
                raise RuntimeError(f"hdu_indices count from 1 (the primary HDU), got {index}")
        dtypes = a["dtypes"]
        if dtypes is not None:
            for t in dtypes:
                if t not in _SUPPORTED:
                    raise RuntimeError(
                        f"Unsupported output dtype {_type_name(t)}. Supported types are: "
                        + ", ".join(_type_name(s) for s in _SUPPORTED))
            if len(dtypes) != len(indices):
                raise RuntimeError("Number of extensions does not match the number of "
                                   "provided types")
        self._parsed = {}       # (header bytes, offset, primary) -> Hdu, at most 1024
        super().setup()

    # -- one iteration -----------------------------------------------------------------------
    def infer(self, ws):
        entries, storages = self.next_batch(ws)       # read ahead on the reader's thread
        return _operator.Plan([_operator.OutputDesc(None, st.dtype, "", ndim=st.ndim)
                               for st in storages], entries=entries, contents=storages)

    def run_cpu(self, ws, plan):
        for k, st in enumerate(plan.contents):
            ws.outputs[k] = st
        ws.out_source_info = [name for _, name in plan.entries]

    # the data read ahead: a BatchStorage per output
    def first_output(self, data):
        return data[0].samples()

    def subset(self, data, idx):
        return [BatchStorage.from_arrays([st.samples()[i] for i in idx]) for st in data]

    def combine(self, parts):
        return [BatchStorage.from_arrays([x for part in parts for x in part[k].samples()])
                for k in range(len(parts[0]))]

    def read(self, entries):
        """(a storage per output, None), or (None, (index, message or NotImplementedError))
        for the first file that cannot be read (on the reader's thread)."""
        paths = [p for p, _ in entries]
        heads, got, sizes, failure = files.read_heads(paths, _HEAD)
        if failure is not None:
            i, err = failure
            return None, (i, f"Failed to open file: {entries[i][1]}: {os.strerror(err)}")
        indices = self.args["hdu_indices"]
        found, walked, span = [], {}, 0
        for i, (path, name) in enumerate(entries):
            try:
                # files whose bytes up to the data of the last HDU needed are those of a file
                # walked before (the same headers, an empty primary HDU) have its HDUs
                key = heads[i, :span].tobytes() if 0 < span <= got[i] else None
                hdus = walked.get(key)
                if hdus is None:
                    hdus = self._walk(path, heads[i, :got[i]].tobytes(), int(sizes[i]),
                                      max(indices))
                    span = hdus[-1].data_offset
                    if span <= got[i]:
                        walked[heads[i, :span].tobytes()] = hdus
                chosen = [hdus[k - 1] for k in indices]
                for k, hdu in zip(indices, chosen, strict=True):
                    _fits.check_image(hdu)
                    if hdu.data_offset + hdu.data_size > sizes[i]:
                        raise _fits.FitsError(
                            f"The file is truncated: the data of HDU {k} ends at byte "
                            f"{hdu.data_offset + hdu.data_size}, the file has {sizes[i]} bytes")
            except _fits.Unsupported as e:
                return None, (i, NotImplementedError(f"{e}. File: {name}"))
            except _fits.FitsError as e:
                return None, (i, f"{e}. File: {name}")
            found.append(chosen)
        return self._load(entries, found, heads, got)

    def _walk(self, path, buf, size, count):
        """The first `count` HDUs of the file `path` of `size` bytes, whose first bytes are
        `buf` (more are read where a header lies beyond them)."""
        hdus, offset, at = [], 0, 0          # `buf` holds the file's bytes from `at`
        if buf[:9] != b"SIMPLE  =":
            raise _fits.FitsError("Not a FITS file: it does not start with SIMPLE = T")
        while len(hdus) < count:
            if offset >= size:
                raise _fits.FitsError(f"Failed to read HDU {len(hdus) + 1}: the file has "
                                      f"{len(hdus)} HDUs (tried to move past end of file)")
            end = _fits.header_end(buf[offset - at:]) if offset >= at else None
            if end is None:
                have = at + len(buf) - offset if offset >= at else 0
                if offset + have >= size:
                    raise _fits.FitsError(f"The header of HDU {len(hdus) + 1} (at byte "
                                          f"{offset}) has no END card before the file ends")
                want = min(max(2 * have, _HEAD), size - offset)
                more = np.empty(want, np.uint8)
                failure = files.read_ranges([path], [offset], [more])
                if failure is not None:
                    _, err, got = failure
                    raise _fits.FitsError("Failed to read the file: " + (
                        os.strerror(err) if err else f"it ends at byte {offset + got}"))
                buf, at = more.tobytes(), offset
                continue
            header = buf[offset - at:offset - at + end]
            key = (header, offset, not hdus)
            hdu = self._parsed.get(key)
            if hdu is None:
                hdu = _fits.parse(header, offset, not hdus)
                if len(self._parsed) >= 1024:
                    self._parsed.clear()
                self._parsed[key] = hdu
            hdus.append(hdu)
            offset = hdu.end
        return hdus

    def _load(self, entries, found, heads, got):
        """The outputs of `entries`, whose selected HDUs are `found` (per sample, per output)
        and whose first `got[i]` bytes are in `heads[i]` (data within them is copied from
        there, not read again), or (None, (index, message)) for a batch of inconsistent types
        or dimensions or a file that cannot be read."""
        n = len(entries)
        storages, reads, todo, compressed = [], [], [], []
        for k in range(len(self.args["hdu_indices"])):
            hdus = [f[k] for f in found]
            types = [_fits.output_dtype(h.bitpix, h.bscale, h.bzero) for h in hdus]
            dtype, ndim = types[0][0], len(hdus[0].shape)
            for i in range(n):
                if len(hdus[i].shape) != ndim:
                    return None, (i, (
                        f"Inconsistent data: All samples in the batch must have the same "
                        f"number of dimensions for outputs with the same idx. Got "
                        f"\"{entries[0][1]}\" with {ndim} dimensions and \"{entries[i][1]}\" "
                        f"with {len(hdus[i].shape)} dimensions on output with idx = {k}"))
                if types[i][0] != dtype:
                    return None, (i, (
                        f"Inconsistent data: All samples in the batch must have the same data "
                        f"type for outputs with the same idx. Got \"{entries[0][1]}\" with "
                        f"data type {dtype} and \"{entries[i][1]}\" with data type "
                        f"{types[i][0]}"))
            storage = BatchStorage.allocate(dtype, [h.shape for h in hdus], ndim=ndim)
            storages.append(storage)
            for i, (out, h) in enumerate(zip(storage.samples(), hdus, strict=True)):
                flat = out.reshape(-1)
                identity = h.bitpix == 8 and dtype == np.uint8
                raw = flat.view(np.uint8) if abs(h.bitpix) // 8 == dtype.itemsize else \
                    np.empty(flat.size * (abs(h.bitpix) // 8), np.uint8)
                target = raw
                if h.tiles is not None:             # the table and heap, decompressed later
                    target = np.empty(h.data_size, np.uint8)
                    compressed.append((target, raw, h, i))
                if h.data_offset + target.size <= got[i]:
                    target[...] = heads[i, h.data_offset:h.data_offset + target.size]
                else:
                    reads.append((i, entries[i][0], h.data_offset, target))
                if not identity:
                    todo.append((raw, flat, h, types[i][1]))
        reads.sort(key=lambda r: r[0])              # a file's HDUs together: one open
        failure = files.read_ranges([r[1] for r in reads], [r[2] for r in reads],
                                    [r[3] for r in reads])
        if failure is not None:
            j, err, end = failure
            i = reads[j][0]
            why = os.strerror(err) if err else f"it ends {end} bytes into the data read"
            return None, (i, f"Failed to read file: {entries[i][1]}: {why}")
        if compressed:
            failure = rice_batch(self.read_pool(), [c[0] for c in compressed],
                                 [c[1] for c in compressed], [c[2].tiles for c in compressed],
                                 [c[2].shape[::-1] for c in compressed])
            if failure is not None:
                j, tile = failure
                i = compressed[j][3]
                return None, (i, f"The Rice-compressed data of tile {tile} is corrupt. File: "
                                 f"{entries[i][1]}")
        if todo:
            convert_batch(self.read_pool(), [t[0] for t in todo], [t[1] for t in todo],
                          [t[2].bitpix for t in todo], [t[3] for t in todo],
                          [float(t[2].bscale) for t in todo], [t[2].bzero for t in todo])
        return storages, None
