"""The image operators' GPU backends end to end on the emulated device, several in one
pipeline: fn.paste, fn.multi_paste, fn.grid_mask, fn.sphere, fn.water,
fn.experimental.warp_perspective, fn.equalize, fn.debayer and fn.clahe per channel (their
kernels), fn.clahe on RGB luminance and fn.jpeg_compression_distortion (computed on the host
from a downloaded copy or the host input, then uploaded) equal the same pipeline on the CPU,
bit for bit, over two iterations; an operator reading its input on the host after a GPU
operator needs the dynamic executor, as in DALI."""

import cases_image
import numpy as np
import pytest

from dali import fn, pipeline_def, types


def _data(seed, n):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (2 * int(rng.integers(2, 12)), 2 * int(rng.integers(2, 12)),
                                  3)).astype(np.uint8) for _ in range(n)]


def _run(graph, on_gpu, iterations=2, **kwargs):
    @pipeline_def(batch_size=4, num_threads=2, device_id=0 if on_gpu else None, seed=3,
                  prefetch_queue_depth=1, **kwargs)
    def pipe():
        return graph(on_gpu)

    p = pipe()
    p.build()
    return [p.run() for _ in range(iterations)]


def _assert_same_as_cpu(graph, **kwargs):
    for gpu, cpu in zip(_run(graph, True, **kwargs), _run(graph, False, **kwargs),
                        strict=True):
        for g, c in zip(gpu, cpu, strict=True):
            assert type(g).__name__ == "TensorListGPU"
            assert g.layout() == c.layout() and g.dtype == c.dtype and g.shape() == c.shape()
            for a, b in zip(g.as_cpu(), c, strict=True):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_image_operators_in_one_pipeline_equal_cpu(emulated_gpu):
    data = [_data(0, 4), _data(1, 4)]
    mats = [np.array([[1, 0.1, -2], [0.05, 0.9, 1], [1e-3, 0, 1]], np.float32)] * 4
    state = {"i": 0}

    def source():
        batch = data[state["i"] % 2]
        state["i"] += 1
        return batch

    def graph(on_gpu):
        x = fn.external_source(source=source, batch=True, layout="HWC", cycle=None)
        m = fn.external_source(source=lambda: mats, batch=True)
        if on_gpu:
            x = x.gpu()
        masked = fn.grid_mask(x, tile=6, ratio=0.4, angle=0.3)
        gray = fn.slice(x, start=[1], shape=[1], axes=[2])
        return (fn.paste(masked, ratio=1.5, fill_value=[1, 2, 3], paste_x=0.2),
                fn.multi_paste(x, in_ids=[1, 0], output_size=[24, 24], dtype=types.FLOAT),
                fn.sphere(masked, interp_type=types.INTERP_LINEAR),
                fn.water(x, fill_value=9.0),
                fn.experimental.warp_perspective(x, m, border_mode="reflect"),
                fn.equalize(masked),
                fn.debayer(gray, blue_position=[1, 0]),
                fn.clahe(x, tiles_x=2, tiles_y=3, clip_limit=2.0),
                fn.clahe(x, tiles_x=3, tiles_y=2, clip_limit=1.0, luma_only=False),
                fn.jpeg_compression_distortion(x, quality=30))

    _assert_same_as_cpu(graph)
    assert {"grid_mask_1", "slice_copy_1", "multi_paste_1", "cast_u8_f32", "sphere_u8",
            "water_u8", "warp_perspective_u8", "equalize_luts", "equalize_map",
            "debayer_u8", "clahe_luts", "clahe_map"} <= set(emulated_gpu.launches)


def test_host_computed_operators_after_a_gpu_operator(emulated_gpu):
    """jpeg_compression_distortion reads its input on the host: a GPU producer's output is
    copied back (the dynamic executor), else DALI's error; clahe on RGB luminance downloads
    its GPU input."""
    data = _data(5, 4)

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, batch=True, layout="HWC")
        y = fn.flip(x.gpu() if on_gpu else x, horizontal=1)
        return (fn.clahe(y, tiles_x=3, tiles_y=2, clip_limit=1.5),
                fn.jpeg_compression_distortion(y, quality=70))

    _assert_same_as_cpu(graph, exec_dynamic=True)
    with pytest.raises(RuntimeError, match="transition from GPU to CPU"):
        _run(graph, True, exec_dynamic=False)


@pytest.mark.parametrize("seed", range(2))
def test_jpeg_compression_distortion_equals_cpu(emulated_gpu, seed):
    cases_image.check_equal(cases_image.jpeg_distortion_case(seed))
