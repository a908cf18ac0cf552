"""readers.video and readers.video_resize (and their deprecated names video_reader and
video_reader_resize): DALI 2.4's GPU video readers (NVDEC), GPU only (see
dali/ops/_gpu_only.py).  dali reads videos on the CPU with fn.experimental.readers.video."""

from __future__ import annotations

from dali import _registry
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali._types import DALIImageType as Image
from dali.ops import _aliases, _gpu_only
from dali.ops.geometry import _resize_common, _resize_size
from dali.ops.readers import _common


def _num_outputs(args):
    """The frames; the labels (with `file_root`, `file_list` or `labels`); the frame numbers
    (with `enable_frame_num`); the timestamps (with `enable_timestamps`)."""
    labelled = bool(args.get("file_root") or args.get("file_list")) or \
        args.get("labels") is not None
    frame_num = args.get("enable_frame_num", "none") not in (None, False, "none", "None")
    return 1 + labelled + frame_num + bool(args.get("enable_timestamps"))


def _reader_args():
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
        Arg("normalized", T.BOOL, False, doc="Output normalized data."),
        Arg("enable_frame_num", T.PYTHON_OBJECT, "none",
            doc="Frame number output: 'none' or False (none), 'scalar' or True (the first "
                "frame's number), 'sequence' (each frame's number)."),
        Arg("enable_timestamps", T.BOOL, False, doc="Add the frames' timestamps output."),
        Arg("file_list_frame_num", T.BOOL, False,
            doc="`file_list` start and end values are frame numbers, not timestamps."),
        Arg("file_list_include_preceding_frame", T.BOOL, False,
            doc="Round a `file_list` start timestamp down to a frame instead of up."),
        Arg("skip_vfr_check", T.BOOL, False,
            doc="Skip the check for variable frame rate videos."),
        Arg("additional_decode_surfaces", T.INT32, 2,
            doc="Decode surfaces to use beyond the minimum the decoder needs."),
        *_gpu_only.as_declared(_common.loader_args()),
    ]


def _resize_args():
    return _gpu_only.as_declared([
        *_resize_size.size_args(),
        *(a for a in _resize_common.filter_args() if a.name != "dtype"),
    ])


@_registry.register
class Video(_gpu_only.GpuOnly):
    schema = Schema(
        "readers.video", inputs=0, outputs=_num_outputs, devices=("gpu",), cpu=False,
        random=True,
        doc=_gpu_only.gpu_doc(
            "Loads and decodes video files with NVDEC into sequences of frames (FHWC), "
            "with labels, frame numbers and timestamps as extra outputs."),
        args=_reader_args())


@_registry.register
class VideoResize(_gpu_only.GpuOnly):
    schema = Schema(
        "readers.video_resize", inputs=0, outputs=_num_outputs, devices=("gpu",), cpu=False,
        random=True,
        doc=_gpu_only.gpu_doc(
            "readers.video followed by fn.resize of every frame (the resize arguments are "
            "fn.resize's)."),
        args=[*_reader_args(), *_resize_args()])


ALIASES = [
    _aliases.deprecated_alias("video_reader", Video, "moved to fn.readers in DALI 1.0",
                              __name__, class_name="VideoReader"),
    _aliases.deprecated_alias("video_reader_resize", VideoResize,
                              "moved to fn.readers in DALI 1.0", __name__,
                              class_name="VideoReaderResize"),
]
