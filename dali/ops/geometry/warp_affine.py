"""fn.warp_affine: an affine transform of images given by a 2x3 matrix.

The matrix comes from the second positional input (a 2x3 float tensor per sample, which wins
over the argument as in DALI), or from `matrix` (6 constants, or a per-sample argument input of
2x3 or 6 values).  Sequences (FHWC) may take one 2x3 matrix per frame from either, marked with
`fn.per_frame` (a batch of (frames, 2, 3) tensors; a single frame's matrix serves all frames);
images (HWC) given a per-frame matrix input become sequences, one frame per matrix, as in DALI.
With `inverse_map` (default) it maps output to input positions; otherwise it maps input to
output and is inverted per sample (or frame).  The pixel-centre convention, border and rounding
rules are described in `dali.ops.geometry._warp`.
"""

from __future__ import annotations

import numpy as np

from dali import _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.geometry import _warp


@_registry.register
class WarpAffine(_warp.Warp):
    schema = Schema(
        "warp_affine", inputs=(1, 2), outputs=1, devices=("cpu", "gpu"), gpu_host_inputs=(1,),
        input_names=["data", "mtx"],
        doc="Applies an affine transformation to images.\n\n"
            "Output pixel `(x, y)` takes its value from the input at "
            "`M @ (x + 0.5, y + 0.5, 1) - 0.5` (pixel-centre convention), where `M` is the 2x3 "
            "`matrix` (or the optional second input), mapping output to input positions unless "
            "`inverse_map=False`. Positions outside the input take `fill_value`, or the nearest "
            "edge pixel when it is not given.",
        args=[
            Arg("matrix", T._FLOAT_VEC, [], tensor=True,
                doc="The transform `(M11, M12, M13, M21, M22, M23)`, or a 2x3 tensor per sample. "
                    "Ignored when the matrix is given as the second input. Supports per-frame "
                    "inputs (`fn.per_frame`) for sequences: a (frames, 2, 3) tensor per "
                    "sample."),
            Arg("inverse_map", T.BOOL, True,
                doc="True: the matrix maps output to input positions; False: input to output "
                    "(it is inverted before use)."),
            *_warp.common_args(),
        ])

    def infer(self, ws):
        layout, dtype = self.check_input(ws)
        out_hw = self.given_sizes(ws)
        if out_hw is None and len(ws.inputs) == 1 and ws.arg_given("matrix") and \
                not ws.is_arg_input("matrix"):
            # a constant matrix: remembered with the output shapes for the last batch's shapes
            h = layout.index("H")
            return self.memo_plan(ws, layout, dtype, lambda: (
                np.asarray(ws.input_storage(0).shapes)[:, h:h + 2], self.matrices(ws)))
        h = layout.index("H")
        if out_hw is None:
            out_hw = np.asarray(ws.input_storage(0).shapes)[:, h:h + 2]
        if len(ws.inputs) > 1 and _warp.per_frame(ws.inputs[1]) and layout[0] != "F":
            # images with a per-frame matrix input: each image warped into a sequence, as DALI
            frames = _warp.with_frames(
                ws, np.asarray(ws.input_storage(1).shapes)[:, 0].astype(np.int64))
            shapes = np.asarray(ws.input_storage(0).shapes)
            shapes = np.column_stack([frames, out_hw, shapes[:, h + 2:]])
            return self.plan(ws, "F" + layout, dtype, None, self.matrices(ws, layout, frames),
                             shapes)
        return self.plan(ws, layout, dtype, out_hw, self.matrices(ws, layout))

    def matrices(self, ws, layout="HWC", frames=None):
        """The float32 output->input matrices, from the input or `matrix`: (n, 6), or one row
        per frame of every sample when they are given per frame (`fn.per_frame`); `frames`:
        the frames of the outputs when the input is not a sequence."""
        tl = ws.inputs[1] if len(ws.inputs) > 1 else ws.arg_inputs.get("matrix")
        if _warp.per_frame(tl):
            name = "mtx" if len(ws.inputs) > 1 else "matrix"
            if frames is None:
                frames = _warp.sequence_frames(ws, layout, name, tl)
            mats = _warp.frame_rows(ws, name, tl, frames, (2, 3), "a 2x3 matrix",
                                    positional=len(ws.inputs) > 1)
            mats = mats.astype(np.float32)
            if not self.args["inverse_map"]:
                mats = _invert(ws, mats, np.repeat(np.arange(ws.batch_size), frames))
            return mats
        if len(ws.inputs) > 1:
            storage = ws.input_storage(1)
            if storage.dtype.kind in "fiu" and _all_2x3(storage.shapes):
                mats = storage.contiguous().flat().reshape(-1, 6)
            else:
                mats = _checked(ws, storage.samples(), "the matrix input")
        elif not ws.arg_given("matrix"):
            raise self.error("`matrix` argument must be provided when transforms are not "
                             "passed as a regular input.", RuntimeError)
        elif ws.is_arg_input("matrix"):
            mats = _checked(ws, ws.arg("matrix"), "`matrix`")
        else:
            mats = np.tile(_checked(ws, [ws.scalar("matrix")], "`matrix`"), (ws.batch_size, 1))
        mats = mats.astype(np.float32)
        if not self.args["inverse_map"]:
            mats = _invert(ws, mats)
        return mats


def _all_2x3(shapes):
    shapes = np.asarray(shapes)
    return (shapes.shape[1] == 2 and (shapes == (2, 3)).all()) or \
        (shapes.shape[1] == 1 and (shapes == 6).all())


def _checked(ws, mats, name):
    """Per-sample matrices (any shape) checked, as an (n, 6) array."""
    out = []
    for i, m in enumerate(mats):
        m = np.asarray(m)
        if m.size != 6 or m.ndim > 2 or (m.ndim == 2 and m.shape != (2, 3)):
            raise ws.sample_error(
                i, f"{name} must have 6 elements (a 2x3 matrix), got shape {m.shape}.")
        if m.dtype.kind not in "fiu":
            raise ws.sample_error(i, f"{name} must be numeric, got {m.dtype}.", TypeError)
        out.append(m.astype(np.float32).reshape(6))
    return np.array(out, dtype=np.float32).reshape(-1, 6)


def _invert(ws, mats, samples=None):
    """The inverses of (n, 6) affine matrices (in float64, back to float32); `samples`: the
    sample of every row when they are not one per sample."""
    full = np.zeros((len(mats), 3, 3))
    full[:, :2] = mats.reshape(-1, 2, 3)
    full[:, 2, 2] = 1.0
    singular = np.flatnonzero(np.abs(np.linalg.det(full)) < 1e-12)
    if len(singular):
        raise ws.sample_error(int(singular[0] if samples is None else samples[singular[0]]),
                              "Cannot calculate the inverse of a singular matrix.")
    return np.linalg.inv(full)[:, :2].reshape(-1, 6).astype(np.float32)
