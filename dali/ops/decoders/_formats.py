"""Image headers: format, size, channels and EXIF orientation, read without decoding.

The formats are DALI's: JPEG, PNG, BMP, TIFF, WebP, PNM (PBM/PGM/PPM/PAM) and JPEG 2000 (JP2
files and raw codestreams).  Anything else is not an image for the decoders, as in DALI (OpenCV
would also read GIF, EXR, HDR, ... which DALI rejects).

`channels` is the image's own channel count, what DALI's `peek_image_shape` reports for
`image_type=ANY_DATA`: palette images count as RGB (or gray when the palette is), PNG palette
transparency is not a channel.  Sizes are those of the stored image; `orientation` is the EXIF
orientation (1..8) that the decoders apply by default (`oriented_size` swaps the sides for 5..8).

Headers are untrusted: every reader stops at the end of the data, and a header declaring an
absurd image (a side of 0, negative or above `MAX_SIDE`, no channels or more than
`MAX_CHANNELS`, a box or number that cannot be) is a HeaderError naming the format, so such
sizes never reach an allocation.  Sizes that are merely large are the decoders' pixel limit's
business (`_decode.max_pixels`).  A header may also declare an image its data cannot hold:
for PNG (deflate expands at most 1032 times), BMP and binary PNM (stored, or RLE at most 255
pixels per 2 bytes) a file shorter than the least its declared image needs is a HeaderError
too, so a 200-byte file cannot make OpenCV allocate hundreds of megabytes before failing.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

FORMATS = ("jpeg", "png", "bmp", "tiff", "webp", "pnm", "jp2")
MAX_SIDE = 2**31 - 1          # PNG's limit; OpenCV and DALI keep sides in an int
MAX_CHANNELS = 512            # OpenCV's CV_CN_MAX: no decoder can return more


class HeaderError(ValueError):
    """The data is not an image of a supported format, or its header is broken."""


@dataclass(frozen=True)
class Header:
    format: str
    height: int
    width: int
    channels: int
    orientation: int = 1
    min_bytes: int = field(default=0, compare=False, repr=False)   # the least data it needs

    def oriented_size(self):
        """(height, width) after the EXIF orientation is applied."""
        if self.orientation >= 5:
            return self.width, self.height
        return self.height, self.width


def sniff(data) -> str | None:
    """The format of encoded data, from its first bytes; None when it is none of FORMATS."""
    head = bytes(data[:16])
    if head[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if head[:2] == b"BM" and len(head) >= 14:
        return "bmp"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if len(head) >= 2 and head[0:1] == b"P" and head[1:2] in b"1234567":
        return "pnm"
    if head[:12] == b"\x00\x00\x00\x0cjP  \r\n\x87\n" or head[:4] == b"\xff\x4f\xff\x51":
        return "jp2"
    return None


def read_header(data) -> Header:
    """The header of encoded data (a bytes-like object or 1-D uint8 array)."""
    buf = bytes(data) if not isinstance(data, bytes) else data
    fmt = sniff(buf)
    if fmt is None:
        what = "empty data" if not buf else "unknown or unsupported image format"
        raise HeaderError(f"{what} (supported: JPEG, PNG, BMP, TIFF, WebP, PNM, JPEG 2000)")
    try:
        header = _READERS[fmt](buf)
    except (struct.error, IndexError, KeyError, ValueError) as e:
        if isinstance(e, HeaderError):
            raise
        raise HeaderError(f"truncated or broken {fmt.upper()} header") from e
    if not (0 < header.height <= MAX_SIDE and 0 < header.width <= MAX_SIDE):
        raise HeaderError(f"broken {fmt.upper()} header: it declares an image of "
                          f"{header.width} x {header.height} pixels")
    if not 0 < header.channels <= MAX_CHANNELS:
        raise HeaderError(f"broken {fmt.upper()} header: it declares {header.channels} "
                          "channels")
    if len(buf) < header.min_bytes:
        raise HeaderError(f"{fmt.upper()} data of {len(buf)} bytes is too short for the "
                          f"{header.width} x {header.height} image its header declares (it "
                          f"needs at least {header.min_bytes} bytes)")
    return header


def _u16(buf, off, big=True):
    return struct.unpack_from(">H" if big else "<H", buf, off)[0]


def _u32(buf, off, big=True):
    return struct.unpack_from(">I" if big else "<I", buf, off)[0]


def exif_orientation(tiff: bytes) -> int:
    """The Orientation tag of IFD0 in TIFF-structured EXIF data; 1 when absent or malformed."""
    try:
        if tiff[:2] == b"MM":
            big = True
        elif tiff[:2] == b"II":
            big = False
        else:
            return 1
        ifd = _u32(tiff, 4, big)
        for k in range(_u16(tiff, ifd, big)):
            entry = ifd + 2 + 12 * k
            if _u16(tiff, entry, big) == 0x0112:
                value = _u16(tiff, entry + 8, big)
                return value if 1 <= value <= 8 else 1
    except struct.error:
        pass
    return 1


# ---------------------------------------------------------------------------------------------
# Per-format readers
# ---------------------------------------------------------------------------------------------

_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg(buf):
    pos, orientation = 2, 1
    while True:
        if buf[pos] != 0xFF:
            raise HeaderError("broken JPEG header (expected a marker)")
        while buf[pos] == 0xFF:
            pos += 1
        marker = buf[pos]
        pos += 1
        if marker in (0x01, 0xD8) or 0xD0 <= marker <= 0xD7:
            continue
        if marker in (0xD9, 0xDA):
            raise HeaderError("broken JPEG header (no frame header)")
        length = _u16(buf, pos)
        if marker == 0xE1 and buf[pos + 2:pos + 8] == b"Exif\x00\x00":
            orientation = exif_orientation(buf[pos + 8:pos + length])
        elif marker in _SOF:
            height, width, comps = _u16(buf, pos + 3), _u16(buf, pos + 5), buf[pos + 7]
            return Header("jpeg", height, width, comps, orientation)
        pos += length


_PNG_CHANNELS = {0: 1, 2: 3, 3: 3, 4: 2, 6: 4}


def _png(buf):
    if buf[12:16] != b"IHDR":
        raise HeaderError("broken PNG header (no IHDR chunk)")
    width, height = _u32(buf, 16), _u32(buf, 20)
    bit_depth, color_type = buf[24], buf[25]
    if color_type not in _PNG_CHANNELS:
        raise HeaderError(f"broken PNG header (color type {color_type})")
    orientation, pos = 1, 8
    while True:                        # walk the chunks, as DALI's parser does
        length, kind = _u32(buf, pos), buf[pos + 4:pos + 8]
        if pos + 12 + length > len(buf):
            raise HeaderError("truncated PNG data (a chunk runs past the end)")
        if kind == b"eXIf":
            orientation = exif_orientation(buf[pos + 8:pos + 8 + length])
        if kind == b"IEND":
            break
        pos += 12 + length
    samples = 1 if color_type == 3 else _PNG_CHANNELS[color_type]
    raw = height * (1 + (width * samples * bit_depth + 7) // 8)     # filter byte + pixels
    return Header("png", height, width, _PNG_CHANNELS[color_type], orientation,
                  raw // 1032)


def _bmp(buf):
    header_size = _u32(buf, 14, False)
    if header_size == 12:              # OS/2 BITMAPCOREHEADER
        width, height = _u16(buf, 18, False), _u16(buf, 20, False)
        bpp = _u16(buf, 24, False)
        entry = 3
    else:
        width, height = struct.unpack_from("<ii", buf, 18)
        bpp = _u16(buf, 28, False)
        entry = 4
    height = abs(height)               # negative: stored top-down
    compression = _u32(buf, 30, False) if header_size >= 40 else 0
    if compression in (1, 2):          # RLE8, RLE4: 2 bytes give at most 255 pixels
        min_bytes = max(width, 0) * height // 128
    elif compression in (0, 3):        # stored rows, padded to 4 bytes
        min_bytes = height * ((max(width, 0) * bpp + 31) // 32 * 4)
    else:
        min_bytes = 0
    if bpp <= 8:
        colors = (_u32(buf, 46, False) if header_size >= 40 else 0) or (1 << bpp)
        start = 14 + header_size
        palette = buf[start:start + entry * colors]
        gray = all(palette[k] == palette[k + 1] == palette[k + 2]
                   for k in range(0, len(palette) - 2, entry))
        channels = 1 if gray else 3
    else:
        channels = 4 if bpp == 32 else 3
    return Header("bmp", height, width, channels, 1, min_bytes)


def _tiff(buf):
    big = buf[:2] == b"MM"
    ifd = _u32(buf, 4, big)
    tags = {}
    for k in range(_u16(buf, ifd, big)):
        entry = ifd + 2 + 12 * k
        tag, kind = _u16(buf, entry, big), _u16(buf, entry + 2, big)
        if tag in (256, 257, 274, 277):
            tags[tag] = _u16(buf, entry + 8, big) if kind == 3 else _u32(buf, entry + 8, big)
    if 256 not in tags or 257 not in tags:
        raise HeaderError("broken TIFF header (no image size)")
    orientation = tags.get(274, 1)
    return Header("tiff", tags[257], tags[256], tags.get(277, 1),
                  orientation if 1 <= orientation <= 8 else 1)


def _webp(buf):
    kind = buf[12:16]
    if kind == b"VP8 ":
        if buf[23:26] != b"\x9d\x01\x2a":
            raise HeaderError("broken WebP header (bad VP8 frame tag)")
        width, height = _u16(buf, 26, False) & 0x3FFF, _u16(buf, 28, False) & 0x3FFF
        return Header("webp", height, width, 3)
    if kind == b"VP8L":
        if buf[20] != 0x2F:
            raise HeaderError("broken WebP header (bad VP8L signature)")
        bits = _u32(buf, 21, False)
        width, height = (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        return Header("webp", height, width, 4 if bits >> 28 & 1 else 3)
    if kind == b"VP8X":
        flags = buf[20]
        width = (buf[24] | buf[25] << 8 | buf[26] << 16) + 1
        height = (buf[27] | buf[28] << 8 | buf[29] << 16) + 1
        orientation, pos = 1, 30
        while flags & 0x08 and pos + 8 <= len(buf):      # find the EXIF chunk
            size = _u32(buf, pos + 4, False)
            if buf[pos:pos + 4] == b"EXIF":
                exif = buf[pos + 8:pos + 8 + size]
                orientation = exif_orientation(exif[6:] if exif[:6] == b"Exif\x00\x00"
                                               else exif)
                break
            pos += 8 + size + (size & 1)
        return Header("webp", height, width, 4 if flags & 0x10 else 3, orientation)
    raise HeaderError("broken WebP header (unknown chunk)")


def _pnm(buf):
    kind = buf[1:2]
    if kind == b"7":
        fields, pos = {}, 2
        while b"ENDHDR" not in fields:
            end = buf.index(b"\n", pos)
            words = buf[pos:end].split()
            if words and not words[0].startswith(b"#"):
                if len(words) > 1 and len(words[1]) > 10:
                    raise HeaderError(f"broken PNM header ({words[0].decode(errors='replace')} "
                                      "is not a size)")
                fields[words[0]] = words[1:]
            pos = end + 1
        width, height = int(fields[b"WIDTH"][0]), int(fields[b"HEIGHT"][0])
        depth = int(fields[b"DEPTH"][0])
        wide = 2 if int(fields.get(b"MAXVAL", [b"255"])[0]) > 255 else 1
        return Header("pnm", height, width, depth, 1, max(width, 0) * height * depth * wide)
    values, pos = [], 2
    while len(values) < 2:
        while buf[pos:pos + 1].isspace():
            pos += 1
        if buf[pos:pos + 1] == b"#":
            pos = buf.index(b"\n", pos)
            continue
        start = pos
        while pos < len(buf) and buf[pos:pos + 1].isdigit():
            pos += 1
        if pos == start or pos - start > 10:           # no number, or one above 2**32
            raise HeaderError("broken PNM header")
        values.append(int(buf[start:pos]))
    width, height = values
    channels = 3 if kind in b"36" else 1
    if kind == b"4":                   # packed bits
        needed = height * ((width + 7) // 8)
    else:                              # a byte (binary) or a digit (ASCII) a sample at least
        needed = width * height * channels
    return Header("pnm", height, width, channels, 1, needed)


def _jp2(buf):
    if buf[:4] == b"\xff\x4f\xff\x51":                     # raw codestream: the SIZ segment
        xsiz, ysiz, xo, yo = struct.unpack_from(">IIII", buf, 8)
        return Header("jp2", ysiz - yo, xsiz - xo, _u16(buf, 40))
    pos = 0
    while pos + 8 <= len(buf):
        size, kind = _u32(buf, pos), buf[pos + 4:pos + 8]
        if kind == b"jp2h":
            pos += 8                                        # the ihdr box comes first inside
            continue
        if kind == b"ihdr":
            height, width = _u32(buf, pos + 8), _u32(buf, pos + 12)
            return Header("jp2", height, width, _u16(buf, pos + 16))
        if size == 0:
            break
        if size == 1:
            size = struct.unpack_from(">Q", buf, pos + 8)[0]
            if size < 16:
                raise HeaderError("broken JPEG 2000 header (a box shorter than its header)")
        elif size < 8:
            raise HeaderError("broken JPEG 2000 header (a box shorter than its header)")
        pos += size
    raise HeaderError("broken JPEG 2000 header (no image header box)")


_READERS = {"jpeg": _jpeg, "png": _png, "bmp": _bmp, "tiff": _tiff, "webp": _webp,
            "pnm": _pnm, "jp2": _jp2}
