"""on_error="skip" of the image decoders: the reader feeding the decoder replaces the images
that cannot be decoded (the labels stay with their images), lists them in reader_meta and
warns once per epoch; without a reader as input it is a build error, for the audio, video and
numpy decoders too (their epochs: test_audio_on_error.py, tests/ops/video,
test_numpy_on_error.py)."""

from __future__ import annotations

import importlib.util
import warnings

import cv2
import numpy as np
import pytest

from dali import fn, pipeline_def

N = 300
BAD = {17: "truncated", 150: "garbage", 151: "empty", 299: "text"}


@pytest.fixture(scope="module")
def jpegs(tmp_path_factory):
    root = tmp_path_factory.mktemp("jpegs")
    (root / "c").mkdir()
    rng = np.random.default_rng(0)
    for i in range(N):
        img = np.full((8 + i % 5, 10, 3), i % 251, np.uint8) + rng.integers(0, 3, (1, 1, 3),
                                                                                dtype=np.uint8)
        ok, buf = cv2.imencode(".jpg", img)
        data = buf.tobytes()
        kind = BAD.get(i)
        if kind == "truncated":
            data = data[:len(data) // 2]
        elif kind == "garbage":
            data = bytes(rng.integers(0, 256, 500, dtype=np.uint8))
        elif kind == "empty":
            data = b""
        elif kind == "text":
            data = b"not an image"
        (root / "c" / f"{i:03d}.jpg").write_bytes(data)
    return str(root)


@pytest.mark.parametrize("decoder,kwargs", [
    ("image", {}), ("image_crop", {"crop": (4, 4)}), ("image_random_crop", {}),
    ("image_slice", {"rel_start": (0.25, 0.25), "rel_shape": (0.5, 0.5)})])
def test_an_epoch_decodes_every_good_image_once(jpegs, decoder, kwargs):
    @pipeline_def(batch_size=32, num_threads=2, device_id=None, seed=1)
    def pipe():
        data, label = fn.readers.file(file_root=jpegs, name="R", prefetch_queue_depth=2)
        image = getattr(fn.decoders, decoder)(data, on_error="skip", **kwargs)
        return image, data.source_info()

    p = pipe()
    p.build()
    names = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(10):                  # 320 samples: the 296 good ones, then 24 more
            images, si = p.run()
            names += [bytes(np.array(si[i])).decode() for i in range(len(si))]
            assert all(np.array(img).ndim == 3 for img in images)
        good = [f"c/{i:03d}.jpg" for i in range(N) if i not in BAD]
        assert names[:len(good)] == good
        skipped = p.reader_meta("R")["skipped"]
        assert [s["sample"] for s in skipped][:4] == [f"c/{i:03d}.jpg" for i in sorted(BAD)]
        assert [s["sample"] for s in skipped][4:] == ["c/017.jpg"]     # the next epoch's
        assert all(f"decoders.{decoder}" in s["reason"] for s in skipped)
        counts = [w for w in caught if "skipped in this epoch" in str(w.message)]
        assert len(counts) == 1 and "4 sample(s)" in str(counts[0].message)


def test_raise_is_the_default(jpegs):
    @pipeline_def(batch_size=32, num_threads=1, device_id=None)
    def pipe():
        data, _ = fn.readers.file(file_root=jpegs)
        return fn.decoders.image(data)

    p = pipe()
    p.build()
    with pytest.raises(RuntimeError, match="decoders.image: not a valid image"):
        p.run()


def _needs(module):
    return pytest.mark.skipif(importlib.util.find_spec(module) is None,
                              reason=f"needs {module}")


DECODERS = ["image", pytest.param("audio", marks=_needs("soundfile")),
            pytest.param("video", marks=_needs("av")), "numpy"]


def _decoder_pipe(decoder, on_error):
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        data = fn.external_source(source=lambda: [np.zeros(3, np.uint8)], batch=True)
        out = getattr(fn.decoders, decoder)(data, on_error=on_error)
        return out[0] if isinstance(out, (list, tuple)) else out

    return pipe()


@pytest.mark.parametrize("decoder", DECODERS)
def test_skip_needs_a_reader_as_input(decoder):
    with pytest.raises(RuntimeError, match='on_error="skip" needs the input to be the first '
                                           "output of a reader"):
        _decoder_pipe(decoder, "skip").build()


@pytest.mark.parametrize("decoder", DECODERS)
def test_bad_value(decoder):
    with pytest.raises(RuntimeError, match='on_error must be "raise" or "skip"'):
        _decoder_pipe(decoder, "ignore").build()
