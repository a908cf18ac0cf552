"""fn.decoders.image_random_crop: windows (from coordinate images), equality with
fn.random_resized_crop's windows, exact crops of the full decode, threads, output types,
argument checks and the oracle."""

from __future__ import annotations

import decoder_images as images
import numpy as np
import pytest
from pipeline_utils import run_op

from dali import fn, pipeline_def, types
from dali.ops.decoders import _decode

SIZES = [(61, 47), (200, 300), (333, 500), (500, 375), (1, 50), (40, 60), (17, 1000),
         (256, 256)] * 4


def windows_of(outs):
    res = []
    for a in outs:
        y, x = images.read_coordinates(a)
        assert (np.diff(y, axis=0) == 1).all() and (np.diff(x, axis=1) == 1).all()
        res.append((int(y[0, 0]), int(x[0, 0]), a.shape[0], a.shape[1]))
    return res


def random_crop(samples, num_threads=1, seed=42, **kwargs):
    return run_op(lambda fn, x: fn.decoders.image_random_crop(x, seed=seed, **kwargs),
                  [list(samples)], num_threads=num_threads)[0]


def test_windows_are_crops_inside_the_image():
    pngs = [images.coordinates_png(*s) for s in SIZES]
    for (y, x, h, w), (hh, ww) in zip(windows_of(random_crop(pngs)), SIZES, strict=True):
        assert 0 <= y and y + h <= hh and 0 <= x and x + w <= ww and h > 0 and w > 0


def test_window_statistics():
    pngs = [images.coordinates_png(48, 64)] * 256
    win = np.array(windows_of(random_crop(pngs, seed=3)))
    area = win[:, 2] * win[:, 3] / (48 * 64)
    aspect = win[:, 3] / win[:, 2]
    assert (area >= 0.08 * 0.9).all() and (area <= 1).all()
    assert (aspect >= 3 / 4 - 1e-6).all() and (aspect <= 4 / 3 + 1e-6).all()
    assert 0.35 < area.mean() < 0.55
    assert abs(np.log(aspect).mean()) < 0.05
    assert len(set(map(tuple, win))) > 200


def test_same_windows_as_random_resized_crop_with_the_same_seed():
    pngs = [images.coordinates_png(*s) for s in SIZES]

    def build(fn, x):
        crop = fn.decoders.image_random_crop(x, seed=11, random_area=[0.1, 0.9])
        resized = fn.random_resized_crop(fn.decoders.image(x), size=[1024, 1024], seed=11,
                                         random_area=[0.1, 0.9],
                                         interp_type=types.INTERP_NN)
        return crop, resized

    crops, resized = run_op(build, [pngs])
    for crop, big in zip(crops, resized, strict=True):
        y, x = images.read_coordinates(big)
        window = (int(y.min()), int(x.min()), int(y.max() - y.min() + 1),
                  int(x.max() - x.min() + 1))
        assert windows_of([crop])[0] == window


def test_jpeg_crops_equal_the_full_decode_at_the_same_windows():
    # Windows depend only on the seed, the sample index and the image size.
    jpegs = list(images.photos().values()) + [images.variants()["jpeg_progressive"]]
    full = run_op(lambda fn, x: fn.decoders.image(x), [jpegs])[0]
    pngs = [images.coordinates_png(*f.shape[:2]) for f in full]
    for output_type in (types.RGB, types.GRAY):
        crops = random_crop(jpegs, output_type=output_type)
        whole = run_op(lambda fn, x, t=output_type: fn.decoders.image(x, output_type=t),
                       [jpegs])[0]
        for crop, f, (y, x, h, w) in zip(crops, whole, windows_of(random_crop(pngs)),
                                         strict=True):
            np.testing.assert_array_equal(crop, f[y:y + h, x:x + w])


