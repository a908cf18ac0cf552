"""Region fusion (dali.ops._regions): which operators are linked, and that a fused pipeline
gives exactly the unfused pipeline's outputs (and real DALI's, within the resize goldens'
tolerance)."""

import pathlib

import cv2
import decoder_images as images
import numpy as np
import pytest

import dali
from dali import fn, pipeline_def, types
from dali._executor.errors import PipelineError
from dali._executor.workspace import Workspace
from dali.ops import _regions

PHOTOS = sorted((pathlib.Path(dali.__file__).parent / "data" / "images").glob("**/*.jpg"))
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def _encoded():
    """The photos (colour and gray, various sizes) and samples that do not take the ROI
    path: a PNG, a progressive JPEG and a JPEG with EXIF orientation 6 (turned)."""
    samples = [np.frombuffer(p.read_bytes(), np.uint8) for p in PHOTOS]
    big = cv2.imdecode(samples[0], cv2.IMREAD_COLOR_RGB)
    samples.append(images.encode(".png", big[:150, :190]))
    samples.append(images.encode(".jpg", big[:170, :230], [cv2.IMWRITE_JPEG_PROGRESSIVE, 1]))
    samples.append(images.with_orientation("JPEG", 6, np.ascontiguousarray(big[:130, :200])))
    return samples


SAMPLES = _encoded()


def _build(graph, fuse=True, batch_size=None, backend=dali):
    batch_size = batch_size or len(SAMPLES)

    @backend.pipeline_def(batch_size=batch_size, num_threads=2, device_id=None, seed=17)
    def pipe():
        jpegs = backend.fn.external_source(source=lambda: SAMPLES[:batch_size])
        return graph(backend.fn, backend.types, jpegs)

    p = pipe()
    if backend is dali:
        p._fuse_regions = fuse
    p.build()
    return p


def _run(graph, fuse=True, iterations=2, backend=dali):
    p = _build(graph, fuse, backend=backend)
    return [[np.array(t) for t in p.run()[0]] for _ in range(iterations)]


def _consumers(p):
    return {op.spec.name: op.region_consumer.spec.name for op in p._executor.ops
            if getattr(op, "region_consumer", None) is not None}


def _validation(fn, types, jpegs, **cmn):
    images_ = fn.decoders.image(jpegs, output_type=types.RGB)
    images_ = fn.resize(images_, resize_shorter=120)
    kwargs = {"dtype": types.FLOAT, "output_layout": "CHW", **cmn}
    return fn.crop_mirror_normalize(images_, crop=(96, 96), mean=MEAN, std=STD, **kwargs)


def _training(fn, types, jpegs, **rrc):
    images_ = fn.decoders.image(jpegs, output_type=types.RGB)
    images_ = fn.random_resized_crop(images_, size=(64, 80), **rrc)
    return fn.crop_mirror_normalize(images_, mean=MEAN, std=STD, dtype=types.FLOAT,
                                    output_layout="CHW", mirror=fn.random.coin_flip())


GRAPHS = {
    "validation": _validation,
    "validation_corner_u8": lambda fn, types, j: _validation(
        fn, types, j, crop_pos_x=0.0, crop_pos_y=1.0, dtype=types.UINT8, output_layout="HWC"),
    "validation_mirror_pad": lambda fn, types, j: fn.crop_mirror_normalize(
        fn.resize(fn.decoders.image(j), resize_shorter=50, interp_type=types.INTERP_CUBIC),
        crop=(60, 45), out_of_bounds_policy="pad", fill_values=[7, 8, 9],
        mirror=fn.random.coin_flip(), crop_pos_x=0.3),
    "resize_roi_mirrored": lambda fn, types, j: fn.crop_mirror_normalize(
        fn.resize(fn.decoders.image(j), size=[70, 90], roi_start=[0.8, 0.1],
                  roi_end=[0.2, 0.7], roi_relative=True),
        crop=(40, 50), dtype=types.UINT8, output_layout="HWC"),
    "gray": lambda fn, types, j: fn.crop_mirror_normalize(
        fn.resize(fn.decoders.image(j, output_type=types.GRAY), resize_x=100,
                  interp_type=types.INTERP_LANCZOS3), crop=(20, 30), crop_pos_y=0.2),
    "training": _training,
    "training_nn": lambda fn, types, j: _training(fn, types, j, interp_type=types.INTERP_NN),
    "training_small_area": lambda fn, types, j: _training(fn, types, j,
                                                          random_area=[0.01, 0.05]),
    "rrc_alone": lambda fn, types, j: fn.random_resized_crop(fn.decoders.image(j),
                                                             size=(30, 30)),
    "random_crop_decoder_whole": lambda fn, types, j: fn.crop_mirror_normalize(
        fn.resize(fn.decoders.image_random_crop(j), resize_x=64, resize_y=48),
        mirror=fn.random.coin_flip()),
    "random_crop_decoder": lambda fn, types, j: fn.crop_mirror_normalize(
        fn.resize(fn.decoders.image_random_crop(j), size=[64, 64]), crop=(40, 32)),
}


@pytest.mark.parametrize("name", list(GRAPHS))
def test_fused_outputs_equal_the_unfused_ones(name):
    fused = _run(GRAPHS[name])
    plain = _run(GRAPHS[name], fuse=False)
    for a_it, b_it in zip(fused, plain, strict=True):
        for a, b in zip(a_it, b_it, strict=True):
            assert a.shape == b.shape and a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


