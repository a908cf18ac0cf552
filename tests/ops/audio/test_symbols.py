"""dali.ops.audio._symbols: private functions of a loaded library found through its ELF
symbol table, and nothing (never an error) where there is none."""
import ctypes

import pytest

from dali._ext.kernels import audio_decode
from dali.ops.audio import _symbols

sf = pytest.importorskip("soundfile")


def address(name):
    return int(sf._ffi.cast("uintptr_t", getattr(sf._snd, name)))


def test_exported_functions_are_found_at_their_addresses():
    names = ("sf_readf_short", "sf_close")
    found = _symbols.private_functions("sf_open_virtual", address("sf_open_virtual"), names)
    if not found:
        pytest.skip("the soundfile library has no symbol table")
    assert found == {name: address(name) for name in names}


def test_unknown_names_and_libraries_give_nothing(tmp_path):
    assert _symbols.private_functions("sf_open_virtual", address("sf_open_virtual"),
                                      ("no_such_function",)) == {}
    assert _symbols.private_functions("no_such_function", address("sf_open_virtual"),
                                      ("sf_close",)) == {}
    python_function = ctypes.cast(ctypes.pythonapi.Py_IsInitialized, ctypes.c_void_p).value
    assert _symbols.private_functions("sf_open_virtual", python_function,
                                      ("sf_close",)) == {}
    not_elf = tmp_path / "lib.so"
    not_elf.write_bytes(b"not an ELF file" * 10)
    assert _symbols._function_values(str(not_elf), ("sf_close",)) == {}
    truncated = tmp_path / "truncated.so"
    with open(audio_decode.__file__, "rb") as f:       # an ELF file cut before its sections
        truncated.write_bytes(f.read(4096))
    assert _symbols._function_values(str(truncated), ("sf_close",)) == {}
