"""decoders.inflate (and its deprecated name experimental.inflate): DALI 2.4's GPU-only LZ4
decompression (see dali/ops/_gpu_only.py)."""

from __future__ import annotations

from dali import _registry
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _aliases, _gpu_only


@_registry.register
class Inflate(_gpu_only.GpuOnly):
    registered_as = "decoders__Inflate"          # also for experimental.inflate, as in DALI
    schema = Schema(
        "decoders.inflate", inputs=1, outputs=1, devices=("gpu",), cpu=False,
        doc=_gpu_only.gpu_doc(
            "Decompresses the input (1-D uint8 samples) with the given algorithm into samples "
            "of the given `shape` and `dtype`. A sample made of several compressed chunks "
            "(`chunk_offsets` / `chunk_sizes`) becomes a sequence: one chunk per outer index."),
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
                doc="Check before decompressing that the outputs are large enough."),
        ])


_aliases.deprecated_alias("experimental.inflate", Inflate, "moved to fn.decoders in DALI",
                          __name__)
