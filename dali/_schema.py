"""Operator schemas: the one declaration per operator that everything else is generated from.

A `Schema` names the operator (its `fn` path such as "readers.file"; the `ops` class name and
DALI's internal schema name derive from it), its inputs, outputs and devices, and its arguments
(`Arg`: type, default, whether it accepts per-sample tensor inputs, doc).  `dali.fn.*`
functions, `dali.ops.*` classes, their signatures and docstrings, argument validation and the
operator reference in docs/ are all produced from schemas.
"""

from __future__ import annotations

import difflib
import inspect
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dali import _types
from dali._types import DALIDataType as T


class _Required:
    def __repr__(self):
        return "<required>"


REQUIRED = _Required()
"""Default of an argument the user must give."""

SCALAR_TYPES = {T.BOOL, T.INT32, T.INT64, T.FLOAT, T.FLOAT64, T.STRING, T.DATA_TYPE, T.IMAGE_TYPE,
                T.INTERP_TYPE, T.TENSOR_LAYOUT, T.PYTHON_OBJECT, T.UINT8}
VECTOR_ELEMENT = {T._INT32_VEC: T.INT32, T._INT64_VEC: T.INT64, T._FLOAT_VEC: T.FLOAT,
                  T._BOOL_VEC: T.BOOL, T._STRING_VEC: T.STRING,
                  T._TENSOR_LAYOUT_VEC: T.TENSOR_LAYOUT, T._DATA_TYPE_VEC: T.DATA_TYPE}
_TYPE_DOC = {T.BOOL: "bool", T.INT32: "int", T.INT64: "int", T.FLOAT: "float",
             T.FLOAT64: "float", T.STRING: "str", T.DATA_TYPE: "dali.types.DALIDataType",
             T.IMAGE_TYPE: "dali.types.DALIImageType",
             T.INTERP_TYPE: "dali.types.DALIInterpType", T.TENSOR_LAYOUT: "layout str",
             T.PYTHON_OBJECT: "object", T.UINT8: "DALIDataType"}


@dataclass
class Arg:
    """One operator argument.

    Parameters
    ----------
    name : str
    type : DALIDataType
        Scalar types (FLOAT, INT32, BOOL, STRING, DATA_TYPE, ...) or vector ones (_FLOAT_VEC ...).
    default : Any
        `REQUIRED`, None (optional, no default), or the default value.
    tensor : bool
        Accepts a per-sample argument input (a DataNode) as well as a constant.
    doc : str
    implemented : bool
        False for an argument real DALI has that we accept but do not support yet: giving it a
        value other than the default raises NotImplementedError naming it.
    deprecated : str
        Non-empty for a deprecated argument: the warning text.
    alias_of : str
        The argument this one is a deprecated alias of (`output_dtype` of `dtype`): giving it
        warns, giving both raises DALI's TypeError, and the value reaches the operator under
        the new name only.
    ignored : str
        Non-empty for an argument real DALI has that is accepted and has no effect here: why
        (listed in docs/operators.md and docs/differences.md).
    python_only : bool
        An argument DALI's Python wrapper takes and its C++ schema does not (external_source's
        `source`): not written by `Pipeline.serialize`.
    """

    name: str
    type: T
    default: Any = None
    tensor: bool = False
    doc: str = ""
    implemented: bool = True
    deprecated: str = ""
    alias_of: str = ""
    ignored: str = ""
    python_only: bool = False

    def __post_init__(self):
        if self.alias_of and not self.deprecated:
            self.deprecated = (f"The argument `{self.name}` is a deprecated alias for "
                               f"`{self.alias_of}`. Use `{self.alias_of}` instead.")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def is_vector(self) -> bool:
        return self.type in VECTOR_ELEMENT

    def type_doc(self) -> str:
        if self.is_vector:
            base = _TYPE_DOC[VECTOR_ELEMENT[self.type]]
            text = f"{base} or list of {base}"
        else:
            text = _TYPE_DOC.get(self.type, str(self.type))
        if self.tensor:
            text += f" or TensorList of {_TYPE_DOC.get(VECTOR_ELEMENT.get(self.type, self.type))}"
        return text

    def convert(self, value, op_name: str):
        """Check and convert a constant value given by the user (definition time)."""
        try:
            if self.is_vector:
                elem = VECTOR_ELEMENT[self.type]
                if isinstance(value, np.ndarray):
                    value = value.reshape(-1).tolist()
                if not isinstance(value, (list, tuple)):
                    value = [value]
                return [_convert_scalar(elem, v) for v in value]
            return _convert_scalar(self.type, value)
        except (TypeError, ValueError) as e:
            raise type(e)(
                f"Invalid value {value!r} for argument '{self.name}' of operator "
                f"'{op_name}' (expected {self.type_doc()}): {e}") from None


