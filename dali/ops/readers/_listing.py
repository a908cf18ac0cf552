"""The files of the readers that list them as DALI's `FileLoader` does (readers.numpy,
experimental.readers.fits): exactly one way of `file_root` alone (the files matching
`file_filter` directly in it and in its immediate subdirectories, sorted by their path relative
to it, "./name" for those directly in it, which is also their source info), `file_list` (one
path per line, relative to `file_root` if given, else to the list's directory) or `files`
(relative to `file_root` when it is given)."""

from __future__ import annotations

import fnmatch
import os

from dali.ops.readers import _common


def list_files(a):
    """[(path as bytes, name)] of the reader arguments `a` (file_root, file_list, files,
    file_filter); RuntimeError when there are none."""
    root = a["file_root"]
    if a["files"] is not None:
        entries = [(os.fsencode(os.path.join(root, f) if root else f), f) for f in a["files"]]
    elif a["file_list"] is not None:
        lines, base = _common.read_file_list(a["file_list"], root)
        names = [line.strip() for line in lines]
        entries = [(os.fsencode(os.path.join(base, n)), n) for n in names if n]
    else:
        entries = _scan(root, a["file_filter"])
    if not entries:
        raise RuntimeError("No files found." + (
            f" (in {root!r} and its subdirectories matching {a['file_filter']!r})"
            if a["files"] is None and a["file_list"] is None else ""))
    return entries


def _scan(root, pattern):
    try:
        with os.scandir(root) as it:
            top = list(it)
    except OSError as e:
        raise RuntimeError(f"Failed to open {root}: {e.strerror}") from None
    names = [f"./{e.name}" for e in top
             if not e.is_dir() and fnmatch.fnmatchcase(e.name, pattern)]
    for d in (e.name for e in top if e.is_dir()):
        with os.scandir(os.path.join(root, d)) as it:
            names += [f"{d}/{e.name}" for e in it
                      if not e.is_dir() and fnmatch.fnmatchcase(e.name, pattern)]
    return [(os.fsencode(os.path.join(root, n[2:] if n.startswith("./") else n)), n)
            for n in sorted(names)]
