"""GPU pipelines end to end on the emulated device (emulated_device.py): the device copies the
build inserts, mixed decoding, the operators with a `run_gpu`, the GPU tensor types, and the
errors of GPU pipelines.  Outputs are compared with the same pipeline on the CPU."""

import os

import numpy as np
import pytest

from dali import _gpu, fn, pipeline_def, types
from dali._gpu import runtime
from dali.tensors import TensorListCPU

IMAGES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "dali", "data", "images")


def _images(seed, n, channels=3, dtype=np.uint8):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 255, (int(rng.integers(5, 40)), int(rng.integers(5, 40)), channels))
            .astype(dtype) for _ in range(n)]


def _run(graph, device_id, batch_size, **kwargs):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=device_id, seed=7,
                  prefetch_queue_depth=1, **kwargs)
    def pipe():
        return graph()

    p = pipe()
    p.build()
    return p, p.run()


def _host(out):
    return [np.asarray(t) for t in (out.as_cpu() if hasattr(out, "as_cpu") else out)]


def _assert_same_as_cpu(graph_of, batch_size):
    """Runs graph_of(on_gpu) with on_gpu True on device 0 and False on the CPU; asserts the
    outputs are equal and that the GPU ones are TensorListGPU."""
    _, gpu = _run(lambda: graph_of(True), 0, batch_size)
    _, cpu = _run(lambda: graph_of(False), None, batch_size)
    for g, c in zip(gpu, cpu, strict=True):
        assert type(g).__name__ == "TensorListGPU"
        assert g.layout() == c.layout() and g.dtype == c.dtype and g.shape() == c.shape()
        for a, b in zip(_host(g), _host(c), strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", range(3))
def test_flip_cmn_cast_equal_cpu(emulated_gpu, seed):
    data = _images(seed, 5)
    rng = np.random.default_rng(seed)
    mirror = [np.int32(rng.integers(0, 2)) for _ in data]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        m = fn.external_source(source=lambda: mirror, batch=True)
        if on_gpu:
            x = x.gpu()
        flipped = fn.flip(x, horizontal=m, vertical=1 - m)
        norm = fn.crop_mirror_normalize(x, crop=(20, 24), mean=[10.0, 20, 30], std=[2.0, 3, 4],
                                        mirror=m, out_of_bounds_policy="pad",
                                        fill_values=[1.0, 2, 3], dtype=types.FLOAT16)
        return flipped, norm, fn.cast(flipped, dtype=types.FLOAT)

    _assert_same_as_cpu(graph, len(data))
    assert {"flip_1", "cast_u8_f32", "cmn_u8_f16"} <= set(emulated_gpu.launches)


def test_gpu_operator_takes_cpu_input_through_one_copy(emulated_gpu):
    data = _images(1, 3)
    captured = {}

    def graph():
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True,
                               name="images")
        captured["x"] = x
        return fn.flip(x, device="gpu"), fn.cast(x.gpu(), dtype=types.INT16), x.gpu()

    pipe, (flipped, cast, moved) = _run(graph, 0, 3)
    names = [n.name for n in pipe._graph.nodes]
    assert names.count("__Copy_CpuToGpu_images") == 1          # one copy, three readers
    assert names.index("__Copy_CpuToGpu_images") < names.index(flipped_name(pipe, "flip"))
    for got, want in zip(_host(flipped), data, strict=True):
        np.testing.assert_array_equal(got, want[:, ::-1])
    for got, want in zip(_host(moved), data, strict=True):
        np.testing.assert_array_equal(got, want)
    assert cast.dtype == types.INT16


def flipped_name(pipe, schema_name):
    return next(n.name for n in pipe._graph.nodes if n.schema.name == schema_name)


def test_cpu_transition_needs_dynamic_executor(emulated_gpu):
    data = _images(2, 2)

    def graph():
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        y = fn.flip(x.gpu())
        return fn.cast(y.cpu(), dtype=types.INT16), y.cpu()

    pipe, (cast, back) = _run(graph, 0, 2, exec_dynamic=True)
    assert isinstance(cast, TensorListCPU) and isinstance(back, TensorListCPU)
    assert "__Copy_GpuToCpu_" + flipped_name(pipe, "flip") in [n.name for n in pipe._graph.nodes]
    for got, want in zip(_host(cast), data, strict=True):
        np.testing.assert_array_equal(got, want[:, ::-1].astype(np.int16))
    with pytest.raises(RuntimeError, match="doesn't support transition from GPU to CPU"):
        _run(graph, 0, 2, exec_dynamic=False)


