"""fn.decoders.inflate (GPU only in DALI) in pipelines on the emulated device: LZ4 blocks made by
the test encoder (tests/lz4_encode.py) decoded on the host and uploaded equal the original data,
for single chunks, sequences of chunks given by sizes, offsets or both, per-sample shapes,
output types and layouts, over two iterations; DALI's errors, the deprecated
experimental.inflate, and the CPU refused."""

import numpy as np
import pytest
from lz4_encode import compress

from dali import fn, pipeline_def, types


def _outputs(graph, batch_size, iterations=2, device_id=0):
    @pipeline_def(batch_size=batch_size, num_threads=2, device_id=device_id,
                  prefetch_queue_depth=1)
    def pipe():
        return graph()

    p = pipe()
    p.build()
    return [p.run() for _ in range(iterations)]


def _check_equal(out, expected, layout=""):
    assert type(out).__name__ == "TensorListGPU" and out.layout() == layout
    got = [np.asarray(t) for t in out.as_cpu()]
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


def _blob(arrays):
    """The chunks' LZ4 blocks concatenated, and their sizes."""
    blocks = [compress(np.ascontiguousarray(a).tobytes()) for a in arrays]
    return (np.frombuffer(b"".join(blocks), np.uint8).copy(),
            np.array([len(b) for b in blocks], np.int32))


def test_single_chunks(emulated_gpu):
    rng = np.random.default_rng(0)
    images = [rng.integers(0, 4, (int(rng.integers(1, 20)), 7, 3)).astype(np.uint8)
              for _ in range(3)]
    floats = [np.repeat(rng.standard_normal((5, 1)), 6, axis=1).astype(np.float32)
              for _ in range(3)]
    data = [_blob([x])[0] for x in images]
    fdata = [_blob([x])[0] for x in floats]
    shapes = [np.array(x.shape, np.int32) for x in images]

    def graph():
        d = fn.external_source(source=lambda: data, batch=True)
        f = fn.external_source(source=lambda: fdata, batch=True)
        s = fn.external_source(source=lambda: shapes, batch=True)
        return (fn.decoders.inflate(d.gpu(), shape=s, layout="HWC"),
                fn.decoders.inflate(f, shape=[5, 6], dtype=types.FLOAT, device="gpu"))

    for img, flt in _outputs(graph, 3):
        _check_equal(img, images, "HWC")
        _check_equal(flt, floats)


@pytest.mark.parametrize("given", ["sizes", "offsets", "both"])
def test_sequences_of_chunks(emulated_gpu, given):
    rng = np.random.default_rng(len(given))
    seqs = [rng.integers(0, 3, (int(rng.integers(1, 4)), 6, 4)).astype(np.int16)
            for _ in range(3)]
    blobs = [_blob(list(s)) for s in seqs]
    data = [b for b, _ in blobs]
    sizes = [s for _, s in blobs]
    offsets = [(np.cumsum(s) - s).astype(np.int32) for s in sizes]

    def graph():
        d = fn.external_source(source=lambda: data, batch=True)
        kw = {}
        if given != "offsets":
            kw["chunk_sizes"] = fn.external_source(source=lambda: sizes, batch=True)
        if given != "sizes":
            kw["chunk_offsets"] = fn.external_source(source=lambda: offsets, batch=True)
        return fn.decoders.inflate(d.gpu(), shape=[6, 4], dtype=types.INT16, layout="HW",
                                   sequence_axis_name="F", **kw)

    for (out,) in _outputs(graph, 3):
        _check_equal(out, seqs, "FHW")


def test_output_larger_and_smaller_than_the_data(emulated_gpu):
    x = np.arange(64, dtype=np.uint8)
    data = [_blob([x])[0]]

    def graph():
        d = fn.external_source(source=lambda: data, batch=True)
        return (fn.decoders.inflate(d.gpu(), shape=[80]), fn.decoders.inflate(d.gpu(), shape=[40]))

    longer, shorter = _outputs(graph, 1, 1)[0]
    _check_equal(longer, [np.concatenate([x, np.zeros(16, np.uint8)])])
    _check_equal(shorter, [x[:40]])


def test_deprecated_name(emulated_gpu):
    x = np.arange(30, dtype=np.uint8)
    data = [_blob([x])[0]]

    def graph():
        return fn.experimental.inflate(fn.external_source(source=lambda: data, batch=True).gpu(),
                                       shape=[30])

    with pytest.warns(DeprecationWarning, match="experimental.inflate"):
        (out,) = _outputs(graph, 1, 1)[0]
    _check_equal(out, [x])


_BLOCK = _blob([np.arange(40, dtype=np.uint8)])[0]


@pytest.mark.parametrize("sample, kwargs, match", [
    (_BLOCK, {"shape": [20], "check_output_size": True},
     "decompresses to more than the 20 bytes of its output"),
    (np.array([0x10, 97, 0, 0], np.uint8), {"shape": [4]}, "is not a valid LZ4 block"),
    (np.zeros(0, np.uint8), {"shape": [4]},
     "Input sample cannot be empty, but the sample at index 0 has volume 0."),
    (_BLOCK, {"shape": [40], "layout": "HW"},
     "got the layout `HW` while the chunks output shape has 1 extent"),
    (_BLOCK, {"shape": [40], "algorithm": "zstd"},
     "Unknown inflate algorithm was specified for `algorithm` argument: `zstd`."),
    (_BLOCK, {"shape": [40], "chunk_offsets": [5, 3]},
     "the offsets must be strictly increasing"),
    (_BLOCK, {"shape": [40], "chunk_sizes": [60]},
     "Input chunk size cannot exceed the sample size. Got chunk of size 60"),
    (_BLOCK, {"shape": [40], "chunk_offsets": [0, 4], "chunk_sizes": [4]},
     "there are 2 offsets and 1 sizes"),
    (_BLOCK, {"shape": [-1]}, "Extents of the output shape must be non-negative"),
])
def test_errors(emulated_gpu, sample, kwargs, match):
    def graph():
        d = fn.external_source(source=lambda: [sample], batch=True)
        return fn.decoders.inflate(d.gpu(), **kwargs)

    with pytest.raises(Exception, match=match):
        _outputs(graph, 1, 1)


def test_cpu_is_refused():
    def graph():
        return fn.decoders.inflate(fn.external_source(source=lambda: [_BLOCK], batch=True),
                                   shape=[40])

    with pytest.raises(RuntimeError, match='"decoders__Inflate" not registered for cpu'):
        _outputs(graph, 1, 1, device_id=None)
