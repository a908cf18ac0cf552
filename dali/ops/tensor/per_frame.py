"""fn.per_frame: marks the input as a sequence by giving its layout a leading "F".

Only the layout changes; the samples are shared, not copied.  Operators that accept per-frame
arguments (fn.color_twist, fn.brightness_contrast, ...) then read one value per frame of the
sequence they process from such an argument input.  An input without a layout gets "F"
followed by "*" for the other dimensions; a layout that does not start with "F" is an error,
or with `replace=True` gets its first character replaced.
"""

from __future__ import annotations

from dali import _operator, _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T


@_registry.register
class PerFrame(_operator.Operator):
    schema = Schema(
        "per_frame", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Marks the input tensor as a sequence: the layout gets a leading \"F\", the data "
            "stays untouched. Use it to feed per-frame tensor arguments to operators that "
            "process sequences, e.g. `fn.brightness(video, brightness=fn.per_frame(b))` with "
            "`b` of shape (frames,).",
        args=[Arg("replace", T.BOOL, False,
                  doc="For an input whose layout does not start with \"F\": replace its first "
                      "character with \"F\" instead of failing.")])

    def infer(self, ws):
        tl = ws.inputs[0]
        ndim = tl.ndim()
        if ndim == 0:
            raise self.error("Cannot mark zero-dimensional input as a sequence.", RuntimeError)
        layout = tl.layout()
        if not layout:
            layout = "F" + "*" * (ndim - 1)
        elif layout[0] != "F":
            if not self.args["replace"]:
                raise self.error("Per-frame argument input must be a sequence. The input "
                                 f"layout should start with 'F', got: {layout}", RuntimeError)
            layout = "F" + layout[1:]
        return _operator.Plan([_operator.OutputDesc(None, ws.input_dtype(0), layout, ndim)])

    def run_cpu(self, ws, plan):
        ws.outputs = [ws.input_storage(0)]      # the same samples; the layout is the plan's

    run_gpu = run_cpu
