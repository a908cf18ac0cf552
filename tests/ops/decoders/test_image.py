"""fn.decoders.image: pixels vs OpenCV references and the oracle, output types, data types,
EXIF orientation, errors, arguments, threads and the OpenCV fallback for JPEGs."""

from __future__ import annotations

import cv2
import decoder_images as images
import numpy as np
import pytest
from pipeline_utils import run_op

from dali import fn, pipeline_def, types
from dali._executor.errors import PipelineError
from dali.ops.decoders import _convert, _decode

OUTPUT_TYPES = ["RGB", "BGR", "GRAY", "YCbCr", "ANY_DATA"]


def decode(samples, real=False, num_threads=1, **kwargs):
    """Decode a batch of encoded samples; kwargs may name output_type/dtype as strings."""
    tmod = pytest.importorskip("nvidia.dali.types") if real else types
    for key, enum in (("output_type", "DALIImageType"), ("dtype", "DALIDataType")):
        if isinstance(kwargs.get(key), str):
            kwargs[key] = getattr(getattr(tmod, enum), kwargs[key])
    return run_op(lambda fn, x: fn.decoders.image(x, **kwargs), [list(samples)], real=real,
                  num_threads=num_threads)[0]


def test_jpegs_match_opencv_exactly():
    data = list(images.photos().values())
    for output_type in ("RGB", "BGR", "GRAY"):
        for out, d in zip(decode(data, output_type=output_type), data, strict=True):
            np.testing.assert_array_equal(out, images.opencv_reference(d, output_type))


@pytest.mark.parametrize("name", sorted(images.variants()))
@pytest.mark.parametrize("output_type", ["RGB", "BGR", "GRAY"])
def test_formats_match_opencv(name, output_type):
    data = images.variants()[name]
    (out,) = decode([data], output_type=output_type)
    assert out.dtype == np.uint8 and out.shape[:2] == (61, 47)
    np.testing.assert_array_equal(out, images.opencv_reference(data, output_type))


@pytest.mark.parametrize("name, channels", [
    ("jpeg", 3), ("jpeg_gray", 1), ("png_gray", 1), ("png_rgba", 4), ("png_palette", 3),
    ("png_gray_alpha", 2), ("webp_rgba", 4), ("tiff_gray", 1), ("pgm", 1), ("bmp", 3)])
def test_any_data_keeps_the_images_channels(name, channels):
    data = images.variants()[name]
    (out,) = decode([data], output_type="ANY_DATA")
    assert out.shape == (61, 47, channels)
    rgb = images.opencv_reference(data, "RGB")
    gray = images.opencv_reference(data, "GRAY")
    if channels >= 3:
        np.testing.assert_array_equal(out[:, :, :3], rgb)
    else:
        np.testing.assert_array_equal(out[:, :, :1], gray)
    if name in ("png_rgba", "png_gray_alpha"):
        alpha = (np.arange(61 * 47) % 256).reshape(61, 47)
        np.testing.assert_array_equal(out[:, :, -1], alpha)


@images.needs_jpeg_kernel
def test_cmyk_jpegs_convert_like_dali():
    data, ink = images.cmyk_jpeg()
    rgb, gray, window = (decode([data], output_type=t)[0] for t in ("RGB", "GRAY", "ANY_DATA"))
    ref = np.floor((255 - ink[:, :, :3].astype(int)) * (255 - ink[:, :, 3:].astype(int)) / 255
                   + 0.5)
    np.testing.assert_array_equal(rgb, ref)
    f = rgb.astype(np.float32)
    ref_gray = (np.float32(0.299) * f[:, :, 0] + np.float32(0.587) * f[:, :, 1]) + \
        np.float32(0.114) * f[:, :, 2]
    np.testing.assert_array_equal(gray[:, :, 0], ref_gray.astype(np.uint8))
    np.testing.assert_array_equal(window, rgb)
    crop = run_op(lambda fn, x: fn.decoders.image_crop(x, crop=(20, 30), crop_pos_x=0.2),
                  [[data]])[0][0]
    np.testing.assert_array_equal(crop, rgb[21:41, 3:33])


def test_ycbcr_is_bt601_studio_swing_of_the_rgb_decode():
    data = [images.photo(), images.variants()["png"], images.variants()["jpeg_gray"]]
    rgbs = decode(data)
    for out, rgb in zip(decode(data, output_type="YCbCr"), rgbs, strict=True):
        r, g, b = (rgb[:, :, k].astype(np.float64) for k in range(3))
        ref = np.stack([16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255,
                        128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255,
                        128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255], axis=-1)
        diff = np.abs(out.astype(int) - np.rint(ref))     # DALI computes it in float32
        assert diff.max() <= 1 and diff.mean() < 1e-3
    gray = decode(data[2:], output_type="YCbCr")[0]
    assert (gray[:, :, 1:] == 128).all()


