"""An operator error costs one batch: the message names the failing and the lost samples, the
next call returns the next batch, and `reset()` keeps what was prefetched (docs/executor.md)."""

import cv2
import numpy as np
import pytest

from dali import Pipeline, _operator, fn, pipeline_def
from dali._executor import errors
from dali._executor.errors import PipelineError
from dali._schema import Arg, Schema
from dali._types import DALIDataType as T


class _FailOn(_operator.Operator):
    """Test operator: copies its input; samples whose first value is in `values` fail."""

    schema = Schema("test_only.fail_on", inputs=1, args=[Arg("values", T._INT32_VEC, [])])

    def infer(self, ws):
        tl = ws.inputs[0]
        return _operator.Plan([_operator.OutputDesc(tl.shape(), ws.input_dtype(0), tl.layout())])

    def run_cpu(self, ws, plan):
        bad = [i for i, s in enumerate(ws.input_samples()) if int(s.reshape(-1)[0])
               in self.args["values"]]
        if bad:
            raise errors.SampleError(bad[0], f"value {bad[0]} is bad", RuntimeError,
                                     [(i, f"sample {i} is bad") for i in bad])
        for src, dst in zip(ws.input_samples(), ws.output_samples(), strict=True):
            dst[...] = src


def fail_on(x, values):
    return _operator.call(_FailOn, (x,), {"values": values})


def counting(batch_size):
    def cb(info):
        return [np.full((2,), info.iteration * batch_size + i, np.int32)
                for i in range(batch_size)]
    return cb


def first_values(tl):
    return [int(np.array(t).reshape(-1)[0]) for t in tl]


MODES = [(True, True), (True, False), (False, True), (False, False)]


def run_all(pipe, n):
    """`n` calls of `run()`: the first values of each batch, or "ERR" for a failed one."""
    seen = []
    for _ in range(n):
        try:
            seen.append(first_values(pipe.run()[0]))
        except PipelineError:
            seen.append("ERR")
    return seen


@pytest.mark.parametrize("pipelined,asynchronous", MODES)
@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("reset", [False, True])
def test_only_the_failed_batch_is_lost(pipelined, asynchronous, depth, reset):
    p = Pipeline(batch_size=2, num_threads=1, device_id=None, prefetch_queue_depth=depth,
                 exec_pipelined=pipelined, exec_async=asynchronous)
    with p:
        p.set_outputs(fail_on(fn.external_source(source=counting(2), batch_info=True), [5]))
    seen = []
    for _ in range(5):
        try:
            seen.append(first_values(p.run()[0]))
        except PipelineError:
            seen.append("ERR")
            if reset:
                p.reset()              # mid-epoch: keeps what was prefetched
    assert seen == [[0, 1], [2, 3], "ERR", [6, 7], [8, 9]]


def test_random_values_after_an_error_are_those_of_an_error_free_run():
    def build(values):
        p = Pipeline(batch_size=2, num_threads=1, device_id=None, seed=3)
        with p:
            x = fail_on(fn.external_source(source=counting(2), batch_info=True), values)
            p.set_outputs(x, fn.random.uniform(range=(0.0, 1.0)))
        return p

    clean, broken = build([]), build([2])
    expected = [np.array(clean.run()[1].as_tensor()) for _ in range(3)]
    np.testing.assert_array_equal(np.array(broken.run()[1].as_tensor()), expected[0])
    with pytest.raises(PipelineError):
        broken.run()
    np.testing.assert_array_equal(np.array(broken.run()[1].as_tensor()), expected[2])


def test_message_names_first_failure_every_failure_and_the_lost_batch():
    p = Pipeline(batch_size=4, num_threads=1, device_id=None)
    with p:
        p.set_outputs(fail_on(fn.external_source(source=counting(4), batch_info=True), [1, 3]))
    with pytest.raises(PipelineError) as info:
        p.run()
    err = info.value
    assert err.sample == 1 and err.failed_samples == (1, 3)
    assert err.batch_source_info == ["", "", "", ""]
    msg = str(err)
    assert "value 1 is bad\n(in sample 1 of the batch)\n" in msg
    assert "Failing samples of the batch:\n  1: sample 1 is bad\n  3: sample 3 is bad\n" in msg
    assert msg.endswith("This batch of 4 samples is lost.\n"
                        "The pipeline stays usable: the next run() returns the next batch.")


def test_shorten_keeps_the_end():
    assert errors.shorten("a/b.jpg") == "a/b.jpg"
    long = "d" * 100 + "/name.jpg"
    assert errors.shorten(long) == "..." + long[-77:] and len(errors.shorten(long)) == 80


def test_lost_batch_listing_is_cut_after_16_samples():
    listed = errors._lost([f"f{i}.jpg" for i in range(20)], 20)
    assert listed == ("This batch of 20 samples is lost: " +
                      ", ".join(f"{i} 'f{i}.jpg'" for i in range(16)) + ", ... and 4 more.\n")


# -- readers.file on a folder with one corrupt JPEG ----------------------------------------------

@pytest.fixture(scope="module")
def folder_with_corrupt_jpeg(tmp_path_factory):
    """12 JPEGs f00..f11 in one class folder, f05 cut short; pixel value = 10 * file number."""
    root = tmp_path_factory.mktemp("corrupt")
    (root / "c").mkdir()
    for i in range(12):
        ok, enc = cv2.imencode(".jpg", np.full((8, 8, 3), 10 * i, np.uint8))
        data = enc.tobytes()
        if i == 5:
            data = data[:len(data) // 3]
        (root / "c" / f"f{i:02d}.jpg").write_bytes(data)
    return str(root)


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("reset", [False, True])
def test_reader_with_a_corrupt_jpeg_skips_only_its_batch(folder_with_corrupt_jpeg, depth, reset):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None, prefetch_queue_depth=depth)
    def pipe():
        jpegs, _ = fn.readers.file(file_root=folder_with_corrupt_jpeg)
        return fn.decoders.image(jpegs)

    p = pipe()
    files, errs = [], []
    for _ in range(7):
        try:
            files += [int(np.array(t)[0, 0, 0] + 5) // 10 for t in p.run()[0]]
        except PipelineError as e:
            errs.append(e)
            if reset:
                p.reset()
    assert files == [0, 1, 2, 3, 6, 7, 8, 9, 10, 11, 0, 1]
    err, = errs
    assert (err.sample, err.source_info) == (1, "c/f05.jpg")
    assert err.batch_source_info == ["c/f04.jpg", "c/f05.jpg"]
    assert "This batch of 2 samples is lost: 0 'c/f04.jpg', 1 'c/f05.jpg'.\n" in str(err)
