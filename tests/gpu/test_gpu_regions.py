"""Region fusion on the GPU path: a mixed decoder before a GPU consumer decodes only the
regions the consumer reads, and the pipeline's outputs are those of the unfused pipeline, bit
for bit."""

import pathlib

import numpy as np
import pytest

import dali
from dali import fn, pipeline_def, types
from dali._executor.workspace import Workspace
from dali.ops import _regions

PHOTOS = sorted((pathlib.Path(dali.__file__).parent / "data" / "images").glob("**/*.jpg"))[:4]
SAMPLES = [np.frombuffer(p.read_bytes(), np.uint8) for p in PHOTOS]
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def _validation(jpegs):
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_shorter=120)
    return fn.crop_mirror_normalize(images, crop=(96, 96), mean=MEAN, std=STD,
                                    dtype=types.FLOAT, output_layout="CHW")


def _training(jpegs, **rrc):
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.random_resized_crop(images, size=(64, 80), **rrc)
    return fn.crop_mirror_normalize(images, mean=MEAN, std=STD, dtype=types.FLOAT,
                                    output_layout="CHW", mirror=fn.random.coin_flip())


GRAPHS = {
    "validation": (_validation, {"__Image_1": "__Resize_2",
                                 "__Resize_2": "__CropMirrorNormalize_3"}),
    "training": (_training, {"__Image_1": "__RandomResizedCrop_2",
                             "__RandomResizedCrop_2": "__CropMirrorNormalize_4"}),
    "training_small_area": (lambda j: _training(j, random_area=[0.01, 0.05]),
                            {"__Image_1": "__RandomResizedCrop_2",
                             "__RandomResizedCrop_2": "__CropMirrorNormalize_4"}),
    "resize_roi_u8": (lambda j: fn.crop_mirror_normalize(
        fn.resize(fn.decoders.image(j, device="mixed"), size=[70, 90], roi_start=[0.8, 0.1],
                  roi_end=[0.2, 0.7], roi_relative=True),
        crop=(40, 50), dtype=types.UINT8, output_layout="HWC"),
        {"__Image_1": "__Resize_2", "__Resize_2": "__CropMirrorNormalize_3"}),
}


def _build(graph, fuse):
    @pipeline_def(batch_size=len(SAMPLES), num_threads=2, device_id=0, seed=17)
    def pipe():
        return graph(fn.external_source(source=lambda: SAMPLES))

    p = pipe()
    p._fuse_regions = fuse
    p.build()
    return p


def _links(p):
    return {op.spec.name: op.region_consumer.spec.name for op in p._executor.ops
            if getattr(op, "region_consumer", None) is not None}


@pytest.mark.parametrize("name", list(GRAPHS))
def test_fused_gpu_pipeline_equals_the_unfused_one(emulated_gpu, name):
    graph, links = GRAPHS[name]
    fused, plain = _build(graph, True), _build(graph, False)
    assert _links(fused) == links and _links(plain) == {}
    for _ in range(2):
        (a,), (b,) = fused.run(), plain.run()
        a, b = np.asarray(a.as_cpu().as_tensor()), np.asarray(b.as_cpu().as_tensor())
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_mixed_decoder_decodes_only_the_consumer_regions(emulated_gpu):
    p = _build(lambda j: _training(j, random_area=[0.01, 0.05]), True)
    decoder = p._executor.operator("__Image_1")
    assert decoder.spec.device == "mixed" and not decoder.region_scaling
    (out,) = p.run()
    assert out.as_cpu().as_tensor().shape() == [len(SAMPLES), 3, 64, 80]
    # the regions the decoder is asked for cover a few percent of the images
    ws = Workspace(decoder, len(SAMPLES), [], {}, 0, 0, np.arange(len(SAMPLES)), None)
    shapes = [(480, 640, 3)] * len(SAMPLES)
    regions = _regions.consumer_regions(decoder, ws, shapes, "HWC")
    areas = [(y1 - y0) * (x1 - x0) / (480 * 640) for (y0, y1), (x0, x1) in regions]
    assert all(0 < a < 0.2 for a in areas)
