"""FITS headers (FITS standard 4.0): where each HDU of a file lies, and what its image is.

A FITS file is a sequence of HDUs (header and data units), each a header of 2880-byte blocks
of 80-character ASCII cards ("KEYWORD = value / comment", ended by an `END` card) followed by
its data, padded to a multiple of 2880 bytes.  The first HDU (the primary) starts with
`SIMPLE = T`, the others (extensions) with `XTENSION = '<type>'`.  The data of an image is
big-endian, of the type `BITPIX` gives (8: uint8, 16/32/64: signed integers, -32/-64: IEEE
floats), its shape `NAXIS1` (the fastest axis) .. `NAXISn`; an extension's data takes
|BITPIX|/8 * GCOUNT * (PCOUNT + NAXIS1 * .. * NAXISn) bytes.

Physical values are BZERO + BSCALE * stored value.  The output type is the one CFITSIO's
`fits_get_img_equivtype` gives (DALI reads through it): without scaling (BSCALE 1, BZERO 0) the
stored type; for a float image the float type; for an integer image with BSCALE 1 and an
integral BZERO the smallest integer type of the shifted range among int8 (BITPIX 8, BZERO
-128), int16, uint16 (BITPIX 16, BZERO 32768), int32, uint32, int64, uint64, else float32 (BITPIX
8 and 16) or float64 (32 and 64).  `BLANK` is not applied (DALI reads with null checking off).

Tile-compressed images (a binary table with `ZIMAGE = T`: one row per tile of ZTILE1 x ..
pixels of the ZNAXIS1 x .. image, whose COMPRESSED_DATA column points into the heap after the
table) are read when Rice-compressed integer images (`ZCMPTYPE = 'RICE_1'`, ZBITPIX 8, 16 or
32, BYTEPIX its size); others (quantized floats, GZIP, PLIO, HCOMPRESS) are reported as not
supported, naming their compression.  BZERO and BSCALE apply to the decompressed values.
"""

from __future__ import annotations

import collections
import math
import re

import numpy as np

BLOCK = 2880
CARD = 80
_RAW = {8: np.dtype(np.uint8), 16: np.dtype(">i2"), 32: np.dtype(">i4"), 64: np.dtype(">i8"),
        -32: np.dtype(">f4"), -64: np.dtype(">f8")}
_NATIVE = {8: np.uint8, 16: np.int16, 32: np.int32, 64: np.int64, -32: np.float32,
           -64: np.float64}
_INT_RANGES = [(np.int8, -128, 127), (np.int16, -32768, 32767), (np.uint16, 0, 65535),
               (np.int32, -2**31, 2**31 - 1), (np.uint32, 0, 2**32 - 1),
               (np.int64, -2**63, 2**63 - 1), (np.uint64, 0, 2**64 - 1)]
_RAW_RANGES = {8: (0, 255), 16: (-2**15, 2**15 - 1), 32: (-2**31, 2**31 - 1),
               64: (-2**63, 2**63 - 1)}
_MAX_AXES = 999
_END_CARD = b"END" + b" " * 77


class FitsError(ValueError):
    """A file that is not valid FITS (the message says why)."""


class Unsupported(NotImplementedError):
    """An HDU this reader cannot decode (tile-compressed images)."""


Hdu = collections.namedtuple(
    "Hdu", "kind bitpix shape data_offset data_size bscale bzero end tiles", defaults=(None,))
Hdu.__doc__ = """One HDU: its kind ("PRIMARY" or the XTENSION value), BITPIX, its image shape
(slowest axis first, as the output has it), where its data starts and how many bytes it has
(without padding), the scaling, where the next HDU starts, and for a tile-compressed image its
`Tiles` (BITPIX and shape are then the image's), or the reason it cannot be read (a str)."""

Tiles = collections.namedtuple(
    "Tiles", "ztile blocksize bytepix row_width column wide heap rows")
Tiles.__doc__ = """A Rice-compressed image's table: the tile extents (fastest axis first), the
Rice block size and bytes per pixel, the table's row width, the COMPRESSED_DATA column's
offset in a row, whether its descriptors are 64-bit (Q) rather than 32-bit (P), where the heap
starts in the data and the number of rows (tiles)."""


