"""fn.decoders.video: frame selection and padding against a NumPy reference, pixels against
real DALI's CPU decoder (goldens and oracle), keyframe seeking against sequential decoding,
per-sample arguments, and the errors."""

import numpy as np
import pytest
from golden_cases import case_indices, load_case
from pipeline_utils import run_op

av = pytest.importorskip("av")
import video_clips  # noqa: E402

N = 40                                      # frames of every test clip


@pytest.fixture(scope="module")
def clips():
    """{codec: encoded clip of N frames, keyframe every 10} for the encoders PyAV has."""
    return {codec: np.frombuffer(video_clips.encode(codec, N), np.uint8)
            for codec in ("libx264", "libvpx-vp9", "libvpx", "mjpeg", "mpeg4")
            if video_clips.available(codec)}


def decode(batch, real=False, **kwargs):
    """The decoded sequences of the clips `batch`."""
    return run_op(lambda fn, x: fn.decoders.video(x, **kwargs), [list(batch)], real=real)[0]


def pyav_frames(data):
    """Every frame of `data` decoded sequentially by PyAV, converted as DALI converts them."""
    import io
    with av.open(io.BytesIO(data.tobytes())) as c:
        return np.stack([f.to_ndarray(format="rgb24", interpolation=0x42002)
                         for f in c.decode(video=0)])


def expected_frames(args, count=N):
    """The frame numbers DALI returns for `args` (-1: a constant frame), written out plainly."""
    mode = {"repeat": "edge", "symmetric": "reflect_1001",
            "reflect": "reflect_101"}.get(args.get("pad_mode", "constant"),
                                          args.get("pad_mode", "constant"))
    if "frames" in args:
        idx = list(args["frames"])
    else:
        start, stride = args.get("start_frame", 0), args.get("stride", 1)
        if "sequence_length" in args:
            idx = [start + k * stride for k in range(args["sequence_length"])]
        else:
            idx = list(range(start, args.get("end_frame", count), stride))
    out = []
    for i in idx:
        if 0 <= i < count:
            out.append(i)
        elif mode == "constant":
            out.append(-1)
        elif mode == "edge":
            out.append(min(max(i, 0), count - 1))
        elif mode == "reflect_101":
            while not 0 <= i < count:
                i = -i if i < 0 else 2 * (count - 1) - i
            out.append(i)
        elif mode == "reflect_1001":
            while not 0 <= i < count:
                i = -i - 1 if i < 0 else 2 * count - 1 - i
            out.append(i)
    return out


SELECTIONS = [
    {},
    {"start_frame": 5, "sequence_length": 4},
    {"start_frame": 5, "sequence_length": 4, "stride": 3},
    {"start_frame": 5, "end_frame": 12, "stride": 2},
    {"stride": 7},
    {"end_frame": 3},
    {"start_frame": 10},
    {"frames": [3, 1, 3, 39, 0, 22, 21]},
    {"frames": []},
    {"sequence_length": 0},
    {"frames": [3, 45, -1]},
    {"start_frame": 35, "sequence_length": 8},
    {"start_frame": 35, "sequence_length": 8, "pad_mode": "none"},
    {"start_frame": 35, "sequence_length": 8, "pad_mode": "edge"},
    {"start_frame": 35, "sequence_length": 8, "pad_mode": "repeat"},
    {"start_frame": 35, "sequence_length": 12, "pad_mode": "reflect_101"},
    {"start_frame": 37, "sequence_length": 12, "pad_mode": "symmetric"},
    {"start_frame": 38, "sequence_length": 4, "stride": 2, "pad_mode": "reflect"},
    {"start_frame": 30, "end_frame": 45, "stride": 4, "pad_mode": "edge"},
    {"start_frame": -2, "sequence_length": 4, "pad_mode": "reflect_1001"},
    {"frames": [-2, 41, 100], "pad_mode": "reflect"},
    {"end_frame": 50},
]


@pytest.mark.parametrize("args", SELECTIONS, ids=str)
def test_selection(clips, args):
    out, = decode([clips["libvpx-vp9"]], **args)
    want = expected_frames(args)
    assert out.shape == (len(want), 48, 64, 3) and out.dtype == np.uint8
    assert video_clips.frame_numbers(out) == want
    assert (out[np.array(want, int) < 0] == 0).all() if len(want) else True


