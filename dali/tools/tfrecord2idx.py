"""Write the index of a TFRecord file for fn.readers.tfrecord, without TensorFlow.

    python -m dali.tools.tfrecord2idx FILE.tfrecord FILE.idx

Each line of the index is "offset size" of one record (its framing included), as DALI's
`tfrecord2idx` writes it.  A record whose length runs past the end of the file is an error
(exit status 1, nothing written).
"""

from __future__ import annotations

import os
import struct
import sys


def index(path):
    """[(offset, size)] of the records of the TFRecord file `path`; ValueError if truncated."""
    out = []
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        pos = 0
        while pos < size:
            head = f.read(12)
            if len(head) < 12:
                raise ValueError(f"{path}: truncated record header at byte {pos}")
            (length,) = struct.unpack_from("<Q", head, 0)
            end = pos + 16 + length
            if end > size:
                raise ValueError(f"{path}: the record at byte {pos} ({length} bytes of data) "
                                 f"runs past the end of the file ({size} bytes)")
            out.append((pos, end - pos))
            pos = end
            f.seek(pos)
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python -m dali.tools.tfrecord2idx <tfrecord file> <index file>",
              file=sys.stderr)
        return 2
    try:
        records = index(argv[0])
    except (OSError, ValueError) as e:
        print(f"tfrecord2idx: {e}", file=sys.stderr)
        return 1
    with open(argv[1], "w") as f:
        f.write("".join(f"{off} {n}\n" for off, n in records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
