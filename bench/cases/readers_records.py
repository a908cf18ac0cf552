"""Record readers over the 64 "jpeg" samples written by hand (one batch is one epoch):
readers.tfrecord over one TFRecord file (with its index) of Examples {"image/encoded": bytes,
"image/class/label": int64}; readers.mxnet over one RecordIO .rec/.idx pair of MXNet records
(header with one float label, then the image)."""

import struct

from bench.opcase import OpCase, batch, scratch_dir


def _varint(v):
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _field(no, payload):
    return _varint(no << 3 | 2) + _varint(len(payload)) + payload


def _example(image, label):
    feats = [(b"image/encoded", _field(1, _field(1, image))),
             (b"image/class/label", _field(3, _field(1, _varint(label))))]
    return _field(1, b"".join(_field(1, _field(1, k) + _field(2, v)) for k, v in feats))


def tfrecord_files(size):
    """(tfrecord path, index path) of the "jpeg" samples of `size` (made once a process).  The
    CRCs are left zero: neither reader checks them."""
    def fill(root):
        data, index = bytearray(), []
        for i, buf in enumerate(batch("jpeg", size)[0]):
            rec = _example(buf.tobytes(), i % 1000)
            index.append(f"{len(data)} {len(rec) + 16}\n")
            data += struct.pack("<Q", len(rec)) + bytes(4) + rec + bytes(4)
        (root / "data.tfrecord").write_bytes(bytes(data))
        (root / "data.idx").write_text("".join(index))
        return str(root / "data.tfrecord"), str(root / "data.idx")
    return scratch_dir(f"dali-bench-tfr-{size}-", fill)


def _tfrecord(fn, size):
    tfrec = __import__(fn.__name__.rsplit(".", 1)[0] + ".tfrecord", fromlist=["x"])
    path, index = tfrecord_files(size)
    out = fn.readers.tfrecord(path=path, index_path=index, features={
        "image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
        "image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1)})
    return out["image/encoded"], out["image/class/label"]


def recordio_files(size):
    """(.rec path, .idx path) of the "jpeg" samples of `size` (made once a process)."""
    def fill(root):
        data, index = bytearray(), []
        for i, buf in enumerate(batch("jpeg", size)[0]):
            rec = struct.pack("<IfQQ", 0, float(i % 1000), i, 0) + buf.tobytes()
            index.append(f"{i}\t{len(data)}\n")
            data += struct.pack("<II", 0xCED7230A, len(rec)) + rec + bytes(-len(rec) % 4)
        (root / "data.rec").write_bytes(bytes(data))
        (root / "data.idx").write_text("".join(index))
        return str(root / "data.rec"), str(root / "data.idx")
    return scratch_dir(f"dali-bench-rec-{size}-", fill)


def _mxnet(fn, size):
    path, index = recordio_files(size)
    return fn.readers.mxnet(path=path, index_path=index)


CASE_LIST = [
    OpCase("readers.mxnet", "readers.mxnet",
           lambda fn, types, size: _mxnet(fn, size), (), "idle"),
    OpCase("readers.tfrecord", "readers.tfrecord",
           lambda fn, types, size: _tfrecord(fn, size), (), "idle"),
]
