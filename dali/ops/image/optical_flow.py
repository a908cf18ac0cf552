"""optical_flow: DALI 2.4's optical flow on NVIDIA's optical flow hardware, GPU only (see
dali/ops/_gpu_only.py)."""

from __future__ import annotations

from dali import _registry
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T
from dali._types import DALIImageType as Image
from dali.ops import _gpu_only


@_registry.register
class OpticalFlow(_gpu_only.GpuOnly):
    schema = Schema(
        "optical_flow", inputs=(1, 2), outputs=1, devices=("gpu",), cpu=False,
        doc=_gpu_only.gpu_doc(
            "Optical flow between consecutive frames of each input sequence (FHWC), computed "
            "by NVIDIA's optical flow hardware: one motion vector field per pair of frames, "
            "at `output_grid` cells. A second input gives external hints."),
        args=[
            Arg("preset", T.FLOAT, 0.0,
                doc="Speed and quality: 0.0 slowest and best, 0.5 medium, 1.0 fastest."),
            Arg("output_grid", T.INT32, 4,
                doc="Size of the pixel cell of one output motion vector (1, 2 or 4)."),
            Arg("output_format", T.INT32, None, alias_of="output_grid"),
            Arg("hint_grid", T.INT32, 4, doc="Size of the pixel cell of one hint vector."),
            Arg("enable_temporal_hints", T.BOOL, False,
                doc="Use the previous pair's flow as hints in sequences longer than two "
                    "frames."),
            Arg("enable_external_hints", T.BOOL, False,
                doc="Take hints from the second input."),
            Arg("image_type", T.IMAGE_TYPE, Image.RGB,
                doc="Color space of the input: RGB, BGR or GRAY."),
        ])