@pytest.mark.parametrize("codec", ["libx264", "libvpx-vp9", "libvpx", "mjpeg", "mpeg4"])
def test_codecs_seek_like_sequential_decoding(clips, codec):
    """Frames reached by seeking to keyframes equal those of one sequential decode."""
    if codec not in clips:
        pytest.skip(f"PyAV has no {codec} encoder")
    data = clips[codec]
    reference = pyav_frames(data)
    assert video_clips.frame_numbers(reference) == list(range(N))
    frames = [35, 2, 20, 19, 21, 39, 2, 0]
    out, = decode([data], frames=frames)
    np.testing.assert_array_equal(out, reference[frames])
    out, = decode([data], start_frame=3, stride=9)
    np.testing.assert_array_equal(out, reference[3::9])


@pytest.mark.parametrize("codec, container", [("libx264", "mp4"), ("libx264", "matroska"),
                                              ("mpeg4", "avi"), ("mpeg4", "mp4")])
def test_b_frames_seek_like_sequential_decoding(codec, container):
    """Clips with B-frames (decoding order differs from presentation order): any frames, in
    any order, equal those of one sequential decode."""
    if not video_clips.available(codec):
        pytest.skip(f"PyAV has no {codec} encoder")
    data = np.frombuffer(video_clips.encode(codec, 45, gop=12, bframes=2, container=container),
                         np.uint8)
    reference = pyav_frames(data)
    assert video_clips.frame_numbers(reference) == list(range(45))
    rng = np.random.default_rng(1)
    picks = [rng.integers(0, 45, int(rng.integers(1, 7))).tolist() for _ in range(4)]
    out = run_op(lambda fn, x, f: fn.decoders.video(x, frames=f),
                 [[data] * 4, [np.array(p, np.int32) for p in picks]])[0]
    for o, p in zip(out, picks, strict=True):
        np.testing.assert_array_equal(o, reference[p])


def test_layout_and_batch(clips):
    """A batch of clips of several sizes; the output layout is FHWC."""
    import dali
    from dali import fn
    small = clips["libvpx-vp9"]
    large = np.frombuffer(video_clips.encode("libvpx-vp9", 12, width=96, height=80), np.uint8)

    @dali.pipeline_def(batch_size=3, num_threads=2, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: [small, large, small], batch=True)
        return fn.decoders.video(x, sequence_length=6, stride=2)

    p = pipe()
    p.build()
    out, = p.run()
    assert out.layout() == "FHWC"
    shapes = [np.array(t).shape for t in out]
    assert shapes == [(6, 48, 64, 3), (6, 80, 96, 3), (6, 48, 64, 3)]
    assert video_clips.frame_numbers(np.array(out[1])) == [0, 2, 4, 6, 8, 10]


def test_per_sample_arguments(clips):
    data = clips["libvpx-vp9"]
    starts = [np.array(3, np.int32), np.array(30, np.int32)]
    lengths = [np.array(2, np.int32), np.array(5, np.int32)]
    out = run_op(lambda fn, x, s, n: fn.decoders.video(x, start_frame=s, sequence_length=n,
                                                       pad_mode="edge"),
                 [[data, data], starts, lengths])[0]
    assert video_clips.frame_numbers(out[0]) == [3, 4]
    assert video_clips.frame_numbers(out[1]) == [30, 31, 32, 33, 34]
    frames = [np.array([5, 1], np.int32), np.array([39, 0, 7], np.int32)]
    out = run_op(lambda fn, x, f: fn.decoders.video(x, frames=f), [[data, data], frames])[0]
    assert [video_clips.frame_numbers(o) for o in out] == [[5, 1], [39, 0, 7]]


def test_fill_value(clips):
    out, = decode([clips["libvpx-vp9"]], frames=[1, 50], fill_value=[118, 185, 0])
    assert (out[1] == [118, 185, 0]).all() and video_clips.frame_numbers(out[:1]) == [1]
    out, = decode([clips["libvpx-vp9"]], start_frame=38, sequence_length=3, fill_value=[7])
    assert (out[2] == 7).all()


