"""The executor's hot loop: a plan made once at build time, run once per iteration.

`Plan` numbers every edge of the graph (a *slot*) and gives each operator (`NodePlan`) the slots
of its inputs, argument inputs and outputs, and the slots whose last reader it is.  An iteration
is then a loop over the nodes in topological order with two flat lists of slot values (the
TensorList and the sample ids of each edge): no dictionaries, no graph walking, and a batch is
dropped as soon as its last reader has run, so its buffer goes back to the pool early.

`run_operator` is the one way an operator runs, in graph mode (through the plan) and in debug
mode (called directly): a workspace is filled with C stores, `infer` returns the batch's plan
(what to allocate and what the run needs), outputs are leased from the buffer pool (presized
by `bytes_per_sample_hint`), `run_cpu(ws, plan)` fills them, and any error comes back as a
`PipelineError` naming the operator, its line and sample.

Each node also counts its runs and time (monotonic clock, nanoseconds), keeps the type,
dimensions and layout of its outputs' first batch (`out_meta`, for `Pipeline.save_graph`) and,
when the pipeline asks for memory statistics, the largest sizes of its outputs.  While
`Plan.events` is a list (the profiler, `dali._pipeline.profiler`) every node run appends one
event: the node's index, its start and end (monotonic ns), the CPU time the process spent
meanwhile (all threads) and the bytes of its outputs.
"""
from libc.stdint cimport int64_t
from posix.time cimport CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, clock_gettime, timespec

from dali._ext.tensor_storage cimport BatchStorage, allocate_batch
from dali._ext.thread_pool cimport stop_if_exiting
from dali._ext.workspace cimport WorkspaceBase

from dali import tensors
from dali._executor import errors, workspace

cdef object _Workspace = workspace.Workspace
cdef object _wrap = tensors.TensorListCPU._wrap
cdef object _PipelineError = errors.PipelineError
cdef object _SampleError = errors.SampleError
cdef object _operator_error = errors.operator_error
cdef object _from_samples = BatchStorage.from_samples

# How a node runs (NodePlan.mode): host in and out; on the device; host run then upload.
cdef enum:
    MODE_CPU = 0
    MODE_GPU = 1
    MODE_MIXED = 2
cdef object _gpu_batch = None           # dali._gpu.batch.DeviceBatch, imported on first use
cdef object _wrap_gpu = None


cdef int _node_mode(spec) except -1:
    if spec.device == "cpu":
        return MODE_CPU
    return MODE_GPU if spec.device == "gpu" else MODE_MIXED


cdef object _node_device(spec, int mode):
    """The `dali._gpu.runtime.Device` of a GPU or mixed node (None for CPU nodes); imports
    the GPU modules the first time."""
    global _gpu_batch, _wrap_gpu
    if mode == MODE_CPU:
        return None
    from dali._gpu import batch as gpu_batch, runtime, tensors as gpu_tensors
    _gpu_batch = gpu_batch.DeviceBatch
    _wrap_gpu = gpu_tensors.TensorListGPU._wrap
    return runtime.device(spec.device_id)


cdef inline int64_t _now_ns() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return <int64_t>t.tv_sec * 1000000000 + t.tv_nsec


cdef inline int64_t _cpu_ns() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return <int64_t>t.tv_sec * 1000000000 + t.tv_nsec


cdef Py_ssize_t _nbytes(list tls) except -1:
    cdef Py_ssize_t total = 0
    for tl in tls:
        total += (<BatchStorage>tl._storage).nbytes
    return total


cdef Py_ssize_t _ndim(desc) except? -2:
    """Dimensions of an output: given, else from its layout, else from its first shape."""
    ndim = desc.ndim
    if ndim is not None:
        return ndim
    layout = desc.layout
    if layout:
        return len(layout)
    shapes = desc.shapes
    if shapes is not None and len(shapes):
        return len(shapes[0])
    return -1


def output_hints(spec, Py_ssize_t bytes_per_sample=0):
    """Bytes per sample to presize each output with: the operator's `bytes_per_sample_hint`
    (one value for every output, or one per output), else the pipeline's `bytes_per_sample`."""
    given = spec.args.get("bytes_per_sample_hint") or [0]
    if not isinstance(given, (list, tuple)):
        given = [given]
    return tuple(int(h) if int(h) > 0 else bytes_per_sample for h in given)


