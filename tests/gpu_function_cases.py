"""What the tests of the Python-function operators on the GPU share (tests/gpu and
tests/plugin): a graph run on the GPU and on the CPU over the same batches."""

import numpy as np

from dali import fn, pipeline_def

BATCHES = [[np.arange(12, dtype=np.int16).reshape(3, 4) * (i + 1) for i in range(3)],
           [np.full((2, 5), 7, np.int16), np.arange(6, dtype=np.int16).reshape(2, 3)]]


def run(graph, on_gpu, batches=BATCHES):
    it = iter(batches)

    @pipeline_def(batch_size=max(map(len, batches)), num_threads=1, device_id=0,
                  exec_dynamic=True)
    def pipe():
        x = fn.external_source(source=lambda: next(it), layout="HW")
        outs = graph(x.gpu() if on_gpu else x, "gpu" if on_gpu else "cpu")
        return tuple(o.cpu() if on_gpu else o for o in outs)

    p = pipe()
    p.build()
    return [[[np.array(t) for t in out] for out in p.run()] for _ in batches]


def assert_same_on_gpu(graph, batches=BATCHES):
    gpu, cpu = run(graph, True, batches), run(graph, False, batches)
    for g_it, c_it in zip(gpu, cpu, strict=True):
        for g, c in zip(g_it, c_it, strict=True):
            assert len(g) == len(c)
            for a, b in zip(g, c, strict=True):
                assert a.dtype == b.dtype
                np.testing.assert_array_equal(a, b)


def device_array_type(device):
    return type(device.array(device.alloc(4), 0, (4,), np.uint8))
