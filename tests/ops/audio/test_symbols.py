"""dali.ops.audio._symbols: private functions of a loaded library found through its ELF
symbol table, and nothing (never an error) where there is none."""
import ctypes
import subprocess
import sys

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


def test_a_process_that_decoded_flac_on_pool_threads_exits_cleanly(tmp_path):
    # The pool threads delete their libFLAC decoders as they exit, at interpreter exit, after
    # soundfile's module (which loaded the library) was finalized: the library must stay
    # mapped (it segfaulted, exit status 139).
    script = tmp_path / "decode_flac.py"
    script.write_text(
        "import io\n"
        "import numpy as np\n"
        "import soundfile as sf\n"
        "from dali import fn, pipeline_def, types\n"
        "buf = io.BytesIO()\n"
        "sf.write(buf, np.zeros((5000, 1)), 16000, format='FLAC')\n"
        "data = np.frombuffer(buf.getvalue(), np.uint8)\n"
        "@pipeline_def(batch_size=4, num_threads=2, device_id=None)\n"
        "def pipe():\n"
        "    x = fn.external_source(source=lambda: [data] * 4, batch=True)\n"
        "    return fn.decoders.audio(x, dtype=types.FLOAT)[0]\n"
        "p = pipe()\n"
        "p.build()\n"
        "print(p.run()[0].shape())\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == str([(5000, 1)] * 4)