def test_links_follow_the_graph():
    assert _consumers(_build(_validation)) == {
        "__Image_1": "__Resize_2", "__Resize_2": "__CropMirrorNormalize_3"}
    assert _consumers(_build(_training)) == {
        "__Image_1": "__RandomResizedCrop_2",
        "__RandomResizedCrop_2": "__CropMirrorNormalize_4"}
    assert _consumers(_build(_validation, fuse=False)) == {}


def _shared(fn, types, jpegs):
    decoded = fn.decoders.image(jpegs, name="decoded")
    return fn.resize(decoded, size=[32, 32], name="a"), fn.resize(decoded, size=[16, 16])


@pytest.mark.parametrize("graph, expected", [
    # the decoded images are also a pipeline output
    (lambda fn, types, j: (fn.resize(d := fn.decoders.image(j, name="decoded"),
                                     size=[32, 32], name="a"), d), {}),
    # two consumers
    (_shared, {}),
    # the crop position is an argument input: not known before the resize runs
    (lambda fn, types, j: fn.crop_mirror_normalize(
        fn.resize(fn.decoders.image(j, name="decoded"), size=[64, 64], name="a"),
        crop=(32, 32), crop_pos_x=fn.random.uniform(range=[0, 1])),
     {"decoded": "a"}),
    # a resize with an argument input gives no regions to its producer
    (lambda fn, types, j: fn.resize(fn.decoders.image(j, name="decoded"),
                                    resize_x=fn.random.uniform(range=[20, 30])), {}),
])
def test_no_link_where_other_readers_or_late_arguments(graph, expected):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=1)
    def pipe():
        return graph(fn, types, fn.external_source(source=lambda: SAMPLES[:2]))

    p = pipe()
    p.build()
    assert _consumers(p) == expected


def test_regions_cover_less_than_the_image_and_what_the_consumer_reads():
    p = _build(_validation)
    decoder = p._executor.operator("__Image_1")
    resize = p._executor.operator("__Resize_2")
    ws = Workspace(decoder, 3, [], {}, 0, 0, np.arange(3), None)
    shapes = [(480, 640, 3), (200, 300, 3), (121, 120, 3)]
    regions = _regions.consumer_regions(decoder, ws, shapes, "HWC")
    out_regions = _regions.consumer_regions(resize, ws, [(120, 160, 3), (120, 180, 3),
                                                         (121, 120, 3)], "HWC")
    # the crop (96 x 96, centred) of the resized image, and the input rows and columns that
    # its filters read: a band inside the image, with a margin
    assert out_regions[0] == ((12, 108), (32, 128))
    (y0, y1), (x0, x1) = regions[0]
    assert 0 < y0 < 48 and 432 < y1 < 480 and 0 < x0 < 128 and 512 < x1 < 640
    assert _regions.consumer_regions(decoder, ws, shapes, "CHW") is None


def test_a_consumer_that_reads_everything_asks_for_no_regions():
    # crop_mirror_normalize without a crop reads its whole input, so the resize before it
    # computes all of its output and asks its decoder for whole images (without working out
    # its filters); with a crop, both get regions.
    def graph(fn, types, jpegs, **crop):
        return fn.crop_mirror_normalize(fn.resize(fn.decoders.image(jpegs), size=[40, 60]),
                                        **crop)

    for crop, expected in (({}, None), ({"crop": (20, 30)}, ((10, 30), (15, 45)))):
        p = _build(lambda fn, types, j, crop=crop: graph(fn, types, j, **crop))
        decoder = p._executor.operator("__Image_1")
        resize = p._executor.operator("__Resize_2")
        assert resize.region_consumer.reads_whole_input() == (not crop)
        ws = Workspace(decoder, 1, [], {}, 0, 0, np.arange(1), None)
        assert _regions.consumer_regions(resize, ws, [(40, 60, 3)], "HWC") == \
            (expected and [expected])
        regions = _regions.consumer_regions(decoder, ws, [(200, 300, 3)], "HWC")
        assert (regions is None) == (not crop)


def test_a_consumer_error_is_reported_by_the_consumer():
    # Windows out of bounds: the producer decodes everything and cmn raises in its own name.
    def graph(fn, types, jpegs):
        return fn.crop_mirror_normalize(fn.resize(fn.decoders.image(jpegs), size=[20, 20]),
                                        crop=(30, 30))

    p = _build(graph, batch_size=2)
    with pytest.raises(PipelineError,
                       match="crop_mirror_normalize.*out of bounds"):
        p.run()


def test_check_parity_builds_without_fusion():
    @pipeline_def(batch_size=3, num_threads=2, device_id=None, seed=3)
    def pipe():
        return _validation(fn, types, fn.external_source(source=lambda: SAMPLES[:3]))

    p = pipe()
    report = p.check_parity()
    assert report.ok, str(report)


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["validation", "validation_corner_u8"])
def test_fused_pipelines_match_real_dali(name):
    # Random operators draw other numbers in real DALI: the deterministic pipelines only.
    real = pytest.importorskip("nvidia.dali")
    ours = _run(GRAPHS[name], iterations=1)[0]
    theirs = _run(GRAPHS[name], iterations=1, backend=real)[0]
    for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert a.shape == b.shape, k
        # The resize goldens' tolerance: resized pixels 1 off, on few of them; normalized to
        # float, one step is 1 / std (< 0.018), to uint8 at most 1.
        diff = np.abs(a.astype(np.float64) - b)
        step = 1 / min(STD) + 1e-4 if a.dtype == np.float32 else 1
        assert diff.max() <= step, (k, diff.max())
        assert np.count_nonzero(diff > 1e-3) <= 0.025 * diff.size, k
