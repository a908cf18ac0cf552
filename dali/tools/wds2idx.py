"""Writes the index file of a WebDataset tar archive, for `fn.readers.webdataset(index_paths=)`.

    python -m dali.tools.wds2idx <archive> [<index>]

The index is DALI's format, version 1.2: a first line `v1.2 <number of samples>`, then one
line per sample of `<ext> <offset> <size> <file name>` records, one per component (the offset
of the component's data in the archive, in bytes).  Samples are grouped as DALI's own
`wds2idx.py` groups them: consecutive regular files with the same name up to the first dot of
the last path component; names starting with a dot are left out.  Without `<index>`, the index
is written next to the archive, its name cut at the archive name's first dot (after the first
character) plus `.idx`.  The archive is read by `dali.ops.readers._tar` (no `tar` program).
"""

from __future__ import annotations

import argparse
import os
import sys

from dali.ops.readers import _tar

INDEX_VERSION = "v1.2"


def _split_name(name):
    """(basename, extension) as DALI's wds2idx.py splits a name: without a dot in the last
    component, the basename loses its last character and the extension is the whole name."""
    dot = name.find(".", name.rfind("/") + 1)
    return name[:dot], name[dot + 1:]


def index_lines(archive):
    """The lines of the index of `archive` (without newlines)."""
    names, offsets, sizes = _tar.members(archive)
    samples = []
    last = None
    for name, offset, size in zip(names, offsets.tolist(), sizes.tolist(), strict=True):
        base, ext = _split_name(name)
        if not base or base.endswith("/"):
            continue
        if base != last:
            samples.append([])
            last = base
        samples[-1].append(f"{ext} {offset} {size} {name}")
    if not samples:
        raise ValueError(f"Webdataset Tar File empty: {archive}")
    return [f"{INDEX_VERSION} {len(samples)}"] + [" ".join(s) for s in samples]


def create_index(archive, index):
    """Write the index of `archive` to `index`."""
    lines = index_lines(archive)
    with open(index, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n".join(lines) + "\n")


def default_index_path(archive):
    return archive[:archive.find(".", archive.rfind("/") + 2)] + ".idx"


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m dali.tools.wds2idx",
        description="Creates a webdataset index file for the use with "
                    "`fn.readers.webdataset`.")
    parser.add_argument("archive", help="path to .tar file.")
    parser.add_argument("index", nargs="?", help="path to index file")
    args = parser.parse_args(argv)
    index = args.index if args.index is not None else default_index_path(args.archive)
    try:
        create_index(os.path.abspath(args.archive), os.path.abspath(index))
    except (OSError, ValueError, _tar.TarError) as e:
        print(f"wds2idx: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