RAMP = np.arange(256, dtype=np.uint8).reshape(16, 16)


@pytest.mark.parametrize("dtype, np_type, expected", [
    ("FLOAT", np.float32, RAMP.astype(np.float32) * np.float32(1 / 255)),
    ("UINT16", np.uint16, RAMP.astype(np.uint16) * 257),
    ("INT16", np.int16, np.rint(RAMP.astype(np.int64) * 32767 / 255)),
    ("INT8", np.int8, np.rint(RAMP.astype(np.int64) * 127 / 255)),
    ("UINT32", np.uint32, np.minimum(np.float64(np.float32(RAMP) * np.float32(1 / 255)
                                                * np.float32(2 ** 32)), 2 ** 32 - 1)),
    ("INT32", np.int32, np.minimum(np.float64(np.float32(RAMP) * np.float32(1 / 255)
                                              * np.float32(2 ** 31)), 2 ** 31 - 1)),
])
def test_dtype_scales_to_the_dynamic_range(dtype, np_type, expected):
    (out,) = decode([images.encode(".png", RAMP)], dtype=dtype, output_type="GRAY")
    assert out.dtype == np_type
    np.testing.assert_array_equal(out[:, :, 0], np.asarray(expected).astype(np_type))


def test_16_bit_images_keep_their_precision():
    data = images.variants()["png_16"]
    deep = np.random.default_rng(0).integers(0, 65536, (61, 47, 3)).astype(np.uint16)
    (out,) = decode([data], dtype="UINT16")
    np.testing.assert_array_equal(out, deep)
    (out8,) = decode([data])
    np.testing.assert_array_equal(out8, np.rint(deep / 257).astype(np.uint8))


@pytest.mark.parametrize("dtype", ["FLOAT16", "FLOAT64", "INT64", "BOOL"])
def test_unsupported_dtype_fails_at_run(dtype):
    with pytest.raises(PipelineError, match="unsupported output type"):
        decode([images.photo()], dtype=dtype)


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_is_applied(fmt, orientation):
    data = images.with_orientation(fmt, orientation)
    (out,) = decode([data])
    upright = images.opencv_reference(images.with_orientation(fmt, 1), "RGB")
    np.testing.assert_array_equal(out, _convert.orient(upright, orientation))
    (stored,) = decode([data], adjust_orientation=False)
    np.testing.assert_array_equal(stored, upright)


def test_mixed_batch_of_formats_and_sizes():
    data = [*images.photos().values(), *images.variants().values()]
    outs = decode(data, num_threads=3)
    for out, d in zip(outs, data, strict=True):
        np.testing.assert_array_equal(out, images.opencv_reference(d, "RGB"))


@pytest.mark.parametrize("output_type", OUTPUT_TYPES)
def test_results_do_not_depend_on_threads(output_type):
    data = [*images.photos().values(), *images.variants().values()]
    one = decode(data, output_type=output_type)
    four = decode(data, output_type=output_type, num_threads=4)
    for a, b in zip(one, four, strict=True):
        np.testing.assert_array_equal(a, b)


def test_opencv_decodes_jpegs_without_the_kernel(monkeypatch):
    data = [*images.photos().values(), images.variants()["jpeg_progressive"],
            images.with_orientation("JPEG", 6)]
    with_kernel = {t: decode(data, output_type=t) for t in OUTPUT_TYPES}
    monkeypatch.setattr(_decode, "jpeg", None)
    for t in OUTPUT_TYPES:
        for a, b in zip(decode(data, output_type=t), with_kernel[t], strict=True):
            np.testing.assert_array_equal(a, b)


def test_layout_and_type_of_the_output():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: [images.photo(), images.variants()["png"]],
                               batch=True)
        return fn.decoders.image(x), fn.decoders.image(x, output_type=types.GRAY,
                                                       dtype=types.FLOAT)

    p = pipe()
    p.build()
    rgb, gray = p.run()
    assert rgb.layout() == "HWC" and rgb.dtype == types.UINT8
    assert gray.layout() == "HWC" and gray.dtype == types.FLOAT
    assert [tuple(s) for s in rgb.shape()] == [(320, 320, 3), (61, 47, 3)]


# -- errors ---------------------------------------------------------------------------------

