"""fn.external_source: batches from Python (a callback, an iterable, or `feed_input`).

How the source is called (DALI's rules):

* a callable's positional parameters decide: none -> called with nothing; one -> called with
  the iteration index (`batch_info=True`: a `BatchInfo`), or per sample with a `SampleInfo`
  when `batch=False` (a parameter with a default value counts; keyword-only and `*args`
  parameters are rejected);
* a generator function is called to get an iterator; an iterable is iterated (`iter()` once);
  with `batch=False` each item is one sample, and a batch cut short by the end is dropped;
* `cycle` (iterables only): "no" (default) - StopIteration ends the data and `reset()` does not
  restart it; "quiet" - restart silently at the end; "raise" - raise StopIteration at the end,
  restart on the call after it.  Generator objects cannot be cycled;
* a batch is a list of arrays, an array whose outer dimension is the batch, or a TensorList;
  with `num_outputs`, a tuple of those.

Errors come at DALI's moments, with its classes and messages: bad sources, and `num_outputs`
with a `name` or without a `source`, when the call is recorded; `ndim` that contradicts `layout`
at build; bad data (too many samples, mixed types or dimensions) when it is fed; the declared
`dtype`/`ndim` when the batch is used, so a mismatch is reported by the iteration it belongs to,
as an operator error.  Lists of `layout`/`dtype`/`ndim` are split over the outputs as DALI
splits them: missing entries leave an output undeclared, extra ones are ignored.

The callbacks run on the main thread before each iteration (see the pipeline's `_iter_setup`);
the operator itself only pops the fed batches in order.  With `parallel=True` they run in the
pipeline's worker processes instead (`dali.ops.python._workers`): per sample (`SampleInfo`,
the default), or per batch (`batch=True`: `BatchInfo` or the iteration, or a generator
function), `prefetch_queue_depth` batches ahead; the batches arrive in shared memory.
"""

from __future__ import annotations

import collections
import inspect

import numpy as np

from dali import _gpu, _operator, _registry, _roles, _types, tensors
from dali._ext.tensor_storage import BatchStorage
from dali._gpu.batch import DeviceBatch
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T


def _num_outputs(args):
    n = args.get("num_outputs")
    return 1 if n is None else int(n)


def _outputs(args):
    """The number of outputs.  The schema calls it when an operator call is recorded (the one
    definition-time hook it has), so it also rejects the sources DALI rejects at the call."""
    source = args.get("source")
    if source is not None:
        batch = args.get("batch")
        _source_mode(source, not args.get("parallel", False) if batch is None else batch,
                     args.get("cycle"), ExternalSource.schema.display_name)
    return _num_outputs(args)


