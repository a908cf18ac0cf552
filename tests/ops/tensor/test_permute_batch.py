"""fn.permute_batch: constant and argument-input indices against NumPy, repeated and dropped
samples, empty samples, errors, and real DALI."""

import pathlib

import numpy as np
import pytest
from layout_utils import run_layouts

from dali import fn, pipeline_def
from dali._executor.errors import PipelineError

RNG = np.random.default_rng(53)
IMAGES = pathlib.Path(__file__).parents[3] / "dali" / "data" / "images"


def _batch(dtype=np.uint8, n=5):
    return [RNG.integers(0, 200, tuple(RNG.integers(0, 5, 3))).astype(dtype) for _ in range(n)]


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64])
def test_constant_indices(dtype):
    batch = _batch(dtype)
    for _ in range(5):
        indices = [int(i) for i in RNG.integers(0, len(batch), len(batch))]
        out, layout = run_layouts(lambda fn, x, ix=indices: fn.permute_batch(x, indices=ix),
                                  [batch], ["HWC"])
        assert layout == "HWC"
        for o, i in zip(out, indices, strict=True):
            assert o.dtype == dtype
            np.testing.assert_array_equal(o, batch[i])


def test_argument_input_indices():
    batch = _batch()
    indices = [np.int32(i) for i in RNG.permutation(len(batch))]
    out, _ = run_layouts(lambda fn, x, ix: fn.permute_batch(x, indices=ix), [batch, indices])
    for o, i in zip(out, indices, strict=True):
        np.testing.assert_array_equal(o, batch[int(i)])


@pytest.mark.parametrize("indices, match", [
    ([1, 0], "The number of sample indices 2 does not match the current batch size, which is 3"),
    ([1, 0, 3], r"Sample index out of range. indices\[2\] = 3 is not a valid index for an input "
                "batch of 3 tensors"),
    ([-1, 0, 1], r"indices\[0\] = -1 is not a valid index")])
def test_errors(indices, match):
    with pytest.raises(PipelineError, match=match) as e:
        run_layouts(lambda fn, x: fn.permute_batch(x, indices=indices), [_batch(n=3)])
    assert "fn.permute_batch" in str(e.value)


def test_source_info_follows_the_samples():
    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def pipe():
        x, _ = fn.readers.file(file_root=str(IMAGES))
        return fn.permute_batch(x, indices=[2, 0, 0]), x

    p = pipe()
    p.build()
    out, src = p.run()
    assert [out[i].source_info() for i in range(3)] == [src[i].source_info() for i in (2, 0, 0)]
    assert src[0].source_info()


@pytest.mark.oracle
def test_matches_dali():
    pytest.importorskip("nvidia.dali")
    batch = _batch(np.int16)
    indices = [4, 4, 0, 1, 2]
    ours = run_layouts(lambda fn, x: fn.permute_batch(x, indices=indices), [batch], ["ABC"])
    theirs = run_layouts(lambda fn, x: fn.permute_batch(x, indices=indices), [batch], ["ABC"],
                         real=True)
    assert ours[1] == theirs[1]
    for o, t in zip(ours[0], theirs[0], strict=True):
        assert o.dtype == t.dtype
        np.testing.assert_array_equal(o, t)
