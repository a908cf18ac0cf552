"""The colour and intensity operators (and normalize, one_hot, lookup_table, jitter) with
device="gpu" on the emulated device (emulated_device.py), end to end: `fn.<op>(x.gpu(), ...)`
equals the same pipeline on the CPU (per-sample and per-frame argument inputs, type changes,
sequences, empty samples)."""

import numpy as np
import pytest

from dali import fn, pipeline_def, types


def _run(graph, device_id, batch_size):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=device_id, seed=7,
                  prefetch_queue_depth=1)
    def pipe():
        return graph()

    p = pipe()
    p.build()
    return p.run()


def assert_same_as_cpu(graph_of, batch_size):
    """graph_of(on_gpu) on device 0 and on the CPU give equal outputs, the GPU ones as
    TensorListGPU with the same layout, type and shapes."""
    gpu = _run(lambda: graph_of(True), 0, batch_size)
    cpu = _run(lambda: graph_of(False), None, batch_size)
    for g, c in zip(gpu, cpu, strict=True):
        assert type(g).__name__ == "TensorListGPU"
        assert g.layout() == c.layout() and g.dtype == c.dtype and g.shape() == c.shape()
        for a, b in zip(g.as_cpu(), c, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _batch(seed, n, layout, channels=3, dtype=np.uint8):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        shape = [int(rng.integers(1, 4)) if a == "F" else int(rng.integers(0 if i == 1 else 2, 9))
                 for a in layout[:-1]]
        out.append(rng.integers(0, 256, (*shape, channels)).astype(dtype))
    return out


@pytest.mark.parametrize("seed", range(2))
def test_linear_colour_operators_equal_cpu(emulated_gpu, seed):
    data = _batch(seed, 4, "HWC")
    rng = np.random.default_rng(seed)
    per_sample = [np.float32(rng.uniform(0.2, 2)) for _ in data]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        b = fn.external_source(source=lambda: per_sample, batch=True)
        if on_gpu:
            x = x.gpu()
        return (fn.brightness_contrast(x, brightness=b, contrast=1.3, contrast_center=100,
                                       dtype=types.FLOAT),
                fn.brightness(x, brightness=b, brightness_shift=0.1),
                fn.contrast(x, contrast=b, dtype=types.INT16),
                fn.color_twist(x, hue=30.0, saturation=b, brightness=1.1, contrast=b),
                fn.hsv(x, hue=b, saturation=0.5, value=1.2, dtype=types.FLOAT16),
                fn.hue(x, hue=-50.0),
                fn.saturation(x, saturation=b, dtype=types.INT32))

    assert_same_as_cpu(graph, len(data))
    assert {"color_linear_u8_f32", "color_linear_u8_u8", "color_linear_u8_i16",
            "color_linear_u8_f16", "color_linear_u8_i32"} <= set(emulated_gpu.launches)


def test_per_frame_arguments_equal_cpu(emulated_gpu):
    data = _batch(3, 3, "FHWC", dtype=np.float32)
    rng = np.random.default_rng(3)
    hue = [rng.uniform(-90, 90, s.shape[0]).astype(np.float32) for s in data]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="FHWC", batch=True)
        h = fn.external_source(source=lambda: hue, layout="F", batch=True)
        if on_gpu:
            x = x.gpu()
        return fn.color_twist(x, hue=h, contrast=0.7), fn.brightness(x, brightness=h)

    assert_same_as_cpu(graph, len(data))


@pytest.mark.parametrize("src, dst", [(types.RGB, types.YCbCr), (types.BGR, types.GRAY),
                                      (types.YCbCr, types.RGB), (types.GRAY, types.BGR),
                                      (types.GRAY, types.YCbCr), (types.RGB, types.BGR)])
def test_color_space_conversion_equals_cpu(emulated_gpu, src, dst):
    data = _batch(4, 4, "FHWC", channels=1 if src == types.GRAY else 3)

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="FHWC", batch=True)
        return fn.color_space_conversion(x.gpu() if on_gpu else x, image_type=src,
                                         output_type=dst)

    assert_same_as_cpu(graph, len(data))
    assert emulated_gpu.launches[-1] == "color_space_u8"