cdef inline Py_ssize_t _hint(tuple hints, Py_ssize_t k):
    cdef Py_ssize_t n = len(hints)
    if n == 0:
        return 0
    return hints[k] if k < n else (hints[0] if n == 1 else 0)


cdef inline Py_ssize_t _num_samples(object tl):
    st = tl._storage
    if type(st) is BatchStorage:
        return (<BatchStorage>st).num_samples
    return st.num_samples                   # a DeviceBatch


cdef list _execute(object op, object spec, int mode, object device, bint same_batch,
                   list tls, list ids_list, dict arg_tls, Py_ssize_t root_bs, object root_ids,
                   long long iteration, long long epoch, object pool, tuple hints,
                   Py_ssize_t max_bs, list out_ids):
    """Run `op` on one batch; returns its output TensorLists and appends their ids to
    `out_ids` (see `run_operator`).  `mode` says how (MODE_*), `device` is the GPU of GPU
    and mixed nodes: GPU nodes get device outputs and `run_gpu`; mixed nodes `run_cpu` into
    host outputs, which are then uploaded."""
    cdef Py_ssize_t bs, k, n_in = len(tls), n_out
    cdef WorkspaceBase ws
    cdef object ids, source_info, plan, descs, d, shapes, out, info_k, ids_k
    cdef list outs, staged = None
    if n_in:
        first = tls[0]
        bs = _num_samples(first)
        ids = ids_list[0]
        source_info = first._source_info
    else:
        bs = root_bs
        ids = root_ids
        source_info = None
    ws = WorkspaceBase.__new__(_Workspace)
    ws.op = op
    ws.spec = spec
    ws.batch_size = bs
    ws.inputs = tls
    ws.arg_inputs = arg_tls
    ws.iteration = iteration
    ws.epoch = epoch
    ws.sample_ids = ids
    ws.input_ids = ids_list
    ws.thread_pool = pool
    ws._source_info = source_info
    ws.outputs = []
    try:
        if same_batch:
            for k in range(1, n_in):
                n = _num_samples(tls[k])
                if n != bs:
                    raise op.error(f"input {k} has {n} samples but input 0 has {bs}")
        plan = op.infer(ws)
        descs = plan.outputs
        outs = []
        for k in range(len(descs)):
            d = descs[k]
            shapes = d.shapes
            if shapes is None:
                outs.append(None)
            elif mode == MODE_GPU:
                outs.append(_gpu_batch.empty(device, d.dtype, shapes, _ndim(d)))
            else:           # a mixed node's outputs in the device's pinned staging pool
                outs.append(allocate_batch(d.dtype, shapes,
                                           device.host_pool if mode == MODE_MIXED else None,
                                           _ndim(d), _hint(hints, k) * max_bs))
        ws.outputs = outs
        if mode == MODE_MIXED:
            staged = list(outs)
        if mode == MODE_GPU:
            if bs or None in outs:      # an empty batch has nothing to launch
                op.run_gpu(ws, plan)
        else:
            op.run_cpu(ws, plan)
    except _PipelineError:
        raise
    except _SampleError as e:
        raise _operator_error(spec, e, e.index, ws.source_info(e.index), source_info,
                              bs) from e
    except Exception as e:
        raise _operator_error(spec, e, None, "", source_info, bs) from e
    out_info = ws.out_source_info if ws.out_source_info is not None else source_info
    out_default_ids = ids if len(ids) == bs else root_ids[:bs]
    meta = ws.out_meta
    produced = ws.outputs
    n_out = len(descs)
    if len(produced) != n_out:
        raise _operator_error(spec, RuntimeError(
            f"operator produced {len(produced)} outputs, its infer() described {n_out}"))
    result = []
    for k in range(n_out):
        d = descs[k]
        out = produced[k]
        if meta is not None and k in meta:
            ids_k, info_k = meta[k]
        else:
            ids_k, info_k = out_default_ids, out_info
        if type(out) is list:
            out = _from_samples(out) if out else \
                allocate_batch(d.dtype, [], None, _ndim(d), 0)
        if out is None:
            raise _operator_error(spec, RuntimeError("operator produced no output"))
        if mode == MODE_MIXED:      # uploaded from where it is if filled in place
            out = _gpu_batch.from_host(device, out,
                                       device.host_pool is not None and out is staged[k])
        if mode == MODE_CPU:
            result.append(_wrap(out, d.layout or "", info_k))
        else:
            result.append(_wrap_gpu(out, d.layout or "", info_k))
        out_ids.append(ids_k)
    return result


