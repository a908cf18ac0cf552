"""fn.experimental.median_blur, dilate and erode (GPU only) in pipelines on the emulated device,
end to end: outputs equal to the NumPy reference of CV-CUDA's operators (cases_rank_filter.py)
with per-sample and per-frame argument inputs, sequences, channel-first layouts, empty samples
and two iterations; DALI's errors for bad arguments, and the CPU still refused."""

import cases_rank_filter as cases
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
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)


def test_median_blur_pipeline(emulated_gpu):
    rng = np.random.default_rng(1)
    images = [cases.random_sample(rng, "HWC", np.uint8, 3, empty=(i == 2)) for i in range(4)]
    seqs = [cases.random_sample(rng, "FCHW", np.float32) for _ in range(2)]
    windows = [np.array(w, np.int32) for w in ([3, 5], [1, 3], [7, 7], [5, 1])]
    frame_windows = [np.array([[3, 3]] * len(s), np.int32) for s in seqs]
    for k, w in enumerate(frame_windows):
        w[-1] = [5, 3 + 2 * k]

    def graph():
        x = fn.external_source(source=lambda: images, layout="HWC", batch=True)
        v = fn.external_source(source=lambda: seqs + seqs[:1] * 2, layout="FCHW", batch=True)
        w = fn.external_source(source=lambda: windows, batch=True)
        fw = fn.external_source(source=lambda: frame_windows + frame_windows[:1] * 2,
                                layout="F*", batch=True)
        return (fn.experimental.median_blur(x.gpu(), window_size=w),
                fn.experimental.median_blur(x.gpu()),
                fn.experimental.median_blur(v.gpu(), window_size=fw))

    seq_batch = seqs + seqs[:1] * 2
    fw_batch = frame_windows + frame_windows[:1] * 2
    per_part = [row for s, fw in zip(seq_batch, fw_batch, strict=True)
                for row in fw for _ in range(s.shape[1])]
    for out in _outputs(graph, 4):
        _check(out[0], cases.median_reference(images, "HWC", windows), "HWC")
        _check(out[1], cases.median_reference(images, "HWC", [[3, 3]] * 4), "HWC")
        _check(out[2], cases.median_reference(seq_batch, "FCHW", per_part), "FCHW")
    assert {"median_u8", "median_f32"} <= set(emulated_gpu.launches)


