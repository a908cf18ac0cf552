"""fn.experimental.remap (GPU only) in pipelines on the emulated device, end to end: outputs
equal to the NumPy reference of remap.cu (cases_remap.py) for images and sequences (maps per
frame or one per sequence), both interpolations and pixel origins, empty samples, maps given on
the CPU or the GPU, over two iterations; DALI's errors for bad inputs, and the CPU refused."""

import cases_remap as cases
import numpy as np
import pytest

from dali import fn, pipeline_def, types


def _outputs(graph, batch_size, iterations=2):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=0, prefetch_queue_depth=1)
    def pipe():
        return graph()

    p = pipe()
    p.build()
    return [p.run() for _ in range(iterations)]


def _check(out, expected, layout):
    assert type(out).__name__ == "TensorListGPU" and out.layout() == layout
    got = [np.asarray(t) for t in out.as_cpu()]
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)


def test_remap_images(emulated_gpu):
    rng = np.random.default_rng(0)
    shapes = [(7, 9, 3), (0, 4, 1), (5, 5, 1)]
    images = [rng.integers(0, 256, s).astype(np.uint8) for s in shapes]
    maps = [cases.random_maps(rng, s[0], s[1]) for s in shapes]
    mxs, mys = [m[0] for m in maps], [m[1] for m in maps]

    def graph():
        x = fn.external_source(source=lambda: images, layout="HWC", batch=True)
        mx = fn.external_source(source=lambda: mxs, layout="HW", batch=True)
        my = fn.external_source(source=lambda: mys, batch=True)
        return (fn.experimental.remap(x.gpu(), mx.gpu(), my.gpu()),
                fn.experimental.remap(x.gpu(), mx, my, interp=types.INTERP_NN,
                                      pixel_origin="center"))

    flags = [False] * 3
    for lin, nn in _outputs(graph, 3):
        _check(lin, cases.reference(images, mxs, mys, flags, True, "corner"), "HWC")
        _check(nn, cases.reference(images, mxs, mys, flags, False, "center"), "HWC")
    assert "remap_u8" in emulated_gpu.launches


@pytest.mark.parametrize("per_frame", [True, False])
def test_remap_sequences(emulated_gpu, per_frame):
    rng = np.random.default_rng(int(per_frame))
    shapes = [(2, 6, 8, 3), (3, 4, 5, 1)]
    seqs = [(rng.standard_normal(s) * 50).astype(np.float32) for s in shapes]
    maps = [cases.random_maps(rng, s[1], s[2], s[0] if per_frame else None) for s in shapes]
    mxs, mys = [m[0] for m in maps], [m[1] for m in maps]
    map_layout = "FHW" if per_frame else "HW"

    def graph():
        x = fn.external_source(source=lambda: seqs, layout="FHWC", batch=True)
        mx = fn.external_source(source=lambda: mxs, layout=map_layout, batch=True)
        my = fn.external_source(source=lambda: mys, layout=map_layout, batch=True)
        return fn.experimental.remap(x.gpu(), mx, my)

    for (out,) in _outputs(graph, 2):
        _check(out, cases.reference(seqs, mxs, mys, [per_frame] * 2, True, "corner"), "FHWC")
    assert "remap_f32" in emulated_gpu.launches


@pytest.mark.parametrize("image, mapx, error, match", [
    (np.zeros((4, 5, 2), np.uint8), np.zeros((4, 5), np.float32), ValueError,
     "Incorrect number of channels: 2. Only images with 1 and 3 channels are supported."),
    (np.zeros((4, 5, 3), np.int32), np.zeros((4, 5), np.float32), TypeError,
     "experimental.remap: Unsupported input type: int32"),
    (np.zeros((4, 5, 3), np.uint8), np.zeros((4, 5), np.float64), TypeError,
     "experimental.remap: The mapx must be float32, got float64"),
    (np.zeros((4, 5, 3), np.uint8), np.zeros((5, 4), np.float32), ValueError,
     r"Output and maps shapes do not match. Output: \(4, 5, 3\) ; mapx: \(5, 4\)"),
])
def test_errors(emulated_gpu, image, mapx, error, match):
    def graph():
        x = fn.external_source(source=lambda: [image], layout="HWC", batch=True)
        mx = fn.external_source(source=lambda: [mapx], batch=True)
        return fn.experimental.remap(x.gpu(), mx, mx)

    with pytest.raises(error, match=match):
        _outputs(graph, 1, 1)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"pixel_origin": "middle"}, ValueError, "Undefined pixel_origin parameter"),
    ({"interp": types.INTERP_CUBIC}, NotImplementedError,
     "experimental.remap: Interpolation INTERP_CUBIC is not implemented"),
])
def test_argument_errors(emulated_gpu, kwargs, error, match):
    def graph():
        x = fn.external_source(source=lambda: [np.zeros((2, 2, 1), np.uint8)], layout="HWC",
                               batch=True)
        m = fn.external_source(source=lambda: [np.zeros((2, 2), np.float32)], batch=True)
        return fn.experimental.remap(x.gpu(), m, m, **kwargs)

    with pytest.raises(error, match=match):
        _outputs(graph, 1, 1)