TRUNCATED = images.photo()[: len(images.photo()) * 7 // 10]


@pytest.mark.parametrize("bad, message", [
    (np.frombuffer(b"this is not an image at all" * 4, np.uint8), "unknown or unsupported"),
    (np.zeros(0, np.uint8), "empty data"),
    pytest.param(TRUNCATED, "Premature end of JPEG data", marks=images.needs_jpeg_kernel),
    pytest.param(images.photo()[:300], "not a valid image", marks=images.needs_jpeg_kernel),
    (images.variants()["png"][:200], "truncated PNG"),
    (images.pil_encode(images.Image.fromarray(images.rgb()), "GIF"), "unsupported image format"),
])
def test_bad_samples_fail_at_run_naming_the_sample(bad, message):
    good = images.photo()
    with pytest.raises(PipelineError, match=message) as e:
        decode([good, good, bad, good])
    assert isinstance(e.value, RuntimeError)
    assert e.value.sample == 2
    assert "dali.fn.decoders.image" in str(e.value) and "in sample 2 of the batch" in str(e.value)


@images.needs_jpeg_kernel
def test_corrupt_file_from_a_reader_names_the_file(tmp_path):
    (tmp_path / "cls").mkdir()
    (tmp_path / "cls" / "a.jpg").write_bytes(images.photo().tobytes())
    (tmp_path / "cls" / "b.jpg").write_bytes(TRUNCATED.tobytes())

    @pipeline_def(batch_size=2, num_threads=2, device_id=None)
    def pipe():
        jpegs, _ = fn.readers.file(file_root=str(tmp_path))
        return fn.decoders.image(jpegs)

    p = pipe()
    p.build()
    with pytest.raises(PipelineError, match="Premature end of JPEG data") as e:
        p.run()
    assert e.value.sample == 1 and e.value.source_info == "cls/b.jpg"
    assert "from 'cls/b.jpg'" in str(e.value)


def test_corrupt_entropy_data_still_decodes_like_opencv():
    data = images.photo().copy()
    data[len(data) // 2: len(data) // 2 + 50] = 0x55
    (out,) = decode([data])
    np.testing.assert_array_equal(out, images.opencv_reference(data, "RGB"))


def test_input_must_be_bytes():
    words = images.photo()[:1000].astype(np.int32)
    with pytest.raises(PipelineError, match="encoded images stored as uint8 bytes, got int32"):
        run_op(lambda fn, x: fn.decoders.image(x), [[words]])


def test_mixed_backend_needs_a_gpu():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: [images.photo()], batch=True)
        return fn.decoders.image(x, device="mixed")

    with pytest.raises(RuntimeError, match="requires a CUDA-capable GPU"):
        pipe().build()


def test_mixed_backend_arguments_are_accepted_on_the_cpu():
    kwargs = dict(hw_decoder_load=0.9, device_memory_padding=1 << 20, host_memory_padding=1,
                  preallocate_width_hint=500, preallocate_height_hint=400, affine=False,
                  hybrid_huffman_threshold=5, jpeg_fancy_upsampling=True, cache_size=100,
                  cache_type="threshold", cache_threshold=10)
    (out,) = decode([images.photo()], **kwargs)
    np.testing.assert_array_equal(out, images.opencv_reference(images.photo(), "RGB"))


def test_deprecated_arguments_warn():
    with pytest.warns(DeprecationWarning, match="memory_stats"):
        decode([images.photo()], memory_stats=True)


@images.needs_jpeg_kernel
def test_fast_idct_is_close_to_the_accurate_one():
    (fast,) = decode([images.photo()], use_fast_idct=True)
    (slow,) = decode([images.photo()])
    diff = np.abs(fast.astype(int) - slow)
    assert 0 < diff.max() <= 8 and diff.mean() < 2


def test_without_the_jpeg_kernel_opencv_decodes_jpegs(monkeypatch):
    good = images.photo()
    monkeypatch.setattr(_decode, "jpeg", None)
    (out,) = decode([good])
    np.testing.assert_array_equal(out, cv2.imdecode(good, cv2.IMREAD_COLOR)[:, :, ::-1])
    with pytest.raises(PipelineError, match="OpenCV could not decode the JPEG data") as e:
        decode([good, TRUNCATED[:len(TRUNCATED) // 4]])
    assert e.value.sample == 1
    with pytest.raises(NotImplementedError, match="`use_fast_idct` needs dali's libjpeg-turbo"):
        decode([good], use_fast_idct=True)


def test_every_decoder_has_a_docstring():
    for f in (fn.decoders.image, fn.decoders.image_crop, fn.decoders.image_random_crop):
        assert f.__doc__.startswith("Decodes images") and "output_type :" in f.__doc__
    assert fn.peek_image_shape.__doc__.startswith("Obtains the shape of the encoded image")


# -- the oracle -----------------------------------------------------------------------------

@pytest.mark.oracle
@pytest.mark.parametrize("output_type", ["RGB", "BGR", "GRAY", "YCbCr"])
@pytest.mark.parametrize("dtype", ["UINT8", "FLOAT", "INT16"])
def test_matches_dali(output_type, dtype):
    data = [*images.photos().values(), *images.variants().values(),
            images.with_orientation("JPEG", 6), images.with_orientation("PNG", 7),
            images.cmyk_jpeg()[0]]
    ours = decode(data, output_type=output_type, dtype=dtype)
    real = decode(data, real=True, output_type=output_type, dtype=dtype)
    for a, b in zip(ours, real, strict=True):
        assert a.dtype == b.dtype
        if output_type == "YCbCr" and dtype != "UINT8":      # float32 rounding order
            np.testing.assert_allclose(a, b, rtol=0, atol=2e-7 if dtype == "FLOAT" else 1)
        else:
            np.testing.assert_array_equal(a, b)


@pytest.mark.oracle
def test_matches_dali_any_data():
    # DALI crashes on gray JPEGs and refuses gray+alpha PNGs here; the rest match.
    names = [n for n in images.variants() if n not in ("jpeg_gray", "png_gray_alpha")]
    data = [images.variants()[n] for n in names] + [images.with_orientation("WEBP", 8)]
    for a, b in zip(decode(data, output_type="ANY_DATA"),
                    decode(data, real=True, output_type="ANY_DATA"), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.oracle
def test_fast_idct_matches_dali():
    data = list(images.photos().values())
    for a, b in zip(decode(data, use_fast_idct=True),
                    decode(data, real=True, use_fast_idct=True), strict=True):
        np.testing.assert_array_equal(a, b)


def _jpeg_declaring(height, width):
    """A small JPEG whose frame header (SOF0) declares height x width pixels."""
    data = bytearray(images.encode(".jpg", images.rgb(16, 16)).tobytes())
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = height.to_bytes(2, "big") + width.to_bytes(2, "big")
    return images.as_array(bytes(data))


def test_decompression_bomb_is_refused_before_allocation():
    # 30000 x 30000 declared in a few hundred bytes: refused by the pixel limit (2**28).
    good = images.photo()
    with pytest.raises(PipelineError, match=r"(?s)the image declares 30000 x 30000 pixels, "
                       r"more than the limit of 268435456.*DALI_MAX_IMAGE_PIXELS.*sample 1"):
        decode([good, _jpeg_declaring(30000, 30000)])


def test_pixel_limit_comes_from_the_environment(monkeypatch):
    small = images.encode(".png", images.rgb(20, 30))
    monkeypatch.setenv("DALI_MAX_IMAGE_PIXELS", "599")
    with pytest.raises(PipelineError, match="declares 20 x 30 pixels, more than the limit "
                                            "of 599"):
        decode([small])
    monkeypatch.setenv("DALI_MAX_IMAGE_PIXELS", "600")
    (out,) = decode([small])
    assert out.shape == (20, 30, 3)
    monkeypatch.setenv("DALI_MAX_IMAGE_PIXELS", "lots")
    with pytest.raises(PipelineError, match="DALI_MAX_IMAGE_PIXELS='lots' is not a number"):
        decode([small])


def test_batch_larger_than_the_machine_is_refused(monkeypatch):
    monkeypatch.setattr(_decode, "physical_memory", lambda: 1000)
    with pytest.raises(PipelineError, match=r"the decoded batch would take 3600 bytes, more "
                                            r"than this machine's 1000 bytes"):
        decode([images.encode(".png", images.rgb(20, 30)), images.encode(".png",
                                                                         images.rgb(20, 30))])


def test_batch_larger_than_the_address_space_limit_is_refused(monkeypatch):
    monkeypatch.setattr(_decode, "address_space_left", lambda: 2000)
    with pytest.raises(PipelineError, match=r"the decoded batch would take 3600 bytes, more "
                                            r"than the 2000 bytes the process's address-space "
                                            r"limit \(RLIMIT_AS\) leaves"):
        decode([images.encode(".png", images.rgb(20, 30)), images.encode(".png",
                                                                         images.rgb(20, 30))])
    monkeypatch.undo()
    assert _decode.address_space_left() is None or _decode.address_space_left() > 0
