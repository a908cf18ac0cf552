"""fn.lookup_table: maps integer inputs through a table given by `keys` and `values`.

The table has one entry per key 0..max(keys) (keys not listed get `default_value`; a key
listed twice takes its last value) and is built once, at build time, in float32 and then
converted to `dtype` with DALI's rounding and saturation (the rules of fn.cast).  Inputs
outside the table map to `default_value`.  For 8- and 16-bit inputs the table is widened to
every value of the input type (`lut.full_table`), so the nogil batch kernel
(`dali._ext.kernels.lut`) indexes without a bounds check: a 256-entry table for uint8.
"""

from __future__ import annotations

import numpy as np

from dali import _operator, _registry, _types
from dali._ext.kernels import cast as _cast
from dali._ext.kernels import lut as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.color import _lookup_table_gpu

MAX_KEY = 65535


@_registry.register
class LookupTable(_operator.Operator):
    schema = Schema(
        "lookup_table", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Maps the input to output by using a lookup table that is specified by `keys` and "
            "`values`, and a `default_value` for unspecified keys.\n\n"
            "`lut[k]` is the last value given for key `k`, or `default_value`; the output is "
            "`lut[x]` for 0 <= x <= max(keys), `default_value` otherwise.  Only integer types "
            "can be used as inputs.",
        args=[Arg("keys", T._INT32_VEC, [],
                  doc="A list of input values (keys) in the lookup table, in [0, 65535]; as "
                      "many as `values`."),
              Arg("values", T._FLOAT_VEC, [],
                  doc="A list of mapped output values, one for each entry of `keys`."),
              Arg("default_value", T.FLOAT, 0.0,
                  doc="Default output value for keys that are not present in the table."),
              Arg("dtype", T.DATA_TYPE, T.FLOAT, doc="Output data type."),
              Arg("output_dtype", T.DATA_TYPE, None, alias_of="dtype")])

    def setup(self):
        keys, values = self.args["keys"], self.args["values"]
        if len(keys) != len(values):
            raise self.error("`keys` size should match `values` size", RuntimeError)
        if keys and (min(keys) < 0 or max(keys) > MAX_KEY):
            raise self.error(f"`keys` should be in the range [0, {MAX_KEY}]", RuntimeError)
        dtype = T(self.args["dtype"])
        if not _types.is_numeric(dtype):
            raise self.error(f"Unsupported output type: {dtype.name.lower()}", RuntimeError)
        self.dtype = _types.dtype_of(dtype)
        table = np.full(max(keys, default=-1) + 1, self.args["default_value"], np.float32)
        for k, v in zip(keys, values, strict=True):
            table[k] = v
        self.table = self._converted(table)
        self.default = self._converted(np.array([self.args["default_value"]], np.float32))
        self.tables = {}   # input dtype -> the table the kernel takes (made once per type)

    def _converted(self, values):
        out = np.empty(values.shape, self.dtype)
        _cast.cast_array(values, out)
        return out

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = ws.input_storage(0)
        if storage.dtype not in _kernel.INPUT_CODES:
            name = _types.type_name(_types.dali_type_of(storage.dtype))
            raise self.error(f"Unsupported input type: {name}", TypeError)
        shapes = storage.shapes
        return _operator.Plan([_operator.OutputDesc(shapes, self.dtype, tl.layout(),
                                                    storage.ndim)])

    def _table_for(self, dtype):
        """The table the kernels take for inputs of `dtype` (made once per type)."""
        table = self.tables.get(dtype)
        if table is None:
            table = self.tables[dtype] = _kernel.full_table(self.table, self.default[0], dtype)
        return table

    def run_cpu(self, ws, plan):
        storage = ws.input_storage(0)
        _kernel.lut_batch(ws.thread_pool, storage, ws.outputs[0],
                          self._table_for(storage.dtype), self.default)

    def run_gpu(self, ws, plan):
        """One launch over the batch as one flat range (device batches are packed)."""
        src, dst = ws.input_storage(0), ws.outputs[0]
        launch = _lookup_table_gpu.launch(src.nbytes // src.dtype.itemsize, src.dtype,
                                          self._table_for(src.dtype), self.default)
        ws.gpu.launch(_lookup_table_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (src, dst, launch.count, launch.table, launch.lo, launch.size,
                       launch.default))