@pytest.mark.parametrize("k", case_indices("video.npz"))
def test_golden(k):
    case, args, _, batch, expected = load_case("video.npz", k, 2)
    out = decode(batch, **args)
    for o, e in zip(out, expected, strict=True):
        np.testing.assert_array_equal(o, e)


@pytest.mark.oracle
@pytest.mark.parametrize("codec", ["libvpx-vp9", "libvpx", "mjpeg"])
@pytest.mark.parametrize("args", SELECTIONS[:3] + SELECTIONS[7:8] + SELECTIONS[13:16], ids=str)
def test_oracle(clips, codec, args):
    batch = [clips[codec], clips[codec]]
    for ours, real in zip(decode(batch, **args), decode(batch, real=True, **args), strict=True):
        np.testing.assert_array_equal(ours, real)


def error_of(batch, **kwargs):
    with pytest.raises(RuntimeError) as e:
        decode(batch, **kwargs)
    return str(e.value)


@pytest.mark.parametrize("args, message", [
    ({"frames": [1], "start_frame": 2}, "Cannot specify both `frames` and any of"),
    ({"frames": [1], "stride": 2}, "Cannot specify both `frames` and any of"),
    ({"sequence_length": 3, "end_frame": 5}, "Cannot specify both `sequence_length` and "
                                             "`end_frame`"),
    ({"fill_value": [300]}, "fill_value must be in range [0, 255]"),
    ({"fill_value": [1, 2]}, "Fill value size must be 1 or equal to the number of channels. "
                             "Got 2 with num_channels=3"),
    ({"pad_mode": "foo"}, "Invalid pad_mode: foo"),
    ({"start_frame": 45, "sequence_length": 3}, "Start frame 45 is out of bounds for sample #0, "
                                                "expected range [0, 40)"),
    ({"start_frame": 5, "end_frame": 3}, "end_frame (3) must be greater than start_frame (5)"),
    ({"stride": 0}, "stride must be positive, got 0"),
    ({"sequence_length": -1}, "sequence_length must not be negative"),
    ({"frames": [3, 45], "pad_mode": "none"}, "Unexpected out-of-bounds frame index 45 for "
                                              "pad_mode = 'none'"),
])
def test_argument_errors(clips, args, message):
    text = error_of([clips["libvpx-vp9"]], **args)
    assert message in text and "decoders.video" in text


@pytest.mark.oracle
@pytest.mark.parametrize("args", [
    {"frames": [1], "start_frame": 2}, {"sequence_length": 3, "end_frame": 5},
    {"fill_value": [300]}, {"pad_mode": "foo", "sequence_length": 50},
    {"start_frame": 45, "sequence_length": 3}, {"frames": [45], "pad_mode": "none"},
], ids=str)
def test_oracle_errors(clips, args):
    """DALI refuses the same arguments, with the same message."""
    ours = error_of([clips["libvpx-vp9"]], **args)
    real = error_of([clips["libvpx-vp9"]], real=True, **args)
    key = ours.split("decoders.video: ")[-1].split("\n")[0][:40]
    assert key in real


def test_bad_data_names_the_sample(clips):
    good = clips["libvpx-vp9"]
    text = error_of([good, np.frombuffer(b"not a video at all" * 10, np.uint8)])
    assert "sample 1" in text or "sample #1" in text or "[1]" in text
    assert "cannot open the video" in text
    text = error_of([good[:200]])
    assert "cannot open the video" in text and "sample 0" in text


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_truncated_clip_gives_the_frames_before_the_cut(clips, real):
    good = clips["libvpx-vp9"]
    out, = decode([good[: good.size // 3]], real=real)
    assert video_clips.frame_numbers(out) == list(range(8))


def test_experimental_alias_warns(clips):
    with pytest.warns(DeprecationWarning, match="experimental.decoders.video"):
        out = run_op(lambda fn, x: fn.experimental.decoders.video(x, frames=[4, 2]),
                     [[clips["libvpx-vp9"]]])[0]
    assert video_clips.frame_numbers(out[0]) == [4, 2]
