"""fn.bb_flip, fn.box_encoder, fn.coord_flip and fn.coord_transform with device="gpu" on the
emulated device, end to end: the GPU pipeline equals the same pipeline on the CPU (per-sample
argument inputs, empty samples, 3-D boxes, per-frame matrices, output types), over two
iterations."""

import gpu_cases
import numpy as np
from cases_filters import assert_same_as_cpu

from dali import fn, types


def _boxes(rng, k, size=4):
    lo = rng.uniform(0, 0.6, (k, size // 2))
    return np.concatenate([lo, lo + rng.uniform(0.05, 0.4, (k, size // 2))], 1).astype(np.float32)


def test_bb_flip_and_box_encoder_equal_cpu(emulated_gpu):
    rng = np.random.default_rng(0)
    boxes = [_boxes(rng, k) for k in (3, 0, 5, 1)]
    cubes = [_boxes(rng, k, 6) for k in (2, 1, 0, 4)]
    labels = [rng.integers(1, 9, len(b)).astype(np.int32) for b in boxes]
    flags = [np.int32(v) for v in rng.integers(0, 2, len(boxes))]
    anchors = [float(v) for v in _boxes(rng, 30).reshape(-1)]

    def graph(on_gpu):
        b = fn.external_source(source=lambda: boxes, batch=True)
        c = fn.external_source(source=lambda: cubes, batch=True)
        lab = fn.external_source(source=lambda: labels, batch=True)
        h = fn.external_source(source=lambda: flags, batch=True)
        if on_gpu:
            b, c, lab = b.gpu(), c.gpu(), lab.gpu()
        enc = fn.box_encoder(b, lab, anchors=anchors, criteria=0.3)
        off = fn.box_encoder(b, lab, anchors=anchors, offset=True, scale=2.0,
                             means=[0.1, 0.0, 0.0, 0.2], stds=[0.1, 0.1, 0.2, 0.2])
        return (fn.bb_flip(b, horizontal=h, vertical=1, ltrb=True), fn.bb_flip(c, vertical=h),
                *enc, *off)

    assert_same_as_cpu(graph, len(boxes), ulps=gpu_cases.DEVICE_MATH_ULPS)     # CUDA's logf
    assert {"bb_flip", "box_encoder_force", "box_encoder"} <= set(emulated_gpu.launches)


def test_coord_flip_and_transform_equal_cpu(emulated_gpu):
    rng = np.random.default_rng(1)
    points = [rng.uniform(-1, 2, (k, 3)).astype(np.float32) for k in (4, 0, 7)]
    pixels = [rng.integers(0, 256, (k, 2)).astype(np.uint8) for k in (5, 2, 3)]
    flags = [np.int32(v) for v in (1, 0, 1)]
    centers = [np.float32(v) for v in rng.uniform(0, 1, 3)]
    mats = [rng.uniform(-2, 2, (2, 2, 2)).astype(np.float32) for _ in pixels]

    def graph(on_gpu):
        p = fn.external_source(source=lambda: points, batch=True)
        q = fn.external_source(source=lambda: pixels, batch=True)
        f = fn.external_source(source=lambda: flags, batch=True)
        c = fn.external_source(source=lambda: centers, batch=True)
        m = fn.external_source(source=lambda: mats, batch=True)
        if on_gpu:
            p, q = p.gpu(), q.gpu()
        return (fn.coord_flip(p, flip_x=f, flip_z=1, center_y=c, layout="yxz"),
                fn.coord_transform(p, M=[1.0, 2, 0, 0, 1, 3], T=[0.5, -1]),
                fn.coord_transform(q, MT=[1.5, 0.5, 10, -1, 2, 3], dtype=types.UINT8),
                fn.coord_transform(q, M=fn.per_frame(m)))

    assert_same_as_cpu(graph, len(points))
    assert {"coord_flip", "coord_transform_f32_f32", "coord_transform_u8_u8",
            "coord_transform_u8_f32"} <= set(emulated_gpu.launches)
