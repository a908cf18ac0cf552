"""fn.external_source: batches from Python (a callback, an iterable, or `feed_input`).

How the source is called (DALI's rules):

* a callable's arity decides: no parameters -> called with nothing; one -> called with the
  iteration index (`batch_info=True`: a `BatchInfo`), or per sample with a `SampleInfo` when
  `batch=False` (a parameter with a default value counts);
* a generator function is called to get an iterator; an iterable is iterated (`iter()` once);
* `cycle` (iterables): "no" (default) - StopIteration ends the data and `reset()` does not
  restart it; "quiet" - restart silently at the end; "raise" - raise StopIteration at the end,
  restart on the call after it.  Generator objects cannot be cycled;
* a batch is a list of arrays, an array whose outer dimension is the batch, or a TensorList;
  with `num_outputs`, a tuple of those.

The callbacks run on the main thread before each iteration (see the pipeline's `_iter_setup`);
the operator itself only pops the fed batches in order.  `parallel=True` is accepted and runs
the callbacks in this process: the results are the same, only the worker pool is missing.
"""

from __future__ import annotations

import collections
import inspect

import numpy as np

from dali import _operator, _registry, _types, tensors
from dali._ext.tensor_storage import BatchStorage
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T


def _num_outputs(args):
    n = args.get("num_outputs")
    return 1 if n is None else int(n)


