"""Checkpoints: `Pipeline.checkpoint()` and `Pipeline(checkpoint=...)`.

A checkpoint is DALI's `Checkpoint` protobuf message: one `OpCheckpoint` per operator of the
built graph (its instance name and state) and an `ExternalContextCheckpoint` whose
`pipeline_data` is DALI's JSON `{"iter": ..., "epoch_idx": ...}` (iterations the user consumed
in the epoch, and the epoch), to which dali adds its own `"dali"` entry: the pipeline seed and
the executor's counters (iteration, epoch, samples of the epoch).

Because every random draw is keyed by (operator seed, epoch, sample index), those counters and
the seed are the whole state of the random operators: a checkpoint is positions, counters and
seeds, never buffers, and restoring replays nothing.  Operators with state of their own
(`dali._roles.Checkpointable`: external sources with a one-argument callback, readers) store a
small JSON object of numbers; the others an empty state.

A checkpoint reflects the batches the user consumed, not the ones prefetched: the executor
takes a snapshot after each iteration, the scheduler keeps it with that iteration's outputs,
and `checkpoint()` uses the snapshot of the last batch returned (the state right after build
before any).  Loading one runs no code: the bytes are decoded by `dali._pipeline.protobuf`
and the JSON checked field by field; anything else is a ValueError saying what is wrong.
"""

from __future__ import annotations

import json
import warnings

from dali import _roles
from dali._executor.executor import Snapshot
from dali._pipeline import protobuf as pb

OP_CHECKPOINT = pb.Message("dali_proto.OpCheckpoint", [
    (1, "operator_name", "string", "optional"),
    (2, "operator_state", "bytes", "optional"),
])
EXTERNAL_CONTEXT = pb.Message("dali_proto.ExternalContextCheckpoint", [
    (1, "pipeline_data", "string", "optional"),
    (2, "iterator_data", "string", "optional"),
])
CHECKPOINT = pb.Message("dali_proto.Checkpoint", [
    (1, "cpts", OP_CHECKPOINT, "repeated"),
    (2, "external_ctx_cpt", EXTERNAL_CONTEXT, "optional"),
])

_COUNTERS = ("seed", "iteration", "epoch", "samples")


def check_operators(ops, nodes):
    """At build with `enable_checkpointing`: operators defined outside the pipeline (graph
    `nodes` without a pipeline) and readers that cannot be checkpointed are refused (DALI's
    errors); sources whose position cannot be kept warn as in DALI."""
    detached = [n.name for n in nodes if n.pipeline is None]
    if detached:
        raise RuntimeError(
            "The pipeline does not support checkpointing because it contains operator(s) that "
            f"were defined outside the pipeline scope:\n{detached}\nAll operators should be "
            "defined while the pipeline is set as the current pipeline. This happens "
            "automatically when defining the pipeline in a function decorated with "
            "`@pipeline_def`.")
    for op in ops:
        if isinstance(op, _roles.Reader) and not isinstance(op, _roles.Checkpointable):
            raise NotImplementedError(
                f"Checkpointing is not implemented for this operator: {op.spec.display_name} "
                f"(instance \"{op.spec.name}\")")
        if isinstance(op, _roles.Source) and op.has_callback and \
                op.checkpoint_state() is None:
            warnings.warn(
                f"Checkpointing enabled in a pipeline with external source operator, with "
                f"{op.source_kind()} as a 'source'. DALI doesn't capture state of such "
                "'source'. When loading the checkpoint, the 'source' must be manually adjusted "
                "by the user to start from the correct point, otherwise it will start from the "
                "beginning, potentially leading to mismatch with other data sources.",
                stacklevel=4)