@_registry.register
class ExternalSource(_operator.Operator, _roles.Source, _roles.Checkpointable):
    schema = Schema(
        "external_source", inputs=0, outputs=_outputs, devices=("cpu", "gpu"),
        positional_args=("source", "num_outputs"),
        doc="Gives the pipeline data from Python: a callback, an iterable or `feed_input`.",
        args=[
            Arg("source", T.PYTHON_OBJECT, None, python_only=True,
                doc="Callable, iterable or generator function producing batches or samples."),
            Arg("num_outputs", T.INT32, None, python_only=True,
                doc="Number of outputs; the source then returns a tuple per batch/sample."),
            Arg("cycle", T.PYTHON_OBJECT, None, python_only=True,
                doc='For iterables: "no"/False, "quiet"/True or "raise".'),
            Arg("layout", T.PYTHON_OBJECT, None, doc="Layout of the data (str, or one per "
                "output)."),
            Arg("dtype", T.PYTHON_OBJECT, None,
                doc="Expected data type (checked); one per output with num_outputs."),
            Arg("ndim", T.PYTHON_OBJECT, None, doc="Expected number of dimensions (checked)."),
            Arg("batch", T.BOOL, None, python_only=True,
                doc="True: the source returns batches; False: it is called per sample."),
            Arg("batch_info", T.BOOL, False, python_only=True,
                doc="Call a one-argument batch callback with BatchInfo instead of an int."),
            Arg("parallel", T.BOOL, False, python_only=True,
                doc="Run the source in the pipeline's `py_num_workers` worker processes "
                    "(docs/parallel_sources.md)."),
            Arg("prefetch_queue_depth", T.INT32, 1, python_only=True,
                doc="With parallel=True: batches the workers compute ahead."),
            Arg("no_copy", T.BOOL, False,
                doc="Wrap the fed arrays without copying (they must stay unchanged)."),
            Arg("repeat_last", T.BOOL, False,
                doc="Reuse the last batch when nothing new was fed."),
            Arg("blocking", T.BOOL, False, doc="Wait for data in `feed_input` mode.",
                ignored="feeding is synchronous here; a missing batch is an error at once"),
            Arg("cuda_stream", T.PYTHON_OBJECT, None, python_only=True,
                doc="CUDA stream of the copy of GPU data.",
                ignored="fed data is copied when fed; the upload runs on the pipeline's stream"),
            Arg("use_copy_kernel", T.BOOL, False, doc="Copy GPU data with a kernel.",
                ignored="uploads are copies on the pipeline's stream", python_only=True),
        ])

    @classmethod
    def returns_list(cls, args):
        return args.get("num_outputs") is not None

    @classmethod
    def check_call(cls, args, name):
        """DALI's definition-time errors: `num_outputs` needs a `source` and no `name`."""
        for d in _entries(args.get("dtype")):
            _types.to_dali_type(d)
        for n in _entries(args.get("ndim")):
            int(n)
        if args.get("num_outputs") is None:
            return
        if name is not None:
            raise RuntimeError(f"``num_outputs`` is not compatible with named "
                               f"`{cls.schema.display_name}`.")
        if args.get("source") is None:
            raise ValueError(
                "The parameter ``num_outputs`` is only valid when using ``source`` to provide "
                "data. To feed multiple external sources in ``feed_input``, use multiple "
                f"`{cls.schema.display_name}` nodes.")

    def __init__(self, spec):
        super().__init__(spec)
        a = self.args
        self.num_outputs = _num_outputs(a)
        self._fed = collections.deque()
        self._kinds = [None] * self.num_outputs     # (dtype, ndim, layout) of the data so far
        self._last = None
        self.source = a["source"]
        self.has_callback = self.source is not None
        parallel = a["parallel"]
        self.batch = a["batch"] if a["batch"] is not None else not parallel
        self.cycle = _cycle_mode(a["cycle"], spec.display_name)
        self._iteration = 0
        self._consumed = 0                  # callback batches the executor took this epoch
        self._iterator = None
        self._exhausted = False
        self._mode = _source_mode(self.source, self.batch, a["cycle"], spec.display_name) \
            if self.has_callback else None
        self._layouts = self._per_output(a["layout"])
        self._dtypes = [None if d is None or _types.to_dali_type(d) == T.NO_TYPE
                        else _types.to_dali_type(d) for d in self._per_output(a["dtype"])]
        self._ndims = [None if n is None else int(n) for n in self._per_output(a["ndim"])]
        self.pool = None                     # the pipeline's WorkerPool, with parallel=True
        self.pool_index = None
        self.parallel_kind = _parallel_kind(self._mode, self.batch, spec.display_name) \
            if parallel and self.has_callback else None

    def setup(self):
        """The declared metadata, checked at build as DALI checks it."""
        for lay, ndim in zip(self._layouts, self._ndims, strict=True):
            if ndim is not None and ndim < 0:
                raise RuntimeError(f"Incorrect number of dimensions ({ndim}). Use positive "
                                   "values for tensors or 0 for scalars.")
            if lay and ndim is not None and len(lay) != ndim:
                raise RuntimeError(
                    "Number of dimensions in the provided layout does not match the ndim "
                    f"argument. The arguments provided:\n ndim = {ndim},\n layout: \"{lay}\".")

    def _per_output(self, value):
        """One value per output, as DALI splits a list: entries past the list are unset and
        entries past the outputs are ignored."""
        n = self.num_outputs
        if isinstance(value, (list, tuple)):
            return [value[k] if k < len(value) else None for k in range(n)]
        return [value] * n

    # -- callbacks (main thread, before each iteration) ---------------------------------------
    def callback_batch(self, epoch_idx):
        """The next batch from the source; raises StopIteration at the end of data."""
        if self.pool is not None:
            outs = [_Shared(o) for o in self.pool.batch(self.pool_index, self._iteration,
                                                        epoch_idx)]
            self._iteration += 1
            return outs[0] if self.num_outputs == 1 else tuple(outs)
        mode = self._mode
        bs = self.spec.max_batch_size
        if mode == "iterable" and self.batch:
            data = self._next_from_iterator()
        elif not self.batch:
            if mode == "iterable":
                samples = [self._next_from_iterator() for _ in range(bs)]
            elif mode == "call0":
                samples = [self.source() for _ in range(bs)]
            else:
                first = self._iteration * bs
                samples = [self.source(_types.SampleInfo(first + i, i, self._iteration,
                                                         epoch_idx)) for i in range(bs)]
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
        self._consumed = 0
        if self.pool is not None:
            self.pool.forget(self.pool_index)

    def drop_fed(self):
        """Forget the batches fed and not yet taken (a checkpoint restored in place)."""
        self._fed.clear()

    # -- checkpoints --------------------------------------------------------------------------
    def source_kind(self):
        """How DALI's checkpoint warning names the kind of `source`."""
        return {"iterable": "SourceKind.ITERABLE", "call0": "parameterless callable",
                "call1": "callable"}.get(self._mode, "no callback")

    def checkpoint_state(self):
        """The iteration the callback is at, for a one-argument callback (its argument says
        where it is); None for the others, whose position is the user's."""
        if self._mode != "call1":
            return None
        return {"iteration": self._consumed}

    def restore_state(self, state):
        iteration = state.get("iteration")
        if type(iteration) is not int or iteration < 0:
            raise ValueError(f"{self.spec.display_name}: the checkpointed iteration is "
                             f"{iteration!r}, not a non-negative integer")
        self._iteration = self._consumed = iteration

    # -- feeding ------------------------------------------------------------------------------
    def feed(self, data, layout=None, output=None):
        """Queue one batch (a tuple of batches with several outputs)."""
        if self.args["num_outputs"] is not None and output is None:
            if not isinstance(data, (tuple, list)) or len(data) != self.num_outputs:
                got = f"{len(data)} of them" if isinstance(data, (tuple, list)) else \
                    f"a {type(data).__name__}"
                raise TypeError(
                    f"{self.spec.display_name}{_where(self.spec)}: the source must return a "
                    f"tuple of {self.num_outputs} batches (num_outputs={self.num_outputs}), "
                    f"got {got}")
            batches = [self._to_batch(d, k, layout) for k, d in enumerate(data)]
        else:
            batches = [self._to_batch(data, output or 0, layout)]
        for k, b in enumerate(batches[1:], 1):
            if len(b) != len(batches[0]):
                raise RuntimeError(
                    f"{self.spec.display_name}{_where(self.spec)}: Batch size clash! The output "
                    f"{k} of the source has a batch size {len(b)} which is different than "
                    f"{len(batches[0])} of the output 0.")
        self._fed.append(batches)

    def _to_batch(self, data, k, layout):
        where = _where(self.spec)
        if isinstance(data, tensors.TensorListCPU):
            tl = tensors.TensorListCPU._wrap(tensors.storage_of(data).contiguous(), data.layout())
        elif isinstance(data, (list, tuple)):
            arrays = [_sample_array(s, i, self.spec) for i, s in enumerate(data)]
            _check_kinds(arrays, self.spec)
            given = data[0].layout() if data and isinstance(data[0], tensors.TensorCPU) else ""
            store = BatchStorage.from_samples if isinstance(data, _Shared) else \
                BatchStorage.from_arrays
            tl = tensors.TensorListCPU._wrap(store(arrays), given or "")
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
                f"{self.spec.display_name}{where}: The external source callback returned an "
                f"unexpected batch size. Expected batch_size <= {self.spec.max_batch_size}, "
                f"actual: {len(tl)}")
        lay = layout if layout is not None else self._layouts[k]
        if isinstance(lay, (list, tuple)):
            lay = lay[k]
        lay = lay if lay is not None else tl.layout()
        if lay and len(tl) and len(lay) != tl.ndim():
            raise RuntimeError(f"{self.spec.display_name}{where}: The layout '{lay}' cannot "
                               f"describe {tl.ndim()}-dimensional data")
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
            current = self._fed.popleft()
            if self.args["repeat_last"]:     # kept across iterations (only then: it may view
                self._last = current         # a parallel source's shared memory)
            self._consumed += 1
        elif self.args["repeat_last"] and self._last is not None:
            current = self._last
        else:
            raise IndexError(        # DALI's class ("Attempted to peek the data batch ...")
                "No data was provided to the external source. Give it a `source`, or call "
                "pipe.feed_input(name, data) (or run(name=data)) before each iteration.")
        for k, tl in enumerate(current):
            self._check_kind(k, tl)
        return _operator.Plan([_operator.OutputDesc(None, tensors.storage_of(tl).dtype,
                                                    tl.layout()) for tl in current],
                              batches=current)

    def _check_kind(self, k, tl):
        """The declared dtype/ndim, and (like DALI) the same dtype, ndim and layout as in the
        earlier batches; an empty batch fixes nothing."""
        which = f" (output {k})" if self.num_outputs > 1 else ""
        want, ndim = self._dtypes[k], self._ndims[k]
        if want is not None and tl.dtype != want:
            raise self.error(f"ExternalSource expected data of type {_types.type_name(want)} "
                             f"and got: {_types.type_name(tl.dtype)}{which}", RuntimeError)
        if ndim is not None and tl.ndim() != ndim:
            raise self.error(f"ExternalSource expected data with {ndim} dimensions and got "
                             f"{tl.ndim()} dimensions.{which}", RuntimeError)
        if not len(tl):
            return
        kind = (tl.dtype, tl.ndim(), tl.layout())
        before = self._kinds[k]
        if before is not None and kind != before:
            what = ("type", "number of dimensions", "layout")
            i = next(j for j in range(3) if kind[j] != before[j])
            raise self.error(
                f"the {what[i]} of the data changed from the previous iteration{which}: it was "
                f"{_shown(before[i])} and is now {_shown(kind[i])} (the data fed to an external "
                "source must keep its type, number of dimensions and layout)")
        self._kinds[k] = kind

    def run_cpu(self, ws, plan):
        ws.outputs = [tensors.storage_of(tl) for tl in plan.batches]

    def run_gpu(self, ws, plan):
        """device="gpu": the fed batches uploaded on the pipeline's stream (device data fed
        to the source was copied to the host when fed)."""
        ws.outputs = [DeviceBatch.from_host(ws.gpu, tensors.storage_of(tl))
                      for tl in plan.batches]


