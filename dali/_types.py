"""Data types, enums and the arithmetic type-promotion rules of DALI 2.4.

The bottom layer of the package: it imports nothing from `dali`.  The public module `dali.types`
re-exports it together with `Constant`, which needs the operator layer.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

import numpy as np


class _Enum(enum.IntEnum):
    """An enum printed as DALI prints its enums: "DALIDataType.UINT8"."""

    def __str__(self):
        return f"{type(self).__name__}.{self.name}"


class DALIDataType(_Enum):
    """Element and argument types, with the numeric values real DALI uses."""

    NO_TYPE = -1
    UINT8 = 0
    UINT16 = 1
    UINT32 = 2
    UINT64 = 3
    INT8 = 4
    INT16 = 5
    INT32 = 6
    INT64 = 7
    FLOAT16 = 8
    FLOAT = 9
    FLOAT64 = 10
    BOOL = 11
    STRING = 12
    _BOOL_VEC = 13
    _INT32_VEC = 14
    _STRING_VEC = 15
    _FLOAT_VEC = 16
    FEATURE = 17
    _FEATURE_VEC = 18
    _FEATURE_DICT = 19
    IMAGE_TYPE = 20
    DATA_TYPE = 21
    INTERP_TYPE = 22
    TENSOR_LAYOUT = 23
    PYTHON_OBJECT = 24
    _TENSOR_LAYOUT_VEC = 25
    _DATA_TYPE_VEC = 26
    _INT64_VEC = 27


class DALIImageType(_Enum):
    """Color space of decoded images."""

    RGB = 0
    BGR = 1
    GRAY = 2
    YCbCr = 3
    ANY_DATA = 4


class DALIInterpType(_Enum):
    """Interpolation methods of the geometric operators."""

    INTERP_NN = 0
    INTERP_LINEAR = 1
    INTERP_CUBIC = 2
    INTERP_LANCZOS3 = 3
    INTERP_TRIANGULAR = 4
    INTERP_GAUSSIAN = 5


class PipelineAPIType(enum.IntEnum):
    """Which scheduling API a pipeline is driven with; they cannot be mixed."""

    BASIC = 0
    ITERATOR = 1
    SCHEDULED = 2


class TensorLayout(str):
    """A layout string such as "HWC"; one character per dimension, batch dimension excluded."""

    def __repr__(self):
        return f'TensorLayout("{self}")'


NHWC = "HWC"
NCHW = "CHW"
NFHWC = "FHWC"
NFCHW = "FCHW"
SAME = ""

CPU_ONLY_DEVICE_ID = -99999


class SampleInfo(NamedTuple):
    """What a per-sample external source callback receives."""

    idx_in_epoch: int
    idx_in_batch: int
    iteration: int
    epoch_idx: int


class BatchInfo(NamedTuple):
    """What a per-batch external source callback receives with `batch_info=True`."""

    iteration: int
    epoch_idx: int


_TO_NUMPY = {
    DALIDataType.UINT8: np.uint8,
    DALIDataType.UINT16: np.uint16,
    DALIDataType.UINT32: np.uint32,
    DALIDataType.UINT64: np.uint64,
    DALIDataType.INT8: np.int8,
    DALIDataType.INT16: np.int16,
    DALIDataType.INT32: np.int32,
    DALIDataType.INT64: np.int64,
    DALIDataType.FLOAT16: np.float16,
    DALIDataType.FLOAT: np.float32,
    DALIDataType.FLOAT64: np.float64,
    DALIDataType.BOOL: np.bool_,
}
_FROM_NUMPY = {np.dtype(v): k for k, v in _TO_NUMPY.items()}

_TYPE_NAMES = {
    "uint8": DALIDataType.UINT8, "uint16": DALIDataType.UINT16,
    "uint32": DALIDataType.UINT32, "uint64": DALIDataType.UINT64,
    "int8": DALIDataType.INT8, "int16": DALIDataType.INT16,
    "int32": DALIDataType.INT32, "int64": DALIDataType.INT64,
    "float16": DALIDataType.FLOAT16, "float32": DALIDataType.FLOAT,
    "float64": DALIDataType.FLOAT64, "bool": DALIDataType.BOOL,
    "half": DALIDataType.FLOAT16, "float": DALIDataType.FLOAT,
    "double": DALIDataType.FLOAT64, "long": DALIDataType.INT64,
    "int": DALIDataType.INT32, "short": DALIDataType.INT16,
    "char": DALIDataType.INT8, "uchar": DALIDataType.UINT8, "bool_": DALIDataType.BOOL,
}


def to_numpy_type(dali_type) -> type:
    """The numpy scalar type of a numeric DALIDataType."""
    try:
        return _TO_NUMPY[DALIDataType(dali_type)]
    except (KeyError, ValueError):
        raise TypeError(f"data type {dali_type} does not have a numpy equivalent") from None


def to_dali_type(framework_type) -> DALIDataType:
    """DALIDataType of a numpy dtype, a numpy/torch type or a type name ("half",
    "torch.float32")."""
    if isinstance(framework_type, DALIDataType):
        return framework_type
    if isinstance(framework_type, str):
        name = framework_type
    else:
        try:
            return _FROM_NUMPY[np.dtype(framework_type)]
        except (TypeError, KeyError):
            name = str(framework_type)
    name = name.removeprefix("torch.").removeprefix("numpy.")
    if name in _TYPE_NAMES:
        return _TYPE_NAMES[name]
    raise TypeError(f"'{framework_type}' could not be converted into any known DALIDataType")


def dtype_of(dali_type) -> np.dtype:
    """numpy dtype of a numeric DALIDataType (a numpy dtype passes through)."""
    if isinstance(dali_type, np.dtype):
        return dali_type
    if isinstance(dali_type, type) and issubclass(dali_type, np.generic):
        return np.dtype(dali_type)
    return np.dtype(to_numpy_type(dali_type))


def dali_type_of(dtype) -> DALIDataType:
    """DALIDataType of a numpy dtype."""
    try:
        return _FROM_NUMPY[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"numpy type {dtype} has no DALI equivalent") from None


# ---------------------------------------------------------------------------------------------
# Arithmetic type promotion (DALI's table, not numpy's)
#
# Same types keep their type.  A float operand wins over an integer one; two floats give the
# wider.  Two signed or two unsigned integers give the wider.  Signed intX with unsigned uintY
# gives intX when X > Y, else the signed type twice as wide as Y, capped at int64.  bool behaves
# as a 1-bit unsigned integer.  Python scalars are not weak: int is INT32, float is FLOAT.
# ---------------------------------------------------------------------------------------------

_BITS = {
    DALIDataType.BOOL: 1,
    DALIDataType.UINT8: 8, DALIDataType.UINT16: 16, DALIDataType.UINT32: 32,
    DALIDataType.UINT64: 64,
    DALIDataType.INT8: 8, DALIDataType.INT16: 16, DALIDataType.INT32: 32, DALIDataType.INT64: 64,
    DALIDataType.FLOAT16: 16, DALIDataType.FLOAT: 32, DALIDataType.FLOAT64: 64,
}
_FLOATS = (DALIDataType.FLOAT16, DALIDataType.FLOAT, DALIDataType.FLOAT64)
_SIGNED = {8: DALIDataType.INT8, 16: DALIDataType.INT16, 32: DALIDataType.INT32,
           64: DALIDataType.INT64}


def is_float(t) -> bool:
    return t in _FLOATS


def is_integer(t) -> bool:
    return t in _BITS and t not in _FLOATS and t != DALIDataType.BOOL


def is_signed(t) -> bool:
    return t in _SIGNED.values() or t in _FLOATS


def is_numeric(t) -> bool:
    return t in _BITS


def promote(a: DALIDataType, b: DALIDataType) -> DALIDataType:
    """Result type of a binary arithmetic operation on `a` and `b` (DALI's rules)."""
    a, b = DALIDataType(a), DALIDataType(b)
    if a == b:
        return a
    if is_float(a) or is_float(b):
        if is_float(a) and is_float(b):
            return a if _BITS[a] >= _BITS[b] else b
        return a if is_float(a) else b
    if is_signed(a) == is_signed(b):
        return a if _BITS[a] >= _BITS[b] else b
    signed, unsigned = (a, b) if is_signed(a) else (b, a)
    if _BITS[signed] > _BITS[unsigned]:
        return signed
    return _SIGNED[min(64, max(8, 2 * _BITS[unsigned]))]


def scalar_type(value) -> DALIDataType:
    """DALI type of a Python or numpy scalar used as an arithmetic operand."""
    if isinstance(value, (bool, np.bool_)):
        return DALIDataType.BOOL
    if isinstance(value, np.generic):
        return dali_type_of(value.dtype)
    if isinstance(value, int):
        return DALIDataType.INT32
    if isinstance(value, float):
        return DALIDataType.FLOAT
    raise TypeError(f"expected a numeric scalar, got {type(value).__name__}")


def type_name(t: DALIDataType) -> str:
    """DALI's name of a type in messages ("uint8", "float", "double", "float16")."""
    special = {DALIDataType.FLOAT: "float", DALIDataType.FLOAT64: "double"}
    if t in special:
        return special[t]
    return np.dtype(to_numpy_type(t)).name if is_numeric(t) else str(t)
