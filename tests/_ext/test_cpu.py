"""The import-time CPU check: what it reports for a CPU that lacks an instruction set the build
assumed (a fake one), and that this machine passes it."""

import importlib
import platform
import re
from pathlib import Path

import pytest

from dali._ext import cpu

HEADER = Path(__file__).parents[2] / "_ext" / "cpu_features.h"
X86 = platform.machine().lower() in ("x86_64", "amd64")


def test_missing_lists_what_the_cpu_lacks_in_order():
    def has(f):
        return {"sse4.2": True, "avx2": False, "avx512f": False}.get(f)
    assert cpu.missing(["avx512f", "sse4.2", "avx2", "unknown"], has) == ["avx512f", "avx2"]


def test_check_names_missing_instruction_sets_and_how_to_rebuild():
    with pytest.raises(ImportError) as info:
        cpu.check("-march=x86-64-v3", ["sse4.2", "avx", "avx2", "fma"],
                  has=lambda f: f == "sse4.2")
    msg = str(info.value)
    assert "-march=x86-64-v3" in msg and "avx, avx2, fma" in msg and "sse4.2" not in msg
    assert "DALI_MARCH= " in msg and "illegal instruction" in msg


def test_check_passes_when_everything_is_there_or_unknown():
    cpu.check("-march=x86-64-v2", ["sse4.2", "popcnt"], has=lambda f: True)
    cpu.check("-march=armv8-a", ["neon"], has=lambda f: None)
    cpu.check("the compiler's default", [])


def test_every_feature_of_the_table_can_be_asked_on_x86():
    names = re.findall(r'X\("([^"]+)"\)', HEADER.read_text())
    assert "sse4.2" in names and "avx2" in names
    answers = {f: cpu.has(f) for f in names}
    if X86 and cpu.CHECKED:
        assert all(isinstance(a, bool) for a in answers.values()), answers
        assert answers["sse3"]               # every x86-64 CPU made since 2005 has it
    else:
        assert all(a is None for a in answers.values())
    assert cpu.has("no-such-feature") is None


def test_this_build_passes_its_own_check():
    ext = importlib.import_module("dali._ext")
    try:
        info = importlib.import_module("dali._ext._build_info")
    except ImportError:
        pytest.skip("built without a _build_info record")
    assert cpu.missing(info.CPU_FEATURES) == []
    assert isinstance(ext.has_libjpeg_turbo(), bool)
    if info.LIBJPEG_TURBO is not None:
        assert info.LIBJPEG_TURBO == ext.has_libjpeg_turbo()
