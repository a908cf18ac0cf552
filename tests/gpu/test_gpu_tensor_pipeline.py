"""Tensor operators with device="gpu" on the emulated device (emulated_device.py), end to end:
`fn.<op>(x.gpu(), ...)` equals the same pipeline on the CPU (layouts, per-sample argument
inputs, empty frames)."""

import numpy as np
import pytest

import dali
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
    assert len(gpu) == len(cpu)
    for g, c in zip(gpu, cpu, strict=True):
        assert type(g).__name__ == "TensorListGPU"
        assert g.layout() == c.layout() and g.dtype == c.dtype and g.shape() == c.shape()
        for a, b in zip(g.as_cpu(), c, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _sequences(seed, n, dtype=np.uint8):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (int(rng.integers(3, 6)), int(rng.integers(0 if i == 1 else 1,
                                                                               5)), 2, 3))
            .astype(dtype) for i in range(n)]


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_frame_operators_equal_cpu(emulated_gpu, dtype):
    data = _sequences(1, 4, dtype)
    rng = np.random.default_rng(2)
    orders = [rng.integers(0, len(s), int(rng.integers(1, 7))).astype(np.int32) for s in data]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="FHWC", batch=True)
        o = fn.external_source(source=lambda: orders, batch=True)
        if on_gpu:
            x = x.gpu()
        return (*fn.element_extract(x, element_map=[2, 0, 2]),
                fn.sequence_rearrange(x, new_order=[2, 1, 1, 0]),
                fn.sequence_rearrange(x, new_order=o))

    assert_same_as_cpu(graph, len(data))
    # one launch per extracted element, one per rearrangement
    assert sum(k.startswith("copy_") for k in emulated_gpu.launches) == 5


def test_element_extract_out_of_range_on_gpu_names_operator(emulated_gpu):
    data = _sequences(3, 2)

    def graph():
        x = fn.external_source(source=lambda: data, layout="FHWC", batch=True)
        return fn.element_extract(x.gpu(), element_map=[7])

    with pytest.raises(RuntimeError, match=r"element_extract.*out of bounds"):
        _run(graph, 0, len(data))


def test_subscripts_equal_cpu(emulated_gpu):
    rng = np.random.default_rng(4)
    data = [rng.integers(0, 100, (int(rng.integers(2, 6)), int(rng.integers(0 if i == 2 else 3,
                                                                            7)), 3))
            .astype(np.int16) for i in range(4)]
    at = [np.int32(v) for v in (0, -1, 1, 0)]
    lo = [np.int64(v) for v in (-1, 0, 2, 1)]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        a = fn.external_source(source=lambda: at, batch=True)
        b = fn.external_source(source=lambda: lo, batch=True)
        if on_gpu:
            x = x.gpu()
        return (x[1], x[:, ::-2], x[a, 1:], x[b:, :, ::-1], x[-1, :, 2], x[:, :],
                x[::2, dali.newaxis("F")])

    assert_same_as_cpu(graph, len(data))
    assert emulated_gpu.launches.count("subscript_2") == 6


def test_subscript_out_of_range_on_gpu_names_operator(emulated_gpu):
    data = [np.zeros((2, 3), np.float32)]

    def graph():
        x = fn.external_source(source=lambda: data, batch=True)
        return x.gpu()[5]

    with pytest.raises(IndexError, match="out of range"):
        _run(graph, 0, 1)


def test_shapes_and_properties_equal_cpu(emulated_gpu):
    data = _sequences(5, 3, np.float32)

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="FHWC", batch=True)
        x = fn.reshape(x, layout="FHWC")
        if on_gpu:
            x = x.gpu()
        return (fn.shapes(x), fn.shapes(x, dtype=types.FLOAT), fn.get_property(x, key="layout"),
                x.property("layout", device="gpu" if on_gpu else "cpu"))

    with pytest.warns(DeprecationWarning, match="fn.shapes"):
        assert_same_as_cpu(graph, len(data))


def test_source_info_on_gpu_equals_cpu(emulated_gpu, tmp_path):
    for i in range(3):
        (tmp_path / f"{i}.bin").write_bytes(bytes(range(i + 2)))

    def graph(on_gpu):
        raw, _ = fn.readers.file(file_root=str(tmp_path), files=["0.bin", "1.bin", "2.bin"])
        if on_gpu:
            raw = raw.gpu()
        return fn.get_property(raw, key="source_info"), raw

    assert_same_as_cpu(graph, 3)


def test_dump_image_on_gpu_writes_what_cpu_writes(emulated_gpu, tmp_path, monkeypatch):
    rng = np.random.default_rng(6)
    data = [rng.integers(0, 256, (int(rng.integers(1, 5)), int(rng.integers(1, 5)), c))
            .astype(np.uint8) for c in (3, 1, 3)]
    written = {}
    for on_gpu in (False, True):
        folder = tmp_path / str(on_gpu)
        folder.mkdir()
        monkeypatch.chdir(folder)

        def graph(on_gpu=on_gpu):
            x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
            return fn.dump_image(x.gpu() if on_gpu else x, suffix="s")

        (out,) = _run(graph, 0 if on_gpu else None, len(data))
        assert type(out).__name__ == ("TensorListGPU" if on_gpu else "TensorListCPU")
        for a, b in zip(out.as_cpu() if on_gpu else out, data, strict=True):
            np.testing.assert_array_equal(np.asarray(a), b)
        written[on_gpu] = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert sorted(written[True]) == ["0-s-0.ppm", "1-s-0.ppm", "2-s-0.ppm"]
    assert written[True] == written[False]
