"""`Pipeline.serialize` / `Pipeline.deserialize` in DALI's own wire format (`dali.proto`, proto2,
package dali_proto), so a pipeline serialized by dali runs in real DALI and the other way round.

What is written, as DALI writes it: the pipeline parameters (threads, batch size, device id,
seed when one was given, queue depths, executor type bits, bytes-per-sample hint), then every
operator of the built graph in its topological order (the order seeds are handed out in, so a
deserialized pipeline draws the same random numbers) as an `OpDef`: DALI's schema name
("random__Uniform", "_ArithmeticGenericOp"), inputs and argument inputs by tensor name, outputs,
the arguments the user gave (never the derived seed), `device`, `_module`, `_display_name`,
`preserve_name` and the `_origin_stack_*` vectors, the instance name and the logical id (shared
by the operators of one call with multiple input sets).  Arguments have DALI's encodings:
"int64" for integers and enums, "float", "bool", "string" (layouts too), and vectors as
`is_vector` with one `extra_args` element per value.  `external_source` is written without its
callback and its Python-side arguments (a source with `num_outputs` becomes one ExternalSource
per output, as in DALI); the deserialized pipeline is fed with `feed_input`.  Operators whose
schema is not serializable (`python_function`) are refused with DALI's error.

Deserializing reads the same messages (`dali._pipeline.protobuf`: validated, never executing
anything), looks operators up by DALI schema name and records them as the user's calls would,
so every argument goes through the same validation as in a pipeline definition.
"""

from __future__ import annotations

from dali import _registry, _types
from dali._pipeline import protobuf as pb
from dali._schema import VECTOR_ELEMENT
from dali._types import DALIDataType as T

CPU_ONLY_DEVICE_ID = -99999          # DALI's device_id of a pipeline without a GPU

ARGUMENT = pb.Message("dali_proto.Argument")
ARGUMENT.define([
    (1, "name", "string", "required"),
    (2, "type", "string", "optional"),
    (3, "floats", "float", "repeated"),
    (4, "ints", "int64", "repeated"),
    (5, "strings", "string", "repeated"),
    (6, "bools", "bool", "repeated"),
    (7, "extra_args", ARGUMENT, "repeated"),
    (8, "is_vector", "bool", "optional"),
])
INPUT_OUTPUT = pb.Message("dali_proto.InputOutput", [
    (1, "name", "string", "required"),
    (2, "device", "string", "required"),
    (3, "is_argument_input", "bool", "required"),
    (4, "arg_name", "string", "optional"),
    (5, "dtype", "int64", "optional", -1),
    (6, "ndim", "int64", "optional", -1),
    (7, "layout", "string", "optional"),
])
OP_DEF = pb.Message("dali_proto.OpDef", [
    (1, "name", "string", "required"),
    (2, "input", INPUT_OUTPUT, "repeated"),
    (3, "output", INPUT_OUTPUT, "repeated"),
    (4, "args", ARGUMENT, "repeated"),
    (5, "inst_name", "string", "optional"),
    (6, "logical_id", "int64", "optional", -1),
])
PIPELINE_DEF = pb.Message("dali_proto.PipelineDef", [
    (1, "num_threads", "int64", "optional", -1),
    (2, "batch_size", "int64", "optional", -1),
    (5, "op", OP_DEF, "repeated"),
    (6, "external_inputs", "string", "repeated"),
    (7, "pipe_outputs", INPUT_OUTPUT, "repeated"),
    (8, "device_id", "int64", "optional", 0),
    (9, "seed", "int64", "optional", -1),
    (10, "enable_checkpointing", "bool", "optional"),
    (11, "executor_type", "int64", "optional", 0),
    (12, "executor_flags", "int64", "optional", 0),
    (13, "prefetch_queue_depth_cpu", "int64", "optional", 2),
    (14, "prefetch_queue_depth_gpu", "int64", "optional", 2),
    (15, "bytes_per_sample_hint", "int64", "optional", 0),
])

