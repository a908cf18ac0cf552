"""What the noise operators share: the types they take, the output (the input's shape, type
and layout) and the call of the `dali._ext.kernels.noise` kernel, or of its GPU twin
(`noise.cu`, the same draws)."""

from __future__ import annotations

import numpy as np

from dali import _operator
from dali._ext.kernels import noise as _kernel
from dali.ops.noise import _noise_gpu

TYPES = frozenset(_kernel.types())
_NAMES = "uint8, int8, uint16, int16, uint32, int32, uint64, int64, float"


class Noise(_operator.Operator):
    """The input with noise added: subclasses give the kernel's mode, per-sample parameters
    and channel groups."""

    mode = ""

    def setup(self):
        self._memo = _operator.LastPlan()  # the last batch's, when arguments are constant

    def infer(self, ws):
        storage = ws.input_storage(0)
        dtype = storage.dtype
        if dtype not in TYPES:
            name = "float16" if dtype == np.float16 else "double" if dtype == np.float64 \
                else str(dtype)
            raise self.error(f"Data type {name} is currently not supported. Supported types "
                             f"are : {_NAMES}", TypeError)
        layout = ws.inputs[0].layout()
        key = None
        if not self.spec.arg_inputs:
            # constant arguments: the parameters and groups depend only on the input's type,
            # layout and shapes
            key = _operator.shapes_key(storage.shapes, dtype, layout)
            if (kept := self._memo.get(key)) is not None:
                return kept
        plan = _operator.Plan([_operator.OutputDesc(storage.shapes, dtype, layout)],
                              params=self.params(ws, dtype), groups=self.groups(ws))
        return self._memo.keep(key, plan)

    def params(self, ws, dtype) -> np.ndarray:
        """float64 (samples, 4): the kernel's parameters of every sample."""
        raise NotImplementedError

    def groups(self, ws):
        """int64 (samples, 2) of channels sharing a draw and their stride, or None."""
        return None

    def run_cpu(self, ws, plan):
        _kernel.noise_batch(ws.thread_pool, ws.input_storage(0), ws.outputs[0], ws.random_key(),
                            ws.sample_ids, self.mode, plan.params, plan.groups)

    def run_gpu(self, ws, plan):
        """noise.cu over the batch, with the draws run_cpu makes (same key and sample ids)."""
        src, dst = ws.input_storage(0), ws.outputs[0]
        launch = _noise_gpu.launch(self.mode, src.shapes, src.dtype, ws.sample_ids,
                                   plan.params, plan.groups, src.offsets, dst.offsets)
        ws.gpu.launch(_noise_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      launch.arguments(src, dst, ws.random_key()))


def finite(ws, name) -> np.ndarray:
    """Per-sample float64 values of argument `name`; raises for NaN/inf naming the sample."""
    values = ws.arg_array(name, np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        i = int(bad[0])
        raise ws.sample_error(i, f"the argument `{name}` must be a finite number, got "
                                 f"{values[i]}")
    return values
