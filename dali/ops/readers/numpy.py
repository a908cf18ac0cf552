"""fn.readers.numpy: arrays from .npy files, whole or a region of interest of each.

Which files (exactly one way): `file_root`, `file_list` or `files` (`_listing`).  Order,
sharding, shuffling and padding: `_loader`.

Each batch is read ahead on the reader's thread (as readers.file does), in C without the GIL: first
the head of every file (`files.read_heads`), whose header is parsed and checked in Python (`_npy`;
with `cache_header_information` the parsed headers are kept per file), then the array data
(`files.read_regions`).  Whole arrays of a data set of one type and shape take one open per file
instead: once a batch's files all had one header, the next batch is read assuming it
(`files.read_split`: each file's header bytes into a scratch row, its data straight into the
contiguous batch, the files spread over a pool of the pipeline's thread count when the batch has
many files or bytes), and kept when every file had exactly those header bytes and that size; else (a
file changed, is missing, longer or shorter) the batch is read again the general way, which says
what is wrong.  Files are never memory-mapped (`dont_use_mmap` is ignored; DALI maps them, then
copies into its batch): samples that view mappings were measured slower wherever they must end
up in one block (pipeline outputs, uploads) and for small files, faster only for consumers of
files over ~0.5 MB (docs/readers.md), and touching a page of a mapping past the end of a file
truncated underneath raises SIGBUS, which kills the process, whereas a read of a truncated file
comes back short and is reported as an error naming it.  A file replaced
(renamed over) while a batch is read gives the batch its old or its new contents; one rewritten in
place during the read may give a mix, as with any reader.  With a region of interest (`roi_start` /
`rel_roi_start`, `roi_end` / `rel_roi_end` / `roi_shape` / `rel_roi_shape`, over `roi_axes`), only
the bytes of the region are read: one read per contiguous run of it in the file, or, where the runs
lie close together (rows of an image), the span they cover, read through a bounded window; once a
batch's files all had one header, the next batch's regions are read assuming it with one open per
file (`files.read_region_split`, on the same pool), checked as the whole reads are.  Coordinates
round half away from zero (start = round(start), end = round(start + shape)) as DALI's slicing does;
`out_of_bounds_policy` "error" rejects a region outside the array, "trim_to_shape" cuts it, "pad"
fills the outside with `fill_value` (converted with saturation to the array's type).  Fortran-order
files are read in their stored order and transposed into C order.  ROI arguments given as argument
inputs are known only when the batch runs: that batch is then read on the pipeline's thread (still
one nogil call).  The values belong to batch positions: with `on_error="skip"` the sample that
replaces a skipped one is read with those of the position it fills (the samples after a skipped
one move up a position, and the batch is completed from the loader).  Skipping drops files that
cannot be read (missing, a bad header, short data); a region outside an array or a sample of
another type or number of dimensions than its batch's stays an error (`_common.Unskippable`):
the samples replacing it would not fit either.

All samples of a batch must share the type and the number of dimensions (DALI's rule).  The
output has no layout.
"""

from __future__ import annotations

import functools
import math
import os

import numpy as np

from dali import _operator, _registry
from dali._ext import files
from dali._ext.kernels.transpose import transpose_array
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _npy, _slice_window
from dali.ops.readers import _common, _listing

_STARTS = ("roi_start", "rel_roi_start")
_ENDS = ("roi_end", "rel_roi_end", "roi_shape", "rel_roi_shape")
_POLICIES = ("error", "pad", "trim_to_shape")
_MAX_DIMS = 32
_PLANS_LIMIT = 4096         # headers whose plans are kept (data sets of many shapes: the latest)


