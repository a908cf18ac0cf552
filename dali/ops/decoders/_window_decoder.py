"""The operator base the image decoders share: read the headers in `infer` (so the output is
leased with its final shapes), choose each sample's window, decode the windows in `run_cpu`."""

from __future__ import annotations

from dali import _operator
from dali.ops.decoders import _decode


class WindowDecoder(_operator.Operator):
    """Decodes a window of every image; subclasses choose the windows (default: the whole
    images)."""

    def setup(self):
        _decode.check_args(self)

    def windows(self, ws, batch):
        """(n, 4) array of (y, x, h, w) windows in the decoded (oriented) images."""
        return _decode.whole_images(batch)

    def infer(self, ws):
        self._dtype = _decode.output_dtype(self)
        batch = _decode.inspect(self, ws, self.args["output_type"],
                                self.args["adjust_orientation"])
        self._windows = self.windows(ws, batch)
        self._batch = batch
        return [_operator.OutputDesc(_decode.output_shapes(batch, self._windows), self._dtype,
                                     "HWC")]

    def run_cpu(self, ws):
        batch, self._batch = self._batch, None
        ws.outputs[0] = _decode.decode(ws, batch, self._windows, ws.outputs[0], self._dtype,
                                       self.args["use_fast_idct"])
