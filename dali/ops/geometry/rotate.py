"""fn.rotate: rotate images by an angle in degrees (positive = counter-clockwise, like np.rot90).

The rotation is about the image centre, which maps to the output centre.  Without `size` or
`keep_size` the output is the bounding box of the rotated image as DALI computes it: each
extent is `ceil(extent - 0.01)` of the exact box (so 90 degrees gives exactly the swapped size
despite rounding), then grown by one where needed to have the parity of the input extent it
mostly comes from - the same one for angles nearer to 0/180 degrees, the other one nearer to
+-90 (45 degrees counts as 90, 135 as 180) - so that the centres of both grids coincide.

The 2x3 output->input matrix is computed in float32 (angle in radians as float32, then its
cosine and sine) like DALI, which makes positions on pixel boundaries at multiples of 45
degrees resolve to the same pixels.  The cosine and sine are taken in float64 and rounded to
float32, i.e. correctly rounded like DALI's cosf/sinf: numpy's own float32 versions are SIMD
approximations that differ in the last bit for ~15% of angles, and by CPU.  Warping itself
is `dali.ops.geometry._warp`.

Sequences (FHWC) take a per-frame `angle` (`fn.per_frame`): each frame is rotated by its own
angle about the centre of one output for the sample, sized as DALI sizes it: the largest of
the frames' `ceil(extent - 0.01)`, grown to the parity most frames ask for (even on a tie).
"""

from __future__ import annotations

import math

import numpy as np

from dali import _registry
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops._rotation import rotated_extents, rotated_size, rotated_sizes  # noqa: F401
from dali.ops.geometry import _warp

_F = np.float32


@_registry.register
class Rotate(_warp.Warp):
    schema = Schema(
        "rotate", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Rotates images by `angle` degrees, counter-clockwise, about their centre.\n\n"
            "The output is just large enough to hold the whole rotated image unless `size` or "
            "`keep_size` says otherwise; uncovered pixels take `fill_value` (or repeat the "
            "input's edge when it is not given).",
        args=[
            Arg("angle", T.FLOAT, REQUIRED, tensor=True,
                doc="Rotation angle in degrees; positive is counter-clockwise. Supports "
                    "per-frame inputs (`fn.per_frame`) for sequences: one angle per frame, "
                    "or one for all the frames of a sample."),
            Arg("axis", T._FLOAT_VEC, None, tensor=True,
                doc="Rotation axis of volumetric (DHWC) data (not supported yet); ignored for "
                    "2-D images."),
            Arg("keep_size", T.BOOL, False,
                doc="Keep the input's size (corners are cut off). Ignored when `size` is given."),
            *_warp.common_args(),
        ])

    def infer(self, ws):
        layout, dtype = self.check_input(ws)
        if _warp.per_frame(ws.arg_inputs.get("angle")):
            out_hw, matrices = self._frame_geometry(ws, layout, self.given_sizes(ws))
            return self.plan(ws, layout, dtype, out_hw, matrices)
        if not (ws.is_arg_input("angle") or ws.is_arg_input("size")):
            # constant angle and size: the plan remembered for the last batch's shapes
            return self.memo_plan(ws, layout, dtype,
                                  lambda: self._geometry(ws, layout, self.given_sizes(ws)))
        out_hw, matrices = self._geometry(ws, layout, self.given_sizes(ws))
        return self.plan(ws, layout, dtype, out_hw, matrices)

    def _geometry(self, ws, layout, out_hw):
        """The (n, 2) output extents (`out_hw` unless None) and (n, 6) matrices."""
        angles = _finite(ws, ws.arg_array("angle", np.float64), np.arange(ws.batch_size))
        h = layout.index("H")
        in_hw = np.asarray(ws.input_storage(0).shapes)[:, h:h + 2]
        if out_hw is None:
            out_hw = in_hw if self.args["keep_size"] else rotated_sizes(in_hw, angles)
        return out_hw, rotation_matrices(angles, in_hw, out_hw)

    def _frame_geometry(self, ws, layout, out_hw):
        """The (n, 2) output extents and (frames, 6) matrices of a per-frame `angle`: every
        frame is rotated by its own angle about the centre of the sample's output (sized by
        `sequence_sizes` without `size` or `keep_size`)."""
        frames = _warp.sequence_frames(ws, layout, "angle", ws.arg_inputs["angle"])
        angles = _warp.frame_rows(ws, "angle", ws.arg_inputs["angle"], frames, (),
                                  "one angle")[:, 0]
        angles = _finite(ws, angles, np.repeat(np.arange(ws.batch_size), frames))
        h = layout.index("H")
        in_hw = np.repeat(np.asarray(ws.input_storage(0).shapes)[:, h:h + 2], frames, axis=0)
        if out_hw is None:
            if self.args["keep_size"]:
                out_hw = in_hw[np.cumsum(frames) - frames]
            else:
                out_hw = sequence_sizes(in_hw, angles, frames)
        return out_hw, rotation_matrices(angles, in_hw, np.repeat(out_hw, frames, axis=0))


def sequence_sizes(in_hw, angles, frames):
    """The (n, 2) output extents of sequences whose frames (`in_hw`: (frames, 2) input
    extents) are rotated by per-frame `angles`, as DALI sizes them: the largest of the frames'
    exact bounding boxes, `ceil(extent - 0.01)`, grown by one where needed to have the parity
    most of the frames ask for (see the module docstring; a tie asks for an even extent)."""
    keys, inverse = np.unique(np.column_stack([angles, in_hw]), axis=0, return_inverse=True)
    per_key = np.array([rotated_extents((int(h), int(w)), a) for a, h, w in keys.tolist()],
                       dtype=np.int64).reshape(-1, 4)[inverse.reshape(-1)]
    starts = np.cumsum(frames) - frames
    extents = np.maximum.reduceat(per_key[:, :2], starts, axis=0)
    odd = 2 * np.add.reduceat(per_key[:, 2:], starts, axis=0) > frames[:, None]
    return extents + (extents - odd) % 2


def _finite(ws, angles, samples):
    """`angles`, checked to be finite (`samples`: the sample of each)."""
    bad = np.flatnonzero(~np.isfinite(angles))
    if len(bad):
        raise ws.sample_error(int(samples[bad[0]]),
                              f"`angle` must be finite, got {angles[bad[0]]}.")
    return angles


def rotation_matrices(angles, in_hw, out_hw):
    """(n, 6) float32 output->input matrices rotating by `angles` degrees about the centres
    of (n, 2) input and output sizes; float32 arithmetic step by step, as DALI does (the
    cosine and sine rounded from float64, see the module docstring)."""
    t = (angles.astype(_F) * _F(math.pi / 180)).astype(np.float64)
    c, s = np.cos(t).astype(_F), np.sin(t).astype(_F)
    icx, icy = (in_hw[:, 1] / 2).astype(_F), (in_hw[:, 0] / 2).astype(_F)
    ocx, ocy = (out_hw[:, 1] / 2).astype(_F), (out_hw[:, 0] / 2).astype(_F)
    return np.column_stack([c, -s, icx - (c * ocx + -s * ocy),
                            s, c, icy - (s * ocx + c * ocy)]).astype(_F)
