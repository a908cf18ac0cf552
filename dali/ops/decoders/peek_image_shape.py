"""fn.peek_image_shape: the HWC shape an image will have once decoded, read from its header
(with the EXIF orientation applied), without decoding it."""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali._types import DALIImageType as Image
from dali.ops.decoders import _decode

_DTYPES = (T.INT32, T.UINT32, T.INT64, T.UINT64, T.FLOAT, T.FLOAT64)


@_registry.register
class PeekImageShape(_operator.Operator):
    schema = Schema(
        "peek_image_shape", inputs=1, outputs=1, devices=("cpu",),
        doc="Obtains the shape of the encoded image.\n\nReturns (height, width, channels), "
            "the shape the image would have after decoding, read from its header: channels "
            "are 3 for RGB, BGR and YCbCr, 1 for GRAY and the image's own for ANY_DATA. The "
            "input is one encoded file per sample, as 1-D uint8 bytes.",
        args=[
            Arg("image_type", T.IMAGE_TYPE, Image.RGB,
                doc="Color format the image would be decoded to; sets the channel count."),
            Arg("dtype", T.DATA_TYPE, T.INT64,
                doc="Type of the output: int32, uint32, int64, uint64, float or float64."),
            Arg("adjust_orientation", T.BOOL, True,
                doc="Report the size after the EXIF orientation is applied."),
        ])

    def setup(self):
        if self.args["dtype"] not in _DTYPES:
            raise RuntimeError(
                f"Operator PeekImageShape can return the output as one of the following: "
                f"int32, uint32, int64, uint64, float or double; requested: "
                f"{np.dtype(_types.to_numpy_type(self.args['dtype'])).name}")
        self._dtype = _types.dtype_of(self.args["dtype"])

    def infer(self, ws):
        if ws.input_dtype(0) != np.uint8 or ws.inputs[0].ndim() != 1:
            raise self.error("The input must be a raw, undecoded file stored as a flat uint8 "
                             "array.", RuntimeError)
        batch = _decode.inspect(self, ws, Image.ANY_DATA, self.args["adjust_orientation"],
                                probe=False)
        return _operator.Plan(
            [_operator.OutputDesc([(3,)] * len(batch), self._dtype, "", ndim=1)], batch=batch)

    def run_cpu(self, ws, plan):
        batch = plan.batch
        if not len(batch):
            return
        image_type = self.args["image_type"]
        out = ws.outputs[0].dense()
        out[:, 0] = batch.height
        out[:, 1] = batch.width
        if image_type == Image.GRAY:
            out[:, 2] = 1
        elif image_type == Image.ANY_DATA:
            out[:, 2] = batch.source_channels
        else:
            out[:, 2] = 3
