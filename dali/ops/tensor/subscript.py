"""Indexing DataNodes: `x[1]`, `x[:, 2:-1:2]`, `x[i]` with a per-sample index, `x[dali.newaxis]`.

`x[...]` becomes, as in DALI:

* `_tensor_subscript` with arguments `at_d` (an integer index: dimension d is removed, with its
  layout letter) or `lo_d`/`hi_d`/`step_d` (a slice, Python semantics: negative bounds count
  from the end, out-of-range bounds are clipped) per indexed dimension, plus `num_subscripts`;
  every one of them may be a DataNode holding one 0-D integer per sample;
* `_subscript_dim_check` when there are only full slices (`x[:, :]`, and `x[None]`, which is a
  full slice here, not a new axis): it only checks the number of dimensions;
* then `expand_dims` for `dali.newaxis` entries: an unnamed new axis clears the layout,
  `dali.newaxis("F")` inserts "F" into it.

Out-of-range indices, zero steps and too many indices are errors when the pipeline runs.
On the GPU, `_tensor_subscript` copies the planned views with `subscript.cu` and
`_subscript_dim_check` passes the device batch through.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, tensors
from dali._graph import data_node
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.tensor import _subscript_gpu, _views

MAX_SUBSCRIPTS = 32
_PARTS = ("at", "lo", "hi", "step")


class _NewAxis:
    """`dali.newaxis`: a new dimension of extent 1 in a subscript; `newaxis("F")` names it."""

    def __init__(self, name=None):
        if name is not None:
            if not isinstance(name, str):
                raise TypeError("Axis name must be a single-character string")
            if len(name) != 1:
                raise ValueError("Axis name must be a single-character string")
        self._name = name

    @property
    def name(self):
        return self._name

    def __call__(self, name=None):
        return _NewAxis(name)

    def __repr__(self):
        return "dali.newaxis" if self._name is None else f'dali.newaxis("{self._name}")'


newaxis = _NewAxis()


@data_node.implements("subscript")
def subscript(node, index):
    """`node[index]`: records the subscript operators (see the module docstring)."""
    if not isinstance(index, tuple):
        index = (index,)
    dims = []               # per input dimension: (at, lo, hi, step)
    new_axes, names = [], []
    for idx in index:
        if isinstance(idx, _NewAxis):
            new_axes.append(len(dims) - sum(d[0] is not None for d in dims) + len(new_axes))
            if idx.name is not None:
                names.append(idx.name)
        elif idx is None:
            dims.append((None, None, None, None))
        elif isinstance(idx, slice):
            dims.append((None, idx.start, idx.stop, idx.step))
        elif idx is Ellipsis:
            raise NotImplementedError("Ellipsis in indexing is not implemented")
        elif isinstance(idx, (float, np.floating, str, bytes)):
            raise TypeError(f"Invalid type for an index: {type(idx).__name__}")
        else:
            dims.append((idx, None, None, None))
    dims = [tuple(_as_index(v) for v in d) for d in dims]
    if names and len(names) != len(new_axes):
        raise ValueError("New axis name must be specified for all axes or none.")
    args = {f"{part}_{d}": v for d, parts in enumerate(dims)
            for part, v in zip(_PARTS, parts, strict=True) if v is not None}
    if args:
        sliced = _operator.call(TensorSubscript, [node], {**args, "num_subscripts": len(dims)})
    elif new_axes and isinstance(index[-1], _NewAxis):
        sliced = node           # expand_dims checks the dimensions itself
    else:
        sliced = _operator.call(SubscriptDimCheck, [node], {"num_subscripts": len(dims)})
    if not new_axes:
        return sliced
    return _operator.call(_registry.get("expand_dims"), [sliced],
                          {"axes": new_axes, "new_axis_names": "".join(names)})


def _as_index(value):
    """An index value as an argument: a NumPy array with dimensions becomes a per-sample
    tensor (a Constant node), which fails when run as it is not 0-D, as in DALI."""
    if isinstance(value, np.ndarray) and value.ndim > 0 and value.dtype.kind in "biuf":
        return data_node._call("constant", value)
    return value


def _too_many(ws, i, n, ndim):
    """The error for more subscripts than the samples have dimensions."""
    return ws.sample_error(i, f"Too many indices ({n}) for a {ndim}-D tensor.", IndexError)


def _index_args(ws, name):
    """Per-sample values of index argument `name`, or None when it is not given."""
    if not ws.is_arg_input(name):
        v = ws.spec.args[name]
        return None if v is None else [v] * ws.batch_size
    tl = ws.arg_inputs[name]
    if len(tl) != ws.batch_size:
        raise ws.op.error(f"argument input `{name}` has {len(tl)} samples but the batch has "
                          f"{ws.batch_size}")
    if tensors.storage_of(tl).dtype.kind not in "biu":
        dtype = tensors.storage_of(tl).dtype
        raise ws.op.error(f"Array index must be of integral type. Got: {dtype} "
                          f"(argument `{name}`)", TypeError)
    if tl.ndim() != 0:
        raise ws.op.error(f"Array indices must be scalar (0D). Got {tl.ndim()}D tensor "
                          f"(argument `{name}`).")
    return [int(s) for s in tensors.storage_of(tl).samples()]


@_registry.register
class TensorSubscript(_operator.Operator):
    schema = Schema(
        "_tensor_subscript", inputs=1, outputs=1, devices=("cpu", "gpu"),
        class_name="_TensorSubscript", internal=True,
        doc="Indexes and slices samples (what `DataNode[...]` records).",
        args=[*(Arg(f"{part}_{d}", T.INT32, None, tensor=True,
                    doc={"at": f"Index in dimension {d} (removes the dimension).",
                         "lo": f"Start of the slice in dimension {d}.",
                         "hi": f"End (exclusive) of the slice in dimension {d}.",
                         "step": f"Step of the slice in dimension {d}."}[part])
                for d in range(MAX_SUBSCRIPTS) for part in _PARTS),
              Arg("num_subscripts", T.INT32, None,
                  doc="Number of indexed dimensions (default: up to the last one given).")])

    def setup(self):
        given = [d for d in range(MAX_SUBSCRIPTS)
                 if any(f"{p}_{d}" in self.spec.given for p in _PARTS)]
        n = self.args["num_subscripts"]
        self.count = n if n is not None else (given[-1] + 1 if given else 0)
        for d in given:
            if d >= self.count:
                raise RuntimeError(f"{self.spec.display_name}: a subscript is given for "
                                   f"dimension {d} but num_subscripts is {self.count}")
            if f"at_{d}" in self.spec.given and any(
                    f"{p}_{d}" in self.spec.given for p in _PARTS[1:]):
                raise RuntimeError(f"{self.spec.display_name}: `at_{d}` cannot be combined "
                                   f"with `lo_{d}`, `hi_{d}` or `step_{d}`")
        self.removed = [d for d in given if f"at_{d}" in self.spec.given]
        self.index_args = [f"{p}_{d}" for d in given for p in _PARTS
                           if f"{p}_{d}" in self.spec.given]
        self._memo = _views.ShapeMemo()

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = ws.input_storage(0)
        per_sample = any(ws.is_arg_input(name) for name in self.index_args)
        found = None if per_sample else self._memo.get(storage.shapes)
        if found is None:
            found = self._indices(ws, storage.shapes.tolist())
            if not per_sample:
                self._memo.put(storage.shapes, found)
        indices, out_shapes = found
        layout = tl.layout()
        if layout:
            layout = "".join(c for d, c in enumerate(layout) if d not in self.removed)
        # one index for every sample of a uniform batch: one NumPy copy of the dense batch
        same = not per_sample and bool((storage.shapes == storage.shapes[:1]).all())
        return _operator.Plan([_operator.OutputDesc(out_shapes, ws.input_dtype(0), layout,
                                                    tl.ndim() - len(self.removed))],
                              indices=indices, same=same)

    def _indices(self, ws, shapes):
        """(per-sample index tuples, output shapes) for the batch's sample `shapes`."""
        n = self.count
        values = {name: _index_args(ws, name) for name in self.index_args}
        indices, out_shapes = [], []
        for i, shape in enumerate(shapes):
            ndim = len(shape)
            if ndim == 0 and n:
                raise ws.sample_error(i, "Cannot apply an index to a scalar.", IndexError)
            if n > ndim:
                raise _too_many(ws, i, n, ndim)
            idx = []
            for d in range(n):
                given = {p: None if values.get(f"{p}_{d}") is None else values[f"{p}_{d}"][i]
                         for p in _PARTS}
                idx.append(self._one(ws, i, d, shape[d], given))
            indices.append(tuple(idx))
            kept = [len(range(*ix.indices(extent))) for ix, extent in zip(idx, shape, strict=False)
                    if isinstance(ix, slice)]
            out_shapes.append((*kept, *shape[n:]))
        return indices, out_shapes

    @staticmethod
    def _one(ws, i, d, extent, v):
        if v["at"] is not None:
            at = v["at"]
            if not -extent <= at < extent:
                raise ws.sample_error(
                    i, f"Index {at} is out of range for axis {d} of length {extent}", IndexError)
            return at + extent if at < 0 else at
        if v["step"] == 0:
            raise ws.sample_error(i, f"Step cannot be zero (axis {d}).")
        return slice(v["lo"], v["hi"], v["step"])

    def run_cpu(self, ws, plan):
        if ws.batch_size == 0:
            return
        src = ws.input_storage(0)
        dense_in, dense_out = src.dense(), ws.outputs[0].dense()
        if plan.same and dense_in is not None and dense_out is not None:
            dense_out[...] = dense_in[(slice(None), *plan.indices[0])]
            return
        for s, dst, ix in zip(src.samples(), ws.output_samples(0), plan.indices, strict=True):
            dst[...] = s[ix]

    def run_gpu(self, ws, plan):
        """subscript.cu: each sample's view (plan.indices) copied."""
        if ws.batch_size == 0:
            return
        src, dst = ws.input_storage(0), ws.outputs[0]
        launch = _subscript_gpu.launch(src.shapes, plan.indices, src.dtype.itemsize,
                                       src.offsets, dst.offsets)
        ws.gpu.launch(_subscript_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (src, dst, launch.samples))


@_registry.register
class SubscriptDimCheck(_operator.Operator):
    schema = Schema(
        "_subscript_dim_check", inputs=1, outputs=1, devices=("cpu", "gpu"),
        class_name="_SubscriptDimCheck", internal=True,
        doc="Passes its input through after checking it has at least `num_subscripts` "
            "dimensions (what `DataNode[:, :]` records).",
        args=[Arg("num_subscripts", T.INT32, REQUIRED,
                  doc="Number of full-range subscripts the input must accommodate.")])

    def infer(self, ws):
        tl = ws.inputs[0]
        n = self.args["num_subscripts"]
        if n > tl.ndim():
            raise self.error(f"Too many indices ({n}) for a {tl.ndim()}-D tensor.", IndexError)
        return _operator.Plan(
            [_operator.OutputDesc(None, tensors.storage_of(tl).dtype, tl.layout(), tl.ndim())])

    def run_cpu(self, ws, plan):
        ws.outputs = [ws.input_storage(0)]

    run_gpu = run_cpu