def test_mixed_decoder_equals_cpu_decoder(emulated_gpu):
    files = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(IMAGES) for f in fs
                   if f.endswith(".jpg"))[:4]
    if not files:
        pytest.skip("no bundled JPEGs")
    encoded = [np.fromfile(f, np.uint8) for f in files]

    def graph(on_gpu):
        data = fn.external_source(source=lambda: encoded, batch=True)
        images = fn.decoders.image(data, device="mixed" if on_gpu else "cpu")
        return fn.crop_mirror_normalize(images, crop=(64, 64), dtype=types.UINT8), images

    _assert_same_as_cpu(graph, len(encoded))
    # decoded into the device's pinned pool and uploaded from there: no staging copy
    assert emulated_gpu.direct_uploads == 1


def test_gpu_tensor_types(emulated_gpu):
    data = _images(3, 3)
    data[2] = data[0].copy()

    def graph():
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        return fn.flip(x.gpu(), horizontal=0)

    _, (tl,) = _run(graph, 0, 3)
    assert len(tl) == 3 and tl.device_id() == 0 and tl.layout() == "HWC"
    assert tl.shape() == [d.shape for d in data] and tl.dtype == types.UINT8
    t = tl.at(1)
    assert type(t).__name__ == "TensorGPU" and t.shape() == list(data[1].shape)
    np.testing.assert_array_equal(np.asarray(t.as_cpu()), data[1])
    cai = t.__cuda_array_interface__
    assert cai["shape"] == data[1].shape and cai["typestr"] == "|u1" and cai["version"] == 3
    assert cai["data"][0] == t.data_ptr() == tl.data_ptr() + data[0].nbytes
    assert not tl.is_dense_tensor()
    with pytest.raises(RuntimeError, match="uniform shape"):
        tl.as_tensor()
    with pytest.raises(IndexError):
        tl[3]
    np.testing.assert_array_equal(tl.as_cpu().at(2), data[2])
    stream = getattr(emulated_gpu, "stream", None)         # CuPy's, on a real device
    assert t.get_property("layout") == "HWC" and t.device_id() == 0
    assert tl.stream == (0 if stream is None else stream.ptr)
    tl.reinterpret(types.INT8)
    assert tl.dtype == types.INT8 and tl.at(0).dtype == types.INT8
    with pytest.raises(RuntimeError, match="different element size"):
        t.reinterpret(types.INT16)


def test_dense_batch_as_tensor_and_back(emulated_gpu):
    host = TensorListCPU(np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4), "HW")
    from dali.tensors import TensorListGPU

    tl = TensorListGPU(host)
    t = tl.as_tensor()
    assert t.shape() == [2, 3, 4] and t.layout() == "NHW"
    np.testing.assert_array_equal(np.asarray(t.as_cpu()), host.as_array())
    again = TensorListGPU([tl[1], tl[0]])
    np.testing.assert_array_equal(again.as_cpu().as_array(), host.as_array()[::-1])


def test_memory_statistics_name_gpu_operators(emulated_gpu):
    data = _images(4, 2)

    def graph():
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        return fn.flip(x.gpu(), name="flipper")

    pipe, _ = _run(graph, 0, 2, enable_memory_stats=True)
    stats = pipe.executor_statistics()
    assert stats["GPU_flipper"]["real_memory_size"] == [sum(d.nbytes for d in data)]


def test_cpu_only_pipeline_has_no_gpu():
    with pytest.raises(_gpu.GPUUnavailableError, match="device_id=None"):
        runtime.device(None)


def test_dali_gpu_operator_without_kernel_is_defined_then_not_implemented(emulated_gpu):
    def graph():
        data = fn.external_source(source=lambda: [np.zeros((2, 8, 8, 3), np.uint8)],
                                  batch=True, layout="FHWC")
        return fn.optical_flow(data.gpu())    # DALI has it on the GPU; dali has no kernel yet

    with pytest.raises(NotImplementedError, match='optical_flow.*device="gpu" is not '
                                                  "implemented yet"):
        _run(graph, 0, 1)


def test_operator_without_gpu_backend_in_dali_is_refused_at_definition():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        return fn.random.beta(device="gpu")

    with pytest.raises(RuntimeError, match='random.beta does not support the "gpu" backend'):
        pipe()


def test_views_and_copy_on_the_gpu(emulated_gpu):
    rng = np.random.default_rng(5)
    data = [rng.integers(0, 100, (4, 6, 1), dtype=np.int32) for _ in range(3)]
    shapes = [np.array([6, 4], np.int64) for _ in data]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        s = fn.external_source(source=lambda: shapes, batch=True)
        if on_gpu:
            x = x.gpu()
        squeezed = fn.squeeze(x, axis_names="C")
        return (fn.reshape(squeezed, s, layout="WH"), fn.expand_dims(squeezed, axes=[0]),
                fn.reinterpret(x, dtype=types.UINT8, layout="HWC"), fn.copy(x),
                fn.per_frame(fn.reshape(squeezed, layout="FW")))

    _assert_same_as_cpu(graph, len(data))
    assert emulated_gpu.launches == []        # views and copies: no kernel