@_registry.register
class Numpy(_listing.FilesReader):
    schema = Schema(
        "readers.numpy", inputs=0, outputs=1, devices=("cpu", "gpu"), random=True,
        doc="Reads NumPy arrays (.npy files), whole or a region of interest of each.\n\n"
            "Give exactly one of: `file_root` alone (the files matching `file_filter` in it "
            "and in its immediate subdirectories, sorted by relative path), `file_list` (a "
            "text file of paths, one a line) or `files`. The output has the type and shape "
            "stored in each file (C order, also for Fortran-order files) and no layout; all "
            "samples of a batch must have the same type and number of dimensions. With a "
            "region of interest only the bytes of the region are read from the file. The "
            "sample order, sharding, shuffling buffer and padding are real DALI's. With "
            "device=\"gpu\" the files are read on the host as on the CPU, then uploaded "
            "(DALI reads them with GPUDirect Storage).",
        args=[
            *_listing.file_args("*.npy"),
            Arg("cache_header_information", T.BOOL, False,
                doc="Keep each file's parsed header after it is first read (the file is "
                    "then assumed not to change)."),
            Arg("roi_start", T._INT32_VEC, None, tensor=True,
                doc="Start of the region of interest, in elements (over `roi_axes`). "
                    "Excludes `rel_roi_start`."),
            Arg("rel_roi_start", T._FLOAT_VEC, None, tensor=True,
                doc="Start of the region of interest, relative to the extent (0..1)."),
            Arg("roi_end", T._INT32_VEC, None, tensor=True,
                doc="End of the region of interest (exclusive), in elements. Excludes "
                    "`rel_roi_end`, `roi_shape` and `rel_roi_shape`."),
            Arg("rel_roi_end", T._FLOAT_VEC, None, tensor=True,
                doc="End of the region of interest, relative to the extent."),
            Arg("roi_shape", T._INT32_VEC, None, tensor=True,
                doc="Shape of the region of interest, in elements."),
            Arg("rel_roi_shape", T._FLOAT_VEC, None, tensor=True,
                doc="Shape of the region of interest, relative to the extent."),
            Arg("roi_axes", T._INT32_VEC, [],
                doc="Dimensions the ROI values refer to, in their order (negative: from the "
                    "back); empty: all dimensions. A single value applies to every axis."),
            Arg("out_of_bounds_policy", T.STRING, "error",
                doc='A region outside the array: "error" (an error), "pad" (filled with '
                    '`fill_value`) or "trim_to_shape" (cut to the array).'),
            Arg("fill_value", T.FLOAT, 0.0,
                doc='Value of the padding with out_of_bounds_policy="pad" (converted to the '
                    "array's type with saturation)."),
            *_listing.reader_args(
                "the arrays are read from the files for every batch",
                Arg("use_o_direct", T.BOOL, False,
                    doc="Read bypassing the system's page cache.",
                    ignored="files are read through the page cache"),
                Arg("register_buffers", T.BOOL, True,
                    doc="Register the I/O buffers with cuFile (GPU backend only).",
                    ignored="cuFile: the GPU reader reads on the host, then uploads")),
        ])

    def setup(self):
        a = self.args
        _common.check_file_sources(a)
        _common.check_shuffle_after_epoch(a)
        if a["out_of_bounds_policy"] not in _POLICIES:
            raise RuntimeError(f"Not supported out_of_bounds_policy: "
                               f"{a['out_of_bounds_policy']}")
        given = self.spec.given
        if all(n in given for n in _STARTS):
            raise RuntimeError('"roi_start" and "rel_roi_start" arguments are mutually '
                               "exclusive")
        if sum(n in given for n in _ENDS) > 1:
            raise RuntimeError('"roi_end", "rel_roi_end", "roi_shape", and "rel_roi_shape" '
                               "arguments are mutually exclusive")
        if a["use_o_direct"] and not a["dont_use_mmap"]:
            raise RuntimeError("Cannot use use_o_direct with ``dont_use_mmap=False``.")
        self._roi_names = [n for n in (*_STARTS, *_ENDS) if n in given]
        self._headers = {} if a["cache_header_information"] else None
        self._plans = {}        # header -> `_plan` of a region of interest given as constants
        self._guess = None      # (header, its bytes) of the last batch whose files shared one
        super().setup()

    # -- one iteration -----------------------------------------------------------------------
    def infer(self, ws):
        if any(ws.is_arg_input(name) for name in self._roi_names):
            roi = {name: ws.arg(name) for name in self._roi_names}
            entries, storage = self.next_batch(ws, functools.partial(self._read_at, roi))
        else:
            entries, storage = self.next_batch(ws)
        return _operator.Plan([_operator.OutputDesc(None, storage.dtype, "",
                                                    ndim=storage.ndim)],
                              entries=entries, contents=storage)

    def run_cpu(self, ws, plan):
        ws.outputs[0] = plan.contents
        ws.out_source_info = [name for _, name in plan.entries]

    def read(self, entries):
        storage = self._read_regions(entries) if self._roi_names else self._read_whole(entries)
        if storage is not None:
            return storage, None
        return self._load(entries, {name: [self.args[name]] * len(entries)
                                    for name in self._roi_names}, constant=True)

    def _read_at(self, roi, entries, at):
        """`read` of `entries`, which fill the batch positions from `at` on, with the
        per-sample region of interest `roi` (argument name -> the batch's values): each
        sample takes the values of its position."""
        return self._load(entries, {name: v[at:at + len(entries)] for name, v in roi.items()})

    def _load(self, entries, roi, constant=False):
        """(storage, None) of `entries` with the region of interest given by `roi` (argument
        name -> per-sample values, the same for all samples when `constant`), or (None,
        (sample, message)) for the first sample that cannot be read."""
        headers, heads = self._read_headers(entries)
        if heads is None:
            return None, headers
        n = len(entries)
        dtype, ndim = headers[0][0], len(headers[0][1])
        # the plans (`_plan`) of the batch and which one each sample has: one per header when
        # `constant` (kept from batch to batch: a data set of one type and shape has one),
        # else per sample
        plans, which = [], np.zeros(n, np.intp)
        if constant and headers.count(headers[0]) == n:      # one header (one object)
            indexed = [(0, headers[0])]
        else:
            indexed = enumerate(headers)
        memo = {}
        for i, header in indexed:
            k = memo.get(header) if constant else None
            if k is None:
                try:
                    plans.append(self._plan_of(header, dtype, ndim, roi, i, constant))
                except ValueError as e:
                    return None, (i, _common.Unskippable(f"{e} File: {entries[i][1]}"))
                k = memo[header] = len(plans) - 1
            which[i] = k
        rows = np.array([p[0] for p in plans]).transpose(1, 0, 2)[:, which]
        fortran = [p[2] for p in plans]
        padded = [p[3] for p in plans]
        transposed = any(fortran)
        storage = BatchStorage.allocate(dtype, rows[3] if not transposed else [
            plans[k][1] for k in which.tolist()], ndim=ndim)
        # the regions land in the batch, or, with Fortran-order files, in a scratch batch of
        # their stored order, transposed into the batch after the read
        target = storage if not transposed else BatchStorage.allocate(dtype, rows[3],
                                                                      ndim=ndim)
        flat = target.flat()
        starts = target.offsets - target.offsets[0]
        if all(padded):
            flat.fill(_saturate(self.args["fill_value"], dtype))
        elif any(padded):
            fill = _saturate(self.args["fill_value"], dtype)
            for i, k in enumerate(which.tolist()):
                if padded[k]:
                    target.sample(i).fill(fill)
        failure = files.read_regions(
            [p for p, _ in entries], flat.view(np.uint8), starts, [h[3] for h in headers],
            np.full(n, dtype.itemsize), *rows, *heads)
        if failure is not None:
            i, err, end = failure
            why = os.strerror(err) if err else f"the file ends at byte {end}"
            return None, (i, f"Failed to read file: {entries[i][1]}: {why}")
        if transposed:
            perm = list(range(ndim))[::-1]
            outs, stored = storage.samples(), target.samples()
            for i, k in enumerate(which.tolist()):
                if fortran[k]:
                    transpose_array(stored[i], outs[i], perm)
                else:
                    outs[i][...] = stored[i]
        return storage, None

    def _read_whole(self, entries):
        """The arrays of `entries` read whole with one open per file (`files.read_split`),
        when every file begins with the header of the last batch whose files all shared one
        and has exactly its size; else None (also when a file cannot be read: `_load` then
        reads the batch again and says why)."""
        guess = self._guess
        if guess is None:
            return None
        (dtype, shape, _, end), head = guess
        n = len(entries)
        nbytes = math.prod(shape) * dtype.itemsize
        storage = BatchStorage.allocate(dtype, [shape] * n, ndim=len(shape))
        heads = np.empty((n, end), np.uint8)
        got, failure = files.read_split([p for p, _ in entries], heads,
                                        storage.flat().view(np.uint8), nbytes, self.read_pool())
        if failure is None and (got == end + nbytes).all() and (heads == head).all():
            return storage
        self._guess = None
        return None

    def _read_regions(self, entries):
        """The regions (a region of interest given as constants) of `entries` read with one
        open per file (`files.read_region_split`), when every file begins with the header of
        the last batch whose files all shared one and is long enough for its array; else
        None (also when a file cannot be read, or the region is not valid for that header:
        `_load` then reads the batch again and says why)."""
        guess = self._guess
        plan = None if guess is None else self._plans.get(guess[0])
        if plan is None:
            return None
        (dtype, shape, _, end), head = guess
        rows, out, _, padded = plan
        n = len(entries)
        need = end + math.prod(shape) * dtype.itemsize
        # a small file is read whole (one call): its region is copied from its head row
        heads = np.empty((n, need if need <= _npy.HEAD else end), np.uint8)
        storage = BatchStorage.allocate(dtype, [out] * n, ndim=len(out))
        flat = storage.flat()
        if padded:
            flat.fill(_saturate(self.args["fill_value"], dtype))
        failure = files.read_region_split([p for p, _ in entries], heads, need, end,
                                          dtype.itemsize, rows, flat.view(np.uint8),
                                          self.read_pool())
        if failure is None and (heads[:, :end] == head).all():
            return storage
        self._guess = None
        return None

    def _plan_of(self, header, dtype, ndim, roi, i, constant):
        """`_plan`; with a `constant` region, the one kept for `header` when there is one
        (the type and number of dimensions still checked against the batch's)."""
        if not constant:
            return self._plan(header, dtype, ndim, roi, i)
        plan = self._plans.get(header)
        if plan is None or header[0] != dtype or len(header[1]) != ndim:
            plan = self._plan(header, dtype, ndim, roi, i)
            if len(self._plans) >= _PLANS_LIMIT:
                self._plans.clear()
            self._plans[header] = plan
        return plan

    def _plan(self, header, dtype, ndim, roi, i):
        """(rows, output shape, transposed, padded) of sample `i` with `header`: rows (a (5,
        ndim) int64 array) are the file's shape in stored order, the part read, the
        destination shape and where the part lands in it, as `files.read_regions` takes
        them."""
        dt, shape, fortran, _ = header
        if dt != dtype:
            raise ValueError(f"Inconsistent data: All samples in the batch must have the same "
                             f"data type, got {dt} and {dtype}.")
        if len(shape) != ndim:
            raise ValueError(f"Inconsistent data: All samples in the batch must have the same "
                             f"number of dimensions, got {len(shape)} and {ndim}.")
        lo, hi, at, out = self._window(shape, roi, i)
        padded = at != [0] * ndim or out != [h - low for low, h in zip(lo, hi, strict=True)]
        fortran = fortran and ndim > 1
        order = slice(None, None, -1) if fortran else slice(None)
        rows = np.array([list(v)[order] for v in (shape, lo, hi, out, at)], np.int64)
        return rows.reshape(5, ndim), tuple(out), fortran, padded

    def _read_headers(self, entries):
        """([(dtype, shape, fortran, data offset)] of `entries`, (heads, their sizes): the
        first bytes of the files read, for `files.read_regions`), or ((sample, message),
        None).  Files that begin with the same bytes up to the end of the header (arrays of
        one type and shape) share one parsed header."""
        cache = self._headers
        found = [cache.get(p) for p, _ in entries] if cache is not None else [None] * len(entries)
        todo = [i for i, h in enumerate(found) if h is None]
        if not todo:
            return found, ()
        paths = [entries[i][0] for i in todo]
        heads, got, sizes, failure = files.read_heads(paths, _npy.HEAD)
        if failure is not None:
            k, err = failure
            return (todo[k], f"Failed to open file: {entries[todo[k]][1]}: "
                             f"{os.strerror(err)}"), None
        for k, i in enumerate(todo):
            try:
                header = _header(paths[k], heads[k, :_npy.PREFIX].tobytes(), heads[k],
                                 int(got[k]), int(sizes[k]))
            except _npy.HeaderError as e:
                return (i, f"{e} File: {entries[i][1]}"), None
            if k == 0 and _shared(header, heads, got, sizes) is not None:
                if len(todo) == len(entries) and not (header[2] and len(header[1]) > 1):
                    self._guess = header, heads[0, :header[3]].copy()
                for j in todo:
                    found[j] = header
                if cache is not None:
                    cache.update((entries[j][0], header) for j in todo)
                break
            found[i] = header
            if cache is not None:
                cache[entries[i][0]] = header
        if len(todo) < len(entries):           # some headers were cached: no heads for them
            return found, ()
        return found, (heads, got)

    def _window(self, shape, roi, i):
        """(lo, hi, at, out shape) lists of sample `i` of `shape`: the part of the array read,
        where it lands in the output, and the output's shape; ValueError for a bad region."""
        ndim = len(shape)
        if not roi:
            return [0] * ndim, list(shape), [0] * ndim, list(shape)
        axes = _axes(self.args["roi_axes"], ndim)
        extent = np.array([shape[k] for k in axes], np.float64)
        start, end = _slice_window.region(
            {name.replace("roi_", ""): _values(name, roi[name][i], len(axes)) for name in roi},
            extent)
        bad = np.flatnonzero(end < start)
        if len(bad):
            k = bad[0]
            raise ValueError(f"end coordinates can't be before start coordinates. Got: "
                             f"start={start[k]:g} end={end[k]:g}")
        begin, stop = [0] * ndim, list(shape)
        for k, b, e in zip(axes, _slice_window._round(start).tolist(),
                           _slice_window._round(end).tolist(), strict=True):
            begin[k], stop[k] = b, e
        policy = self.args["out_of_bounds_policy"]
        outside = any(b < 0 or e > s for b, e, s in zip(begin, stop, shape, strict=True))
        if outside and policy == "error":
            raise ValueError(
                f"Slice can't be placed out of bounds with current policy. Got: input_shape="
                f"{_braced(shape)}, slice_anchor={_braced(begin)}, slice_shape="
                f"{_braced([e - b for b, e in zip(begin, stop, strict=True)])}")
        lo = [min(max(b, 0), s) for b, s in zip(begin, shape, strict=True)]
        hi = [min(max(e, 0), s) for e, s in zip(stop, shape, strict=True)]
        if policy == "trim_to_shape":
            return lo, hi, [0] * ndim, [h - low for low, h in zip(lo, hi, strict=True)]
        if any(h <= low for low, h in zip(lo, hi, strict=True)):      # all padding
            return [0] * ndim, [0] * ndim, [0] * ndim, [e - b for b, e in zip(
                begin, stop, strict=True)]
        at = [low - b for low, b in zip(lo, begin, strict=True)]
        return lo, hi, at, [e - b for b, e in zip(begin, stop, strict=True)]


