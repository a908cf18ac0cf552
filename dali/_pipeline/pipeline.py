"""The Pipeline façade: DALI's Pipeline API over the graph, executor and scheduler modules.

A pipeline is defined in one of three ways (all supported): `@pipeline_def` (the function runs
inside `with pipe:` at call time), `with pipe: ... pipe.set_outputs(...)`, or a subclass
overriding `define_graph()`.  `build()` collects the graph from the outputs and sinks, prunes and
checks it, creates the executor and sets operators up; `run()` and the scheduled API then follow
`dali._pipeline.scheduler`.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from dali import _roles, _types
from dali._autograph import conditional
from dali._executor import executor as _executor_mod
from dali._gpu import runtime as _gpu_runtime
from dali._graph import context, data_node, dot, graph
from dali._pipeline import checkpointing, params, profiler, scheduler, serialization
from dali.ops import _regions
from dali.ops.math import arithmetic as _arithmetic
from dali.ops.tensor import to_device as _to_device

_ILLEGAL_OUTPUT = ("Illegal output type. The output {} is a `{}`. Allowed types are ``DataNode`` "
                   "and types convertible to `types.Constant` (numerical constants, 1D "
                   "lists/tuple of numbers and ND arrays).")


def output_array(i, value):
    """A pipeline output that is not a DataNode, as a numeric array; a TypeError naming the
    output when it cannot be one."""
    try:
        arr = np.asarray(value)
    except ValueError:      # ragged nested lists
        arr = None
    if arr is None or arr.dtype.kind not in "biuf":
        raise TypeError(_ILLEGAL_OUTPUT.format(i, type(value)))
    return arr


def constant_output(i, value):
    """A Constant node for a pipeline output given as a value."""
    output_array(i, value)
    return data_node._call("constant", value)


def _setting(name):
    """A read-only property giving back the constructor argument `name` (kept as `_name`)."""
    return property(operator.attrgetter("_" + name), doc=f"The pipeline's `{name}`.")


class Pipeline:
    """A DALI pipeline: a graph of operators producing batches.

    Parameters follow DALI 2.4's `Pipeline`; every one is accepted and readable back as a
    property.  `device_id=None` makes a CPU-only pipeline.  One is dali's own:
    `decode_scaling=True` lets image decoders decode JPEGs at 1/2, 1/4 or 1/8 scale where the
    operator after them reduces the image at least that much (resize, random_resized_crop):
    faster on large photos, with values that differ slightly from DALI's (docs/large_images.md).
    """

    _background_runs = True      # exec_async iterations run on a background thread

    def __init__(self, batch_size=None, num_threads=None, device_id=None, seed=None,
                 exec_pipelined=True, prefetch_queue_depth=2, exec_async=True,
                 bytes_per_sample=0, set_affinity=False, max_streams=None,
                 default_cuda_stream_priority=None, *, enable_memory_stats=False,
                 enable_checkpointing=False, checkpoint=None, py_num_workers=1,
                 py_start_method="fork", py_callback_pickler=None, output_dtype=None,
                 output_ndim=None, output_layout=None, exec_dynamic=None,
                 experimental_exec_dynamic=None, stream_policy=None, concurrency=None,
                 decode_scaling=False):
        self._max_batch_size = params.batch_size(batch_size)
        self._num_threads = params.num_threads(num_threads)
        self._device_id = params.device_id(device_id)
        self._seed = params.seed(seed)
        params.flags(exec_pipelined=exec_pipelined, exec_async=exec_async,
                     set_affinity=set_affinity, enable_memory_stats=enable_memory_stats,
                     enable_checkpointing=enable_checkpointing, exec_dynamic=exec_dynamic,
                     experimental_exec_dynamic=experimental_exec_dynamic)
        self._exec_pipelined = exec_pipelined
        self._exec_async = exec_async
        self._prefetch_queue_depth = prefetch_queue_depth
        self._exec_separated, self._cpu_queue_size, self._gpu_queue_size = \
            params.prefetch_queue_depth(prefetch_queue_depth)
        if self._exec_separated and not exec_async:
            raise ValueError(
                "`exec_async` must not evaluate to `False` when using separated queues.")
        if exec_dynamic is None:
            exec_dynamic = experimental_exec_dynamic
        if exec_dynamic is None:
            exec_dynamic = (self._exec_pipelined and self._exec_async
                            and not self._exec_separated)
        self._exec_dynamic = exec_dynamic
        self._bytes_per_sample = params.bytes_per_sample(bytes_per_sample)
        params.deprecated(max_streams, default_cuda_stream_priority)
        self._set_affinity = set_affinity
        self._max_streams = max_streams
        self._default_cuda_stream_priority = default_cuda_stream_priority
        self._enable_memory_stats = enable_memory_stats
        self._enable_checkpointing = enable_checkpointing
        self._checkpoint = checkpointing.decode(checkpoint) if checkpoint is not None else None
        self._restored = False
        params.py_workers(py_num_workers, py_start_method)
        params.executor_enum("stream_policy", stream_policy, params.StreamPolicy)
        params.executor_enum("concurrency", concurrency, params.OperatorConcurrency)
        self._py_num_workers = py_num_workers
        self._py_start_method = py_start_method
        self._py_callback_pickler = py_callback_pickler
        self._output_dtype = params.output_dtype(output_dtype)
        self._output_ndim = params.output_ndim(output_ndim)
        self._output_layout = params.output_layout(output_layout)
        self._stream_policy = stream_policy
        self._concurrency = concurrency
        self._op_ids = 0
        self._auto_names = 0
        self._outputs = None
        self._sinks = []
        self._built = False
        self._graph = None
        self._executor = None
        self._fuse_regions = True        # dali.ops._regions and arithmetic pairs (check_parity
                                         # turns it off)
        if not isinstance(decode_scaling, bool):
            raise TypeError(f"`decode_scaling` must be a bool, got {decode_scaling!r}")
        self._decode_scaling = decode_scaling
        self._input_ops = []
        self._effective_seed = None      # the seed operator seeds derive from, set by build()
        self._definition = None          # how a @pipeline_def made it (for check_parity)
        self._deserialized = False       # made by deserialize()
        self._worker_pool = None         # parallel external sources' workers
        self._condition_stack = None     # with enable_conditionals: dali._autograph.conditional
        self._sched = scheduler.Scheduler(self)

    # -- current pipeline ---------------------------------------------------------------------
    @staticmethod
    def current():
        """The pipeline whose definition is in progress on this thread, or None."""
        return context.current_pipeline()

    @staticmethod
    def push_current(pipeline):
        context.push_pipeline(pipeline)

    @staticmethod
    def pop_current():
        return context.pop_pipeline()

    def __enter__(self):
        context.push_pipeline(self)
        return self

    def __exit__(self, *exc):
        context.pop_pipeline()
        return False

    def _next_op_id(self):
        i = self._op_ids
        self._op_ids += 1
        return i

    def auto_name(self, class_name):
        """The instance name of an operator created without `name=`: `__<Class>_<k>`, `k`
        counting this pipeline's unnamed operators, as DALI names them."""
        k = self._auto_names
        self._auto_names += 1
        return f"__{class_name}_{k}"

    # -- definition ---------------------------------------------------------------------------
    def define_graph(self):
        """Override in a subclass to define the pipeline; return its outputs."""
        raise NotImplementedError

    def set_outputs(self, *outputs):
        """Set the pipeline outputs (DataNodes or constants)."""
        self._outputs = outputs

    def add_sink(self, edge):
        """Keep `edge`'s operator (and what it depends on) even if no output uses it."""
        self._sinks.append(edge)

    def _define(self, definition, fuse_regions=True):
        """Run a `@pipeline_def` definition (`dali._debug.parity.Definition`) inside
        `with self:` and set its outputs; `fuse_regions=False` keeps every intermediate output
        whole and computed by its own operator (for `check_parity`)."""
        self._definition = definition
        self._fuse_regions = fuse_regions
        if definition.conditionals:
            self._condition_stack = conditional.ConditionStack()
        with self:
            outs = definition.body(*definition.args, **definition.fn_kwargs)
            if isinstance(outs, tuple):
                self.set_outputs(*outs)
            elif outs is None:
                self.set_outputs()
            else:
                self.set_outputs(outs)

    def _on_node_recorded(self, node):
        """Called by the graph context for every operator recorded while this pipeline is
        current: preserved operators become sinks."""
        if node.preserve:
            self._sinks.extend(node.outputs)
            if not node.outputs:
                self._sinks.append(node)

    def _collect_outputs(self):
        outs = self._outputs
        if outs is None:
            with self:
                outs = self.define_graph()
            self._outputs = outs          # once: serialize() and build() share the graph
        if outs is None:
            outs = ()
        if not isinstance(outs, (tuple, list)):
            outs = (outs,)
        result = []
        with self:
            for i, o in enumerate(outs):
                if isinstance(o, (list, tuple)) and any(
                        isinstance(x, data_node.DataNode) for x in o):
                    raise TypeError(
                        f"Illegal pipeline output type. The output {i} contains a nested "
                        "`DataNode`. Missing list/tuple expansion (*) is the likely cause.")
                if not isinstance(o, data_node.DataNode):
                    o = constant_output(i, o)
                result.append(o)
        return result

    def build(self):
        """Build the pipeline (optional: the first run builds it)."""
        if self._built:
            return
        if self._max_batch_size is None:
            raise ValueError("The batch size must be set.")
        if self._num_threads is None:
            raise TypeError("`num_threads` must be set to a positive int to build the pipeline")
        if self._device_id is not None and not _gpu_runtime.available(self._device_id):
            raise RuntimeError(
                "You are trying to create a GPU DALI pipeline while CUDA is not available. "
                "Please install CUDA or set `device_id = None` in Pipeline constructor.")
        if self._checkpoint is not None:          # its draws continue the checkpointed ones
            self._effective_seed = self._checkpoint.seed
        elif self._seed is not None:
            self._effective_seed = self._seed
        else:
            self._effective_seed = int(np.random.SeedSequence().entropy % (2 ** 31))
        self._executor = self._make_executor(self._effective_seed)
        self._start_workers()
        if self._enable_checkpointing:
            checkpointing.check_operators(self._executor.ops, self._graph.nodes)
        if self._checkpoint is not None:
            self._restore(self._checkpoint)
        if self._enable_checkpointing:
            self._sched.snapshot = self._executor.snapshot()
        self._built = True

    def _restore(self, restored):
        checkpointing.restore(restored, self._executor.ops)
        self._executor.restore(restored.snapshot)
        self._sched.consumer_iter = restored.consumer_iter
        self._sched.epoch_idx = self._sched.consumer_epoch_idx = restored.epoch_idx
        self._restored = True

    def _make_executor(self, seed):
        """Collect, check and prune the graph; returns its executor, set up."""
        if self._exec_dynamic and self._exec_separated:
            raise RuntimeError(
                "No supported executor selected for pipelined = true, separated = true, "
                "async = true, default(exec_dynamic) = true")
        outputs = self._collect_outputs()
        if not outputs:
            raise NotImplementedError("The pipeline has no outputs: return or set at least one")
        g = graph.Graph(outputs, self._sinks)
        g.check()
        self._check_devices(g, outputs)
        g.insert_copies(_to_device.make_copy, self._exec_dynamic)
        self._check_output_specs(len(outputs))
        ex = _executor_mod.Executor(g, self._max_batch_size, self._num_threads,
                                    self._device_id, seed, self._bytes_per_sample,
                                    self._enable_memory_stats,
                                    staged=self._exec_separated and self._background_runs)
        ex.setup()
        if self._fuse_regions:
            _regions.link(g, ex.ops, self._sinks, self._decode_scaling)
            _arithmetic.link(g, ex.ops, self._sinks)
        self._graph = g
        self._input_ops = [op for op in ex.ops
                           if isinstance(op, _roles.Source) and op.has_callback]
        return ex

    def _check_devices(self, g, outputs):
        """GPU operators, and outputs moved with `.gpu()`, need a GPU backend; GPU operators
        need a GPU implementation."""
        for n in g.nodes:
            if n.device != "cpu":
                _gpu_runtime.check_operator(n.impl, n.device, self._device_id, n.origin)
        for o in outputs:
            if o.device != "cpu":
                _gpu_runtime.check_operator(o.source.impl, "cpu", self._device_id,
                                            o.source.origin, "moves its output")

    def _output_descs(self, n):
        """(dtype, ndim, layout) lists of `n` outputs from the output_* arguments: a single
        value applies to every output, None means "any"."""
        descs = []
        for v in (self._output_dtype, self._output_ndim, self._output_layout):
            descs.append(list(v) if isinstance(v, list) else [v] * n)
        return descs

    def _check_output_specs(self, n):
        dtypes, ndims, layouts = self._output_descs(n)
        if len(dtypes) != n or len(ndims) != n:
            raise RuntimeError(
                f"Lengths of provided output descriptions do not match. \n"
                f"Expected num_outputs={n}.\nReceived:\noutput_dtype={dtypes}\n"
                f"output_ndim={ndims}")
        if len(layouts) != n:
            raise RuntimeError(
                f"Lengths of provided output descriptions do not match. \n"
                f"Expected num_outputs={n}.\nReceived:\noutput_layout={layouts}")

    def _check_outputs(self, outs):
        """Outputs against `output_dtype`, `output_ndim` and `output_layout` (DALI's
        messages)."""
        dtypes, ndims, layouts = self._output_descs(len(outs))
        for i, t in enumerate(outs):
            want, got = dtypes[i], t.dtype
            if want is not None and got != want:
                raise RuntimeError(
                    f"Data type in the output_idx={i} does not match. Expected: "
                    f"{_types.type_name(want)}. Received: {_types.type_name(got)}.")
            want, got = ndims[i], t.ndim()
            if want is not None and got != want:
                raise RuntimeError(
                    f"Number of dimensions in the output_idx={i} does not match. Expected: "
                    f"{want}. Received: {got}.")
            want, got = layouts[i], t.layout()
            if want and got != want:
                raise RuntimeError(
                    f"Layout in the output_idx={i} does not match. Expected: {want}. "
                    f"Received: {got}.")
        return outs

    def output_dtype(self):
        """Data types expected at the outputs (one per output; None: any).  Builds the
        pipeline, as in DALI."""
        self.build()
        return self._output_descs(len(self._graph.outputs))[0]

    def output_ndim(self):
        """Numbers of dimensions expected at the outputs (one per output; None: any).  Builds
        the pipeline, as in DALI."""
        self.build()
        return self._output_descs(len(self._graph.outputs))[1]

    # -- running ------------------------------------------------------------------------------
    def run(self, cuda_stream=None, /, **pipeline_inputs):
        """Run one iteration and return its outputs (a tuple of TensorLists)."""
        if pipeline_inputs and not self._inputs_possible():
            raise RuntimeError(
                "When using pipeline_inputs named arguments, either `prefetch_queue_depth` in "
                "Pipeline constructor shall be set to 1 (for both devices) or `exec_pipelined` "
                f"shall be set to False. Received: prefetch_queue_depth="
                f"{self._prefetch_queue_depth}, exec_pipelined={self._exec_pipelined}.")
        self.build()
        for name, value in pipeline_inputs.items():
            self.feed_input(name, value)
        with self._sched.check_api(_types.PipelineAPIType.BASIC):
            self.schedule_run()
            return self.outputs()

    def _prefetch_depth(self):
        """Iterations the first `schedule_run()` of an epoch runs ahead."""
        if self._exec_separated:
            return max(self._cpu_queue_size, self._gpu_queue_size)
        return self._cpu_queue_size

    def _inputs_possible(self):
        if not self._exec_pipelined:
            return True
        if self._exec_separated:
            return self._cpu_queue_size <= 1 and self._gpu_queue_size <= 1
        return self._prefetch_queue_depth <= 1

    def schedule_run(self):
        """Start an iteration (the first of an epoch prefetches the queue)."""
        self.build()
        self._sched.schedule_run()

    def outputs(self, cuda_stream=None):
        """The oldest scheduled iteration's outputs; StopIteration at the end of data."""
        self.build()
        return self._sched.outputs()

    def share_outputs(self, cuda_stream=None):
        self.build()
        return self._sched.outputs()

    def release_outputs(self):
        """Outputs stay valid as long as they are referenced, so this only checks the API."""
        self.build()
        return self._sched.release_outputs()

    def iter_setup(self):
        """Hook called before every iteration (override to feed inputs)."""

    def _iter_setup(self):
        batches = []
        stop = False
        for op in self._input_ops:
            try:
                batches.append((op, op.callback_batch(self._sched.epoch_idx)))
            except StopIteration:
                stop = True
        if stop:
            raise StopIteration
        self.iter_setup()
        for op, batch in batches:
            op.feed(batch)

    def feed_input(self, data_node, data, layout=None, cuda_stream=None,
                   use_copy_kernel=False):
        """Give an external_source operator (by name or DataNode) its next batch."""
        self.build()
        name = data_node.name if hasattr(data_node, "name") else data_node
        op = self._executor.by_name.get(name)
        if not isinstance(op, _roles.Source):
            raise KeyError(f'Could not find an input operator with name "{name}"')
        if op.has_callback:
            raise RuntimeError(f"Cannot use `feed_input` on the external source '{name}' with "
                               "a `source` argument specified.")
        op.feed(data, layout)

    def input_feed_count(self, input_name):
        """Batches to feed an input before the first run: the larger queue depth (as DALI
        reports it, whatever the executor mode)."""
        return max(self._cpu_queue_size, self._gpu_queue_size)

    def reset(self):
        """After the end of data: start the next epoch.  Before it, nothing happens (as in
        DALI): after an operator error the batches already prefetched are kept, and the next
        call returns the one after the failed batch."""
        if self._sched.reset():
            self._executor.new_epoch()
            if self._enable_checkpointing:
                self._sched.snapshot = self._executor.snapshot()

    def empty(self):
        return self._sched.empty()

    def check_parity(self, iterations=1, atol=0.0):
        """Run this pipeline's definition in graph mode and in debug mode side by side and
        report the first operator whose outputs differ (or that none do).

        Works on pipelines made by a `@pipeline_def` function; fresh twins are created, so this
        pipeline's own state is not advanced.  External sources must be callables (not
        generator objects) so both twins can draw the same data.

        Returns
        -------
        ParityReport
            `ok`, and for the first difference the operator, its source line, the iteration,
            output and sample, and the largest absolute difference.
        """
        if self._definition is None:
            raise RuntimeError(
                "check_parity needs a pipeline created by a @pipeline_def function")
        return self._definition.check_parity(self, iterations, atol)

    # -- readers ------------------------------------------------------------------------------
    def _readers(self):
        self.build()
        return {name: op for name, op in self._executor.by_name.items()
                if isinstance(op, _roles.Reader)}

    def reader_meta(self, name=None):
        """Reader metadata (epoch_size, shards, padding), of one reader or all by name."""
        readers = self._readers()
        if name is not None:
            if name not in readers:
                raise RuntimeError(f'Reader "{name}" does not exist in the pipeline')
            return readers[name].reader_meta()
        return {k: r.reader_meta() for k, r in readers.items()}

    def epoch_size(self, name=None):
        """Samples in an epoch (padded), of one reader or all by name."""
        meta = self.reader_meta(name)
        if name is not None:
            return meta["epoch_size_padded"]
        return {k: m["epoch_size_padded"] for k, m in meta.items()}

    # -- statistics, graph export -------------------------------------------------------------
    def executor_statistics(self):
        """Per operator ("CPU_<instance name>"), the largest sizes of its outputs so far:
        `real_memory_size` (bytes), `max_real_memory_size` (bytes per sample),
        `reserved_memory_size` and `max_reserved_memory_size` (what the buffer pool holds for
        them), one entry per output.  Empty unless `enable_memory_stats=True`.  Unlike DALI's
        dynamic executor, which returns {}, this works in every executor mode."""
        if not self._enable_memory_stats or not self._built:
            return {}
        return self._executor.memory_statistics()

    def executor_timing(self, reset=False):
        """Time spent in each operator (an extension, not in DALI): per instance name,
        `runs`, `total_us`, `mean_us` and `max_us` over the iterations run so far (prefetched
        ones included).  `reset=True` starts the counts afresh after reading them."""
        if not self._built:
            return {}
        result = self._executor.timing()
        if reset:
            self._executor.reset_timing()
        return result

    def profile(self, iterations=100, warmup=5, progress=True, svg=None):
        """Run `warmup` + `iterations` batches and report where the time goes (an extension,
        not in DALI; `dali._pipeline.profiler`): per operator p50/p99 time, share, busy
        threads and bytes, and a verdict naming the bottleneck.  `svg`: also draw it there.
        Returns a `ProfileReport` (print it for the table)."""
        report = profiler.profile(self, iterations, warmup, progress)
        if svg is not None:
            report.write_svg(svg)
        return report

    def save_graph_to_dot_file(self, filename, *, show_tensors=False, show_ids=None,
                               use_colors=False):
        """Write the built graph in Graphviz dot format, as DALI writes it (`show_ids` is
        deprecated and has no effect, as in DALI)."""
        self.build()
        if show_ids is not None:
            warnings.warn('The argument "show_ids" is deprecated because it no longer has any '
                          "effect.\nIt will be removed from future releases.",
                          DeprecationWarning, stacklevel=2)
        dot.write(self._graph, filename, show_tensors, use_colors)

    def save_graph(self, filename):
        """Draw the pipeline with Graphviz into `filename` (.svg, .png, .pdf; .dot writes the
        text): operators with their schema name and time, coloured by device, the slowest
        marked; edges with the type, dimensions and layout of their data once the pipeline
        has run.  An extension, not in DALI."""
        self.build()
        meta = {node.name: node.out_meta for node in self._executor.plan.nodes}
        dot.render(dot.annotated(self._graph, meta, self._executor.timing()), filename)

    # -- serialization (dali._pipeline.serialization) -----------------------------------------
    def serialize(self, define_graph=None, filename=None):
        """The pipeline definition in DALI's protobuf format (bytes), also written to
        `filename` when given.  `define_graph` (deprecated) stands for the `define_graph`
        method."""
        if define_graph is not None and not callable(define_graph):
            raise TypeError(
                "Provided `define_graph` argument is not callable."
                + (" Didn't you want to write `.serialize(filename=...)`?"
                   if isinstance(define_graph, str) else ""))
        if define_graph is not None and self._outputs is None:
            with self:
                outs = define_graph()
            self.set_outputs(*(outs if isinstance(outs, (tuple, list)) else (outs,)))
        outputs = self._collect_outputs()
        g = graph.Graph(outputs, self._sinks)
        g.check()
        self._check_output_specs(len(outputs))
        data = serialization.serialize(self, g, outputs, self._seed)
        if filename is not None:
            with open(filename, "wb") as f:
                f.write(data)
        return data

    @classmethod
    def deserialize(cls, serialized_pipeline=None, filename=None, **kwargs):
        """A built pipeline from `serialize()`'s bytes (or the file `filename`); `kwargs`
        override the constructor arguments stored with it."""
        if (serialized_pipeline is None) == (filename is None):
            raise ValueError(
                "serialized_pipeline and filename arguments are mutually exclusive. "
                "Precisely one of them should be defined.")
        if filename is not None:
            with open(filename, "rb") as f:
                serialized_pipeline = f.read()
        msg = serialization.parse(serialized_pipeline)
        params = serialization.pipeline_params(msg)
        for key, value in zip(("output_dtype", "output_ndim", "output_layout"),
                              serialization.output_descs(msg), strict=True):
            params[key] = value
        params.update(kwargs)
        pipe = cls(**params)
        pipe._record_serialized(msg)
        return pipe

    def deserialize_and_build(self, serialized_pipeline):
        """Define this pipeline from `serialize()`'s bytes, with this pipeline's own
        parameters, and build it."""
        self._record_serialized(serialization.parse(serialized_pipeline))

    def _record_serialized(self, msg):
        if self._outputs is not None or self._built:
            raise RuntimeError("The pipeline is already defined: deserialize into a new one.")
        with self:
            self.set_outputs(*serialization.record_ops(msg))
        self.build()
        self._deserialized = True

    # -- checkpoints (dali._pipeline.checkpointing) ------------------------------------------
    def checkpoint(self, filename=None):
        """The pipeline's state after the batches consumed so far, as checkpoint bytes (also
        written to `filename` when given); `Pipeline(checkpoint=...)` restores it."""
        if not self._enable_checkpointing:
            raise RuntimeError("Cannot save the checkpoint. The `enable_checkpointing` was not "
                               "specified when creating the pipeline")
        data = self._get_checkpoint()
        if filename is not None:
            with open(filename, "wb") as f:
                f.write(data)
        return data

    def _restore_in_place(self, data):
        """Take back checkpoint `data` in this built pipeline (a framework iterator's
        `load_state_dict`): queued batches are dropped, and the operators are made again
        when the checkpoint's pipeline seed differs from this pipeline's."""
        if not self._enable_checkpointing:
            raise RuntimeError("Restoring a checkpoint needs enable_checkpointing=True")
        restored = checkpointing.decode(data)
        self.build()
        self._sched.drop_queued()
        if restored.seed != self._effective_seed:
            self._effective_seed = restored.seed
            self._executor = self._make_executor(restored.seed)
            checkpointing.check_operators(self._executor.ops, self._graph.nodes)
        else:
            for op in self._input_ops:
                op.drop_fed()
        self._checkpoint = restored
        self._restore(restored)
        self._sched.snapshot = self._executor.snapshot()

    def _get_checkpoint(self, iterator_data=""):
        """checkpoint() with a framework iterator's position (`iterator_data`, JSON)."""
        self.build()
        return checkpointing.encode([op.spec.name for op in self._executor.ops],
                                    self._sched.snapshot, self._sched.consumer_iter,
                                    self._sched.epoch_idx, self._effective_seed, iterator_data)

    @property
    def _iterator_data(self):
        """The framework iterator's position stored in the checkpoint this pipeline was
        restored from ("" otherwise)."""
        return self._checkpoint.iterator_data if self._checkpoint is not None else ""

    def _check_api_type_scope(self, api):
        """Context manager: use the pipeline with scheduling API `api` (DALI's hook for
        framework iterators; mixing APIs raises)."""
        return self._sched.check_api(api)

    def _start_workers(self):
        """The worker processes of the parallel external sources (dali.ops.python._workers)."""
        parallel = [op for op in self._input_ops if op.parallel_kind is not None]
        if not parallel:
            return
        from dali.ops.python import _workers

        pool = _workers.WorkerPool(
            [(op.source, op.num_outputs, bool(op.args["batch_info"]), op.parallel_kind,
              op.cycle, sum(op.args["bytes_per_sample_hint"])) for op in parallel],
            self._py_num_workers, self._py_start_method,
            [op.args["prefetch_queue_depth"] for op in parallel], self._max_batch_size,
            self._py_callback_pickler, keep_alive=self._cpu_queue_size)
        for i, op in enumerate(parallel):
            op.pool, op.pool_index = pool, i
        self._worker_pool = pool

    def start_py_workers(self):
        """Start the worker processes of the parallel external sources (`build()` does it
        too)."""
        self.build()

    def external_source_shm_statistics(self):
        """DALI's figures for the parallel sources' shared-memory chunks: `capacities` (bytes
        of each chunk) and `per_sample_capacities` (each divided by its mini-batch's number of
        samples); empty lists without parallel sources."""
        if self._worker_pool is None:
            return {"capacities": [], "per_sample_capacities": []}
        return self._worker_pool.statistics()

    # -- properties ---------------------------------------------------------------------------
    @property
    def batch_size(self):
        warnings.warn("batch_size is deprecated, please use max_batch_size instead",
                      DeprecationWarning, stacklevel=2)
        return self._max_batch_size

    # Constructor settings, read-only as in DALI.
    max_batch_size = _setting("max_batch_size")
    num_threads = _setting("num_threads")
    device_id = _setting("device_id")
    seed = _setting("seed")
    exec_pipelined = _setting("exec_pipelined")
    exec_async = _setting("exec_async")
    exec_separated = _setting("exec_separated")
    exec_dynamic = _setting("exec_dynamic")
    prefetch_queue_depth = _setting("prefetch_queue_depth")
    cpu_queue_size = _setting("cpu_queue_size")
    gpu_queue_size = _setting("gpu_queue_size")
    bytes_per_sample = _setting("bytes_per_sample")
    set_affinity = _setting("set_affinity")
    max_streams = _setting("max_streams")
    default_cuda_stream_priority = _setting("default_cuda_stream_priority")
    enable_memory_stats = _setting("enable_memory_stats")
    enable_checkpointing = _setting("enable_checkpointing")
    py_num_workers = _setting("py_num_workers")
    py_start_method = _setting("py_start_method")
    py_callback_pickler = _setting("py_callback_pickler")
    stream_policy = _setting("stream_policy")
    concurrency = _setting("concurrency")
    decode_scaling = _setting("decode_scaling")

    @property
    def is_restored_from_checkpoint(self):
        """Whether the pipeline was built from a checkpoint (True from `build()` on)."""
        return self._restored

    @property
    def num_outputs(self):
        self.build()
        return len(self._graph.outputs)

