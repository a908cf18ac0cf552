"""fn.cast and fn.cast_like: element type conversion with DALI's rounding and saturation.

Rules (measured on DALI 2.4):

- float -> integer rounds half away from zero and saturates (infinities too); NaN becomes 0,
  except for int32/int64 (their minimum) and uint64 (2**63), what x86 conversions produce;
- integer -> integer saturates;
- float -> bool is `round(x) != 0` (so 0.4 is False, 0.5 True, NaN True); integer -> bool is
  `x != 0`; bool -> anything is 0/1;
- conversions to a floating type round to nearest (overflow gives inf), like numpy.

Samples are converted as one flat array when the batch is stored back to back.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T

# NaN converted to these integer types gives what DALI's CPU conversion gives.
_NAN_AS = {np.dtype(np.int32): np.iinfo(np.int32).min, np.dtype(np.int64): np.iinfo(np.int64).min,
           np.dtype(np.uint64): 2 ** 63}


def round_half_away(x):
    """Round floats to the nearest integer value, halves away from zero (exactly)."""
    t = np.trunc(x)
    return t + np.copysign((np.abs(x - t) >= 0.5).astype(x.dtype), x)


def convert(x, dtype):
    """`x` converted to `dtype` with DALI's rules (see the module docstring)."""
    x = np.asarray(x)
    dtype = np.dtype(dtype)
    src = x.dtype
    if dtype == src:
        return x.copy()
    if dtype == np.bool_:
        if src.kind == "f":
            return (np.abs(x) >= 0.5) | np.isnan(x)
        return x != 0
    if dtype.kind == "f" or src == np.bool_:
        with np.errstate(over="ignore"):
            return x.astype(dtype)
    info = np.iinfo(dtype)
    if src.kind == "f":
        return _float_to_int(x, dtype, info)
    src_info = np.iinfo(src)
    lo, hi = max(info.min, src_info.min), min(info.max, src_info.max)
    return np.clip(x, src.type(lo), src.type(hi)).astype(dtype)


def _float_to_int(x, dtype, info):
    with np.errstate(invalid="ignore", over="ignore"):
        return _float_to_int_unchecked(x, dtype, info)


def _float_to_int_unchecked(x, dtype, info):
    v = round_half_away(x.astype(np.float64) if x.dtype.itemsize < 8 else x)
    nan = np.isnan(v)
    top = v >= float(info.max)          # float(max) rounds up for 64-bit types
    low = v <= float(info.min)
    safe = np.where(nan | top | low, 0, v)
    out = safe.astype(dtype)
    out[top] = info.max
    out[low] = info.min
    if nan.any():
        out[nan] = _NAN_AS.get(dtype, 0)
    return out


def flat(storage):
    """The whole batch as one 1-D array when its samples lie back to back, else None."""
    if not storage.is_contiguous or storage.num_samples == 0:
        return None
    sizes = np.prod(storage.shapes, axis=1, dtype=np.int64)
    ends = storage.offsets + sizes * storage.dtype.itemsize
    if (storage.offsets[1:] != ends[:-1]).any():
        return None
    return np.frombuffer(storage.base, dtype=storage.dtype, count=int(sizes.sum()),
                         offset=int(storage.offsets[0]))


def convert_batch(ws, dtype):
    """Fill output 0 with input 0 converted to `dtype`."""
    src, dst = flat(ws.input_storage(0)), flat(ws.outputs[0])
    if src is not None and dst is not None:
        dst[...] = convert(src, dtype)
        return
    for s, d in zip(ws.input_samples(0), ws.output_samples(0), strict=True):
        d[...] = convert(s, dtype)


def _check_numeric(op, dtype, what):
    if not _types.is_numeric(dtype):
        raise op.error(f"Invalid {what} type {dtype}: a numeric type or BOOL is needed.",
                       TypeError)


@_registry.register
class Cast(_operator.Operator):
    schema = Schema(
        "cast", inputs=1, outputs=1, devices=("cpu",),
        doc="Converts the data to `dtype`.\n\n"
            "Floating-point values become integers by rounding half away from zero and "
            "saturating at the target type's limits; integers saturate too.",
        args=[Arg("dtype", T.DATA_TYPE, REQUIRED, doc="Output data type.")])

    def infer(self, ws):
        tl = ws.inputs[0]
        dtype = T(self.args["dtype"])
        _check_numeric(self, dtype, "output")
        return _operator.Plan([_operator.OutputDesc(tl.shape(), _types.dtype_of(dtype), tl.layout(),
                                     tl.ndim())])

    def run_cpu(self, ws, plan):
        convert_batch(ws, ws.outputs[0].dtype)


@_registry.register
class CastLike(_operator.Operator):
    schema = Schema(
        "cast_like", inputs=2, outputs=1, devices=("cpu",),
        doc="Converts the first input to the type of the second (whose data is not used), "
            "with the rounding and saturation of `cast`.")

    def infer(self, ws):
        tl = ws.inputs[0]
        dtype = ws.input_dtype(1)
        return _operator.Plan([_operator.OutputDesc(tl.shape(), dtype, tl.layout(), tl.ndim())])

    def run_cpu(self, ws, plan):
        convert_batch(ws, ws.outputs[0].dtype)
