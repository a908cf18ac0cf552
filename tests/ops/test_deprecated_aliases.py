"""DALI's operator names from before 1.0 (`fn.file_reader`, `ops.COCOReader`, `fn.uniform`,
...): each is the operator it stands for, warns when a pipeline using it is built, and
serializes under DALI's old schema name."""

import numpy as np
import pytest

from dali import fn, ops, pipeline_def

OLD_NEW = [("uniform", "random.uniform"), ("coin_flip", "random.coin_flip"),
           ("normal_distribution", "random.normal"),
           ("transform_translation", "transforms.translation")]


def _op(path):
    f = fn
    for part in path.split("."):
        f = getattr(f, part)
    return f


@pytest.mark.parametrize("old, new", OLD_NEW)
def test_old_names_give_the_new_operators_values(old, new):
    def make(path):
        @pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=9)
        def pipe():
            kwargs = {"offset": [1.0, 2.0]} if "translation" in path else {}
            return _op(path)(**kwargs)

        return pipe()

    with pytest.warns(DeprecationWarning, match=f"`dali.fn.{old}` is now deprecated. Use "
                                                f"`dali.fn.{new}` instead."):
        old_out = make(old).run()[0]
    new_out = make(new).run()[0]
    assert all(np.array_equal(np.array(a), np.array(b)) for a, b in zip(old_out, new_out,
                                                                         strict=True))


def test_reader_aliases_and_dalis_class_names():
    assert fn.file_reader._schema_name == "FileReader"
    assert fn.coco_reader._schema_name == "COCOReader" and ops.COCOReader
    assert fn.mxnet_reader._schema_name == "MXNetReader" and ops.MXNetReader
    assert fn.tfrecord_reader._schema_name == "_TFRecordReader"
    assert fn.readers.tfrecord._schema_name == "readers___TFRecord"
    for name in ("caffe_reader", "caffe2_reader", "numpy_reader", "sequence_reader"):
        assert "Deprecated alias" in getattr(fn, name).__doc__