@pytest.mark.parametrize("seed", range(2))
def test_normalize_equals_cpu(emulated_gpu, seed):
    data = _batch(seed, 4, "HWC", dtype=np.int16)
    rng = np.random.default_rng(seed)
    means = [rng.uniform(0, 255, (1, 1, 3)).astype(np.float32) for _ in data]
    uniform = [rng.integers(0, 256, (int(rng.integers(1, 5)), 3, 3)).astype(np.uint8)
               for _ in data]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        u = fn.external_source(source=lambda: uniform, layout="HWC", batch=True)
        m = fn.external_source(source=lambda: means, batch=True)
        if on_gpu:
            x, u = x.gpu(), u.gpu()
        return (fn.normalize(x),
                fn.normalize(x, axis_names="HW", epsilon=0.5, ddof=1),
                fn.normalize(x, mean=m, stddev=40.0, scale=64, shift=128, dtype=types.UINT8),
                fn.normalize(x, mean=m, dtype=types.INT16, scale=100),
                fn.normalize(u, axes=[0, 1], batch=True),
                fn.normalize(u, axes=[0, 2], batch=True, mean=3.0))

    assert_same_as_cpu(graph, len(data))
    assert {"normalize_stats_i16", "normalize_out_i16_f32", "normalize_out_i16_u8",
            "normalize_out_u8_f32"} <= set(emulated_gpu.launches)


def test_one_hot_equals_cpu(emulated_gpu):
    rng = np.random.default_rng(2)
    labels = [rng.integers(-1, 6, (int(rng.integers(0, 4)), 2)).astype(np.int32)
              for _ in range(4)]
    scores = [rng.uniform(-1, 6, 3).astype(np.float32) for _ in range(4)]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: labels, layout="NC", batch=True)
        s = fn.external_source(source=lambda: scores, batch=True)
        if on_gpu:
            x, s = x.gpu(), s.gpu()
        return (fn.one_hot(x, num_classes=5, axis=1, axis_name="K"),
                fn.one_hot(s, num_classes=4, dtype=types.UINT8, on_value=300, off_value=7),
                fn.one_hot(x, num_classes=3, axis=0, dtype=types.INT64, off_value=-1))

    assert_same_as_cpu(graph, len(labels))
    assert {"one_hot_i32_4", "one_hot_f32_1", "one_hot_i32_8"} <= set(emulated_gpu.launches)


def test_lookup_table_equals_cpu(emulated_gpu):
    rng = np.random.default_rng(4)
    small = [rng.integers(0, 256, (int(rng.integers(0, 6)), 3)).astype(np.uint8)
             for _ in range(4)]
    wide = [rng.integers(-5, 20, int(rng.integers(1, 9))).astype(np.int64) for _ in range(4)]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: small, layout="HW", batch=True)
        w = fn.external_source(source=lambda: wide, batch=True)
        if on_gpu:
            x, w = x.gpu(), w.gpu()
        return (fn.lookup_table(x, keys=[0, 3, 200, 255], values=[1.5, -2, 300, 7]),
                fn.lookup_table(x, keys=[1, 2], values=[300, -4], dtype=types.UINT8,
                                default_value=9),
                fn.lookup_table(w, keys=[0, 5, 15, 5], values=[1, 2, 3, 4], dtype=types.INT16,
                                default_value=-1))

    assert_same_as_cpu(graph, len(small))
    assert {"lookup_table_u8_4", "lookup_table_u8_1", "lookup_table_i64_2"} <= set(
        emulated_gpu.launches)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_jitter_equals_cpu(emulated_gpu, dtype):
    """Same seed, same draws: the GPU output is the CPU's, NN and linear, with a mask."""
    data = _batch(5, 4, "HWC", dtype=dtype)
    mask = [np.int32(v) for v in (1, 0, 1, 1)]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        m = fn.external_source(source=lambda: mask, batch=True)
        if on_gpu:
            x = x.gpu()
        return (fn.jitter(x, nDegree=5, mask=m, fill_value=300),
                fn.jitter(x, interp_type=types.INTERP_LINEAR, fill_value=-2.5))

    assert_same_as_cpu(graph, len(data))
    kernel = "jitter_u8" if dtype == np.uint8 else "jitter_f32"
    assert emulated_gpu.launches.count(kernel) == 2
