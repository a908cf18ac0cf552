"""fn.decoders.image_crop: decodes a fixed-size window of each image, placed like fn.crop's
(`crop` or `crop_h`/`crop_w`, normalized `crop_pos_x`/`crop_pos_y`, `rounding`); upright JPEGs
decode only the window's rows and iMCU columns.  The window must lie inside the image."""

from __future__ import annotations

import numpy as np

from dali import _registry
from dali._schema import Schema
from dali.ops import _crop_window
from dali.ops.decoders import _decode, _window_decoder

_WINDOW_ARGS = ("crop", "crop_h", "crop_w", "crop_d", "crop_pos_x", "crop_pos_y", "crop_pos_z",
                "rounding")


@_registry.register
class ImageCrop(_window_decoder.WindowDecoder):
    schema = Schema(
        "decoders.image_crop", inputs=1, outputs=1, devices=("cpu", "mixed"),
        doc="Decodes images and extracts regions of interest of a fixed size at a variable "
            "position.\n\n" + _window_decoder.DOC_FORMATS + "\n\nThe window is `crop` (or "
            "`crop_h` and `crop_w`) pixels; its top-left corner is at `crop_pos_y` * (H - crop_h), "
            "`crop_pos_x` * (W - crop_w), rounded per `rounding`. A window extent of 0 keeps "
            "the whole image extent; a window larger than the image is an error. Only the "
            "window is decoded where the format allows it (JPEG).",
        args=[*_decode.decoder_args(),
              *(a for a in _crop_window.crop_args() if a.name in _WINDOW_ARGS)])

    def setup(self):
        super().setup()
        _crop_window.check_args(self)

    def windows(self, ws, batch):
        shapes = np.stack([batch.height, batch.width, np.ones_like(batch.height)], axis=1)
        anchors, sizes, padded = _crop_window.window_arrays(self, ws, shapes, "HWC",
                                                            policy="pad")
        if padded.any():
            i = int(np.flatnonzero(padded)[0])
            (y, x), (h, w) = anchors[i, :2].tolist(), sizes[i, :2].tolist()
            raise _window_decoder.outside_error(ws, i, y, x, y + h, x + w,
                                                *shapes[i, :2].tolist())
        return np.concatenate([anchors[:, :2], sizes[:, :2]], axis=1).astype(np.int64)
