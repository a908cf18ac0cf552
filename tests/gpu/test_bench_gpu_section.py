"""The GPU benchmark section (bench/gpu.py): it skips cleanly without a CUDA device, and its
pipelines (the image graphs of bench.pipelines with device="gpu") build and run on the emulated
device, giving what their CPU variants give."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import backends, gpu, pipelines  # noqa: E402
from dali import _gpu  # noqa: E402

IMAGES = str(REPO / "dali" / "data" / "images")
DALI = backends.load(backends.OURS)
IDS = [c.key.replace(" ", "-") for c in gpu.CASES]


def _host(out):
    return [np.asarray(t) for t in (out.as_cpu() if hasattr(out, "as_cpu") else out)]


@pytest.mark.parametrize("missing", ["cupy", "device"])
def test_section_skips_without_a_device(monkeypatch, capsys, missing):
    if missing == "cupy":
        monkeypatch.setattr(_gpu, "cupy_available", lambda: False)
        why = "CuPy is not installed"
    else:
        monkeypatch.setattr(_gpu, "cupy_available", lambda: True)
        monkeypatch.setattr(_gpu, "device_count", lambda: 0)
        why = "CuPy finds no CUDA device"
    logged = []
    rows = gpu.measure_gpu([DALI], "not used", 3, 12, 3, logged.append)
    assert logged == [f"  gpu skipped: {gpu.unavailable()}"] and why in logged[0]
    assert [r.key for r in rows] == [c.key for c in pipelines.IMAGE_CASES]
    assert all(r.skipped == gpu.unavailable() and r.timings == {} for r in rows)
    text = gpu.table(rows)
    assert text.count(f"*skipped: {gpu.unavailable()}*") == len(rows)
    # the command line neither needs the corpus nor fails
    assert [r.skipped for r in gpu.main(["--repeats", "1"])] == [gpu.unavailable()] * len(rows)
    out = capsys.readouterr().out
    assert out.count("gpu skipped:") == 1 and "| pipeline (GPU) |" in out


@pytest.mark.parametrize("case", gpu.CASES, ids=IDS)
def test_gpu_pipelines_equal_their_cpu_variant(emulated_gpu, case):
    on_gpu = gpu.build(DALI, case, IMAGES, batch_size=2).run()
    on_cpu = pipelines.build(DALI, case.graph, batch_size=2, root=IMAGES).run()
    assert type(on_gpu[0]).__name__ == "TensorListGPU"
    assert type(on_gpu[1]).__name__ == "TensorListCPU"          # labels stay on the host
    for g, c in zip(on_gpu, on_cpu, strict=True):
        assert (g.dtype, g.layout(), g.shape()) == (c.dtype, c.layout(), c.shape())
        for a, b in zip(_host(g), _host(c), strict=True):
            np.testing.assert_array_equal(a, b)
    # P1 decodes only (mixed: on the host, then uploaded); the others resize and normalize on
    # the device
    expected = set() if case.key == "P1" else {"resample_u8_f32", "cmn_u8_f32"}
    assert expected <= set(emulated_gpu.launches) and bool(expected) == bool(emulated_gpu.launches)


def test_measure_on_the_emulated_device(emulated_gpu, monkeypatch):
    monkeypatch.setattr(gpu, "unavailable", lambda: None)
    monkeypatch.setattr(gpu, "device_name", lambda device_id=0: "emulated")
    logged = []
    rows = gpu.measure_gpu([DALI], IMAGES, 1, 1, 0, logged.append, batch_size=2)
    assert logged[0] == "  gpu: emulated" and len(logged) == 1 + 2 * len(gpu.CASES)
    for row in rows:
        assert row.skipped is None and row.device == "emulated"
        assert sorted(row.timings) == sorted(["dali", gpu.CPU_PATH])
        for label in row.timings:
            (t,) = row.timings[label]
            assert t.items == 2 and t.rate > 0
    text = gpu.table(rows)
    lines = text.splitlines()
    assert len(lines) == 2 + len(rows) + 2 and lines[-1] == "On emulated (device_id=0)."
    for line in lines[2:2 + len(rows)]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert float(cells[1]) > 0 and cells[2] == cells[3] == cells[5] == "—"
        assert float(cells[6]) > 0 and float(cells[7]) == pytest.approx(     # 2 decimals
            float(cells[1]) / float(cells[6]), rel=0.01, abs=0.006)
