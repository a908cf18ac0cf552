"""The readers' names before DALI 1.0 (`fn.file_reader`, `ops.FileReader`, ...), kept so that
older pipelines run unchanged: each is the reader it stands for under its old name, and warns
(DeprecationWarning) when a pipeline using it is built."""

from __future__ import annotations

import functools

from dali.ops import _aliases
from dali.ops.readers import caffe, caffe2, coco, file, mxnet, numpy, sequence, tfrecord

_alias = functools.partial(_aliases.deprecated_alias, module=__name__)
_RENAMED = "the readers moved to `fn.readers` in DALI 1.0"

ALIASES = [
    _alias("file_reader", file.File, _RENAMED),
    _alias("caffe_reader", caffe.Caffe, _RENAMED),
    _alias("caffe2_reader", caffe2.Caffe2, _RENAMED),
    _alias("coco_reader", coco.Coco, _RENAMED, class_name="COCOReader"),
    _alias("mxnet_reader", mxnet.MXNet, _RENAMED, class_name="MXNetReader"),
    _alias("numpy_reader", numpy.Numpy, _RENAMED),
    _alias("sequence_reader", sequence.Sequence, _RENAMED),
    _alias("tfrecord_reader", tfrecord.TFRecord, _RENAMED, class_name="TFRecordReader"),
]