# executor_type bits
_ASYNC, _PIPELINED, _SEPARATED, _DYNAMIC = 1, 2, 4, 8
_ENUMS = (T.DATA_TYPE, T.IMAGE_TYPE, T.INTERP_TYPE)
_INTEGERS = (T.INT32, T.INT64, T.UINT8)
_ARG_KIND = {T.BOOL: "bool", T.FLOAT: "float", T.FLOAT64: "float", T.STRING: "string",
             T.TENSOR_LAYOUT: "string", **dict.fromkeys(_INTEGERS + _ENUMS, "int64")}
_FIELD = {"bool": "bools", "float": "floats", "string": "strings", "int64": "ints"}
_INTERNAL_ARGS = ("device", "_module", "_display_name", "preserve_name")


class SerializationError(RuntimeError):
    """A pipeline that cannot be written in DALI's format."""


# -- writing ----------------------------------------------------------------------------------
def _kind_of_value(value):
    """The Argument type of a value whose schema type says nothing (PYTHON_OBJECT)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, _types.DALIDataType)):
        return "int64"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    return None


def _argument(name, kind, value):
    if isinstance(value, (list, tuple)):
        return {"name": name, "type": kind, "is_vector": True,
                "extra_args": [_argument(f"element {i}", kind, v) for i, v in enumerate(value)]}
    value = int(value) if kind == "int64" else value
    return {"name": name, "type": kind, _FIELD[kind]: [value], "is_vector": False}


def _encoded_arg(node, name, value):
    arg_type = node.schema.arg_map[name].type
    kind = _ARG_KIND.get(VECTOR_ELEMENT.get(arg_type, arg_type))
    if kind is None:
        sample = value[0] if isinstance(value, (list, tuple)) and value else value
        kind = _kind_of_value(sample)
    if kind is None:
        raise SerializationError(
            f"Could not serialize the operator: `{node.schema.display_name}`: its argument "
            f"`{name}` holds a {type(value).__name__}, which has no encoding in DALI's format.")
    return _argument(name, kind, value)


def _origin_args(node):
    frames = node.origin or []
    return [
        _argument("_origin_stack_filename", "string", [f.filename for f in frames]),
        _argument("_origin_stack_lineno", "int64", [f.lineno or 0 for f in frames]),
        _argument("_origin_stack_name", "string", [f.name for f in frames]),
        _argument("_origin_stack_line", "string", [f.line or "" for f in frames]),
    ]


def _common_args(node, preserve_name):
    module = ".".join(["dali.fn", *node.schema.module])
    return [_argument("device", "string", node.device),
            _argument("_module", "string", module),
            _argument("_display_name", "string", node.schema.fn_name),
            _argument("preserve_name", "bool", preserve_name)]


def _io(edge):
    return {"name": edge.name, "device": edge.device, "is_argument_input": False}


def _op_defs(node):
    """The OpDefs of one node: one, or one per output of a multi-output external_source."""
    schema = node.schema
    if not schema.serializable:
        raise SerializationError(
            f"Could not serialize the operator: `{schema.display_name}`.")
    inputs = [_io(e) for e in node.inputs]
    inputs += [{"name": e.name, "device": e.device, "is_argument_input": True,
                "arg_name": k} for k, e in sorted(node.arg_inputs.items())]
    args = {k: v for k, v in node.args.items()
            if not schema.arg_map[k].python_only and v is not None}
    if schema.name == "external_source" and node.args.get("num_outputs") is not None:
        return [_external_source_def(node, args, i) for i in range(len(node.outputs))]
    # an operator whose arguments DALI's format spells its own way encodes them itself
    # (`serialized_args(args) -> {name: Argument dict}`, replacing those arguments)
    custom = getattr(node.impl, "serialized_args", None)
    encoded = custom(args) if custom is not None else {}
    return [{
        "name": schema.dali_schema_name, "input": inputs,
        "output": [_io(o) for o in node.outputs],
        "args": _common_args(node, not node.auto_named)
        + [_encoded_arg(node, k, v) for k, v in args.items() if k not in encoded]
        + list(encoded.values()) + _origin_args(node),
        "inst_name": node.name, "logical_id": node.relation_id}]


def _external_source_def(node, args, i):
    """Output `i` of a multi-output external_source as its own ExternalSource."""
    out = node.outputs[i]
    per_output = {k: (v[i] if isinstance(v, (list, tuple)) else v) for k, v in args.items()}
    return {"name": node.schema.dali_schema_name, "input": [],
            "output": [_io(out)],
            "args": _common_args(node, True)
            + [_encoded_arg(node, k, v) for k, v in per_output.items()] + _origin_args(node),
            "inst_name": out.name, "logical_id": node.relation_id}


def serialize(pipe, g, outputs, seed):
    """The PipelineDef bytes of `pipe` with graph `g` and its `outputs` (DataNodes); `seed` is
    the pipeline seed when the user gave one, else None."""
    executor_type = ((_ASYNC if pipe.exec_async else 0)
                     | (_PIPELINED if pipe.exec_pipelined else 0)
                     | (_SEPARATED if pipe.exec_separated else 0)
                     | (_DYNAMIC if pipe.exec_dynamic else 0))
    dtypes, ndims, layouts = pipe._output_descs(len(outputs))
    msg = {
        "num_threads": pipe.num_threads if pipe.num_threads is not None else -1,
        "batch_size": pipe.max_batch_size,
        "op": [d for n in g.nodes for d in _op_defs(n)],
        "pipe_outputs": [
            {**_io(o), "dtype": int(dt) if dt is not None else -1,
             "ndim": nd if nd is not None else -1, "layout": lay}
            for o, dt, nd, lay in zip(outputs, dtypes, ndims, layouts, strict=True)],
        "device_id": CPU_ONLY_DEVICE_ID if pipe.device_id is None else pipe.device_id,
        "seed": seed,
        "enable_checkpointing": pipe.enable_checkpointing,
        "executor_type": executor_type,
        "executor_flags": 4,
        "prefetch_queue_depth_cpu": pipe.cpu_queue_size,
        "prefetch_queue_depth_gpu": pipe.gpu_queue_size,
        "bytes_per_sample_hint": pipe._bytes_per_sample,
    }
    return pb.encode(PIPELINE_DEF, msg)


# -- reading ----------------------------------------------------------------------------------
def parse(data):
    """The PipelineDef dict of `data`; a ValueError saying what is wrong for anything else."""
    try:
        return pb.decode(PIPELINE_DEF, data)
    except pb.DecodeError as e:
        raise ValueError(f"Not a serialized DALI pipeline (dali_proto.PipelineDef): {e}") \
            from None


def pipeline_params(msg):
    """Pipeline constructor arguments stored in a PipelineDef (DALI's deserialized pipeline
    runs synchronously unless the caller says otherwise)."""
    params = {"batch_size": msg["batch_size"] if msg["batch_size"] > 0 else None,
              "num_threads": msg["num_threads"] if msg["num_threads"] > 0 else None,
              "device_id": None if msg["device_id"] == CPU_ONLY_DEVICE_ID
              or msg["device_id"] < 0 else msg["device_id"],
              "seed": msg["seed"] if msg["seed"] >= 0 else None,
              "enable_checkpointing": msg["enable_checkpointing"],
              "bytes_per_sample": msg["bytes_per_sample_hint"],
              "exec_pipelined": False, "exec_async": False}
    cpu, gpu = msg["prefetch_queue_depth_cpu"], msg["prefetch_queue_depth_gpu"]
    params["prefetch_queue_depth"] = cpu if cpu == gpu else {"cpu_size": cpu, "gpu_size": gpu}
    return params


def _value(arg, depth=0):
    """The Python value of an Argument dict."""
    if arg["is_vector"]:
        if depth:
            raise ValueError(f"argument {arg['name']!r}: a vector inside a vector")
        return [_value(e, depth + 1) for e in arg["extra_args"]]
    field = _FIELD.get(arg["type"])
    if field is None:
        raise ValueError(f"argument {arg['name']!r} has the unknown type {arg['type']!r}")
    values = arg[field]
    if len(values) != 1:
        raise ValueError(f"argument {arg['name']!r} has {len(values)} values, expected one")
    return values[0]


def _impls_by_schema_name():
    return {impl.schema.dali_schema_name: impl for impl in _registry.all_operators().values()}


def record_ops(msg):
    """Record the operators of PipelineDef `msg` in the current pipeline (call inside
    `with pipe:`); returns the pipeline outputs as DataNodes."""
    from dali import _operator

    impls = _impls_by_schema_name()
    tensors = {}
    relations = {}
    for op in msg["op"]:
        impl = impls.get(op["name"])
        if impl is None:
            raise NotImplementedError(
                f"The serialized pipeline uses the operator {op['name']!r}, which dali does "
                "not implement yet (docs/operators.md lists the operators dali has).")
        schema = impl.schema
        kwargs = {}
        device = "cpu"
        # the counterpart of `serialized_args`: `from_dali_args(kwargs)` gets the Argument
        # dicts of the arguments named in `dali_args_raw` and returns the call's arguments
        raw = getattr(impl, "dali_args_raw", ())
        for arg in op["args"]:
            name = arg["name"]
            if name == "device":
                device = _value(arg)
            elif name.startswith("_") or name in _INTERNAL_ARGS:
                continue
            else:
                kwargs[name] = arg if name in raw else _value(arg)
        if raw:
            kwargs = impl.from_dali_args(kwargs)
        inputs = []
        for io in op["input"]:
            if io["name"] not in tensors:
                raise ValueError(f"operator {op['inst_name']!r} reads {io['name']!r}, which no "
                                 "earlier operator produces")
            if io["is_argument_input"]:
                kwargs[io["arg_name"]] = tensors[io["name"]]
            else:
                inputs.append(_on(tensors[io["name"]], io["device"]))
        if schema.name == "external_source" and "dtype" in kwargs:
            kwargs["dtype"] = T(kwargs["dtype"])
        out = _operator.call(impl, inputs, {**kwargs, "device": device,
                                            "name": op["inst_name"] or None})
        if isinstance(out, dict):                 # outputs by name (Operator.output_names)
            out = list(out.values())
        outs = out if isinstance(out, list) else ([] if out is None else [out])
        if len(outs) != len(op["output"]):
            raise ValueError(f"operator {op['inst_name']!r} ({op['name']}) has {len(outs)} "
                             f"outputs here, {len(op['output'])} in the serialized pipeline")
        for io, node in zip(op["output"], outs, strict=True):
            tensors[io["name"]] = node
        if outs and op["logical_id"] >= 0:
            source = outs[0].source
            source.relation_id = relations.setdefault(op["logical_id"], source.relation_id)
    missing = [io["name"] for io in msg["pipe_outputs"] if io["name"] not in tensors]
    if missing:
        raise ValueError(f"the pipeline outputs {missing} are produced by no operator")
    return [_on(tensors[io["name"]], io["device"]) for io in msg["pipe_outputs"]]


def _on(node, device):
    """`node` where the serialized edge has it (`.gpu()` / `.cpu()` are recorded as the
    device of the edge that reads it)."""
    if not device or node.device == device:
        return node
    return node.gpu() if device == "gpu" else node.cpu()


def output_descs(msg):
    """(output_dtype, output_ndim, output_layout) stored with the outputs, None where unset."""
    outs = msg["pipe_outputs"]
    dtypes = [T(io["dtype"]) if io["dtype"] >= 0 else None for io in outs]
    ndims = [io["ndim"] if io["ndim"] >= 0 else None for io in outs]
    layouts = [io["layout"] or None for io in outs]
    return tuple(v if any(x is not None for x in v) else None
                 for v in (dtypes, ndims, layouts))
