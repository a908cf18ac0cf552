"""on_error="skip" of fn.readers.video and fn.readers.video_resize (GPU only in DALI; on the
emulated device): a file that cannot be opened is skipped with its sequences, the labels and
frame numbers staying with their sequences, as fn.experimental.readers.video does."""

from __future__ import annotations

import os

import numpy as np
import pytest

av = pytest.importorskip("av")
import video_clips  # noqa: E402

from dali import fn, pipeline_def  # noqa: E402


@pytest.mark.parametrize("reader", ["video", "video_resize"])
def test_a_file_that_vanished_is_skipped(emulated_gpu, tmp_path, reader):
    files = [video_clips.write(str(tmp_path), name, video_clips.encode("mjpeg", n, first=first))
             for name, n, first in (("x.avi", 8, 0), ("y.avi", 6, 100), ("z.avi", 6, 200))]
    kwargs = {"size": [24, 32]} if reader == "video_resize" else {}

    @pipeline_def(batch_size=4, num_threads=2, device_id=0, prefetch_queue_depth=1)
    def pipe():
        return tuple(getattr(fn.readers, reader)(
            device="gpu", filenames=files, labels=[7, 8, 9], sequence_length=2, step=2,
            enable_frame_num=True, on_error="skip", name="R", **kwargs))

    p = pipe()
    p.build()
    os.remove(files[1])
    with pytest.warns(RuntimeWarning, match=r"3 sample\(s\) that could not be read"):
        runs = [[o.as_cpu() for o in p.run()] for _ in range(2)]
    frames = [np.asarray(s) for run in runs for s in run[0]]
    labels = [int(np.asarray(s)[0]) for run in runs for s in run[1]]
    firsts = [int(np.asarray(s)[0]) for run in runs for s in run[2]]
    starts = [0, 2, 4, 6, 200, 202, 204, 0]           # x, z (y skipped), then the next epoch
    assert [video_clips.frame_numbers(f) for f in frames] == [[s, s + 1] for s in starts]
    assert labels == [7, 7, 7, 7, 9, 9, 9, 7]
    assert firsts == [0, 2, 4, 6, 0, 2, 4, 0]
    assert all(f.shape == ((2, 24, 32, 3) if kwargs else (2, 48, 64, 3)) for f in frames)
    skipped = p.reader_meta("R")["skipped"]
    assert [s["sample"] for s in skipped][:3] == [files[1]] * 3
    assert "cannot read" in skipped[0]["reason"]
