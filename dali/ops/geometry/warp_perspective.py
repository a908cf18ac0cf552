"""fn.experimental.warp_perspective: a perspective (homography) warp of images, as OpenCV's
warpPerspective computes it (DALI's CPU operator gives OpenCV's results bit for bit).

The 3x3 matrix comes from the second positional input (one 3x3 float tensor per sample, or per
frame with `fn.per_frame`: images then become sequences of one frame per matrix, as in DALI), or
from `matrix` (9 constants, a per-sample argument input, or a per-frame one for sequences).
With `inverse_map` (default) it maps output to input positions, otherwise input to output
(inverted in float64 by OpenCV's LU, `cv2.invert`).  `pixel_origin="corner"` (default) puts
(0, 0) at the top-left corner of the top-left pixel: the matrix is conjugated by half-pixel
shifts, `S(-0.5) @ M @ S(0.5)`, in float64; "center" puts it at that pixel's centre (OpenCV's
convention).  Interleaved images (HW, HWC, FHWC) are warped whole; planar ones (CHW, FCHW)
plane by plane (with one fill value, as DALI requires).  The per-image work is the nogil
kernel `warp_perspective_batch` (_ext/kernels/warp.pyx, warp_perspective.h); on the GPU, one
launch of `warp_perspective.cu` (the same algorithms per output pixel) over the plan's images,
the matrix input read on the host.
"""

from __future__ import annotations

import cv2
import numpy as np

from dali import _operator, _registry, tensors
from dali._ext.kernels import warp as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali._types import DALIInterpType as Interp
from dali.ops import _layouts
from dali.ops.geometry import _warp, _warp_perspective_gpu

LAYOUTS = ("HW", "HWC", "FHWC", "CHW", "FCHW")
BORDERS = {"constant": 0, "replicate": 1, "reflect": 2, "reflect_101": 3, "wrap": 4}
_SHIFT = {s: np.array([[1.0, 0, s], [0, 1, s], [0, 0, 1]]) for s in (-0.5, 0.5)}