@_registry.register
class ExternalSource(_operator.Operator):
    schema = Schema(
        "external_source", inputs=0, outputs=_num_outputs, devices=("cpu", "gpu"),
        positional_args=("source", "num_outputs"),
        doc="Gives the pipeline data from Python: a callback, an iterable or `feed_input`.",
        args=[
            Arg("source", T.PYTHON_OBJECT, None,
                doc="Callable, iterable or generator function producing batches or samples."),
            Arg("num_outputs", T.INT32, None,
                doc="Number of outputs; the source then returns a tuple per batch/sample."),
            Arg("cycle", T.PYTHON_OBJECT, None,
                doc='For iterables: "no"/False, "quiet"/True or "raise".'),
            Arg("layout", T.PYTHON_OBJECT, None, doc="Layout of the data (str, or one per "
                "output)."),
            Arg("dtype", T.PYTHON_OBJECT, None,
                doc="Expected data type (checked); one per output with num_outputs."),
            Arg("ndim", T.PYTHON_OBJECT, None, doc="Expected number of dimensions (checked)."),
            Arg("batch", T.BOOL, None,
                doc="True: the source returns batches; False: it is called per sample."),
            Arg("batch_info", T.BOOL, False,
                doc="Call a one-argument batch callback with BatchInfo instead of an int."),
            Arg("parallel", T.BOOL, False,
                doc="Accepted; callbacks run in this process (same results, no worker pool)."),
            Arg("prefetch_queue_depth", T.INT32, 1, doc="Used with parallel=True."),
            Arg("no_copy", T.BOOL, False,
                doc="Wrap the fed arrays without copying (they must stay unchanged)."),
            Arg("repeat_last", T.BOOL, False,
                doc="Reuse the last batch when nothing new was fed."),
            Arg("blocking", T.BOOL, False, doc="Accepted for compatibility."),
            Arg("cuda_stream", T.PYTHON_OBJECT, None, doc="Accepted for compatibility."),
            Arg("use_copy_kernel", T.BOOL, False, doc="Accepted for compatibility."),
        ])

    def __init__(self, spec):
        super().__init__(spec)
        a = self.args
        self.num_outputs = _num_outputs(a)
        self._fed = collections.deque()
        self._last = None
        self.source = a["source"]
        self.has_callback = self.source is not None
        parallel = a["parallel"]
        self.batch = a["batch"] if a["batch"] is not None else not parallel
        self.cycle = _cycle_mode(a["cycle"], spec)
        self._iteration = 0
        self._iterator = None
        self._exhausted = False
        self._mode = _source_mode(self.source, self.batch, self.cycle, spec) \
            if self.has_callback else None
        self._layouts = self._per_output(a["layout"], "layout")
        self._dtypes = [None if d is None else _types.to_dali_type(d)
                        for d in self._per_output(a["dtype"], "dtype")]
        self._ndims = self._per_output(a["ndim"], "ndim")

    def _per_output(self, value, what):
        n = self.num_outputs
        if isinstance(value, (list, tuple)):
            if len(value) != n:
                raise ValueError(f"{self.spec.display_name}: `{what}` has {len(value)} "
                                 f"entries but there are {n} outputs")
            return list(value)
        return [value] * n

    # -- callbacks (main thread, before each iteration) ---------------------------------------
    def callback_batch(self, epoch_idx):
        """The next batch from the source; raises StopIteration at the end of data."""
        mode = self._mode
        bs = self.spec.max_batch_size
        if mode == "iterable":
            data = self._next_from_iterator()
        elif not self.batch:
            first = self._iteration * bs
            samples = [self.source(_types.SampleInfo(first + i, i, self._iteration, epoch_idx))
                       for i in range(bs)]
            data = (samples if self.num_outputs == 1 else
                    tuple(list(x) for x in zip(*samples, strict=True)))
        elif mode == "call0":
            data = self.source()
        elif self.args["batch_info"]:
            data = self.source(_types.BatchInfo(self._iteration, epoch_idx))
        else:
            data = self.source(self._iteration)
        self._iteration += 1
        return data

    def _next_from_iterator(self):
        if self._iterator is None:
            if self._exhausted:
                raise StopIteration
            src = self.source
            self._iterator = iter(src() if inspect.isgeneratorfunction(src) else src)
        try:
            return next(self._iterator)
        except StopIteration:
            self._iterator = None
            if self.cycle == "quiet":
                self._iterator = iter(self.source() if inspect.isgeneratorfunction(self.source)
                                      else self.source)
                return next(self._iterator)
            if self.cycle == "no":
                self._exhausted = True
            raise

    def reset_callback(self, epoch_idx):
        self._iteration = 0

    # -- feeding ------------------------------------------------------------------------------
    def feed(self, data, layout=None, output=None):
        """Queue one batch (a tuple of batches with several outputs)."""
        if self.num_outputs > 1 and output is None:
            if not isinstance(data, (tuple, list)) or len(data) != self.num_outputs:
                raise TypeError(
                    f"{self.spec.display_name}: the source must return a tuple of "
                    f"{self.num_outputs} batches (num_outputs={self.num_outputs}), got "
                    f"{type(data).__name__}")
            batches = [self._to_batch(d, k, layout) for k, d in enumerate(data)]
        else:
            batches = [self._to_batch(data, output or 0, layout)]
        sizes = {len(b) for b in batches}
        if len(sizes) > 1:
            raise ValueError(f"{self.spec.display_name}: outputs have different batch sizes "
                             f"{sorted(sizes)}")
        self._fed.append(batches)

    def _to_batch(self, data, k, layout):
        where = _where(self.spec)
        if isinstance(data, tensors.TensorListCPU):
            tl = data
            if not tl._storage.is_contiguous:
                tl = tensors.TensorListCPU._wrap(tl._storage.contiguous(), tl.layout())
        elif isinstance(data, (list, tuple)):
            arrays = [_sample_array(s, i, self.spec) for i, s in enumerate(data)]
            _check_kinds(arrays, self.spec)
            tl = tensors.TensorListCPU._wrap(BatchStorage.from_arrays(arrays))
        else:
            arr = _as_array(data)
            if arr is None or arr.ndim == 0:
                raise TypeError(
                    f"{self.spec.display_name}{where}: a batch must be a list of arrays, an "
                    f"array with the batch as its outer dimension, or a TensorList; got "
                    f"{type(data).__name__}")
            _check_dtype(arr, 0, self.spec)
            arr = arr if self.args["no_copy"] else np.array(arr, order="C")
            tl = tensors.TensorListCPU._wrap(BatchStorage.from_dense(arr))
        if len(tl) > self.spec.max_batch_size:
            raise RuntimeError(
                f"{self.spec.display_name}{where}: the batch has {len(tl)} samples, more than "
                f"the pipeline's max_batch_size={self.spec.max_batch_size}")
        want = self._dtypes[k]
        if want is not None and tl.dtype != want:
            raise TypeError(
                f"{self.spec.display_name}{where}: expected data of type {want} and got "
                f"{tl.dtype}")
        ndim = self._ndims[k]
        if ndim is not None and tl.ndim() != ndim:
            raise ValueError(
                f"{self.spec.display_name}{where}: expected {ndim}-dimensional samples, got "
                f"{tl.ndim()} dimensions")
        lay = layout if layout is not None else self._layouts[k]
        if isinstance(lay, (list, tuple)):
            lay = lay[k]
        lay = lay if lay is not None else tl.layout()
        if lay and len(lay) != tl.ndim():
            raise ValueError(
                f"{self.spec.display_name}{where}: layout \"{lay}\" has {len(lay)} dimensions "
                f"but the samples have {tl.ndim()}")
        tl._layout = lay or ""
        return tl

    def fed_batch_size(self):
        if self._fed:
            return len(self._fed[0][0])
        if self._last is not None and self.args["repeat_last"]:
            return len(self._last[0])
        return None

    # -- running ------------------------------------------------------------------------------
    def infer(self, ws):
        if self._fed:
            self._current = self._fed.popleft()
            self._last = self._current
        elif self.args["repeat_last"] and self._last is not None:
            self._current = self._last
        else:
            raise RuntimeError(
                "No data was provided to the external source. Give it a `source`, or call "
                "pipe.feed_input(name, data) (or run(name=data)) before each iteration.")
        return [_operator.OutputDesc(None, tl._storage.dtype, tl.layout())
                for tl in self._current]

    def run_cpu(self, ws):
        ws.outputs = [tl._storage for tl in self._current]
        self._current = None

    run_gpu = run_cpu


