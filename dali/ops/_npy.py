""".npy headers: the prefix (magic, version, header length) and the header dict, parsed and
validated in Python without `numpy.lib.format` (which evaluates the text with `ast` for every
file and accepts types the readers do not).

A header is `\\x93NUMPY`, the version (major, minor), the length of the text (2 bytes in version
1, 4 in versions 2 and 3, little-endian) and the text: a Python dict literal with exactly the
keys 'descr' (a type string such as '<f4'), 'fortran_order' (bool) and 'shape' (a tuple of
non-negative ints).  numpy's own writer produces one canonical form, matched by a regular
expression; other spellings go through `ast.literal_eval` and the same checks.  Parsed headers
are remembered by their text (data sets of many arrays of one shape share it).
"""

from __future__ import annotations

import ast
import re
import struct

import numpy as np

MAGIC = b"\x93NUMPY"
PREFIX = 12                  # bytes that always hold the prefix (version 1 needs 10)
HEAD = 4096                  # bytes read first: the header (numpy pads it to 64 or 128 bytes)
#                              and the whole array of a small file, in the same read

# typestr (without byte order) -> numpy dtype, the types the readers return
_TYPES = {f"{k}{n}": np.dtype(f"{k}{n}") for k, sizes in
          (("i", (1, 2, 4, 8)), ("u", (1, 2, 4, 8)), ("f", (2, 4, 8))) for n in sizes}
_TYPES["b1"] = np.dtype(bool)
_CANONICAL = re.compile(
    r"\{'descr': '([<>|=]?)([a-zA-Z]\w*)', 'fortran_order': (True|False), "
    r"'shape': \(((?:\d+, )*\d+,?|)\), \} *\n?")
_CACHE_LIMIT = 4096
_parsed = {}


class HeaderError(ValueError):
    """A file that is not a .npy file DALI can read; the message says why."""


def text_span(head):
    """(start, end) of the header text in a file that begins with the bytes `head` (at least
    `PREFIX` of them, or the whole file); raises HeaderError for a bad prefix."""
    if len(head) < 10 or head[:6] != MAGIC:
        raise HeaderError("File is not a numpy file.")
    major = head[6]
    if major == 1:
        return 10, 10 + struct.unpack_from("<H", head, 8)[0]
    if major in (2, 3):
        if len(head) < 12:
            raise HeaderError("File is not a numpy file.")
        return 12, 12 + struct.unpack_from("<I", head, 8)[0]
    raise HeaderError(f"Unsupported .npy format version {major}.{head[7]}.")


def parse(text):
    """(dtype, shape, fortran_order) of the header text (bytes); raises HeaderError."""
    found = _parsed.get(text)
    if found is None:
        found = _parse(text)
        if len(_parsed) >= _CACHE_LIMIT:
            _parsed.clear()
        _parsed[text] = found
    return found


def _parse(text):
    try:
        s = text.decode("utf-8")
    except UnicodeDecodeError:
        raise HeaderError("Header is corrupted.") from None
    m = _CANONICAL.fullmatch(s)
    if m is not None:
        order, typestr, fortran, dims = m.groups()
        shape = tuple(int(x) for x in dims.split(",") if x.strip())
        return _dtype(order, typestr), shape, fortran == "True"
    try:
        d = ast.literal_eval(s.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise HeaderError("Header is corrupted.") from None
    if not isinstance(d, dict) or set(d) != {"descr", "fortran_order", "shape"}:
        raise HeaderError("Header is corrupted: expected a dict of 'descr', 'fortran_order' "
                          "and 'shape'.")
    descr, fortran, shape = d["descr"], d["fortran_order"], d["shape"]
    if not isinstance(descr, str):
        raise HeaderError(f"Unsupported Numpy type: {descr!r} (structured arrays are not "
                          "supported).")
    if not isinstance(fortran, bool):
        raise HeaderError(f"Header is corrupted: fortran_order is {fortran!r}.")
    if not isinstance(shape, tuple) or not all(
            type(x) is int and x >= 0 for x in shape):
        raise HeaderError(f"Header is corrupted: shape is {shape!r}.")
    m = re.fullmatch(r"([<>|=]?)(.*)", descr, re.S)
    return _dtype(m.group(1), m.group(2)), shape, fortran


def _dtype(order, typestr):
    if typestr not in _TYPES:
        raise HeaderError(f"Unknown Numpy type string: {typestr}.")
    dtype = _TYPES[typestr]
    if order == ">" and dtype.itemsize > 1:
        raise HeaderError("Big Endian files are not supported.")
    return dtype