cdef tuple _argument_batch(object tl, object ids, Py_ssize_t root_bs, object root_ids):
    """(batch size, sample ids) of an operator without positional inputs: its first argument
    input's where that batch is not the iteration's (inside a conditional branch), as DALI
    sizes such operators by their argument inputs; else the iteration's."""
    cdef Py_ssize_t n = (<BatchStorage>tl._storage).num_samples
    if n == root_bs:
        return root_bs, root_ids
    return n, ids


def run_operator(op, ins, arg_ins, root_bs, root_ids, iteration=0, epoch=0, thread_pool=None):
    """Run one operator on one batch: the single entry point of graph and debug execution.

    Parameters
    ----------
    op : Operator
    ins : list of (TensorListCPU, sample ids)
        Positional inputs and the epoch-relative ids of their samples.
    arg_ins : dict of str -> (TensorListCPU, sample ids)
    root_bs, root_ids :
        Batch size and sample ids used when the operator has no positional inputs.
    thread_pool : ThreadPool or None
        The pipeline's worker threads, shared by its operators.

    Returns
    -------
    list of (TensorListCPU, sample ids), one per output.
    """
    spec = op.spec
    cdef list out_ids = []
    if not ins and arg_ins:
        arg_tl, arg_ids = next(iter(arg_ins.values()))
        root_bs, root_ids = _argument_batch(arg_tl, arg_ids, root_bs, root_ids)
    cdef int mode = _node_mode(spec)
    outs = _execute(op, spec, mode, _node_device(spec, mode), spec.schema.same_batch_inputs,
                    [v[0] for v in ins], [v[1] for v in ins],
                    {k: v[0] for k, v in arg_ins.items()}, root_bs, root_ids, iteration,
                    epoch, thread_pool, output_hints(spec), spec.max_batch_size, out_ids)
    return list(zip(outs, out_ids))


