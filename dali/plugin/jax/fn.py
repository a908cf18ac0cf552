"""`dali.plugin.jax.fn.jax_function`: a function on `jax.Array` batches as a pipeline operator.

`jax_function(f)` (a decorator, optionally with arguments) returns a function of DataNodes:
each call records one `_JaxFunction` node whose run hands `f` every input batch as one
`jax.Array` (the batch is the leading axis, so the samples must have one shape: DALI's
rule) and turns the arrays `f` returns back into batches.  With `sharding`, `f` sees global
arrays built from this process's batch, as in DALI (one local device only).  Outputs take
`output_layouts`, or else the layout of the input at the same position when it has as many
dimensions.  The function runs where the pipeline's iteration runs, one call at a time; the
arrays it gets must not be used after it returns.  On the GPU (`device="gpu"`, or GPU
inputs) the batches reach `f` through DLPack as arrays on the pipeline's device, the
pipeline's stream is waited for before `f` runs and the device after it, and the arrays it
returns are copied into the outputs; `sharding` is CPU only there.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import numpy as np

from dali import _operator
from dali._ext.tensor_storage import BatchStorage
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.python import _function

__all__ = ["jax_function"]


@dataclasses.dataclass
class _PluginSchema(Schema):
    @property
    def display_name(self) -> str:
        return "dali.plugin.jax.fn.jax_function"


class _JaxFunction(_function.FunctionOperator):
    schema = _PluginSchema(
        "_jax_function", inputs=(0, -1), outputs=_function.outputs_in_pipeline,
        devices=("cpu", "gpu"), class_name="_JaxFunction", internal=True, serializable=False,
        doc="Runs a JAX function on whole batches (see `jax_function`).",
        args=[
            Arg("function", T.PYTHON_OBJECT, REQUIRED, doc="The callable to run."),
            Arg("num_outputs", T.INT32, 1, doc="Number of outputs."),
            Arg("output_layouts", T.PYTHON_OBJECT, None, doc="Layouts of the outputs."),
            Arg("sharding", T.PYTHON_OBJECT, None,
                doc="A `jax.sharding.Sharding` the function's arrays are made global with."),
        ])

    @classmethod
    def check_call(cls, args, name):
        layouts = args.get("output_layouts")
        n = int(args.get("num_outputs", 1))
        if isinstance(layouts, (list, tuple)) and len(layouts) != n:
            raise ValueError("The number of `output_layouts` must match the `num_outputs` "
                             f"argument: got {len(layouts)} layouts for {n} outputs.")
        sharding = args.get("sharding")
        if sharding is not None and not isinstance(sharding, jax.sharding.Sharding):
            raise ValueError("The value passed as `sharding` must be an instance of "
                             f"`jax.sharding.Sharding`, got value of a type {type(sharding)}")

    def setup(self):
        super().setup()
        if self.args["sharding"] is not None and self.spec.device == "gpu":
            raise NotImplementedError("dali.plugin.jax.fn.jax_function: `sharding` with "
                                      "device=\"gpu\" is not implemented yet in dali")
        if self.args["sharding"] is not None and jax.local_device_count() != 1:
            raise NotImplementedError(
                "Currently, the `jax_function` supports only global/multiprocessing sharding. "
                "The number of local devices seen by the process must be 1, got "
                f"{jax.local_device_count()}")

    def infer(self, ws):
        if self.spec.device == "gpu":
            with ws.gpu.user_scope():
                out = self._outputs(ws)
                arrays = [self._device_batch(ws, k, x) for k, x in enumerate(out)]
            return _operator.Plan(
                [_operator.OutputDesc([tuple(a.shape[1:])] * ws.batch_size, a.dtype,
                                      self._layout(ws, k, a.ndim - 1), ndim=a.ndim - 1)
                 for k, (a, _) in enumerate(arrays)],
                arrays=arrays)
        batches = [self._batch_of(ws, k, x) for k, x in enumerate(self._outputs(ws))]
        return _operator.Plan([_operator.OutputDesc(None, b.dtype, self._layout(ws, k, b.ndim),
                                                    ndim=b.ndim)
                               for k, b in enumerate(batches)], batches=batches)

    def run_gpu(self, ws, plan):
        for out, (a, ptr) in zip(ws.outputs, plan.arrays, strict=True):
            ws.gpu.copy(out.ptr, ptr, a.nbytes)
        ws.gpu.keep(plan.arrays)

    def _outputs(self, ws):
        """The function's results on this batch (a tuple of `num_outputs`)."""
        out = self.function(*[self._array(ws, k) for k in range(len(ws.inputs))])
        if out is None:
            out = ()
        elif not isinstance(out, (tuple, list)):
            out = (out,)
        if len(out) != self.num_outputs:
            raise self.error(f"the function returned {len(out)} arrays, but num_outputs is "
                             f"{self.num_outputs}", TypeError)
        return out

    def _layout(self, ws, k, ndim):
        return self.layouts[k] or self._input_layout(ws, k, ndim)

    def _array(self, ws, k):
        storage = ws.input_storage(k)
        if ws.batch_size and storage.uniform_shape is None:
            raise self.error(
                "JAX Python function inputs must be batches of uniform shape, so that the "
                "input batch can be represented as a tensor. The input at index "
                f"{k} is a batch of samples with different shapes.")
        if self.spec.device == "gpu":
            dense = storage.dense_array()
            if dense is None:                          # an empty batch
                return jax.numpy.zeros((0,) * (storage.ndim + 1), storage.dtype)
            if isinstance(dense, np.ndarray):          # the emulated device
                return jax.numpy.asarray(dense)
            return jax.dlpack.from_dlpack(dense)
        dense = storage.dense()
        if dense is None:                  # per-sample storage
            dense = np.stack(storage.samples())
        array = jax.numpy.asarray(dense)
        sharding = self.args["sharding"]
        if sharding is None:
            return array
        devices = (sharding.mesh.size if isinstance(sharding, jax.sharding.NamedSharding)
                   else len(sharding.device_set))
        return jax.make_array_from_single_device_arrays(
            (devices * array.shape[0], *array.shape[1:]), sharding, [array])

    def _batch_of(self, ws, k, x):
        if not isinstance(x, jax.Array):
            raise self.error(f"output {k} of the function is a {type(x).__name__}; it must "
                             "return jax.Array objects", TypeError)
        if self.args["sharding"] is not None:
            shards = [s.data for s in x.addressable_shards]
            if len(shards) != 1:
                raise self.error(f"The function returned multiple shards, expected exactly "
                                 f"one, got {len(shards)}.")
            x = shards[0]
        return BatchStorage.from_arrays(list(self._checked(ws, k, np.asarray(x))))

    def _device_batch(self, ws, k, x):
        """(array, device address) of output k, a `jax.Array` on the pipeline's device."""
        if not isinstance(x, jax.Array):
            raise self.error(f"output {k} of the function is a {type(x).__name__}; it must "
                             "return jax.Array objects", TypeError)
        got = ws.gpu.user_array(x)
        if got is None:
            raise self.error(f"output {k} of the function is not on the pipeline's device "
                             f"(GPU {ws.gpu.device_id})", TypeError)
        self._checked(ws, k, got[0])
        return got

    def _checked(self, ws, k, arr):
        """`arr` (output k as one array, the batch first) after DALI's checks."""
        if arr.ndim == 0 or arr.shape[0] != ws.batch_size:
            raise self.error(f"output {k} of the function must be a batch: an array whose "
                             f"leading extent is the batch size {ws.batch_size}, got shape "
                             f"{arr.shape}")
        if arr.dtype.kind not in "biuf":
            raise self.error(f"output {k} of the function has the unsupported type "
                             f"{arr.dtype}", TypeError)
        lay = self.layouts[k]
        if lay and len(lay) != arr.ndim - 1:
            raise self.error(f"output_layouts[{k}] \"{lay}\" has {len(lay)} dimensions but "
                             f"the samples of output {k} have {arr.ndim - 1}")
        return arr

    @staticmethod
    def _input_layout(ws, k, ndim):
        if k < len(ws.inputs) and ws.input_storage(k).ndim == ndim:
            return ws.inputs[k].layout() or ""
        return ""


