"""The files of the readers that list them as DALI's `FileLoader` does (readers.numpy,
experimental.readers.fits): exactly one way of `file_root` alone (the files matching
`file_filter` directly in it and in its immediate subdirectories, sorted by their path relative
to it, "./name" for those directly in it, which is also their source info), `file_list` (one
path per line, relative to `file_root` if given, else to the list's directory) or `files`
(relative to `file_root` when it is given).

What else the two readers share: the arguments around their own (`file_args` before them,
`reader_args` after them) and `FilesReader`, their base class (the loader's options, the
listing, the GPU backend)."""

from __future__ import annotations

import fnmatch
import os

from dali._gpu import host
from dali._schema import Arg
from dali._types import DALIDataType as T
from dali.ops.readers import _common


def file_args(file_filter):
    """`file_root`, `file_list`, `files` and `file_filter` (its default: `file_filter`), the
    arguments `list_files` reads (checked by `_common.check_file_sources`)."""
    return [
        Arg("file_root", T.STRING, None,
            doc="Directory of the data: scanned unless `file_list` or `files` is given, "
                "else the base of their relative paths."),
        Arg("file_list", T.STRING, None,
            doc="A text file with one path a line (relative to `file_root` if given, "
                "else to the list's directory). Exclusive with `files`."),
        Arg("files", T._STRING_VEC, None,
            doc="Paths of the files to read (relative to `file_root` when it is given). "
                "Exclusive with `file_list`."),
        Arg("file_filter", T.STRING, file_filter,
            doc="Glob pattern (case-sensitive) of the file names listed when `file_root` "
                "is scanned."),
    ]


def reader_args(read_ahead_ignored, *own):
    """The arguments after a reader's own: `shuffle_after_epoch` and its seed, `own` (more of
    the reader's), the loader's (`read_ahead` accepted and ignored: `read_ahead_ignored` says
    why) and `on_error`."""
    return [
        *_common.shuffle_after_epoch_args(),
        *own,
        *[a if a.name != "read_ahead" else
          Arg("read_ahead", T.BOOL, False, doc="Keep the files' contents in memory.",
              ignored=read_ahead_ignored)
          for a in _common.loader_args()],
        _common.on_error_arg(),
    ]


class FilesReader(_common.Reader):
    """A reader of the files `list_files` lists, with `shuffle_after_epoch` (`reader_args`;
    `setup` checks them with `_common.check_file_sources` and
    `_common.check_shuffle_after_epoch`), whose GPU backend reads on the host."""

    def loader_options(self):
        return _common.shuffle_after_epoch_options(self.args)

    def list_entries(self):
        return list_files(self.args)

    def run_gpu(self, ws, plan):
        """device="gpu" (DALI's GPU readers): the files read on the host as on the CPU, then
        uploaded on the pipeline's stream."""
        host.run_on_host(self, ws, plan)


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
