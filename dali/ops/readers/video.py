"""readers.video and readers.video_resize (and their deprecated names video_reader and
video_reader_resize): DALI 2.4's GPU video readers (NVDEC), GPU only (see
dali/ops/_gpu_only.py).  readers.video decodes on the CPU as fn.experimental.readers.video does
(`dali.ops.video._sequence_reader`, PyAV) and uploads the outputs; its arguments are mapped to
that reader's: `pad_sequences` pads with zero frames, `file_list_frame_num` and
`file_list_include_preceding_frame` choose how a `file_list`'s starts and ends count and round.
readers.video_resize then resizes the frames as fn.resize does (`geometry._resize_size`,
`_resize_common`) before the upload.  `on_error="skip"` (not in DALI) skips the files that cannot
be opened, as the experimental reader does."""

from __future__ import annotations

import dataclasses

import numpy as np

from dali import _registry
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali._types import DALIImageType as Image
from dali.ops import _aliases, _gpu_only
from dali.ops.geometry import _resize_common, _resize_size
from dali.ops.readers import _common
from dali.ops.video import _sequence_reader


def _reader_args():
    """readers.video's arguments, as it runs them (on the GPU, from the CPU decoder)."""
    return [
        Arg("sequence_length", T.INT32, REQUIRED, doc="Frames to load per sequence."),
        Arg("filenames", T._STRING_VEC, [],
            doc="Video files to read (excludes `file_root` and `file_list`)."),
        Arg("file_root", T.STRING, "",
            doc="Directory whose subdirectories hold the videos of one class each."),
        Arg("file_list", T.STRING, "",
            doc="File of `file label [start_frame [end_frame]]` lines."),
        Arg("labels", T._INT32_VEC, None,
            doc="Labels of the `filenames` (an empty list: their indices); without it, no "
                "label output."),
        Arg("step", T.INT32, -1,
            doc="Frames between the starts of consecutive sequences (< 0: "
                "`sequence_length`)."),
        Arg("stride", T.INT32, 1, doc="Distance between consecutive frames of a sequence."),
        Arg("pad_sequences", T.BOOL, False,
            doc="Make incomplete sequences at the end of a video, padded with zero frames."),
        Arg("channels", T.INT32, 3, doc="Number of channels."),
        Arg("dtype", T.DATA_TYPE, T.UINT8, doc="Output type: UINT8 or FLOAT."),
        Arg("image_type", T.IMAGE_TYPE, Image.RGB,
            doc="Color space of the frames: RGB or YCbCr."),
        Arg("normalized", T.BOOL, False,
            doc="Output normalized data: FLOAT frames in [0, 1] (the values / 255)."),
        Arg("enable_frame_num", T.PYTHON_OBJECT, "none",
            doc="Frame number output: 'none' or False (none), 'scalar' or True (the first "
                "frame's number), 'sequence' (each frame's number)."),
        Arg("enable_timestamps", T.BOOL, False, doc="Add the frames' timestamps output."),
        Arg("file_list_frame_num", T.BOOL, False,
            doc="`file_list` start and end values are frame numbers, not timestamps."),
        Arg("file_list_include_preceding_frame", T.BOOL, False,
            doc="Round a `file_list` start timestamp down to a frame instead of up."),
        Arg("skip_vfr_check", T.BOOL, False,
            doc="Skip the check for variable frame rate videos.",
            ignored="dali's CPU decoder reads variable frame rate videos frame by frame"),
        Arg("additional_decode_surfaces", T.INT32, 2,
            doc="Decode surfaces to use beyond the minimum the decoder needs.",
            ignored="NVDEC's decode surfaces; dali decodes on the CPU"),
        *_common.loader_args(),
        _common.on_error_arg(),
    ]


def _resize_args():
    return [*_reader_args(), *_resize_size.size_args(),
            *(a for a in _resize_common.filter_args() if a.name != "dtype")]


