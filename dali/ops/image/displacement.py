"""fn.water, fn.sphere and fn.jitter: displacement filters of HWC images (uint8 or float).

Output pixel (y, x) samples the input at a displaced position (see
`dali._ext.kernels.displace` for the formulas, DALI's, in float32 with sinf/cosf): water adds
sine waves along both axes, sphere bulges the image about its centre.  Nearest neighbour or
linear interpolation; positions outside the image read `fill_value`, converted to the input
type as DALI does (a C cast: truncated and, for uint8, wrapped modulo 256).  On the GPU the
three run `jitter.cu`, at the CPU's positions (water's wave terms from the CPU kernel's code).

fn.jitter moves every pixel by a random integer offset per axis, `r - nDegree // 2` with r
uniform in [0, nDegree), the position clamped to [0, extent] (the far edge reads the fill
value).  Real DALI has it only on the GPU (curand draws, which cannot be reproduced); here it
runs on the CPU with the counter-based generator, so that the same seed gives the same output
whatever the threads: the kernel makes `ws.uniform(2 * H * W)`'s draws of every sample itself
(the x offsets of the pixels, then the y offsets), row by row on the thread pool.  On the GPU
(`jitter.cu`) every output element draws its two numbers from the same streams: the outputs
are the CPU's.

`mask` (0 or 1 per sample) leaves a sample unchanged when 0.  Unlike DALI 2.4, which honours
only a per-sample (tensor) mask and ignores a constant one, a constant `mask=0` is honoured
too.
"""

from __future__ import annotations

import math

import numpy as np

from dali import _operator, _registry, _types
from dali._ext.kernels import displace as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali._types import DALIInterpType as Interp
from dali.ops import _layouts
from dali.ops.image import _jitter_gpu

_TYPES = (T.UINT8, T.FLOAT)
_FREQ = 2 * math.pi / 128


def _common_args():
    return [
        Arg("interp_type", T.INTERP_TYPE, Interp.INTERP_NN,
            doc="Interpolation: INTERP_NN or INTERP_LINEAR."),
        Arg("fill_value", T.FLOAT, 0.0, doc="Color value used for positions outside the image."),
        Arg("mask", T.INT32, 1, tensor=True,
            doc="Apply the augmentation (1) or pass the sample through unchanged (0)."),
    ]


class _Displacement(_operator.Operator):
    mode = ""
    _consts = None      # input type -> (dtype, interp, fill), see `_constants`
    _masks = None       # batch size -> a constant `mask` as an array

    def infer(self, ws):
        tl = ws.inputs[0]
        layout = _layouts.image_layout(self, tl, ("HWC",))
        if tl.dtype not in _TYPES:
            raise self.error(f"Unexpected input type {_types.type_name(tl.dtype)}",
                             RuntimeError)
        consts = self._consts.get(tl.dtype) if self._consts is not None else None
        if consts is None:
            consts = self._constants(tl.dtype)
        dtype, interp, fill = consts
        if ws.is_arg_input("mask"):
            mask = ws.arg_array("mask", np.int32)
        else:       # a constant mask: one read-only array per batch size
            mask = self._masks.get(ws.batch_size)
            if mask is None:
                mask = ws.arg_array("mask", np.int32)
                mask.flags.writeable = False
                self._masks[ws.batch_size] = mask
        return _operator.Plan(
            [_operator.OutputDesc(ws.input_storage(0).shapes, dtype, layout)],
            interp=interp, fill=fill, mask=mask)

    def _constants(self, in_type):
        """(numpy dtype, interpolation, fill) for inputs of `in_type`, checked and
        remembered (they depend only on constant arguments)."""
        interp = Interp(self.args["interp_type"])
        if interp not in (Interp.INTERP_NN, Interp.INTERP_LINEAR):
            raise self.error("Unsupported interpolation type, only NN and LINEAR are "
                             "supported for this operation", RuntimeError)
        dtype = _types.dtype_of(in_type)
        if self._consts is None:
            self._consts, self._masks = {}, {}
        consts = self._consts[in_type] = dtype, int(interp), self._fill(dtype)
        return consts

    def _fill(self, dtype):
        fill = float(np.float32(self.args["fill_value"]))
        if dtype == np.uint8 and math.isfinite(fill):
            return float(int(fill) % 256)
        return fill

    def _wave(self):
        return None

    def run_cpu(self, ws, plan):
        _kernel.displace_storage(ws.thread_pool, ws.input_storage(0), ws.outputs[0], self.mode,
                                 plan.mask, plan.interp, plan.fill, self._wave())

    def run_gpu(self, ws, plan):
        """water and sphere: one launch of jitter.cu's kernel at the CPU's positions (water's
        wave terms computed on the host by the CPU kernel's code)."""
        src, dst = ws.input_storage(0), ws.outputs[0]
        wave = self._wave()
        waves = None if wave is None else _kernel.water_waves(src.shapes, wave)
        if waves is None or not waves.size:
            waves = np.zeros(1, np.float32)
        launch = _jitter_gpu.launch(src.shapes, plan.mask, None, src.dtype, src.offsets,
                                    dst.offsets, mode=self.mode)
        ws.gpu.launch(_jitter_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (src, dst, launch.samples, waves,
                       np.int32(plan.interp == Interp.INTERP_LINEAR), np.float32(plan.fill)))


