"""on_error="skip" of fn.decoders.inflate (GPU only in DALI; on the emulated device): the reader
feeding it replaces the samples that cannot be inflated (malformed LZ4 blocks, empty files,
chunks that do not fit, blocks larger than their output with check_output_size) by the next
ones, the labels staying with their samples; "raise" keeps DALI's error; tensor-input shapes
are refused at build."""

from __future__ import annotations

import numpy as np
import pytest
from lz4_encode import compress

from dali import fn, pipeline_def

N = 12
BAD = {2: "malformed", 5: "empty", 6: "too large", 11: "cut"}


def _data(i):
    return (np.arange(32, dtype=np.uint8) * (i + 1)) % 7


@pytest.fixture(scope="module")
def blocks(tmp_path_factory):
    root = tmp_path_factory.mktemp("lz4")
    (root / "c").mkdir()
    for i in range(N):
        block = compress(_data(i).tobytes())
        kind = BAD.get(i)
        if kind == "malformed":
            block = bytes([0x10, 97, 0, 0])          # a match 0 bytes back
        elif kind == "empty":
            block = b""
        elif kind == "too large":
            block = compress(np.zeros(64, np.uint8).tobytes())
        elif kind == "cut":
            block = block[:len(block) // 2]
        (root / "c" / f"{i:02d}.lz4").write_bytes(block)
    return str(root)


def _pipe(root, on_error, **kwargs):
    @pipeline_def(batch_size=4, num_threads=1, device_id=0, prefetch_queue_depth=1)
    def pipe():
        data, _ = fn.readers.file(file_root=root, file_filters=["*.lz4"], name="R")
        out = fn.decoders.inflate(data, shape=[32], device="gpu", on_error=on_error,
                                  check_output_size=True, **kwargs)
        return out, data.source_info()

    p = pipe()
    p.build()
    return p


def test_an_epoch_inflates_every_good_sample_once(emulated_gpu, blocks):
    p = _pipe(blocks, "skip")
    with pytest.warns(RuntimeWarning, match=r"4 sample\(s\) that could not be read"):
        runs = [p.run() for _ in range(3)]
    good = [i for i in range(N) if i not in BAD]
    good += good[:4]                        # the epoch, then the next one's first batch
    got = [np.asarray(x) for out, _ in runs for x in out.as_cpu()]
    names = [bytes(np.array(si[i])).decode() for _, si in runs for i in range(len(si))]
    assert names == [f"c/{i:02d}.lz4" for i in good]
    for x, i in zip(got, good, strict=True):
        np.testing.assert_array_equal(x, _data(i))
    skipped = p.reader_meta("R")["skipped"]
    reasons = {s["sample"]: s["reason"] for s in skipped}
    assert [s["sample"] for s in skipped][:4] == [f"c/{i:02d}.lz4" for i in sorted(BAD)]
    assert "is not a valid LZ4 block" in reasons["c/02.lz4"]
    assert "the sample is empty" in reasons["c/05.lz4"]
    assert "decompresses to more than the 32 bytes" in reasons["c/06.lz4"]
    assert "is not a valid LZ4 block" in reasons["c/11.lz4"]
    assert all(r.startswith("dali.fn.decoders.inflate: ") for r in reasons.values())


def test_raise_is_the_default(emulated_gpu, blocks):
    p = _pipe(blocks, "raise")
    with pytest.raises(RuntimeError, match="is not a valid LZ4 block"):
        p.run()


def test_skip_needs_constant_shapes(emulated_gpu, blocks):
    @pipeline_def(batch_size=2, num_threads=1, device_id=0)
    def pipe():
        data, _ = fn.readers.file(file_root=blocks, file_filters=["*.lz4"])
        shape = fn.external_source(source=lambda: [np.array([32], np.int32)] * 2, batch=True)
        return fn.decoders.inflate(data, shape=shape, device="gpu", on_error="skip")

    with pytest.raises(RuntimeError, match='on_error="skip" needs `shape` to be a constant'):
        pipe().build()