def test_shape_of_a_gpu_batch(emulated_gpu):
    data = _images(6, 4)

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        return (x.gpu() if on_gpu else x).shape(dtype=types.INT32, device="gpu" if on_gpu
                                               else "cpu")

    _assert_same_as_cpu(graph, len(data))


def test_external_source_on_the_gpu(emulated_gpu):
    data = _images(8, 3)

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True,
                               device="gpu" if on_gpu else "cpu")
        return fn.flip(x, horizontal=1)

    _assert_same_as_cpu(graph, len(data))


def test_empty_batches_launch_nothing(emulated_gpu):
    def graph(on_gpu):
        x = fn.external_source(source=lambda: np.zeros((0, 4, 4, 3), np.uint8), layout="HWC",
                               batch=True)
        if on_gpu:
            x = x.gpu()
        return fn.flip(x), fn.crop_mirror_normalize(x, crop=(2, 2))

    _, outs = _run(lambda: graph(True), 0, 2)
    assert [len(o) for o in outs] == [0, 0]
    assert emulated_gpu.launches == []
    emulated_gpu.launch(__file__.replace("tests/gpu/test_gpu_pipeline.py",
                                         "dali/ops/geometry/flip.cu"), "flip_1", (1, 0, 1),
                        (256, 1, 1), ())
    assert emulated_gpu.launches == []        # a grid without blocks launches nothing


def test_outputs_are_handed_out_after_their_iterations_fence(emulated_gpu, monkeypatch):
    """The executor does not wait for the stream at the end of an iteration (the next one's
    CPU stage overlaps the device work); the outputs' fence is waited for when they are
    handed out, and it holds the launches' uploaded arguments until then."""
    events = []

    class Event:
        waited = False

        def synchronize(self):
            self.waited = True

    def record():
        events.append(Event())
        return events[-1]

    monkeypatch.setattr(emulated_gpu, "record", record)
    data = _images(9, 2)

    @pipeline_def(batch_size=2, num_threads=1, device_id=0, prefetch_queue_depth=2,
                  exec_async=False)
    def pipe():
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        return fn.flip(x.gpu())

    p = pipe()
    p.build()
    (out,) = p.run()                  # runs two iterations (prefetch), hands out the first
    assert len(events) == 2 and events[0].waited and not events[1].waited
    np.testing.assert_array_equal(out.as_cpu().at(0), data[0][:, ::-1])
    p.run()
    assert events[1].waited


def test_serialized_gpu_pipeline_keeps_its_devices(emulated_gpu):
    from dali import Pipeline

    data = _images(11, 2)

    @pipeline_def(batch_size=2, num_threads=1, device_id=0)
    def pipe():
        x = fn.external_source(name="src", layout="HWC")
        return fn.flip(x.gpu(), horizontal=1), x.gpu(), x

    restored = Pipeline.deserialize(pipe().serialize())
    restored.build()
    restored.feed_input("src", data)
    flipped, moved, host = restored.run()
    assert [type(o).__name__ for o in (flipped, moved, host)] == \
        ["TensorListGPU", "TensorListGPU", "TensorListCPU"]
    np.testing.assert_array_equal(flipped.as_cpu().at(1), data[1][:, ::-1])


def test_debug_mode_runs_gpu_operators(emulated_gpu):
    from dali.pipeline import experimental

    data = _images(12, 3)
    seen = {}

    @experimental.pipeline_def(batch_size=3, num_threads=1, device_id=0, debug=True)
    def pipe():
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        g = x.gpu()
        flipped = fn.flip(g, horizontal=1)
        auto = fn.flip(x, device="gpu", vertical=1, horizontal=0)       # CPU input moved
        back = fn.cast(flipped.cpu(), dtype=types.INT16)                 # a CPU operator
        seen.update(g=g, flipped=flipped.get(), back=back.get())
        return flipped, auto, back

    flipped, auto, back = pipe().run()
    assert seen["g"].device == "gpu" and type(seen["flipped"]).__name__ == "TensorListGPU"
    for k, d in enumerate(data):
        np.testing.assert_array_equal(flipped.as_cpu().at(k), d[:, ::-1])
        np.testing.assert_array_equal(auto.as_cpu().at(k), d[::-1])
        np.testing.assert_array_equal(back.at(k), d[:, ::-1].astype(np.int16))


def test_debug_mode_gpu_operator_without_kernel(emulated_gpu):
    from dali.pipeline import experimental

    @experimental.pipeline_def(batch_size=1, num_threads=1, device_id=0, debug=True)
    def pipe():
        x = fn.external_source(source=lambda: [np.zeros((2, 8, 8, 3), np.uint8)], batch=True,
                               layout="FHWC")
        return fn.optical_flow(x.gpu())

    with pytest.raises(NotImplementedError, match='optical_flow.*device="gpu" is not '
                                                  "implemented yet"):
        pipe().run()
