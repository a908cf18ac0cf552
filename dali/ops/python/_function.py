"""What the operators that call a user's Python function share (`python_function`,
`dl_tensor_python_function`, the plugins' `jax_function`): the definition-time check, the
`output_layouts` rule, calling the function per sample or per batch, and turning what it
returned into output batches.

A subclass says how the samples reach the function (`to_function`: numpy views by default) and
how its results are read back (`from_function`: anything numpy can view).  The function runs
on the thread that runs the pipeline's iteration, one call at a time; what it returns is copied
into the outputs (it may keep and later change the arrays it returned).  One exception: when it
returns the very objects it got for an input's samples, all of them in order (an identity or a
pass-through), that input's batch becomes the output without a copy: those samples are the
input's memory, which the function must not modify, so no one can observe the difference.
"""

from __future__ import annotations

import operator

import numpy as np

from dali import _operator, tensors
from dali._ext.tensor_storage import BatchStorage
from dali._graph import context


def outputs_in_pipeline(args):
    """The number of outputs; also the check, made when a call is recorded (the one
    definition-time hook a schema has), that a pipeline is being defined, as DALI requires."""
    if context.current_pipeline() is None:
        raise RuntimeError(
            "Current Pipeline not set!\nPythonFunction operator must be used inside "
            "`define_graph` or current pipeline must be explicitly set using context manager "
            "(`with my_pipeline:`) or with a call to `Pipeline.push_current(my_pipeline)`.")
    return int(args.get("num_outputs", 1))


