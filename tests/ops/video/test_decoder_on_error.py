"""on_error="skip" of decoders.video: the reader feeding the decoder replaces the clips that
cannot be decoded, lists them in reader_meta and warns once per epoch (the argument's checks:
tests/ops/decoders/test_on_error.py)."""

import warnings

import numpy as np
import pytest

from dali import fn, pipeline_def

av = pytest.importorskip("av")
import video_clips  # noqa: E402

N = 8
BAD = {2: "text", 5: "cut header"}


@pytest.fixture(scope="module")
def clip_dir(tmp_path_factory):
    if not video_clips.available("libvpx-vp9"):
        pytest.skip("PyAV has no VP9 encoder")
    root = tmp_path_factory.mktemp("clips")
    (root / "c").mkdir()
    for i in range(N):
        data = video_clips.encode("libvpx-vp9", 4, first=10 * i)
        if BAD.get(i) == "text":
            data = b"not a video at all" * 10
        elif BAD.get(i) == "cut header":
            data = data[:200]
        (root / "c" / f"{i}.webm").write_bytes(data)
    return str(root)


def _pipe(root, **kwargs):
    @pipeline_def(batch_size=3, num_threads=2, device_id=None, seed=1)
    def pipe():
        data, _ = fn.readers.file(file_root=root, name="R", file_filters=["*.webm"])
        return fn.decoders.video(data, **kwargs), data.source_info()

    p = pipe()
    p.build()
    return p


def test_an_epoch_decodes_every_good_clip_once(clip_dir):
    p = _pipe(clip_dir, on_error="skip")
    names, firsts = [], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):                   # the 6 good clips
            frames, si = p.run()
            names += [bytes(np.array(si[i])).decode() for i in range(len(si))]
            firsts += [video_clips.frame_numbers(np.array(f))[0] for f in frames]
    good = [i for i in range(N) if i not in BAD]
    assert names == [f"c/{i}.webm" for i in good]
    assert firsts == [10 * i for i in good]
    skipped = p.reader_meta("R")["skipped"]
    assert [s["sample"] for s in skipped] == [f"c/{i}.webm" for i in sorted(BAD)]
    assert all("decoders.video: cannot open the video" in s["reason"] for s in skipped)
    counts = [w for w in caught if "skipped in this epoch" in str(w.message)]
    assert len(counts) == 1 and "2 sample(s)" in str(counts[0].message)


def test_raise_is_the_default(clip_dir):
    with pytest.raises(RuntimeError, match="cannot open the video"):
        _pipe(clip_dir).run()                # clips 0-2: 2 is text
