"""decoders.inflate (and its deprecated name experimental.inflate): DALI 2.4's GPU-only LZ4
decompression (see dali/ops/_gpu_only.py).

DALI decompresses with nvCOMP on the device; here the chunks are decoded on the host by the
nogil batch kernel `dali._ext.kernels.lz4` (raw LZ4 blocks) into host outputs, which are then
uploaded (`dali._gpu.host.run_on_host`): the input is read on the host (`gpu_host_inputs`).
A chunk that decodes to fewer bytes than its output leaves the rest zero; one that decodes to
more is an error with `check_output_size`, else its output holds the first bytes.

`on_error="skip"` (not in DALI): the reader whose first output is the input inflates each
sample it reads once more on its own thread, with the constant `shape`, `chunk_offsets` and
`chunk_sizes` (tensor inputs are refused at build), and skips the samples that fail.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._ext.kernels import lz4 as _kernel
from dali._ext.tensor_storage import BatchStorage
from dali._gpu import host
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _aliases, _gpu_only
from dali.ops.readers import _common


@_registry.register
class Inflate(_gpu_only.GpuOnly):
    registered_as = "decoders__Inflate"          # also for experimental.inflate, as in DALI
    schema = Schema(
        "decoders.inflate", inputs=1, outputs=1, devices=("gpu",), cpu=False,
        gpu_host_inputs=(0,),
        doc=_gpu_only.gpu_doc(
            "Decompresses the input (1-D uint8 samples of raw LZ4 blocks) with the given "
            "algorithm into samples of the given `shape` and `dtype`. A sample made of several "
            "compressed chunks (`chunk_offsets` / `chunk_sizes`) becomes a sequence: one chunk "
            "per outer index. dali decodes on the host and uploads the outputs (DALI: nvCOMP "
            "on the device).", kernel=True),
        args=[
            Arg("shape", T._INT32_VEC, REQUIRED, tensor=True,
                doc="Shape of one decompressed chunk."),
            Arg("dtype", T.DATA_TYPE, T.UINT8, doc="Type of the decompressed data."),
            Arg("algorithm", T.STRING, "LZ4",
                doc="Decompression algorithm; only \"LZ4\" is supported."),
            Arg("chunk_offsets", T._INT32_VEC, None, tensor=True,
                doc="Where the chunks of a sample start in it (densely packed up to the "
                    "sample's end without `chunk_sizes`)."),
            Arg("chunk_sizes", T._INT32_VEC, None, tensor=True,
                doc="Sizes of the chunks of a sample (densely packed from its start without "
                    "`chunk_offsets`)."),
            Arg("layout", T.TENSOR_LAYOUT, "", doc="Layout of one decompressed chunk."),
            Arg("sequence_axis_name", T.TENSOR_LAYOUT, "F",
                doc="Name of the outer axis of samples made of several chunks (with "
                    "`layout`)."),
            Arg("check_output_size", T.BOOL, False,
                doc="Raise an error when a chunk decompresses to more bytes than its output "
                    "(else the output keeps the first bytes)."),
            Arg("on_error", T.STRING, "raise",
                doc='A sample that cannot be inflated: "raise" (the error, as DALI does) or '
                    '"skip" (the input must be a reader\'s first output, and `shape`, '
                    "`chunk_offsets` and `chunk_sizes` constants: the reader inflates each "
                    "sample it reads on its own thread, and replaces the bad ones by the next "
                    "samples, listed in its `reader_meta()[\"skipped\"]`; each sample is "
                    "inflated twice). Not in DALI 2.4."),
        ])

    def setup(self):
        super().setup()
        if str(self.args["algorithm"]).lower() != "lz4":
            raise self.error(f"Unknown inflate algorithm was specified for `algorithm` "
                             f"argument: `{str(self.args['algorithm']).lower()}`.")
        if len(self.args["sequence_axis_name"] or "") != 1:
            raise self.error(f"The `sequence_axis_name` must be a single character, got "
                             f"`{self.args['sequence_axis_name']}`.")
        if self.args["on_error"] == "skip":
            tensors = [n for n in ("shape", "chunk_offsets", "chunk_sizes")
                       if n in self.spec.arg_inputs]
            if tensors:
                raise self.error(f'on_error="skip" needs `{tensors[0]}` to be a constant, not '
                                 f"a tensor input", RuntimeError)
        _common.skip_undecodable(self, self._undecodable)

    def _undecodable(self, samples):
        """{index: reason} of the 1-D uint8 `samples` that fail to inflate with the constant
        arguments (on_error="skip": the reader's check, on its thread): empty, chunks that do
        not fit, a malformed LZ4 block or, with `check_output_size`, one too large."""
        a, given = self.args, self.spec.given
        bad, rows, shapes, good = {}, [], [], []
        for i, sample in enumerate(samples):
            if not sample.size:
                bad[i] = f"{self.spec.display_name}: the sample is empty"
                continue
            try:
                r, out_shapes, _ = self._rows(np.array([sample.size], np.int64), [a["shape"]],
                                              *[[a[n]] if n in given else None
                                                for n in ("chunk_offsets", "chunk_sizes")])
            except RuntimeError as e:
                bad[i] = str(e)
                continue
            r[:, [0, 3]] = len(good)
            rows.append(r)
            shapes += out_shapes
            good.append(i)
        if good:
            rows = np.concatenate(rows)
            out = BatchStorage.allocate(_types.dtype_of(a["dtype"]), shapes,
                                        ndim=len(shapes[0]))
            status, _ = _kernel.inflate_batch(
                None, BatchStorage.from_arrays([samples[i] for i in good]), out, rows)
            failed = (status == 1) | ((status == 2) & a["check_output_size"])
            for k in np.flatnonzero(failed).tolist():
                bad.setdefault(good[rows[k, 0]], f"{self.spec.display_name}: "
                                                 f"{_failure(rows[k], status[k])}")
        return bad

    def infer(self, ws):
        storage = ws.input_storage(0)
        if storage.dtype != np.uint8:
            raise self.error(f"The input must be a tensor of bytes (uint8), got "
                             f"{storage.dtype}.", TypeError)
        n = storage.num_samples
        sizes = np.prod(np.asarray(storage.shapes, np.int64).reshape(n, -1), axis=1)
        chunked = ws.arg_given("chunk_offsets") or ws.arg_given("chunk_sizes")
        rows, out_shapes, extents = self._rows(
            sizes, ws.arg("shape"), *[ws.arg(name) if ws.arg_given(name) else None
                                      for name in ("chunk_offsets", "chunk_sizes")])
        layout = self.args["layout"] or ""
        if layout:
            if len(layout) != extents:
                raise self.error(
                    f"The size of inflated chunks' layout must match the number of extents in "
                    f"the output shape. However, got the layout `{layout}` while the chunks "
                    f"output shape has {extents} extent(s).")
            if chunked:
                layout = self.args["sequence_axis_name"] + layout
        dtype = _types.dtype_of(self.args["dtype"])
        return _operator.Plan([_operator.OutputDesc(out_shapes, dtype, layout,
                                                    ndim=extents + chunked)], chunks=rows)

    def _rows(self, sizes, shape, chunk_offsets, chunk_sizes):
        """(rows of `_kernel.inflate_batch`, output shapes, extents of a chunk) of samples of
        `sizes` bytes, from the per-sample values of `shape`, `chunk_offsets` and
        `chunk_sizes` (None where not given); DALI's errors."""
        n = len(sizes)
        empty = np.flatnonzero(sizes == 0)
        if empty.size:
            raise self.error(f"Input sample cannot be empty, but the sample at index "
                             f"{empty[0]} has volume 0.")
        chunked = chunk_offsets is not None or chunk_sizes is not None
        offsets, lengths = (self._chunks(sizes, chunk_offsets, chunk_sizes) if chunked else
                            ([np.zeros(1, np.int64)] * n, [s.reshape(1) for s in sizes]))
        chunk_shapes = self._shapes(shape, n)
        dtype = _types.dtype_of(self.args["dtype"])
        chunk_bytes = np.prod(chunk_shapes, axis=1).astype(np.int64) * dtype.itemsize
        counts = np.array([len(o) for o in offsets], np.int64)
        out_shapes = ([(int(c), *s) for c, s in zip(counts, chunk_shapes.tolist(), strict=True)]
                      if chunked else [tuple(s) for s in chunk_shapes.tolist()])
        sample = np.repeat(np.arange(n), counts)
        within = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        rows = np.empty((len(sample), 6), np.int64)
        rows[:, 0] = sample
        rows[:, 1] = np.concatenate(offsets) if len(sample) else 0
        rows[:, 2] = np.concatenate(lengths) if len(sample) else 0
        rows[:, 3] = sample
        rows[:, 4] = within * chunk_bytes[sample]
        rows[:, 5] = chunk_bytes[sample]
        return rows, out_shapes, chunk_shapes.shape[1]

    def _shapes(self, shape, n):
        """(n, ndim) int64: each sample's chunk shape (the same number of extents for all)."""
        values = [np.asarray(v, np.int64).reshape(-1) for v in shape]
        if len({len(v) for v in values}) > 1:
            raise self.error("The `shape` must have the same number of extents for every "
                             "sample.")
        shapes = np.array(values, np.int64).reshape(n, -1)
        bad = np.flatnonzero((shapes < 0).any(axis=1))
        if bad.size:
            raise self.error(f"Extents of the output shape must be non-negative integers. "
                             f"Please verify the sample of idx {bad[0]} passed as the argument "
                             f"`shape`.")
        return shapes

    def _chunks(self, sizes, chunk_offsets, chunk_sizes):
        """Per sample, the chunks' offsets and sizes (DALI's rules and messages)."""
        have_offsets, have_sizes = chunk_offsets is not None, chunk_sizes is not None
        offsets = ([np.asarray(v, np.int64).reshape(-1) for v in chunk_offsets]
                   if have_offsets else None)
        lengths = ([np.asarray(v, np.int64).reshape(-1) for v in chunk_sizes]
                   if have_sizes else None)
        for i, total in enumerate(sizes):
            if have_offsets:
                o = offsets[i]
                if (o < 0).any():
                    raise self.error(f"Input chunks offsets must be non-negative. Got "
                                     f"{o[o < 0][0]} offset for sample of idx {i}.")
                if (o >= total).any():
                    raise self.error(f"Input chunks offsets cannot exceed the sample size. "
                                     f"Got chunk offset {o[o >= total][0]} while the sample "
                                     f"size is {total} for sample of idx {i}.")
            if have_sizes:
                s = lengths[i]
                if (s <= 0).any():
                    raise self.error(f"Input chunk size must be positive. Got chunk size "
                                     f"{s[s <= 0][0]} for sample of idx {i}.")
                if (s > total).any():
                    raise self.error(f"Input chunk size cannot exceed the sample size. Got "
                                     f"chunk of size {s[s > total][0]} while the sample size "
                                     f"is {total} for sample of idx {i}.")
            if have_offsets and have_sizes:
                o, s = offsets[i], lengths[i]
                if len(o) != len(s):
                    raise self.error(f"The number of elements passed as `chunk_offsets` and "
                                     f"`chunk_sizes` must match for corresponding samples. "
                                     f"However for sample of idx {i} there are {len(o)} "
                                     f"offsets and {len(s)} sizes.")
                over = np.flatnonzero(o + s > total)
                if over.size:
                    k = over[0]
                    raise self.error(f"Input chunk cannot exceed the sample size. However, for "
                                     f"a sample of idx {i}, got a chunk that starts at the "
                                     f"position {o[k]} and has size {s[k]} while the sample "
                                     f"contains only {total} bytes.")
            elif have_offsets:
                ends = np.append(offsets[i][1:], total)
                inferred = ends - offsets[i]
                if (inferred <= 0).any():
                    last = inferred[-1] <= 0 and (inferred[:-1] > 0).all()
                    raise self.error(
                        f"The last chunk's offset exceeds the size of the sample for sample of "
                        f"idx {i}." if last else
                        f"If the `chunk_offsets` argument is specified and the `chunk_sizes` "
                        f"is not, the offsets must be strictly increasing. The inferred size of "
                        f"a chunk would be non-positive for sample of idx {i}.")
                lengths = lengths or [None] * len(sizes)
                lengths[i] = inferred
            else:
                if lengths[i].sum() > total:
                    raise self.error(f"The sum of chunk sizes for sample of idx {i} exceeds "
                                     f"the total size of the sample.")
                offsets = offsets or [None] * len(sizes)
                offsets[i] = np.cumsum(lengths[i]) - lengths[i]
        return offsets, lengths

    def run_cpu(self, ws, plan):
        """The host half of run_gpu: decode every chunk into the host outputs."""
        status, _ = _kernel.inflate_batch(ws.thread_pool, ws.input_storage(0).contiguous(),
                                          ws.outputs[0], plan.chunks)
        bad = np.flatnonzero(status == 1)
        if bad.size:
            row = plan.chunks[bad[0]]
            raise ws.sample_error(int(row[0]), _failure(row, 1))
        big = np.flatnonzero(status == 2)
        if big.size and self.args["check_output_size"]:
            row = plan.chunks[big[0]]
            raise ws.sample_error(int(row[0]), _failure(row, 2))

    def run_gpu(self, ws, plan):
        host.run_on_host(self, ws, plan)


def _failure(row, status):
    """The error of chunk `row` (of `_kernel.inflate_batch`) that failed with `status`: 1
    malformed, 2 larger than its output."""
    if status == 1:
        return f"The chunk at byte {row[1]} ({row[2]} bytes) is not a valid LZ4 block."
    return (f"The chunk at byte {row[1]} decompresses to more than the {row[5]} bytes of its "
            f"output (`shape` and `dtype`).")


_aliases.deprecated_alias("experimental.inflate", Inflate, "moved to fn.decoders in DALI",
                          __name__)
