"""The noise operators with device="gpu" on the emulated device (emulated_device.py), end to
end: `fn.noise.<op>(x.gpu(), ...)` with a seed equals the same pipeline on the CPU (the same
Philox streams), per-sample argument inputs, layouts, empty samples."""

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
    return [p.run() for _ in range(2)]


def assert_same_as_cpu(graph_of, batch_size):
    """graph_of(on_gpu) on device 0 and on the CPU give equal outputs over two iterations, the
    GPU ones as TensorListGPU with the same layout, type and shapes."""
    gpu = _run(lambda: graph_of(True), 0, batch_size)
    cpu = _run(lambda: graph_of(False), None, batch_size)
    for gpu_outs, cpu_outs in zip(gpu, cpu, strict=True):
        for g, c in zip(gpu_outs, cpu_outs, strict=True):
            assert type(g).__name__ == "TensorListGPU"
            assert g.layout() == c.layout() and g.dtype == c.dtype and g.shape() == c.shape()
            for a, b in zip(g.as_cpu(), c, strict=True):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _batch(seed, n, dtype, layout="HWC"):
    rng = np.random.default_rng(seed)
    shapes = [(int(rng.integers(0 if i == 1 else 1, 9)), int(rng.integers(1, 9)), 3)
              for i in range(n)]
    if layout == "CHW":
        shapes = [s[::-1] for s in shapes]
    return [(rng.uniform(0, 255, s)).astype(dtype) for s in shapes]


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int16])
def test_noise_operators_equal_cpu(emulated_gpu, dtype):
    data = _batch(1, 4, dtype)
    rng = np.random.default_rng(2)
    stddev = [np.float32(v) for v in rng.uniform(1, 20, 4)]
    factor = [np.float32(v) for v in rng.uniform(0.5, 30, 4)]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        s = fn.external_source(source=lambda: stddev, batch=True)
        f = fn.external_source(source=lambda: factor, batch=True)
        if on_gpu:
            x = x.gpu()
        return (fn.noise.gaussian(x, mean=1.5, stddev=s),
                fn.noise.salt_and_pepper(x, prob=0.3),
                fn.noise.salt_and_pepper(x, prob=0.5, salt_vs_pepper=0.2, salt_val=200,
                                         pepper_val=10, per_channel=True),
                fn.noise.shot(x, factor=f))

    assert_same_as_cpu(graph, len(data))
    assert emulated_gpu.launches.count("noise_apply") >= 8


def test_channel_first_salt_and_pepper_equals_cpu(emulated_gpu):
    data = _batch(3, 3, np.float32, "CHW")

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="CHW", batch=True)
        x = x.gpu() if on_gpu else x
        return (fn.noise.salt_and_pepper(x, prob=0.4),
                fn.cast(fn.noise.shot(x, factor=0.0), dtype=types.UINT8))

    assert_same_as_cpu(graph, len(data))
