import os
import pathlib

import numpy as np
import pytest
from pipeline_utils import run_op

from dali import Pipeline, fn
from dali._executor.errors import PipelineError

# Synchronous pipelines: a pipeline running ahead would write its next batch after the test has
# left its temporary directory.
SYNC = dict(exec_async=False, exec_pipelined=False)
GOLDEN = pathlib.Path(__file__).resolve().parents[2] / "goldens" / "dump_image.npz"
ORACLE = [False, pytest.param(True, marks=pytest.mark.oracle)]


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def reference_pnm(img):
    h, w, c = img.shape
    rows = "".join("".join(f"{v} " for v in row.reshape(-1)) + "\n" for row in img)
    return f"{'P3' if c == 3 else 'P2'}\n{w} {h}\n255\n{rows}".encode()


def written(path):
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


def random_images(seed):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, size=(*rng.integers(1, 40, size=2), rng.choice([1, 3])),
                         dtype=np.uint8) for _ in range(rng.integers(1, 6))]


@pytest.mark.parametrize("seed", range(4))
def test_files_and_pass_through(in_tmp, seed):
    batch = random_images(seed)
    suffix = ["", "x", "a-b", "dbg"][seed]
    out, = run_op(lambda fn, x: fn.dump_image(x, suffix=suffix), [batch], layouts=["HWC"],
                  num_threads=2, **SYNC)
    for o, b in zip(out, batch, strict=True):
        np.testing.assert_array_equal(o, b)
    assert written(in_tmp) == {f"{i}-{suffix}-0.ppm": reference_pnm(b)
                               for i, b in enumerate(batch)}


def test_each_iteration_overwrites_the_files(in_tmp):
    big = [np.full((6, 5, 3), 200, np.uint8), np.full((3, 3, 1), 9, np.uint8)]
    small = [np.full((1, 2, 1), 7, np.uint8), np.full((2, 1, 3), 1, np.uint8)]
    run_op(lambda fn, x: fn.dump_image(x), [[big], [small]], iterations=2, **SYNC)
    assert written(in_tmp) == {f"{i}--0.ppm": reference_pnm(b) for i, b in enumerate(small)}


def test_golden_files_from_dali(in_tmp):
    golden = np.load(GOLDEN)
    batch = [golden[f"image_{i}"] for i in range(3)]
    run_op(lambda fn, x: fn.dump_image(x, suffix="golden"), [batch], layouts=["HWC"], **SYNC)
    expected = {k: golden[k].tobytes() for k in golden.files if k.endswith(".ppm")}
    assert len(expected) == 3 and written(in_tmp) == expected


@pytest.mark.oracle
def test_same_files_as_real_dali(tmp_path, monkeypatch):
    batch = random_images(11)
    files = []
    for real in (False, True):
        d = tmp_path / str(real)
        d.mkdir()
        monkeypatch.chdir(d)
        run_op(lambda fn, x: fn.dump_image(x, suffix="s"), [batch], layouts=["HWC"], real=real,
               **SYNC)
        files.append(written(d))
    assert files[0] == files[1] and len(files[0]) == len(batch)


@pytest.mark.parametrize("real", ORACLE)
def test_output_layout_and_no_copy(in_tmp, real):
    import importlib

    pkg = importlib.import_module("nvidia.dali" if real else "dali")
    batch = [np.zeros((2, 3, 3), np.uint8)]
    p = pkg.Pipeline(batch_size=1, num_threads=1, device_id=None, **SYNC)
    with p:
        x = pkg.fn.external_source(lambda: batch, layout="HWC")
        p.set_outputs(pkg.fn.dump_image(x))
    out, = p.run()
    assert out.layout() == "HWC" and np.array(out[0]).shape == (2, 3, 3)


def test_pruned_unless_preserved(in_tmp):
    for preserve in (False, True):
        p = Pipeline(batch_size=1, num_threads=1, device_id=None, **SYNC)
        with p:
            x = fn.external_source(lambda: [np.zeros((1, 1, 3), np.uint8)], layout="HWC")
            fn.dump_image(x, suffix=str(preserve), preserve=preserve)
            p.set_outputs(x)
        p.run()
    assert sorted(os.listdir(in_tmp)) == ["0-True-0.ppm"]


# -- errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("sample, exc, message", [
    (np.zeros((2, 2), np.uint8), ValueError,
     "Input images must have three dimensions, got input with `2` dimensions."),
    (np.zeros((2, 2, 4), np.uint8), ValueError,
     "Only 3-channel and gray images are supported, got input with `4` channels."),
    (np.zeros((2, 2, 3), np.float32), TypeError, "the images must be uint8, got float32"),
])
def test_bad_inputs(in_tmp, sample, exc, message):
    with pytest.raises(PipelineError, match=r"dali\.fn\.dump_image") as e:
        run_op(lambda fn, x: fn.dump_image(x), [[sample]], **SYNC)
    assert isinstance(e.value, exc) and message in str(e.value)
    assert os.listdir(in_tmp) == []


@pytest.mark.parametrize("real", ORACLE)
def test_only_hwc(in_tmp, real):
    with pytest.raises(Exception, match="CHW not supported yet."):
        run_op(lambda fn, x: fn.dump_image(x, input_layout="CHW"),
               [[np.zeros((3, 2, 2), np.uint8)]], real=real, **SYNC)


def test_unwritable_directory(in_tmp):
    in_tmp.chmod(0o500)
    if os.access(in_tmp, os.W_OK):           # root may write anyway
        pytest.skip("the directory stays writable for this user")
    with pytest.raises(PipelineError, match="cannot write 0--0.ppm: Permission denied"):
        run_op(lambda fn, x: fn.dump_image(x), [[np.zeros((1, 1, 3), np.uint8)]], **SYNC)
