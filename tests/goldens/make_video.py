"""Regenerate video.npz with real NVIDIA DALI: fn.decoders.video (CPU) on a VP9 and an MJPEG
clip made by tests/video_clips.py (stored in the npz, so the test does not encode), with each
kind of frame selection and pad mode.

The npz holds `cases` (a JSON list of {"input": name, "args": keyword arguments}),
`input_clips_{i}` (the encoded clips, uint8) and `out_{k}_{i}` (case k, clip i).
Run: `python tests/goldens/make_video.py`.
"""
import pathlib
import sys

import numpy as np
from _goldens import run_graph, write_cases
from nvidia.dali import fn

sys.path.insert(0, str(pathlib.Path(__file__).parents[1]))
import video_clips  # noqa: E402

CLIPS = [np.frombuffer(video_clips.encode(codec, 30, gop=8), np.uint8)
         for codec in ("libvpx-vp9", "mjpeg")]
CASES = [
    {"input": "clips", "args": {"frames": [29, 3, 3, 17, 0]}},
    {"input": "clips", "args": {"start_frame": 21, "sequence_length": 5, "stride": 3}},
    {"input": "clips", "args": {"start_frame": 26, "sequence_length": 6, "pad_mode": "edge"}},
    {"input": "clips", "args": {"start_frame": 25, "end_frame": 36, "stride": 2,
                                "pad_mode": "reflect_1001"}},
    {"input": "clips", "args": {"frames": [-2, 31, 9], "pad_mode": "constant",
                                "fill_value": [118, 185, 0]}},
]


def run(case):
    return run_graph(lambda: fn.decoders.video(
        fn.external_source(source=lambda: CLIPS, batch=True), **case["args"]), len(CLIPS))


write_cases("video.npz", {"clips": CLIPS}, CASES, run)