def _where(spec):
    if spec.origin:
        f = spec.origin[-1]
        return f" (defined at {f.filename}:{f.lineno})"
    return ""


def _cycle_mode(cycle, spec):
    if cycle in (None, False, "no"):
        return "no"
    if cycle in (True, "quiet"):
        return "quiet"
    if cycle == "raise":
        return "raise"
    raise ValueError(f"{spec.display_name}: invalid value for `cycle`: {cycle!r}; expected "
                     '"no", "quiet" or "raise"')


def _source_mode(source, batch, cycle, spec):
    if inspect.isgenerator(source):
        if cycle != "no":
            raise TypeError(f"{spec.display_name}: cannot cycle through a generator object; "
                            "pass the generator function instead")
        return "iterable"
    if inspect.isgeneratorfunction(source):
        return "iterable"
    if callable(source):
        try:
            params = [p for p in inspect.signature(source).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            params = [None]
        if not batch and not params:
            raise TypeError(f"{spec.display_name}: with batch=False the source is called per "
                            "sample with a SampleInfo, so it must take one argument")
        return "call1" if params else "call0"
    if hasattr(source, "__iter__"):
        if not batch:
            raise TypeError(f"{spec.display_name}: an iterable source needs batch=True")
        return "iterable"
    raise TypeError(f"{spec.display_name}: `source` must be a callable, an iterable or a "
                    f"generator function, got {type(source).__name__}")


def _as_array(x):
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, tensors.TensorCPU):
        return np.asarray(x)
    if hasattr(x, "__dlpack__") and not isinstance(x, (list, tuple)):
        try:
            return np.from_dlpack(x)
        except (RuntimeError, TypeError, BufferError):
            pass
    if hasattr(x, "__array_interface__") or hasattr(x, "__array__"):
        return np.asarray(x)
    if isinstance(x, np.generic):
        return np.asarray(x)
    return None


def _sample_array(s, i, spec):
    arr = _as_array(s)
    if arr is None:
        raise TypeError(
            f"{spec.display_name}{_where(spec)}: sample {i} of the batch is a "
            f"{type(s).__name__}; samples must be numpy arrays (or TensorCPU, DLPack "
            "tensors): wrap Python numbers and lists with np.array(...)")
    _check_dtype(arr, i, spec)
    return arr


def _check_dtype(arr, i, spec):
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{spec.display_name}{_where(spec)}: sample {i} has unsupported type "
                        f"{arr.dtype}")


def _check_kinds(arrays, spec):
    if not arrays:
        return
    d0, n0 = arrays[0].dtype, arrays[0].ndim
    for i, a in enumerate(arrays):
        if a.dtype != d0:
            raise TypeError(f"{spec.display_name}{_where(spec)}: all samples in a batch must "
                            f"have the same type: sample 0 is {d0}, sample {i} is {a.dtype}")
        if a.ndim != n0:
            raise ValueError(
                f"{spec.display_name}{_where(spec)}: all samples in a batch must have the "
                f"same number of dimensions: sample 0 has {n0}, sample {i} has {a.ndim} "
                f"(shape {a.shape})")
