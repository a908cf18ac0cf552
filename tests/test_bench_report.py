"""bench/report.py: the optional torchvision rows are skipped with the reason when torchvision
is missing or does not load, instead of ending the report."""

from __future__ import annotations

import builtins
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import report  # noqa: E402


def test_torchvision_problem_names_a_missing_or_broken_install(monkeypatch):
    report.torchvision_problem.cache_clear()
    monkeypatch.setattr(report.importlib.util, "find_spec", lambda name: None)
    assert report.torchvision_problem() == "torch not installed"

    report.torchvision_problem.cache_clear()
    monkeypatch.setattr(report.importlib.util, "find_spec", lambda name: object())
    monkeypatch.delitem(sys.modules, "torchvision", raising=False)
    real_import = builtins.__import__

    def broken(name, *args, **kwargs):
        if name == "torchvision":
            raise RuntimeError("operator torchvision::nms does not exist\nmore")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", broken)
    assert report.torchvision_problem() == (
        "torchvision does not load (RuntimeError: operator torchvision::nms does not exist)")
    report.torchvision_problem.cache_clear()


def test_references_table_says_why_torchvision_is_missing(monkeypatch):
    # the skip row is there whatever other references were measured (the cv2 bound's too)
    monkeypatch.setattr(report, "torchvision_problem", lambda: "torch not installed")
    t = report.measure.Timing(64, 0.5, 1.0)
    for res in ({}, {"P1": {"dali": [t], "cv2": [t]}}):
        assert report.references_table(res).splitlines()[-1].startswith(
            "| torchvision DataLoader | *torch not installed: skipped* |")
