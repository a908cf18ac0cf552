"""fn.roi_random_crop: the start of a fixed-shape crop window placed at random around a ROI.

Per axis d, with the ROI [start, end) and the crop extent c (DALI's rule):

- a ROI larger than the window: the window lies inside the ROI, its start in [start, end - c];
- otherwise the window covers the ROI, its start in [end - c, start];
- with an input shape (`in_shape`, or the shape of the positional input) both ends are clamped
  to [0, shape - c], so the window stays inside the input;

and the start is drawn uniformly among the integers of that range (one draw per axis, stream 0).
The number of axes is that of `crop_shape`.  Only arguments are read: no pixel is touched.  The
whole batch is one nogil call of the `roi_random_crop` kernel (constant arguments passed as one
row for every sample).
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import roi_random_crop as _kernel
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T


@_registry.register
class ROIRandomCrop(_operator.Operator):
    schema = Schema(
        "roi_random_crop", inputs=(0, 1), outputs=1, devices=("cpu",), random=True,
        class_name="ROIRandomCrop",
        doc="Produces a fixed shape cropping window, randomly placed so that as much of the "
            "provided region of interest (ROI) is contained in it.\n\n"
            "If the ROI is bigger than the cropping window, the window is a subwindow of the "
            "ROI; otherwise it contains the whole ROI.  With an input shape (`in_shape`, or the "
            "input data given as the positional input) the window lies within the input.  "
            "The ROI is given by `roi_start` and either `roi_end` or `roi_shape`.  The output "
            "is the window's start (int64).",
        args=[Arg("crop_shape", T._INT32_VEC, REQUIRED, tensor=True,
                  doc="Cropping window dimensions."),
              Arg("roi_start", T._INT32_VEC, REQUIRED, tensor=True,
                  doc="ROI start coordinates."),
              Arg("roi_end", T._INT32_VEC, None, tensor=True,
                  doc="ROI end coordinates; mutually exclusive with `roi_shape`."),
              Arg("roi_shape", T._INT32_VEC, None, tensor=True,
                  doc="ROI shape; mutually exclusive with `roi_end`."),
              Arg("in_shape", T._INT32_VEC, None, tensor=True,
                  doc="Shape of the input data: the window is kept within it. Incompatible "
                      "with feeding the input data as the positional input.")])

    def setup(self):
        given = self.spec.given
        if ("roi_end" in given) == ("roi_shape" in given):
            raise self.error("Either ROI end or ROI shape should be defined, but not both",
                             RuntimeError)
        # the constant vector arguments as one row for every sample
        self._constants = {name: np.asarray(self.args[name], np.int64).reshape(1, -1)
                           for name in ("crop_shape", "roi_start", "roi_end", "roi_shape",
                                        "in_shape") if self.args[name] is not None}

    def infer(self, ws):
        if ws.arg_given("in_shape") and len(ws.inputs) == 1:
            raise self.error("``in_shape`` argument is incompatible with providing an input.",
                             RuntimeError)
        crop = self._rows(ws, "crop_shape", None)
        return _operator.Plan([_operator.OutputDesc([(crop.shape[1],)] * ws.batch_size,
                                                    np.int64, "", 1)], crop=crop)

    def _rows(self, ws, name, ndim):
        """The int64 values of vector argument `name`: (1, ndim) for a constant, else
        (batch_size, ndim)."""
        rows = self._constants.get(name) if not ws.is_arg_input(name) else \
            ws.arg_rows(name, np.int64)
        if rows is None:
            values = ws.arg(name)
            ndim = ndim or values[0].size
            rows = None if any(v.size != ndim for v in values) else np.stack(values)
        ndim = ndim or rows.shape[1]
        if rows is None or rows.shape[1] != ndim:
            got = (rows.shape[1] if rows is not None
                   else next(v.size for v in ws.arg(name) if v.size != ndim))
            raise self.error(f'Argument "{name}" expected shape {ndim} but got {got} values, '
                             "which can't be interpreted as the expected shape.")
        return rows

    def run_cpu(self, ws, plan):
        crop = plan.crop
        n, ndim = ws.batch_size, crop.shape[1]
        if n == 0:
            return
        start = self._rows(ws, "roi_start", ndim)
        end_is_shape = not ws.arg_given("roi_end")
        end = self._rows(ws, "roi_shape" if end_is_shape else "roi_end", ndim)
        shape = self._input_shape(ws, ndim)
        error, i, d = _kernel.window_starts(
            ws.random_key(), np.ascontiguousarray(ws.sample_ids, np.int64), crop, start, end,
            end_is_shape, shape, ws.outputs[0].dense())
        if error == _kernel.CROP_TOO_LARGE:
            raise ws.sample_error(i, "Cropping shape can't be bigger than the input shape. Got: "
                                     f"crop_shape[{_at(crop, i, d)}] and "
                                     f"sample_shape[{_at(shape, i, d)}] for d={d}")
        if error == _kernel.ROI_OUTSIDE:
            roi_end = _at(end, i, d) + (_at(start, i, d) if end_is_shape else 0)
            raise ws.sample_error(i, f"ROI can't be out of bounds. Got roi_start"
                                     f"[{_at(start, i, d)}], roi_end[{roi_end}], "
                                     f"sample_shape[{_at(shape, i, d)}], for d={d}")

    def _input_shape(self, ws, ndim):
        if ws.arg_given("in_shape"):
            return self._rows(ws, "in_shape", ndim)
        if len(ws.inputs) == 0:
            return None
        shapes = ws.input_storage(0).shapes
        if shapes.shape[1] < ndim:
            raise self.error(f"The input has {shapes.shape[1]} dimensions, fewer than the "
                             f"{ndim} of `crop_shape`.")
        return shapes[:, :ndim]


def _at(rows, i, d):
    """Sample i's value on axis d of a (1 or batch_size, ndim) argument array."""
    return int(rows[i if len(rows) > 1 else 0, d])