def _convert_scalar(t: T, v):
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v.item()
    if t == T.FLOAT or t == T.FLOAT64:
        if isinstance(v, str):
            raise ValueError(f"could not convert string to float: '{v}'")
        return float(v)
    if t in (T.INT32, T.INT64, T.UINT8):
        if isinstance(v, str):
            raise ValueError(f"invalid literal for int() with base 10: '{v}'")
        return int(v)
    if t == T.BOOL:
        if isinstance(v, str):
            raise TypeError(f"expected a bool, got the string '{v}'")
        return bool(v)
    if t == T.STRING:
        if isinstance(v, bool):              # DALI passes a bool on as "True" / "False"
            return str(v)
        if not isinstance(v, (str, bytes)):
            raise TypeError(f"expected a string, got {type(v).__name__}")
        return v if isinstance(v, str) else v.decode()
    if t == T.TENSOR_LAYOUT:
        if not isinstance(v, str):
            raise TypeError(f"expected a layout string, got {type(v).__name__}")
        return str(v)
    if t == T.DATA_TYPE:
        if isinstance(v, T):
            return v
        if isinstance(v, int) and not isinstance(v, bool):
            return T(v)
        return _types.to_dali_type(v)
    if t == T.IMAGE_TYPE:
        return _types.DALIImageType(v)
    if t == T.INTERP_TYPE:
        return _types.DALIInterpType(v)
    return v


COMMON_ARGS = [
    Arg("bytes_per_sample_hint", T._INT32_VEC, [0],
        doc="Output size hint, in bytes per sample; presizes the output buffers."),
    Arg("preserve", T.BOOL, False,
        doc="Keep the operator in the graph even if its outputs are not used."),
]
SEED_ARG = Arg("seed", T.INT32, -1,
               doc="Random seed; -1 derives one from the pipeline seed.")


