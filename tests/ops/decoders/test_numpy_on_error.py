"""on_error="skip" of decoders.numpy: the reader feeding the decoder replaces the files that are
not valid .npy bytes (the labels stay with their arrays), lists them in reader_meta and warns
once per epoch; "raise" (the default) fails as DALI does (the argument's checks:
test_on_error.py)."""

from __future__ import annotations

import numpy as np
import pytest

from dali import fn, pipeline_def

N = 20
BAD = {0: "garbage", 7: "empty", 8: "cut", 19: "version 2"}


@pytest.fixture(scope="module")
def npys(tmp_path_factory):
    root = tmp_path_factory.mktemp("npys")
    for c in ("a", "b"):
        (root / c).mkdir()
    for i in range(N):
        path = root / "ab"[i % 2] / f"{i:02d}.npy"
        np.save(path, np.full((2, 3), i, np.int32))
        kind = BAD.get(i)
        if kind == "garbage":
            path.write_bytes(b"\x93NUMPY garbage" * 10)
        elif kind == "empty":
            path.write_bytes(b"")
        elif kind == "cut":
            path.write_bytes(path.read_bytes()[:-4])
        elif kind == "version 2":
            with open(path, "wb") as f:
                np.lib.format.write_array(f, np.full((2, 3), i, np.int32), version=(2, 0))
    return str(root)


def _pipe(root, on_error):
    @pipeline_def(batch_size=4, num_threads=1, device_id=None)
    def pipe():
        data, label = fn.readers.file(file_root=root, file_filters=["*.npy"], name="R")
        return fn.decoders.numpy(data, on_error=on_error), label, data.source_info()

    p = pipe()
    p.build()
    return p


def test_an_epoch_decodes_every_good_file_once(npys):
    p = _pipe(npys, "skip")
    with pytest.warns(RuntimeWarning, match=r"4 sample\(s\) that could not be read"):
        runs = [p.run() for _ in range(5)]
    names = [bytes(np.array(si[i])).decode() for _, _, si in runs for i in range(len(si))]
    files = sorted((f"{'ab'[i % 2]}/{i:02d}.npy", i) for i in range(N))     # a/ first
    good = [(name, i) for name, i in files if i not in BAD]
    assert names[:len(good)] == [name for name, _ in good]
    arrays = [np.array(x) for out, _, _ in runs for x in out]
    labels = [int(np.array(x)[0]) for _, out, _ in runs for x in out]
    for array, label, (_, i) in zip(arrays, labels, good, strict=False):
        np.testing.assert_array_equal(array, np.full((2, 3), i, np.int32))
        assert label == i % 2
    skipped = p.reader_meta("R")["skipped"]
    reasons = {s["sample"]: s["reason"] for s in skipped}
    assert sorted(reasons) == sorted(name for name, i in files if i in BAD)
    assert "Only major version 1" in reasons["b/19.npy"]
    assert "Expected data numpy size 24 bytes" in reasons["a/08.npy"]
    assert all(r.startswith("dali.fn.decoders.numpy: ") for r in reasons.values())


def test_raise_is_the_default(npys):
    with pytest.raises(RuntimeError, match="a/00.npy"):
        _pipe(npys, "raise").run()

