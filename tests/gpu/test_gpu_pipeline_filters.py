"""fn.gaussian_blur, fn.laplacian and fn.filter with device="gpu" on the emulated device, end to
end: `fn.<op>(x.gpu(), ...)` equals the same pipeline on the CPU (per-sample and per-frame
argument inputs, sequences, channel-first layouts, output types, empty samples, border modes,
"valid" mode, fill values), over two iterations; fn.filter's GPU-only inputs (int8, float16,
volumes) against the CPU filter of float32 values or a NumPy reference."""

import numpy as np
import pytest
from cases_filters import assert_same_as_cpu

from dali import fn, pipeline_def, types


def _batch(seed, n, shape_of, dtype=np.uint8):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, shape_of(rng, i)).astype(dtype) for i in range(n)]


@pytest.mark.parametrize("seed", range(2))
def test_gaussian_blur_and_laplacian_equal_cpu(emulated_gpu, seed):
    data = _batch(seed, 4, lambda r, i: (int(r.integers(0 if i == 1 else 3, 20)),
                                         int(r.integers(3, 20)), 3))
    seqs = _batch(seed, 3, lambda r, i: (int(r.integers(1, 4)), 3, int(r.integers(3, 12)),
                                         int(r.integers(3, 12))), np.float32)
    rng = np.random.default_rng(seed)
    sigmas = [rng.uniform(0.5, 2.5, 2).astype(np.float32) for _ in data]
    scales = [rng.uniform(-1, 1, (len(s), 2)).astype(np.float32) for s in seqs]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        v = fn.external_source(source=lambda: seqs, layout="FCHW", batch=True)
        sig = fn.external_source(source=lambda: sigmas, batch=True)
        sc = fn.external_source(source=lambda: scales, batch=True)
        if on_gpu:
            x, v = x.gpu(), v.gpu()
        return (fn.gaussian_blur(x, sigma=sig), fn.gaussian_blur(x, window_size=5,
                                                                 dtype=types.FLOAT),
                fn.gaussian_blur(v, sigma=[1.0, 0.5]),
                fn.laplacian(x, window_size=5, normalized_kernel=True),
                fn.laplacian(v, scale=fn.per_frame(sc), smoothing_size=[1, 3]),
                fn.laplacian(x, window_size=3, dtype=types.FLOAT))

    assert_same_as_cpu(graph, len(data))
    assert {"sep_u8_f32", "sep_f32_u8", "sep_f32_f32"} <= set(emulated_gpu.launches)


@pytest.mark.parametrize("border", ["reflect_101", "wrap", "constant"])
def test_filter_equals_cpu(emulated_gpu, border):
    data = _batch(3, 4, lambda r, i: (int(r.integers(4, 20)), int(r.integers(4, 20)), 3))
    seqs = _batch(4, 2, lambda r, i: (int(r.integers(1, 4)), int(r.integers(4, 12)),
                                      int(r.integers(4, 12)), 1), np.int16)
    rng = np.random.default_rng(5)
    filters = [rng.uniform(-1, 1, (3, 4)).astype(np.float32) for _ in data]
    frame_filters = [rng.uniform(-1, 1, (len(s), 3, 3)).astype(np.float32) for s in seqs]
    fills = [np.uint8(v) for v in rng.integers(0, 256, len(data))]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        v = fn.external_source(source=lambda: seqs, layout="FHWC", batch=True)
        f = fn.external_source(source=lambda: filters, batch=True)
        ff = fn.external_source(source=lambda: frame_filters, batch=True)
        fill = fn.external_source(source=lambda: fills, batch=True)
        if on_gpu:          # the filters given on the GPU are read on the host all the same
            x, v, f = x.gpu(), v.gpu(), f.gpu()
        return (fn.filter(x, f, fill, border=border, anchor=[0, 3]),
                fn.filter(x, f, mode="valid", dtype=types.FLOAT),
                fn.filter(v, fn.per_frame(ff), border=border))

    assert_same_as_cpu(graph, len(data))
    assert {"filter_u8_u8", "filter_u8_f32", "filter_i16_i16"} <= set(emulated_gpu.launches)


