"""fn.decoders.image_slice: decodes a slice of each image, given like fn.slice's (positional
anchor and shape inputs, or start/end/shape arguments, absolute or relative, in the order of
`axis_names` or `axes`); upright JPEGs decode only the slice's rows and iMCU columns.  The slice
must lie inside the image."""

from __future__ import annotations

import numpy as np

from dali import _registry
from dali._schema import Schema
from dali.ops import _slice_window
from dali.ops.decoders import _decode, _window_decoder


@_registry.register
class ImageSlice(_window_decoder.WindowDecoder):
    schema = Schema(
        "decoders.image_slice", inputs=(1, 3), outputs=1, devices=("cpu", "mixed"),
        input_names=("data", "__anchor", "__shape"),
        doc="Decodes images and extracts regions of interest.\n\n" + _window_decoder.DOC_FORMATS +
            "\n\nThe slice is given by two extra positional inputs, `anchor` and `shape` "
            "(floats are normalized unless `normalized_anchor` / `normalized_shape` are False; "
            "integers are pixels), or by the arguments `start` / `rel_start` and one of "
            "`end`, `rel_end`, `shape`, `rel_shape`, not both. Coordinates are listed in the "
            "order of `axis_names` (default \"WH\": x, then y) or `axes` (0 is the height, 1 "
            "the width). Only the slice is decoded where the format allows it (JPEG); a slice "
            "that leaves the image is an error.",
        args=[*_decode.decoder_args(), *_slice_window.slice_args()])

    def setup(self):
        super().setup()
        _slice_window.check_args(self)
        # (image sizes, windows) of the last batch while the slice is given by constants: the
        # windows then depend only on the sizes (a batch of images of repeated sizes)
        self._last_windows = None

    def windows(self, ws, batch):
        sizes = np.stack([batch.height, batch.width], axis=1)
        if self.spec.arg_inputs or len(ws.inputs) != 1:
            return self._windows(ws, sizes)
        key = sizes.tobytes()
        memo = self._last_windows
        if memo is None or memo[0] != key:
            windows = self._windows(ws, sizes)
            windows.flags.writeable = False
            memo = self._last_windows = key, windows
        return memo[1]

    def _windows(self, ws, sizes):
        start, end = _slice_window.window_arrays(self, ws, sizes, "HW")
        outside = (start < 0).any(axis=1) | (end > sizes).any(axis=1)
        empty = (end == start).any(axis=1)
        failing = np.flatnonzero(outside | empty)
        if len(failing):
            i = int(failing[0])
            (y, x), (y1, x1) = start[i].tolist(), end[i].tolist()
            if outside[i]:
                raise _window_decoder.outside_error(ws, i, y, x, y1, x1, *sizes[i].tolist())
            raise ws.sample_error(i, f"the slice [{y}..{y1}, {x}..{x1}] is empty", RuntimeError)
        return np.concatenate([start, end - start], axis=1)
