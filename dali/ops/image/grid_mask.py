"""fn.grid_mask: the GridMask augmentation (https://arxiv.org/abs/2001.04086) on HWC images.

Squares of a grid with period `tile`, rotated by `angle` about the origin and shifted by
(`shift_x`, `shift_y`), are zeroed; `ratio` is the side of a black square over `tile`.  The
geometry is the kernel's (`_ext/kernels/grid_mask.pyx`): float32, in DALI's order of
operations, so the same pixels are masked.  One nogil call for the batch; on the GPU one
launch of `grid_mask.cu`, given the constants the CPU kernel computes (`grid_geometry`).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, tensors
from dali._ext.kernels import grid_mask as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _layouts
from dali.ops.image import _grid_mask_gpu

_TYPES = (np.dtype(np.uint8), np.dtype(np.int16), np.dtype(np.int32), np.dtype(np.float32))
_NAMES = {np.dtype(np.float64): "double"}


@_registry.register
class GridMask(_operator.Operator):
    schema = Schema(
        "grid_mask", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Performs the gridmask augmentation (https://arxiv.org/abs/2001.04086).\n\n"
            "Zeroes out pixels of an image in a grid-like fashion. The grid consists of "
            "squares repeating in x and y directions, with the same spacing in both "
            "directions. Can be rotated around the origin. Takes HWC images of uint8, int16, "
            "int32 or float.",
        args=[
            Arg("tile", T.INT32, 100, tensor=True,
                doc="The length of a single tile, which is equal to width of black squares "
                    "plus the spacing between them."),
            Arg("ratio", T.FLOAT, 0.5, tensor=True,
                doc="The ratio between black square width and tile width."),
            Arg("angle", T.FLOAT, 0.0, tensor=True,
                doc="Angle, in radians, by which the grid is rotated."),
            Arg("shift_x", T.FLOAT, 0.0, tensor=True,
                doc="The x component of the translation vector, applied after rotation."),
            Arg("shift_y", T.FLOAT, 0.0, tensor=True,
                doc="The y component of the translation vector, applied after rotation."),
        ])

    def infer(self, ws):
        tl = ws.inputs[0]
        layout = _layouts.input_layout(self, tl, ("HWC",), {3: "HWC"})
        storage = tensors.storage_of(tl)
        dtype = np.dtype(storage.dtype)
        if dtype not in _TYPES:
            raise self.error(f"Unsupported input type: {_NAMES.get(dtype, dtype.name)}",
                             RuntimeError)
        tile = ws.arg_array("tile", np.int64)
        bad = np.flatnonzero(tile <= 0)
        if len(bad):
            raise ws.sample_error(int(bad[0]), "Tile argument must be positive", RuntimeError)
        params = {name: ws.arg_array(name, np.float32)
                  for name in ("ratio", "angle", "shift_x", "shift_y")}
        return _operator.Plan([_operator.OutputDesc(storage.shapes, dtype, layout)],
                              tile=tile.astype(np.float32), **params)

    def run_cpu(self, ws, plan):
        _kernel.grid_mask_batch(ws.thread_pool, ws.input_storage(0).contiguous(),
                                ws.outputs[0], plan.tile, plan.ratio, plan.angle,
                                plan.shift_x, plan.shift_y)

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        geometry = _kernel.grid_geometry(plan.tile, plan.ratio, plan.angle, plan.shift_x,
                                         plan.shift_y)
        launch = _grid_mask_gpu.launch(src.shapes, geometry, src.dtype.itemsize, src.offsets,
                                       out.offsets)
        ws.gpu.launch(_grid_mask_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (src, out, launch.samples, launch.geometry))