@pytest.mark.parametrize("dtype", [np.int8, np.float16])
def test_filter_gpu_only_types(emulated_gpu, dtype):
    """int8 and float16 inputs, which DALI filters on the GPU only: equal to the CPU filter of
    the same values as float32, rounded half to even and saturated (int8) or rounded to float16
    (DALI's GPU conversions)."""
    rng = np.random.default_rng(7)
    data = [(rng.uniform(-100, 100, (int(rng.integers(4, 12)), int(rng.integers(4, 12)), 2)))
            .astype(dtype) for _ in range(3)]
    filters = [(rng.uniform(-1, 1, (3, 3)) * 3).astype(np.float32) for _ in data]
    fills = [dtype(v) for v in rng.uniform(-50, 50, len(data))]

    def graph(on_gpu):
        x = fn.external_source(source=lambda: data, layout="HWC", batch=True)
        f = fn.external_source(source=lambda: filters, batch=True)
        fill = fn.external_source(source=lambda: fills, batch=True)
        if on_gpu:
            return (fn.filter(x.gpu(), f, fill, border="constant"),
                    fn.filter(x.gpu(), f, fill, border="constant", dtype=types.FLOAT))
        wide = fn.filter(fn.cast(x, dtype=types.FLOAT), f, fn.cast(fill, dtype=types.FLOAT),
                         border="constant", dtype=types.FLOAT)
        return wide, wide

    @pipeline_def(batch_size=len(data), num_threads=1, device_id=None)
    def cpu_pipe():
        return graph(False)

    @pipeline_def(batch_size=len(data), num_threads=1, device_id=0)
    def gpu_pipe():
        return graph(True)

    expected = [np.asarray(t) for t in _run(cpu_pipe)[0]]
    same, wide = _run(gpu_pipe)
    for g, w, e in zip(same.as_cpu(), wide.as_cpu(), expected, strict=True):
        np.testing.assert_array_equal(np.asarray(w), e)
        if dtype == np.int8:
            e = np.clip(np.rint(e), -128, 127)
        np.testing.assert_array_equal(np.asarray(g), e.astype(dtype))
    assert {f"filter_{'i8' if dtype == np.int8 else 'f16'}_{k}"
            for k in ("i8" if dtype == np.int8 else "f16", "f32")} <= set(emulated_gpu.launches)


_PAD_MODES = {"reflect_101": "reflect", "reflect_1001": "symmetric", "wrap": "wrap",
              "clamp": "edge", "constant": "constant"}


def _volume_reference(x, f, anchor, border, fill, valid):
    """fn.filter of a DHWC volume as the GPU kernel sums it: float32 taps in (depth, row,
    column) order, zero taps skipped; positions outside by numpy's pad of the border mode."""
    x = x.astype(np.float32)
    if not valid:
        widths = [(a, e - 1 - a) for a, e in zip(anchor, f.shape, strict=True)] + [(0, 0)]
        x = np.pad(x, widths, _PAD_MODES[border],
                   **({"constant_values": fill} if border == "constant" else {}))
    out_shape = [n - e + 1 for n, e in zip(x.shape[:3], f.shape, strict=True)] + [x.shape[3]]
    acc = np.zeros(out_shape, np.float32)
    for (a, i, j), w in np.ndenumerate(f):
        if w != 0:
            acc = acc + w * x[a:a + out_shape[0], i:i + out_shape[1], j:j + out_shape[2]]
    return acc


@pytest.mark.parametrize("border", ["reflect_101", "reflect_1001", "wrap", "clamp", "constant"])
@pytest.mark.parametrize("mode", ["same", "valid"])
def test_filter_volumes_on_gpu(emulated_gpu, border, mode):
    """Volumes, which DALI filters on the GPU only: against a NumPy reference, uint8 output
    rounded half to even and saturated, float32 output, per-sample filter shapes, anchors and
    fill values."""
    rng = np.random.default_rng(len(border) + len(mode))
    vols = [rng.integers(0, 256, (int(rng.integers(3, 6)), int(rng.integers(3, 7)),
                                  int(rng.integers(3, 7)), int(rng.integers(1, 3))))
            .astype(np.uint8) for _ in range(3)]
    vols = [v[..., :vols[0].shape[3]] for v in vols]
    filters = []
    for _ in vols:
        f = (rng.uniform(-1, 1, tuple(int(e) for e in rng.integers(1, 4, 3))) * 2)
        f[rng.random(f.shape) < 0.3] = 0
        filters.append(f.astype(np.float32))
    anchors = [np.array([int(rng.integers(-1, e)) for e in f.shape], np.int32) for f in filters]
    fills = [np.uint8(v) for v in rng.integers(0, 256, len(vols))]

    @pipeline_def(batch_size=len(vols), num_threads=1, device_id=0)
    def pipe():
        x = fn.external_source(source=lambda: vols, layout="DHWC", batch=True)
        f = fn.external_source(source=lambda: filters, batch=True)
        a = fn.external_source(source=lambda: anchors, batch=True)
        v = fn.external_source(source=lambda: fills, batch=True)
        kw = {"border": border, "mode": mode} | ({} if mode == "valid" else {"anchor": a})
        return (fn.filter(x.gpu(), f, v, **kw), fn.filter(x.gpu(), f, v, dtype=types.FLOAT,
                                                         **kw))

    same, wide = _run(pipe)
    for k, x in enumerate(vols):
        anchor = [e // 2 if a == -1 else a for a, e in zip(anchors[k], filters[k].shape,
                                                            strict=True)]
        fill = fills[k] if border == "constant" else 0
        e = _volume_reference(x, filters[k], anchor, border, fill, mode == "valid")
        np.testing.assert_array_equal(np.asarray(wide.as_cpu()[k]), e)
        np.testing.assert_array_equal(np.asarray(same.as_cpu()[k]),
                                      np.clip(np.rint(e), 0, 255).astype(np.uint8))


def _run(pipe_def):
    p = pipe_def()
    p.build()
    return p.run()
