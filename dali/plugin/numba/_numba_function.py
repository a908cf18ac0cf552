"""The `numba_function` operator: a user's numba-compiled function on the samples.

`run_fn(out0, ..., in0, ...)` fills the outputs (numpy arrays the executor leased) from the
inputs; it is compiled once, when the pipeline is built (`_compile`), and the `numba_call`
kernel runs it on the pipeline's threads without the GIL: per sample, or once per batch with
lists of arrays (`batch_processing=True`).  The output shapes are the inputs' (output k has
input k's shape) unless `setup_fn(outs, ins)` writes them, once per batch, into
`outs[k][i]`.  As in DALI, the operator is never pruned and takes from 1 to 6 inputs and up
to 6 outputs, whose types and numbers of dimensions the user declares.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from dali import _operator, _types
from dali._ext.kernels import numba_call
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.plugin.numba import _compile

MAX_ARGS = 6


@dataclasses.dataclass
class _PluginSchema(Schema):
    @property
    def display_name(self) -> str:
        return "dali.plugin.numba.fn.experimental." + self.name


def _num_outputs(args):
    return len(args.get("out_types") or [])


class NumbaFunction(_operator.Operator):
    schema = _PluginSchema(
        "numba_function", inputs=(1, MAX_ARGS), outputs=_num_outputs, devices=("cpu",),
        class_name="NumbaFunction", no_prune=True, serializable=False,
        doc="Invokes a njit compiled Numba function.\n\n"
            "`run_fn(out0, ..., in0, ...)` gets numpy arrays: the outputs to fill and the "
            "inputs (per sample, or with `batch_processing=True` one list of arrays per output "
            "and input); it must compile in numba's nopython mode, and runs on the pipeline's "
            "threads without the GIL. At most 6 inputs and 6 outputs. Without `setup_fn` "
            "output k has input k's shape; `setup_fn(outs, ins)`, run once per batch, sets "
            "them: `outs[k][i]` is the shape of sample i of output k (write it), `ins[k][i]` "
            "the shape of sample i of input k. Outputs have no layout.",
        args=[
            Arg("run_fn", T.PYTHON_OBJECT, REQUIRED,
                doc="Function to be invoked. It must work in Numba `nopython` mode."),
            Arg("out_types", T._DATA_TYPE_VEC, REQUIRED, doc="Types of outputs."),
            Arg("in_types", T._DATA_TYPE_VEC, REQUIRED, doc="Types of inputs."),
            Arg("outs_ndim", T._INT32_VEC, REQUIRED,
                doc="Number of dimensions which outputs shapes should have."),
            Arg("ins_ndim", T._INT32_VEC, REQUIRED,
                doc="Number of dimensions which inputs shapes should have."),
            Arg("setup_fn", T.PYTHON_OBJECT, None,
                doc="Setup function setting shapes for outputs, invoked once per batch. It "
                    "must work in Numba `nopython` mode."),
            Arg("batch_processing", T.BOOL, False,
                doc="Invoke `run_fn` once per batch (with lists of arrays) instead of once "
                    "per sample; per-sample calls run in parallel."),
            Arg("blocks", T._INT32_VEC, None,
                doc="3-item list specifying the number of blocks per grid used to execute "
                    "a CUDA kernel.", ignored="used only by the GPU operator"),
            Arg("threads_per_block", T._INT32_VEC, None,
                doc="3-item list specifying the number of threads per block used to execute "
                    "a CUDA kernel.", ignored="used only by the GPU operator"),
        ])

    @classmethod
    def check_call(cls, args, name):
        outs, ins, outs_ndim, ins_ndim = (
            cls.schema.arg_map[k].convert(args.get(k, []), cls.schema.name)
            for k in ("out_types", "in_types", "outs_ndim", "ins_ndim"))
        if len(ins) != len(ins_ndim):
            raise AssertionError("Number of input types and input dimensions should match.")
        if len(outs) != len(outs_ndim):
            raise AssertionError("Number of output types and output dimensions should match.")
        if len(outs) > MAX_ARGS or len(ins) > MAX_ARGS:
            raise ValueError(f"{cls.schema.display_name}: at most {MAX_ARGS} inputs and "
                             f"{MAX_ARGS} outputs")
        if T.FLOAT16 in [*outs, *ins]:
            raise RuntimeError(f"{cls.schema.display_name}: float16 inputs and outputs are "
                               "not supported (as in DALI)")
        if any(d < 0 for d in [*outs_ndim, *ins_ndim]):
            raise ValueError(f"{cls.schema.display_name}: `outs_ndim` and `ins_ndim` must "
                             "not be negative")
        if args.get("setup_fn") is None and len(outs) != len(ins):
            raise RuntimeError("Size of `out_types` should match size of `in_types` when "
                               "`setup_fn` isn't provided.")

    def setup(self):
        a = self.args
        self.out_dtypes = [_types.dtype_of(t) for t in a["out_types"]]
        self.in_types = list(a["in_types"])
        self.in_dtypes = [_types.dtype_of(t) for t in self.in_types]
        self.outs_ndim, self.ins_ndim = list(a["outs_ndim"]), list(a["ins_ndim"])
        for what in ("run_fn", "setup_fn"):
            if a[what] is not None and not callable(a[what]):
                raise TypeError(f"`{what}` must be callable, got {type(a[what]).__name__}")
        dtypes = tuple(d.str for d in self.out_dtypes) + \
            tuple(d.str for d in self.in_dtypes)
        self.entry, self._keep = _compile.run_entry(
            a["run_fn"], dtypes, tuple(self.outs_ndim + self.ins_ndim),
            bool(a["batch_processing"]))
        self.setup_call = None if a["setup_fn"] is None else _compile.setup_call(a["setup_fn"])
        # setup_fn's view of the flat shape buffers: each argument's offset and dimensions
        self.shape_tables = [np.asarray(t, np.int64) for nds in (self.outs_ndim, self.ins_ndim)
                             for t in (np.concatenate([[0], np.cumsum(nds)]), nds)]

    def infer(self, ws):
        if len(ws.inputs) != len(self.in_types):
            raise self.error(f"Expected {len(self.in_types)} inputs (basing on `in_types`), "
                             f"but got {len(ws.inputs)}")
        in_shapes = []
        for k in range(len(ws.inputs)):
            storage = ws.input_storage(k)
            if storage.dtype != self.in_dtypes[k]:
                raise self.error(
                    f"Data type passed in `in_types` at index {k} doesn't match type of the "
                    f"input data: {_types.type_name(self.in_types[k])} != "
                    f"{_types.type_name(_types.dali_type_of(storage.dtype))}", TypeError)
            if storage.ndim != self.ins_ndim[k]:
                raise self.error(
                    f"Number of dimensions passed in `ins_ndim` at index {k} doesn't match the "
                    f"number of dimensions of the input data: {self.ins_ndim[k]} != "
                    f"{storage.ndim}")
            in_shapes.append(storage.shapes)
        out_shapes = self._out_shapes(ws.batch_size, in_shapes)
        return _operator.Plan([_operator.OutputDesc(shapes, dt, "")
                               for shapes, dt in zip(out_shapes, self.out_dtypes, strict=True)])

    def _out_shapes(self, n, in_shapes):
        if self.setup_call is None:
            for k, (nd, shapes) in enumerate(zip(self.outs_ndim, in_shapes, strict=True)):
                if nd != shapes.shape[1]:
                    raise self.error(
                        f"without `setup_fn` output {k} has input {k}'s shape, with "
                        f"{shapes.shape[1]} dimensions, but `outs_ndim[{k}]` is {nd}")
            return in_shapes
        out_off, out_nd, in_off, in_nd = self.shape_tables
        out_flat = np.zeros(n * int(out_off[-1]), np.int64)
        in_flat = np.concatenate(in_shapes, axis=1).reshape(-1)
        self.setup_call(out_flat, out_off, out_nd, in_flat, in_off, in_nd, n)
        table = out_flat.reshape(n, -1)
        if (table < 0).any():
            raise self.error("`setup_fn` set a negative output extent")
        return [np.ascontiguousarray(table[:, out_off[k]:out_off[k + 1]])
                for k in range(len(self.outs_ndim))]

    def run_cpu(self, ws, plan):
        batches = [*ws.outputs, *(ws.input_storage(k).contiguous()
                                  for k in range(len(ws.inputs)))]
        numba_call.call_batch(ws.thread_pool, self.entry, batches,
                              bool(self.args["batch_processing"]))
