"""Readers in debug mode: the same samples as graph mode, reader metadata, epochs."""

import numpy as np
import pytest

import dali
from dali import fn, pipeline_def
from dali.pipeline import DataNode, experimental

ROOT = dali.__path__[0] + "/data/images"


def reader_body():
    jpegs, labels = fn.readers.file(file_root=ROOT, random_shuffle=True, initial_fill=5, seed=3,
                                    name="reader")
    return jpegs, labels, fn.random.coin_flip(seed=8)


def twins(body, **kw):
    args = dict(batch_size=5, num_threads=1, device_id=None, seed=1, **kw)
    return (pipeline_def(body)(**args), experimental.pipeline_def(body, debug=True)(**args))


def test_file_reader_reads_the_graph_mode_samples():
    graph, debug = twins(reader_body)
    for _ in range(4):  # 20 samples: across the end of the 12-file epoch
        for g, d in zip(graph.run(), debug.run(), strict=True):
            assert [t.source_info() for t in g] == [t.source_info() for t in d]
            for a, b in zip(g, d, strict=True):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_reader_metadata_after_the_first_run():
    _, debug = twins(reader_body)
    with pytest.raises(RuntimeError, match="created by the first `run\\(\\)`"):
        debug.epoch_size("reader")
    debug.run()
    assert debug.epoch_size("reader") == 12
    assert debug.reader_meta("reader")["epoch_size_padded"] == 12


def test_file_reader_with_conditionals_in_debug_mode():
    def body():
        jpegs, labels = fn.readers.file(file_root=ROOT, name="reader")
        if labels[0] == 1:
            size = DataNode.shape(jpegs)   # the operator in both modes
        else:
            size = -DataNode.shape(jpegs)
        return size, labels

    graph, debug = twins(body, enable_conditionals=True)
    for _ in range(3):
        g, d = graph.run(), debug.run()
        for a, b in zip(g, d, strict=True):
            np.testing.assert_array_equal(a.as_array(), b.as_array())
        sizes, labels = d
        assert len(sizes) == 5
        for size, label in zip(sizes.as_array(), labels.as_array(), strict=True):
            assert (size[0] > 0) == (label[0] == 1)


def test_check_parity_with_a_reader():
    graph, _ = twins(reader_body)
    assert graph.check_parity(iterations=3).ok


def decoding_body():
    jpegs, labels = fn.readers.file(file_root=ROOT, random_shuffle=True, initial_fill=6, seed=3)
    images = fn.decoders.image(jpegs, device="cpu")
    crops = fn.decoders.image_random_crop(jpegs, seed=4)
    angle = fn.random.uniform(range=(-10.0, 10.0), seed=5)
    rotated = fn.rotate(fn.resize(images, resize_shorter=40), angle=angle, fill_value=0)
    return images, crops, rotated, labels


def test_decoders_give_the_graph_mode_images():
    graph, debug = twins(decoding_body)
    seen = {}

    @experimental.pipeline_def(batch_size=5, num_threads=1, device_id=None, debug=True)
    def inspected():
        jpegs, _ = fn.readers.file(file_root=ROOT)
        images = fn.decoders.image(jpegs)
        seen["first"] = np.array(images.get()[0])
        seen["source"] = images.get()[0].source_info()
        return images

    for _ in range(3):
        for g, d in zip(graph.run(), debug.run(), strict=True):
            assert g.dtype == d.dtype and g.layout() == d.layout()
            for a, b in zip(g, d, strict=True):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    out, = inspected().run()
    assert seen["first"].ndim == 3 and seen["first"].shape[2] == 3
    np.testing.assert_array_equal(seen["first"], np.asarray(out[0]))
    assert seen["source"] == out[0].source_info() != ""


def test_decoded_images_through_conditionals_in_debug_mode():
    def body():
        jpegs, labels = fn.readers.file(file_root=ROOT)
        images = fn.decoders.image(jpegs)
        if labels[0] == 0:
            images = fn.flip(images, horizontal=1)
        return images, fn.decoders.image(jpegs), labels

    graph, debug = twins(body, enable_conditionals=True)
    for _ in range(3):
        g, d = graph.run(), debug.run()
        images, plain, labels = d
        for a, b in zip(g[0], images, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        for img, ref, label in zip(images, plain, labels.as_array(), strict=True):
            ref = np.asarray(ref)
            np.testing.assert_array_equal(np.asarray(img), ref[:, ::-1] if label[0] == 0 else ref)


def test_check_parity_with_decoders():
    graph, _ = twins(decoding_body)
    assert graph.check_parity(iterations=2).ok
