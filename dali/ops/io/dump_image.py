"""fn.dump_image: writes every image of the batch to a file, for debugging, and passes the
batch through unchanged (no copy); on the GPU the batch is downloaded for the writing.

As DALI's DumpImage, sample i goes to `{i}-{suffix}-0.ppm` in the current directory, as an
ASCII PNM file: "P3" for RGB, "P2" for gray (ppm kernel); files of earlier iterations are
overwritten.  Only uint8 HWC images with 1 or 3 channels are taken, as in DALI.
"""

from __future__ import annotations

import os

import numpy as np

from dali import _operator, _registry
from dali._ext.kernels import ppm
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T


@_registry.register
class DumpImage(_operator.Operator):
    schema = Schema(
        "dump_image", inputs=1, outputs=1, devices=("cpu", "gpu"),
        doc="Save images in batch to disk in PPM format, for debugging.\n\n"
            "Sample i is written to `{i}-{suffix}-0.ppm` in the current directory (ASCII "
            "PPM, P3, for RGB and PGM, P2, for gray images); the input is the output, "
            "unchanged. The input must be uint8 HWC images with 1 or 3 channels. Like any "
            "operator whose outputs are unused, it is pruned unless `preserve=True`.",
        args=[
            Arg("input_layout", T.TENSOR_LAYOUT, "HWC",
                doc="Layout of input images; only \"HWC\" is supported (as in DALI)."),
            Arg("suffix", T.STRING, "", doc="Suffix to be added to output file names."),
        ])

    def setup(self):
        layout = self.args["input_layout"]
        if layout != "HWC":
            raise self.error(f"{layout} not supported yet.")

    def infer(self, ws):
        tl = ws.inputs[0]
        storage = ws.input_storage(0)
        if storage.ndim != 3:
            raise self.error("Input images must have three dimensions, got input with "
                             f"`{storage.ndim}` dimensions.")
        if storage.dtype != np.uint8:
            raise self.error(f"the images must be uint8, got {storage.dtype}", TypeError)
        channels = np.asarray(storage.shapes).reshape(-1, 3)[:, 2]
        bad = np.flatnonzero((channels != 1) & (channels != 3))
        if bad.size:
            raise ws.sample_error(
                int(bad[0]), "Only 3-channel and gray images are supported, got input with "
                             f"`{channels[bad[0]]}` channels.")
        return _operator.Plan([_operator.OutputDesc(None, storage.dtype, tl.layout() or "",
                                                    ndim=3)])

    def run_cpu(self, ws, plan):
        images = ws.input_storage(0)
        self._write(ws, images.contiguous())
        ws.outputs[0] = images

    def run_gpu(self, ws, plan):
        """The images downloaded (waiting for the stream) and written as on the CPU; the device
        batch passes through."""
        images = ws.input_storage(0)
        self._write(ws, images.to_host())
        ws.outputs[0] = images

    def _write(self, ws, images):
        suffix = self.args["suffix"]
        paths = [os.fsencode(f"{i}-{suffix}-0.ppm") for i in range(ws.batch_size)]
        errors = ppm.write_batch(ws.thread_pool, images, paths)
        for i in np.flatnonzero(errors):
            raise ws.sample_error(int(i), f"cannot write {os.fsdecode(paths[i])}: "
                                          f"{os.strerror(int(errors[i]))}", OSError)
