"""Readers of container formats (webdataset, coco, caffe, caffe2, sequence): each reads a data set
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


def _varint(v):
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | 0x80 if v else b)
        if not v:
            return bytes(out)


def _field(number, data):
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def lmdb_db(size, kind):
    """An LMDB of the "jpeg" samples of `size`: Caffe Datum records (`kind` "caffe": data and
    label) or Caffe2 TensorProtos ("caffe2": a STRING image proto and an INT32 label proto).
    Needs the `lmdb` package."""
    key = (kind, size)
    if key not in _DATA:
        import lmdb

        path = _root() / f"{kind}-{size}"
        env = lmdb.open(str(path), map_size=1 << 26)
        with env.begin(write=True) as txn:
            for i, buf in enumerate(opcase.batch("jpeg", size)[0]):
                if kind == "caffe":
                    value = _field(4, buf.tobytes()) + _varint(5 << 3) + _varint(i % 4)
                else:
                    value = (_field(1, _varint(2 << 3) + _varint(4) + _field(6, buf.tobytes()))
                             + _field(1, _varint(2 << 3) + _varint(2)
                                      + _field(4, _varint(i % 4))))
                txn.put(b"%05d" % i, value)
        env.close()
        _DATA[key] = str(path)
    return _DATA[key]


def frame_streams(size):
    """4 streams of 17 "jpeg" frames of `size` (64 sequences of 2 frames)."""
    key = ("sequence", size)
    if key not in _DATA:
        root = _root() / f"sequence-{size}"
        jpegs = opcase.batch("jpeg", size)[0]
        for s in range(4):
            (root / f"{s}").mkdir(parents=True)
            for i in range(17):
                (root / f"{s}" / f"{i:03d}.jpg").write_bytes(jpegs[(17 * s + i) % 64].tobytes())
        _DATA[key] = str(root)
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
    OpCase("readers.caffe", "readers.caffe",
           lambda fn, types, size: tuple(fn.readers.caffe(path=lmdb_db(size, "caffe"))),
           (), "idle", modules=("lmdb",)),
    OpCase("readers.caffe2", "readers.caffe2",
           lambda fn, types, size: tuple(fn.readers.caffe2(path=lmdb_db(size, "caffe2"))),
           (), "idle", modules=("lmdb",)),
    OpCase("readers.sequence", "readers.sequence",
           lambda fn, types, size: fn.readers.sequence(file_root=frame_streams(size),
                                                       sequence_length=2),
           (), "idle"),
]
