"""A small LZ4 block encoder for the tests of fn.decoders.inflate (no lz4 package needed): greedy
matches of at least 4 bytes found through a table of 4-byte prefixes, long literal and match
lengths (extension bytes), overlapping matches (runs), and the format's end rules (the last 5
bytes are literals, no match starts in the last 12)."""

from __future__ import annotations


def _length(n):
    out = bytearray()
    while n >= 255:
        out.append(255)
        n -= 255
    out.append(n)
    return out


def _sequence(out, literals, match_len=None, offset=None):
    lit = len(literals)
    token = (min(lit, 15) << 4) | (0 if match_len is None else min(match_len - 4, 15))
    out.append(token)
    if lit >= 15:
        out += _length(lit - 15)
    out += literals
    if match_len is not None:
        out += offset.to_bytes(2, "little")
        if match_len - 4 >= 15:
            out += _length(match_len - 4 - 15)


def compress(data: bytes) -> bytes:
    """The LZ4 block of `data`."""
    data = bytes(data)
    n = len(data)
    out = bytearray()
    table = {}
    anchor = i = 0
    limit = n - 12                    # no match starts after this
    while i < limit:
        key = data[i:i + 4]
        cand = table.get(key)
        table[key] = i
        if cand is None or i - cand > 65535:
            i += 1
            continue
        length = 4
        while i + length < n - 5 and data[cand + length] == data[i + length]:
            length += 1
        _sequence(out, data[anchor:i], length, i - cand)
        i += length
        anchor = i
    _sequence(out, data[anchor:])
    return bytes(out)
