"""Decoded video sequences (FHWC) through the operators a video pipeline uses: resize, flip,
crop_mirror_normalize and the colour operators, with per-frame arguments (`fn.per_frame`).

Each case checks that the sequence result is the frame-by-frame result of the same operator on
HWC images (frame k with the k-th per-frame value), and compares with real DALI (oracle)."""

import numpy as np
import pytest
from layout_utils import run_layouts

av = pytest.importorskip("av")
import video_clips  # noqa: E402

F = 6


@pytest.fixture(scope="module")
def clips():
    return [np.frombuffer(video_clips.encode("libvpx-vp9", F, width=w, height=h), np.uint8)
            for w, h in ((64, 48), (80, 64))]


def per_frame_values(lo, hi, n=F, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, n).astype(np.float32)


# name -> (sequence op(fn, frames, values), frame op(fn, image, value), per-frame value range)
CASES = {
    "resize": (lambda fn, x, v: fn.resize(x, resize_x=40, resize_y=30),
               lambda fn, x, v: fn.resize(x, resize_x=40, resize_y=30), None),
    "flip": (lambda fn, x, v: fn.flip(x, horizontal=1, vertical=1),
             lambda fn, x, v: fn.flip(x, horizontal=1, vertical=1), None),
    "crop_mirror_normalize": (
        lambda fn, x, v: fn.crop_mirror_normalize(
            x, crop=(32, 40), mirror=1, mean=[120.0, 110.0, 100.0], std=[60.0, 50.0, 40.0],
            output_layout="FCHW"),
        lambda fn, x, v: fn.crop_mirror_normalize(
            x, crop=(32, 40), mirror=1, mean=[120.0, 110.0, 100.0], std=[60.0, 50.0, 40.0],
            output_layout="CHW"), None),
    "brightness_contrast": (
        lambda fn, x, v: fn.brightness_contrast(x, brightness=fn.per_frame(v), contrast=1.2),
        lambda fn, x, v: fn.brightness_contrast(x, brightness=v, contrast=1.2), (0.5, 1.5)),
    "hue": (lambda fn, x, v: fn.hue(x, hue=fn.per_frame(v)),
            lambda fn, x, v: fn.hue(x, hue=v), (-40.0, 40.0)),
    "saturation": (lambda fn, x, v: fn.saturation(x, saturation=fn.per_frame(v)),
                   lambda fn, x, v: fn.saturation(x, saturation=v), (0.2, 1.8)),
    "hsv": (lambda fn, x, v: fn.hsv(x, hue=fn.per_frame(v), value=0.9),
            lambda fn, x, v: fn.hsv(x, hue=v, value=0.9), (-30.0, 30.0)),
    "color_twist": (lambda fn, x, v: fn.color_twist(x, brightness=fn.per_frame(v)),
                    lambda fn, x, v: fn.color_twist(x, brightness=v), (0.6, 1.4)),
}


def decoded(clips):
    """The decoded sequences of `clips` (with dali)."""
    return run_layouts(lambda fn, x: fn.decoders.video(x), [clips])[0]


def on_sequences(name, clips, real=False):
    seq_op, _, span = CASES[name]
    values = [per_frame_values(*span, seed=i) if span else np.zeros(F, np.float32)
              for i in range(len(clips))]
    out, layout = run_layouts(lambda fn, x, v: seq_op(fn, fn.decoders.video(x), v),
                              [clips, values], real=real)
    return out, layout, values


@pytest.mark.parametrize("name", sorted(CASES))
def test_sequence_equals_frame_by_frame(clips, name):
    out, layout, values = on_sequences(name, clips)
    assert layout == ("FCHW" if name == "crop_mirror_normalize" else "FHWC")
    _, frame_op, span = CASES[name]
    for sequence, video, vals in zip(out, decoded(clips), values, strict=True):
        assert len(sequence) == F
        frames = list(video)
        if span:
            args = [[np.array(v, np.float32) for v in vals]]
            want, _ = run_layouts(lambda fn, x, v: frame_op(fn, x, v), [frames] + args,
                                  ["HWC", None])
        else:
            want, _ = run_layouts(lambda fn, x: frame_op(fn, x, None), [frames], ["HWC"])
        np.testing.assert_array_equal(sequence, np.stack(want))


@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(CASES))
def test_oracle(clips, name):
    ours, layout, _ = on_sequences(name, clips)
    real, real_layout, _ = on_sequences(name, clips, real=True)
    assert layout == real_layout
    for a, b in zip(ours, real, strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype
        diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
        assert diff.max() <= (0.01 if a.dtype == np.float32 else 1), name


FRAME_FLAGS = [np.array([0, 1, 0, 1, 1, 0], np.int32), np.array([1, 1, 0, 0, 1, 0], np.int32)]


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
@pytest.mark.parametrize("name, build", [
    ("horizontal", lambda fn, x, v: fn.flip(x, horizontal=fn.per_frame(v))),
    ("resize_x", lambda fn, x, v: fn.resize(x, resize_x=fn.per_frame(v), resize_y=24)),
    ("mirror", lambda fn, x, v: fn.crop_mirror_normalize(x, mirror=fn.per_frame(v),
                                                        output_layout="FHWC")),
])
def test_per_frame_arguments_dali_refuses(clips, name, build, real):
    """flip, resize and crop_mirror_normalize take one value per sample, in DALI too."""
    with pytest.raises(RuntimeError, match=name):
        run_layouts(lambda fn, x, v: build(fn, fn.decoders.video(x), v), [clips, FRAME_FLAGS],
                    real=real)


ANGLES = [np.array([20, 30, 40, 20, 30, 40], np.float32), np.array([-90], np.float32)]


@pytest.mark.parametrize("real", [False, pytest.param(True, marks=pytest.mark.oracle)])
def test_rotate_per_frame_angle(clips, real):
    """fn.rotate takes one angle per frame (or one for all of a sample's frames), in DALI too."""
    out, layout = run_layouts(
        lambda fn, x, v: fn.rotate(fn.decoders.video(x), angle=fn.per_frame(v), keep_size=True),
        [clips, ANGLES], real=real)
    assert layout == "FHWC" and out[0].shape == (F, 48, 64, 3) and out[1].shape == (F, 64, 80, 3)
    for sequence, video, angles in zip(out, decoded(clips), ANGLES, strict=True):
        angles = np.broadcast_to(angles, F)
        want, _ = run_layouts(lambda fn, x, v: fn.rotate(x, angle=v, keep_size=True),
                              [list(video), [np.float32(a) for a in angles]], ["HWC", None])
        diff = np.abs(sequence.astype(np.int16) - np.stack(want))
        assert diff.max() <= (1 if real else 0)
