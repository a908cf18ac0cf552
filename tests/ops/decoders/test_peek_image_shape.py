"""fn.peek_image_shape: shapes from headers (every format, orientation, image_type), dtypes,
input checks and the oracle."""

from __future__ import annotations

import cv2
import decoder_images as images
import numpy as np
import pytest
from pipeline_utils import run_op

from dali import fn, pipeline_def, types
from dali._executor.errors import PipelineError


def peek(samples, real=False, **kwargs):
    return run_op(lambda fn, x: fn.peek_image_shape(x, **kwargs), [list(samples)],
                  real=real)[0]


def test_shapes_of_every_format_equal_the_decoded_shapes():
    data = [*images.photos().values(), *images.variants().values(),
            *(images.with_orientation(f, o) for f in ("JPEG", "PNG", "WEBP", "TIFF")
              for o in (1, 3, 6, 8))]
    decoded = run_op(lambda fn, x: fn.decoders.image(x), [data])[0]
    for shape, d, image in zip(peek(data), data, decoded, strict=True):
        assert shape.dtype == np.int64 and shape.shape == (3,)
        assert tuple(shape) == image.shape
        assert tuple(shape[:2]) == cv2.imdecode(d, cv2.IMREAD_GRAYSCALE).shape


@pytest.mark.parametrize("image_type, channels", [
    (types.RGB, [3, 3, 3, 3, 3]), (types.BGR, [3] * 5), (types.YCbCr, [3] * 5),
    (types.GRAY, [1] * 5), (types.ANY_DATA, [3, 1, 4, 2, 1])])
def test_channels_follow_image_type(image_type, channels):
    names = ["jpeg", "jpeg_gray", "png_rgba", "png_gray_alpha", "tiff_gray"]
    out = peek([images.variants()[n] for n in names], image_type=image_type)
    assert [int(s[2]) for s in out] == channels


def test_orientation_can_be_ignored():
    out = peek([images.with_orientation("JPEG", 6)], adjust_orientation=False)
    assert out[0].tolist() == [61, 47, 3]
    assert peek([images.with_orientation("JPEG", 6)])[0].tolist() == [47, 61, 3]


@pytest.mark.parametrize("dtype, np_type", [(types.INT32, np.int32), (types.UINT64, np.uint64),
                                            (types.FLOAT, np.float32),
                                            (types.FLOAT64, np.float64)])
def test_dtype(dtype, np_type):
    (out,) = peek([images.photo()], dtype=dtype)
    assert out.dtype == np_type and out.tolist() == [320, 320, 3]


def test_other_dtypes_fail_at_build():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: [images.photo()], batch=True)
        return fn.peek_image_shape(x, dtype=types.UINT8)

    with pytest.raises(RuntimeError, match="requested: uint8"):
        pipe().build()


@pytest.mark.parametrize("sample", [images.photo().reshape(1, -1),
                                    images.photo().view(np.int8)])
def test_input_must_be_flat_uint8(sample):
    with pytest.raises(PipelineError, match="flat uint8 array"):
        peek([sample])


@pytest.mark.parametrize("bad", [np.zeros(0, np.uint8), images.variants()["png"][:300],
                                 np.frombuffer(b"GIF89a and more bytes", np.uint8)])
def test_bad_data_fails_at_run(bad):
    with pytest.raises(PipelineError, match="not a valid image") as e:
        peek([images.photo(), bad])
    assert e.value.sample == 1


@pytest.mark.oracle
@pytest.mark.parametrize("image_type", ["RGB", "GRAY", "ANY_DATA"])
def test_matches_dali(image_type):
    data = [*images.photos().values(), *images.variants().values(),
            *(images.with_orientation(f, o) for f in ("JPEG", "PNG", "WEBP", "TIFF")
              for o in (1, 5, 6))]
    if image_type == "ANY_DATA":                         # DALI crashes on gray JPEGs
        data = [d for d in data if d is not images.variants()["jpeg_gray"]]
    real_types = pytest.importorskip("nvidia.dali.types")
    ours = peek(data, image_type=getattr(types, image_type))
    real = peek(data, real=True, image_type=getattr(real_types, image_type))
    for a, b in zip(ours, real, strict=True):
        assert a.dtype == b.dtype and a.tolist() == b.tolist()
