"""Shared parts of the affine warps (fn.warp_affine, fn.rotate).

A warp fills each output pixel from the input position its centre maps to: with M the 2x3
output->input matrix (x/y order, continuous coordinates with pixel centres at k + 0.5), output
pixel d reads the input at `M @ (d + 0.5)`, i.e. at index `M @ (d + 0.5) - 0.5` in pixel-centre
index coordinates.  Outside the input the border is the fill value (converted to the input type
first, so a fill of -3.7 on uint8 is 0) or, without `fill_value`, the clamped edge.  Only nearest
neighbour and linear interpolation exist, as in DALI.  The per-image work is the nogil kernel
`dali._ext.kernels.warp`; this module validates layouts, types and sizes and drives it per
batch.

On sequences (FHWC) the transform may differ per frame: an argument input marked with
`fn.per_frame` (its layout starts with "F") holds one value per frame of the matching sample,
or a single one for all of them, as DALI's sequence operators read it; the kernel then takes
one matrix per frame.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _types, tensors
from dali._ext.kernels import warp as _kernel
from dali._schema import Arg
from dali._types import DALIDataType as T
from dali._types import DALIInterpType as Interp
from dali.ops import _layouts
from dali.ops.geometry import _warp_affine_gpu

LAYOUTS = ("HWC", "FHWC", "DHWC", "FDHWC")
_BY_NDIM = {3: "HWC", 4: "FHWC", 5: "FDHWC"}

# Input type -> output types DALI's warp kernels exist for.
_OUTPUTS = {
    np.dtype(np.uint8): (np.uint8, np.float32),
    np.dtype(np.int16): (np.int16, np.float32),
    np.dtype(np.int32): (np.int32, np.float32),
    np.dtype(np.float32): (np.uint8, np.int16, np.int32, np.float32),
}
_OUTPUTS = {k: tuple(np.dtype(t) for t in v) for k, v in _OUTPUTS.items()}


def common_args():
    """The arguments fn.warp_affine and fn.rotate share."""
    return [
        Arg("size", T._FLOAT_VEC, [], tensor=True,
            doc="Output size `(height, width)`, without the channels; non-integer sizes are "
                "rounded to the nearest integer."),
        Arg("fill_value", T.FLOAT, None,
            doc="Value of output pixels whose source lies outside the input (converted to the "
                "input type). Without it the input's edge pixels are repeated."),
        Arg("interp_type", T.INTERP_TYPE, Interp.INTERP_LINEAR,
            doc="Interpolation: `INTERP_NN` or `INTERP_LINEAR`."),
        Arg("dtype", T.DATA_TYPE, None,
            doc="Output type; by default the input type. uint8, int16 and int32 inputs give "
                "their own type or float; float inputs any of uint8, int16, int32, float."),
        Arg("output_dtype", T.DATA_TYPE, None, alias_of="dtype"),
    ]


class Warp(_operator.Operator):
    """What fn.warp_affine and fn.rotate share: argument checks, the input's layout,
    interpolation and output type, and the warp of every sample by its `matrices` entry."""

    def setup(self):
        check_args(self)
        # (key, plan) of the last batch whose outputs depend only on its input type and shapes
        # (constant angle or matrix, and size): see `memo_plan`
        self._memo = None
        self._fills = {}          # input dtype -> `fill_for` (a constant argument)

    def check_input(self, ws):
        """Validate the input; return its layout and the output dtype."""
        tl = ws.inputs[0]
        layout = layout_of(self, tl)
        check_2d(self, layout)
        return layout, output_dtype(self, tensors.storage_of(tl).dtype)

    def given_sizes(self, ws):
        """The per-sample output (H, W) given by `size` (an (n, 2) array), or None when
        `size` is not given."""
        sized = ws.arg_given("size") and (ws.is_arg_input("size") or len(self.args["size"]))
        return sizes(ws) if sized else None

    def out_shapes(self, ws, layout, out_hw):
        """The output shapes ((n, ndim) int64): the input's with spatial extents `out_hw`."""
        shapes = np.array(tensors.storage_of(ws.inputs[0]).shapes)
        h = layout.index("H")
        shapes[:, h:h + 2] = out_hw
        return shapes

    def plan(self, ws, layout, dtype, out_hw, matrices, shapes=None):
        """The Plan of a warp: outputs of spatial extents `out_hw` ((n, 2)) or of `shapes`,
        and what the run needs."""
        if shapes is None:
            shapes = self.out_shapes(ws, layout, out_hw)
        in_dtype = tensors.storage_of(ws.inputs[0]).dtype
        fill = self._fills.get(in_dtype, False)
        if fill is False:
            fill = self._fills[in_dtype] = fill_for(in_dtype, self.args["fill_value"])
        return _operator.Plan([_operator.OutputDesc(shapes, dtype, layout)],
                              matrices=matrices, interp=interp(self), fill=fill)

    def memo_plan(self, ws, layout, dtype, make):
        """The Plan of a batch whose output shapes and matrices depend only on its layout,
        input type and input shapes: `make()` gives them ((n, 2) output extents, (n, 6)
        matrices), called only when these differ from the last batch's."""
        storage = tensors.storage_of(ws.inputs[0])
        in_shapes = storage.shapes
        key = _operator.shapes_key(in_shapes, layout, storage.dtype)
        memo = self._memo
        if memo is None or memo[0] != key:
            out_hw, matrices = make()
            matrices = np.ascontiguousarray(matrices, dtype=np.float32)
            matrices.flags.writeable = False
            memo = self._memo = key, self.plan(ws, layout, dtype, out_hw, matrices)
        return memo[1]

    def run_cpu(self, ws, plan):
        _kernel.warp_batch(ws.thread_pool, ws.input_storage(0), ws.outputs[0],
                           plan.matrices, plan.interp, plan.fill)

    def run_gpu(self, ws, plan):
        """One launch of `warp_affine.cu` over every image (sample or frame)."""
        src, out = ws.input_storage(0), ws.outputs[0]
        launch = _warp_affine_gpu.for_warp(ws, plan, src.offsets, out.offsets)
        ws.gpu.launch(_warp_affine_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (src, out, launch.images, launch.matrices, launch.interp,
                       launch.use_fill, launch.fill))