cdef class NodePlan:
    """One operator of a `Plan`: its slots, output size hints and statistics."""

    def __init__(self, op, in_slots, arg_names, arg_slots, out_slots, hints):
        self.op = op
        self.spec = op.spec
        self.name = op.spec.name
        self.mode = _node_mode(op.spec)
        self.device = _node_device(op.spec, self.mode)
        self.same_batch_inputs = bool(op.spec.schema.same_batch_inputs)
        self.in_slots = tuple(in_slots)
        self.arg_names = tuple(arg_names)
        self.arg_slots = tuple(arg_slots)
        self.out_slots = tuple(out_slots)
        self.free_after = ()
        self.hints = tuple(hints)
        self.memory = None
        self.out_meta = None

    def timing(self):
        """{"runs", "total_us", "mean_us", "max_us"} of this operator's runs so far."""
        return {"runs": self.runs, "total_us": self.total_ns / 1000.0,
                "mean_us": self.total_ns / 1000.0 / self.runs if self.runs else 0.0,
                "max_us": self.max_ns / 1000.0}

    def memory_statistics(self):
        """DALI's per-output memory counters (lists, one entry per output), or None before
        the first recorded run."""
        if self.memory is None:
            return None
        return {"real_memory_size": [m[0] for m in self.memory],
                "max_real_memory_size": [m[1] for m in self.memory],
                "reserved_memory_size": [m[2] for m in self.memory],
                "max_reserved_memory_size": [m[3] for m in self.memory]}

    def reset_timing(self):
        self.runs = self.total_ns = self.max_ns = 0

    cdef int _record(self, list tls) except -1:
        """Fold the sizes of this run's outputs into the memory counters (maxima, as DALI)."""
        cdef Py_ssize_t k, n, real, reserved, per_real, per_reserved
        cdef BatchStorage st
        if self.memory is None:
            self.memory = [[0, 0, 0, 0] for _ in tls]
        for k in range(len(tls)):
            if type(tls[k]._storage) is not BatchStorage:      # a DeviceBatch
                dev = tls[k]._storage
                n = dev.num_samples
                real = dev.nbytes
                reserved = dev.buffer.nbytes
                per_real = (real + n - 1) // n if n else 0
                per_reserved = (reserved + n - 1) // n if n else 0
                self._fold(k, real, per_real, reserved, per_reserved)
                continue
            st = <BatchStorage>tls[k]._storage
            n = st.num_samples
            real = st.nbytes
            reserved = st.capacity
            if n == 0:
                per_real = per_reserved = 0
            elif st.base is None:
                per_real = per_reserved = max(s.nbytes for s in st.samples())
            else:
                per_real = (real + n - 1) // n
                per_reserved = (reserved + n - 1) // n
            self._fold(k, real, per_real, reserved, per_reserved)
        return 0

    cdef int _fold(self, Py_ssize_t k, Py_ssize_t real, Py_ssize_t per_real,
                   Py_ssize_t reserved, Py_ssize_t per_reserved) except -1:
        cdef list m = self.memory[k]
        if real > m[0]:
            m[0] = real
        if per_real > m[1]:
            m[1] = per_real
        if reserved > m[2]:
            m[2] = reserved
        if per_reserved > m[3]:
            m[3] = per_reserved
        return 0


