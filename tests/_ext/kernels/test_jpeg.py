import pathlib

import cv2
import numpy as np
import pytest
from dali._ext.thread_pool import ThreadPool

jpeg = pytest.importorskip("dali._ext.kernels.jpeg", reason="built without libjpeg-turbo")

IMAGES = pathlib.Path(__file__).parents[3] / "dali" / "data" / "images"


def load(name):
    return np.frombuffer((IMAGES / name).read_bytes(), np.uint8)


def test_info_reads_the_header():
    assert jpeg.info(load("photos/chelsea.jpg")) == (213, 320, 3, 1)
    assert jpeg.info(load("photos/camera.jpg")) == (320, 320, 1, 1)


def test_info_batch_reads_every_header():
    photos = sorted((IMAGES / "photos").glob("*.jpg"))
    samples = [load(f"photos/{p.name}") for p in photos]
    broken = samples[0].copy()
    broken[6:400] = 0                                  # starts like a JPEG, header broken
    batch = samples + [np.frombuffer(b"\x89PNG\r\n", np.uint8), broken]
    out = jpeg.info_batch(batch)
    assert out.dtype == np.int32 and out.shape == (len(batch), 5)
    for row, data in zip(out[:len(samples)], samples, strict=True):
        assert tuple(row) == (*jpeg.info(data), 1)
    assert tuple(out[-2]) == (0, 0, 0, 0, 0) and out[-1, 4] == -1


@pytest.mark.parametrize("x,y,w,h", [(0, 0, 320, 213), (37, 50, 100, 120), (311, 200, 9, 13),
                                     (16, 16, 16, 16)])
def test_roi_equals_the_same_region_of_a_full_decode(x, y, w, h):
    data = load("photos/chelsea.jpg")
    full = cv2.imdecode(data, cv2.IMREAD_COLOR)[:, :, ::-1]
    np.testing.assert_array_equal(jpeg.decode_roi(data, x, y, w, h), full[y:y + h, x:x + w])


def test_gray_image_as_rgb_and_gray():
    data = load("photos/camera.jpg")
    full = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)
    rgb = jpeg.decode_roi(data, 5, 6, 40, 30)
    np.testing.assert_array_equal(rgb, np.repeat(full[6:36, 5:45, None], 3, axis=2))
    gray = jpeg.decode_roi(data, 5, 6, 40, 30, color=jpeg.GRAY)
    np.testing.assert_array_equal(gray[:, :, 0], full[6:36, 5:45])


def test_dct_scaling_matches_opencv_reduced_decode():
    data = load("photos/astronaut.jpg")
    for scale, flag in ((2, cv2.IMREAD_REDUCED_COLOR_2), (4, cv2.IMREAD_REDUCED_COLOR_4)):
        ref = cv2.imdecode(data, flag)[:, :, ::-1]
        size = jpeg.scaled_size(320, scale)
        out = jpeg.decode_roi(data, 0, 0, size, size, scale=scale)
        assert out.shape == ref.shape
        assert np.abs(out.astype(int) - ref).max() <= 1


def test_errors_are_exceptions():
    with pytest.raises(jpeg.JpegError, match="Not a JPEG file"):
        jpeg.decode_roi(np.frombuffer(b"not a jpeg at all", np.uint8), 0, 0, 1, 1)
    truncated = load("photos/chelsea.jpg")[:500]
    with pytest.raises(jpeg.JpegError):
        jpeg.decode_roi(truncated.copy(), 0, 0, 10, 10)
    with pytest.raises(jpeg.JpegError, match="outside"):
        jpeg.decode_roi(load("photos/chelsea.jpg"), 300, 0, 40, 10)
    with pytest.raises(ValueError):
        jpeg.decode_roi(load("photos/chelsea.jpg"), 0, 0, 1, 1, scale=3)


def test_regions_decode_into_windows_of_a_larger_image():
    # Rows a stride apart: each region lands in its place in a whole-sized image, with the
    # pixels of a full decode; the rest is left alone.
    data = load("photos/chelsea.jpg")
    full = jpeg.decode_roi(data, 0, 0, 320, 213)
    regions = [(37, 50, 100, 120), (0, 0, 320, 213), (311, 200, 9, 13), (16, 5, 1, 1)]
    bigs = [np.zeros((213, 320, 3), np.uint8) for _ in regions]
    outs = [b[y:y + h, x:x + w] for b, (x, y, w, h) in zip(bigs, regions, strict=True)]
    table = np.array([[*r, 1] for r in regions], np.int32)
    assert jpeg.decode_batch(ThreadPool(2), [data] * 4, table, outs) == []
    for big, (x, y, w, h) in zip(bigs, regions, strict=True):
        np.testing.assert_array_equal(big[y:y + h, x:x + w], full[y:y + h, x:x + w])
        rest = np.ones(big.shape[:2], bool)
        rest[y:y + h, x:x + w] = False
        assert not big[rest].any()
    big = np.zeros((213, 320, 3), np.uint8)
    jpeg.decode_roi(data, 30, 40, 50, 60, out=big[40:100, 30:80])
    np.testing.assert_array_equal(big[40:100, 30:80], full[40:100, 30:80])
    with pytest.raises(ValueError, match="contiguous pixels"):
        jpeg.decode_roi(data, 30, 40, 50, 60, out=big[40:100, 30:130:2])


