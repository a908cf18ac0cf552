"""Pipeline.profile and `python -m dali profile`: per-operator figures that add up, the
bottleneck and its kind named, the SVG, and no recording left on afterwards."""

import time
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from dali import __main__ as cli
from dali import fn, pipeline_def, types


def _slow(x):
    time.sleep(0.004)
    return x


@pipeline_def(batch_size=4, num_threads=2, device_id=None, seed=1)
def _python_bound():
    x = fn.random.uniform(shape=[64, 64, 3], range=[0, 255])
    y = fn.cast(x, dtype=types.UINT8)
    return fn.python_function(y, function=_slow), fn.flip(y)


def test_operators_add_up_and_python_function_bounds():
    pipe = _python_bound()
    report = pipe.profile(iterations=12, warmup=2, progress=False)
    names = [o.schema_name for o in report.operators]
    assert set(names) == {"random.uniform", "cast", "python_function", "flip"}
    assert report.operators[0].schema_name == "python_function"      # slowest first
    assert report.bound == "Python" and report.bottleneck.startswith("__PythonFunction")
    assert sum(o.share for o in report.operators) == pytest.approx(1.0)
    for o in report.operators:
        assert o.runs >= 12 - 2 and 0 < o.p50_ms <= o.p99_ms       # 2: prefetched earlier
    assert report.operators[0].p50_ms >= 4.0
    cast = next(o for o in report.operators if o.schema_name == "cast")
    assert cast.bytes_per_batch == 4 * 64 * 64 * 3          # uint8 output
    uniform = next(o for o in report.operators if o.schema_name == "random.uniform")
    assert uniform.bytes_per_batch == 4 * 64 * 64 * 3 * 4   # float32
    assert pipe._executor.plan.events is None                 # recording is off again
    text = report.table()
    assert "python_function" in text and "Python-bound" in text
    assert len(pipe.run()) == 2


def test_slow_callbacks_are_named():
    def source(i):
        time.sleep(0.01)
        return [np.zeros(4, np.float32)] * 2

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        return fn.external_source(source=source) + 1

    report = pipe().profile(iterations=5, warmup=1, progress=False)
    assert report.callbacks_ms >= 10.0
    assert report.bound == "Python" and report.bottleneck == "external_source callbacks"


def test_compute_bound_and_svg(tmp_path):
    @pipeline_def(batch_size=8, num_threads=2, device_id=None, seed=3)
    def pipe():
        x = fn.cast(fn.random.uniform(shape=[256, 256, 3], range=[0, 255]), dtype=types.UINT8)
        return fn.resize(x, resize_x=512, resize_y=512)

    svg = tmp_path / "profile.svg"
    report = pipe().profile(iterations=6, warmup=1, progress=False, svg=str(svg))
    assert report.bound in ("CPU", "parallelism")
    root = ET.parse(svg).getroot()
    texts = "".join(root.itertext())
    assert "__Resize" in texts and "timeline" in texts
    assert len(root.findall("{http://www.w3.org/2000/svg}rect")) >= 3


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="iterations must be >= 1"):
        _python_bound().profile(iterations=0)


def test_command_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "my_pipes.py").write_text(
        "from dali import fn\n"
        "def graph():\n"
        "    return fn.random.normal(shape=[32])\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["profile", "my_pipes:graph", "--batch-size", "4", "--num-threads", "1",
                     "--iterations", "5", "--svg", "p.svg"]) == 0
    out = capsys.readouterr().out
    assert "5 iterations of 4 samples, 1 threads" in out and "random.normal" in out
    assert (tmp_path / "p.svg").is_file()
    with pytest.raises(SystemExit):
        cli.main(["profile", "my_pipes"])
    with pytest.raises(SystemExit):
        cli.main(["profile", "no_such_module:f"])
