"""fn.random_crop_generator: random crop windows (area fraction and aspect ratio) of given shapes.

The input holds one shape per sample, (H, W) or (H, W, C) (any integer type); the outputs are
the window's anchor (y, x) and shape (h, w), int32, chosen exactly as fn.random_resized_crop
chooses its windows (dali/ops/_random_window.py: DALI's rule, counter-based draws).  The sizes
are read and checked by one kernel call in `infer`, and the windows are written straight into
the outputs by one in `run_cpu`.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._ext.kernels import random_window as _window_kernel
from dali._schema import Schema
from dali.ops import _random_window


@_registry.register
class RandomCropGenerator(_operator.Operator):
    schema = Schema(
        "random_crop_generator", inputs=1, outputs=2, devices=("cpu",), random=True,
        doc="Produces a cropping window with a randomly selected area and aspect ratio.\n\n"
            "Expects a one-dimensional input holding the shape of the input to crop (HW or "
            "HWC). Produces two outputs, the anchor and the shape of the window (int32, "
            "(y, x) and (h, w)), which can be fed to `fn.slice` or any other operator "
            "accepting a region of interest.",
        args=_random_window.window_args())

    def setup(self):
        self.policy = _random_window.WindowPolicy(self.args)

    def infer(self, ws):
        storage = ws.input_storage(0)
        if storage.dtype.kind not in "iu":
            name = _types.type_name(_types.dali_type_of(storage.dtype))
            raise self.error(f"Only integer types are supported. Got: {name}", TypeError)
        bad, hw = _window_kernel.image_sizes(storage)
        if bad >= 0:
            raise ws.sample_error(bad, "Expected a 1D tensor with 2 or 3 values representing an "
                                       "input shape (HW or HWC)")
        n = storage.num_samples
        return _operator.Plan([_operator.OutputDesc([(2,)] * n, np.int32, "", 1),
                               _operator.OutputDesc([(2,)] * n, np.int32, "", 1)], hw=hw)

    def run_cpu(self, ws, plan):
        if ws.batch_size == 0:      # an empty batch's dense view is (0, 0)
            return
        self.policy.write_windows(ws, plan.hw[:, 0], plan.hw[:, 1], ws.outputs[0].dense(),
                                  ws.outputs[1].dense())
