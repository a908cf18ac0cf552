"""DALI's names from before 1.0 (`file_reader`, `uniform`, ...): each gets the case of the
operator it stands for, called by the old name."""

from bench.cases import decoders as files
from bench.cases import random, readers_containers, readers_numpy, readers_records, transforms
from bench.opcase import aliased

_TARGETS = {c.name: c for module in (files, readers_containers, readers_numpy, readers_records,
                                     random, transforms) for c in module.CASE_LIST}
_ALIASES = {"file_reader": "readers.file", "caffe_reader": "readers.caffe",
            "caffe2_reader": "readers.caffe2", "coco_reader": "readers.coco",
            "mxnet_reader": "readers.mxnet", "numpy_reader": "readers.numpy",
            "sequence_reader": "readers.sequence", "tfrecord_reader": "readers.tfrecord",
            "uniform": "random.uniform", "coin_flip": "random.coin_flip",
            "normal_distribution": "random.normal",
            "transform_translation": "transforms.translation"}

CASE_LIST = [aliased(_TARGETS[target], alias) for alias, target in _ALIASES.items()]
