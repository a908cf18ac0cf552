"""Readers of container formats (readers.webdataset, ...): each reads a data set of the "jpeg"
samples of the input set (64 files, one batch is one epoch) written once a process to a
temporary directory, like `opcase.file_root`; the baseline is the idle pipeline."""

import atexit
import io
import pathlib
import shutil
import tarfile
import tempfile

from bench import opcase
from bench.opcase import OpCase

_DATA = {}


def _root():
    if "root" not in _DATA:
        root = pathlib.Path(tempfile.mkdtemp(prefix="dali-bench-containers-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        _DATA["root"] = root
    return _DATA["root"]


def wds_archive(size):
    """A webdataset archive of the "jpeg" samples of `size`: `<i>.jpg` and a `<i>.cls` label
    per sample."""
    key = ("wds", size)
    if key not in _DATA:
        path = _root() / f"wds-{size}.tar"
        with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as t:
            for i, buf in enumerate(opcase.batch("jpeg", size)[0]):
                for name, data in ((f"{i:03d}.jpg", buf.tobytes()),
                                   (f"{i:03d}.cls", str(i % 4).encode())):
                    info = tarfile.TarInfo(name)
                    info.size = len(data)
                    t.addfile(info, io.BytesIO(data))
        _DATA[key] = str(path)
    return _DATA[key]


CASE_LIST = [
    OpCase("readers.webdataset", "readers.webdataset",
           lambda fn, types, size: tuple(fn.readers.webdataset(paths=wds_archive(size),
                                                               ext=["jpg", "cls"])),
           (), "idle"),
]