def test_turned_images_crop_the_displayed_image():
    data = [images.with_orientation(fmt, o) for fmt in ("JPEG", "PNG") for o in range(1, 9)]
    full = run_op(lambda fn, x: fn.decoders.image(x), [data])[0]
    pngs = [images.coordinates_png(*f.shape[:2]) for f in full]
    for crop, f, (y, x, h, w) in zip(random_crop(data), full, windows_of(random_crop(pngs)),
                                     strict=True):
        np.testing.assert_array_equal(crop, f[y:y + h, x:x + w])


def test_opencv_fallback_gives_the_same_crops(monkeypatch):
    jpegs = list(images.photos().values())
    with_kernel = random_crop(jpegs)
    monkeypatch.setattr(_decode, "jpeg", None)
    for a, b in zip(random_crop(jpegs), with_kernel, strict=True):
        np.testing.assert_array_equal(a, b)


def test_windows_do_not_depend_on_threads_or_batch_position():
    jpegs = list(images.photos().values()) * 3
    one = random_crop(jpegs)
    four = random_crop(jpegs, num_threads=4)
    for a, b in zip(one, four, strict=True):
        np.testing.assert_array_equal(a, b)
    other_seed = random_crop(jpegs, seed=43)
    assert any(a.shape != b.shape for a, b in zip(one, other_seed, strict=True))


def test_dtype_and_output_type():
    jpegs = list(images.photos().values())[:4]
    u8 = random_crop(jpegs, output_type=types.YCbCr)
    f32 = random_crop(jpegs, output_type=types.YCbCr, dtype=types.FLOAT)
    for a, b in zip(u8, f32, strict=True):
        assert b.dtype == np.float32 and a.shape == b.shape
        assert np.abs(a / 255.0 - b).max() < 1.5 / 255     # offsets: 16/256 vs 16/255


def test_seeds_differ_per_iteration_and_repeat_per_pipeline():
    jpegs = list(images.photos().values())[:4]

    def shapes(seed):
        @pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=seed)
        def pipe():
            x = fn.external_source(source=lambda: jpegs, batch=True)
            return fn.decoders.image_random_crop(x)

        p = pipe()
        p.build()
        return [[tuple(s) for s in p.run()[0].shape()] for _ in range(3)]

    first = shapes(5)
    assert first == shapes(5)
    assert first[0] != first[1]
    assert first != shapes(6)


def test_bad_ranges_fail_at_build():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: [images.photo()], batch=True)
        return fn.decoders.image_random_crop(x, random_area=[0.5, 0.1])

    with pytest.raises(RuntimeError, match="random_area"):
        pipe().build()


@pytest.mark.oracle
def test_whole_image_windows_match_dali():
    # Square images, the whole area and aspect ratio 1: the window is the image.
    jpegs = [d for d in images.photos().values() if images.cv2.imdecode(d, 0).shape == (320, 320)]
    kwargs = dict(random_area=[1.0, 1.0], random_aspect_ratio=[1.0, 1.0])
    ours = random_crop(jpegs, **kwargs)
    real_types = pytest.importorskip("nvidia.dali.types")
    real = run_op(lambda fn, x: fn.decoders.image_random_crop(
        x, output_type=real_types.RGB, **kwargs), [jpegs], real=True)[0]
    for a, b in zip(ours, real, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.oracle
def test_dali_crops_are_crops_of_its_full_decode_too():
    jpegs = list(images.photos().values())[:6]
    full, crops = run_op(lambda fn, x: (fn.decoders.image(x), fn.decoders.image_random_crop(x)),
                         [jpegs], real=True)
    ours = run_op(lambda fn, x: fn.decoders.image(x), [jpegs])[0]
    for f, c, o in zip(full, crops, ours, strict=True):
        np.testing.assert_array_equal(f, o)
        h, w = c.shape[:2]
        found = any(np.array_equal(f[y:y + h, x:x + w], c)
                    for y in range(f.shape[0] - h + 1) for x in range(f.shape[1] - w + 1)
                    if f[y, x, 0] == c[0, 0, 0])
        assert found
