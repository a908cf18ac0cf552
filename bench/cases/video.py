"""Video: decoders.video on 64 VP9 clips ("video" input kind: 8 frames each, the "image" or
"small" photos of the batch shifted a few pixels per frame, a keyframe every 4 frames; VP9 as
real DALI's CPU decoder reads it).  The case decodes 4 frames from frame 3 (seeking to the
keyframe at frame 0 for the first ones); the deprecated experimental.decoders.video gets the
same case.  experimental.readers.video reads the same clips written as files (4 class
folders), sequences of 4 frames: two per clip, one batch per epoch; its baseline is the idle
pipeline.  experimental.inputs.video is fed, before every iteration (the pipeline's
`iter_setup`, as DALI's docs feed input operators), a VP9 video of one frame per sample (the
batch's photos in turn, keyframe every 4) and cut into sequences of 1 frame."""

import functools
import importlib
import io

import numpy as np

from bench import opcase
from bench.opcase import OpCase, aliased

FRAMES = 8


def _encode(image):
    return _encode_frames([np.roll(image, 2 * k, 1) for k in range(FRAMES)])


def _encode_frames(images):
    import av
    buf = io.BytesIO()
    with av.open(buf, "w", format="webm") as container:
        stream = container.add_stream("libvpx-vp9", rate=25)
        stream.height, stream.width = images[0].shape[:2]
        stream.pix_fmt = "yuv420p"
        stream.gop_size = 4
        for image in images:
            frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(image), format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return np.frombuffer(buf.getvalue(), np.uint8)


@opcase.input_kind("video")
def _clips(size, batch_size):
    images = opcase.batch("u8", size, batch_size)[0]
    return [_encode(image) for image in images], None


def video_root(size):
    """A directory of the "video" clips of `size` in 4 class folders (made once a process)."""
    def fill(root):
        for i, clip in enumerate(_clips(size, opcase.BATCH_SIZE // 2)[0]):
            d = root / f"class{i % 4}"
            d.mkdir(exist_ok=True)
            (d / f"{i:03d}.webm").write_bytes(clip.tobytes())
        return str(root)
    return opcase.scratch_dir(f"dali-bench-video-{size}-", fill)


@functools.cache
def _long_video(size, frames):
    return np.frombuffer(_encode_frames(opcase.batch("u8", size, frames)[0]), np.uint8)


def _fed_input(fn, types, size):
    """inputs.video, fed a video of one frame per sample before every iteration."""
    pipe = importlib.import_module(fn.__name__.rpartition(".")[0]).Pipeline.current()
    video = _long_video(size, pipe.max_batch_size)
    pipe.iter_setup = lambda: pipe.feed_input("bench_video", [video])
    return fn.experimental.inputs.video(name="bench_video", sequence_length=1)


_DECODE = OpCase("decoders.video", "decoders.video",
                 lambda fn, types, x, size: fn.decoders.video(x, start_frame=3, sequence_length=4),
                 ("video",), modules=("av",))

CASE_LIST = [
    _DECODE,
    aliased(_DECODE, "experimental.decoders.video"),
    OpCase("experimental.readers.video", "experimental.readers.video",
           lambda fn, types, size: tuple(fn.experimental.readers.video(
               file_root=video_root(size), sequence_length=4)),
           (), "idle", modules=("av",)),
    OpCase("experimental.inputs.video", "experimental.inputs.video", _fed_input, (), "idle",
           modules=("av",)),
]
