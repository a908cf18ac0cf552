"""fn.decoders.numpy: arrays from serialized .npy files (1-D uint8 samples, as
`np.save` writes them).

Each header is checked in one loop over the batch (`_ext/kernels/npy_views.pyx`) and its
text parsed in Python once per run of equal headers (`dali.ops._npy`, format version 1.0
only, as DALI); the data must be exactly the size the header gives.  With `dtype` the arrays are
converted (DALI's rounding and saturation) into the output by one call of the cast kernel
over the batch; without `dtype`, all samples must have the same type.  All samples
must have the same number of dimensions.  Fortran-order arrays are returned in C order
(transposed; real DALI's CPU operator needs a GPU for them).  The output has no layout.
Without a conversion or a transposition nothing is copied: the output samples are the arrays
as they lie in the input's bytes (views sharing its memory).  `on_error="skip"` (not in DALI):
the reader whose first output is the input parses each header once more on its own thread and
skips the samples that are not valid .npy bytes.
"""

from __future__ import annotations

import math

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels.cast import cast_array, cast_batch
from dali._ext.kernels.npy_views import npy_views
from dali._ext.kernels.transpose import transpose_array
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali._types import to_numpy_type
from dali.ops import _npy
from dali.ops.readers import _common


@_registry.register
class Numpy(_operator.Operator):
    schema = Schema(
        "decoders.numpy", inputs=1, outputs=1, devices=("cpu",),
        doc="Decodes NumPy arrays from the bytes of .npy files (1-D uint8 samples).\n\n"
            "The output has each array's shape and type (C order, also for Fortran-order "
            "arrays); all samples must have the same number of dimensions and, unless "
            "`dtype` is given, the same type. Only .npy format version 1.0 is accepted.",
        args=[Arg("dtype", T.DATA_TYPE, None,
                  doc="Convert every array to this type (DALI's rounding and saturation); "
                      "default: the arrays' own type."),
              Arg("on_error", T.STRING, "raise",
                  doc='Bytes that are not a valid .npy file: "raise" (the error, as DALI does) '
                      'or "skip" (the decoder\'s input must be a reader\'s first output: the '
                      "reader checks each file's header as it reads it, on its own thread, "
                      "and replaces the bad ones by the next samples, listed in its "
                      "`reader_meta()[\"skipped\"]`). Not in DALI 2.4.")])

    def setup(self):
        _common.skip_undecodable(self, self._undecodable)

    def _undecodable(self, samples):
        """{index: reason} of the samples whose bytes are not a valid .npy file (on_error=
        "skip": the reader's check, on its thread)."""
        bad = {}
        for i, data in enumerate(samples):
            try:
                _decode_header(np.ascontiguousarray(data).reshape(-1))
            except _npy.HeaderError as e:
                bad[i] = f"{self.spec.display_name}: {e}"
        return bad

    def infer(self, ws):
        if ws.input_dtype(0) != np.uint8:
            raise self.error(f"the input must be the bytes of .npy files (uint8), got "
                             f"{ws.input_dtype(0)}", RuntimeError)

        def fallback(i, data):
            try:
                return _decode_header(np.ascontiguousarray(data).reshape(-1))
            except _npy.HeaderError as e:
                raise ws.sample_error(i, str(e), RuntimeError) from None

        views, fortrans, same_type, same_ndim, fortran_nd = npy_views(
            ws.input_samples(0), _npy.parse, fallback)
        given = self.args["dtype"]
        dtype = np.dtype(to_numpy_type(given)) if given is not None else (
            views[0].dtype if views else np.dtype(np.uint8))
        ndim = views[0].ndim if views else 0
        if not (same_ndim and (same_type or given is not None)):
            for i, a in enumerate(views):
                if given is None and a.dtype != dtype:
                    raise ws.sample_error(i, f"All samples in the dataset must have the same "
                                             f"data type, got {a.dtype} and {dtype}",
                                          RuntimeError)
                if a.ndim != ndim:
                    raise ws.sample_error(i, f"All samples must have the same number of "
                                             f"dimensions, got {a.ndim} and {ndim}",
                                          RuntimeError)
        shared = same_type and (not views or views[0].dtype == dtype) and not fortran_nd
        shapes = None if shared else [a.shape[::-1] if fortran else a.shape
                                      for a, fortran in zip(views, fortrans, strict=True)]
        return _operator.Plan([_operator.OutputDesc(shapes, dtype, "", ndim=ndim)],
                              views=views, fortrans=fortrans, shared=shared,
                              fortran_nd=fortran_nd)

    def run_cpu(self, ws, plan):
        views = plan.views
        if plan.shared:                      # the arrays as they lie in the input's bytes
            ws.outputs[0] = BatchStorage.from_samples(views)
            return
        out = ws.outputs[0]
        if len({a.dtype for a in views}) == 1 and not plan.fortran_nd:
            cast_batch(ws.thread_pool, BatchStorage.from_samples(views), out)
            return
        for a, fortran, dst in zip(views, plan.fortrans, out.samples(), strict=True):
            if fortran and a.ndim > 1:
                converted = np.empty(a.shape, dst.dtype)
                cast_array(a, converted)
                transpose_array(converted, dst, list(range(a.ndim))[::-1])
            else:
                cast_array(a, dst.reshape(a.shape))


def _decode_header(data):
    """(C-contiguous view of the stored array (the transposed shape for Fortran order),
    fortran) of the bytes of one .npy file; raises HeaderError."""
    start, end = _npy.text_span(data[:_npy.PREFIX].tobytes())
    if data[6] != 1:
        raise _npy.HeaderError("Unsupported numpy file version. Only major version 1 is "
                               "supported.")
    if end > len(data):
        raise _npy.HeaderError(f"the header ends at byte {end}, after the data's {len(data)} "
                               "bytes")
    dtype, shape, fortran = _npy.parse(data[start:end].tobytes())
    need = math.prod(shape) * dtype.itemsize
    if len(data) - end != need:
        raise _npy.HeaderError(f"Expected data numpy size {need} bytes does not match the "
                               f"actual size {len(data) - end} bytes.")
    stored = shape[::-1] if fortran else shape
    return data[end:].view(dtype).reshape(stored), fortran
