"""fn.io.file.read: file contents for encoded paths (uint8 / int8, NUL-terminated), errors."""

from __future__ import annotations

import numpy as np
import pytest
from pipeline_utils import run_op


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(5)
    contents = [rng.integers(0, 256, n).astype(np.uint8).tobytes() for n in (0, 1, 1000, 70000)]
    paths = []
    for i, c in enumerate(contents):
        p = tmp_path / f"f {i}.bin"
        p.write_bytes(c)
        paths.append(str(p))
    return paths, contents


def _enc(path, dtype=np.uint8, pad=0):
    return np.frombuffer(path.encode() + b"\0" * pad, dtype).copy()


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
def test_reads_the_files(data, dtype):
    paths, contents = data
    out, = run_op(lambda fn, x: fn.io.file.read(x),
                  [[_enc(p, dtype, pad=i) for i, p in enumerate(paths)]])
    for got, ref in zip(out, contents, strict=True):
        assert got.dtype == np.uint8 and got.ndim == 1
        assert got.tobytes() == ref


@pytest.mark.oracle
def test_matches_the_oracle(data):
    pytest.importorskip("nvidia.dali")
    paths, contents = data
    samples = [[_enc(p, pad=2) for p in paths[1:]]]             # DALI cannot map empty files
    ours, = run_op(lambda fn, x: fn.io.file.read(x), samples)
    theirs, = run_op(lambda fn, x: fn.io.file.read(x), samples, real=True)
    for a, b in zip(ours, theirs, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def test_missing_file_names_it(data, tmp_path):
    missing = str(tmp_path / "missing.bin")
    with pytest.raises(RuntimeError, match=r"io\.file\.read.*missing\.bin: No such file"):
        run_op(lambda fn, x: fn.io.file.read(x), [[_enc(data[0][1]), _enc(missing)]])


def test_rejects_other_input_types():
    with pytest.raises(RuntimeError, match="Unexpected input data type: int32"):
        run_op(lambda fn, x: fn.io.file.read(x), [[np.array([1, 2], np.int32)]])
