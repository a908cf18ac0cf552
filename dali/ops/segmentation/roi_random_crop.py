"""fn.roi_random_crop: the start of a fixed-shape crop window placed at random around a ROI.

Per axis d, with the ROI [start, end) and the crop extent c (DALI's rule):

- a ROI larger than the window: the window lies inside the ROI, its start in [start, end - c];
- otherwise the window covers the ROI, its start in [end - c, start];
- with an input shape (`in_shape`, or the shape of the positional input) both ends are clamped
  to [0, shape - c], so the window stays inside the input;

and the start is drawn uniformly among the integers of that range (one draw per axis, stream 0).
The number of axes is that of `crop_shape`.  Only arguments are read: no pixel is touched.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry
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

    def infer(self, ws):
        if ws.arg_given("in_shape") and len(ws.inputs) == 1:
            raise self.error("``in_shape`` argument is incompatible with providing an input.",
                             RuntimeError)
        crop = self._rows(ws, "crop_shape", None)
        return _operator.Plan([_operator.OutputDesc([(crop.shape[1],)] * ws.batch_size,
                                                    np.int64, "", 1)], crop=crop)

    def _rows(self, ws, name, ndim):
        """The (batch_size, ndim) int64 values of vector argument `name`."""
        rows = ws.arg_rows(name, np.int64)
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
        return np.asarray(rows, np.int64).reshape(ws.batch_size, ndim)

    def run_cpu(self, ws, plan):
        crop = plan.crop
        n, ndim = crop.shape
        start = self._rows(ws, "roi_start", ndim)
        end = (self._rows(ws, "roi_end", ndim) if ws.arg_given("roi_end")
               else start + self._rows(ws, "roi_shape", ndim))
        lo = np.where(end - start > crop, start, end - crop)
        hi = np.where(end - start > crop, end - crop, start)
        shape = self._input_shape(ws, ndim)
        if shape is not None:
            for i, d in zip(*np.nonzero(shape < crop), strict=True):
                raise ws.sample_error(int(i), "Cropping shape can't be bigger than the input "
                                              f"shape. Got: crop_shape[{crop[i, d]}] and "
                                              f"sample_shape[{shape[i, d]}] for d={d}")
            for i, d in zip(*np.nonzero((start < 0) | (shape < end)), strict=True):
                raise ws.sample_error(int(i), "ROI can't be out of bounds. Got roi_start"
                                              f"[{start[i, d]}], roi_end[{end[i, d]}], "
                                              f"sample_shape[{shape[i, d]}], for d={d}")
            lo = np.clip(lo, 0, shape - crop)
            hi = np.clip(hi, 0, shape - crop)
        u = ws.uniform_flat(ndim).reshape(n, ndim)
        out = lo + np.minimum(np.floor(u * (hi - lo + 1)).astype(np.int64), hi - lo)
        ws.outputs[0].dense()[...] = out

    def _input_shape(self, ws, ndim):
        if ws.arg_given("in_shape"):
            return self._rows(ws, "in_shape", ndim)
        if len(ws.inputs) == 0:
            return None
        shapes = np.asarray(ws.input_storage(0).shapes, np.int64).reshape(ws.batch_size, -1)
        if shapes.shape[1] < ndim:
            raise self.error(f"The input has {shapes.shape[1]} dimensions, fewer than the "
                             f"{ndim} of `crop_shape`.")
        return shapes[:, :ndim]