def encode(names, snapshot, consumer_iter, epoch_idx, seed, iterator_data=""):
    """The Checkpoint bytes of operators `names` (graph order) in `snapshot`."""
    cpts = [{"operator_name": name,
             "operator_state": b"" if state is None else
             json.dumps(state, sort_keys=True).encode()}
            for name, state in zip(names, snapshot.op_states, strict=True)]
    data = {"iter": consumer_iter, "epoch_idx": epoch_idx,
            "dali": {"seed": seed, "iteration": snapshot.iteration, "epoch": snapshot.epoch,
                     "samples": snapshot.samples}}
    return pb.encode(CHECKPOINT, {"cpts": cpts, "external_ctx_cpt": {
        "pipeline_data": json.dumps(data), "iterator_data": iterator_data}})


class Restored:
    """A decoded checkpoint: `seed`, `snapshot`, `consumer_iter`, `epoch_idx`,
    `iterator_data`, and `names` (operator names in checkpoint order)."""

    def __init__(self, seed, snapshot, consumer_iter, epoch_idx, iterator_data, names):
        self.seed = seed
        self.snapshot = snapshot
        self.consumer_iter = consumer_iter
        self.epoch_idx = epoch_idx
        self.iterator_data = iterator_data
        self.names = names


def _fail(what):
    raise ValueError(f"Not a checkpoint of a dali pipeline: {what}")


def _non_negative_int(value, what):
    if type(value) is not int or value < 0:
        _fail(f"{what} is {value!r}, not a non-negative integer")
    return value


def decode(data):
    """The `Restored` of checkpoint bytes `data`; a ValueError for anything else."""
    if isinstance(data, str):
        data = data.encode("latin-1")
    try:
        msg = pb.decode(CHECKPOINT, data)
    except pb.DecodeError as e:
        _fail(str(e))
    ctx = msg["external_ctx_cpt"]
    if ctx is None:
        _fail("no pipeline context")
    try:
        pipe_data = json.loads(ctx["pipeline_data"])
    except json.JSONDecodeError as e:
        _fail(f"pipeline_data is not JSON ({e})")
    if not isinstance(pipe_data, dict) or not isinstance(pipe_data.get("dali"), dict):
        _fail("no dali state in pipeline_data (a checkpoint made by NVIDIA DALI cannot be "
              "restored by dali: their random generators differ)")
    ours = pipe_data["dali"]
    counters = [_non_negative_int(ours.get(k), f"dali.{k}") for k in _COUNTERS]
    states = []
    for cpt in msg["cpts"]:
        raw = cpt["operator_state"]
        if not raw:
            states.append(None)
            continue
        try:
            state = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            _fail(f"the state of operator {cpt['operator_name']!r} is not dali's")
        if not isinstance(state, dict):
            _fail(f"the state of operator {cpt['operator_name']!r} is not an object")
        states.append(state)
    snapshot = Snapshot(counters[1], counters[2], counters[3], states)
    return Restored(counters[0], snapshot,
                    _non_negative_int(pipe_data.get("iter"), "iter"),
                    _non_negative_int(pipe_data.get("epoch_idx"), "epoch_idx"),
                    ctx["iterator_data"], [c["operator_name"] for c in msg["cpts"]])


def restore(restored, ops):
    """Give each operator of `ops` (graph order) its state from `restored`; the operators
    must be those the checkpoint was taken of (DALI's error otherwise)."""
    names = [op.spec.name for op in ops]
    known = set(names)
    for name in restored.names:
        if name not in known:
            raise RuntimeError(
                f'The executor doesn\'t recognize "{name}" as a name of an operator.\n'
                "The checkpoint might come from another pipeline.")
    if restored.names != names:
        missing = sorted(known - set(restored.names))
        raise RuntimeError(
            "The checkpoint might come from another pipeline: "
            + (f"it has no state for {missing}" if missing else
               "its operators come in another order"))
    for op, state in zip(ops, restored.snapshot.op_states, strict=True):
        if isinstance(op, _roles.Checkpointable):
            if state is not None:
                op.restore_state(state)
        elif state is not None:
            raise RuntimeError(f"The checkpoint might come from another pipeline: it has a "
                               f"state for {op.spec.name!r}, which keeps none")
