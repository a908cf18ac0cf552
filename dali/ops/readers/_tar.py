"""Tar archives for readers.webdataset: the regular files of an archive, found by walking its
headers (what DALI's libtar scan and `wds2idx` see).

`members(path)` returns each regular file's name, the offset of its data and its size, in
archive order.  Ustar prefixes, GNU long names (`L` entries) and pax `path`/`size` records
(`x` entries) are applied to the entry that follows them; directories, links, devices and
global pax headers are passed over.  The archive ends at two zero blocks or at the end of the
file; a corrupted header (a wrong checksum, a size field or pax record that does not parse, a
negative size), a short header or a member running past the end of the file raises `TarError`
naming the file and the byte where it happened.  `members_to_cut(path)` lists an archive cut
short or corrupted instead (`on_error="skip"` of readers.webdataset): the members before the
cut, a regular file whose data is cut short last, with the size its header gives (reading it
fails), and, where the cut is in a header (or the data of a long name or pax header) or a
header is corrupted, and so hides the members after it, where and what it is.  Nothing after
a corrupted header is listed: a tar archive has no marks to find the next header by (as in
DALI, whose scan stops there with an error).
"""

from __future__ import annotations

import numpy as np

BLOCK = 512
_REGULAR = (b"0", b"\0", b"7")


class TarError(RuntimeError):
    """The file is not a tar archive, or is corrupted or truncated."""


def _number(field):
    """A header's numeric field: octal text, or GNU base-256 when the top bit is set."""
    if field[0] & 0x80:
        value = int.from_bytes(field[1:], "big")
        return value - (1 << (8 * len(field) - 8)) if field[0] & 0x40 else value
    text = field.split(b"\0", 1)[0].strip()
    return int(text, 8) if text else 0


def _checksum_ok(header):
    stored = header[148:156].split(b"\0", 1)[0].strip()
    try:
        expected = int(stored, 8)
    except ValueError:
        return False
    blanked = header[:148] + b" " * 8 + header[156:]
    unsigned = sum(blanked)
    signed = unsigned - 256 * sum(1 for b in blanked if b > 127)
    return expected in (unsigned, signed)


def _pax_records(data, path, at):
    """The key -> value records of a pax extended header."""
    out = {}
    pos = 0
    while pos < len(data) and data[pos] != 0:
        space = data.find(b" ", pos)
        try:
            length = int(data[pos:space])
        except ValueError:
            raise TarError(f"corrupted tar file {path}: bad pax header at byte {at}") from None
        record = data[space + 1:pos + length - 1]          # without the trailing newline
        key, _, value = record.partition(b"=")
        out[key.decode("utf-8", "replace")] = value
        pos += length
    return out


def members(path):
    """(names, offsets, sizes) of the regular files of the tar archive at `path`: a list of
    str and two int64 arrays (the offset of each file's data and its size in bytes)."""
    names, offsets, sizes, _ = _walk(path, False)
    return names, offsets, sizes


def members_to_cut(path):
    """`members(path)` of an archive that may be cut short or corrupted, and the cut that hides
    members: (its byte offset, the message of the `TarError` `members` raises), or None (see
    the module docstring)."""
    names, offsets, sizes, cut = _walk(path, True)
    return names, offsets, sizes, None if cut is None else (cut[0], str(cut[1]))


def _entry(header, pax, path, pos):
    """(type flag, size of the data) of the header block at byte `pos` (the size a pax `size`
    record `pax` gives, if any); raises `TarError` when the header is corrupted."""
    if not _checksum_ok(header):
        raise TarError(f"corrupted tar file {path}: bad header checksum at byte {pos}")
    kind = header[156:157]
    try:
        size = _number(header[124:136])
        if "size" in pax and kind not in (b"x", b"g", b"L", b"K"):
            size = int(pax["size"])
    except ValueError:
        raise TarError(f"corrupted tar file {path}: bad size field at byte {pos}") from None
    if size < 0:
        raise TarError(f"corrupted tar file {path}: a negative size at byte {pos}")
    return kind, size


def _walk(path, keep_cut):
    """(names, offsets, sizes, cut): `members_to_cut` with the cut as (offset, TarError),
    where the listing stopped at a truncation (also inside a regular file's data) or a
    corrupted header; raised unless `keep_cut`."""
    names, offsets, sizes = [], [], []
    cut = None
    try:
        f = open(path, "rb")            # noqa: SIM115 (closed below)
    except OSError as e:
        raise TarError(f"cannot open {path}: {e.strerror}") from None
    with f:
        end = f.seek(0, 2)
        pos = at = 0
        long_name = None
        pax = {}
        zeros = 0
        try:
            while pos < end:
                at = pos                        # the entry's header
                f.seek(pos)
                header = f.read(BLOCK)
                if len(header) < BLOCK:
                    cut = pos, TarError(f"truncated tar file {path}: a header at byte {pos} "
                                        "is cut short")
                    break
                if header.count(0) == BLOCK:
                    zeros += 1
                    if zeros == 2:
                        break
                    pos += BLOCK
                    continue
                zeros = 0
                kind, size = _entry(header, pax, path, pos)
                data_at = pos + BLOCK
                if data_at + size > end:
                    cut = pos, TarError(f"truncated tar file {path}: the entry at byte {pos} "
                                        f"needs {size} bytes, the file ends {end - data_at} "
                                        "bytes after its header")
                    if kind not in _REGULAR:
                        break
                pos = data_at + -(-size // BLOCK) * BLOCK
                if kind in (b"L", b"x"):
                    f.seek(data_at)
                    data = f.read(size)
                    if kind == b"L":
                        long_name = data.split(b"\0", 1)[0]
                    else:
                        pax = _pax_records(data, path, data_at)
                    continue
                if kind in (b"K", b"g"):
                    continue
                if "path" in pax:
                    raw = pax["path"]
                elif long_name is not None:
                    raw = long_name
                else:
                    raw = header[:100].split(b"\0", 1)[0]
                    prefix = header[345:500].split(b"\0", 1)[0]
                    if header[257:265] == b"ustar\x0000" and prefix:
                        raw = prefix + b"/" + raw
                long_name = None
                pax = {}
                if kind in _REGULAR:
                    names.append(raw.decode("utf-8", "surrogateescape"))
                    offsets.append(data_at)
                    sizes.append(size)
                    if cut is not None:             # listed: nothing follows it
                        break
        except TarError as e:                       # a corrupted header: nothing after it
            if not keep_cut:
                raise
            cut = at, e
    if cut is not None and not keep_cut:
        raise cut[1]
    if cut is not None and names and offsets[-1] == cut[0] + BLOCK:
        cut = None
    return names, np.array(offsets, np.int64), np.array(sizes, np.int64), cut


def split_name(name):
    """(basename, extension) of a member: the extension is what follows the first dot of the
    last path component (the whole name when it has no dot, as DALI does)."""
    dot = name.find(".", name.rfind("/") + 1)
    if dot < 0:
        return name, name
    return name[:dot], name[dot + 1:]