def test_a_batch_decodes_each_region_as_decode_roi_in_its_cost_order():
    # decode_batch runs the costliest regions first (the bytes down to each region's last row
    # and its pixels, from the header; all the bytes where the marker walk cannot read it):
    # the order changes no pixel and no failure.
    chelsea, astronaut, camera = (load(f"photos/{n}.jpg")
                                  for n in ("chelsea", "astronaut", "camera"))
    cut = chelsea[:len(chelsea) // 2].copy()
    garbage = np.frombuffer(b"not a jpeg at all", np.uint8)
    samples = [chelsea, astronaut, astronaut, camera, chelsea, cut, garbage]
    regions = [(0, 0, 320, 213, 1), (0, 0, 80, 80, 4), (0, 30, 40, 10, 8), (5, 6, 40, 30, 2),
               (10, 0, 100, 20, 1), (0, 0, 320, 213, 1), (0, 0, 1, 1, 1)]
    expected, failures = [], []
    for i, (data, (x, y, w, h, s)) in enumerate(zip(samples, regions, strict=True)):
        try:
            expected.append(jpeg.decode_roi(data, x, y, w, h, scale=s))
        except jpeg.JpegError as e:
            expected.append(None)
            failures.append((i, str(e)))
    assert [i for i, _ in failures] == [5, 6]
    table = np.array(regions, np.int32)
    for pool in (ThreadPool(2), None):
        outs = [np.zeros((h, w, 3), np.uint8) for _, _, w, h, _ in regions]
        assert jpeg.decode_batch(pool, samples, table, outs) == failures
        for out, ref in zip(outs, expected, strict=True):
            if ref is not None:
                np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("subsampling", [0, 1, 2])          # 4:4:4, 4:2:2, 4:2:0
def test_cropped_rows_are_those_of_a_full_decode_and_nothing_around_them_changes(subsampling):
    # The rows between a crop's first and last are decoded in place: libjpeg writes the
    # pixels of the iMCU column on either side of each, which are put back.
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(cv2.imdecode(load("photos/chelsea.jpg"), cv2.IMREAD_COLOR)).save(
        buf, "JPEG", quality=90, subsampling=subsampling)
    data = np.frombuffer(buf.getvalue(), np.uint8)
    full = jpeg.decode_roi(data, 0, 0, 320, 213)
    pad = 200
    for x, y, w, h in ((37, 50, 100, 120), (1, 3, 33, 40), (17, 0, 303, 213), (300, 9, 20, 7),
                       (255, 100, 2, 50)):
        flat = np.full(2 * pad + h * w * 3, 171, np.uint8)
        out = jpeg.decode_roi(data, x, y, w, h, out=flat[pad:pad + h * w * 3].reshape(h, w, 3))
        np.testing.assert_array_equal(out, full[y:y + h, x:x + w])
        assert (flat[:pad] == 171).all() and (flat[-pad:] == 171).all()
        big = np.full((213, 320, 3), 171, np.uint8)
        jpeg.decode_roi(data, x, y, w, h, out=big[y:y + h, x:x + w])
        rest = np.ones(big.shape[:2], bool)
        rest[y:y + h, x:x + w] = False
        assert (big[rest] == 171).all()


def _header_variants():
    """JPEGs of every kind the marker walk meets: the bundled ones, progressive, CMYK, gray,
    with EXIF orientations (big and little endian), restart intervals, comments."""
    import io

    from PIL import Image

    out = [load(str(p.relative_to(IMAGES))) for p in sorted(IMAGES.rglob("*.jpg"))]
    rgb = Image.fromarray(np.arange(48 * 40 * 3, dtype=np.uint8).reshape(40, 48, 3))
    for kwargs in ({}, {"progressive": True}, {"quality": 30, "subsampling": 0},
                   {"restart_marker_blocks": 2}, {"comment": b"hello"}):
        buf = io.BytesIO()
        rgb.save(buf, "JPEG", **kwargs)
        out.append(np.frombuffer(buf.getvalue(), np.uint8))
    for mode in ("CMYK", "L"):
        buf = io.BytesIO()
        rgb.convert(mode).save(buf, "JPEG")
        out.append(np.frombuffer(buf.getvalue(), np.uint8))
    for orientation in (3, 6, 8):
        exif = Image.Exif()
        exif[0x0112] = orientation
        for endian in ("<", ">"):
            buf = io.BytesIO()
            exif.endian = endian
            rgb.save(buf, "JPEG", exif=exif.tobytes())
            out.append(np.frombuffer(buf.getvalue(), np.uint8))
    return out


def _libjpeg(data):
    try:
        return jpeg.info(data)
    except jpeg.JpegError:
        return None


def test_fast_header_walk_reads_what_libjpeg_reads():
    variants = _header_variants()
    for data in variants:
        assert jpeg.info_fast(data) == jpeg.info(data)
    assert {jpeg.info(d)[3] for d in variants} >= {1, 3, 6, 8}
    assert {jpeg.info(d)[2] for d in variants} >= {1, 3, 4}


def test_fast_header_walk_never_accepts_what_libjpeg_reads_otherwise():
    """Truncated and corrupted headers: the walk gives libjpeg's answer or leaves it to
    libjpeg, and info_batch gives the same rows either way."""
    rng = np.random.default_rng(5)
    damaged = []
    for data in _header_variants():
        end = min(len(data), 700)
        damaged += [data[:k].copy() for k in range(0, end, 7)]
        for _ in range(60):
            bad = data.copy()
            at = rng.integers(0, end, rng.integers(1, 4))
            bad[at] = rng.integers(0, 256, len(at))
            damaged.append(bad)
    accepted = 0
    for data in damaged:
        fast = jpeg.info_fast(data)
        if fast is not None:
            accepted += 1
            assert fast == _libjpeg(data)
    assert accepted > len(damaged) // 4
    np.testing.assert_array_equal(jpeg.info_batch(damaged), jpeg.info_batch(damaged, fast=False))