def jax_function(function=None, num_outputs=1, output_layouts=None, sharding=None,
                 device=None, preserve=True):
    """Turn `function`, which takes and returns `jax.Array` batches (the leading axis is the
    batch), into a function of DataNodes usable in a pipeline definition.

    Parameters
    ----------
    function : callable, optional
        Takes one `jax.Array` per input and returns one per output (a tuple for several,
        None for `num_outputs=0`). Without it, `jax_function(...)` is a decorator.
    num_outputs : int
        How many arrays the function returns.
    output_layouts : str or list of str, optional
        One layout for every output or one per output (without the batch axis). Not given:
        output i takes the layout of input i when it has as many dimensions.
    sharding : jax.sharding.Sharding, optional
        Hand the function global arrays of this sharding (one local device only).
    device : str, optional
        "cpu", "gpu", or None: the device of the inputs.
    preserve : bool
        False lets the pipeline prune the operator when its outputs are unused.
    """
    if device not in (None, "cpu", "gpu"):
        raise ValueError(f"dali.plugin.jax.fn.jax_function: `device` must be \"cpu\", "
                         f"\"gpu\" or None, got {device!r}")

    def decorator(f):
        @functools.wraps(f)
        def dali_callback(*inputs):
            out = _operator.call(_JaxFunction, inputs, dict(
                function=f, num_outputs=num_outputs, output_layouts=output_layouts,
                sharding=sharding, preserve=preserve, device=device))
            return [] if out is None else out      # DALI's result without outputs
        return dali_callback

    return decorator if function is None else decorator(function)
