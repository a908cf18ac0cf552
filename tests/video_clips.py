"""Small video clips for the video tests, encoded with PyAV, whose frames tell their number.

Frame i shows the 8 bits of i (mod 256) as eight vertical stripes of the red channel (255 for
a set bit, 0 otherwise) over a green level of 40 + 4 * (i mod 50): `frame_numbers` reads them
back from decoded frames, through any codec's loss.  A constant-padded frame (all pixels equal)
reads as -1.
"""

from __future__ import annotations

import io
import os

import numpy as np

CONTAINERS = {"libx264": "mp4", "libvpx-vp9": "webm", "libvpx": "webm", "mjpeg": "avi",
              "mpeg4": "avi"}


def available(codec):
    """Whether this PyAV build has encoder `codec`."""
    import av
    try:
        av.codec.Codec(codec, "w")
    except Exception:                        # noqa: BLE001 - PyAV raises several types here
        return False
    return True


def frame_image(i, height=48, width=64):
    img = np.zeros((height, width, 3), np.uint8)
    stripe = width // 8
    for b in range(8):
        if (i >> b) & 1:
            img[:, b * stripe:(b + 1) * stripe, 0] = 255
    img[..., 1] = 40 + 4 * (i % 50)
    return img


def encode(codec, frames=40, *, gop=10, height=48, width=64, rate=25, first=0, bframes=0,
           container=None):
    """The bytes of a clip of `frames` frames (numbered from `first`) encoded with `codec`
    (`bframes`: B-frames between references, for H.264 and MPEG-4) in `container` (default:
    `CONTAINERS[codec]`)."""
    import av
    buf = io.BytesIO()
    with av.open(buf, "w", format=container or CONTAINERS[codec]) as out:
        stream = out.add_stream(codec, rate=rate)
        stream.width, stream.height = width, height
        stream.pix_fmt = "yuvj420p" if codec == "mjpeg" else "yuv420p"
        stream.gop_size = gop
        if codec in ("libx264", "mpeg4"):
            stream.codec_context.max_b_frames = bframes
        for i in range(first, first + frames):
            image = av.VideoFrame.from_ndarray(frame_image(i, height, width), format="rgb24")
            for packet in stream.encode(image):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return buf.getvalue()


def frame_numbers(frames):
    """The number each frame (F, H, W, 3) of a decoded sequence shows; -1 for a flat frame."""
    frames = np.asarray(frames)
    if not len(frames):
        return []
    width = frames.shape[2]
    stripe = width // 8
    out = []
    for f in frames:
        if f.min() == f.max():
            out.append(-1)
            continue
        bits = [f[:, b * stripe + stripe // 2, 0].mean() > 128 for b in range(8)]
        out.append(sum(1 << b for b, bit in enumerate(bits) if bit))
    return out


def write(directory, name, data):
    path = os.path.join(directory, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return path