@_registry.register
class Video(_gpu_only.GpuOnly, _sequence_reader.SequenceReader):
    schema = Schema(
        "readers.video", inputs=0, outputs=_sequence_reader.num_outputs, devices=("gpu",),
        cpu=False, random=True,
        doc=_gpu_only.gpu_doc(
            "Loads and decodes video files into sequences of frames (FHWC), with labels, "
            "frame numbers and timestamps as extra outputs. DALI decodes with NVDEC; dali "
            "decodes on the CPU threads (PyAV, `pip install \"dali[video]\"`) and uploads the "
            "outputs to the GPU.", kernel=True),
        args=_reader_args())

    def setup(self):
        _gpu_only.GpuOnly.setup(self)           # DALI's error on the CPU
        a, name = self.args, self.spec.display_name
        if a["channels"] != 3:
            raise NotImplementedError(f"{name}: channels={a['channels']} is not implemented "
                                      "(3 channels only)")
        if a["image_type"] != Image.RGB:
            raise NotImplementedError(f"{name}: image_type={a['image_type']} is not "
                                      "implemented (RGB only)")
        if a["dtype"] not in (T.UINT8, T.FLOAT):
            raise RuntimeError(f"{name}: dtype must be UINT8 or FLOAT, got {a['dtype']}")
        if a["normalized"] and a["dtype"] != T.FLOAT:
            raise NotImplementedError(f"{name}: normalized=True is implemented for "
                                      "dtype=FLOAT only")
        self.frame_dtype = np.float32 if a["dtype"] == T.FLOAT else np.uint8
        self.normalized = a["normalized"]
        self.args = {
            **a, "pad_mode": "constant" if a["pad_sequences"] else "none", "fill_value": [0],
            "file_list_format": "frames" if a["file_list_frame_num"] else "timestamps",
            "file_list_rounding": ("start_down_end_up" if a["file_list_include_preceding_frame"]
                                   else "start_up_end_down"),
            "uniform_sample": False,
            "labels": (list(range(len(a["filenames"]))) if a["labels"] is not None
                       and len(a["labels"]) == 0 else a["labels"])}
        _sequence_reader.SequenceReader.setup(self)

    def decode(self, ws, plan, out):
        """The sequences decoded into `out` (its type converts them), scaled to [0, 1] with
        `normalized`; `run_gpu` uploads what `run_cpu` fills."""
        super().decode(ws, plan, out)
        if self.normalized:
            for frames in out:
                np.divide(frames, np.float32(255), out=frames)


@_registry.register
class VideoResize(_resize_size.SizeLogic, Video):
    schema = Schema(
        "readers.video_resize", inputs=0, outputs=_sequence_reader.num_outputs,
        devices=("gpu",), cpu=False, random=True,
        doc=_gpu_only.gpu_doc(
            "readers.video followed by fn.resize of every frame (the resize arguments are "
            "fn.resize's). dali decodes and resizes on the CPU threads and uploads the "
            "outputs to the GPU.", kernel=True),
        args=_resize_args())

    def infer(self, ws):
        plan = super().infer(ws)
        frames = plan.outputs[0]
        plans = [_resize_size.plan_of("FHWC", shape, self._sample_geometry(ws, i, "FHWC", shape))
                 for i, shape in enumerate(frames.shapes)]
        plan.decoded, plan.geometry = frames.shapes, [region for _, region in plans]
        plan.outputs[0] = dataclasses.replace(frames, shapes=[shape for shape, _ in plans])
        return plan

    def run_cpu(self, ws, plan):
        """The sequences decoded into host arrays, then resized into the frames output as
        fn.resize resizes FHWC sequences; `run_gpu` uploads what this fills."""
        decoded = [np.empty(shape, self.frame_dtype) for shape in plan.decoded]
        self.decode(ws, plan, decoded)
        _resize_common.resample_samples(ws, decoded, ws.output_samples(0), "FHWC",
                                        plan.geometry, _resize_common.filter_codes(ws),
                                        self.args["antialias"])
        self.fill_metadata(ws, plan)


ALIASES = [
    _aliases.deprecated_alias("video_reader", Video, "moved to fn.readers in DALI 1.0",
                              __name__, class_name="VideoReader"),
    _aliases.deprecated_alias("video_reader_resize", VideoResize,
                              "moved to fn.readers in DALI 1.0", __name__,
                              class_name="VideoReaderResize"),
]