@pytest.mark.parametrize("border", ["constant", "replicate", "reflect", "reflect_101", "wrap"])
def test_dilate_and_erode_pipeline(emulated_gpu, border):
    rng = np.random.default_rng(len(border))
    images = [cases.random_sample(rng, "HW", np.uint16, empty=(i == 1)) for i in range(3)]
    seqs = [cases.random_sample(rng, "FHWC", np.float32) for _ in range(3)]
    masks = [np.array(m, np.int32) for m in ([3, 2], [5, 5], [1, 4])]
    anchors = [np.array(a, np.int32) for a in ([0, 1], [-1, -1], [0, 3])]
    frame_anchors = [np.array([[-1, -1]] * len(s), np.int32) for s in seqs]
    frame_anchors[0][0] = [0, 0]

    def graph():
        x = fn.external_source(source=lambda: images, layout="HW", batch=True)
        v = fn.external_source(source=lambda: seqs, layout="FHWC", batch=True)
        m = fn.external_source(source=lambda: masks, batch=True)
        a = fn.external_source(source=lambda: anchors, batch=True)
        fa = fn.external_source(source=lambda: frame_anchors, layout="F*", batch=True)
        return (fn.experimental.dilate(x.gpu(), mask_size=m, anchor=a, border_mode=border),
                fn.experimental.erode(x.gpu(), iterations=2, border_mode=border),
                fn.experimental.erode(v.gpu(), mask_size=[2, 3], anchor=fa,
                                      border_mode=border),
                fn.experimental.dilate(v.gpu(), iterations=3, border_mode=border))

    seq_anchors = [[1, 1] if a[0] == -1 else list(a) for fa in frame_anchors for a in fa]
    resolved = [[m[0] // 2 if a[0] < 0 else a[0], m[1] // 2 if a[1] < 0 else a[1]]
                for m, a in zip(masks, anchors, strict=True)]
    frames = sum(len(s) for s in seqs)
    for out in _outputs(graph, 3):
        _check(out[0], cases.morphology_reference(images, "HW", True, masks, resolved, 1,
                                                  border), "HW")
        _check(out[1], cases.morphology_reference(images, "HW", False, [[3, 3]] * 3,
                                                  [[1, 1]] * 3, 2, border), "HW")
        _check(out[2], cases.morphology_reference(seqs, "FHWC", False, [[2, 3]] * frames,
                                                  seq_anchors, 1, border), "FHWC")
        _check(out[3], cases.morphology_reference(seqs, "FHWC", True, [[3, 3]] * frames,
                                                  [[1, 1]] * frames, 3, border), "FHWC")
    assert {"dilate_u16", "erode_u16", "erode_f32", "dilate_f32"} <= set(emulated_gpu.launches)


def test_no_layout_is_the_first_of_its_rank(emulated_gpu):
    x = np.arange(30, dtype=np.uint8).reshape(5, 6)

    def graph():
        return fn.experimental.erode(fn.external_source(source=lambda: [x], batch=True).gpu())

    out = _outputs(graph, 1, 1)[0][0]
    np.testing.assert_array_equal(np.asarray(out.as_cpu()[0]), cases.morphology_reference(
        [x], "HW", False, [[3, 3]], [[1, 1]], 1, "constant")[0])


@pytest.mark.parametrize("make, error, match", [
    (lambda x: fn.experimental.median_blur(x, window_size=[4, 3]), ValueError,
     r"experimental.median_blur: `window_size` must have odd extents, got \(4, 3\)"),
    (lambda x: fn.experimental.median_blur(x, window_size=[0, 3]), ValueError,
     r"median_blur: `window_size` must be at least 1 in both dimensions, got \(0, 3\)"),
    (lambda x: fn.experimental.dilate(x, mask_size=[3, 3], anchor=[3, 0]), ValueError,
     r"experimental.dilate: `anchor` \(3, 0\) must lie within the structuring element"),
    (lambda x: fn.experimental.erode(x, border_mode="mirror"), ValueError,
     "experimental.erode: Unknown border mode: mirror"),
    (lambda x: fn.experimental.erode(x, iterations=-1), ValueError,
     "experimental.erode: `iterations` must be non-negative, got -1"),
    (lambda x: fn.experimental.dilate(fn.cast(x, dtype=types.INT32)), TypeError,
     "experimental.dilate: Unsupported input type: int32"),
    (lambda x: fn.experimental.median_blur(fn.cat(x, x, axis=2)), ValueError,
     "Median blur takes at most 4 channels in the HWC layout, got 6"),
    (lambda x: fn.experimental.median_blur(fn.reshape(x, layout="WHC")), ValueError,
     'The layout "WHC" does not match any of the allowed layouts'),
])
def test_errors(emulated_gpu, make, error, match):
    def graph():
        x = fn.external_source(source=lambda: [np.zeros((4, 4, 3), np.uint8)], layout="HWC",
                               batch=True)
        return make(x.gpu())

    with pytest.raises(error, match=match):
        _outputs(graph, 1, 1)


def test_cpu_is_still_refused():
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipe():
        x = fn.external_source(source=lambda: [np.zeros((4, 4, 3), np.uint8)], layout="HWC",
                               batch=True)
        return fn.experimental.dilate(x)

    with pytest.raises(RuntimeError, match='"experimental__Dilate" not registered for cpu. '
                                           r"dali.fn.experimental.dilate runs on the GPU only "
                                           r"in DALI 2.4\.$"):
        pipe().build()
