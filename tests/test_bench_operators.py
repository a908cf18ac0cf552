"""The per-operator benchmark (bench/cases/) covers every public operator, and each of
its cases builds and runs on dali for both input sets (small batches: a smoke test, no timing).
"""

from __future__ import annotations

import pathlib
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import backends, opcase, operator_report, operators, pipelines  # noqa: E402

DALI = backends.load(backends.OURS)


def test_every_public_operator_has_a_case():
    from dali import _registry

    # Operators real DALI has on the GPU only (Schema.cpu False) have nothing to measure here.
    gpu_only = {name for name, impl in _registry.all_operators().items() if not impl.schema.cpu}
    missing = sorted(set(operators.public_operators()) - set(operators.CASES) - gpu_only)
    assert not missing, (f"no benchmark case in bench/cases/ for: {', '.join(missing)} "
                         "(add one to the CASE_LIST of its family in bench/cases/)")


def test_rows_cover_operators_and_cases():
    rows = operators.row_names()
    assert set(operators.public_operators()) <= set(rows)
    assert set(operators.CASES) <= set(rows)
    assert operators.row_names(["flip", "resize"]) == ["flip", "resize"]
    with pytest.raises(ValueError, match="no_such_op"):
        operators.row_names(["no_such_op"])


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the deprecated aliases
@pytest.mark.parametrize("size", opcase.SIZES)
@pytest.mark.parametrize("case", operators.CASE_LIST, ids=lambda c: c.name)
def test_case_runs_on_dali(case, size):
    if case.op and not backends.has_operator(DALI, case.op):
        pytest.skip(f"dali has no fn.{case.op}")
    if case.missing_modules():
        pytest.skip(f"needs {', '.join(case.missing_modules())}")
    for graph in (opcase.op_graph(case, size, 1), opcase.baseline_graph(case, size, 1)):
        pipe = pipelines.build(DALI, graph, batch_size=1, num_threads=1)
        out = pipe.run()
        assert len(out[0]) == 1


@pytest.mark.parametrize("name, size, shapes", [
    ("flip", "image", [[224, 224, 3]]), ("paste", "small", [[8, 8, 3]]),
    ("readers.file", "image", [[0]])])
def test_baseline_consumes_the_sources(name, size, shapes):
    # The baseline returns the shapes of the case's sources (an "idle" case: a zero byte), not
    # the sources themselves (bench/opcase.py's docstring says why).
    pipe = pipelines.build(DALI, opcase.baseline_graph(operators.CASES[name], size, 1),
                           batch_size=1, num_threads=1)
    assert pipe.run()[0].as_array().tolist() == shapes


def test_input_sets():
    for kind in ("u8", "f32", "jpeg", "boxes", "points", "labels", "frames"):
        image, _ = opcase.batch(kind, "image", 3)
        small, _ = opcase.batch(kind, "small", 3)
        assert len(image) == len(small) == 3
    assert opcase.batch("u8", "image", 1)[0][0].shape == (224, 224, 3)
    assert opcase.batch("u8", "small", 1)[0][0].shape == (8, 8, 3)
    boxes = opcase.batch("boxes", "image", 64)[0]
    assert all(b.shape[1] == 4 and 20 <= b.shape[0] <= 50 for b in boxes)


def test_measure_and_table():
    case = operators.CASES["copy"]
    res = operator_report.measure_case([DALI], case, "small", repeats=2, warmup=1,
                                       window=0.001)
    assert len(res["dali"]) == 2
    results = {"copy": {"image": {"dali": [2.0, 2.2], "DALI": [1.0, 1.0]},
                        "small": {"dali": [0.01], "DALI": "no fn.copy"}},
               "zzz": None, "experimental.dilate": operator_report.why_no_case(
                   "experimental.dilate")}
    text = operator_report.table(results)
    assert "| copy | 2.10 | 1.00 | **2.10** ▲ | 0.010 | n/a [1] | — |" in text
    assert "1. DALI: no fn.copy — copy (small)" in text
    assert "2. dali: no case in bench/cases/ — zzz" in text
    assert ("3. dali: GPU-only operator (no CPU backend, in DALI as in dali): nothing to "
            "compare on the CPU — experimental.dilate") in text
    assert operator_report.why_no_case("zzz") == "no case in bench/cases/"


def test_ratio_only_out_of_noise():
    assert operator_report._ratio([2.0, 2.1, 1.9], [1.0, 1.0, 1.1]) == pytest.approx(2.0)
    assert operator_report._ratio([2.0, 2.1, 1.9], [0.1, -0.4, 0.6]) is None  # spread > median
    assert operator_report._ratio([0.005, 0.005], [1.0, 1.0]) is None         # below the floor
    assert operator_report._ratio([1.0], "no fn.x") is None


@pytest.mark.parametrize("inputs, baseline, iterations", [
    ((), "idle", operator_report.MIN_SOURCE_ITERATIONS), (("u8",), "source", 1)])
def test_sources_are_timed_over_several_batches(monkeypatch, inputs, baseline, iterations):
    # A batch slower than the window is timed alone, except for a source (a reader reads its
    # next batch ahead, so one batch alone would count only the wait for it).
    monkeypatch.setattr(operator_report.pipelines, "build", lambda backend, graph, sync: object())
    monkeypatch.setattr(operator_report.opcase, "op_graph", lambda case, size: None)
    monkeypatch.setattr(operator_report.opcase, "baseline_graph", lambda case, size: None)
    monkeypatch.setattr(operator_report, "_per_batch", lambda pipe, n: 0.2)
    case = opcase.OpCase("x", None, lambda *a, **k: None, inputs, baseline)
    assert operator_report._prepare(DALI, case, "image", 2, window=0.05)[2] == iterations


def test_reason_is_one_line():
    err = RuntimeError("Critical error in pipeline:\nError in CPU operator `x`,\nwhich was used"
                       " in the pipeline definition with the following traceback:\n\n  File "
                       "\"a.py\", line 1\n    return f(x)\n\nencountered:\n\nBad input.\n"
                       "Current pipeline object is no longer valid.")
    assert operator_report.reason(err) == "Bad input."