@_registry.register
class Water(_Displacement):
    mode = "water"
    schema = Schema(
        "water", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Performs a water augmentation, which makes the image appear to be underwater: "
            "output pixel (y, x) reads the input at\n"
            "(x + ampl_x * sin(freq_x * y + phase_x), y + ampl_y * cos(freq_y * x + phase_y)).",
        args=[
            Arg("ampl_x", T.FLOAT, 10.0, doc="Amplitude of the wave in the x direction."),
            Arg("ampl_y", T.FLOAT, 10.0, doc="Amplitude of the wave in the y direction."),
            Arg("freq_x", T.FLOAT, _FREQ,
                doc="Frequency of the wave in the x direction (default 2 pi / 128)."),
            Arg("freq_y", T.FLOAT, _FREQ,
                doc="Frequency of the wave in the y direction (default 2 pi / 128)."),
            Arg("phase_x", T.FLOAT, 0.0, doc="Phase of the wave in the x direction."),
            Arg("phase_y", T.FLOAT, 0.0, doc="Phase of the wave in the y direction."),
            *_common_args(),
        ])

    def _wave(self):
        a = self.args
        return (a["ampl_x"], a["freq_x"], a["phase_x"], a["ampl_y"], a["freq_y"], a["phase_y"])


@_registry.register
class Sphere(_Displacement):
    mode = "sphere"
    schema = Schema(
        "sphere", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Performs a sphere augmentation: the image is bulged about its centre (a pixel at "
            "offset t from the centre reads the input at offset t * |t| / d, d being half the "
            "larger image extent).",
        args=_common_args())


@_registry.register
class Jitter(_Displacement):
    mode = "jitter"
    schema = Schema(
        "jitter", inputs=1, outputs=1, devices=("cpu", "gpu"), random=True,
        doc="Performs a random jitter augmentation: each pixel is moved by a random integer "
            "amount along x and y, `r - nDegree // 2` with r uniform in [0, nDegree) (so "
            "within [-nDegree/2, nDegree/2]). Real DALI runs it only on the GPU (curand); here "
            "the CPU and the GPU versions draw from the pipeline's counter-based random "
            "streams, so that a seed gives the same output on both.",
        args=[
            Arg("nDegree", T.INT32, 2,
                doc="Each pixel is moved by a random amount in the [-nDegree/2, nDegree/2] "
                    "range."),
            *_common_args(),
        ])

    def infer(self, ws):
        if self.args["nDegree"] < 1:
            raise self.error(f"`nDegree` must be positive, got {self.args['nDegree']}")
        return super().infer(ws)

    def run_cpu(self, ws, plan):
        # the draws of ws.uniform(2 * H * W) per sample, made in the kernel
        _kernel.displace_storage(ws.thread_pool, ws.input_storage(0), ws.outputs[0], self.mode,
                                 plan.mask, plan.interp, plan.fill, degree=self.args["nDegree"],
                                 key=ws.random_key(), sample_ids=ws.sample_ids)

    def run_gpu(self, ws, plan):
        """jitter.cu over the batch, with the draws run_cpu makes (same key, sample ids and
        stream)."""
        src, dst = ws.input_storage(0), ws.outputs[0]
        launch = _jitter_gpu.launch(src.shapes, plan.mask, ws.sample_ids, src.dtype,
                                    src.offsets, dst.offsets)
        ws.gpu.launch(_jitter_gpu.__file__, launch.kernel, launch.grid, launch.block,
                      (src, dst, launch.samples, np.uint64(ws.random_key()), np.uint32(0),
                       np.int32(self.args["nDegree"]),
                       np.int32(plan.interp == Interp.INTERP_LINEAR), np.float32(plan.fill)))
