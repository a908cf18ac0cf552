"""fn.crop, fn.slice, fn.pad, fn.transpose, fn.cat, fn.stack, fn.warp_affine, fn.rotate and
fn.erase on the GPU end to end, on the emulated device (emulated_device.py): the same
pipeline on the CPU gives the expected outputs, bit for bit, and the kernels of slice.cu,
cat.cu, warp_affine.cu and erase.cu are the ones launched."""

import numpy as np
import pytest

from dali import fn, pipeline_def, types


def _images(seed, n, dtype=np.uint8, channels=3):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        shape = (int(rng.integers(4, 30)), int(rng.integers(4, 30)), channels)
        out.append(rng.integers(0, 255, shape).astype(dtype))
    return out


def _outputs(graph, device_id, batch_size):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=device_id, seed=7,
                  prefetch_queue_depth=1)
    def pipe():
        return graph(device_id is not None)

    p = pipe()
    p.build()
    return p.run()


def _assert_same_as_cpu(graph, batch_size):
    """graph(on_gpu) on device 0 (its data moved with .gpu()) equals it on the CPU."""
    gpu = _outputs(graph, 0, batch_size)
    cpu = _outputs(graph, None, batch_size)
    assert len(gpu) == len(cpu)
    for g, c in zip(gpu, cpu, strict=True):
        assert type(g).__name__ == "TensorListGPU"
        assert g.layout() == c.layout() and g.dtype == c.dtype and g.shape() == c.shape()
        for a, b in zip(g.as_cpu(), c, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("seed", range(2))
def test_window_operators_equal_cpu(emulated_gpu, seed):
    data = _images(seed, 4)
    rng = np.random.default_rng(seed)
    pos = [np.float32(rng.uniform(0, 1)) for _ in data]
    anchors = [rng.uniform(-0.2, 0.6, 2).astype(np.float32) for _ in data]
    shapes = [rng.uniform(0.2, 0.9, 2).astype(np.float32) for _ in data]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        px = fn.external_source(source=lambda: pos, batch=True)
        a = fn.external_source(source=lambda: anchors, batch=True)
        s = fn.external_source(source=lambda: shapes, batch=True)
        if on_gpu:
            x = x.gpu()
        return (fn.crop(x, crop=(10, 12), crop_pos_x=px, out_of_bounds_policy="pad",
                        fill_values=[1.0, 2.0, 3.0]),
                fn.crop(x, crop=(8, 8), crop_pos_y=px, dtype=types.FLOAT16,
                        out_of_bounds_policy="trim_to_shape"),
                fn.slice(x, a, s, out_of_bounds_policy="reflect"),
                fn.slice(x, start=[-3, 2], shape=[20, 9], out_of_bounds_policy="pad",
                         fill_values=[7.0, 8.0, 9.0], dtype=types.FLOAT),
                fn.pad(x, axes=(0, 1), align=4, fill_value=5.0),
                fn.transpose(x, perm=[2, 0, 1]),
                fn.erase(x, anchor=[2.0, 3.0, 10.0, 1.0], shape=[5.0, 4.0, 30.0, 2.0],
                         fill_value=[10.0, 20.0, 30.0]))

    _assert_same_as_cpu(graph, len(data))
    launched = set(emulated_gpu.launches)
    assert {"slice_copy_1", "slice_u8_f16", "slice_u8_f32", "erase_1"} <= launched


def test_cat_stack_equal_cpu(emulated_gpu):
    rng = np.random.default_rng(3)
    a = [rng.standard_normal((3, int(w), 2)).astype(np.float32) for w in (4, 1, 6)]
    b = [rng.standard_normal((3, int(w), 2)).astype(np.float32) for w in (2, 5, 0)]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: a, layout="HWC", batch=True)
        y = fn.external_source(source=lambda: b, layout="HWC", batch=True)
        if on_gpu:
            x, y = x.gpu(), y.gpu()
        return fn.cat(x, y, x, axis_name="W"), fn.stack(x, x, axis=1, axis_name="N")

    _assert_same_as_cpu(graph, len(a))
    assert "join_8" in emulated_gpu.launches


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_warps_equal_cpu(emulated_gpu, dtype):
    data = _images(5, 3, dtype)
    rng = np.random.default_rng(5)
    angles = [np.float32(a) for a in (45.0, -30.0, 90.0)]
    mats = [np.array([[1.1, 0.2, -2.0], [-0.1, 0.9, 3.0]], np.float32) + v
            for v in rng.uniform(-0.1, 0.1, 3)]
    frames = [rng.integers(0, 255, (2, 9, 11, 3)).astype(dtype) for _ in range(3)]
    frame_angles = [rng.uniform(-90, 90, 2).astype(np.float32) for _ in frames]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        seq = fn.external_source(source=lambda: frames, layout="FHWC", batch=True)
        angle = fn.external_source(source=lambda: angles, batch=True)
        mtx = fn.external_source(source=lambda: mats, batch=True)
        fa = fn.external_source(source=lambda: frame_angles, layout="F", batch=True)
        if on_gpu:
            x, seq = x.gpu(), seq.gpu()
        return (fn.rotate(x, angle=angle, fill_value=0.0),
                fn.rotate(x, angle=30.0, keep_size=True, interp_type=types.INTERP_NN),
                fn.rotate(seq, angle=fn.per_frame(fa)),
                fn.warp_affine(x, mtx, size=[20, 25]),
                fn.warp_affine(x, matrix=[0.7, 0.7, 0.0, -0.7, 0.7, 5.0], inverse_map=False,
                               dtype=types.FLOAT, fill_value=9.0))

    _assert_same_as_cpu(graph, len(data))
    name = "u8" if dtype == np.uint8 else "f32"
    assert {f"warp_{name}_{name}", f"warp_{name}_f32"} <= set(emulated_gpu.launches)