def check_args(op):
    """Definition-level checks shared by both operators (called from `setup`)."""
    if op.spec.given >= {"dtype", "output_dtype"}:
        raise op.error("Arguments `dtype` and `output_dtype` (its deprecated alias) cannot "
                       "both be given.", RuntimeError)


def layout_of(op, tl) -> str:
    """The input's layout, validated; an empty one is HWC, FHWC or FDHWC by dimensions."""
    return _layouts.input_layout(op, tl, LAYOUTS, _BY_NDIM)


def check_2d(op, layout):
    if "D" in layout:
        raise op.error(f"volumetric ({layout}) input is not supported yet in dali; only 2-D "
                       "images (HWC, FHWC) are.", NotImplementedError)


def interp(op) -> int:
    value = Interp(op.args["interp_type"])
    if value not in (Interp.INTERP_NN, Interp.INTERP_LINEAR):
        raise op.error(f"Only nearest and linear interpolation is supported, got {value}.",
                       RuntimeError)
    return int(value)


def output_dtype(op, in_dtype) -> np.dtype:
    """The output type (`dtype` or the input's), checked against the kernels."""
    in_dtype = np.dtype(in_dtype)
    wanted = op.args["dtype"]
    out = in_dtype if wanted is None else _types.dtype_of(T(wanted))
    if in_dtype not in _OUTPUTS or out not in _OUTPUTS[in_dtype]:
        raise op.error(f"Unsupported input/output types for the operator: {in_dtype.name} -> "
                       f"{out.name}. Supported: uint8, int16 and int32 to the same type or "
                       "float; float to uint8, int16, int32 or float.", TypeError)
    return out


def fill_for(in_dtype, fill_value):
    """`fill_value` converted to the input type (rounded, saturated), as a float; or None."""
    if fill_value is None:
        return None
    in_dtype = np.dtype(in_dtype)
    if in_dtype.kind in "iu":
        info = np.iinfo(in_dtype)
        if np.isnan(fill_value):
            return 0.0
        v = np.clip(fill_value, info.min, info.max)
        return float(np.trunc(v + np.copysign(0.5, v)))
    return float(np.float32(fill_value))


def per_frame(tl) -> bool:
    """Whether the argument input or input batch `tl` is given per frame (`fn.per_frame`)."""
    return tl is not None and tl.layout().startswith("F")


