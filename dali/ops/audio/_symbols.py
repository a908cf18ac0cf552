"""The addresses of functions a loaded shared library keeps private: the libFLAC decoder inside
the libsndfile of the `soundfile` wheel, which exports only libsndfile's API.

The library's file is found by `dladdr` on one of its exported functions, and a private
function's address is that function's address plus the difference of the two values in the
file's ELF symbol table (`.symtab`, which the wheel keeps).  Where anything is missing (not an
ELF file, a stripped library, a name not found) the answer leaves the names out, and the
caller goes without them.
"""

from __future__ import annotations

import ctypes
import functools
import os

import numpy as np

_SHT_SYMTAB = 2
_STT_FUNC = 2
_SECTION = np.dtype([("name", "<u4"), ("type", "<u4"), ("flags", "<u8"), ("addr", "<u8"),
                     ("offset", "<u8"), ("size", "<u8"), ("link", "<u4"), ("info", "<u4"),
                     ("addralign", "<u8"), ("entsize", "<u8")])
_SYMBOL = np.dtype([("name", "<u4"), ("info", "u1"), ("other", "u1"), ("shndx", "<u2"),
                    ("value", "<u8"), ("size", "<u8")])


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def private_functions(exported, address, names):
    """{name: address} of those of `names` that the library holding the function `exported`,
    loaded at `address`, defines in its symbol table."""
    info = _DlInfo()
    try:
        found = ctypes.CDLL(None).dladdr(ctypes.c_void_p(address), ctypes.byref(info))
    except (OSError, AttributeError):
        return {}
    if not found or not info.dli_fname:
        return {}
    values = _function_values(info.dli_fname, (exported, *names))
    if exported not in values or not _stay_loaded(info.dli_fname):
        return {}
    base = address - values[exported]
    return {name: base + values[name] for name in names if name in values}


def _stay_loaded(path):
    """Keep the loaded library `path` mapped until the process ends (RTLD_NODELETE on the
    copy already loaded), so that functions called at thread exit (a pool thread's libFLAC
    decoder is deleted then) outlive its owner's unloading of it at interpreter exit
    (soundfile's cffi library is closed as its module is finalized); False where it cannot
    be (the caller then does without the functions)."""
    try:
        ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_NOLOAD | os.RTLD_NODELETE)
    except (OSError, AttributeError):
        return False
    return True


@functools.cache
def _function_values(path, names):
    """{name: value} of the functions among `names` in the ELF symbol table of the 64-bit
    little-endian file `path` ({} where it has none)."""
    try:
        with open(path, "rb") as f:
            data = np.frombuffer(f.read(), np.uint8)
    except OSError:
        return {}
    if data.size < 64 or data[:6].tobytes() != b"\x7fELF\x02\x01":
        return {}
    shoff, count = int(data[40:48].view("<u8")[0]), int(data[60:62].view("<u2")[0])
    if shoff + count * _SECTION.itemsize > data.size:
        return {}
    sections = data[shoff:shoff + count * _SECTION.itemsize].view(_SECTION)
    tables = np.flatnonzero(sections["type"] == _SHT_SYMTAB)
    if not len(tables) or sections["link"][tables[0]] >= count:
        return {}
    table, strings = sections[tables[0]], sections[sections["link"][tables[0]]]
    end = int(table["offset"] + table["size"])
    if end > data.size or strings["offset"] + strings["size"] > data.size:
        return {}
    symbols = data[int(table["offset"]):end].view(_SYMBOL)
    text = data[int(strings["offset"]):int(strings["offset"] + strings["size"])].tobytes()
    functions = symbols[((symbols["info"] & 0xF) == _STT_FUNC) & (symbols["value"] != 0)]
    values = {}
    for name in names:
        match = functions["value"][np.isin(functions["name"], _ends_of(text, name.encode()))]
        if len(match):
            values[name] = int(match[0])
    return values


def _ends_of(text, name):
    """The offsets in the string table `text` where `name` is read: every place it ends a
    string (the linker stores a name that ends another only once, as that one's tail)."""
    found, at = [], text.find(name + b"\0")
    while at >= 0:
        found.append(at)
        at = text.find(name + b"\0", at + 1)
    return found