def header_end(buf):
    """The length of the header at the start of `buf` (whole blocks up to its END card), or
    None when `buf` does not hold all of it."""
    at = buf.find(_END_CARD)
    while at >= 0 and at % CARD:
        at = buf.find(_END_CARD, at + 1)
    if at < 0:
        return None
    end = (at // BLOCK + 1) * BLOCK
    return end if end <= len(buf) else None


def _value(card, keyword):
    """The value of a card: str, bool, int or float (None without one)."""
    if card[8:10] != "= ":
        return None
    text = card[10:].strip()
    if text.startswith("'"):
        out, i = [], 1
        while i < len(text):
            if text[i] == "'":
                if text[i + 1:i + 2] == "'":
                    out.append("'")
                    i += 2
                    continue
                return "".join(out).rstrip()
            out.append(text[i])
            i += 1
        raise FitsError(f"Unterminated string in the value of {keyword}")
    text = text.split("/", 1)[0].strip()
    if text in ("T", "F"):
        return text == "T"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text.replace("D", "E").replace("d", "e"))
    except ValueError:
        raise FitsError(f"Bad value of {keyword}: {text!r}") from None


def parse(header, offset, first):
    """The Hdu of the header bytes `header` (whole blocks, with its END card), which starts at
    byte `offset` of the file; `first`: it is the primary HDU."""
    try:
        text = header.decode("ascii")
    except UnicodeDecodeError:
        raise FitsError("The header has non-ASCII bytes") from None
    cards = {}
    for at in range(0, len(text), CARD):
        card = text[at:at + CARD]
        keyword = card[:8].rstrip()
        if keyword == "END":
            break
        if keyword and keyword not in cards and card[8:10] == "= ":
            cards[keyword] = card
    get = lambda k, default=None: (_value(cards[k], k) if k in cards else default)  # noqa: E731
    if first:
        if text[:8] != "SIMPLE  " or get("SIMPLE") is not True:
            raise FitsError("Not a FITS file: it does not start with SIMPLE = T")
        kind = "PRIMARY"
    else:
        kind = get("XTENSION")
        if text[:8] != "XTENSION" or not isinstance(kind, str):
            raise FitsError(f"No XTENSION card at the start of the HDU at byte {offset}")
    bitpix, naxis = get("BITPIX"), get("NAXIS")
    if bitpix not in _RAW:
        raise FitsError(f"Bad BITPIX: {bitpix!r}")
    if not isinstance(naxis, int) or not 0 <= naxis <= _MAX_AXES:
        raise FitsError(f"Bad NAXIS: {naxis!r}")
    axes = [get(f"NAXIS{k}") for k in range(1, naxis + 1)]
    for k, n in enumerate(axes, 1):
        if not isinstance(n, int) or n < 0:
            raise FitsError(f"Bad NAXIS{k}: {n!r}")
    pcount, gcount = (0, 1) if first else (get("PCOUNT", 0), get("GCOUNT", 1))
    if not isinstance(pcount, int) or not isinstance(gcount, int) or pcount < 0 or gcount < 0:
        raise FitsError(f"Bad PCOUNT or GCOUNT: {pcount!r}, {gcount!r}")
    elements = math.prod(axes) if naxis else 0
    data_size = abs(bitpix) // 8 * gcount * (pcount + elements) if (naxis or pcount) else 0
    if first and naxis and axes[0] == 0 and get("GROUPS") is True:
        kind = "GROUPS"
        data_size = abs(bitpix) // 8 * get("GCOUNT", 1) * (
            get("PCOUNT", 0) + math.prod(axes[1:]))
    tiles = None
    if kind == "BINTABLE" and get("ZIMAGE") is True:
        bitpix, axes, tiles = _compressed(get, axes)
    bscale, bzero = get("BSCALE", 1.0), get("BZERO", 0.0)
    if not isinstance(bscale, (int, float)) or not isinstance(bzero, (int, float)) or \
            isinstance(bscale, bool) or isinstance(bzero, bool):
        raise FitsError(f"Bad BSCALE or BZERO: {bscale!r}, {bzero!r}")
    data_offset = offset + len(header)
    end = data_offset + -(-data_size // BLOCK) * BLOCK
    return Hdu(kind, bitpix, tuple(axes[::-1]), data_offset, data_size, bscale, bzero, end,
               tiles)


_TFORM = re.compile(r"^\s*(\d*)([A-Z])(?:([A-Z])\(?\d*\)?)?")
_WIDTH = {"L": 1, "X": 1, "B": 1, "I": 2, "J": 4, "K": 8, "A": 1, "E": 4, "D": 8, "C": 8,
          "M": 16, "P": 8, "Q": 16}


def _compressed(get, table_axes):
    """(BITPIX, axes, Tiles or the reason it cannot be read) of a tile-compressed image."""
    method = get("ZCMPTYPE")
    zbitpix, zndim = get("ZBITPIX"), get("ZNAXIS")
    if zbitpix not in _RAW:
        raise FitsError(f"Bad ZBITPIX: {zbitpix!r}")
    if not isinstance(zndim, int) or not 0 <= zndim <= _MAX_AXES:
        raise FitsError(f"Bad ZNAXIS: {zndim!r}")
    axes = [get(f"ZNAXIS{k}") for k in range(1, zndim + 1)]
    for k, n in enumerate(axes, 1):
        if not isinstance(n, int) or n < 0:
            raise FitsError(f"Bad ZNAXIS{k}: {n!r}")
    params = {}
    for k in range(1, 100):
        name = get(f"ZNAME{k}")
        if name is None:
            break
        params[str(name).upper()] = get(f"ZVAL{k}")
    columns, offset, found = {}, 0, None
    for k in range(1, (get("TFIELDS", 0) or 0) + 1):
        form, name = get(f"TFORM{k}"), str(get(f"TTYPE{k}", "")).upper()
        m = _TFORM.match(form) if isinstance(form, str) else None
        if m is None:
            raise FitsError(f"Bad TFORM{k}: {form!r}")
        columns[name] = (offset, m.group(2), m.group(3))
        offset += (int(m.group(1)) if m.group(1) else 1) * _WIDTH.get(m.group(2), 0)
    what = f"Tile-compressed images (ZCMPTYPE = {method!r}"
    if method != "RICE_1" or zbitpix < 0 or "ZSCALE" in columns or "ZZERO" in columns:
        reason = f"{what}, ZBITPIX = {zbitpix}) are not supported"
        return zbitpix, axes, reason
    found = columns.get("COMPRESSED_DATA")
    if found is None or found[1] not in ("P", "Q") or found[2] != "B":
        raise FitsError("No COMPRESSED_DATA column of byte arrays in a compressed image")
    bytepix = params.get("BYTEPIX", 4)
    if bytepix != abs(zbitpix) // 8:
        return zbitpix, axes, f"{what}, ZBITPIX = {zbitpix}, BYTEPIX = {bytepix}) are not supported"
    blocksize = params.get("BLOCKSIZE", 32)
    ztile = [get(f"ZTILE{k}", axes[0] if k == 1 else 1) for k in range(1, zndim + 1)]
    for k, t in enumerate(ztile, 1):
        if not isinstance(t, int) or t < 1:
            raise FitsError(f"Bad ZTILE{k}: {t!r}")
    if not isinstance(blocksize, int) or blocksize < 1:
        raise FitsError(f"Bad BLOCKSIZE: {blocksize!r}")
    width, rows = table_axes if len(table_axes) == 2 else (0, 0)
    tiles_needed = math.prod(-(-n // t) for n, t in zip(axes, ztile, strict=True)) if axes else 0
    if rows != tiles_needed:
        raise FitsError(f"The compressed image has {rows} tiles, its shape needs {tiles_needed}")
    heap = get("THEAP", width * rows)
    return zbitpix, axes, Tiles(tuple(ztile), blocksize, bytepix, width, found[0],
                                found[1] == "Q", heap, rows)


def check_image(hdu):
    """FitsError unless `hdu` is an image DALI reads (an image HDU with NAXIS > 0);
    Unsupported for a compressed image this reader cannot decompress."""
    if isinstance(hdu.tiles, str):
        raise Unsupported(hdu.tiles)
    if hdu.kind not in ("PRIMARY", "IMAGE") and hdu.tiles is None:
        raise FitsError("Only IMAGE_HDUs are supported!")
    if not hdu.shape:
        raise FitsError("NAXIS (image dimensions) value for each HDU has to be greater than 0!")


def raw_dtype(bitpix):
    """The (big-endian) type the data of an image of `bitpix` is stored in."""
    return _RAW[bitpix]


def output_dtype(bitpix, bscale, bzero):
    """(dtype, integral) of the values of an image: its type as CFITSIO's
    `fits_get_img_equivtype` gives it (see the module docstring), and whether they are
    computed exactly as stored + BZERO (integer outputs) rather than in double precision."""
    if bscale == 1 and bzero == 0:
        return np.dtype(_NATIVE[bitpix]), bitpix > 0
    if bitpix < 0:
        return np.dtype(_NATIVE[bitpix]), False
    if bscale != 1 or bzero != math.floor(bzero):
        return np.dtype(np.float32 if bitpix <= 16 else np.float64), False
    lo, hi = (int(bzero) + v for v in _RAW_RANGES[bitpix])
    for dtype, low, high in _INT_RANGES:
        if low <= lo and hi <= high:
            return np.dtype(dtype), True
    return np.dtype(np.float64), False