def _shared(header, heads, got, sizes):
    """`header` (of the first file) when every file begins with the same bytes up to the end
    of its header and is long enough for its data, else None."""
    end = header[3]
    need = end + math.prod(header[1]) * header[0].itemsize
    if end > heads.shape[1] or got.min() < end or sizes.min() < need:
        return None
    return header if (heads[:, :end] == heads[0, :end]).all() else None


def _header(path, prefix, head, got, size):
    """(dtype, shape, fortran, data offset) of the file `path`, `size` bytes long, whose first
    `got` bytes are in `head` (the first of them also in the bytes `prefix`); raises
    HeaderError."""
    start, end = _npy.text_span(prefix[:got])
    if end <= got:
        head = head[:end].tobytes()
    else:
        if end > size:
            raise _npy.HeaderError(f"Header is corrupted: the file has {size} bytes, the "
                                   f"header {end}.")
        buf = np.empty(end, np.uint8)
        failure = files.read_ranges([path], [0], [buf])
        if failure is not None:
            raise _npy.HeaderError(f"Failed to read the header: {os.strerror(failure[1])}")
        head = buf.tobytes()
    dtype, shape, fortran = _npy.parse(head[start:end])
    if len(shape) > _MAX_DIMS:
        raise _npy.HeaderError(f"Arrays of {len(shape)} dimensions are not supported "
                               f"({_MAX_DIMS} at most).")
    need = end + math.prod(shape) * dtype.itemsize
    if need > size:
        raise _npy.HeaderError(f"Failed to read file: it has {size} bytes, its header "
                               f"describes {need}.")
    return dtype, shape, fortran, end


def _axes(roi_axes, ndim):
    axes = list(range(ndim)) if not roi_axes else list(roi_axes)
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"Axis {a} out of range. Expected range is [{-ndim}, {ndim - 1}] "
                             f"for a {ndim}D input")
    axes = [a % ndim for a in axes]
    for a in axes:
        if axes.count(a) > 1:
            raise ValueError(f"Axis index {a} occurs more than once in ``axes`` (might "
                             "include negative indices referring to the same axis")
    return axes


def _values(name, v, n):
    v = np.asarray(v, np.float64).reshape(-1)
    if v.size == 1:
        return np.full(n, v[0])
    if v.size != n:
        raise ValueError(f'Argument "{name}" expected shape {n} but got {v.size} values.')
    return v


def _braced(values):
    return "{" + ", ".join(str(v) for v in values) + "}"


def _saturate(value, dtype):
    if dtype.kind == "f":
        return dtype.type(value)
    if dtype.kind == "b":
        return bool(value)
    info = np.iinfo(dtype)
    return dtype.type(min(max(int(_slice_window._round(np.float64(value))), info.min),
                          info.max))
