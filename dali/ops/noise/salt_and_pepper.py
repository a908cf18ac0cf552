"""fn.noise.salt_and_pepper: each pixel (each element with `per_channel`) is replaced with
probability `prob`: by the salt value with probability `salt_vs_pepper`, else by the pepper
value.  The values are converted to the input type as C++ casts them (truncation, integers
wrapping), as in DALI; without them, the type's maximum / minimum (1 / -1 for float)."""

from __future__ import annotations

import numpy as np

from dali import _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.noise import _noise


def cast_value(v, dtype) -> float:
    """`v` as C++ static_cast<T>(float(v)) gives it on x86-64, as a float64."""
    v = float(np.float32(v))
    if dtype.kind == "f":
        return v
    bits = dtype.itemsize * 8
    k = int(v) % (1 << bits)
    if dtype.kind == "i" and k >= 1 << (bits - 1):
        k -= 1 << bits
    return float(k)


@_registry.register
class SaltAndPepper(_noise.Noise):
    mode = "salt_and_pepper"
    schema = Schema(
        "noise.salt_and_pepper", inputs=1, outputs=1, devices=("cpu", "gpu"), random=True,
        doc="Applies salt-and-pepper noise to the input: with probability `prob` a value is "
            "replaced by `salt_val` (with probability `salt_vs_pepper`) or `pepper_val`. "
            "Without `per_channel`, the channels of a pixel are kept or replaced together "
            "(the layout's \"C\" first or last; channel-last for an empty layout). The shape "
            "and data type of the output match the input.",
        args=[Arg("prob", T.FLOAT, 0.05, tensor=True,
                  doc="Probability of an output value to take a salt or pepper value."),
              Arg("salt_vs_pepper", T.FLOAT, 0.5, tensor=True,
                  doc="Probability of a corrupted output value to take a salt value."),
              Arg("salt_val", T.FLOAT, None, tensor=True,
                  doc="Value of \"salt\". If not provided, 1.0 for floating point types or the "
                      "maximum of the input type, converted to the input type."),
              Arg("pepper_val", T.FLOAT, None, tensor=True,
                  doc="Value of \"pepper\". If not provided, -1.0 for floating point types or "
                      "the minimum of the input type, converted to the input type."),
              Arg("per_channel", T.BOOL, False,
                  doc="Generate the noise for each channel independently (else once per "
                      "pixel, applied to all its channels).")])

    def params(self, ws, dtype):
        out = np.empty((ws.batch_size, 4))
        for k, (name, what) in enumerate((("prob", "Noise probability"),
                                          ("salt_vs_pepper", "Salt-vs-pepper probability"))):
            v = _noise.finite(ws, name)
            bad = np.flatnonzero((v < 0) | (v > 1))
            if bad.size:
                i = int(bad[0])
                raise ws.sample_error(i, f"{what} should be a value within [0.0, 1.0]. Got: "
                                         f"{v[i]:g}")
            out[:, k] = v
        limits = ((1.0, -1.0) if dtype.kind == "f" else
                  (float(np.iinfo(dtype).max), float(np.iinfo(dtype).min)))
        for k, name, default in ((2, "salt_val", limits[0]), (3, "pepper_val", limits[1])):
            if ws.arg_given(name):
                out[:, k] = [cast_value(v, dtype) for v in _noise.finite(ws, name)]
            else:
                out[:, k] = default
        return out

    def groups(self, ws):
        if self.args["per_channel"]:
            return None
        tl = ws.inputs[0]
        layout = tl.layout()
        shapes = np.asarray(ws.input_storage(0).shapes, np.int64).reshape(len(tl), -1)
        groups = np.ones((len(tl), 2), np.int64)
        if not layout:
            if tl.ndim():
                groups[:, 0] = shapes[:, -1]
            return groups
        c = layout.find("C")
        if c < 0 or (c != 0 and c != len(layout) - 1):
            raise self.error(f"'C' should be the first or the last dimension in the layout, "
                             f"except for empty layouts where channel-last is assumed. Got "
                             f'layout: "{layout}".')
        groups[:, 0] = shapes[:, c]
        if c == 0 and len(layout) > 1:
            groups[:, 1] = np.prod(shapes[:, 1:], axis=1)
        return np.maximum(groups, 1)
