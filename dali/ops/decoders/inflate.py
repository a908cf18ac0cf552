"""decoders.inflate (and its deprecated name experimental.inflate): DALI 2.4's GPU-only LZ4
decompression (see dali/ops/_gpu_only.py).

DALI decompresses with nvCOMP on the device; here the chunks are decoded on the host by the
nogil batch kernel `dali._ext.kernels.lz4` (raw LZ4 blocks) into host outputs, which are then
uploaded (`dali._gpu.host.run_on_host`): the input is read on the host (`gpu_host_inputs`).
A chunk that decodes to fewer bytes than its output leaves the rest zero; one that decodes to
more is an error with `check_output_size`, else its output holds the first bytes.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._ext.kernels import lz4 as _kernel
from dali._gpu import host
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _aliases, _gpu_only


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
        ])

    def setup(self):
        super().setup()
        if str(self.args["algorithm"]).lower() != "lz4":
            raise self.error(f"Unknown inflate algorithm was specified for `algorithm` "
                             f"argument: `{str(self.args['algorithm']).lower()}`.")
        if len(self.args["sequence_axis_name"] or "") != 1:
            raise self.error(f"The `sequence_axis_name` must be a single character, got "
                             f"`{self.args['sequence_axis_name']}`.")

    def infer(self, ws):
        storage = ws.input_storage(0)
        if storage.dtype != np.uint8:
            raise self.error(f"The input must be a tensor of bytes (uint8), got "
                             f"{storage.dtype}.", TypeError)
        n = storage.num_samples
        sizes = np.prod(np.asarray(storage.shapes, np.int64).reshape(n, -1), axis=1)
        empty = np.flatnonzero(sizes == 0)
        if empty.size:
            raise self.error(f"Input sample cannot be empty, but the sample at index "
                             f"{empty[0]} has volume 0.")
        chunked = ws.arg_given("chunk_offsets") or ws.arg_given("chunk_sizes")
        offsets, lengths = (self._chunks(ws, sizes) if chunked else
                            ([np.zeros(1, np.int64)] * n, [s.reshape(1) for s in sizes]))
        chunk_shapes = self._shapes(ws, n)
        dtype = _types.dtype_of(self.args["dtype"])
        chunk_bytes = np.prod(chunk_shapes, axis=1).astype(np.int64) * dtype.itemsize
        counts = np.array([len(o) for o in offsets], np.int64)
        out_shapes = ([(int(c), *s) for c, s in zip(counts, chunk_shapes.tolist(), strict=True)]
                      if chunked else [tuple(s) for s in chunk_shapes.tolist()])
        layout = self.args["layout"] or ""
        if layout:
            if len(layout) != chunk_shapes.shape[1]:
                raise self.error(
                    f"The size of inflated chunks' layout must match the number of extents in "
                    f"the output shape. However, got the layout `{layout}` while the chunks "
                    f"output shape has {chunk_shapes.shape[1]} extent(s).")
            if chunked:
                layout = self.args["sequence_axis_name"] + layout
        sample = np.repeat(np.arange(n), counts)
        within = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        rows = np.empty((len(sample), 6), np.int64)
        rows[:, 0] = sample
        rows[:, 1] = np.concatenate(offsets) if len(sample) else 0
        rows[:, 2] = np.concatenate(lengths) if len(sample) else 0
        rows[:, 3] = sample
        rows[:, 4] = within * chunk_bytes[sample]
        rows[:, 5] = chunk_bytes[sample]
        return _operator.Plan([_operator.OutputDesc(out_shapes, dtype, layout,
                                                    ndim=chunk_shapes.shape[1] + chunked)],
                              chunks=rows)

    def _shapes(self, ws, n):
        """(n, ndim) int64: each sample's chunk shape (the same number of extents for all)."""
        values = [np.asarray(v, np.int64).reshape(-1) for v in ws.arg("shape")]
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

    def _chunks(self, ws, sizes):
        """Per sample, the chunks' offsets and sizes (DALI's rules and messages)."""
        have_offsets, have_sizes = ws.arg_given("chunk_offsets"), ws.arg_given("chunk_sizes")
        offsets = ([np.asarray(v, np.int64).reshape(-1) for v in ws.arg("chunk_offsets")]
                   if have_offsets else None)
        lengths = ([np.asarray(v, np.int64).reshape(-1) for v in ws.arg("chunk_sizes")]
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
            raise ws.sample_error(int(row[0]), f"The chunk at byte "
                                               f"{row[1]} ({row[2]} bytes) is not a valid LZ4 "
                                               f"block.")
        big = np.flatnonzero(status == 2)
        if big.size and self.args["check_output_size"]:
            row = plan.chunks[big[0]]
            raise ws.sample_error(int(row[0]), f"The chunk at byte "
                                               f"{row[1]} decompresses to more than the "
                                               f"{row[5]} bytes of its output (`shape` and "
                                               f"`dtype`).")

    def run_gpu(self, ws, plan):
        host.run_on_host(self, ws, plan)


_aliases.deprecated_alias("experimental.inflate", Inflate, "moved to fn.decoders in DALI",
                          __name__)
