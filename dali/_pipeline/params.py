"""Validation of the Pipeline constructor's arguments.

DALI 2.4 checks most of its constructor arguments only when the pipeline is built, in C++, and
a wrong type then surfaces as pybind11's "incompatible constructor arguments" listing every
parameter.  Here every argument is checked when the pipeline is constructed: a wrong type is a
TypeError naming the argument, a wrong value a ValueError (with DALI's message where DALI has
one).  `batch_size` and `num_threads` may still be None at construction (DALI allows that for
pipelines that are only serialized); `build()` then says they are missing.
"""

from __future__ import annotations

import enum
import numbers
import warnings

import numpy as np

from dali import _types


class StreamPolicy(enum.Enum):
    """How GPU operators share CUDA streams (accepted; dali runs on the CPU)."""

    SINGLE = 16
    PER_BACKEND = 32
    PER_OPERATOR = 48
    UNSPECIFIED = 0


class OperatorConcurrency(enum.Enum):
    """Which operators may run concurrently (accepted; dali's executor decides)."""

    NONE = 2
    BACKEND = 4
    FULL = 6
    UNSPECIFIED = 0


def _is_int(v):
    """An integer (Python or NumPy), not a bool: what DALI's `SupportsIndex` takes."""
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


def _int(name, value, minimum, what):
    """`value` must be an int (not a bool) >= `minimum`; returns it."""
    if not _is_int(value):
        raise TypeError(f"`{name}` must be {what}. Found type: {type(value)}.")
    if value < minimum:
        raise ValueError(f"`{name}` must be {what}. Found value: {value}.")
    return int(value)


def _bool(name, value):
    if not isinstance(value, bool):
        raise TypeError(f"`{name}` must be a bool. Found type: {type(value)}.")
    return value


def batch_size(value):
    if value is None:
        return None
    if not _is_int(value):
        raise TypeError(f"`batch_size` must be a positive int. Found type: {type(value)}.")
    if value < 1:
        raise ValueError(f"Invalid batch size: {value}. Please set a positive integer.")
    return int(value)


def num_threads(value):
    if value is None:
        return None
    if not _is_int(value):
        raise TypeError(f"`num_threads` must be a positive int. Found type: {type(value)}.")
    if value < 1:
        raise ValueError("Pipeline created with `num_threads` < 1 can only be used for "
                         "serialization.")
    return int(value)


def device_id(value):
    if value is None:
        return None
    return _int("device_id", value, 0, "a non-negative int (a CUDA device) or None")


def seed(value):
    if value is None:
        return None
    if not _is_int(value):
        raise TypeError(f"`seed` must be an int or None. Found type: {type(value)}.")
    if value < 0:
        warnings.warn("The use of negative seed to use automatic seed asignment is "
                      "deprecated. Use `None` instead.", UserWarning, stacklevel=3)
        return None
    if value >= 2 ** 64:
        raise ValueError(f"`seed` must be less than 2**64. Found value: {value}.")
    return int(value)


def prefetch_queue_depth(value):
    """(separated, cpu size, gpu size)."""
    if isinstance(value, dict):
        sizes = []
        for key in ("cpu_size", "gpu_size"):
            if key not in value:
                raise KeyError(key)
            v = value[key]
            if not _is_int(v):
                raise TypeError(f"prefetch_queue_depth[\"{key}\"] must be an int. "
                                f"Found type: {type(v)}.")
            sizes.append(int(v))
        separated = True
    elif _is_int(value):
        sizes = [int(value), int(value)]
        separated = False
    else:
        raise TypeError("Expected prefetch_queue_depth to be either int or Dict[int, int]")
    if min(sizes) < 1:
        raise ValueError("The prefetch queue depth must be greater than 0.")
    return separated, sizes[0], sizes[1]


def flags(**values):
    """The boolean arguments (exec_pipelined, exec_async, ...); None passes."""
    for name, v in values.items():
        if v is not None:
            _bool(name, v)


def bytes_per_sample(value):
    return _int("bytes_per_sample", value, 0, "a non-negative int")


def deprecated(max_streams, default_cuda_stream_priority):
    for name, v in (("max_streams", max_streams),
                    ("default_cuda_stream_priority", default_cuda_stream_priority)):
        if v is not None:
            warnings.warn(f"The `{name}` is deprecated and has no effect.", Warning,
                          stacklevel=3)


def py_workers(num_workers, start_method):
    _int("py_num_workers", num_workers, 0, "a non-negative int")
    if start_method not in ("fork", "spawn"):
        raise ValueError(f"`py_start_method` must be \"fork\" or \"spawn\". Found value: "
                         f"{start_method!r}.")


def executor_enum(name, value, cls):
    if value is not None and not isinstance(value, cls):
        raise TypeError(f"`{name}` must be a value of dali.pipeline.{cls.__name__} or None. "
                        f"Found type: {type(value)}.")


def output_dtype(value):
    """DALI's checks, with DALI's messages."""
    if value is None:
        return None
    head = ("`output_dtype` must be either: a value from nvidia.dali.types.DALIDataType, a list "
            "of these or None.")
    if isinstance(value, list):
        for v in value:
            if v is not None and not isinstance(v, _types.DALIDataType):
                raise TypeError(f"{head} Found type {type(v)} in the list.")
            if v == _types.DALIDataType.NO_TYPE:
                raise ValueError(f"`output_dtype` can't be a types.NO_TYPE. Found {v} in the "
                                 "list.")
        return value
    if not isinstance(value, _types.DALIDataType):
        raise TypeError(f"{head} Found type: {type(value)}.")
    if value == _types.DALIDataType.NO_TYPE:
        raise ValueError(f"`output_dtype` can't be a types.NO_TYPE. Found value: {value}")
    return value


def output_ndim(value):
    if value is None:
        return None
    head = "`output_ndim` must be either: an int, a list of ints or None."
    if isinstance(value, list):
        for v in value:
            if v is not None and not _is_int(v):
                raise TypeError(f"{head} Found type {type(v)} in the list.")
            if v is not None and v < 0:
                raise ValueError(f"`output_ndim` must be non-negative. Found value {v} in the "
                                 "list.")
        return value
    if not _is_int(value):
        raise TypeError(f"{head} Found type: {type(value)}.")
    if value < 0:
        raise ValueError(f"`output_ndim` must be non-negative. Found value: {value}.")
    return value


def output_layout(value):
    if value is None or isinstance(value, str):
        return value
    head = "`output_layout` must be either: a string, a list of strings or None."
    if isinstance(value, list):
        for v in value:
            if v is not None and not isinstance(v, str):
                raise TypeError(f"{head} Found type {type(v)} in the list.")
        return value
    raise TypeError(f"{head} Found type: {type(value)}.")