def sequence_frames(ws, layout, name, tl):
    """The frames of every sample ((n,) int64) of the sequence input with layout `layout`,
    for `tl`, the per-frame batch of argument `name`: refused on an input that is not a
    sequence, and for sequences without frames, as DALI does."""
    if not layout.startswith("F"):
        total = int(np.asarray(tensors.storage_of(tl).shapes)[:, 0].sum())
        raise ws.op.error(f"Unexpected number of elements in argument `{name}`: {total}; "
                          f"expected: {ws.batch_size} (a per-frame argument needs a sequence "
                          f"input, whose layout starts with \"F\", got \"{layout}\").",
                          RuntimeError)
    return with_frames(ws, np.asarray(ws.input_storage(0).shapes)[:, 0].astype(np.int64))


def with_frames(ws, frames):
    """`frames` (per sample), refused where one is 0, as DALI refuses them with per-frame
    arguments."""
    empty = np.flatnonzero(frames == 0)
    if empty.size:
        raise ws.sample_error(int(empty[0]), "Samples with no frames are not allowed; a "
                                             "per-frame argument needs at least one frame.",
                              RuntimeError)
    return frames


def check_frame_counts(ws, name, own, frames, positional):
    """DALI's errors where the per-frame values `own` (per sample) of argument `name` (or of
    the `positional` input) are neither one nor the sample's `frames` (a positional input is
    not broadcast over the frames: it must give them all)."""
    if positional:
        bad = np.flatnonzero(own != frames)
        if bad.size:
            i = int(bad[0])
            raise ws.sample_error(i, f"The input 0 and the input 1 have different number of "
                                     f"frames for sample {i}, respectively: {frames[i]} and "
                                     f"{own[i]}", RuntimeError)
    bad = np.flatnonzero((own != 1) & (own != frames))
    if bad.size:
        i = int(bad[0])
        raise ws.sample_error(i, f"The sample {i} of tensor argument `{name}` contains "
                                 f"{own[i]} per-frame parameters, but there are {frames[i]} "
                                 "frames in the corresponding sample of input 0. The numbers "
                                 "should match.", RuntimeError)


def frame_rows(ws, name, tl, frames, inner, what, positional=False):
    """(frames.sum(), k) float64 values of the per-frame batch `tl` (argument input `name`,
    or the `positional` input `name`), one row per frame of every sample: each sample holds
    one value of shape `inner` (`()`: a scalar) per frame, or (an argument input) a single one
    repeated over the frames.  `what` describes one value for errors."""
    st = tensors.storage_of(tl)
    shapes = np.asarray(st.shapes, dtype=np.int64).reshape(len(tl), -1)
    if len(tl) != len(frames):
        raise ws.op.error(f"Unexpected number of samples in argument `{name}`: {len(tl)}; "
                          f"expected: {len(frames)}", RuntimeError)
    if not inner:               # a scalar per frame: (frames,) or (frames, 1, ...)
        bad = np.flatnonzero(np.prod(shapes[:, 1:], axis=1) != 1)
    elif shapes.shape[1] == len(inner) + 1:
        bad = np.flatnonzero((shapes[:, 1:] != inner).any(axis=1))
    else:
        bad = np.arange(len(tl))
    if bad.size:
        i = int(bad[0])
        raise ws.sample_error(i, f"per-frame `{name}` must hold {what} per frame (shape "
                                 f"{(-1, *inner)} with -1 the frames), got shape "
                                 f"{tuple(int(d) for d in shapes[i])}.", RuntimeError)
    own = shapes[:, 0]
    check_frame_counts(ws, name, own, frames, positional)
    k = int(np.prod(inner, dtype=np.int64))
    rows = np.asarray(st.contiguous().flat(), np.float64).reshape(-1, k)
    return np.repeat(rows, np.repeat(np.where(own == 1, frames, 1), own), axis=0)


def size_of(ws, i, value, ndim=2):
    """A per-sample `size` value as integers (rounded half away from zero), checked."""
    value = np.asarray(value, dtype=np.float64).reshape(-1)
    if value.size != ndim:
        raise ws.sample_error(
            i, f"`size` must specify the same number of dimensions as the input (excluding "
               f"channels): expected {ndim} values, got {value.size}.")
    size = tuple(int(np.trunc(v + np.copysign(0.5, v))) for v in value)
    if any(s <= 0 for s in size):
        raise ws.sample_error(i, f"Output size must be positive, got `size`={value.tolist()}.")
    return size


def sizes(ws):
    """`size` of every sample as an (n, 2) int64 array (a constant is checked once)."""
    if not ws.is_arg_input("size"):
        return np.tile(size_of(ws, 0, ws.scalar("size")), (ws.batch_size, 1))
    return np.array([size_of(ws, i, v) for i, v in enumerate(ws.arg("size"))],
                    dtype=np.int64).reshape(-1, 2)