@_registry.register
class WarpPerspective(_operator.Operator):
    schema = Schema(
        "experimental.warp_perspective", inputs=(1, 2), outputs=1, devices=("cpu", "gpu"),
        gpu_host_inputs=(1,),
        input_names=["input", "matrix_input"],
        doc="Performs a perspective transform on the images: output pixel `(x, y)` takes the "
            "input at `(X / W, Y / W)` with `(X, Y, W) = M @ (x, y, 1)`, `M` the 3x3 matrix "
            "mapping destination to source coordinates (OpenCV's `warpPerspective` with "
            "`WARP_INVERSE_MAP`; `inverse_map=False` gives the source to destination "
            "mapping). Inputs are uint8, uint16, int16 or float images in HW, HWC, FHWC, CHW "
            "or FCHW layout (1-4 interleaved channels); the optional second input holds a "
            "3x3 matrix per sample.",
        args=[
            Arg("matrix", T._FLOAT_VEC, [], tensor=True,
                doc="The 3x3 perspective matrix (9 values, row-major) mapping destination to "
                    "source coordinates, or source to destination with `inverse_map=False`. "
                    "May be given per sample, or per frame of a sequence. Not used when the "
                    "matrix is given as the second input."),
            Arg("size", T._FLOAT_VEC, [], tensor=True,
                doc="Output size `(height, width)`, without the channels (rounded to "
                    "integers); by default the input's."),
            Arg("border_mode", T.STRING, "constant",
                doc='How positions outside the input are read: "constant" (`fill_value`), '
                    '"replicate", "reflect", "reflect_101" or "wrap".'),
            Arg("fill_value", T._FLOAT_VEC, [],
                doc="The value of the constant border: one value, or one per channel "
                    "(default 0); converted to the input type (rounded, saturated)."),
            Arg("interp_type", T.INTERP_TYPE, Interp.INTERP_LINEAR,
                doc="`INTERP_NN` or `INTERP_LINEAR` (`INTERP_CUBIC`, which DALI also has, is "
                    "not implemented here)."),
            Arg("inverse_map", T.BOOL, True,
                doc="True: the matrix maps destination to source coordinates; False: source "
                    "to destination."),
            Arg("pixel_origin", T.STRING, "corner",
                doc='"corner": (0, 0) is the top-left corner of the top-left pixel (as in '
                    'OpenGL); "center": its centre (as in OpenCV).'),
        ])

    def setup(self):
        border = self.args["border_mode"]
        if border not in BORDERS:
            raise self.error(f"Invalid border_mode argument: {border}", RuntimeError)
        if self.args["pixel_origin"] not in ("corner", "center"):
            raise self.error(f"Invalid pixel_origin argument: {self.args['pixel_origin']}",
                             RuntimeError)
        interp = Interp(self.args["interp_type"])
        if interp == Interp.INTERP_CUBIC:
            raise self.error("interp_type=INTERP_CUBIC is not implemented in dali yet "
                             "(INTERP_NN and INTERP_LINEAR are).", NotImplementedError)
        if interp not in (Interp.INTERP_NN, Interp.INTERP_LINEAR):
            raise self.error(f"Unknown interpolation type: {int(interp)}", RuntimeError)
        self._constant = None       # the matrices of a constant `matrix`
        self._memo = None           # (layout, type, input shapes) and `plan_parts` of the
                                    # last batch, when no argument is an input

    def infer(self, ws):
        tl = ws.inputs[0]
        layout = _layouts.image_layout(self, tl, LAYOUTS)
        dtype = ws.input_dtype(0)
        if dtype not in _kernel.PERSPECTIVE_TYPES:
            raise self.error(f"Unsupported input type: {dtype}. Supported: uint8, uint16, "
                             "int16, float.", TypeError)
        shapes = np.asarray(ws.input_storage(0).shapes)
        repeat = len(ws.inputs) > 1 and _warp.per_frame(ws.inputs[1]) and layout[0] != "F"
        if repeat:      # images with a per-frame matrix input: warped into sequences, as DALI
            if layout[0] == "C":
                raise self.error(f"A per-frame `matrix_input` cannot go with planar images "
                                 f"(layout {layout}): DALI expands their channels, not "
                                 "frames. Give a sequence (FCHW) or interleaved images.",
                                 RuntimeError)
            frames = np.asarray(ws.input_storage(1).shapes)[:, 0].astype(np.int64)
            shapes = np.column_stack([_warp.with_frames(ws, frames), shapes])
            layout = "F" + layout
        key = None
        if len(ws.inputs) == 1 and not ws.arg_inputs:
            # constant matrix and size: the plan depends only on the layout and input shapes
            key = _operator.shapes_key(shapes, layout, dtype)
        if key is None or self._memo is None or self._memo[0] != key:
            parts = self.plan_parts(ws, layout, dtype, shapes, repeat)
            if key is not None:
                self._memo = key, parts
        else:
            parts = self._memo[1]
        out, images, mats, fills = parts
        return _operator.Plan([_operator.OutputDesc(out, dtype, layout)], images=images,
                              mats=mats, fills=fills)

    def plan_parts(self, ws, layout, dtype, shapes, repeat=False):
        """(output shapes, image rows, matrices, fill rows) of a batch of input `shapes`
        (read-only arrays: a memo may hand them to later batches); `repeat`: the input is
        images, warped into every frame of sequences of `shapes`."""
        h = layout.index("H")
        planar = "C" in layout and layout.index("C") < h
        channels = shapes[:, layout.index("C")] if "C" in layout else np.ones(len(shapes),
                                                                               np.int64)
        if not planar and (channels > 4).any():
            raise self.error(f"Images with more than 4 interleaved channels are not "
                             f"supported, got {int(channels.max())}", RuntimeError)
        empty = np.flatnonzero((shapes[:, h:h + 2] == 0).any(axis=1))
        if empty.size:
            raise ws.sample_error(int(empty[0]), f"cannot warp an empty image (shape "
                                                 f"{shapes[empty[0]].tolist()})", RuntimeError)
        if (shapes[:, h:h + 2] > 32767).any():
            raise self.error("Images wider or taller than 32767 pixels are not supported",
                             RuntimeError)
        frames = shapes[:, 0].astype(np.int64) if layout.startswith("F") else None
        out = shapes.copy()
        if ws.arg_given("size") and (ws.is_arg_input("size") or len(self.args["size"])):
            out[:, h:h + 2] = _warp.sizes(ws)
        out.flags.writeable = False
        mats = self.matrices(ws, frames)
        fills = self.fills(dtype, channels, planar)
        images = _images(shapes, out, layout, dtype.itemsize, frames, mats.shape[0] > 1,
                         repeat)
        for a in (images, mats, fills):
            a.flags.writeable = False
        return out, images, mats, fills

    def run_cpu(self, ws, plan):
        _kernel.warp_perspective_batch(
            ws.thread_pool, ws.input_storage(0), ws.outputs[0], plan.images,
            plan.mats, int(self.args["interp_type"]), BORDERS[self.args["border_mode"]],
            plan.fills)

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        launch = _warp_perspective_gpu.launch(plan.images, src.dtype, src.offsets, out.offsets,
                                              len(plan.mats), len(plan.fills))
        ws.gpu.launch(_warp_perspective_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (src, out, launch.images, plan.mats, plan.fills,
                       np.int32(self.args["interp_type"]),
                       np.int32(BORDERS[self.args["border_mode"]])))

    def matrices(self, ws, frames):
        """(parts, 9) float64 output->input matrices: one for all samples (parts = 1), one
        per sample, or one per frame."""
        if len(ws.inputs) == 1 and not ws.is_arg_input("matrix"):
            if self._constant is None:
                m = np.asarray(self.args["matrix"], np.float32)
                if m.size != 9:
                    raise self.error(f'Argument "matrix" expected shape 3 x 3 but got {m.size} '
                                     "values, which can't be interpreted as the expected "
                                     "shape.", RuntimeError)
                self._constant = self.adjusted(ws, m.reshape(1, 9))
            return self._constant
        if len(ws.inputs) > 1:
            st = ws.input_storage(1)
            what, per_frame = "matrix_input", _warp.per_frame(ws.inputs[1])
        else:
            tl = ws.arg_inputs["matrix"]
            st = tensors.storage_of(tl)
            what, per_frame = "matrix", tl.layout().startswith("F")
        shapes = np.asarray(st.shapes)
        inner = shapes[:, 1:] if per_frame else shapes
        if st.dtype.kind not in "fiu" or (np.prod(inner, axis=1) != 9).any():
            raise self.error(f"`{what}` must hold a 3x3 float matrix per sample"
                             f"{' (per frame)' if per_frame else ''}, got shapes "
                             f"{shapes.tolist()[:4]} of {st.dtype}", RuntimeError)
        mats = np.asarray(st.contiguous().flat(), np.float32).reshape(-1, 9)
        if per_frame:
            if frames is None:
                raise self.error("A per-frame `matrix` needs a sequence input (a layout "
                                 "starting with \"F\").", RuntimeError)
            own = shapes[:, 0]
            _warp.check_frame_counts(ws, "matrix", own, frames, len(ws.inputs) > 1)
            mats = np.repeat(mats, np.repeat(np.where(own == 1, frames, 1), own), axis=0)
        elif frames is not None:
            mats = np.repeat(mats, frames, axis=0)
        return self.adjusted(ws, mats)

    def adjusted(self, ws, mats):
        """The (parts, 9) float64 matrices OpenCV gets: shifted for "corner", inverted for
        `inverse_map=False`."""
        m = mats.astype(np.float64).reshape(-1, 3, 3)
        if self.args["pixel_origin"] == "corner":
            m = _SHIFT[-0.5] @ m @ _SHIFT[0.5]
        if not self.args["inverse_map"]:
            m = np.stack([_inverse(ws, k, x) for k, x in enumerate(m)]) if len(m) else m
        return np.ascontiguousarray(m.reshape(-1, 9))

    def fills(self, dtype, channels, planar):
        """(C, 4) per-channel fill rows (row 0: the values of an interleaved pixel; row k:
        channel k's value, for planes), converted to the element type as OpenCV converts a
        border value (rounded to nearest even, saturated)."""
        fill = np.asarray(self.args["fill_value"] or [0.0], np.float64)
        if planar and fill.size != 1:
            raise self.error("Only scalar fill_value can be provided when processing data in "
                             "planar layout.", RuntimeError)
        c = int(channels.max()) if len(channels) else 1
        if fill.size != 1 and (channels != fill.size).any():
            bad = int(channels[channels != fill.size][0])
            raise self.error(f"Number of values provided as a fill_value should match the "
                             f"number of channels.\nNumber of channels: {bad}. Number of "
                             f"values provided: {fill.size}.", RuntimeError)
        fill = np.broadcast_to(fill, (max(c, fill.size),))
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            fill = np.clip(np.rint(np.nan_to_num(fill)), info.min, info.max)
        else:
            fill = fill.astype(np.float32).astype(np.float64)
        rows = np.repeat(fill[:, None], 4, axis=1)
        rows[0] = np.resize(fill, 4)
        return rows