def as_array(x):
    """`x` as a numpy array (a view where numpy can make one), or None."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, (np.generic, tensors.TensorCPU)) or hasattr(x, "__array_interface__"):
        return np.asarray(x)
    if hasattr(x, "__dlpack__"):
        return np.from_dlpack(x)
    return None


class FunctionOperator(_operator.Operator):
    """Base of the operators running `self.function` on the data (arguments `function`,
    `num_outputs`, `batch_processing`, `output_layouts`)."""

    def __init__(self, spec):
        super().__init__(spec)
        self.function = self.args["function"]
        self.num_outputs = int(self.args["num_outputs"])
        self.layouts = self._layouts(self.args["output_layouts"])

    def _layouts(self, value):
        n = self.num_outputs
        if value is None:
            return [""] * n
        if isinstance(value, str):
            return [value] * n
        if isinstance(value, (list, tuple)) and all(isinstance(x, str) for x in value):
            return [*value[:n], *[""] * (n - len(value))]
        raise TypeError(f"{self.spec.display_name}: `output_layouts` must be a layout string "
                        f"or a list of them, got {value!r}")

    def setup(self):
        if not callable(self.function):
            raise TypeError(f"`function` must be callable, got {type(self.function).__name__}")

    def infer(self, ws):
        if self.spec.device == "gpu":
            return self._infer_gpu(ws)
        given, results = self._call(ws)
        outputs = [self._batch(ws, k, samples, given) for k, samples in enumerate(results)]
        return _operator.Plan([_operator.OutputDesc(None, b.dtype, lay, ndim=b.ndim)
                               for b, lay in zip(outputs, self.layouts, strict=True)],
                              batches=outputs)

    def run_cpu(self, ws, plan):
        ws.outputs = plan.batches

    # -- on the GPU ---------------------------------------------------------------------------
    def _infer_gpu(self, ws):
        """The function runs here, on the device's arrays (`Device.user_scope`: the inputs
        are complete, and so is its work when it returns); `run_gpu` copies what it returned
        into the outputs on the stream."""
        with ws.gpu.user_scope():
            _, results = self._call(ws)
            outputs = [self._device_arrays(ws, k, samples) for k, samples in enumerate(results)]
        descs = []
        for k, arrays in enumerate(outputs):
            dtype = arrays[0][0].dtype if arrays else np.dtype(np.uint8)
            ndim = arrays[0][0].ndim if arrays else 0
            descs.append(_operator.OutputDesc([tuple(a.shape) for a, _ in arrays], dtype,
                                              self.layouts[k], ndim=ndim))
        return _operator.Plan(descs, arrays=outputs)

    def run_gpu(self, ws, plan):
        for out, arrays in zip(ws.outputs, plan.arrays, strict=True):
            for i, (a, ptr) in enumerate(arrays):
                ws.gpu.copy(out.sample_ptr(i), ptr, a.nbytes)
        ws.gpu.keep(plan.arrays)

    def _device_arrays(self, ws, k, samples):
        """[(array, address)] of output k's returned samples, checked as on the CPU."""
        arrays = []
        for i, s in enumerate(samples):
            got = ws.gpu.user_array(self.device_value(s))
            if got is None:
                raise ws.sample_error(
                    i, f"output {k} of the function is a {type(s).__name__}; on the GPU it "
                       f"must return arrays on device {ws.gpu.device_id} (CuPy arrays, or "
                       "objects with __cuda_array_interface__ or __dlpack__)", TypeError)
            self._check_sample(ws, k, i, got[0], [a for a, _ in arrays])
            arrays.append(got)
        if arrays:
            self._check_layout(k, arrays[0][0].ndim)
        return arrays

    # -- hooks --------------------------------------------------------------------------------
    def to_function(self, sample):
        """What the function gets for one input sample (a numpy view; on the GPU, an array of
        the device's library: CuPy)."""
        return sample

    def from_function(self, value):
        """One returned sample as a numpy array, or None when it is not one."""
        return as_array(value)

    def device_value(self, value):
        """One returned sample as `Device.user_array` takes it (on the GPU)."""
        return value

    def returned_kind(self):
        """How errors name what the function must return."""
        return "numpy arrays (wrap Python numbers and lists with np.array(...))"

    # -- calling the function -----------------------------------------------------------------
    def _call(self, ws):
        """What the function got (per input, the list of what `to_function` made of its
        samples) and, per output, the list of returned samples."""
        ins = [[self.to_function(x) for x in _samples(ws, k)] for k in range(len(ws.inputs))]
        n = ws.batch_size
        if self.args["batch_processing"]:
            res = self._split(self.function(*ins), "the function")
            for k, r in enumerate(res):
                if isinstance(r, np.ndarray) and r.ndim > 0:
                    r = list(r)
                if not isinstance(r, (list, tuple)) or len(r) != n:
                    got = f"{len(r)} samples" if isinstance(r, (list, tuple)) else \
                        type(r).__name__
                    raise self.error(
                        f"with batch_processing=True, output {k} must be a list of {n} arrays "
                        f"(one per sample), got {got}", TypeError)
            return ins, [list(r) for r in res]
        per_sample = [self._split(self.function(*[x[i] for x in ins]), f"sample {i}")
                      for i in range(n)]
        return ins, [[s[k] for s in per_sample] for k in range(self.num_outputs)]

    def _split(self, result, where):
        """The function's result as a list with one entry per output."""
        n = self.num_outputs
        if n == 0:
            return []
        if n == 1:
            return [result]
        if not isinstance(result, (tuple, list)) or len(result) != n:
            got = f"{len(result)} values" if isinstance(result, (tuple, list)) else \
                type(result).__name__
            raise self.error(f"the function must return a tuple of {n} outputs "
                             f"(num_outputs={n}) for {where}, got {got}", TypeError)
        return list(result)

    def _batch(self, ws, k, samples, given):
        for j, got in enumerate(given):
            if samples and len(got) == len(samples) and all(map(operator.is_, samples, got)):
                storage = ws.input_storage(j)
                self._check_layout(k, storage.ndim)
                return storage
        arrays = []
        for i, s in enumerate(samples):
            arr = self.from_function(s)
            if arr is None:
                raise ws.sample_error(
                    i, f"output {k} of the function is a {type(s).__name__}; it must return "
                       f"{self.returned_kind()}", TypeError)
            self._check_sample(ws, k, i, arr, arrays)
            arrays.append(arr)
        if arrays:
            self._check_layout(k, arrays[0].ndim)
        # A copy: the function may keep (and later change) the arrays it returned.
        return BatchStorage.from_arrays(arrays) if arrays else \
            BatchStorage.allocate(np.uint8, [], ndim=0)

    @staticmethod
    def _check_sample(ws, k, i, arr, previous):
        """Sample i of output k: a supported type, and the type and dimensions of sample 0."""
        if np.dtype(arr.dtype).kind not in "biuf":
            raise ws.sample_error(i, f"output {k} of the function has the unsupported type "
                                     f"{arr.dtype}", TypeError)
        if previous and (arr.dtype != previous[0].dtype or arr.ndim != previous[0].ndim):
            raise ws.sample_error(
                i, f"output {k} of the function must have the same type and number of "
                   f"dimensions in every sample: sample 0 is {previous[0].dtype} with "
                   f"{previous[0].ndim} dimensions, sample {i} is {arr.dtype} with "
                   f"{arr.ndim}")

    def _check_layout(self, k, ndim):
        lay = self.layouts[k]
        if lay and len(lay) != ndim:
            raise self.error(f"output_layouts[{k}] \"{lay}\" has {len(lay)} dimensions but "
                             f"output {k} has {ndim}")


def _samples(ws, k):
    """Input k's samples: numpy views, or on the GPU arrays of the device's library."""
    storage = ws.input_storage(k)
    if ws.spec.device == "gpu":
        return [storage.sample_array(i) for i in range(storage.num_samples)]
    return storage.samples()
