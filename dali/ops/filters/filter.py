"""fn.filter (and its deprecated alias fn.experimental.filter): correlates images and video
frames with a per-sample 2-D float32 filter.

out[y, x] = sum_i sum_j filter[i, j] * in[y - a_i + i, x - a_j + j], in float32, with the
input extended past its edges by `border` ("reflect_101", "reflect_1001", "wrap", "clamp", or
"constant": the sample's `fill_value`, 0 by default); in "valid" mode only positions where the
filter lies inside the input are computed (the output is smaller by the filter's extents - 1)
and the anchor is 0.  The anchor -1 centres the filter (extent // 2).  Channels (first or last)
are filtered independently; a sequence's frames can each have their own filter (a filter
input given per frame, "F" leading its layout) and fill value.  DALI's CPU backend takes 2-D
data only (no volumes) of uint8, int16, uint16 or float32; its GPU backend also volumes (a 3-D
filter) and int8 and float16.  The kernels are `dali._ext.kernels.convolution.filter_batch`
and, on the GPU, `convolution.cu`'s filter_<in>_<out>.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types, tensors
from dali._ext.kernels import convolution as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops import _aliases, _gpu_program
from dali.ops.filters import _convolution, _convolution_gpu

_KINDS = frozenset(np.dtype(t) for t in (np.uint8, np.int16, np.uint16, np.float32))
_GPU_KINDS = _KINDS | {np.dtype(np.int8), np.dtype(np.float16)}      # as DALI's GPU backend
_BORDERS = {"reflect_101": _kernel.BORDER_REFLECT_101,
            "reflect_1001": _kernel.BORDER_REFLECT_1001, "wrap": _kernel.BORDER_WRAP,
            "clamp": _kernel.BORDER_CLAMP, "constant": _kernel.BORDER_CONSTANT}

_DOC = ("Correlates every image or video frame with a 2-D float32 filter (the order of the "
        "filter's elements is not flipped). The output at (y, x) is the sum over the filter of "
        "filter[i, j] * input[y - a_i + i, x - a_j + j] (`anchor` a), computed in float32 and "
        "clamped to integer output types. Positions outside the input follow `border`; in "
        "\"valid\" mode the output only covers positions where the filter lies inside the "
        "input. Channel-first and channel-last inputs are supported; for sequences, the filter "
        "and fill value can be given per frame. The CPU backend takes uint8, int16, uint16 "
        "and float32 images and videos (no volumes); the GPU backend also int8 and float16, "
        "and volumes (with 3-D filters).")

_ARGS = [
    Arg("anchor", T._INT32_VEC, [-1], tensor=True,
        doc="The position of the filter over the input, one value per filter axis within the "
            "filter's extents; -1 (default) takes the middle (extent // 2). Ignored in "
            "\"valid\" mode. Supports per-frame inputs."),
    Arg("border", T.STRING, "reflect_101",
        doc='Out-of-bound positions: "reflect_101" (default, dcb|abcdefghi|hgf), '
            '"reflect_1001" (cba|abcdefghi|ihg), "wrap" (ghi|abcdefghi|abc), "clamp" '
            '(aaa|abcdefghi|iii) or "constant" (the sample\'s `fill_value`, 0 by default).'),
    Arg("mode", T.STRING, "same",
        doc='"same" (default): the output has the input\'s size and `border` extends the '
            'input; "valid": the output is cropped by the filter\'s extents - 1 so that the '
            "filter lies inside the input."),
    Arg("dtype", T.DATA_TYPE, None,
        doc="Output data type: the input's or FLOAT. If not set, the input type is used; "
            "integer outputs are clamped to their range."),
]


def _per_sample_rows(op, ws, k, name, counts, shapes, per_frame_ok):
    """Input `k` as one array per part: a sample's value repeated over its parts, or, given per
    frame ("F" leading its layout) on a sequence, one per frame."""
    tl = ws.inputs[k]
    samples = ws.input_samples(k)
    frames = shapes[:, 0] if per_frame_ok else None
    out = []
    layout = tl.layout() or ""
    for i, s in enumerate(samples):
        s = np.asarray(s)
        if frames is not None and layout.startswith("F"):
            if s.shape[0] != frames[i]:
                raise ws.sample_error(i, f"The {name} is given per frame: it needs one per frame "
                                         f"({frames[i]}), got {s.shape[0]}.")
            per = counts[i] // max(int(frames[i]), 1)
            out.extend(f for f in s for _ in range(per))
        else:
            out.extend([s] * int(counts[i]))
    return out


@_registry.register
class Filter(_operator.Operator):
    schema = Schema("filter", inputs=(2, 3), outputs=1, devices=("cpu", "gpu"),
                    input_names=("data", "filter", "fill_value"), gpu_host_inputs=(1, 2),
                    doc=_DOC, args=_ARGS)

    def setup(self):
        if self.args["mode"] not in ("same", "valid"):
            raise self.error(f"Unknown ``mode`` was provided: ``{self.args['mode']}``. "
                             f"Supported modes are ``same`` and ``valid``.")
        if self.args["border"] not in _BORDERS:
            raise self.error(f"Unknown ``border_type`` was provided: "
                             f"``{self.args['border']}``.")
        # (input shape array, key, OutputDesc, plan values but the filters) of the last batch
        # whose plan depends only on them: the shape array (the same object for a repeated
        # batch shape) and the key's types and layouts and shape of a filter batch of one shape
        self._memo = None

    def infer(self, ws):
        storage = ws.input_storage(0)
        filters = ws.input_storage(1)
        dense = filters.dense() if len(ws.inputs) == 2 else None
        filter_layout = ws.inputs[1].layout() or ""
        if dense is None or filter_layout.startswith("F") or ws.is_arg_input("anchor"):
            return self._plan(ws)
        key = (storage.dtype, ws.inputs[0].layout(), filters.dtype, dense.shape, filter_layout)
        memo = self._memo
        if memo is None or memo[0] is not storage.shapes or memo[1] != key:
            plan = self._plan(ws)
            values = {k: v for k, v in vars(plan).items() if k not in ("outputs", "filters")}
            memo = self._memo = (storage.shapes, key, plan.outputs[0], values)
        return _operator.Plan([memo[2]], filters=dense.reshape(-1), **memo[3])

    def _plan(self, ws):
        tl = ws.inputs[0]
        storage = ws.input_storage(0)
        gpu = self.spec.device == "gpu"
        kinds = _GPU_KINDS if gpu else _KINDS
        if storage.dtype not in kinds:
            raise self.error(f"Filter {'GPU' if gpu else 'CPU'} does not support input type "
                             f"{storage.dtype}.", TypeError)
        axes = _convolution.data_axes(self, tl)
        dtype = self.args["dtype"]
        out = _convolution.check_dtype(self, storage.dtype, None if dtype is None else
                                       _types.dtype_of(dtype), kinds)
        filt_store = tensors.storage_of(ws.inputs[1])
        if filt_store.dtype != np.float32:
            raise self.error(f"Unsupported filter type: {filt_store.dtype}.", TypeError)
        seq = axes.frames
        filt_ndim = filt_store.ndim - (1 if seq and (ws.inputs[1].layout() or "")
                                       .startswith("F") else 0)
        if filt_ndim != axes.data:
            raise self.error(f"Filter dimensionality must match the number of spatial "
                             f"dimensions in the input samples. Got {axes.data} spatial "
                             f"dimensions but the filter is {filt_ndim} dimensional.")
        if axes.data != 2 and not gpu:
            raise self.error("Filter CPU does not support volumetric (3D) data.")
        nd = axes.data
        shapes = np.asarray(storage.shapes, np.int64).reshape(len(tl), storage.ndim)
        geo = _convolution.geometry(shapes, axes)
        counts = geo[:, 0]
        sample = np.repeat(np.arange(len(tl)), counts)
        flat, index = self._filters(ws, filt_store, counts, shapes, seq, sample, nd)
        fshape = index[:, 1:]
        empty = np.flatnonzero((fshape == 0).any(axis=1))
        if empty.size:
            raise ws.sample_error(int(sample[empty[0]]), "The filter is empty.")
        valid = self.args["mode"] == "valid"
        anchors = self._anchors(ws, fshape, geo, axes, shapes, sample, valid)
        out_geo = geo.copy()
        if valid:
            per_sample = np.zeros((len(tl), nd), np.int64)
            if len(sample):
                per_sample[sample] = fshape
            out_geo[:, 2:2 + nd] -= per_sample - 1
            small = np.flatnonzero((out_geo[:, 2:2 + nd] <= 0).any(axis=1) & (counts > 0))
            if small.size:
                i = int(small[0])
                raise ws.sample_error(i, f"Filter for sample of idx {i} is bigger than the "
                                         f"sample. This is not allowed if ``mode`` is set to "
                                         f"``valid``.")
            out_shapes = shapes.copy()
            d0 = int(axes.frames) + int(axes.channels_first)
            out_shapes[:, d0:d0 + nd] = out_geo[:, 2:2 + nd]
            out_shapes = [tuple(s) for s in out_shapes]
            if len(sample):        # per-frame filters of one sample must agree in "valid"
                first = np.repeat(np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
                if (fshape != fshape[first]).any():
                    raise self.error("In \"valid\" mode the filters of a sample's frames must "
                                     "have the same shape.")
        else:
            out_shapes = storage.shapes
        fills = np.zeros(len(sample), np.float32)
        if len(ws.inputs) > 2 and ws.input_dtype(2) != storage.dtype:
            raise self.error(f"The fill_value must have the input's type ({storage.dtype}), got "
                             f"{ws.input_dtype(2)}.", TypeError)
        if len(ws.inputs) > 2 and self.args["border"] == "constant":
            fills = np.array([np.asarray(v).reshape(()) for v in _per_sample_rows(
                self, ws, 2, "fill value", counts, shapes, seq)], np.float32).reshape(-1)
        layout = tl.layout()
        return _operator.Plan([_operator.OutputDesc(out_shapes, out, layout)],
                              geometry=geo, out_geometry=out_geo, filters=flat, index=index,
                              anchors=anchors, fills=fills)

    def _filters(self, ws, store, counts, shapes, seq, sample, nd):
        """(all filters flat, (parts, 1 + nd) offset and extents (height, width; depth first
        for volumes, on the GPU) of every part's filter)."""
        per_frame = seq and (ws.inputs[1].layout() or "").startswith("F")
        dense = None if per_frame else store.dense()
        if dense is not None:          # one filter shape: no copy, no per-sample Python
            index = np.empty((len(sample), 1 + nd), np.int64)
            index[:, 0] = sample * int(np.prod(dense.shape[1:]))
            index[:, 1:] = dense.shape[1:]
            return dense.reshape(-1), index
        filters = _per_sample_rows(self, ws, 1, "filter", counts, shapes, seq)
        index = np.empty((len(filters), 1 + nd), np.int64)
        index[:, 1:] = np.array([f.shape for f in filters], np.int64).reshape(-1, nd)
        sizes = np.prod(index[:, 1:], axis=1)
        index[:, 0] = np.cumsum(sizes) - sizes
        flat = (np.concatenate([f.reshape(-1) for f in filters]) if filters
                else np.zeros(0, np.float32))
        return flat, index

    def _anchors(self, ws, fshape, geo, axes, shapes, sample, valid):
        if valid:
            return np.zeros_like(fshape)
        if not ws.arg_given("anchor"):       # the default -1: the filters' centres
            return fshape // 2
        anchors = _convolution.per_part(self, ws, "anchor", fshape.shape[1], geo, axes, shapes,
                                        np.int64)
        bad = np.flatnonzero(((anchors < -1) | (anchors >= fshape)).any(axis=1))
        if bad.size:
            p = int(bad[0])
            i = int(sample[p])
            raise ws.sample_error(i, f"Anchor must lie within the filter. Got anchor "
                                     f"{{{', '.join(str(a) for a in anchors[p])}}} with a "
                                     f"filter of shape {' x '.join(str(e) for e in fshape[p])} "
                                     f"for sample of idx {i}.")
        return np.where(anchors == -1, fshape // 2, anchors)

    def run_cpu(self, ws, plan):
        _kernel.filter_batch(ws.thread_pool, ws.input_storage(0), ws.outputs[0],
                             plan.geometry, plan.out_geometry, plan.filters, plan.index,
                             plan.anchors, _BORDERS[self.args["border"]], plan.fills)

    def run_gpu(self, ws, plan):
        src, out = ws.input_storage(0), ws.outputs[0]
        program = _convolution_gpu.filter_(
            plan.geometry, plan.out_geometry, plan.filters, plan.index, plan.anchors, plan.fills,
            _BORDERS[self.args["border"]], src.dtype, out.dtype, src.offsets, out.offsets)
        _gpu_program.run(ws.gpu, program, src, out)


ExperimentalFilter = _aliases.deprecated_alias(
    "experimental.filter", Filter, "its features moved out of `experimental`", __name__)
