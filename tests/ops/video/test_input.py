"""fn.experimental.inputs.video: consecutive sequences of the fed videos, batch sizes, the
last sequence's policy, the same batches and pixels as real DALI, and the errors."""

import importlib

import numpy as np
import pytest

av = pytest.importorskip("av")
import video_clips  # noqa: E402


@pytest.fixture(scope="module")
def videos():
    return [np.frombuffer(video_clips.encode("libvpx-vp9", n, first=first, gop=6), np.uint8)
            for n, first in ((23, 0), (7, 100))]


def stream(videos, real=False, runs=6, batch_size=2, num_threads=2, **kwargs):
    """Feed every video (a list: a batch of them), then run `runs` times: [the sequences of
    each batch], stopping at the first error (returned as its text)."""
    pkg = importlib.import_module("nvidia.dali" if real else "dali")

    @pkg.pipeline_def(batch_size=batch_size, num_threads=num_threads, device_id=None,
                      prefetch_queue_depth=1)
    def pipe():
        return pkg.fn.experimental.inputs.video(name="video", **kwargs)

    p = pipe()
    p.build()
    for v in videos:
        p.feed_input("video", v if isinstance(v, list) else [v])
    out = []
    for _ in range(runs):
        try:
            batch, = p.run()
        except RuntimeError as e:
            out.append(str(e))
            break
        assert batch.layout() == "FHWC"
        out.append([np.array(t) for t in batch])
    return out


def reference(counts, firsts, length, batch_size, pad):
    """The frame numbers of each batch (-1 for padding)."""
    batches = []
    for count, first in zip(counts, firsts, strict=True):
        seqs = []
        for start in range(0, count, length):
            frames = [first + f for f in range(start, min(start + length, count))]
            seqs.append(frames + [-1] * (length - len(frames)) if pad else frames)
        batches += [seqs[k:k + batch_size] for k in range(0, len(seqs), batch_size)]
    return batches


@pytest.mark.parametrize("length, batch_size, policy", [
    (5, 2, "partial"), (5, 2, "pad"), (8, 2, "partial"), (30, 3, "pad"), (1, 4, "partial"),
    (3, 1, "pad")])
def test_sequences(videos, length, batch_size, policy):
    want = reference([23, 7], [0, 100], length, batch_size, policy == "pad")
    out = stream(videos, runs=len(want) + 1, batch_size=batch_size, sequence_length=length,
                 last_sequence_policy=policy)
    got = [[video_clips.frame_numbers(s) for s in batch] for batch in out[:-1]]
    assert got == want
    assert "No data was provided to the InputOperator" in out[-1]
    padded = [s for batch in out[:-1] for s in batch if len(s) == length]
    assert all((s[np.array(video_clips.frame_numbers(s)) < 0] == 0).all() for s in padded)


@pytest.mark.oracle
@pytest.mark.parametrize("policy", ["partial", "pad"])
def test_oracle(videos, policy):
    ours = stream(videos, sequence_length=5, last_sequence_policy=policy)
    real = stream(videos, real=True, sequence_length=5, last_sequence_policy=policy)
    assert len(ours) == len(real)
    for a, b in zip(ours[:-1], real[:-1], strict=True):
        for s, t in zip(a, b, strict=True):
            np.testing.assert_array_equal(s, t)


@pytest.mark.parametrize("codec", ["libvpx-vp9", "libx264"])
def test_batches_decoded_in_parallel_runs(codec):
    """Batches cut into runs at keyframes and decoded on several threads give the frames of
    one sequential decode, whatever the number of threads."""
    if not video_clips.available(codec):
        pytest.skip(f"PyAV has no {codec} encoder")
    data = np.frombuffer(video_clips.encode(codec, 50, gop=6, bframes=2 if codec == "libx264"
                                            else 0), np.uint8)
    import io
    with av.open(io.BytesIO(data.tobytes())) as c:
        reference = np.stack([f.to_ndarray(format="rgb24", interpolation=0x42002)
                              for f in c.decode(video=0)])
    for threads in (1, 3):
        out = stream([data], runs=4, batch_size=8, num_threads=threads, sequence_length=3)
        got = np.concatenate([np.concatenate(batch) for batch in out[:-1]])
        np.testing.assert_array_equal(got, reference)
        assert [len(batch) for batch in out[:-1]] == [8, 8, 1]


def test_feeding_more_videos_later(videos):
    import dali

    @dali.pipeline_def(batch_size=4, num_threads=1, device_id=None, prefetch_queue_depth=1)
    def pipe():
        return dali.fn.experimental.inputs.video(name="video", sequence_length=4)

    p = pipe()
    p.build()
    p.feed_input("video", [videos[1]])
    first, = p.run()
    p.feed_input("video", [videos[1]])
    second, = p.run()
    assert [video_clips.frame_numbers(np.array(t)) for t in second] == \
        [video_clips.frame_numbers(np.array(t)) for t in first] == [[100, 101, 102, 103],
                                                                   [104, 105, 106]]


@pytest.mark.parametrize("kwargs, message", [
    ({"sequence_length": 0}, "sequence_length must be positive, got 0"),
    ({"sequence_length": 2, "last_sequence_policy": "drop"},
     "Invalid last_sequence_policy: 'drop'"),
])
def test_argument_errors(videos, kwargs, message):
    with pytest.raises(RuntimeError, match=message):
        stream(videos, **kwargs)


def test_feed_errors(videos):
    with pytest.raises(RuntimeError, match="feed one encoded video at a time"):
        stream([[videos[0], videos[1]]], sequence_length=2)
    with pytest.raises(RuntimeError, match="cannot open the video"):
        stream([np.zeros(100, np.uint8)], sequence_length=2)
    with pytest.raises(NotImplementedError, match="blocking"):
        stream(videos, sequence_length=2, blocking=True)
