"""fn.segmentation.random_mask_pixel: the coordinates of a random (foreground) pixel of a mask.

With `foreground` set, the pixel is drawn uniformly from the mask's foreground pixels (equal to
`value` when it is given, else greater than `threshold`); a mask without any, or `foreground`
0, gives a pixel drawn uniformly from all of them.  One uniform draw per sample (stream 0)
picks the element at that fraction of the candidates in memory order: the nogil batch kernel
`dali._ext.kernels.mask.pick_batch` counts and finds it.  The output is the element's
coordinates (int64, one per dimension of the mask).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._ext.kernels import mask as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T


@_registry.register
class RandomMaskPixel(_operator.Operator):
    schema = Schema(
        "segmentation.random_mask_pixel", inputs=1, outputs=1, devices=("cpu",), random=True,
        doc="Selects random pixel coordinates in a mask, sampled from a uniform distribution.\n\n"
            "Depending on `foreground`, it returns either only foreground pixels or any "
            "pixels.  Pixels are foreground when their value exceeds `threshold` or when it "
            "equals `value`.  A mask without foreground pixels gives any pixel.",
        args=[Arg("value", T.INT32, None, tensor=True,
                  doc="All pixels equal to this value are interpreted as foreground. Mutually "
                      "exclusive with `threshold`."),
              Arg("threshold", T.FLOAT, 0.0, tensor=True,
                  doc="All pixels with a value above this threshold are interpreted as "
                      "foreground. Mutually exclusive with `value`."),
              Arg("foreground", T.INT32, 0, tensor=True,
                  doc="If different than 0, the pixel position is sampled uniformly from all "
                      "foreground pixels; if 0, from all pixels.")])

    def setup(self):
        if "value" in self.spec.given and "threshold" in self.spec.given:
            raise self.error("Arguments ``value`` and ``threshold`` can not be provided "
                             "together", RuntimeError)

    def infer(self, ws):
        storage = ws.input_storage(0)
        if storage.dtype not in _kernel.CODES:
            name = _types.type_name(_types.dali_type_of(storage.dtype))
            raise self.error(f"Unsupported mask type: {name}", TypeError)
        n, ndim = storage.num_samples, storage.ndim
        return _operator.Plan([_operator.OutputDesc([(ndim,)] * n, np.int64, "", 1)])

    def run_cpu(self, ws, plan):
        storage = ws.input_storage(0).contiguous()
        n = storage.num_samples
        shapes = np.asarray(storage.shapes, np.int64).reshape(n, -1)
        empty = np.flatnonzero(shapes.prod(axis=1) == 0)
        if empty.size:
            raise ws.sample_error(int(empty[0]), "cannot pick a pixel of an empty mask")
        by_value = ws.arg_given("value")
        value = ws.arg_array("value", np.float64) if by_value else np.zeros(n)
        index = _kernel.pick_batch(
            ws.thread_pool, storage, ws.arg_array("foreground", np.int32) != 0,
            np.full(n, by_value), value, ws.arg_array("threshold", np.float64),
            ws.uniform_flat(1))
        coords = np.empty_like(shapes)
        for d in range(shapes.shape[1] - 1, -1, -1):
            coords[:, d] = index % shapes[:, d]
            index //= shapes[:, d]
        ws.outputs[0].dense()[...] = coords
