import json
import pathlib

import numpy as np
import pytest

from dali import _types, types
from dali._types import DALIDataType as T

GOLDENS = pathlib.Path(__file__).parent / "goldens"


def test_data_type_values_match_dali():
    expected = {"NO_TYPE": -1, "UINT8": 0, "UINT16": 1, "UINT32": 2, "UINT64": 3, "INT8": 4,
                "INT16": 5, "INT32": 6, "INT64": 7, "FLOAT16": 8, "FLOAT": 9, "FLOAT64": 10,
                "BOOL": 11, "STRING": 12, "_BOOL_VEC": 13, "_INT32_VEC": 14, "_STRING_VEC": 15,
                "_FLOAT_VEC": 16, "FEATURE": 17, "_FEATURE_VEC": 18, "_FEATURE_DICT": 19,
                "IMAGE_TYPE": 20, "DATA_TYPE": 21, "INTERP_TYPE": 22, "TENSOR_LAYOUT": 23,
                "PYTHON_OBJECT": 24, "_TENSOR_LAYOUT_VEC": 25, "_DATA_TYPE_VEC": 26,
                "_INT64_VEC": 27}
    assert {m.name: m.value for m in T} == expected
    assert types.UINT8 is T.UINT8 and types.FLOAT == 9
    assert repr(types.UINT8) == "<DALIDataType.UINT8: 0>"
    assert str(types.INT32) == "DALIDataType.INT32"


def test_other_enums():
    assert [(m.name, m.value) for m in types.DALIImageType] == [
        ("RGB", 0), ("BGR", 1), ("GRAY", 2), ("YCbCr", 3), ("ANY_DATA", 4)]
    assert types.RGB is types.DALIImageType.RGB
    assert [m.value for m in types.DALIInterpType] == list(range(6))
    assert types.INTERP_LANCZOS3 == 3 and types.INTERP_GAUSSIAN == 5
    assert types.NHWC == "HWC" and types.NCHW == "CHW" and types.NFHWC == "FHWC"
    assert types.SAME == ""
    assert types.CPU_ONLY_DEVICE_ID == -99999
    assert [m.name for m in types.PipelineAPIType] == ["BASIC", "ITERATOR", "SCHEDULED"]


@pytest.mark.parametrize("dali_t,np_t", [
    (T.UINT8, np.uint8), (T.UINT16, np.uint16), (T.UINT32, np.uint32), (T.UINT64, np.uint64),
    (T.INT8, np.int8), (T.INT16, np.int16), (T.INT32, np.int32), (T.INT64, np.int64),
    (T.FLOAT16, np.float16), (T.FLOAT, np.float32), (T.FLOAT64, np.float64), (T.BOOL, np.bool_)])
def test_numpy_mapping_both_ways(dali_t, np_t):
    assert types.to_numpy_type(dali_t) is np_t
    assert types.to_dali_type(np_t) == dali_t
    assert types.to_dali_type(np.dtype(np_t)) == dali_t
    assert types.to_dali_type(np.dtype(np_t).name) == dali_t


def test_to_dali_type_names():
    assert types.to_dali_type("half") == T.FLOAT16
    assert types.to_dali_type("double") == T.FLOAT64
    assert types.to_dali_type("long") == T.INT64
    assert types.to_dali_type("torch.float32") == T.FLOAT
    with pytest.raises(TypeError, match="could not be converted"):
        types.to_dali_type("quaternion")
    with pytest.raises(TypeError, match="numpy equivalent"):
        types.to_numpy_type(T.STRING)


def test_sample_and_batch_info():
    s = types.SampleInfo(7, 1, 3, 0)
    assert (s.idx_in_epoch, s.idx_in_batch, s.iteration, s.epoch_idx) == (7, 1, 3, 0)
    b = types.BatchInfo(2, 1)
    assert (b.iteration, b.epoch_idx) == (2, 1)


def _golden_type(name):
    return {"float32": T.FLOAT, "float64": T.FLOAT64, "bool": T.BOOL}.get(
        name, types.to_dali_type(name))


def test_promotion_table_matches_real_dali_golden():
    table = json.loads((GOLDENS / "promotion_add.json").read_text())
    scalars = {"int": T.INT32, "float": T.FLOAT, "pybool": T.BOOL}
    checked = 0
    for key, result in table.items():
        a, b = key.split(",")
        ta = _golden_type(a)
        tb = scalars[b] if b in scalars else _golden_type(b)
        assert _types.promote(ta, tb) == _golden_type(result), key
        checked += 1
    assert checked == len(table) > 140


def test_scalar_types_are_not_weak():
    assert _types.scalar_type(1) == T.INT32
    assert _types.scalar_type(1.5) == T.FLOAT
    assert _types.scalar_type(True) == T.BOOL
    assert _types.scalar_type(np.uint8(3)) == T.UINT8
    with pytest.raises(TypeError):
        _types.scalar_type("x")


def test_scalar_constant():
    c = types.Constant(5)
    assert isinstance(c, types.ScalarConstant)
    assert c.dtype == T.INT32 and c.value == 5 and repr(c) == "5"
    c = types.Constant(5.0, dtype=types.UINT8)
    assert c.dtype == T.UINT8 and c.value == 5
    assert types.ScalarConstant(2.5).dtype == T.FLOAT
