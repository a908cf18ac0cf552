"""The executor: runs a built graph, one iteration per `run()`.

Build: one operator instance per graph node (with its seed derived from the pipeline seed in
topological order), then `setup()` on each.  Iteration: operators run in topological order; for
each, the workspace gets the input batches, `infer` says what to allocate, the outputs are
leased from the buffer pool, and `run_cpu` fills them.  Each edge carries its batch and the
epoch-relative ids of its samples (what keys per-sample random streams).

This is the contract the pipeline façade drives (`run`, `new_epoch`, `operator`); the
scheduling (prefetch queues, API styles, StopIteration) lives in `dali._pipeline.scheduler`.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, tensors
from dali._executor import errors, workspace
from dali._ext.tensor_storage import BatchStorage
from dali._ext.thread_pool import ThreadPool


class Executor:
    """Runs the nodes of a `Graph` (see the module docstring).

    Parameters
    ----------
    graph : dali._graph.graph.Graph
    max_batch_size, num_threads : int
    device_id : int or None
    seed : int
        The pipeline seed operator seeds derive from.
    """

    def __init__(self, graph, max_batch_size, num_threads, device_id, seed):
        self.graph = graph
        self.max_batch_size = max_batch_size
        seeds = graph.assign_seeds(seed)
        self.ops = []
        self.by_name = {}
        for n in graph.nodes:
            given = frozenset(n.args) | frozenset(n.arg_inputs)
            spec = _operator.OpSpec(
                schema=n.schema, name=n.name, device=n.device,
                args=_operator.fill_defaults(n.schema, n.args), given=given,
                arg_inputs=tuple(sorted(n.arg_inputs)), seed=seeds.get(n), origin=n.origin,
                max_batch_size=max_batch_size, num_threads=num_threads, device_id=device_id,
                node=n)
            op = n.impl(spec)
            self.ops.append(op)
            self.by_name[n.name] = op
        self.thread_pool = ThreadPool(num_threads)
        self.iteration = 0
        self.epoch = 0
        self._samples_seen = 0

    def setup(self):
        for op in self.ops:
            try:
                op.setup()
            except errors.PipelineError:
                raise
            except Exception as e:
                raise type(e)(f"{op.spec.display_name}: {e}") from e

    def operator(self, name):
        return self.by_name[name]

    def new_epoch(self):
        """Start a new epoch: sample ids restart at 0; operators are told."""
        self.epoch += 1
        self._samples_seen = 0
        for op in self.ops:
            op.reset_epoch(self.epoch)

    def _iteration_batch_size(self):
        for op in self.ops:
            fed = getattr(op, "fed_batch_size", None)
            if fed is not None:
                bs = fed()
                if bs is not None:
                    return bs
        return self.max_batch_size

    def run(self):
        """Run one iteration; returns the pipeline outputs as contiguous TensorLists."""
        return self._run(None)

    def run_captured(self):
        """Run one iteration; returns every operator output, by `id()` of its DataNode."""
        captured = {}
        self._run(captured)
        return captured

    def _run(self, capture):
        bs = self._iteration_batch_size()
        root_ids = np.arange(self._samples_seen, self._samples_seen + bs, dtype=np.int64)
        values = {}
        for node, op in zip(self.graph.nodes, self.ops, strict=True):
            ins = [values[id(e)] for e in node.inputs]
            arg_ins = {k: values[id(e)] for k, e in node.arg_inputs.items()}
            outs = run_operator(op, ins, arg_ins, bs, root_ids, self.iteration, self.epoch,
                                self.thread_pool)
            for e, v in zip(node.outputs, outs, strict=True):
                values[id(e)] = v
                if capture is not None:
                    capture[id(e)] = v[0]
        self.iteration += 1
        self._samples_seen += bs
        result = []
        for e in self.graph.outputs:
            tl, _ = values[id(e)]
            if not tl._storage.is_contiguous:
                tl = tensors.TensorListCPU._wrap(tl._storage.contiguous(), tl._layout,
                                                 tl._source_info)
            result.append(tl)
        return result


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
    if ins:
        bs = len(ins[0][0])
        ids = ins[0][1]
        source_info = ins[0][0]._source_info
    else:
        bs, ids, source_info = root_bs, root_ids, None
    ws = workspace.Workspace(
        op, bs, [v[0] for v in ins], {k: v[0] for k, v in arg_ins.items()},
        iteration, epoch, ids, thread_pool=thread_pool, source_info=source_info,
        input_ids=[v[1] for v in ins])
    try:
        for k, (tl, _) in enumerate(ins[1:], 1):
            if len(tl) != bs and spec.schema.same_batch_inputs:
                raise op.error(f"input {k} has {len(tl)} samples but input 0 has {bs}")
        descs = op.infer(ws)
        ws.outputs = [None if d.shapes is None else
                      BatchStorage.allocate(d.dtype, d.shapes, ndim=_ndim(d))
                      for d in descs]
        if spec.device == "cpu":
            op.run_cpu(ws)
        else:
            op.run_gpu(ws)
    except errors.PipelineError:
        raise
    except errors.SampleError as e:
        raise errors.operator_error(spec, e, e.index, ws.source_info(e.index)) from e
    except Exception as e:
        raise errors.operator_error(spec, e) from e
    out_info = ws.out_source_info if ws.out_source_info is not None else source_info
    out_ids = ids if len(ids) == bs else root_ids[:bs]
    result = []
    for k, (d, out) in enumerate(zip(descs, ws.outputs, strict=True)):
        ids_k, info_k = ws.out_meta.get(k, (out_ids, out_info))
        if isinstance(out, list):
            out = BatchStorage.from_samples(out) if out else \
                BatchStorage.allocate(d.dtype, [], ndim=_ndim(d))
        if out is None:
            raise errors.operator_error(spec, RuntimeError("operator produced no output"))
        result.append((tensors.TensorListCPU._wrap(out, d.layout or "", info_k), ids_k))
    return result


def _ndim(desc):
    if desc.ndim is not None:
        return desc.ndim
    if desc.layout:
        return len(desc.layout)
    shapes = desc.shapes
    if shapes is not None and len(shapes):
        return len(shapes[0])
    return -1