@dataclass
class Schema:
    """Declaration of one operator.

    Parameters
    ----------
    name : str
        Path under `dali.fn`, e.g. "resize" or "readers.file".
    inputs : int or (int, int)
        Number of positional inputs, or its (min, max); max -1 means unbounded.
    outputs : int or callable(args) -> int or callable(args, num_inputs) -> int
    devices : tuple of str
        Backends: "cpu", "gpu", "mixed".
    args : list of Arg
    doc : str
    class_name : str, optional
        The `dali.ops` class name when the CamelCase of the last name part is not it.
    input_names : list of str, optional
        Names of the positional inputs in signatures and docs.
    positional_args : tuple of str
        Arguments that may also be given positionally after the inputs
        (`fn.external_source(source, num_outputs)`).
    same_batch_inputs : bool
        Whether all inputs must have the same number of samples (False for merge).
    random : bool
        Adds the `seed` argument; the op gets a seed derived from the pipeline seed.
    internal : bool
        Hidden from `dali.fn`/`dali.ops` listings and docs (arithmetic, split/merge, ...).
    no_prune : bool
        Never pruned (e.g. ops with side effects).
    serializable : bool
        False for operators DALI refuses to serialize (python_function: it holds a Python
        callable).
    gpu_host_inputs : tuple of int
        Positional inputs the GPU backend reads on the host (DALI's CPU input device: shapes,
        anchors): the build does not move them to the GPU.
    cpu : bool
        False for an operator real DALI 2.4 has on the GPU only (`devices` then lists its
        DALI backends): calls are recorded whatever the device, as DALI records them, so
        graphs using it are defined and serialized; building one raises DALI's error for a
        backend the operator is not registered for.
    """

    name: str
    inputs: int | tuple[int, int] = 1
    outputs: int | Callable[..., int] = 1
    devices: tuple[str, ...] = ("cpu",)
    args: list[Arg] = field(default_factory=list)
    doc: str = ""
    class_name: str | None = None
    input_names: Sequence[str] | None = None
    random: bool = False
    internal: bool = False
    no_prune: bool = False
    serializable: bool = True
    extra_common: list[Arg] = field(default_factory=list)
    positional_args: tuple[str, ...] = ()
    same_batch_inputs: bool = True
    gpu_host_inputs: tuple[int, ...] = ()
    cpu: bool = True

    def __post_init__(self):
        parts = self.name.split(".")
        self.module: list[str] = parts[:-1]
        self.fn_name: str = parts[-1]
        if self.class_name is None:
            self.class_name = "".join(p[:1].upper() + p[1:] for p in self.fn_name.split("_"))
        if isinstance(self.inputs, int):
            self.min_inputs = self.max_inputs = self.inputs
        else:
            self.min_inputs, self.max_inputs = self.inputs
        own = {a.name for a in self.args}
        common = list(COMMON_ARGS) + list(self.extra_common) + ([SEED_ARG] if self.random else [])
        self.args = list(self.args) + [a for a in common if a.name not in own]
        self.arg_map: dict[str, Arg] = {a.name: a for a in self.args}

    # -- names --------------------------------------------------------------------------------
    @property
    def display_name(self) -> str:
        """How errors name the operator: `dali.fn.readers.file`."""
        return "dali.fn." + self.name

    @property
    def dali_schema_name(self) -> str:
        """DALI's internal schema name, e.g. "readers__File" (used by serialization)."""
        return "__".join([*self.module, self.class_name])

    # -- validation ---------------------------------------------------------------------------
    def check_arg_name(self, name: str):
        if name in self.arg_map:
            return
        close = difflib.get_close_matches(name, list(self.arg_map), n=1, cutoff=0.6)
        hint = f" Did you mean `{close[0]}`?" if close else ""
        valid = ", ".join(sorted(self.arg_map))
        raise KeyError(
            f'Argument "{name}" is not defined for operator "{self.class_name}" '
            f"({self.display_name}).{hint} Valid arguments: {valid}.")

    def resolve_aliases(self, kwargs: dict) -> dict:
        """`kwargs` with deprecated aliases renamed to their arguments (warning as DALI does);
        both an alias and its argument given is DALI's TypeError."""
        out = dict(kwargs)
        for k in kwargs:
            target = self.arg_map[k].alias_of
            if not target:
                continue
            if target in kwargs:
                raise TypeError(f"Operator `{self.display_name}` got an unexpected '{k}' "
                                f"deprecated argument when '{target}' was already provided")
            warnings.warn(self.arg_map[k].deprecated, DeprecationWarning, stacklevel=4)
            out[target] = out.pop(k)
        return out

    def num_outputs(self, args: dict, num_inputs: int | None = None) -> int:
        """The number of outputs; a callable `outputs` taking two parameters also gets the
        number of positional inputs (outputs that exist only with an optional input)."""
        if not callable(self.outputs):
            return self.outputs
        if len(inspect.signature(self.outputs).parameters) > 1:
            return self.outputs(args, num_inputs)
        return self.outputs(args)

    # -- generated signature and doc ----------------------------------------------------------
    def signature(self, with_self=False) -> inspect.Signature:
        P = inspect.Parameter
        params = [P("self", P.POSITIONAL_ONLY)] if with_self else []
        if self.max_inputs == -1:
            params.append(P("inputs", P.VAR_POSITIONAL))
        else:
            names = list(self.input_names or self._default_input_names())
            for i, n in enumerate(names):
                default = P.empty if i < self.min_inputs else None
                params.append(P(n, P.POSITIONAL_ONLY, default=default))
        for pname in self.positional_args:
            a = self.arg_map[pname]
            params.append(P(pname, P.POSITIONAL_OR_KEYWORD,
                            default=P.empty if a.required else a.default))
        params.append(P("device", P.KEYWORD_ONLY, default=None))
        params.append(P("name", P.KEYWORD_ONLY, default=None))
        for a in sorted(self.args, key=lambda a: a.name):
            if a.name in self.positional_args:
                continue
            default = P.empty if a.required else a.default
            params.append(P(a.name, P.KEYWORD_ONLY, default=default))
        return inspect.Signature(params)

    def _default_input_names(self):
        if self.max_inputs == 1:
            return ["input"]
        return [f"input_{i}" for i in range(self.max_inputs)]

    def docstring(self) -> str:
        lines = [self.doc.strip() or f"The {self.name} operator.", ""]
        lines += ["Supported backends", *[f" * '{d}'" for d in self.devices], ""]
        if self.max_inputs != 0:
            lines += ["Args", "----"]
            names = (["*inputs"] if self.max_inputs == -1
                     else list(self.input_names or self._default_input_names()))
            for n in names:
                lines += [f"{n} : TensorList", "    Input to the operator.", ""]
        lines += ["Keyword args", "------------"]
        for a in sorted(self.args, key=lambda a: a.name):
            if a.required:
                dflt = ""
            elif a.default is None:
                dflt = ", optional"
            else:
                dflt = f", optional, default = `{a.default!r}`"
            lines.append(f"{a.name} : {a.type_doc()}{dflt}")
            doc = a.doc or ""
            if a.alias_of:
                doc += f" (Deprecated alias of `{a.alias_of}`.)"
            if a.ignored:
                doc += f" (Accepted for compatibility; no effect here: {a.ignored}.)"
            if not a.implemented:
                doc += " (Accepted for compatibility; not implemented yet: a non-default value "
                doc += "raises NotImplementedError.)"
            for dl in doc.strip().splitlines():
                lines.append("    " + dl)
            lines.append("")
        return "\n".join(lines)
