"""Mutations of encoded images; `mutants(seeds, n, seed)` is deterministic for a given seed.

Each mutant applies one to three mutations: bit flips, truncation, byte overwrites with
boundary values, a duplicated chunk (a real PNG chunk, or any slice of the data), and header
edits that set a declared size (width, height, a box or chunk length) to zero, a huge value or
a negative one, found in each format's own header layout.
"""

from __future__ import annotations

import random
import re
import struct

# Sizes a header edit writes, as unsigned 32-bit patterns (negative ones as two's complement).
SIZES = [0, 1, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 46341, 30000]


def mutants(seed_images, n, seed=0):
    """`n` mutants: a list of (seed name, format, mutation labels, data)."""
    rng = random.Random(seed)
    names = sorted(seed_images)
    out = []
    for k in range(n):
        name = names[k % len(names)]
        fmt, data = seed_images[name]
        labels = []
        for _ in range(rng.choice((1, 1, 2, 3))):
            kind = rng.choice(MUTATIONS)
            data, label = kind(rng, fmt, data)
            labels.append(label)
        out.append((name, fmt, labels, data))
    return out


def bit_flips(rng, fmt, data):
    buf = bytearray(data)
    count = rng.randint(1, 8)
    for _ in range(count):
        if buf:
            k = rng.randrange(len(buf))
            buf[k] ^= 1 << rng.randrange(8)
    return bytes(buf), f"flip{count}"


def truncate(rng, fmt, data):
    cut = rng.randrange(len(data)) if data else 0
    return data[:cut], f"cut{cut}"


def overwrite(rng, fmt, data):
    buf = bytearray(data)
    if not buf:
        return data, "overwrite-empty"
    k = rng.randrange(len(buf))
    buf[k] = rng.choice((0x00, 0xFF, 0x7F, 0x80))
    return bytes(buf), f"byte{k}"


def duplicate(rng, fmt, data):
    chunks = _png_chunks(data) if fmt == "png" else []
    if chunks and rng.random() < 0.7:
        start, end = rng.choice(chunks)
    else:
        start = rng.randrange(len(data)) if data else 0
        end = min(len(data), start + rng.randint(1, 64))
    at = rng.randrange(len(data) + 1)
    return data[:at] + data[start:end] + data[at:], f"dup{start}:{end}@{at}"


def header_size(rng, fmt, data):
    if fmt == "pnm":
        return _pnm_size(rng, data)
    fields = _size_fields(fmt, data)
    if not fields:
        return bit_flips(rng, fmt, data)
    offset, size, big = rng.choice(fields)
    value = rng.choice(SIZES) & ((1 << (8 * size)) - 1)
    packed = value.to_bytes(size, "big" if big else "little")
    return data[:offset] + packed + data[offset + size:], f"size@{offset}={value:#x}"


MUTATIONS = [bit_flips, truncate, overwrite, duplicate, header_size, header_size]


def _png_chunks(data):
    """(start, end) of every PNG chunk (length, type, data, CRC)."""
    out, pos = [], 8
    while pos + 12 <= len(data):
        length = struct.unpack_from(">I", data, pos)[0]
        end = pos + 12 + length
        if end > len(data):
            break
        out.append((pos, end))
        pos = end
    return out


def _size_fields(fmt, data):
    """(offset, bytes, big-endian) of the size fields of a header: image sides, chunk and box
    lengths."""
    if fmt == "png":
        return [(16, 4, True), (20, 4, True)] + [(s, 4, True) for s, _ in _png_chunks(data)]
    if fmt == "bmp":
        return [(2, 4, False), (10, 4, False), (14, 4, False), (18, 4, False), (22, 4, False),
                (28, 2, False), (46, 4, False)]
    if fmt == "jpeg":
        fields = []
        for m in re.finditer(rb"\xff[\xc0-\xcf\xda\xdb\xc4\xe0-\xef]", data):
            fields.append((m.end(), 2, True))                       # segment length
            if data[m.end() - 1] in (0xC0, 0xC1, 0xC2):
                fields += [(m.end() + 3, 2, True), (m.end() + 5, 2, True)]
        return fields
    if fmt == "tiff":
        return _tiff_fields(data)
    if fmt == "webp":
        return [(4, 4, False), (16, 4, False), (26, 2, False), (28, 2, False), (21, 4, False),
                (24, 3, False), (27, 3, False)]
    return []


def _tiff_fields(data):
    big = data[:2] == b"MM"
    try:
        ifd = struct.unpack_from(">I" if big else "<I", data, 4)[0]
        count = struct.unpack_from(">H" if big else "<H", data, ifd)[0]
    except struct.error:
        return []
    fields = [(4, 4, big)]
    for k in range(min(count, 64)):
        entry = ifd + 2 + 12 * k
        if entry + 12 > len(data):
            break
        fields += [(entry + 4, 4, big), (entry + 8, 4, big)]       # count, value/offset
    return fields


def _pnm_size(rng, data):
    """A PNM/PAM header with one of its numbers replaced by an absurd one."""
    numbers = list(re.finditer(rb"\d+", data[:64]))
    if not numbers:
        return data, "pnm-none"
    m = rng.choice(numbers)
    value = rng.choice((b"0", b"-5", b"4294967295", b"99999999999", b"65536", b"1" * 30))
    return data[:m.start()] + value + data[m.end():], f"pnm{m.start()}={value[:12].decode()}"
