"""fn.decoders.image_crop: windows placed like fn.crop, exact crops of the full decode, per-sample
arguments, errors and the oracle."""

from __future__ import annotations

import decoder_images as images
import numpy as np
import pytest
from pipeline_utils import run_op

from dali import fn, pipeline_def, types
from dali._executor.errors import PipelineError

PHOTOS = list(images.photos().values())
LARGE = [images.with_orientation("JPEG", 6, images.rgb(250, 300)),
         images.with_orientation("PNG", 7, images.rgb(250, 300)),
         images.encode(".webp", images.rgb(250, 300))]


def crop(samples, real=False, **kwargs):
    return run_op(lambda fn, x: fn.decoders.image_crop(x, **kwargs), [list(samples)],
                  real=real)[0]


def full(samples, **kwargs):
    return run_op(lambda fn, x: fn.decoders.image(x, **kwargs), [list(samples)])[0]


@pytest.mark.parametrize("kwargs", [
    dict(crop=(100, 117), crop_pos_x=0.3, crop_pos_y=0.77),
    dict(crop_h=41, crop_w=33, crop_pos_x=0.9, crop_pos_y=0.0, rounding="truncate"),
    dict(crop=(213, 200)),
    dict(crop=(0, 60), crop_pos_x=1.0),
    dict(crop=(5, 64, 64), crop_pos_y=1.0),
])
def test_crop_is_the_window_of_the_full_decode(kwargs):
    data = PHOTOS + LARGE
    size = kwargs.get("crop") or (kwargs["crop_h"], kwargs["crop_w"])
    ch, cw = size[-2:]
    px, py = kwargs.get("crop_pos_x", 0.5), kwargs.get("crop_pos_y", 0.5)
    rnd = np.trunc if kwargs.get("rounding") == "truncate" else (lambda v: np.floor(v + 0.5))
    for out, f in zip(crop(data, **kwargs), full(data), strict=True):
        h, w = ch or f.shape[0], cw or f.shape[1]
        y = int(rnd(float(np.float32(py)) * (f.shape[0] - h)))     # float32 position, double
        x = int(rnd(float(np.float32(px)) * (f.shape[1] - w)))     # product, as DALI
        np.testing.assert_array_equal(out, f[y:y + h, x:x + w])


def test_per_sample_positions_and_output_types():
    data = PHOTOS[:4]
    pos = [np.float32(v) for v in (0.0, 0.25, 0.5, 1.0)]

    @pipeline_def(batch_size=4, num_threads=2, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: data, batch=True)
        p = fn.external_source(source=lambda: pos, batch=True)
        return fn.decoders.image_crop(x, crop=(50, 60), crop_pos_x=p, crop_pos_y=p,
                                      output_type=types.GRAY, dtype=types.FLOAT)

    pp = pipe()
    pp.build()
    (out,) = pp.run()
    for i, f in enumerate(full(data, output_type=types.GRAY)):
        o = np.array(out[i])
        assert o.shape == (50, 60, 1) and o.dtype == np.float32
        y = int(np.floor(float(pos[i]) * (f.shape[0] - 50) + 0.5))
        x = int(np.floor(float(pos[i]) * (f.shape[1] - 60) + 0.5))
        np.testing.assert_allclose(o, f[y:y + 50, x:x + 60] / np.float32(255), rtol=1e-6)


def test_window_larger_than_the_image_fails_at_run():
    message = r"cropping window \[-50\.\.263, 130\.\.190\] .* \[213 x 320\]"
    with pytest.raises(PipelineError, match=message):
        crop([PHOTOS[0], images.photo("photos/chelsea.jpg")], crop=(313, 60))


def test_position_out_of_range_fails_at_run():
    with pytest.raises(PipelineError, match="out of range"):
        crop(PHOTOS[:1], crop=(10, 10), crop_pos_x=1.5)


def test_crop_h_needs_crop_w():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: PHOTOS[:1], batch=True)
        return fn.decoders.image_crop(x, crop_h=10)

    with pytest.raises(RuntimeError, match="must be provided together"):
        pipe().build()


def test_no_out_of_bounds_policy_argument():
    with pytest.raises(KeyError, match="out_of_bounds_policy"):
        fn.decoders.image_crop(None, crop=(1, 1), out_of_bounds_policy="pad")


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs", [
    dict(crop=(100, 117), crop_pos_x=0.3, crop_pos_y=0.77),
    dict(crop=(41, 33), crop_pos_x=0.9, crop_pos_y=0.1, rounding="truncate"),
    dict(crop=(64, 64), output_type="GRAY"),
])
def test_matches_dali(kwargs):
    data = PHOTOS + LARGE
    real_kwargs = dict(kwargs)
    if "output_type" in kwargs:
        real_types = pytest.importorskip("nvidia.dali.types")
        real_kwargs["output_type"] = getattr(real_types, kwargs["output_type"])
        kwargs = dict(kwargs, output_type=getattr(types, kwargs["output_type"]))
    for a, b in zip(crop(data, **kwargs), crop(data, real=True, **real_kwargs), strict=True):
        np.testing.assert_array_equal(a, b)
