"""fn.mfcc: Mel-frequency cepstral coefficients, a discrete cosine transform (types 1-4) of mel
spectrograms along `axis`.

The DCTs are Wikipedia's definitions (scipy.fft.dct's unnormalized ones halved); with
`normalize` the orthonormal ones (not for type 1).  The first `n_mfcc` coefficients are kept,
fewer when the axis is shorter.  A `lifter` L other than 0 scales coefficient i by
1 + sin(pi (i + 1) / L) L / 2.  The matrix (coefficients x input length, lifter included) is
made in double precision once a process per length and arguments and applied by the
`axis_matmul` kernel.
"""

from __future__ import annotations

import functools

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import axis_matmul as _kernel
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.signal import _axes, _axis_matmul_gpu


def dct_matrix(n, count, dct_type, normalize):
    """The (count, n) float64 matrix of the first `count` coefficients of DCT `dct_type`."""
    k = np.arange(count)[:, None]
    j = np.arange(n)[None, :]
    if dct_type == 1:
        m = np.cos(np.pi * k * j / (n - 1))
        m[:, [0, n - 1]] *= 0.5
        return m
    if dct_type == 2:
        m = np.cos(np.pi * k * (2 * j + 1) / (2 * n))
        if normalize:
            m *= np.where(k == 0, np.sqrt(1.0 / n), np.sqrt(2.0 / n))
        return m
    if dct_type == 3:
        m = np.cos(np.pi * (2 * k + 1) * j / (2 * n))
        m[:, 0] = 1.0 / np.sqrt(2.0) if normalize else 0.5
        return m * np.sqrt(2.0 / n) if normalize else m
    m = np.cos(np.pi * (2 * k + 1) * (2 * j + 1) / (4 * n))
    return m * np.sqrt(2.0 / n) if normalize else m


@functools.lru_cache(maxsize=64)
def mfcc_matrix(n, n_mfcc, dct_type, normalize, lifter):
    """The `AxisMatrix` of the transform of an axis of length n."""
    count = min(n_mfcc, n)
    m = dct_matrix(n, count, dct_type, normalize) if count else np.zeros((0, n))
    if lifter:
        m *= (1.0 + np.sin(np.pi * (np.arange(count) + 1) / lifter) * (lifter / 2))[:, None]
    return _kernel.AxisMatrix(m.astype(np.float32))


@_registry.register
class Mfcc(_operator.Operator):
    schema = Schema(
        "mfcc", inputs=1, outputs=1, devices=("cpu", "gpu"), class_name="MFCC",
        doc="Computes Mel Frequency Cepstral Coefficients (MFCC) from a mel spectrogram.",
        args=[Arg("axis", T.INT32, 0,
                  doc="Axis over which the transform will be applied (the outermost by "
                      "default)."),
              Arg("dct_type", T.INT32, 2,
                  doc="Discrete Cosine Transform type: 1, 2, 3 or 4, as defined in "
                      "https://en.wikipedia.org/wiki/Discrete_cosine_transform."),
              Arg("lifter", T.FLOAT, 0.0,
                  doc="Cepstral filtering (liftering) coefficient: if not 0, "
                      "`MFCC[i] *= 1 + sin(pi * (i + 1) / lifter) * (lifter / 2)`."),
              Arg("n_mfcc", T.INT32, 20, doc="Number of MFCC coefficients."),
              Arg("normalize", T.BOOL, False,
                  doc="Use an ortho-normal DCT basis (not supported with `dct_type=1`).")])

    def setup(self):
        a = self.args
        if not 1 <= a["dct_type"] <= 4:
            raise self.error(f"Unsupported DCT type: {a['dct_type']}. Supported types are: 1, "
                             "2, 3, 4.")
        if a["dct_type"] == 1 and a["normalize"]:
            raise self.error("Ortho-normalization is not supported for DCT type I "
                             "(`normalize`).")
        if a["n_mfcc"] <= 0:
            raise self.error("number of MFCCs should be > 0 (`n_mfcc`).")
        if a["axis"] < 0:
            raise self.error("Provided axis cannot be negative (`axis`).")
        self.matrix = functools.partial(mfcc_matrix, n_mfcc=a["n_mfcc"],
                                        dct_type=a["dct_type"], normalize=bool(a["normalize"]),
                                        lifter=float(a["lifter"]))

    def infer(self, ws):
        _axes.check_float(self, ws)
        ndim, axis = ws.inputs[0].ndim(), self.args["axis"]
        if ndim < 2:
            raise self.error(f"Unsupported number of dimensions {ndim} (at least 2).")
        if axis >= ndim:
            raise self.error(f"Axis {axis} is out of bounds [0,{ndim}) (`axis`).")
        if self.args["dct_type"] == 1:
            shapes = np.asarray(ws.input_storage(0).shapes).reshape(ws.batch_size, ndim)
            for i, n in enumerate(shapes[:, axis].tolist()):
                if n < 2:
                    raise ws.sample_error(i, "DCT type I requires an input length > 1.")
        shapes, matrices = _axes.shapes_and_matrices(ws, axis, self.matrix)
        return _operator.Plan([_operator.OutputDesc(shapes, np.float32, ws.inputs[0].layout())],
                              axis=axis, matrices=matrices)

    def run_cpu(self, ws, plan):
        _kernel.matmul_axis_batch(ws.thread_pool, ws.input_storage(0),
                                  ws.outputs[0], plan.matrices, plan.axis)

    def run_gpu(self, ws, plan):
        _axis_matmul_gpu.run(ws, plan)
