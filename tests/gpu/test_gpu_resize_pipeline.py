"""fn.experimental.resize (GPU only in DALI) on the emulated device equals fn.resize on the CPU,
end to end: sizes, modes, filters, regions of interest, per-sample argument inputs, sequences,
empty samples and save_attrs, over two iterations; the CPU still refused."""

import numpy as np
import pytest

from dali import fn, pipeline_def, types


def _run(graph, batch_size, device_id, iterations=2):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=device_id,
                  prefetch_queue_depth=1)
    def pipe():
        return graph(device_id is not None)

    p = pipe()
    p.build()
    return [p.run() for _ in range(iterations)]


def _assert_same_as_cpu_resize(graph, batch_size):
    """graph(on_gpu) with experimental.resize on the GPU equals it with fn.resize on the CPU."""
    for gpu, cpu in zip(_run(graph, batch_size, 0), _run(graph, batch_size, None), strict=True):
        for g, c in zip(gpu, cpu, strict=True):
            assert type(g).__name__ == "TensorListGPU"
            assert g.layout() == c.layout() and g.dtype == c.dtype and g.shape() == c.shape()
            for a, b in zip(g.as_cpu(), c, strict=True):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _resize(on_gpu):
    return fn.experimental.resize if on_gpu else fn.resize


@pytest.mark.parametrize("seed", range(2))
def test_images_equal_cpu_resize(emulated_gpu, seed):
    rng = np.random.default_rng(seed)
    images = [rng.integers(0, 256, (int(rng.integers(0 if i == 2 else 4, 40)),
                                    int(rng.integers(4, 40)), 3)).astype(np.uint8)
              for i in range(4)]
    sizes = [rng.uniform(5, 50, 2).astype(np.float32) for _ in images]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: images, layout="HWC", batch=True)
        s = fn.external_source(source=lambda: sizes, batch=True)
        if on_gpu:
            x = x.gpu()
        resize = _resize(on_gpu)
        return (*resize(x, size=s, save_attrs=True),
                resize(x, resize_shorter=17, interp_type=types.INTERP_CUBIC),
                resize(x, resize_x=30, resize_y=12, mode="stretch", antialias=False,
                       dtype=types.FLOAT),
                resize(x, size=[20, 20], roi_start=[0.1, 0.2], roi_end=[0.9, 0.7],
                       roi_relative=True, interp_type=types.INTERP_NN),
                resize(x, resize_longer=25, min_filter=types.INTERP_TRIANGULAR,
                       mag_filter=types.INTERP_LANCZOS3))

    _assert_same_as_cpu_resize(graph, len(images))
    assert emulated_gpu.launches


def test_sequences_equal_cpu_resize(emulated_gpu):
    rng = np.random.default_rng(5)
    seqs = [(rng.standard_normal((int(rng.integers(1, 4)), 3, 12, 9)) * 40).astype(np.float32)
            for _ in range(2)]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: seqs, layout="FCHW", batch=True)
        return _resize(on_gpu)(x.gpu() if on_gpu else x, resize_x=20, subpixel_scale=False)

    _assert_same_as_cpu_resize(graph, len(seqs))


def test_errors_name_experimental_resize(emulated_gpu):
    def graph(on_gpu):
        x = fn.external_source(source=lambda: [np.zeros((4, 4, 3), np.uint8)], layout="HWC",
                               batch=True)
        return fn.experimental.resize(x.gpu(), size=[3, 3], resize_x=3)

    with pytest.raises(Exception, match="experimental.resize"):
        _run(graph, 1, 0, 1)


def test_cpu_is_refused():
    def graph(on_gpu):
        x = fn.external_source(source=lambda: [np.zeros((4, 4, 3), np.uint8)], layout="HWC",
                               batch=True)
        return fn.experimental.resize(x, size=[3, 3])

    with pytest.raises(RuntimeError, match='"experimental__Resize" not registered for cpu'):
        _run(graph, 1, None, 1)