class _Shared(list):
    """A parallel source's samples: views of its shared-memory chunks, which the batch keeps
    as they are (no copy; a chunk is reused only when no view of it is left)."""


def _entries(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _where(spec):
    if spec.origin:
        f = spec.origin[-1]
        return f" (defined at {f.filename}:{f.lineno})"
    return ""


def _shown(x):
    return f'"{x}"' if isinstance(x, str) else str(x)


def _cycle_mode(cycle, name):
    if cycle in (None, False, "no"):
        return "no"
    if cycle in (True, "quiet"):
        return "quiet"
    if cycle == "raise":
        return "raise"
    raise ValueError(f'{name}: invalid value {cycle!r} for `cycle`; expected "no" (or False, '
                     'None: no cycling), "quiet" (or True: restart silently at the end) or '
                     '"raise" (raise StopIteration at the end, then restart)')


def _source_mode(source, batch, cycle, name):
    """How the source is used: "iterable", "call0" (no arguments) or "call1" (the iteration
    index, BatchInfo or SampleInfo).  Raises for sources and `cycle` values DALI rejects."""
    _cycle_mode(cycle, name)
    if inspect.isgenerator(source):
        if _cycle_mode(cycle, name) != "no":
            raise TypeError(f"{name}: cannot cycle through a generator object; pass the "
                            "generator function that made it as `source` instead")
        return "iterable"
    if inspect.isgeneratorfunction(source):
        return "iterable"
    if callable(source):
        if cycle is not None:
            raise ValueError(f"{name}: the argument `cycle` can only be given when `source` "
                             "is iterable (or a generator function), not a callable")
        return "call1" if _positional_count(source, name) else "call0"
    if hasattr(source, "__iter__"):
        return "iterable"
    raise TypeError(f"{name}: `source` must be a callable, an iterable or a generator "
                    f"function, got {type(source).__name__}")


def _parallel_kind(mode, batch, name):
    """How a parallel source runs in the workers: "samples", "batch" or "generator"; DALI's
    TypeError for the sources it cannot run there."""
    if mode == "call1":
        return "batch" if batch else "samples"
    if mode == "iterable" and batch:
        return "generator"
    raise TypeError(
        f"{name}: with parallel=True the source must be a callable taking one argument "
        "(SampleInfo, or BatchInfo/the iteration with batch=True), or a generator function "
        "with batch=True; got "
        + ("a callable without arguments" if mode == "call0" else
           "an iterable with batch=False" if mode == "iterable" else str(mode)))


def _positional_count(source, name):
    try:
        params = list(inspect.signature(source).parameters.values())
    except (TypeError, ValueError):
        return 1
    rule = ("The `source` callable must accept either 0 or 1 positional arguments to indicate "
            "whether it accepts the batch or sample indexing information.")
    kinds = {inspect.Parameter.VAR_POSITIONAL: ("var-positional", "*"),
             inspect.Parameter.VAR_KEYWORD: ("var-keyword", "**"),
             inspect.Parameter.KEYWORD_ONLY: ("keyword-only", "")}
    for p in params:
        if p.kind in kinds:
            kind, stars = kinds[p.kind]
            raise TypeError(f"{name}: {rule} Found {kind} argument `{stars}{p.name}` which is "
                            "not allowed.")
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) > 1:
        raise TypeError(f"{name}: {rule} Found more than one positional argument, which is not "
                        f"allowed (it takes {len(positional)}).")
    return len(positional)


def _as_array(x):
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, tensors.TensorCPU):
        return np.asarray(x)
    if hasattr(x, "__cuda_array_interface__"):     # CuPy, torch CUDA tensors, TensorGPU
        return _gpu.require("external_source with GPU data").asarray(x).get()
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
            raise RuntimeError(
                f"{spec.display_name}{_where(spec)}: Sample must have the same type as the "
                f"target batch, current: {_dtype_name(d0)}, new: {_dtype_name(a.dtype)} for "
                f"sample idx: {i}.")
        if a.ndim != n0:
            raise RuntimeError(
                f"{spec.display_name}{_where(spec)}: All tensors in a batch must have the "
                f"same number of dimensions: sample 0 has {n0}, sample {i} has {a.ndim} "
                f"(shape {a.shape})")


def _dtype_name(dtype):
    return _types.type_name(_types.dali_type_of(dtype))
