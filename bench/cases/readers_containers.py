"""Readers of container formats (readers.webdataset, readers.coco, ...): each reads a data set
of the "jpeg" samples of the input set (64 files, one batch is one epoch) written once a process
to a temporary directory, like `opcase.file_root`; the baseline is the idle pipeline."""

import atexit
import io
import json
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


def coco_root(size):
    """A COCO data set of the "jpeg" samples of `size`: (file_root, annotations_file), 1 to 3
    boxes per image, each with a 4-vertex polygon."""
    key = ("coco", size)
    if key not in _DATA:
        root = _root() / f"coco-{size}"
        (root / "images").mkdir(parents=True)
        side = opcase.SIDE[size]
        images, anns = [], []
        for i, buf in enumerate(opcase.batch("jpeg", size)[0]):
            name = f"{i:03d}.jpg"
            (root / "images" / name).write_bytes(buf.tobytes())
            images.append({"id": i + 1, "file_name": name, "width": side, "height": side})
            for k in range(1 + i % 3):
                x, y, w = side * k / 4, side * k / 8, side / 4
                anns.append({"image_id": i + 1, "category_id": 1 + (i + k) % 5,
                             "bbox": [x, y, w, w], "iscrowd": 0,
                             "segmentation": [[x, y, x + w, y, x + w, y + w, x, y + w]]})
        (root / "ann.json").write_text(json.dumps({
            "images": images, "annotations": anns,
            "categories": [{"id": c} for c in range(1, 6)]}))
        _DATA[key] = (str(root / "images"), str(root / "ann.json"))
    return _DATA[key]


CASE_LIST = [
    OpCase("readers.webdataset", "readers.webdataset",
           lambda fn, types, size: tuple(fn.readers.webdataset(paths=wds_archive(size),
                                                               ext=["jpg", "cls"])),
           (), "idle"),
    OpCase("readers.coco", "readers.coco",
           lambda fn, types, size: tuple(fn.readers.coco(
               file_root=coco_root(size)[0], annotations_file=coco_root(size)[1],
               polygon_masks=True, image_ids=True, ltrb=True)),
           (), "idle"),
]