def _inverse(ws, i, m):
    ok, inv = cv2.invert(m, flags=cv2.DECOMP_LU)
    if not ok:
        raise ws.sample_error(i, "the perspective matrix is singular and cannot be inverted "
                                 "(inverse_map=False)", RuntimeError)
    return inv


def _images(shapes, out, layout, item, frames, per_part, repeat=False):
    """(k, 10) image rows for `warp_perspective_batch`: every plane (planar layouts) or
    frame of every sample, with its byte offsets, sizes, matrix row and fill row; `repeat`:
    every frame reads the input's one image (a sample of `shapes` without its frames)."""
    n = len(shapes)
    h = layout.index("H")
    planar = "C" in layout and layout.index("C") < h
    c = shapes[:, layout.index("C")] if "C" in layout else np.ones(n, np.int64)
    per_image_c = np.ones(n, np.int64) if planar else c
    f = frames if frames is not None else np.ones(n, np.int64)
    count = f * (c if planar else 1)
    sample = np.repeat(np.arange(n), count)
    k = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    ih, iw, oh, ow = shapes[sample, h], shapes[sample, h + 1], out[sample, h], out[sample, h + 1]
    ic = per_image_c[sample]
    frame = k // c[sample] if planar else k
    if per_part:
        part = (np.repeat(np.cumsum(f) - f, count) + frame) if frames is not None else sample
    else:
        part = np.zeros_like(sample)
    fill = k % c[sample] if planar else np.zeros_like(sample)
    src_k = (fill if planar else np.zeros_like(k)) if repeat else k
    return np.stack([sample, src_k * ih * iw * ic * item, k * oh * ow * ic * item, ih, iw, ic,
                     oh, ow, part, fill], axis=1)