cdef class Plan:
    """The build-time execution plan of a graph (see the module docstring).

    Parameters
    ----------
    graph : dali._graph.graph.Graph
    ops : list of Operator
        One instance per graph node, in the graph's (topological) order.
    bytes_per_sample : int
        The pipeline's output size hint for operators that give none.
    staged : bool
        Order the nodes in two stages (separate prefetch queues): the CPU operators, in
        topological order, then the mixed and GPU ones; `split` is where the second begins.
    """

    def __init__(self, graph, ops, Py_ssize_t bytes_per_sample=0, bint staged=False):
        cdef dict slot_of = {}
        cdef dict last_reader = {}
        cdef NodePlan np_
        self.nodes = []
        self.slot_edges = []
        for node in graph.nodes:
            for e in node.outputs:
                slot_of[id(e)] = len(self.slot_edges)
                self.slot_edges.append(e)
        self.num_slots = len(self.slot_edges)
        pairs = list(zip(graph.nodes, ops, strict=True))
        if staged:      # CPU operators first (none reads a GPU output without exec_dynamic)
            pairs = ([p for p in pairs if p[0].device == "cpu"]
                     + [p for p in pairs if p[0].device != "cpu"])
        self.split = sum(1 for p in pairs if p[0].device == "cpu") if staged else len(pairs)
        for i, (node, op) in enumerate(pairs):
            names = sorted(node.arg_inputs)
            in_slots = [slot_of[id(e)] for e in graph.inputs_of(node)]
            arg_ins = graph.arg_inputs_of(node)
            arg_slots = [slot_of[id(arg_ins[k])] for k in names]
            for s in in_slots + arg_slots:
                last_reader[s] = i
            self.nodes.append(NodePlan(op, in_slots, names, arg_slots,
                                       [slot_of[id(e)] for e in node.outputs],
                                       output_hints(op.spec, bytes_per_sample)))
        self.output_slots = tuple(slot_of[id(e)] for e in graph.produced_outputs())
        kept = set(self.output_slots)
        frees = [[] for _ in self.nodes]
        for s, i in last_reader.items():
            if s not in kept:
                frees[i].append(s)
        for i, np_ in enumerate(self.nodes):
            np_.free_after = tuple(sorted(frees[i]))
        self.memory_stats = False
        self.events = None

    def run(self, Py_ssize_t batch_size, root_ids, long long iteration, long long epoch,
            thread_pool, Py_ssize_t max_batch_size, bint capture=False):
        """Run every node once.

        Returns the pipeline outputs (TensorLists), or with `capture` a dict mapping `id()` of
        every edge's DataNode to its TensorList.
        """
        cdef list slots = self.new_slots()
        self._run_range(slots, 0, len(self.nodes), batch_size, root_ids, iteration, epoch,
                        thread_pool, max_batch_size, capture)
        if capture:
            return {id(self.slot_edges[i]): slots[0][i] for i in range(self.num_slots)}
        return self.outputs(slots)

    def new_slots(self):
        """The slot values of an iteration, all empty: [TensorLists, sample ids]."""
        return [[None] * self.num_slots, [None] * self.num_slots]

    def outputs(self, list slots):
        """The pipeline outputs in an iteration's `slots` once every node ran."""
        cdef list tl_slots = slots[0]
        return [tl_slots[<Py_ssize_t>s] for s in self.output_slots]

    def run_range(self, list slots, Py_ssize_t start, Py_ssize_t stop, Py_ssize_t batch_size,
                  root_ids, long long iteration, long long epoch, thread_pool,
                  Py_ssize_t max_batch_size):
        """Run nodes[start:stop] of an iteration on its `slots` (`new_slots()`): one stage of
        separate queues (the CPU stage is `[0, split)`, the GPU stage the rest)."""
        if not 0 <= start <= stop <= len(self.nodes):
            raise ValueError(f"node range [{start}, {stop}) outside [0, {len(self.nodes)}]")
        self._run_range(slots, start, stop, batch_size, root_ids, iteration, epoch,
                        thread_pool, max_batch_size, False)

    cdef int _run_range(self, list slots, Py_ssize_t start, Py_ssize_t stop,
                        Py_ssize_t batch_size, root_ids, long long iteration, long long epoch,
                        thread_pool, Py_ssize_t max_batch_size, bint capture) except -1:
        cdef list tl_slots = slots[0]
        cdef list id_slots = slots[1]
        cdef list tls, ids, outs, out_ids
        cdef dict args
        cdef NodePlan node
        cdef Py_ssize_t i, n, s, bs, k
        cdef object rids
        cdef int64_t t0, dt, c0 = 0
        cdef list events = self.events
        for k in range(start, stop):
            node = self.nodes[k]
            stop_if_exiting()
            n = len(node.in_slots)
            tls = [None] * n
            ids = [None] * n
            for i in range(n):
                s = node.in_slots[i]
                tls[i] = tl_slots[s]
                ids[i] = id_slots[s]
            bs, rids = batch_size, root_ids
            if node.arg_names:
                args = {}
                for i in range(len(node.arg_names)):
                    args[node.arg_names[i]] = tl_slots[<Py_ssize_t>node.arg_slots[i]]
                if not n:
                    s = node.arg_slots[0]
                    bs, rids = _argument_batch(tl_slots[s], id_slots[s], bs, rids)
            else:
                args = {}
            out_ids = []
            if events is not None:
                c0 = _cpu_ns()
            t0 = _now_ns()
            outs = _execute(node.op, node.spec, node.mode, node.device, node.same_batch_inputs,
                            tls, ids, args, bs, rids, iteration, epoch, thread_pool,
                            node.hints, max_batch_size, out_ids)
            dt = _now_ns() - t0
            if events is not None:
                events.append((k, t0, t0 + dt, _cpu_ns() - c0, _nbytes(outs)))
            node.runs += 1
            node.total_ns += dt
            if dt > node.max_ns:
                node.max_ns = dt
            if self.memory_stats:
                node._record(outs)
            if node.out_meta is None:
                node.out_meta = tuple((tl._storage.dtype, tl._storage.ndim, tl.layout())
                                      for tl in outs)
            for i in range(len(node.out_slots)):
                s = node.out_slots[i]
                tl_slots[s] = outs[i]
                id_slots[s] = out_ids[i]
            if not capture:
                for i in range(len(node.free_after)):
                    s = node.free_after[i]
                    tl_slots[s] = None
                    id_slots[s] = None
        return 0

    def reset_timing(self):
        cdef NodePlan node
        for node in self.nodes:
            node.reset_timing()
