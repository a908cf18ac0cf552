"""fn.experimental.readers.video: sequences of frames from video files, decoded on the CPU (with
device="gpu" the outputs are then uploaded); the implementation is
`_sequence_reader.SequenceReader`."""

from __future__ import annotations

from dali import _registry
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali._types import DALIImageType as Image
from dali.ops.readers import _common
from dali.ops.video import _sequence_reader


@_registry.register
class Video(_sequence_reader.SequenceReader):
    schema = Schema(
        "experimental.readers.video", inputs=0, outputs=_sequence_reader.num_outputs,
        devices=("cpu", "gpu"), random=True,
        doc="Loads and decodes video files (any container and codec FFmpeg reads, through "
            "PyAV; the first video stream) into sequences of RGB frames: uint8, layout FHWC.\n\n"
            "Outputs: the frames, then the label (int32, shape (1,); with `file_root`, "
            "`file_list`, or `labels`), the frame numbers (int32; with `enable_frame_num`) and "
            "the timestamps in seconds (float64, one per frame; with `enable_timestamps`). "
            "The sample order, sharding, shuffling buffer and padding are real DALI's.",
        args=[
            Arg("filenames", T._STRING_VEC, [],
                doc="Paths of the video files. Exclusive with `file_root` and `file_list`."),
            Arg("labels", T._INT32_VEC, None,
                doc="Labels of `filenames` (one per file); without them there is no label "
                    "output."),
            Arg("file_root", T.STRING, "",
                doc="Directory whose subdirectories are the classes (labelled 0, 1, ... in "
                    "sorted order), each holding video files. Exclusive with `filenames` and "
                    "`file_list`."),
            Arg("file_list", T.STRING, "",
                doc="A text file of `path label [start [end]]` lines: the range of each video "
                    "to read (see `file_list_format`). Exclusive with `filenames` and "
                    "`file_root`."),
            Arg("file_list_format", T.STRING, "timestamps",
                doc="How `file_list` starts and ends count: 'frames' (frame numbers, negative "
                    "ones from the end) or 'timestamps' (seconds). The end is exclusive; a "
                    "range that is empty, or ends past the last timestamp, is dropped."),
            Arg("file_list_include_end", T.BOOL, True,
                doc="Include the end frame in the range.",
                ignored="DALI 2.4's CPU reader gives the same ranges either way (ends are "
                        "exclusive); an end frame past the clip, which DALI refuses without "
                        "it, is clipped to the clip here"),
            Arg("file_list_rounding", T.STRING, "start_down_end_up",
                doc="Timestamps between frames: 'start_down_end_up', 'start_up_end_down', "
                    "'all_up' or 'all_down' (down: the last frame at or before the start, the "
                    "last frame before the end; up: the first frame at or after)."),
            Arg("sequence_length", T.INT32, REQUIRED, doc="Frames per sequence."),
            Arg("step", T.INT32, -1,
                doc="Frames between the starts of consecutive sequences; below 0: "
                    "`sequence_length`."),
            Arg("stride", T.INT32, 1, doc="Distance between consecutive frames of a sequence."),
            Arg("pad_mode", T.STRING, "none",
                doc="Sequences running past the end of a video (or its range): 'none' (only "
                    "sequences that fit are read), 'constant' (frames of `fill_value`), 'edge' "
                    "or 'repeat', 'reflect_1001' or 'symmetric', 'reflect_101' or 'reflect'."),
            Arg("fill_value", T._INT32_VEC, [0],
                doc="Value(s) of the frames padded with pad_mode='constant', each in [0, 255]: "
                    "one for all channels or one per channel."),
            Arg("uniform_sample", T.BOOL, False,
                doc="One sequence per video: `sequence_length` frames spread evenly over it, "
                    "`floor(x + 0.5)` of `numpy.linspace(start, end - 1, sequence_length)` "
                    "(frames repeat in short videos); `stride`, `step` and `pad_mode` do not "
                    "apply."),
            Arg("enable_frame_num", T.STRING, "none",
                doc="Frame number output: 'none' or False (none), 'scalar' or True (the first "
                    "frame's number, shape (1,)), 'sequence' (each frame's number, -1 for "
                    "constant padding)."),
            Arg("enable_timestamps", T.BOOL, False,
                doc="Output each frame's timestamp in seconds (float64)."),
            Arg("image_type", T.IMAGE_TYPE, Image.RGB, implemented=False,
                doc="Colour space of the output frames: RGB (YCbCr is not implemented)."),
            *_common.loader_args(),
            _common.on_error_arg(),
        ])
